/* mergelens benchmark corpus: a parser of `key=digits;key=digits...` lines written with
 * the C library (strlen, strchr, memchr, isdigit). Each well-formed pair is handed to the
 * caller's callback; the first malformed one stops the line. */
#include <ctype.h>
#include <string.h>

typedef void (*pair_callback)(char key, long value);

void on_empty(void) {}
void on_no_separator(void) {}
void on_bad_digit(void) {}
void on_missing_key(void) {}

/* The callback a harness passes in: it keeps the last pair. */
static char last_key;
static long last_value;

void on_pair(char key, long value)
{
    last_key = key;
    last_value = value;
    __CPROVER_assert(value < 10, "a value has one digit");
}

long parse_digits(const char *p, size_t len)
{
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)p[i])) {
            on_bad_digit();
            return -1;
        }
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

int parse_pair(const char *p, size_t len, pair_callback callback)
{
    const char *eq = memchr(p, '=', len);
    if (eq == NULL) {
        on_no_separator();
        return -1;
    }
    if (eq == p) {
        on_missing_key();
        return -1;
    }
    long value = parse_digits(eq + 1, len - (size_t)(eq + 1 - p));
    if (value < 0)
        return -1;
    callback(p[0], value);
    return 0;
}

int parse_line(const char *line, pair_callback callback)
{
    if (strlen(line) == 0) {
        on_empty();
        return -1;
    }
    int pairs = 0;
    const char *p = line;
    for (;;) {
        const char *semi = strchr(p, ';');
        size_t len = semi != NULL ? (size_t)(semi - p) : strlen(p);
        if (parse_pair(p, len, callback) < 0)
            return -1;
        pairs++;
        if (semi == NULL)
            return pairs;
        p = semi + 1;
    }
}
