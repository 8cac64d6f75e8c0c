//! The teacher's second source of answers: the words of concrete runs
//! ([`crate::cbmc::concrete`]), each a "yes" without CBMC at every bound it is within.
//!
//! Key items: [`ConcreteWords`] (the program, the runs asked for, the words found with the
//! smallest `--unwind` each is within) and the teacher's methods that use them: membership
//! answers ([`CbmcTeacher::concrete_answer`]), free counterexamples
//! ([`CbmcTeacher::concrete_disagreement`]), the guess oracle ([`CbmcTeacher::concrete_oracle`]).
//!
//! Why the results stay exact: a concrete word only ever answers "yes" (CBMC decides every
//! "no"), and it is never a known answer to CBMC's queries (`known_accepted` holds CBMC's
//! answers alone), so the exactness pass after the last conjecture query asks CBMC about
//! every accepted word a concrete run answered. Should CBMC say "no" to one (gcc and CBMC
//! reading the program differently, say through undefined behaviour), the teacher stops with
//! [`CbmcTeacherError::ConcreteDisagrees`] rather than return an automaton learned from a
//! wrong answer.

use std::collections::HashMap;

use super::{CbmcTeacher, CbmcTeacherError};
use crate::automaton::{Dfa, Letter, Word, ops};
use crate::cbmc::concrete::ConcreteProgram;

/// The concrete runs of one program version and what they found.
#[derive(Debug)]
pub(crate) struct ConcreteWords {
    program: ConcreteProgram,
    /// Runs to make before learning.
    runs: u64,
    next_seed: u64,
    /// Each word with the smallest user `--unwind` a run of it was within.
    words: HashMap<Word, u32>,
}

impl ConcreteWords {
    pub(crate) fn new(program: ConcreteProgram, runs: u64) -> ConcreteWords {
        ConcreteWords {
            program,
            runs,
            next_seed: 0,
            words: HashMap::new(),
        }
    }
}

impl CbmcTeacher<'_> {
    /// Answers from `program`'s concrete runs, `runs` of them before learning.
    pub fn set_concrete(&mut self, program: ConcreteProgram, runs: u64) {
        self.concrete = Some(ConcreteWords::new(program, runs));
        self.stats.concrete = true;
    }

    /// Why the program has no concrete runs (gcc missing, a nondet source gcc cannot
    /// drive), for the statistics.
    pub fn set_concrete_note(&mut self, note: String) {
        self.stats.concrete_note = Some(note);
    }

    /// Makes the concrete runs not made yet (the first call makes all of them; later ones
    /// nothing): their words answer at every bound they are within. Returns how many
    /// distinct words they gave.
    pub fn sample_concrete(&mut self) -> usize {
        let Some(concrete) = self.concrete.as_ref() else {
            return 0;
        };
        let missing = concrete.runs.saturating_sub(concrete.next_seed);
        self.more_concrete(missing).len()
    }

    /// Makes `runs` more concrete runs, on fresh seeds; returns the distinct words they
    /// gave, within the bounds or not.
    pub(crate) fn more_concrete(&mut self, runs: u64) -> Vec<Word> {
        let Some(concrete) = self.concrete.as_mut() else {
            return Vec::new();
        };
        if runs == 0 {
            return Vec::new();
        }
        let start = concrete.next_seed;
        concrete.next_seed += runs;
        let sampled = concrete
            .program
            .sample(start..start + runs, crate::stop::deadline());
        let mut batch = Vec::with_capacity(sampled.samples.len());
        for sample in sampled.samples {
            let at = concrete
                .words
                .entry(sample.word.clone())
                .or_insert(u32::MAX);
            *at = (*at).min(sample.unwind);
            if !batch.contains(&sample.word) {
                batch.push(sample.word);
            }
        }
        self.stats.concrete_runs += sampled.runs;
        self.stats.concrete_discarded += sampled.discarded;
        self.stats.concrete_words = concrete.words.len() as u64;
        batch
    }

    /// Whether a concrete run within the current bounds has `word`.
    pub(crate) fn concrete_answer(&self, word: &[Letter]) -> bool {
        word.len() <= self.bounds.max_word_length
            && self
                .concrete
                .as_ref()
                .and_then(|c| c.words.get(word))
                .is_some_and(|&u| u <= self.bounds.unwind)
    }

    /// The concrete words within the current bounds, sorted.
    pub(crate) fn concrete_words(&self) -> Vec<Word> {
        let Some(concrete) = self.concrete.as_ref() else {
            return Vec::new();
        };
        let mut words: Vec<Word> = concrete
            .words
            .iter()
            .filter(|(w, u)| w.len() <= self.bounds.max_word_length && **u <= self.bounds.unwind)
            .map(|(w, _)| w.clone())
            .collect();
        words.sort();
        words
    }

    /// The shortest concrete word within the bounds that `hypothesis` rejects: a
    /// counterexample without CBMC.
    pub(crate) fn concrete_disagreement(&self, hypothesis: &Dfa) -> Option<Word> {
        self.concrete_words()
            .into_iter()
            .filter(|w| !hypothesis.accepts(w))
            .min_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)))
    }

    /// The guess oracle of lazy learning: the automaton of the concrete words within the
    /// bounds (guess "yes" for a word a run had, "no" for any other); `None` without words.
    pub fn concrete_oracle(&self) -> Option<Dfa> {
        let words = self.concrete_words();
        (!words.is_empty()).then(|| ops::from_words(&self.program.alphabet, &words))
    }

    /// An error if CBMC said "no" to a word a concrete run had within the bounds.
    pub(crate) fn check_concrete(&self, word: &[Letter]) -> Result<(), CbmcTeacherError> {
        if self.concrete_answer(word) {
            return Err(CbmcTeacherError::ConcreteDisagrees {
                word: self.program.alphabet.format_word(word),
            });
        }
        Ok(())
    }
}
