/* Fig. 10 of Chockler et al., JAIR 2020: g exits the program for large arguments, and main
 * may exit before calling f. Only executions that return from main have a word. */

#include <stdlib.h>

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

void g(int x)
{
    if (x > 1)
        exit(0);
}

void f(void) {}

int main(void)
{
    int argc = nondet_int();
    for (int i = 0; i < argc; i++)
        g(i);
    if (nondet_int())
        exit(0);
    f();
    return 0;
}
