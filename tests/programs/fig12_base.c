/* Fig. 12(a) of Chockler et al., JAIR 2020: the merge base. main calls funcA then funcB. */

void funcA(void) {}

void funcB(void) {}

int main(void)
{
    funcA();
    funcB();
    return 0;
}
