/* Every execution is cut at --unwind 2: the loop always runs 5 times. */
void step(void) {}

int main(void)
{
    for (int i = 0; i < 5; i++)
        step();
    return 0;
}
