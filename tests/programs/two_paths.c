/* Fig. 3 of Chockler et al., JAIR 2020: g is reached through f1 and through f2, and calls
 * h1 on the first path and h2 on the second. A call graph cannot tell these paths apart;
 * the language can: f1 g h2 never happens. */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

void h1(void) {}

void h2(void) {}

void g(int path)
{
    if (path == 1)
        h1();
    else
        h2();
}

void f1(void)
{
    g(1);
}

void f2(void)
{
    g(2);
}

int main(void)
{
    if (nondet_int())
        f1();
    else
        f2();
    return 0;
}
