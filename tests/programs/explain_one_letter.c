/* The assertion fails exactly when `bad` was called, whatever else happened: the failure
 * is characterised by one letter (the concise explanation of Yaacov et al. is
 * "(a|b)* bad (a|b|bad)* assert", three states, at every word-length bound). */
#include <assert.h>

int nondet_int(void);

int called_bad;

void a(void) {}
void b(void) {}
void bad(void) { called_bad = 1; }

int main(void) {
  int n = nondet_int();
  for (int i = 0; i < n; i++) {
    int c = nondet_int();
    if (c == 0)
      a();
    else if (c == 1)
      b();
    else
      bad();
  }
  assert(!called_bad);
  return 0;
}
