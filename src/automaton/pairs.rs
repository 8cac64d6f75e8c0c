//! The pair space of two automata, shared by the products of [`super::ops`] and the
//! inclusion and equivalence checks of [`super::analysis`]: a letter map between two
//! alphabets, the step of one component (the implicit sink stays the sink), and [`PairMap`],
//! the map from a pair of states to a dense id that both explore the pairs with.

use super::dfa::{Alphabet, Dfa, Letter, NO_STATE, StateId};

/// For every letter of `union` (which extends `a`'s alphabet), the same letter in `b`'s
/// alphabet, or [`NO_STATE`] when `b` lacks it. `a`'s letters keep their indices in the
/// union, so `a` needs no such map.
pub(crate) fn letter_map(union: &Alphabet, b: &Alphabet) -> Vec<Letter> {
    union
        .names()
        .map(|name| b.letter(name).unwrap_or(NO_STATE))
        .collect()
}

/// The successor of a pair component: [`NO_STATE`] (the sink) stays the sink, and so does
/// a letter outside the component's alphabet (`letter == NO_STATE` or beyond its row).
#[inline]
pub(crate) fn step(d: &Dfa, state: StateId, letter: Letter) -> StateId {
    if state == NO_STATE {
        return NO_STATE;
    }
    d.row(state)
        .get(letter as usize)
        .copied()
        .unwrap_or(NO_STATE)
}

#[inline]
pub(crate) fn pair_key(p: StateId, q: StateId) -> u64 {
    (u64::from(p) << 32) | u64::from(q)
}

/// An open-addressing map from a pair of states (packed by [`pair_key`]) to a dense id.
///
/// The pair space of two automata with 10^5 states is 10^10, so no dense index is possible,
/// and `std::collections::HashMap` with SipHash spends most of a product's time hashing.
/// This map uses one multiplicative hash, linear probing and 16-byte slots, so a lookup is
/// usually one cache miss. The key of (sink, sink) is `u64::MAX`; no caller stores it, so it
/// marks empty slots.
pub(crate) struct PairMap {
    slots: Vec<(u64, u32)>,
    shift: u32,
    len: usize,
}

const EMPTY_KEY: u64 = u64::MAX;

impl PairMap {
    pub(crate) fn with_capacity(pairs: usize) -> PairMap {
        // Load factor at most 1/2: linear probing degrades quickly above that.
        let slots = (pairs.max(8) * 2).next_power_of_two();
        PairMap {
            slots: vec![(EMPTY_KEY, 0); slots],
            shift: 64 - slots.trailing_zeros(),
            len: 0,
        }
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        // Fibonacci hashing: the high bits of the product depend on every bit of the key.
        ((key ^ (key >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// The id of `key`, or `fresh` after inserting it; the flag says whether it was new.
    #[inline]
    pub(crate) fn get_or_insert(&mut self, key: u64, fresh: u32) -> (u32, bool) {
        debug_assert_ne!(key, EMPTY_KEY);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let (k, v) = self.slots[i];
            if k == key {
                return (v, false);
            }
            if k == EMPTY_KEY {
                self.slots[i] = (key, fresh);
                self.len += 1;
                return (fresh, true);
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let size = old.len() * 2;
        self.slots = vec![(EMPTY_KEY, 0); size];
        self.shift = 64 - size.trailing_zeros();
        let mask = size - 1;
        for (key, value) in old.into_iter().filter(|&(k, _)| k != EMPTY_KEY) {
            let mut i = self.home(key);
            while self.slots[i].0 != EMPTY_KEY {
                i = (i + 1) & mask;
            }
            self.slots[i] = (key, value);
        }
    }
}
