/* A loop whose calls depend on a hash of a nondeterministic value: every query is a real
 * CBMC run, and the last conjecture's exactness pass takes CBMC tens of seconds (for the
 * tests of --time-budget, Ctrl-C and progress lines). */
unsigned nondet_uint(void);
int nondet_int(void);
void a(void) {}
void b(void) {}
void c(void) {}
int main(void)
{
    unsigned h = nondet_uint();
    int n = nondet_int();
    for (int i = 0; i < n; i++) {
        h = h * 2654435761u + (unsigned)i;
        if (h % 3 == 0)
            a();
        else if (h % 5 == 1)
            b();
        else
            c();
    }
    if ((h * h) % 7 == 3)
        a();
    return 0;
}
