/* A switch with a fall-through from case 1 into case 2, and a default. */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

void one(void) {}

void two(void) {}

void other(void) {}

int main(void)
{
    switch (nondet_int()) {
    case 1:
        one();
        /* fall through */
    case 2:
        two();
        break;
    default:
        other();
    }
    return 0;
}
