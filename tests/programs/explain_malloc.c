/* One assertion of its own beside those of CBMC's malloc model: explain takes it without a
   run that checks which assertions fail. */
#include <assert.h>
#include <stdlib.h>

int nondet_int(void);

void push(int **slot) { *slot = malloc(sizeof(int)); }

void pop(int **slot) { *slot = 0; }

int main(void) {
  int *p = 0;
  if (nondet_int())
    push(&p);
  if (nondet_int())
    pop(&p);
  assert(p == 0);
  return 0;
}
