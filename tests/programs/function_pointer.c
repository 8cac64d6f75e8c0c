/* A call through a function pointer: which function runs depends on an input. */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

void on_even(void) {}

void on_odd(void) {}

void finish(void) {}

int main(void)
{
    void (*handler)(void) = nondet_int() % 2 ? on_odd : on_even;
    handler();
    finish();
    return 0;
}
