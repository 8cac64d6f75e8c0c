/* The merged program of Fig. 12 (d) of Chockler et al., hand-instrumented.
   Alphabet: main=0 funcA=1 funcB=2 funcC=3 funcZ=4 end=5. */
#include "hooks.h"

int nondet_int(void);

void funcA(void) { __mergelens_event(1); }
void funcB(void) { __mergelens_event(2); }
void funcC(void) { __mergelens_event(3); }

void funcZ(int guard)
{
  __mergelens_event(4);
  if (guard)
    funcB();
  else
    funcC();
}

int main(void)
{
  __mergelens_event(0);
  funcA();
  funcZ(nondet_int());
  __mergelens_end();
  return 0;
}
