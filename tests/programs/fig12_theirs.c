/* Fig. 12(c) of Chockler et al., JAIR 2020: branch B calls funcB or funcC depending on an
 * input, `guard`. */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

int guard;

void funcA(void) {}

void funcB(void) {}

void funcC(void) {}

int main(void)
{
    guard = nondet_int();
    funcA();
    if (guard)
        funcB();
    else
        funcC();
    return 0;
}
