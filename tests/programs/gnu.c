/* GNU C that gcc -std=gnu17 takes: attributes (one between a declarator and its
 * initialiser, which tree-sitter-c cannot read), a case range, a statement expression,
 * typeof and an asm label. */

int nondet_int(void);

__attribute__((noinline)) static void low(void) {}
void high(void) {}
int twice(int x) __asm__("twice_impl");
int twice(int x) { return 2 * x; }

int main(void)
{
    int u __attribute__((unused)) = 0;
    __typeof__(u) k = ({ int t = nondet_int(); t; });
    switch (k) {
    case 1 ... 3:
        low();
        break;
    case 4:
        high();
        /* fall through */
    default:
        break;
    }
    return twice(k);
}
