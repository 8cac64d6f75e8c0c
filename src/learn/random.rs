//! A small seeded random number generator and random automata, for the learner's tests and
//! benchmarks and for injecting wrong guesses.
//!
//! splitmix64 (Steele, Lea and Flood, *Fast splittable pseudorandom number generators*,
//! OOPSLA 2014) is enough here: the numbers pick test targets and flip guesses, and a fixed
//! seed must give the same run on every platform, which rules out anything seeded from the
//! environment.

use crate::automaton::{Alphabet, Dfa, Letter, StateId, ops};

/// The splitmix64 output function: a bijection of `u64` that scrambles every input bit into
/// every output bit.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The splitmix64 generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.state)
    }

    /// A number in `0..n`; `n` must be positive. The modulo bias is below 2^-40 for the
    /// sizes used here, far under anything a test could notice.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        self.next_u64() % n
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// A float uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// The name of letter `i` in generated alphabets: `a`..`z`, then `l26`, `l27`, ...
pub fn letter_name(i: usize) -> String {
    if i < 26 {
        char::from(b'a' + i as u8).to_string()
    } else {
        format!("l{i}")
    }
}

/// An alphabet of `letters` generated names.
pub fn alphabet(letters: usize) -> Alphabet {
    Alphabet::from_names((0..letters).map(letter_name))
}

/// A random DFA with `states` states over `letters` letters, every state reachable.
///
/// A random spanning tree makes every state reachable (unreachable states would make the
/// size meaningless); every other edge is missing with probability `missing`, else goes to
/// a uniformly chosen state; each state accepts with probability `accepting`. The result is
/// not necessarily minimal.
pub fn random_dfa(
    rng: &mut SplitMix64,
    states: usize,
    letters: usize,
    missing: f64,
    accepting: f64,
) -> Dfa {
    assert!(states >= 1);
    assert!(
        letters >= 1 || states == 1,
        "more than one state needs a letter"
    );
    let mut dfa = Dfa::with_states(alphabet(letters), states);
    let k = letters as u64;
    for q in 1..states {
        // A free slot exists among the states before q: they have q * k slots and the tree
        // has used q - 1 of them.
        let mut slot = rng.below(q as u64 * k);
        loop {
            let (from, letter) = ((slot / k) as StateId, (slot % k) as Letter);
            if dfa.next(from, letter).is_none() {
                dfa.set_transition(from, letter, q as StateId);
                break;
            }
            slot = (slot + 1) % (q as u64 * k);
        }
    }
    for q in 0..states as StateId {
        for a in 0..letters as Letter {
            if dfa.next(q, a).is_none() && !rng.chance(missing) {
                dfa.set_transition(q, a, rng.below(states as u64) as StateId);
            }
        }
        dfa.set_accepting(q, rng.chance(accepting));
    }
    dfa
}

/// A random minimal DFA (in the canonical form of [`ops::minimize`]) with exactly `states`
/// states, or `None` if 1000 tries of [`random_dfa`] all minimised to fewer states.
pub fn random_minimal_dfa(
    rng: &mut SplitMix64,
    states: usize,
    letters: usize,
    missing: f64,
) -> Option<Dfa> {
    (0..1000).find_map(|_| {
        let dfa = ops::minimize(&random_dfa(rng, states, letters, missing, 0.5));
        (dfa.num_states() == states).then_some(dfa)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_the_reference_sequence() {
        // The first outputs for seed 1234567 of the reference C implementation.
        let mut rng = SplitMix64::new(1234567);
        assert_eq!(rng.next_u64(), 6457827717110365317);
        assert_eq!(rng.next_u64(), 3203168211198807973);
    }

    #[test]
    fn random_dfas_are_reachable_and_seeded() {
        let mut rng = SplitMix64::new(7);
        let d = random_dfa(&mut rng, 40, 3, 0.2, 0.5);
        let reachable = crate::automaton::analysis::reachable_states(&d);
        assert!(reachable.iter().all(|&r| r));
        let again = random_dfa(&mut SplitMix64::new(7), 40, 3, 0.2, 0.5);
        assert_eq!(d, again);
    }

    #[test]
    fn minimal_targets_have_the_requested_size() {
        let mut rng = SplitMix64::new(3);
        for (n, k) in [(1, 2), (20, 2), (50, 8)] {
            let d = random_minimal_dfa(&mut rng, n, k, 0.0).unwrap();
            assert_eq!(d.num_states(), n);
            assert_eq!(ops::minimize(&d), d);
        }
    }

    #[test]
    fn letter_names_are_distinct() {
        let a = alphabet(40);
        assert_eq!(a.len(), 40);
        assert_eq!(a.name(0), "a");
        assert_eq!(a.name(30), "l30");
    }
}
