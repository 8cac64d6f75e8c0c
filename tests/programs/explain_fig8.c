/* Fig. 8 of the paper: the assertion fails iff input >= 20, on the path F F G H. */
#include <assert.h>

int nondet_int(void);

void F(void) {}
void G(void) {}
void H(void) {}

int main(void) {
  int input = nondet_int();
  if (input >= 10)
    F();
  if (input >= 20) {
    F();
    G();
  }
  H();
  assert(input < 20);
  return 0;
}
