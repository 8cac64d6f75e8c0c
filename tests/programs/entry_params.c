/* An entry function with parameters: learned through the harness mergelens generates
 * (a nondeterministic int, a NUL-terminated buffer of at most 3 characters). */

void token(void) {}
void other(void) {}
void report(void) {}

int count_a(int limit, const char *s)
{
    int count = 0;
    while (*s) {
        if (*s == 'a')
            token();
        else
            other();
        s++;
    }
    if (limit < 0)
        return -1;
    report();
    return count;
}
