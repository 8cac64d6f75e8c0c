//! A fast hasher for the learner's integer-keyed maps.
//!
//! The trie of the query cache does one map lookup per letter of every query, and the
//! observation table hashes its rows (bit vectors) every closing round; SipHash's protection
//! against adversarial keys buys nothing there, since every key is made by the learner.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Mixes every 64-bit chunk with the splitmix64 finaliser. A plain multiplicative hash
/// (FxHash) would leave the low bits of `node << 32 | letter` depending on the letter alone,
/// and the low bits pick the bucket.
#[derive(Clone, Copy, Default)]
pub(crate) struct FastHasher(u64);

impl FastHasher {
    #[inline]
    fn mix(&mut self, x: u64) {
        self.0 = super::random::mix64(self.0.rotate_left(23) ^ x);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.mix(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            // The length keeps "a" and "a\0" apart.
            self.mix(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.mix(x);
    }

    #[inline]
    fn write_u32(&mut self, x: u32) {
        self.mix(u64::from(x));
    }

    #[inline]
    fn write_usize(&mut self, x: usize) {
        self.mix(x as u64);
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash<T: Hash + ?Sized>(value: &T) -> u64 {
        BuildHasherDefault::<FastHasher>::default().hash_one(value)
    }

    #[test]
    fn low_bits_depend_on_the_node_too() {
        let buckets: std::collections::HashSet<u64> =
            (0..64u64).map(|node| hash(&(node << 32)) & 63).collect();
        assert!(buckets.len() > 32, "{buckets:?}");
    }

    #[test]
    fn tails_of_different_length_differ() {
        assert_ne!(hash(&[1u8][..]), hash(&[1u8, 0][..]));
        assert_ne!(hash(&vec![1u64, 2]), hash(&vec![1u64, 2, 0]));
    }
}
