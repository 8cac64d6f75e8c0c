/* The first file of a program of two files (with multi_util.c). */

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

void helper(int x);

int main(void)
{
    helper(nondet_int());
    return 0;
}
