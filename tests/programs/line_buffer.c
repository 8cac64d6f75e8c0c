/* A library as it is (tests/library_buffers_cbmc.rs): a reader behind a function pointer
 * fills a 200-byte line buffer from an input of 3 nondeterministic characters, a 64-entry
 * table counts sections, the line is trimmed and split at '=' with the C library's strlen
 * and strchr, and a value is read into a double and scaled in floating point: "=7" is
 * 10.5, more than 10, so it is big. Events: on_section, on_pair, on_big, on_error. */
#include <string.h>
#include <ctype.h>

#define MAX_LINE 200
#define TABLE 64

char nondet_char(void);

typedef char *(*reader_fn)(char *line, int size, void *stream);

struct input {
    const char *p;
    unsigned left;
};

static int seen[TABLE];

void on_section(void) {}
void on_pair(void) {}
void on_big(void) {}
void on_error(void) {}

static char *read_line(char *line, int size, void *stream)
{
    struct input *in = stream;
    char *out = line;
    if (in->left == 0 || size < 2)
        return 0;
    while (size > 1 && in->left != 0) {
        char c = *in->p++;
        in->left--;
        *out++ = c;
        if (c == '\n')
            break;
        size--;
    }
    *out = '\0';
    return line;
}

static double scaled(const char *digits)
{
    double v = 0.0;
    while (isdigit((unsigned char)*digits)) {
        v = v * 10.0 + (*digits - '0');
        digits++;
    }
    return v * 1.5;
}

static int parse(reader_fn reader, void *stream)
{
    char line[MAX_LINE];
    int errors = 0;
    while (reader(line, MAX_LINE, stream) != 0) {
        size_t n = strlen(line);
        while (n > 0 && isspace((unsigned char)line[n - 1]))
            line[--n] = '\0';
        if (line[0] == '[') {
            seen[(unsigned char)line[1] % TABLE]++;
            on_section();
        } else if (strchr(line, '=') != 0) {
            on_pair();
            if (scaled(strchr(line, '=') + 1) > 10.0)
                on_big();
        } else if (n > 0) {
            errors++;
            on_error();
        }
    }
    return errors;
}

int parse_short(void)
{
    char text[4];
    struct input in;
    text[0] = nondet_char();
    text[1] = nondet_char();
    text[2] = nondet_char();
    text[3] = '\0';
    in.p = text;
    in.left = strlen(text);
    return parse(read_line, &in);
}
