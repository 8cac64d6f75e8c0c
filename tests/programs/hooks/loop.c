/* A loop that calls f a nondeterministic number of times.
   Alphabet: main=0 f=1 end=2. Language with unwind b: main f^k end, k <= b. */
#include "hooks.h"

int nondet_int(void);

void f(void) { __mergelens_event(1); }

int main(void)
{
  __mergelens_event(0);
  int n = nondet_int();
  for (int i = 0; i < n; i++)
    f();
  __mergelens_end();
  return 0;
}
