/* Three characters from {a, b, =}, searched with C library functions CBMC 6.6 has no
 * model of (memchr, strspn, strstr): mergelens's own models make their results the C
 * standard's, so "found prefix needle" (an '=', a prefix "aa" and an "ab" in three
 * characters) is impossible, while CBMC's arbitrary results would allow it. */
#include <string.h>

char nondet_char(void);

void found(void) {}
void missing(void) {}
void prefix(void) {}
void needle(void) {}

static char pick(void)
{
    char c = nondet_char();
    __CPROVER_assume(c == 'a' || c == 'b' || c == '=');
    return c;
}

int main(void)
{
    char s[4];
    s[0] = pick();
    s[1] = pick();
    s[2] = pick();
    s[3] = '\0';
    if (memchr(s, '=', 3) != NULL)
        found();
    else
        missing();
    if (strspn(s, "a") >= 2)
        prefix();
    if (strstr(s, "ab") != NULL)
        needle();
    return 0;
}
