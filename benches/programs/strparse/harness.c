/* The harness of the parser: a line of at most INPUT nondeterministic characters, parsed
 * with on_pair as the callback. */
int parse_line(const char *line, void (*callback)(char, long));
void on_pair(char key, long value);
unsigned nondet_unsigned(void);
char nondet_char(void);

#ifndef INPUT
#define INPUT 4
#endif

int harness(void)
{
    char line[INPUT + 1];
    unsigned n = nondet_unsigned();
    __CPROVER_assume(n <= INPUT);
    for (unsigned i = 0; i < n; i++) {
        line[i] = nondet_char();
        __CPROVER_assume(line[i] != '\0');
    }
    line[n] = '\0';
    return parse_line(line, on_pair);
}
