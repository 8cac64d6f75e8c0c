/* A harness for inih (benhoyt/inih, not part of this repository): parse a string of three
 * nondeterministic characters with ini_parse_string, which reads it line by line into the
 * library's INI_MAX_LINE (200) byte buffer. Entry: parse_short. */
#include "ini.h"

char nondet_char(void);

static int handler(void *user, const char *section, const char *name, const char *value)
{
    (void)user;
    (void)section;
    (void)name;
    (void)value;
    return 1;
}

int parse_short(void)
{
    char buf[4];
    buf[0] = nondet_char();
    buf[1] = nondet_char();
    buf[2] = nondet_char();
    buf[3] = 0;
    return ini_parse_string(buf, handler, 0);
}
