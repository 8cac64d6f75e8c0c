/* A query CBMC cannot answer quickly: reaching found() means factoring a 64-bit semiprime.
   Alphabet: main=0 found=1 end=2. */
#include "hooks.h"

unsigned long long nondet_ull(void);

static void found(void) { __mergelens_event(1); }

int main(void)
{
  __mergelens_event(0);
  unsigned long long x = nondet_ull(), y = nondet_ull();
  if (x > 1 && y > 1 && x < 0x100000000ULL && y < 0x100000000ULL &&
      x * y == 0x8f7248d74bb32155ULL)
    found();
  __mergelens_end();
  return 0;
}
