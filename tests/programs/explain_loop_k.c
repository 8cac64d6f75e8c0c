/* The assertion fails only in the third iteration: the one failing word is
 * step step step assert, and the passing iterations before it do not fail. */
#include <assert.h>

int nondet_int(void);

void step(void) {}

int main(void) {
  int n = nondet_int();
  for (int i = 0; i < n; i++) {
    step();
    assert(i < 2);
  }
  return 0;
}
