//! The teacher's second source of answers: the words of concrete runs
//! ([`crate::cbmc::concrete`]), each a "yes" without CBMC at every bound it is within.
//!
//! Key items: the teacher's methods over its [`super::sampling::ConcreteWords`] (the
//! program, the runs asked for, the words found with the smallest `--unwind` each is
//! within): sampling ([`CbmcTeacher::sample_concrete`]), membership
//! answers ([`CbmcTeacher::concrete_answer`]), free counterexamples
//! ([`CbmcTeacher::concrete_disagreement`]), the guess oracle ([`CbmcTeacher::concrete_oracle`]).
//!
//! Why the results stay exact: a concrete word only ever answers "yes" (CBMC decides every
//! "no"), and it is never a known answer to CBMC until CBMC confirmed it: the conjecture
//! query checks the concrete words the conjecture accepts in its own run (and only then
//! counts them as known to its trap), and the exactness pass after it asks about every
//! accepted word CBMC has not answered. Should CBMC say "no" to one (gcc and CBMC reading
//! the program differently, say through undefined behaviour), the teacher stops with
//! [`CbmcTeacherError::ConcreteDisagrees`] rather than return an automaton learned from a
//! wrong answer.

use super::sampling::{ConcreteBuilder, ConcreteWords, SAMPLING_BUDGET};
use super::{CbmcTeacher, CbmcTeacherError};
use crate::automaton::{Dfa, Letter, Word, ops};

impl<'p> CbmcTeacher<'p> {
    /// Answers from concrete runs, `runs` of them before learning, of the program `build`
    /// compiles when they are first needed.
    pub fn set_concrete(&mut self, build: ConcreteBuilder<'p>, runs: u64) {
        self.concrete = Some(ConcreteWords::new(build, runs));
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
        if runs == 0 || self.concrete.is_none() {
            return Vec::new();
        }
        // The progress display shows the statistics from now on, also while gcc runs.
        self.notify();
        let Some(concrete) = self.concrete.as_mut() else {
            return Vec::new();
        };
        if let Some(build) = concrete.build.take() {
            match build() {
                Ok(program) => {
                    concrete.program = Some(program);
                    self.stats.concrete = true;
                }
                Err(why) => {
                    self.stats.concrete_note = Some(crate::failure::text(&why));
                    self.concrete = None;
                    return Vec::new();
                }
            }
        }
        let Some(program) = concrete.program.as_ref() else {
            return Vec::new();
        };
        let start = concrete.next_seed;
        concrete.next_seed += runs;
        // A program whose runs hang costs at most the sampling budget, not N timeouts.
        let budget = std::time::Instant::now() + SAMPLING_BUDGET;
        let deadline = crate::stop::deadline().map_or(budget, |d| d.min(budget));
        let sampled = program.sample(start..start + runs, Some(deadline));
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

    /// Makes a quarter of `--concrete-runs` more runs (on fresh seeds) and returns the
    /// shortest word of one within the bounds that `hypothesis` rejects.
    pub(crate) fn fresh_concrete_counterexample(&mut self, hypothesis: &Dfa) -> Option<Word> {
        let runs = self.concrete.as_ref()?.runs / 4;
        let fresh = self.more_concrete(runs);
        fresh
            .into_iter()
            .filter(|w| self.concrete_answer(w) && !hypothesis.accepts(w))
            .min_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)))
    }

    /// The guess oracle of lazy learning in place of the constant guess `likely`: the
    /// automaton of the concrete words within the bounds (guess "yes" for a word a run had,
    /// "no" for any other); `None` without words. In place of "yes" only when at least half
    /// the runs gave a word: when most runs end elsewhere (an exit, a failed assumption),
    /// the runs cover the language too thinly for a word they missed to be a likely "no"
    /// (`schedule` of the paper at `--unwind 1 --max-word-length 12`: 8 words from 650 runs,
    /// 26 CBMC runs with this oracle against 24 without concrete runs).
    pub fn concrete_oracle(&self, likely: bool) -> Option<Dfa> {
        let words = self.concrete_words();
        let thin = 2 * self.stats.concrete_discarded > self.stats.concrete_runs;
        let useless = words.is_empty() || (likely && thin);
        (!useless).then(|| ops::from_words(&self.program.alphabet, &words))
    }

    /// The concrete words within the bounds that CBMC has not answered, that `hypothesis`
    /// accepts and that are not in `besides`, at most a batch of them: what a conjecture
    /// query checks in its own run.
    pub(crate) fn unverified_concrete(&self, hypothesis: &Dfa, besides: &[Word]) -> Vec<Word> {
        let room = self.options.batch_size.saturating_sub(besides.len());
        self.concrete_words()
            .into_iter()
            .filter(|w| self.lookup(w).is_none() && hypothesis.accepts(w) && !besides.contains(w))
            .take(room)
            .collect()
    }

    /// Records CBMC's answers to `words`, failing on a "no" to a word a concrete run had.
    pub(crate) fn record_concrete_checks(
        &mut self,
        words: &[Word],
        replies: &[bool],
    ) -> Result<(), CbmcTeacherError> {
        for (word, &accepted) in words.iter().zip(replies) {
            if !accepted {
                self.check_concrete(word)?;
            }
            self.record(word, accepted);
        }
        Ok(())
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
