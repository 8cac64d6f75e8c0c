/* A local function pointer named like a defined function: the front end resolves the call
   `f()` to the function f, but it calls g. The control-flow pre-check is wrong here, and
   the teacher must notice. */

void f(void) {}

void g(void) {}

int main(void)
{
    void (*f)(void) = g;
    f();
    return 0;
}
