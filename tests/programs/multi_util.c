/* The second file of a program of two files (with multi_main.c). */

static void twice(void) {}

void helper(int x)
{
    if (x)
        twice();
}
