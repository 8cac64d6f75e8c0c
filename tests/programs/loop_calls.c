/* A loop that calls g a nondeterministic number of times, then f (Fig. 2 of Chockler et
 * al., JAIR 2020, without the exit). */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

int calls;

void g(void)
{
    calls++;
}

void f(void)
{
    calls = 0;
}

int main(void)
{
    int n = nondet_int();
    for (int i = 0; i < n; i++)
        g();
    f();
    return 0;
}
