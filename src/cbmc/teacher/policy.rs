//! The teacher's decisions, apart from running CBMC (its settings are in `super::bounds`):
//! what the pre-check admits at a bound
//! ([`CbmcTeacher::set_bounds`]: the syntax automata of every unwinding so far, cut to the
//! word length, or only the words' shape in the baseline, see [`shaped_words`]), which known
//! answers still hold at another unwinding ([`Known`], Sec. 7.1), and which queries need no
//! CBMC at all ([`Shortcut`], `answers_without_cbmc`). Kept apart from the queries so that
//! what the teacher may conclude without CBMC, which is what its soundness rests on, reads
//! in one place.

use super::CbmcTeacher;
use super::bounds::LearnBounds;
use crate::automaton::{Alphabet, Dfa, Letter, Word, analysis, ops};
use crate::cbmc::cache_store::{Exactness, dfa_digest};
use crate::cbmc::language::is_explanation_word;
use crate::cprog::syntax_automaton;
use crate::learn::Equivalence;

/// An equivalence query answered without CBMC ([`CbmcTeacher::shortcut`]).
pub(super) enum Shortcut {
    /// A word the hypothesis gets wrong.
    Refuted(Word),
    /// Every word the pre-check admits is known: the hypothesis is the language.
    Complete(Exactness),
    /// This hypothesis was accepted at these bounds before.
    AcceptedBefore(Exactness),
}

impl CbmcTeacher<'_> {
    /// Moves to other bounds. Known answers stay, and answer where they still hold (Sec.
    /// 7.1 of the paper: "yes" at a smaller unwinding, "no" at a larger one, either for
    /// words within the word-length bound).
    pub fn set_bounds(&mut self, bounds: LearnBounds) {
        self.bounds = bounds;
        self.exactness = None;
        self.pac_result = None;
        self.complete = false;
        let shaped = shaped_words(
            &self.program.alphabet,
            self.program.end,
            bounds.max_word_length,
        );
        if self.options.baseline || self.precheck_missed.is_some() {
            self.allowed = shaped;
            return;
        }
        let unwind = bounds.cbmc().unwind;
        let sound = match self.syntax.take() {
            Some((unwinds, d)) if unwinds.contains(&unwind) => (unwinds, d),
            Some((mut unwinds, d)) => {
                let fresh = syntax_automaton(self.program, unwind, usize::MAX);
                unwinds.push(unwind);
                (unwinds, ops::minimize(&ops::intersection(&d, &fresh)))
            }
            None => (
                vec![unwind],
                syntax_automaton(self.program, unwind, usize::MAX),
            ),
        };
        // The word-length cut: every word of the syntax automaton ends with end.
        self.allowed = ops::minimize(&ops::intersection(&sound.1, &shaped));
        self.syntax = Some(sound);
    }

    /// The shortest known answer at the current bounds that `hypothesis` gets wrong.
    pub(super) fn known_disagreement(&self, hypothesis: &Dfa) -> Option<Word> {
        let unwind = self.bounds.cbmc().unwind;
        self.known
            .iter()
            .filter(|(w, _)| w.len() <= self.bounds.max_word_length)
            .filter_map(|(w, k)| k.at(unwind).map(|a| (w, a)))
            .filter(|(w, accepted)| hypothesis.accepts(w) != *accepted)
            .map(|(w, _)| w)
            .min_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)))
            .cloned()
    }

    /// The words known to be in the language at the current bounds that `hypothesis`
    /// accepts.
    pub(super) fn known_accepted(&self, hypothesis: &Dfa) -> Vec<Word> {
        let unwind = self.bounds.cbmc().unwind;
        self.known
            .iter()
            .filter(|(w, k)| {
                w.len() <= self.bounds.max_word_length
                    && k.at(unwind) == Some(true)
                    && hypothesis.accepts(w)
            })
            .map(|(w, _)| w.clone())
            .collect()
    }

    /// How an equivalence query can be answered without CBMC, if it can, cheapest first: an
    /// accepted word outside the syntax automaton (in the baseline: of the wrong shape or
    /// too long), a known answer the hypothesis contradicts, a complete batch, a conjecture
    /// accepted at these bounds before. Changes nothing.
    pub(super) fn shortcut(&self, hypothesis: &Dfa) -> Option<Shortcut> {
        if let Some(word) = analysis::shortest_accepted(&ops::difference(hypothesis, &self.allowed))
            .or_else(|| self.known_disagreement(hypothesis))
            .or_else(|| self.concrete_disagreement(hypothesis))
        {
            return Some(Shortcut::Refuted(word));
        }
        if self.complete {
            // The hypothesis accepts only words the pre-check admits and agrees with CBMC
            // on every one of them: it is the language within the bounds.
            let max_word_length = self.bounds.max_word_length;
            let accepted = analysis::count_up_to(hypothesis, max_word_length).unwrap_or(0);
            return Some(Shortcut::Complete(Exactness {
                max_word_length,
                exact_up_to: max_word_length,
                checked_words: u64::try_from(accepted).unwrap_or(u64::MAX),
                unchecked_words: 0,
            }));
        }
        let cbmc_bounds = self.bounds.cbmc();
        let digest = dfa_digest(hypothesis);
        self.accepted
            .iter()
            .find(|a| {
                a.unwind == cbmc_bounds.unwind
                    && a.max_word_length == cbmc_bounds.max_word_length
                    && a.dfa == digest
                    // An acceptance the exactness pass left short under a smaller
                    // `--exact-limit` says less than this run would check.
                    && (a.exactness.is_complete()
                        || a.exactness.checked_words >= self.options.exact_limit)
            })
            .map(|a| Shortcut::AcceptedBefore(a.exactness.clone()))
    }

    /// The answer of [`CbmcTeacher::shortcut`], counted.
    pub(super) fn equivalence_without_cbmc(&mut self, hypothesis: &Dfa) -> Option<Equivalence> {
        let answer = match self.shortcut(hypothesis)? {
            Shortcut::Refuted(word) => {
                self.stats.conjectures_refuted_without_cbmc += 1;
                if self.concrete_answer(&word) && self.lookup(&word).is_none() {
                    self.stats.concrete_counterexamples += 1;
                }
                return Some(Equivalence::Counterexample(word));
            }
            Shortcut::Complete(exactness) => {
                self.stats.conjectures_decided_by_answers += 1;
                exactness
            }
            Shortcut::AcceptedBefore(exactness) => {
                self.stats.conjectures_known += 1;
                exactness
            }
        };
        self.exactness = Some(answer);
        Some(Equivalence::Equal)
    }

    /// The words of a membership query that need no CBMC answered (their shape, their
    /// length, known answers); returns the answers and the positions of the rest.
    pub(super) fn answers_without_cbmc(
        &mut self,
        words: &[Word],
    ) -> (Vec<Option<bool>>, Vec<usize>) {
        self.stats.membership_words += words.len() as u64;
        let end = self.program.end;
        let mut answers: Vec<Option<bool>> = vec![None; words.len()];
        let mut ask: Vec<usize> = Vec::new();
        for (i, word) in words.iter().enumerate() {
            if !is_explanation_word(word, end) || word.len() > self.bounds.max_word_length {
                self.stats.words_by_shape += 1;
                answers[i] = Some(false);
            } else if let Some(known) = self.lookup(word) {
                self.stats.words_known += 1;
                answers[i] = Some(known);
            } else if self.concrete_answer(word) {
                self.stats.from_concrete += 1;
                answers[i] = Some(true);
            } else {
                ask.push(i);
            }
        }
        (answers, ask)
    }
}

/// The words of at most `max_len` letters with `end` last and nowhere else.
fn shaped_words(alphabet: &Alphabet, end: Letter, max_len: usize) -> Dfa {
    let mut d = Dfa::new(alphabet.clone());
    if max_len == 0 {
        return d;
    }
    let done = d.add_state(true);
    // State i has read i events; from the last, only end fits.
    let mut at = d.initial();
    for i in 0..max_len {
        d.set_transition(at, end, done);
        if i + 1 == max_len {
            break;
        }
        let next = d.add_state(false);
        for a in alphabet.letters().filter(|&a| a != end) {
            d.set_transition(at, a, next);
        }
        at = next;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbmc::teacher::bounds::Known;

    #[test]
    fn user_unwinding_is_one_less_than_cbmcs() {
        let b = LearnBounds {
            unwind: 2,
            max_word_length: 8,
        };
        assert_eq!(b.cbmc().unwind, 3);
        assert_eq!(b.cbmc().max_word_length, 8);
    }

    #[test]
    fn known_answers_hold_across_unwindings_as_sec_7_1_says() {
        let k = Known {
            yes_from: Some(3),
            no_up_to: None,
        };
        assert_eq!((k.at(2), k.at(3), k.at(9)), (None, Some(true), Some(true)));
        let k = Known {
            yes_from: None,
            no_up_to: Some(3),
        };
        assert_eq!(
            (k.at(1), k.at(3), k.at(4)),
            (Some(false), Some(false), None)
        );
    }

    #[test]
    fn shaped_words_end_with_end_within_the_bound() {
        let alphabet = Alphabet::from_names(["f", "g", "end"]);
        let d = shaped_words(&alphabet, 2, 3);
        assert!(d.accepts(&[2]) && d.accepts(&[0, 1, 2]) && d.accepts(&[1, 1, 2]));
        assert!(!d.accepts(&[0, 1, 1, 2]) && !d.accepts(&[0, 2, 2]) && !d.accepts(&[0]));
        assert!(analysis::is_empty(&shaped_words(&alphabet, 2, 0)));
    }
}
