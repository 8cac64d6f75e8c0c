/* Pre-C99 C that gcc -std=gnu17 still takes: K&R definitions (parameters declared
 * between the list and the body, one left to default to int) and implicit int. */

int nondet_int();

log_it(n)
    int n;
{
    return n;
}

static int
scale(a, label, k)
    int a;
    char *label;
{
    if (a > k)
        log_it(a);
    return a * 2;
}

main()
{
    int x = nondet_int();
    scale(x, "x", 0);
    return 0;
}
