/* Fig. 10 of Chockler et al. in small: g may exit the program.
   Alphabet: main=0 g=1 f=2 end=3. Language: main g f end. Exit prefix: main g. */
#include <stdlib.h>
#include "hooks.h"

void g(int x)
{
  __mergelens_event(1);
  if (x > 100) {
    __mergelens_exit();
    exit(0);
  }
}

void f(void) { __mergelens_event(2); }

int main(int argc, char *argv[])
{
  __mergelens_event(0);
  g(argc);
  f();
  __mergelens_end();
  return 0;
}
