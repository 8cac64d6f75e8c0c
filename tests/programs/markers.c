/* User-defined events (MERGELENS_EVENT) next to function entries. Compiled normally, the
 * markers do nothing (include/mergelens.h). */

#include "mergelens.h"

/* No body: the bounded model checker CBMC gives the result a nondeterministic value. */
int nondet_int(void);

static int parse(int c)
{
    if (c < 0) {
        MERGELENS_EVENT("bad_input");
        return -1;
    }
    MERGELENS_EVENT("parsed");
    return c;
}

int main(void)
{
    int c = nondet_int();
    if (parse(c) < 0) {
        MERGELENS_EVENT("error_path");
        return 1;
    }
    MERGELENS_EVENT("ok_path");
    return 0;
}
