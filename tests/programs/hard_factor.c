/* Reaching found() means factoring a 64-bit semiprime: no quick answer, for the tests of
 * query timeouts. */
unsigned long long nondet_ull(void);
void found(void) {}
int main(void)
{
    unsigned long long x = nondet_ull(), y = nondet_ull();
    if (x > 1 && y > 1 && x < 0x100000000ULL && y < 0x100000000ULL &&
        x * y == 0x8f7248d74bb32155ULL)
        found();
    return 0;
}
