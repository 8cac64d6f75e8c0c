//! [`Fingerprint`]: the one content hash of mergelens, SHA-256, for the keys of every cache
//! and store (a version's preprocessed sources, an answer store, a learned automaton). The
//! inputs come from branches anyone can push: with a non-cryptographic hash a crafted
//! collision would make a review silently reuse another version's automaton, so the hash
//! must resist collisions, and be stable across runs, platforms and Rust versions (which
//! `std`'s hashers are not). [`Fingerprint::tokens`] hashes C text by its tokens, so that
//! layout does not count.

use sha2::{Digest, Sha256};

pub(crate) struct Fingerprint(Sha256);

impl Fingerprint {
    pub(crate) fn new() -> Fingerprint {
        Fingerprint(Sha256::new())
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// A field of a record: the length goes first so that ("ab", "c") and ("a", "bc")
    /// hash differently.
    pub(crate) fn field(&mut self, text: &str) {
        self.bytes(&(text.len() as u64).to_le_bytes());
        self.bytes(text.as_bytes());
    }

    /// Preprocessed C text by its tokens: what the compiler sees, not how it is laid out.
    /// Comments are gone after the preprocessor, so a commit that only touches comments,
    /// indentation or line breaks leaves the hash as it was. Whitespace counts only where
    /// it separates two characters that could otherwise run together into one token (`a b`,
    /// `- -`), and inside string and character literals, which are hashed verbatim.
    pub(crate) fn tokens(&mut self, text: &str) {
        let mut previous: Option<char> = None;
        let mut pending_space = false;
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            if c.is_whitespace() {
                pending_space = previous.is_some();
                continue;
            }
            if pending_space && previous.is_some_and(|p| joins(p, c)) {
                self.bytes(b" ");
            }
            pending_space = false;
            let mut buf = [0u8; 4];
            self.bytes(c.encode_utf8(&mut buf).as_bytes());
            previous = Some(c);
            if c == '"' || c == '\'' {
                // A literal ends at the next unescaped quote of its kind, or at the end of
                // the line (an unterminated one, which the compiler will reject anyway).
                let mut escaped = false;
                for d in chars.by_ref() {
                    self.bytes(d.encode_utf8(&mut buf).as_bytes());
                    if d == '\n' || (d == c && !escaped) {
                        break;
                    }
                    escaped = d == '\\' && !escaped;
                }
                previous = Some(c);
            }
        }
    }

    /// The digest as 64 lowercase hex digits.
    pub(crate) fn hex(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// Whether whitespace between `a` and `b` may separate two tokens that would otherwise be
/// read as one: two word characters (`a b`), two operator characters (`- -` against `--`,
/// `/ /` against `//`), or a `.` (`1 .5` against `1.5`). Brackets, `;` and `,` never join.
fn joins(a: char, b: char) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || !c.is_ascii();
    let operator = |c: char| "+-*/%&|^<>=!:#".contains(c);
    a == '.' || b == '.' || (word(a) && word(b)) || (operator(a) && operator(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_sha256_vectors() {
        let mut h = Fingerprint::new();
        h.bytes(b"");
        assert_eq!(
            h.hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let mut h = Fingerprint::new();
        h.bytes(b"abc");
        assert_eq!(
            h.hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn fields_are_delimited() {
        let mut a = Fingerprint::new();
        a.field("ab");
        a.field("c");
        let mut b = Fingerprint::new();
        b.field("a");
        b.field("bc");
        assert_ne!(a.hex(), b.hex());
    }

    fn token_hash(text: &str) -> String {
        let mut h = Fingerprint::new();
        h.tokens(text);
        h.hex()
    }

    #[test]
    fn layout_does_not_count_but_tokens_and_literals_do() {
        let a = token_hash("int f(void){return a-- -b;}");
        assert_eq!(
            a,
            token_hash("int f ( void )\n{\n    return a--   - b;\n}\n")
        );
        assert_ne!(a, token_hash("int f(void){return a- - -b;}"));
        assert_ne!(a, token_hash("int f(void){return a-- -c;}"));
        assert_ne!(token_hash("int x;"), token_hash("intx;"));
        assert_ne!(token_hash("x = 1 .5;"), token_hash("x = 1.5;"));
        assert_ne!(token_hash("a < <b;"), token_hash("a << b;"));
        assert_ne!(token_hash("s = \"a b\";"), token_hash("s = \"a  b\";"));
        assert_ne!(
            token_hash("s = \"a\\\" b\";"),
            token_hash("s = \"a\\\"  b\";")
        );
        assert_eq!(token_hash("c = ' ' ;"), token_hash("c=' ';"));
        assert_ne!(token_hash("c = ' ';"), token_hash("c = '  ';"));
    }
}
