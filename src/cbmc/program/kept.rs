//! The formulas a [`GotoProgram`] keeps, one per bounds ([`crate::cbmc::formula`]): when
//! to build one, and the queries it answers instead of a CBMC run.

use std::time::{Duration, Instant};

use super::{Answers, Bounds, Feedback, GotoProgram};
use crate::automaton::{Dfa, Letter};
use crate::cbmc::error::CbmcRunError;
use crate::cbmc::formula::{Slot, SolveLimit, WordFormula};
use crate::cbmc::harness::{self, QUERY_PROPERTY_ID};

/// The largest formula file kept in a solver (a few hundred MB in memory once loaded, and a
/// review learns two versions at once); with a larger one CBMC's batches answer.
const MAX_FORMULA_BYTES: u64 = 128 << 20;

/// The least time the solver gets on one query, however fast CBMC's runs were.
const MIN_BUDGET: Duration = Duration::from_secs(1);

/// The words of a batch whose CBMC run costs about twice a run of one word (on `schedule`
/// and the corpus's sort a batch of 1,024 words took the solver 0.6 s, word by word).
const WORDS_PER_RUN: f64 = 256.0;

impl GotoProgram {
    /// The answers to `words` (distinct, each ending with `end`, within the bounds) from
    /// the formula kept for `bounds`, see [`Self::with_formula`]. `None`: CBMC's batch
    /// answers.
    pub(super) fn answers_from_formula(
        &self,
        words: &[&[Letter]],
        bounds: Bounds,
        end: Letter,
        deadline: Option<Instant>,
        timeout: Option<Duration>,
    ) -> Result<Option<Vec<bool>>, CbmcRunError> {
        let answers = self.with_formula(
            bounds,
            end,
            (deadline, timeout),
            words.len(),
            |formula, until| formula.members(words, until),
        )?;
        if let Some(answers) = &answers {
            self.counters.record_formula_answers(answers.len() as u64);
        }
        Ok(answers)
    }

    /// The positive half of a conjecture query for `hypothesis` and the membership of
    /// `words`, from the formula kept for `bounds` (see [`Self::with_formula`]). There is
    /// no trap (Fig. 11) here: an accepted word no execution has is left to the exactness
    /// pass, which the formula makes cheap.
    pub(super) fn conjecture_from_formula(
        &self,
        hypothesis: &Dfa,
        words: &[&[Letter]],
        bounds: Bounds,
        end: Letter,
        deadline: Option<Instant>,
        timeout: Option<Duration>,
    ) -> Result<Option<Answers>, CbmcRunError> {
        let found = self.with_formula(
            bounds,
            end,
            (deadline, timeout),
            words.len() + 1,
            |formula, until| {
                let answers = formula.members(words, until)?;
                let positive = formula.rejected_word(hypothesis, until)?;
                let feedback = positive.map(|word| Feedback {
                    word,
                    positive: true,
                });
                Some((feedback, answers))
            },
        )?;
        if let Some((_, answers)) = &found {
            self.counters
                .record_formula_answers(answers.len() as u64 + 1);
        }
        Ok(found)
    }

    /// Notes that CBMC answered a query at `bounds` in `took`.
    pub(super) fn note_cbmc_query(&self, bounds: Bounds, took: Duration) {
        if self.letters.is_none() {
            return;
        }
        let mut formulas = self.formulas.lock().unwrap_or_else(|e| e.into_inner());
        let slot = formulas.entry(bounds).or_insert(Slot::Queries {
            longest: Duration::ZERO,
        });
        if let Slot::Queries { longest } = slot {
            *longest = (*longest).max(took);
        }
    }

    /// Runs `ask`, which answers `words` words, on the formula kept for `bounds`, with the
    /// time it may take. The formula is built once CBMC has answered a query there (a
    /// program whose words one run answers pays no extra run). `None`: CBMC answers,
    /// because there is no formula yet, it is no use here, or `ask` ran out of time (then
    /// it is not used again).
    fn with_formula<R>(
        &self,
        bounds: Bounds,
        end: Letter,
        (deadline, timeout): (Option<Instant>, Option<Duration>),
        words: usize,
        ask: impl FnOnce(&mut WordFormula, SolveLimit) -> Option<R>,
    ) -> Result<Option<R>, CbmcRunError> {
        let Some(letters) = self.letters else {
            return Ok(None);
        };
        let mut formulas = self.formulas.lock().unwrap_or_else(|e| e.into_inner());
        let Some(slot) = formulas.get_mut(&bounds) else {
            return Ok(None);
        };
        if let Slot::Queries { longest } = *slot {
            *slot = Slot::Unusable;
            if let Some(formula) = self.formula(bounds, end, letters, deadline, timeout)? {
                *slot = Slot::Ready {
                    formula: Box::new(formula),
                    budget: longest.max(MIN_BUDGET),
                };
            }
        }
        let Slot::Ready { formula, budget } = slot else {
            return Ok(None);
        };
        // CBMC's run for a batch grows with its words, slowly; the solver's time, word by
        // word.
        let budget = budget.mul_f64(1.0 + words as f64 / WORDS_PER_RUN);
        let answer = ask(
            formula,
            SolveLimit {
                deadline,
                cpu: Some(budget),
            },
        );
        if answer.is_none() {
            *slot = Slot::Unusable;
        }
        Ok(answer)
    }

    /// One CBMC run writing the formula of the program at `bounds` with the word left
    /// free, loaded in a solver.
    fn formula(
        &self,
        bounds: Bounds,
        end: Letter,
        letters: usize,
        deadline: Option<Instant>,
        timeout: Option<Duration>,
    ) -> Result<Option<WordFormula>, CbmcRunError> {
        let (source, bits) = harness::word_formula(letters, end, bounds.max_word_length);
        let file = self.dir.path().join(format!(
            "formula-{}-{}.cnf",
            bounds.unwind, bounds.max_word_length
        ));
        let path = file.to_string_lossy();
        let options = [
            "--slice-formula",
            "--dimacs",
            "--outfile",
            &path,
            "--property",
            QUERY_PROPERTY_ID,
        ];
        let what = || "the formula of every word, for membership queries".to_string();
        self.check(&source, &options, bounds, deadline, timeout, what)?;
        // No file: CBMC decided the property without a formula (no path ends).
        let size = std::fs::metadata(&file).map_or(u64::MAX, |m| m.len());
        let text = (size <= MAX_FORMULA_BYTES)
            .then(|| std::fs::read_to_string(&file).ok())
            .flatten();
        let _ = std::fs::remove_file(&file);
        Ok(text.and_then(|cnf| WordFormula::read(&cnf, bits, letters)))
    }
}
