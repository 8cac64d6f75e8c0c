/* A local function pointer named like a defined function: `f()` calls g, through the
   pointer, not the function f. */

void f(void) {}

void g(void) {}

int main(void)
{
    void (*f)(void) = g;
    f();
    return 0;
}
