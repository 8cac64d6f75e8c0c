/* The C library's number parsers CBMC 6.6 has no model of. For strtod, strtof, strtold and
 * atof mergelens's models give the end pointer, the sign, zero, infinity, NaN and errno as
 * the C standard does (the value of a nonzero number is any of its sign); for strtoul,
 * strtoull, strtoumax, strtoll, strtoimax and atoll, the value too. Every check holds, so
 * the only word is "all_right end"; with CBMC's arbitrary results "mismatch end" would be a
 * word too. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

void all_right(void) {}
void mismatch(void) {}

/* Whether strtod converts exactly `n` characters of `s`, to a number of `sign` (-1, 0 for
 * zero, 1; 2 for NaN), infinite or not, with errno left alone; with `range`, the number
 * may be out of range, and errno is ERANGE exactly when the result is not a normal number. */
static int converts(const char *s, long n, int sign, int infinite, int range)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end - s != n)
        return 0;
    if (range)
        return sign > 0 && v >= 0 && (errno == ERANGE) == !isnormal(v);
    if (errno != 0)
        return 0;
    if (sign == 2)
        return isnan(v);
    if (isnan(v) || (isinf(v) != 0) != infinite)
        return 0;
    if (sign == 0)
        return v == 0;
    return sign < 0 ? v < 0 : v > 0;
}

/* Whether strtoul (`u`) or strtoll reads `s` in `base` as `value`, `n` characters, with
 * errno `error` (0: left alone). */
static int integer(const char *s, int base, int u, long long value, long n, int error)
{
    char *end;
    errno = 0;
    long long v = u ? (long long)strtoul(s, &end, base) : strtoll(s, &end, base);
    return v == value && end - s == n && errno == error;
}

int main(void)
{
    char *end;
    int ok = converts("  -12.5e1x", 9, -1, 0, 0)
        && converts("1e", 1, 1, 0, 0)
        && converts("1e+", 1, 1, 0, 0)
        && converts(".5", 2, 1, 0, 0)
        && converts(".", 0, 0, 0, 0)
        && converts("+", 0, 0, 0, 0)
        && converts("", 0, 0, 0, 0)
        && converts("0x1p3z", 5, 1, 0, 0)
        && converts("0x", 1, 0, 0, 0)
        && converts("-0", 2, 0, 0, 0) && signbit(strtod("-0", NULL))
        && converts("INFINITY", 8, 1, 1, 0)
        && converts("-infin", 4, -1, 1, 0)
        && converts("nan(a_1)d", 8, 2, 0, 0)
        && converts("nan(ab", 3, 2, 0, 0)
        && converts("1e5", 3, 1, 0, 0)
        && converts("9e-9", 4, 1, 0, 0)
        && converts("1e999", 5, 1, 0, 1)
        && converts("1e-999", 6, 1, 0, 1)
        && atof("12") > 0
        && strtof("-1e30", &end) < 0 && *end == 0
        && strtold("0x.8", &end) > 0 && *end == 0
        && integer("0x1Fz", 0, 1, 31, 4, 0)
        && integer(" -1", 10, 1, -1, 3, 0)
        && integer("08", 0, 1, 0, 1, 0)
        && integer("0xg", 16, 1, 0, 1, 0)
        && integer("z", 36, 1, 35, 1, 0)
        && integer("12", 1, 1, 0, 0, EINVAL)
        && integer("+077", 0, 0, 63, 4, 0)
        && integer("9223372036854775808", 10, 0, LLONG_MAX, 19, ERANGE)
        && integer("-9223372036854775808", 10, 0, LLONG_MIN, 20, 0)
        && integer("18446744073709551616", 10, 1, -1, 20, ERANGE)
        && strtoull("10", &end, 2) == 2 && strtoumax("7", &end, 8) == 7
        && strtoimax("-ff", &end, 16) == -255 && atoll(" 42x") == 42;
    if (ok)
        all_right();
    else
        mismatch();
    return 0;
}
