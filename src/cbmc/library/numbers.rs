//! mergelens's models of the C library's number parsers CBMC 6.6 has none of: the
//! floating-point ones (`strtod`, `strtof`, `strtold`, `atof`) and the integer ones
//! (`strtoul`, `strtoull`, `strtoumax`, `strtoll`, `strtoimax`, `atoll`). Key item:
//! [`define`], which appends the C definitions a program needs to the supplement.
//!
//! Both scan the text one character a step, as C11 7.22.1.3 and 7.22.1.4 say. The integer
//! ones are the C library's, value and all (their digits are plain integer arithmetic).
//! The floating-point ones give the end pointer, the sign, whether the text is zero,
//! infinity or NaN, and whether it may be out of range; the value of a nonzero number is
//! an input, because computing it bit-precisely would cost a floating-point division per
//! call. [`number_result`] is that part, shared with the product program, whose wrappers
//! read the value from the versions' shared input.

use std::fmt::Write as _;

/// The floating-point types of the `strto*` family: the function's name, its type, the
/// suffix of CBMC's classification built-ins for it, and how far a text may reach and still
/// be sure to convert to a normal number: decimal digits plus the decimal exponent, and four
/// bits per hexadecimal digit plus the binary exponent.
const NUMBER_TYPES: [(&str, &str, &str, u32, u32); 3] = [
    ("strtod", "double", "d", 300, 1000),
    ("strtof", "float", "f", 37, 120),
    // Conservative: `long double` holds more than `double`.
    ("strtold", "long double", "ld", 300, 1000),
];

/// The integer parsers and their C definitions, each by the scan of [`INTEGER_SCAN`].
const INTEGER_FUNCTIONS: [(&str, &str); 6] = [
    (
        "strtoul",
        "unsigned long strtoul(const char *s, char **end, int base) { return __mergelens_unsigned(s, end, base); }",
    ),
    (
        "strtoull",
        "unsigned long long strtoull(const char *s, char **end, int base) { return __mergelens_unsigned(s, end, base); }",
    ),
    (
        "strtoumax",
        "unsigned long strtoumax(const char *s, char **end, int base) { return __mergelens_unsigned(s, end, base); }",
    ),
    (
        "strtoll",
        "long long strtoll(const char *s, char **end, int base) { return __mergelens_signed(s, end, base); }",
    ),
    (
        "strtoimax",
        "long strtoimax(const char *s, char **end, int base) { return __mergelens_signed(s, end, base); }",
    ),
    (
        "atoll",
        "long long atoll(const char *s) { return __mergelens_signed(s, 0, 10); }",
    ),
];

/// Appends to `c` the definitions of the number parsers among `names` (and of what the
/// product's wrappers call, when `names` has it).
pub(super) fn define(c: &mut String, names: &[&str]) {
    let floating = |n: &&str| {
        NUMBER_TYPES.iter().any(|t| t.0 == *n) || *n == "atof" || n.starts_with("__mergelens")
    };
    if names.iter().any(floating) {
        c.push_str(NUMBER_SCAN);
        for (name, ty, builtin, decimal, hex) in NUMBER_TYPES {
            c.push_str(&number_result(name, ty, builtin, decimal, hex));
            if names.contains(&name) {
                let _ = writeln!(
                    c,
                    "{ty} {name}(const char *s, char **end) {{ {ty} v; return __mergelens_{name}_result(s, end, v); }}"
                );
            }
        }
        if names.contains(&"atof") {
            c.push_str(
                "double atof(const char *s) { double v; return __mergelens_strtod_result(s, 0, v); }\n",
            );
        }
    }
    let wanted = INTEGER_FUNCTIONS.iter().filter(|(n, _)| names.contains(n));
    let mut first = true;
    for (_, definition) in wanted {
        if std::mem::take(&mut first) {
            c.push_str(INTEGER_SCAN);
        }
        c.push_str(definition);
        c.push('\n');
    }
}

/// The C text of `__mergelens_<name>_result(s, end, v)`: what `name` returns for text `s`
/// when the value of a nonzero number in it is `v` (an input), setting `*end` and `errno`.
fn number_result(name: &str, ty: &str, builtin: &str, decimal: u32, hex: u32) -> String {
    NUMBER_RESULT
        .replace("{NAME}", name)
        .replace("{T}", ty)
        .replace("{B}", builtin)
        .replace("{DEC}", &decimal.to_string())
        .replace("{HEX}", &hex.to_string())
}

/// Scans the longest prefix of `s` that `strtod` converts: its length (0: none), whether
/// its sign is minus, and its kind (0 nothing, 1 zero, 2 a nonzero number within range, 3 a
/// nonzero number that may be out of range, 4 infinity, 5 NaN). The reach of a number
/// (digits plus exponent) is a bound on its magnitude either way: `1e9` and `0.001` are
/// within range, `1e999` may not be.
///
/// One automaton over the characters, one character a step: every step reads `s[i]` at the
/// step's own constant `i`, where separate loops for white space, digits and exponent would
/// read at a position the earlier loops left symbolic (on cJSON's parser that ran CBMC out
/// of 4 GiB). `(c | 32) == 'x'` holds for the letter in either case and no other character.
const NUMBER_SCAN: &str = "enum { ML_START, ML_SIGN, ML_ZERO, ML_INT, ML_DOT, ML_FRAC, ML_E, ML_ESIGN, ML_EDIG,
  ML_X, ML_XINT, ML_XDOT, ML_XFRAC, ML_P, ML_PSIGN, ML_PDIG,
  ML_I1, ML_I2, ML_I3, ML_I4, ML_I5, ML_I6, ML_I7, ML_I8, ML_N1, ML_N2, ML_N3, ML_NP, ML_NDONE, ML_DEAD };
static __ml_size_t __mergelens_number_scan(const char *s, int *neg, int *kind, unsigned dec, unsigned hex) {
  int state = ML_START, minus = 0, nonzero = 0;
  unsigned digits = 0, exponent = 0;
  __ml_size_t i = 0, end = 0;
  *neg = 0;
  *kind = 0;
  for (;; i++) {
    char c = s[i], l = c | 32;
    int digit = c >= '0' && c <= '9', sign = c == '+' || c == '-';
    int hexdigit = digit || (l >= 'a' && l <= 'f');
    int next = ML_DEAD;
    if (state == ML_START && (c == ' ' || (c >= '\\t' && c <= '\\r')))
      next = ML_START;
    else if (state == ML_START && sign) {
      minus = c == '-';
      next = ML_SIGN;
    } else if (state == ML_START || state == ML_SIGN)
      next = c == '0' ? ML_ZERO : digit ? ML_INT : c == '.' ? ML_DOT : l == 'i' ? ML_I1 : l == 'n' ? ML_N1 : ML_DEAD;
    else if (state == ML_ZERO && l == 'x')
      next = ML_X;
    else if (state == ML_ZERO || state == ML_INT)
      next = digit ? ML_INT : c == '.' ? ML_FRAC : l == 'e' ? ML_E : ML_DEAD;
    else if (state == ML_DOT || state == ML_FRAC)
      next = digit ? ML_FRAC : (state == ML_FRAC && l == 'e') ? ML_E : ML_DEAD;
    else if (state == ML_E)
      next = sign ? ML_ESIGN : digit ? ML_EDIG : ML_DEAD;
    else if (state == ML_ESIGN || state == ML_EDIG)
      next = digit ? ML_EDIG : ML_DEAD;
    else if (state == ML_X)
      next = hexdigit ? ML_XINT : c == '.' ? ML_XDOT : ML_DEAD;
    else if (state == ML_XINT)
      next = hexdigit ? ML_XINT : c == '.' ? ML_XFRAC : l == 'p' ? ML_P : ML_DEAD;
    else if (state == ML_XDOT || state == ML_XFRAC)
      next = hexdigit ? ML_XFRAC : (state == ML_XFRAC && l == 'p') ? ML_P : ML_DEAD;
    else if (state == ML_P)
      next = sign ? ML_PSIGN : digit ? ML_PDIG : ML_DEAD;
    else if (state == ML_PSIGN || state == ML_PDIG)
      next = digit ? ML_PDIG : ML_DEAD;
    else if (state >= ML_I1 && state <= ML_I7)
      next = l == \"nfinity\"[state - ML_I1] ? state + 1 : ML_DEAD;
    else if (state == ML_N1 || state == ML_N2)
      next = l == (state == ML_N1 ? 'a' : 'n') ? state + 1 : ML_DEAD;
    else if (state == ML_N3)
      next = c == '(' ? ML_NP : ML_DEAD;
    else if (state == ML_NP)
      next = c == ')' ? ML_NDONE : (digit || (l >= 'a' && l <= 'z') || c == '_') ? ML_NP : ML_DEAD;
    if (next == ML_DEAD)
      break;
    int hex_number = next >= ML_X && next <= ML_PDIG;
    if ((next == ML_ZERO || next == ML_INT || next == ML_FRAC || next == ML_XINT || next == ML_XFRAC) && c != '.') {
      digits++;
      nonzero |= c != '0';
    }
    if ((next == ML_EDIG || next == ML_PDIG) && exponent < 100000u)
      exponent = exponent * 10u + (unsigned)(c - '0');
    state = next;
    if (state == ML_I3 || state == ML_I8 || state == ML_N3 || state == ML_NDONE) {
      end = i + 1;
      *neg = minus;
      *kind = state <= ML_I8 ? 4 : 5;
    } else if (state == ML_ZERO || state == ML_INT || state == ML_FRAC || state == ML_EDIG || state == ML_XINT || state == ML_XFRAC || state == ML_PDIG) {
      /* Within range when the exponent's magnitude plus the digits' is small. */
      int wide = hex_number ? exponent + 4u * digits > hex : exponent + digits > dec;
      end = i + 1;
      *neg = minus;
      *kind = !nonzero ? 1 : wide ? 3 : 2;
    }
  }
  return end;
}
int *__errno_location(void);
";

/// See [`number_result`]; `{B}` picks CBMC's `__CPROVER_isnan{B}` and its siblings.
const NUMBER_RESULT: &str = "{T} __mergelens_{NAME}_result(const char *s, char **end, {T} v) {
  int neg, kind;
  __ml_size_t n = __mergelens_number_scan(s, &neg, &kind, {DEC}u, {HEX}u);
  if (end)
    *end = (char *)s + n;
  if (kind == 0)
    return 0;
  if (kind == 1)
    return neg ? -({T})0 : ({T})0;
  if (kind == 5) {
    __CPROVER_assume(__CPROVER_isnan{B}(v));
    return v;
  }
  __CPROVER_assume(!__CPROVER_isnan{B}(v) && (neg ? __CPROVER_sign{B}(v) : !__CPROVER_sign{B}(v)));
  if (kind == 4) {
    __CPROVER_assume(__CPROVER_isinf{B}(v));
    return v;
  }
  if (kind == 2) {
    __CPROVER_assume(__CPROVER_isnormal{B}(v));
    return v;
  }
  if (__CPROVER_isinf{B}(v) || !__CPROVER_isnormal{B}(v))
    *__errno_location() = 34;
  return v;
}
";

/// Scans the longest prefix of `s` that `strtoul` and its siblings convert in `base`: its
/// length (0: none), whether its sign is minus, its magnitude and whether that overflowed
/// 64 bits. `base` 0 reads `0x` as hexadecimal and a leading `0` as octal; `0x` counts only
/// when a hexadecimal digit follows. One state a character, as `strtod`'s scan (the reads
/// stay at constant offsets); the arithmetic uses CBMC's overflow built-ins.
const INTEGER_SCAN: &str = "static __ml_size_t __mergelens_integer_scan(const char *s, int base, int *neg, unsigned long long *value, int *overflow) {
  enum { START, SIGN, ZERO, X, DIGITS, DEAD };
  int state = START, minus = 0, over = 0, b = base;
  unsigned long long v = 0;
  __ml_size_t i = 0, end = 0;
  *neg = 0;
  *value = 0;
  *overflow = 0;
  for (;; i++) {
    char c = s[i], l = c | 32;
    int d = c >= '0' && c <= '9' ? c - '0' : (l >= 'a' && l <= 'z') ? l - 'a' + 10 : 99;
    int next = DEAD;
    if (state == START && (c == ' ' || (c >= '\\t' && c <= '\\r')))
      next = START;
    else if (state == START && (c == '+' || c == '-')) {
      minus = c == '-';
      next = SIGN;
    } else if (state == START || state == SIGN) {
      if (c == '0')
        next = ZERO;
      else if (d < (base == 0 ? 10 : base)) {
        b = base == 0 ? 10 : base;
        next = DIGITS;
      }
    } else if (state == ZERO) {
      if (l == 'x' && (base == 0 || base == 16))
        next = X;
      else if (d < (base == 0 ? 8 : base)) {
        b = base == 0 ? 8 : base;
        next = DIGITS;
      }
    } else if (state == X && d < 16) {
      b = 16;
      next = DIGITS;
    } else if (state == DIGITS && d < b)
      next = DIGITS;
    if (next == DEAD)
      break;
    if (next == DIGITS) {
      unsigned long long times;
      over |= __builtin_mul_overflow(v, (unsigned long long)b, &times);
      over |= __builtin_add_overflow(times, (unsigned long long)d, &v);
    }
    state = next;
    if (state == ZERO || state == DIGITS) {
      end = i + 1;
      *neg = minus;
      *value = v;
      *overflow = over;
    }
  }
  return end;
}
int *__errno_location(void);
static int __mergelens_scan_base(const char *s, char **end, int base, int *neg, unsigned long long *v, int *over) {
  if (base != 0 && (base < 2 || base > 36)) {
    if (end)
      *end = (char *)s;
    *__errno_location() = 22;
    return 0;
  }
  __ml_size_t n = __mergelens_integer_scan(s, base, neg, v, over);
  if (end)
    *end = (char *)s + n;
  return 1;
}
static unsigned long long __mergelens_unsigned(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long v;
  if (!__mergelens_scan_base(s, end, base, &neg, &v, &over))
    return 0;
  if (over) {
    *__errno_location() = 34;
    return 18446744073709551615ull;
  }
  return neg ? 0 - v : v;
}
static long long __mergelens_signed(const char *s, char **end, int base) {
  int neg, over;
  unsigned long long v;
  if (!__mergelens_scan_base(s, end, base, &neg, &v, &over))
    return 0;
  if (!neg && (over || v > 9223372036854775807ull)) {
    *__errno_location() = 34;
    return 9223372036854775807ll;
  }
  if (neg && (over || v > 9223372036854775808ull)) {
    *__errno_location() = 34;
    return -9223372036854775807ll - 1;
  }
  return neg ? (long long)(0 - v) : (long long)v;
}
";
