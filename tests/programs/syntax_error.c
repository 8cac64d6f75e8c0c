/* A C syntax error on line 7: the addition lacks its right operand. */

void f(void) {}

int main(void)
{
    int y = (2 + );
    f();
    return y;
}
