/* The C library as the C library behaves: a classification with isspace, a search with
 * strchr, a copy with strncpy into a 50-byte buffer and strlen on a 2-character input.
 * Real words only: blank never comes with key (a space is not 'k'), and pair needs two
 * non-zero characters, which the 50-iteration strncpy copies whole. */
#include <ctype.h>
#include <string.h>

char nondet_char(void);

void blank(void) {}
void key(void) {}
void assign(void) {}
void pair(void) {}

int main(void)
{
    char in[3];
    char buf[50];
    in[0] = nondet_char();
    in[1] = nondet_char();
    in[2] = '\0';
    if (isspace((unsigned char)in[0]))
        blank();
    if (in[0] == 'k')
        key();
    if (strchr(in, '=') != NULL)
        assign();
    strncpy(buf, in, sizeof buf);
    if (strlen(buf) == 2)
        pair();
    return 0;
}
