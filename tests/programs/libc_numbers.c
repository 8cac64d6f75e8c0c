/* strtod, strtof, strtold and atof, which CBMC 6.6 has no model of: mergelens's own models
 * give the end pointer, the sign, zero, infinity, NaN and errno as the C standard does (the
 * value of a nonzero number is any of its sign). Every check holds, so the only word is
 * "all_right end"; with CBMC's arbitrary results "mismatch end" would be a word too. */
#include <errno.h>
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
        && strtold("0x.8", &end) > 0 && *end == 0;
    if (ok)
        all_right();
    else
        mismatch();
    return 0;
}
