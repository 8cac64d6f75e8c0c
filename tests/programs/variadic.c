/* A small variadic library in the style of sds and Lua: a va_arg loop over strings, whose
 * type argument `char *` tree-sitter-c cannot read as an expression, and offsetof, which gcc
 * expands to __builtin_offsetof(struct message, text). */

#include <stdarg.h>
#include <stddef.h>

struct message {
    int level;
    char text[8];
};

static void emit(const char *s) { (void)s; }
static void aligned(void) {}
static void padded(void) {}

static size_t text_offset(void) { return offsetof(struct message, text); }

/* Emits each string of the list up to the NULL that ends it; returns how many. */
static int emit_all(const char *first, ...)
{
    va_list ap;
    int n = 0;
    va_start(ap, first);
    for (const char *s = first; s != NULL; s = va_arg(ap, char *)) {
        emit(s);
        n++;
    }
    va_end(ap);
    return n;
}

int main(void)
{
    int n = emit_all("a", "b", (char *)NULL);
    if (text_offset() == sizeof(int)) {
        aligned();
    } else {
        padded();
    }
    return n;
}
