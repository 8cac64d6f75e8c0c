/* A library function with an assertion and no main: `explain` reaches it through a
 * harness file (tests/programs/explain_lib_harness.c). */
#include <assert.h>

void log_value(int x) { (void)x; }

int step(int x)
{
    log_value(x);
    assert(x != 3);
    return x + 1;
}
