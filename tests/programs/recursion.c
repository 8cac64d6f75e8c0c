/* A recursive function: down calls itself n times (n between 0 and 2), then leaf. */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

void leaf(void) {}

int down(int n)
{
    if (n <= 0) {
        leaf();
        return 0;
    }
    return down(n - 1) + 1;
}

int main(void)
{
    int n = nondet_int();
    if (n < 0 || n > 2)
        n = 0;
    return down(n);
}
