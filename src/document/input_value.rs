//! An input value as the program read it: [`shown`] turns the bytes one read gave and the
//! C type of what it filled into C's own notation: a character buffer as a string literal
//! (`"a0\f"`), a plain `char` as a character (`'a'`), an integer signed or unsigned at its width
//! (`4294967295` for an `unsigned int`, `-1` for an `int`), a floating-point number as the
//! number. Every byte that is no printable ASCII character is a C escape, so the text is
//! exact and safe to print anywhere.

use serde::{Deserialize, Serialize};

/// A floating-point type of an input's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RealType {
    Float,
    Double,
}

/// Value `value` of one read as people read it, from the most precise of what the document
/// holds: the bytes and the type of the read, else the number (`(bytes)` for a read that
/// is no scalar, in documents written before bytes were recorded).
pub(crate) fn shown(
    value: Option<i64>,
    ty: Option<&str>,
    bytes: Option<&[u8]>,
    real: Option<RealType>,
) -> String {
    let ty = ty.map(CType::parse);
    match (bytes, ty) {
        (Some(b), Some(CType::Array(element))) if element.is_char() => string_literal(b),
        (Some(b), Some(CType::Array(element))) => match element.width() {
            Some(w) if w > 0 && b.len() % w == 0 => {
                let items: Vec<String> = b
                    .chunks(w)
                    .map(|c| scalar(&element, c).unwrap_or_else(|| string_literal(c)))
                    .collect();
                format!("{{{}}}", items.join(", "))
            }
            _ => string_literal(b),
        },
        (Some(b), Some(t)) => scalar(&t, b).unwrap_or_else(|| string_literal(b)),
        // A real number without its type: the stream says which.
        (Some(b), None) if real.is_some() => {
            scalar(&CType::real(real), b).unwrap_or_else(|| fallback(value, real))
        }
        (Some(b), None) if value.is_none() => string_literal(b),
        _ => fallback(value, real),
    }
}

/// The number as the document held it before types: signed, or a floating-point number's
/// bits.
fn fallback(value: Option<i64>, real: Option<RealType>) -> String {
    match (value, real) {
        (None, _) => "(bytes)".to_string(),
        (Some(v), None) => v.to_string(),
        (Some(v), Some(RealType::Double)) => format!("{:?}", f64::from_bits(v as u64)),
        (Some(v), Some(RealType::Float)) => format!("{:?}", f32::from_bits(v as u32)),
    }
}

/// A C type as CBMC names it, as far as showing a value needs.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CType {
    /// Plain `char` (`signed char` and `unsigned char` are small integers, `uint8_t`'s
    /// type among them).
    Char,
    Bool,
    Integer {
        signed: bool,
        width: usize,
    },
    Float,
    Double,
    Array(Box<CType>),
    Other,
}

impl CType {
    /// `const unsigned int` → unsigned integer of 4 bytes; `char [4]` → an array of chars.
    fn parse(name: &str) -> CType {
        let name = name.trim();
        if let Some(open) = name.rfind(" [")
            && name.ends_with(']')
        {
            return CType::Array(Box::new(CType::parse(&name[..open])));
        }
        let words: Vec<&str> = name
            .split_whitespace()
            .filter(|w| !matches!(*w, "const" | "volatile"))
            .collect();
        let has = |w: &str| words.contains(&w);
        let longs = words.iter().filter(|w| **w == "long").count();
        match words.as_slice() {
            ["char"] => CType::Char,
            ["signed", "char"] | ["unsigned", "char"] => CType::Integer {
                signed: words[0] == "signed",
                width: 1,
            },
            ["_Bool"] | ["bool"] => CType::Bool,
            ["float"] => CType::Float,
            ["double"] => CType::Double,
            _ if has("int") || has("short") || has("long") || has("signed") || has("unsigned") => {
                let width = if has("short") {
                    2
                } else if longs > 0 {
                    8
                } else {
                    4
                };
                CType::Integer {
                    signed: !has("unsigned"),
                    width,
                }
            }
            _ => CType::Other,
        }
    }

    fn real(real: Option<RealType>) -> CType {
        match real {
            Some(RealType::Float) => CType::Float,
            Some(RealType::Double) => CType::Double,
            None => CType::Other,
        }
    }

    /// A character type: an array of them is a string.
    fn is_char(&self) -> bool {
        matches!(self, CType::Char | CType::Integer { width: 1, .. })
    }

    /// The size of one value in bytes, where the type fixes it.
    fn width(&self) -> Option<usize> {
        match self {
            CType::Char | CType::Bool => Some(1),
            CType::Integer { width, .. } => Some(*width),
            CType::Float => Some(4),
            CType::Double => Some(8),
            CType::Array(_) | CType::Other => None,
        }
    }
}

/// The scalar `bytes` hold read as `ty` (little-endian, as the machines CBMC models), or
/// `None` when `ty` is no scalar or the read is not its size.
fn scalar(ty: &CType, bytes: &[u8]) -> Option<String> {
    if ty.width()? != bytes.len() {
        return None;
    }
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    let unsigned = u64::from_le_bytes(raw);
    let bits = 8 * bytes.len() as u32;
    Some(match ty {
        CType::Char => char_literal(bytes[0]),
        CType::Bool => unsigned.to_string(),
        CType::Integer { signed: false, .. } => unsigned.to_string(),
        CType::Integer { signed: true, .. } => {
            // Sign-extend from the read's width.
            let shift = 64 - bits;
            (((unsigned << shift) as i64) >> shift).to_string()
        }
        CType::Float => format!("{:?}", f32::from_bits(unsigned as u32)),
        CType::Double => format!("{:?}", f64::from_bits(unsigned)),
        CType::Array(_) | CType::Other => return None,
    })
}

/// `'a'`, `'\n'`, `'\''`, `'\377'`.
pub(crate) fn char_literal(byte: u8) -> String {
    let body = match byte {
        b'\'' => "\\'".to_string(),
        b'"' => "\"".to_string(),
        0 => "\\0".to_string(),
        b => escaped(b).unwrap_or_else(|| (b as char).to_string()),
    };
    format!("'{body}'")
}

/// `"a0\f"`: the bytes as a C string literal (no terminating NUL implied beyond them).
pub(crate) fn string_literal(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => out.push_str("\\\""),
            // `\0` before an octal digit would read as a longer escape.
            0 if bytes.get(i + 1).is_some_and(|n| (b'0'..=b'7').contains(n)) => {
                out.push_str("\\000");
            }
            0 => out.push_str("\\0"),
            b => match escaped(b) {
                Some(e) => out.push_str(&e),
                None => out.push(b as char),
            },
        }
    }
    out.push('"');
    out
}

/// The C escape of a byte that is no printable ASCII character (or is `\`); `None` for
/// one that stands for itself.
fn escaped(b: u8) -> Option<String> {
    Some(match b {
        b'\\' => "\\\\".to_string(),
        0x07 => "\\a".to_string(),
        0x08 => "\\b".to_string(),
        0x0c => "\\f".to_string(),
        b'\n' => "\\n".to_string(),
        b'\r' => "\\r".to_string(),
        b'\t' => "\\t".to_string(),
        0x0b => "\\v".to_string(),
        0x20..=0x7e => return None,
        b => format!("\\{b:03o}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(ty: &str, bytes: &[u8]) -> String {
        shown(None, Some(ty), Some(bytes), None)
    }

    #[test]
    fn a_character_buffer_is_a_string_literal_with_c_escapes() {
        assert_eq!(show("char [4]", b"a0\x0c"), r#""a0\f""#);
        assert_eq!(show("const char [4]", b"\"\\\n\t"), r#""\"\\\n\t""#);
        // NUL before an octal digit takes three digits; other bytes are octal escapes.
        assert_eq!(show("unsigned char [4]", b"\x001\x00x"), r#""\0001\0x""#);
        assert_eq!(show("signed char [2]", &[0xff, 0x80]), r#""\377\200""#);
        // Bytes of unknown type (a line `fgets` read) are a string too.
        assert_eq!(shown(None, None, Some(b"hi\n"), None), r#""hi\n""#);
    }

    #[test]
    fn an_integer_is_shown_as_the_type_the_program_read() {
        let minus_one = [0xff; 4];
        assert_eq!(show("signed int", &minus_one), "-1");
        assert_eq!(show("unsigned int", &minus_one), "4294967295");
        assert_eq!(show("const unsigned int", &minus_one), "4294967295");
        assert_eq!(show("signed short int", &[0x00, 0x80]), "-32768");
        assert_eq!(show("unsigned short int", &[0x00, 0x80]), "32768");
        assert_eq!(show("signed long int", &[0xfe; 8]), "-72340172838076674");
        assert_eq!(
            show("unsigned long long int", &[0xff; 8]),
            "18446744073709551615"
        );
        assert_eq!(show("_Bool", &[1]), "1");
        assert_eq!(
            show("signed int [2]", &[1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]),
            "{1, -1}"
        );
        // A read not of its type's size is shown as its bytes.
        assert_eq!(show("signed int", &[1, 2]), r#""\001\002""#);
    }

    #[test]
    fn a_char_is_a_character() {
        assert_eq!(show("char", b"a"), "'a'");
        assert_eq!(show("char", b"'"), r"'\''");
        assert_eq!(show("char", &[0xff]), r"'\377'");
        assert_eq!(show("char", &[0]), r"'\0'");
        // `signed char` and `unsigned char` (`int8_t`, `uint8_t`) are small integers.
        assert_eq!(show("signed char", &[0xff]), "-1");
        assert_eq!(show("unsigned char", &[0xff]), "255");
        assert_eq!(show("char", b"\""), "'\"'");
    }

    #[test]
    fn floating_point_numbers_and_older_documents() {
        assert_eq!(show("double", &2.5f64.to_le_bytes()), "2.5");
        assert_eq!(show("float", &(-8.0f32).to_le_bytes()), "-8.0");
        let bits = 1e300f64.to_bits() as i64;
        assert_eq!(
            shown(Some(bits), None, None, Some(RealType::Double)),
            "1e300"
        );
        assert_eq!(shown(Some(-7), None, None, None), "-7");
        assert_eq!(shown(None, None, None, None), "(bytes)");
        // A struct's bytes: no scalar, shown as bytes.
        assert_eq!(show("struct point", &[1, 0]), r#""\001\0""#);
    }

    /// The bytes a C string literal of printable ASCII stands for (the escapes
    /// [`string_literal`] writes).
    fn decoded(literal: &str) -> Vec<u8> {
        let inner = literal
            .strip_prefix('"')
            .unwrap()
            .strip_suffix('"')
            .unwrap();
        let b = inner.as_bytes();
        let (mut out, mut i) = (Vec::new(), 0);
        while i < b.len() {
            if b[i] != b'\\' {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let simple = match b[i + 1] {
                b'a' => Some(7),
                b'b' => Some(8),
                b'f' => Some(12),
                b'n' => Some(10),
                b'r' => Some(13),
                b't' => Some(9),
                b'v' => Some(11),
                b'\\' | b'"' | b'\'' => Some(b[i + 1]),
                _ => None,
            };
            if let Some(c) = simple {
                out.push(c);
                i += 2;
                continue;
            }
            // Up to three octal digits, as C reads them.
            let digits = b[i + 1..]
                .iter()
                .take(3)
                .take_while(|d| (b'0'..=b'7').contains(d))
                .count();
            let text = std::str::from_utf8(&b[i + 1..i + 1 + digits]).unwrap();
            out.push(u8::from_str_radix(text, 8).unwrap());
            i += 1 + digits;
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn a_string_literal_is_printable_and_stands_for_exactly_its_bytes(
            bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..80)
        ) {
            let literal = string_literal(&bytes);
            proptest::prop_assert!(literal.bytes().all(|c| (0x20..0x7f).contains(&c)), "{}", literal);
            proptest::prop_assert_eq!(decoded(&literal), bytes);
        }
    }
}
