/* An allocation that may fail: CBMC's model lets malloc return NULL, and what the program
 * does then (out_of_memory) is one of its behaviours, unless --allocations succeed leaves
 * those executions out. */
#include <stdlib.h>

void out_of_memory(void) {}

void use(char *p) { p[0] = 1; }

void release(char *p) { free(p); }

int main(void)
{
    char *p = malloc(8);
    if (p == NULL) {
        out_of_memory();
        return 1;
    }
    use(p);
    release(p);
    return 0;
}
