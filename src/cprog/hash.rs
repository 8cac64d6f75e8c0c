//! A 128-bit FNV-1a hash for fingerprints: stable across runs, platforms and Rust versions
//! (unlike `std`'s hashers), and small enough to need no dependency.

const OFFSET: u128 = 0x6c62272e07bb014262b821756295c58d;
const PRIME: u128 = 0x0000000001000000000000000000013B;

pub(crate) struct Fnv128(u128);

impl Fnv128 {
    pub(crate) fn new() -> Fnv128 {
        Fnv128(OFFSET)
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(PRIME);
        }
    }

    /// A field of a record: the length goes first so that ("ab", "c") and ("a", "bc")
    /// hash differently.
    pub(crate) fn field(&mut self, text: &str) {
        self.bytes(&(text.len() as u64).to_le_bytes());
        self.bytes(text.as_bytes());
    }

    pub(crate) fn hex(&self) -> String {
        format!("{:032x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_fnv1a_128_vectors() {
        let mut h = Fnv128::new();
        h.bytes(b"");
        assert_eq!(h.hex(), "6c62272e07bb014262b821756295c58d");
        let mut h = Fnv128::new();
        h.bytes(b"a");
        assert_eq!(h.hex(), "d228cb696f1a8caf78912b704e4a8964");
    }

    #[test]
    fn fields_are_delimited() {
        let mut a = Fnv128::new();
        a.field("ab");
        a.field("c");
        let mut b = Fnv128::new();
        b.field("a");
        b.field("bc");
        assert_ne!(a.hex(), b.hex());
    }
}
