/* An assertion that cannot fail: x > 5 implies x > 3. The language is empty. */
#include <assert.h>

unsigned nondet_unsigned(void);

void check(unsigned x) { assert(x > 3); }

int main(void) {
  unsigned x = nondet_unsigned();
  if (x > 5)
    check(x);
  return 0;
}
