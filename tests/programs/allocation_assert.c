/* The assertion fails only where malloc returns NULL: explained by default, the empty
 * language with --allocations succeed. */
#include <assert.h>
#include <stdlib.h>

void out_of_memory(void) {}

void fill(char *p)
{
    if (p)
        p[0] = 1;
}

int main(void)
{
    char *p = malloc(4);
    if (p == NULL)
        out_of_memory();
    fill(p);
    assert(p != NULL);
    free(p);
    return 0;
}
