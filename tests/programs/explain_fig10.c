/* Fig. 10 of the paper: Fig. 2 with an exit point before f(). The language is unchanged;
 * the exit is where the trap of Fig. 11 goes. */
#include <assert.h>
#include <stdlib.h>

void g(int x) { if (x > 100) exit(0); }

void f() { assert(0); }

int main(int argc, char *argv[]) {
  for (int i = 0; i < argc; i++) g(i);
  if (argv[0][0] == '1') exit(0);
  f();
  return 0;
}
