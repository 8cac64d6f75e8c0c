/* SV-COMP style: __VERIFIER_error() is an assertion whose condition is false. It is
 * reached when x == 3, after f; g runs on every path, but before the branch only. */
int nondet_int(void);
void __VERIFIER_error(void);

void f(void) {}
void g(void) {}

int main(void) {
  int x = nondet_int();
  g();
  if (x == 3) {
    f();
    __VERIFIER_error();
  }
  f();
  return 0;
}
