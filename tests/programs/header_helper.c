/* The helper defined in header_helper.h is a letter; CBMC's built-in __CPROVER_assume
 * raises no warning. x is 1 or 2, so f runs exactly when x is 1. */
#include "header_helper.h"
int nondet_int(void);
void f(void) {}
int main(void) {
  int x = nondet_int();
  __CPROVER_assume(x > 0 && x < 3);
  if (helper(x) == 2)
    f();
  return 0;
}
