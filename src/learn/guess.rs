//! The guesses of lazy learning, with optional deliberate mistakes.

use super::config::GuessPolicy;
use super::random::mix64;
use crate::automaton::{Alphabet, Dfa, Letter};

pub(crate) struct Guesser {
    kind: Kind,
    stopped: bool,
    wrong_rate: f64,
    seed: u64,
}

enum Kind {
    Off,
    Constant(bool),
    Oracle {
        dfa: Dfa,
        /// The oracle's letter for each of the learner's, by name.
        letters: Vec<Option<Letter>>,
    },
}

impl Guesser {
    pub(crate) fn new(
        policy: &GuessPolicy,
        alphabet: &Alphabet,
        wrong_rate: f64,
        seed: u64,
    ) -> Guesser {
        let kind = match policy {
            GuessPolicy::Off => Kind::Off,
            GuessPolicy::Constant(b) => Kind::Constant(*b),
            GuessPolicy::Oracle(dfa) => Kind::Oracle {
                letters: alphabet.names().map(|n| dfa.alphabet().letter(n)).collect(),
                dfa: dfa.clone(),
            },
        };
        Guesser {
            kind,
            stopped: false,
            wrong_rate,
            seed,
        }
    }

    /// Whether guesses are being made.
    pub(crate) fn active(&self) -> bool {
        !self.stopped && !matches!(self.kind, Kind::Off)
    }

    /// Makes every later word go to the teacher.
    pub(crate) fn stop(&mut self) {
        self.stopped = true;
    }

    /// The guess for `word`, or `None` when the teacher must answer.
    pub(crate) fn guess(&self, word: &[Letter]) -> Option<bool> {
        if self.stopped {
            return None;
        }
        let guess = match &self.kind {
            Kind::Off => return None,
            Kind::Constant(b) => *b,
            Kind::Oracle { dfa, letters } => {
                let mut state = Some(dfa.initial());
                for &a in word {
                    state = match (state, letters[a as usize]) {
                        (Some(q), Some(b)) => dfa.next(q, b),
                        _ => None,
                    };
                }
                state.is_some_and(|q| dfa.is_accepting(q))
            }
        };
        Some(guess != self.flips(word))
    }

    /// Whether to spoil the guess of `word`: a hash of the seed and the word, so the same
    /// word is spoiled in every run with that seed, whenever it is asked.
    fn flips(&self, word: &[Letter]) -> bool {
        if self.wrong_rate <= 0.0 {
            return false;
        }
        let mut h = mix64(self.seed ^ 0x5851_f42d_4c95_7f2d);
        for &a in word {
            h = mix64(h ^ u64::from(a).wrapping_add(1));
        }
        h = mix64(h ^ word.len() as u64);
        ((h >> 11) as f64 / (1u64 << 53) as f64) < self.wrong_rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_guesses_by_letter_name_and_rejects_unknown_letters() {
        // The oracle accepts exactly "g" over {g, end}; the learner's alphabet is {f, g}.
        let mut oracle = Dfa::with_states(Alphabet::from_names(["g", "end"]), 2);
        oracle.set_transition(0, 0, 1);
        oracle.set_accepting(1, true);
        let learner = Alphabet::from_names(["f", "g"]);
        let g = Guesser::new(&GuessPolicy::Oracle(oracle), &learner, 0.0, 0);
        assert_eq!(g.guess(&[1]), Some(true));
        assert_eq!(g.guess(&[0]), Some(false));
        assert_eq!(g.guess(&[1, 1]), Some(false));
        assert_eq!(
            Guesser::new(&GuessPolicy::Off, &learner, 0.5, 0).guess(&[0]),
            None
        );
    }

    #[test]
    fn spoils_about_the_requested_share_reproducibly() {
        let alphabet = Alphabet::from_names(["a", "b", "c"]);
        let g = Guesser::new(&GuessPolicy::Constant(false), &alphabet, 0.3, 9);
        let words: Vec<Vec<Letter>> = (0..3000u32)
            .map(|i| vec![i % 3, (i / 3) % 3, i / 9])
            .collect();
        let wrong = words.iter().filter(|w| g.guess(w) == Some(true)).count();
        assert!((800..1000).contains(&wrong), "{wrong}");
        let again = Guesser::new(&GuessPolicy::Constant(false), &alphabet, 0.3, 9);
        assert!(words.iter().all(|w| g.guess(w) == again.guess(w)));
    }
}
