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
    let wanted: Vec<&str> = INTEGER_FUNCTIONS
        .iter()
        .filter(|(n, _)| names.contains(n))
        .map(|&(_, definition)| definition)
        .collect();
    if !wanted.is_empty() {
        c.push_str(INTEGER_SCAN);
    }
    for definition in wanted {
        let _ = writeln!(c, "{definition}");
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
/// of 4 GiB). Decimal and hexadecimal numerals share their states (`is_hex` tells them
/// apart), and the counters are narrow: each state and bit is paid for in each of the up
/// to `--library-unwind` steps CBMC unrolls (375,000 clauses for one call on a 64-byte
/// buffer, against 716,000 for a state per numeral part). `(c | 32) == 'x'` holds for the
/// letter in either case and no other character.
const NUMBER_SCAN: &str = "static __ml_size_t __mergelens_number_scan(const char *s, int *neg, int *kind, unsigned dec, unsigned hex) {
  enum { START, SIGN, ZERO, X, INT, DOT, FRAC, E, ESIGN, EDIG, I1, I2, I3, I4, I5, I6, I7, I8, N1, N2, N3, NP, NDONE, DEAD };
  unsigned char state = START, minus = 0, is_hex = 0, nonzero = 0, digits = 0, end = 0, accepted = DEAD;
  unsigned char at_digits = 0, at_nonzero = 0;
  unsigned short exponent = 0, at_exponent = 0;
  for (unsigned char i = 0;; i++) {
    char c = s[i], l = c | 32;
    int digit = c >= '0' && c <= '9', sign = c == '+' || c == '-';
    int mantissa = digit || (is_hex && l >= 'a' && l <= 'f');
    int exponent_letter = l == (is_hex ? 'p' : 'e');
    unsigned char next = DEAD;
    if (state == START && (c == ' ' || (c >= '\\t' && c <= '\\r')))
      next = START;
    else if (state == START && sign) {
      minus = c == '-';
      next = SIGN;
    } else if (state <= SIGN)
      next = c == '0' ? ZERO : digit ? INT : c == '.' ? DOT : l == 'i' ? I1 : l == 'n' ? N1 : DEAD;
    else if (state == ZERO && l == 'x') {
      is_hex = 1;
      next = X;
    } else if (state <= INT)
      next = mantissa ? INT : c == '.' ? (state == X ? DOT : FRAC) : (state != X && exponent_letter) ? E : DEAD;
    else if (state <= FRAC)
      next = mantissa ? FRAC : (state == FRAC && exponent_letter) ? E : DEAD;
    else if (state <= EDIG)
      next = digit ? EDIG : (state == E && sign) ? ESIGN : DEAD;
    else if (state <= I7)
      next = l == \"nfinity\"[state - I1] ? state + 1 : DEAD;
    else if (state == N1 || state == N2)
      next = l == (state == N1 ? 'a' : 'n') ? state + 1 : DEAD;
    else if (state == N3)
      next = c == '(' ? NP : DEAD;
    else if (state == NP)
      next = c == ')' ? NDONE : (digit || (l >= 'a' && l <= 'z') || c == '_') ? NP : DEAD;
    if (next == DEAD)
      break;
    if ((next == ZERO || next == INT || next == FRAC) && c != '.') {
      digits++;
      nonzero |= c != '0';
    }
    if (next == EDIG && exponent < 10000)
      exponent = exponent * 10 + (c - '0');
    state = next;
    if (state == ZERO || state == INT || state == FRAC || state == EDIG || state == I3 || state == I8 || state == N3 || state == NDONE) {
      end = i + 1;
      accepted = state;
      at_digits = digits;
      at_nonzero = nonzero;
      at_exponent = exponent;
    }
  }
  *neg = accepted != DEAD && minus;
  if (accepted == DEAD)
    *kind = 0;
  else if (accepted >= I1)
    *kind = accepted <= I8 ? 4 : 5;
  else {
    unsigned reach = is_hex ? at_exponent + 4u * at_digits : at_exponent + at_digits;
    *kind = !at_nonzero ? 1 : reach > (is_hex ? hex : dec) ? 3 : 2;
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
