/* The entry function is not main: CBMC calls run(x) with a nondeterministic x.
   Alphabet: run=0 small=1 big=2 end=3. Language: run small end, run big end. */
#include "hooks.h"

static void small(void) { __mergelens_event(1); }
static void big(void) { __mergelens_event(2); }

int run(int x)
{
  __mergelens_event(0);
  if (x < 10)
    small();
  else
    big();
  __mergelens_end();
  return x;
}

int main(void)
{
  /* Never the entry in the tests: its word would be "end" alone. */
  __mergelens_end();
  return 0;
}
