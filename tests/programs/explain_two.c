/* Two assertions. The first (line 14) fails whenever the second (line 16) does, and
 * earlier on the same run: when the second is the target, the first neither stops the run
 * nor counts, so the language of the second is {a b assert}; that of the first is
 * {a assert}. */
#include <assert.h>

int nondet_int(void);

void a(void) {}
void b(void) {}

int main(void) {
  int x = nondet_int();
  if (x == 1) { a(); assert(0); }
  b();
  assert(x != 1);
  return 0;
}
