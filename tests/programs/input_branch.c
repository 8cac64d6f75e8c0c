/* Two branches on the same input: high at most twice, low only when x <= 10, so low never
 * comes together with high. */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

void low(void) {}

void high(void) {}

void done(void) {}

int main(void)
{
    int x = nondet_int();
    if (x > 10)
        high();
    else
        low();
    if (x > 20)
        high();
    done();
    return 0;
}
