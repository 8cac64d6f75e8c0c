/* Fig. 2 and Fig. 6 of Chockler et al., Learning the Language of Software Errors (JAIR
 * 2020): the error language is g* f assert within the bounds (g exits only for x > 100). */
#include <assert.h>
#include <stdlib.h>

void g(int x) { if (x > 100) exit(0); }

void f() { assert(0); }

int main(int argc, char *argv[]) {
  for (int i = 0; i < argc; i++) g(i);
  f();
  return 0;
}
