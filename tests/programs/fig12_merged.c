/* Fig. 12(d) of Chockler et al., JAIR 2020: the merge result. Branch B's choice between
 * funcB and funcC ended up inside branch A's funcZ, so funcZ may now call funcC, which
 * neither branch meant. */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

int guard;

void funcA(void) {}

void funcB(void) {}

void funcC(void) {}

void funcZ(void)
{
    if (guard)
        funcB();
    else
        funcC();
}

int main(void)
{
    guard = nondet_int();
    funcA();
    funcZ();
    return 0;
}
