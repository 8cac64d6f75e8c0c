/* A harness for tinyexpr (codeplea/tinyexpr, not part of this repository): evaluate an
 * expression of two nondeterministic characters with te_interp (recursive descent,
 * doubles, calls through function pointers). Entry: eval_short. */
#include "tinyexpr.h"

char nondet_char(void);

double eval_short(void)
{
    char buf[3];
    int err;
    buf[0] = nondet_char();
    buf[1] = nondet_char();
    buf[2] = 0;
    return te_interp(buf, &err);
}
