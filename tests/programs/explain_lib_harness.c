/* The harness of tests/programs/explain_lib.c: one step on a nondeterministic value. */
int nondet_int(void);
int step(int x);

void harness(void)
{
    step(nondet_int());
}
