//! The tokens of preprocessed C, as far as the dialect passes need them.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Token {
    pub start: usize,
    pub end: usize,
}

/// The tokens of preprocessed C with directive lines blanked: identifiers (keywords among
/// them), literals and one-character punctuators. Comments are gone after `gcc -E`.
pub(super) fn tokens(src: &str) -> Vec<Token> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'$')
            {
                i += 1;
            }
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != c && bytes[i] != b'\n' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else {
            // One character (UTF-8 continuation bytes stay with their lead byte).
            i += 1;
            while i < bytes.len() && (bytes[i] & 0xC0) == 0x80 {
                i += 1;
            }
        }
        out.push(Token { start, end: i });
    }
    out
}

pub(super) fn is_identifier(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
