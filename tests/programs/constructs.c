/* Control flow the front end must follow: expression-level calls (?:, &&, arguments),
 * switch with fall-through and a loop inside, do-while(0), goto, early returns, exits, a
 * statement expression, and an old-style definition. */

#include <stdlib.h>

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

int a(void) { return nondet_int(); }

int b(int x) { return x + 1; }

int c(int x, int y) { return x - y; }

void d(void) {}

int old_style(x)
int x;
{
    return x * 2;
}

#define CHECK(cond) do { if (!(cond)) { d(); break; } } while (0)

int main(void)
{
    int n = nondet_int();
    int r = n > 0 ? b(a()) : c(a(), b(1));
    if (n == 1 && a())
        d();
    switch (n) {
    case 0:
        r += b(2);
        /* fall through */
    case 1:
        for (int i = 0; i < n; i++)
            CHECK(a());
        break;
    case 2:
        if (a())
            exit(1);
        goto done;
    default:
        r = old_style(r);
    }
    r = ({ int t = a(); t ? b(t) : 0; });
    if (r < 0)
        return 1;
done:
    d();
    return 0;
}
