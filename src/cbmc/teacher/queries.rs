//! Running the teacher's queries on CBMC: membership batches ([`GotoProgram::membership`]),
//! the prefetch that asks every word the pre-check admits at once and checks the pre-check
//! in the same run ([`CbmcTeacher::prefetch`]), the conjecture query and the exactness pass
//! after it, guesses and conjecture in one run, and the [`Teacher`] implementation that
//! puts the policy's answers first and CBMC's after. A failed run becomes a
//! [`CbmcTeacherError`] that names the query (`describe_words`, `describe_conjecture`).
//! Apart from the policy because this is the part that costs time and can fail.

use std::sync::Arc;
use std::time::Duration;

use super::bounds::LearnBounds;
use super::{CbmcTeacher, CbmcTeacherError};
use crate::automaton::{Alphabet, Dfa, Letter, Word, analysis, ops};
use crate::cbmc::Allocations;
use crate::cbmc::cache_store::{AcceptedConjecture, Exactness, LoopCheck, dfa_digest};
use crate::cbmc::error::CbmcRunError;
use crate::cbmc::language::is_explanation_word;
use crate::cbmc::program::{Bounds, Feedback, GotoProgram};
use crate::cbmc::reach::{CutLoop, Reach};
use crate::learn::{Answer, Equivalence, Teacher, TeacherError, unpack};
use crate::stop;

impl CbmcTeacher<'_> {
    fn goto(&mut self) -> Result<&GotoProgram, CbmcTeacherError> {
        if self.goto.is_none() {
            let program =
                GotoProgram::compile(&self.tools, &self.program.paths, &[], &[], &self.work_dir)
                    .map_err(|e| match stop::stop_reason() {
                        Some(reason) => CbmcTeacherError::Stopped { reason },
                        None => CbmcTeacherError::Compile(e),
                    })?
                    .with_entry(self.program.cbmc_entry.clone())
                    .with_recursive_functions(self.program.recursive_functions())
                    .with_library_unwind(self.options.library_unwind)
                    .with_counters(Arc::clone(&self.counters));
            // The paper's modes ask CBMC once per batch, as the paper did.
            let paper = self.options.baseline || self.options.paper_lazy;
            self.goto = Some(if paper {
                program
            } else {
                program.with_kept_formulas(self.program.alphabet.len())
            });
        }
        Ok(self.goto.as_ref().expect("compiled above"))
    }

    /// What every CBMC query of the teacher runs with: the CBMC bounds, the end letter and
    /// the query timeout.
    fn query_settings(&self) -> (Bounds, Letter, Option<Duration>) {
        (
            self.bounds.cbmc(),
            self.program.end,
            self.options.query_timeout,
        )
    }

    fn query_error(&self, query: String, error: CbmcRunError) -> CbmcTeacherError {
        // A run killed by a stop request is no timeout of the query: say why it stopped.
        if let Some(reason) = stop::stop_reason() {
            return CbmcTeacherError::Stopped { reason };
        }
        let LearnBounds {
            unwind,
            max_word_length,
        } = self.bounds;
        match error {
            CbmcRunError::Timeout { seconds, .. } => CbmcTeacherError::Timeout {
                query,
                seconds,
                unwind,
                max_word_length,
                hint: if self.explores_allocation_failures() {
                    ", or leave out the executions in which an allocation fails (--allocations succeed)"
                } else {
                    ""
                },
            },
            source => CbmcTeacherError::Query {
                query,
                unwind,
                max_word_length,
                source,
            },
        }
    }

    /// Whether allocations may fail and the program's sources call an allocator. The
    /// clean-up paths after a failed allocation are then often most of CBMC's formula
    /// (parson's parser: symbolic execution never ends at `--unwind 2`, 2.3 s when none
    /// fails), so a timeout or a stop at the time budget names `--allocations succeed`.
    pub fn explores_allocation_failures(&self) -> bool {
        self.tools.allocations == Allocations::MayFail
            && self.program.paths.iter().any(|path| {
                std::fs::read_to_string(self.work_dir.join(path)).is_ok_and(|text| {
                    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                        .any(|w| matches!(w, "malloc" | "calloc" | "realloc"))
                })
            })
    }

    /// Whether the entry returns at the teacher's current bounds and which loops the
    /// unwinding cuts ([`GotoProgram::reach`]): what an empty language is explained with.
    pub fn reach(&mut self) -> Result<Reach, CbmcTeacherError> {
        let (bounds, _, timeout) = self.query_settings();
        let result = self.goto()?.reach(bounds, timeout);
        result.map_err(|e| self.query_error("the unwinding check".to_string(), e))
    }

    /// The loops the unwinding cuts at the teacher's current bounds on executions within the
    /// word bound ([`GotoProgram::cut_loops`]): what `--auto-bounds` must see empty before it
    /// calls a language converged.
    /// The answer is remembered for [`Self::cuts_a_loop`].
    pub fn cut_loops(&mut self) -> Result<Vec<CutLoop>, CbmcTeacherError> {
        let (bounds, _, timeout) = self.query_settings();
        let result = self.goto()?.cut_loops(bounds, timeout);
        let cut = result.map_err(|e| self.query_error("the unwinding check".to_string(), e))?;
        let check = LoopCheck {
            unwind: self.bounds.cbmc().unwind,
            max_word_length: self.bounds.max_word_length,
            cut: !cut.is_empty(),
        };
        if !self.loop_checks.contains(&check) {
            self.loop_checks.push(check);
        }
        Ok(cut)
    }

    /// Whether the unwinding cuts a loop at the current bounds ([`Self::cut_loops`] is
    /// empty or not): a remembered answer (this run's, or the store's, so that a run with a
    /// warm store asks CBMC nothing), else one CBMC run.
    pub fn cuts_a_loop(&mut self) -> Result<bool, CbmcTeacherError> {
        let bounds = self.bounds;
        let (unwind, max_word_length) = (bounds.cbmc().unwind, bounds.max_word_length);
        let known = self
            .loop_checks
            .iter()
            .find(|c| c.unwind == unwind && c.max_word_length == max_word_length);
        if let Some(check) = known {
            return Ok(check.cut);
        }
        Ok(!self.cut_loops()?.is_empty())
    }

    /// One CBMC run over `words` (or, in the baseline, one per word). With a remote engine
    /// and `--remote-jobs N`, N of the runs at once, on as many workers: the same runs and
    /// answers, taken in the same order.
    pub(super) fn cbmc_membership(
        &mut self,
        words: &[Word],
    ) -> Result<Vec<bool>, CbmcTeacherError> {
        let chunk = if self.options.baseline {
            1
        } else {
            self.options.batch_size.max(1)
        };
        let at_once = crate::remote::current().map_or(1, |r| r.config().jobs.max(1));
        let parts: Vec<&[Word]> = words.chunks(chunk).collect();
        let mut answers = Vec::with_capacity(words.len());
        for group in parts.chunks(at_once) {
            if group.len() == 1 {
                self.stats.words_to_cbmc += group[0].len() as u64;
                self.notify();
                answers.extend(self.membership_batch(group[0])?);
                continue;
            }
            self.stats.words_to_cbmc += group.iter().map(|p| p.len() as u64).sum::<u64>();
            self.notify();
            let results = self.membership_at_once(group)?;
            for (part, result) in group.iter().zip(results) {
                answers.extend(self.take_replies(part, result)?);
            }
        }
        self.notify();
        Ok(answers)
    }

    /// The CBMC runs of `parts`, each on a thread of its own (each waits for its remote
    /// action).
    fn membership_at_once(
        &mut self,
        parts: &[&[Word]],
    ) -> Result<Vec<Result<Vec<bool>, CbmcRunError>>, CbmcTeacherError> {
        let (bounds, end, timeout) = self.query_settings();
        let goto = self.goto()?;
        // A failure here is each run's to meet again, and to report.
        let _ = goto.prepare_queries(timeout);
        Ok(std::thread::scope(|scope| {
            let runs: Vec<_> = parts
                .iter()
                .map(|part| scope.spawn(move || goto.membership(part, bounds, end, timeout)))
                .collect();
            runs.into_iter()
                .map(|run| run.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        }))
    }

    /// One batch in one CBMC run.
    fn membership_batch(&mut self, part: &[Word]) -> Result<Vec<bool>, CbmcTeacherError> {
        let (bounds, end, timeout) = self.query_settings();
        let result = self.goto()?.membership(part, bounds, end, timeout);
        self.take_replies(part, result)
    }

    /// What a batch's run answered, recorded. A batch that timed out is split in halves,
    /// each asked again, and the smaller batch size kept for the rest of the run: one
    /// formula for many words can be too big where each word alone is not, so a timeout is
    /// reported only for a single word.
    fn take_replies(
        &mut self,
        part: &[Word],
        result: Result<Vec<bool>, CbmcRunError>,
    ) -> Result<Vec<bool>, CbmcTeacherError> {
        let replies = match result {
            Ok(replies) => replies,
            Err(CbmcRunError::Timeout { .. } | CbmcRunError::OutOfMemory { .. })
                if part.len() > 1 && stop::stop_reason().is_none() =>
            {
                self.options.batch_size = (part.len() / 2).max(1);
                self.stats.batches_split += 1;
                let mut replies = Vec::with_capacity(part.len());
                for smaller in part.chunks(self.options.batch_size) {
                    replies.extend(self.membership_batch(smaller)?);
                }
                return Ok(replies);
            }
            Err(e) => return Err(self.query_error(describe_words(&self.program.alphabet, part), e)),
        };
        for (word, &accepted) in part.iter().zip(&replies) {
            if !accepted {
                self.check_concrete(word)?;
            }
            self.record(word, accepted);
        }
        Ok(replies)
    }

    /// Answers, in one CBMC run, every word the pre-check automaton accepts that is not known
    /// yet, when there are at most `TeacherOptions::batch_size` of them; returns how many
    /// it asked. The language is a subset of those words (the pre-check is sound), so the
    /// learner then needs no membership query of CBMC at all, and the teacher no conjecture
    /// query: on small programs one batch replaces the rounds of guesses and checks of lazy
    /// learning and the conjecture queries. Nothing in the baseline.
    pub fn prefetch(&mut self) -> Result<usize, CbmcTeacherError> {
        if self.options.baseline || self.options.paper_lazy {
            return Ok(0);
        }
        let limit = self.options.batch_size as u64;
        let max_len = self.bounds.max_word_length;
        // Counting is cheap, enumerating is not; a few batches' worth of candidates are
        // enumerated since answers of other bounds may already cover most of them.
        let candidates = match analysis::count_up_to(&self.allowed, max_len) {
            Some(n) if n <= u128::from(limit) * 4 => {
                analysis::words_up_to(&self.allowed, max_len, u64::MAX).unwrap_or_default()
            }
            _ => return Ok(0),
        };
        let unknown: Vec<Word> = candidates
            .into_iter()
            .filter(|w| self.lookup(w).is_none())
            .collect();
        if unknown.len() as u64 > limit {
            return Ok(0);
        }
        if !unknown.is_empty() {
            self.stats.prefetched_words += unknown.len() as u64;
            self.stats.words_to_cbmc += unknown.len() as u64;
            self.notify();
            let (bounds, end, timeout) = self.query_settings();
            self.goto()?;
            let goto = self.goto.as_ref().expect("compiled above");
            let result = goto.membership_within(&unknown, &self.allowed, bounds, end, timeout);
            let (replies, missed) = match result {
                Ok(answered) => answered,
                // Too big a formula for one run: learning asks in smaller batches instead.
                Err(CbmcRunError::Timeout { .. } | CbmcRunError::OutOfMemory { .. })
                    if unknown.len() > 1 && stop::stop_reason().is_none() =>
                {
                    self.options.batch_size = (unknown.len() / 2).max(1);
                    self.stats.batches_split += 1;
                    return Ok(0);
                }
                Err(e) => {
                    return Err(
                        self.query_error(describe_words(&self.program.alphabet, &unknown), e)
                    );
                }
            };
            for (word, &accepted) in unknown.iter().zip(&replies) {
                if !accepted {
                    self.check_concrete(word)?;
                }
                self.record(word, accepted);
            }
            self.notify();
            if let Some(word) = missed {
                // The pre-check rejected the word of an execution: one of the front end's
                // assumptions does not hold for this program, so none of its answers can be
                // trusted. Learning goes on with the words' shape only.
                self.record(&word, true);
                self.precheck_missed = Some(word);
                self.set_bounds(self.bounds);
                return Ok(unknown.len());
            }
        }
        self.complete = true;
        Ok(unknown.len())
    }

    /// Checks every accepted word not known to be in the language, shortest first, up to
    /// `--exact-limit` words; returns the first that no execution has.
    fn exactness_pass(&mut self, hypothesis: &Dfa) -> Result<Option<Word>, CbmcTeacherError> {
        let max_len = self.bounds.max_word_length;
        let known = crate::automaton::ops::from_words(
            &self.program.alphabet,
            &self.known_accepted(hypothesis),
        );
        let unknown = ops::difference(hypothesis, &known);
        let counts = analysis::count_by_length(&unknown, max_len);
        let limit = u128::from(self.options.exact_limit);
        // The longest length all of whose words, and all shorter ones, fit in the limit.
        let mut total = 0u128;
        let mut exact_up_to = max_len;
        for (length, &count) in counts.iter().enumerate() {
            match total.checked_add(count).filter(|&t| t <= limit) {
                Some(t) => total = t,
                None => {
                    exact_up_to = length.saturating_sub(1);
                    break;
                }
            }
        }
        let unchecked = counts[(exact_up_to + 1).min(counts.len())..]
            .iter()
            .fold(0u128, |a, &c| a.saturating_add(c));
        let words = analysis::words_up_to(&unknown, exact_up_to, u64::MAX)
            .expect("the words were counted to fit");
        let chunk = self.options.batch_size.max(1);
        for part in words.chunks(chunk) {
            self.stats.exactness_words += part.len() as u64;
            let answers = self.cbmc_membership(part)?;
            // Words come shortest first, so the first refuted one is a shortest.
            if let Some(i) = answers.iter().position(|&a| !a) {
                self.stats.exactness_counterexamples += 1;
                return Ok(Some(part[i].clone()));
            }
        }
        self.exactness = Some(Exactness {
            max_word_length: max_len,
            exact_up_to,
            checked_words: u64::try_from(total).unwrap_or(u64::MAX),
            unchecked_words: u64::try_from(unchecked).unwrap_or(u64::MAX),
        });
        Ok(None)
    }

    /// After the conjecture query: its feedback, or else the exactness pass's; the
    /// conjecture is accepted (and remembered for the store) when neither finds a word.
    fn conclude(
        &mut self,
        hypothesis: &Dfa,
        feedback: Option<Feedback>,
    ) -> Result<Equivalence, CbmcTeacherError> {
        if let Some(feedback) = feedback {
            if !feedback.positive {
                self.check_concrete(&feedback.word)?;
            }
            self.record(&feedback.word, feedback.positive);
            return Ok(Equivalence::Counterexample(feedback.word));
        }
        if let Some(word) = self.exactness_pass(hypothesis)? {
            return Ok(Equivalence::Counterexample(word));
        }
        let cbmc_bounds = self.bounds.cbmc();
        self.accepted.push(AcceptedConjecture {
            unwind: cbmc_bounds.unwind,
            max_word_length: cbmc_bounds.max_word_length,
            dfa: dfa_digest(hypothesis),
            exactness: self.exactness.clone().expect("set by the exactness pass"),
        });
        Ok(Equivalence::Equal)
    }

    fn equivalence_inner(&mut self, hypothesis: &Dfa) -> Result<Equivalence, CbmcTeacherError> {
        self.stats.conjectures += 1;
        self.stats.conjecture_states = hypothesis.num_states() as u64;
        self.last_conjecture = Some(hypothesis.clone());
        self.notify();
        if let Some(answer) = self.equivalence_without_cbmc(hypothesis) {
            return Ok(answer);
        }
        if self.is_pac() {
            return self.pac_equivalence(hypothesis);
        }
        // Fresh concrete runs before a CBMC run: a word of one the hypothesis rejects is a
        // counterexample for free.
        if let Some(word) = self.fresh_concrete_counterexample(hypothesis) {
            self.stats.conjectures_refuted_without_cbmc += 1;
            self.stats.concrete_counterexamples += 1;
            return Ok(Equivalence::Counterexample(word));
        }
        let feedback = self.conjecture_query(hypothesis)?;
        self.conclude(hypothesis, feedback)
    }

    /// The conjecture query of `hypothesis`. The words of concrete runs it accepts ride
    /// along, checked in the same run and known to its trap, so that the exactness pass
    /// need not ask them again; if that run is too big (a timeout, out of memory), the
    /// query runs alone and the exactness pass asks them in batches it can split.
    fn conjecture_query(&mut self, hypothesis: &Dfa) -> Result<Option<Feedback>, CbmcTeacherError> {
        let unverified = self.unverified_concrete(hypothesis, &[]);
        let mut known = self.known_accepted(hypothesis);
        known.extend(unverified.iter().cloned());
        self.stats.conjectures_to_cbmc += 1;
        self.stats.words_to_cbmc += unverified.len() as u64;
        let (bounds, end, timeout) = self.query_settings();
        let result = self.goto()?.conjecture_and_membership(
            hypothesis,
            bounds,
            end,
            &known,
            &unverified,
            timeout,
        );
        self.notify();
        let (feedback, replies) = match result {
            Ok(answered) => answered,
            Err(CbmcRunError::Timeout { .. } | CbmcRunError::OutOfMemory { .. })
                if !unverified.is_empty() && stop::stop_reason().is_none() =>
            {
                self.stats.batches_split += 1;
                let known = self.known_accepted(hypothesis);
                let alone = self
                    .goto()?
                    .conjecture(hypothesis, bounds, end, &known, timeout);
                self.notify();
                let feedback =
                    alone.map_err(|e| self.query_error(describe_conjecture(hypothesis, &[]), e))?;
                return Ok(feedback);
            }
            Err(e) => {
                return Err(self.query_error(describe_conjecture(hypothesis, &unverified), e));
            }
        };
        self.record_concrete_checks(&unverified, &replies)?;
        Ok(feedback)
    }

    /// Answers the words at positions `ask` with CBMC, in batches.
    fn answer_with_cbmc(
        &mut self,
        words: &[Word],
        answers: &mut [Option<bool>],
        ask: &[usize],
    ) -> Result<(), CbmcTeacherError> {
        if ask.is_empty() {
            return Ok(());
        }
        let batch: Vec<Word> = ask.iter().map(|&i| words[i].clone()).collect();
        let replies = self.cbmc_membership(&batch)?;
        for (&i, reply) in ask.iter().zip(replies) {
            answers[i] = Some(reply);
        }
        Ok(())
    }

    /// Lazy learning's check of its guesses and the conjecture they support in one CBMC run
    /// ([`GotoProgram::conjecture_and_membership`]), when both need CBMC; otherwise one
    /// after the other, as the learner would have asked them.
    fn membership_then_equivalence_inner(
        &mut self,
        words: &[Word],
        guessed: &[bool],
        hypothesis: &Dfa,
    ) -> Result<(Vec<bool>, Option<Equivalence>), CbmcTeacherError> {
        let (mut answers, ask) = self.answers_without_cbmc(words);
        let together = !ask.is_empty()
            && !self.options.baseline
            && !self.is_pac()
            && !self.options.paper_lazy
            && self.shortcut(hypothesis).is_none();
        let feedback = if together {
            let mut batch: Vec<Word> = ask.iter().map(|&i| words[i].clone()).collect();
            let unverified = self.unverified_concrete(hypothesis, &batch);
            batch.extend(unverified);
            self.stats.conjectures += 1;
            self.stats.conjectures_to_cbmc += 1;
            self.stats.words_to_cbmc += batch.len() as u64;
            self.notify();
            let mut known = self.known_accepted(hypothesis);
            known.extend(batch[ask.len()..].iter().cloned());
            let (bounds, end, timeout) = self.query_settings();
            let result = self
                .goto()?
                .conjecture_and_membership(hypothesis, bounds, end, &known, &batch, timeout);
            self.notify();
            match result {
                Ok((feedback, replies)) => {
                    self.record_concrete_checks(&batch, &replies)?;
                    for (&i, reply) in ask.iter().zip(replies) {
                        answers[i] = Some(reply);
                    }
                    Some(feedback)
                }
                // Too big a formula for one run: the words, then the conjecture, apart.
                Err(CbmcRunError::Timeout { .. } | CbmcRunError::OutOfMemory { .. })
                    if stop::stop_reason().is_none() =>
                {
                    self.stats.batches_split += 1;
                    self.answer_with_cbmc(words, &mut answers, &ask)?;
                    None
                }
                Err(e) => return Err(self.query_error(describe_conjecture(hypothesis, &batch), e)),
            }
        } else {
            self.answer_with_cbmc(words, &mut answers, &ask)?;
            None
        };
        let answers: Vec<bool> = answers
            .into_iter()
            .map(|a| a.expect("every word answered"))
            .collect();
        if answers != guessed {
            return Ok((answers, None));
        }
        // The guesses held: the conjecture stands on confirmed answers only.
        self.stats.conjecture_states = hypothesis.num_states() as u64;
        self.last_conjecture = Some(hypothesis.clone());
        let equivalence = match feedback {
            // The new answers may contradict the conjecture: asked one after the other, the
            // equivalence query would have found that before any CBMC run.
            Some(feedback) => match self.known_disagreement(hypothesis) {
                Some(word) => {
                    self.stats.conjectures_refuted_without_cbmc += 1;
                    Equivalence::Counterexample(word)
                }
                None => self.conclude(hypothesis, feedback)?,
            },
            None => self.equivalence_inner(hypothesis)?,
        };
        Ok((answers, Some(equivalence)))
    }
}

impl Teacher for CbmcTeacher<'_> {
    fn membership(&mut self, words: &[Word]) -> Result<Vec<Answer>, TeacherError> {
        let (mut answers, ask) = self.answers_without_cbmc(words);
        self.answer_with_cbmc(words, &mut answers, &ask)?;
        Ok(answers
            .into_iter()
            .map(|a| Answer::from(a.expect("every word answered")))
            .collect())
    }

    fn equivalence(&mut self, hypothesis: &Dfa) -> Result<Equivalence, TeacherError> {
        Ok(self.equivalence_inner(hypothesis)?)
    }

    fn membership_then_equivalence(
        &mut self,
        letters: &[Letter],
        ends: &[usize],
        guessed: &[bool],
        hypothesis: &Dfa,
    ) -> Result<(Vec<Answer>, Option<Equivalence>), TeacherError> {
        let words: Vec<Word> = unpack(letters, ends).map(<[Letter]>::to_vec).collect();
        let (answers, equivalence) =
            self.membership_then_equivalence_inner(&words, guessed, hypothesis)?;
        Ok((answers.into_iter().map(Answer::from).collect(), equivalence))
    }

    fn precheck(&self, word: &[Letter]) -> Option<Answer> {
        if self.options.baseline {
            return None;
        }
        let no = !is_explanation_word(word, self.program.end)
            || word.len() > self.bounds.max_word_length
            || !self.allowed.accepts(word);
        if no {
            self.precheck_no.set(self.precheck_no.get() + 1);
            Some(Answer::No)
        } else {
            None
        }
    }
}

/// A conjecture query for an error message, with the membership query asked in its run.
fn describe_conjecture(hypothesis: &Dfa, words: &[Word]) -> String {
    let query = format!(
        "the conjecture query on a hypothesis of {} states",
        hypothesis.num_states()
    );
    if words.is_empty() {
        query
    } else {
        format!(
            "{query} with {}",
            describe_words(hypothesis.alphabet(), words)
        )
    }
}

/// A membership query for an error message: its size and first words, by letter names.
fn describe_words(alphabet: &Alphabet, words: &[Word]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<String> = words
        .iter()
        .take(SHOWN)
        .map(|w| format!("[{}]", alphabet.format_word(w)))
        .collect();
    let more = if words.len() > SHOWN { ", ..." } else { "" };
    if words.len() == 1 {
        format!("the membership query {}", shown[0])
    } else {
        format!(
            "a membership query of {} words ({}{more})",
            words.len(),
            shown.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cbmc::{TeacherOptions, Toolchain};

    #[test]
    fn queries_are_described_by_letter_names() {
        let alphabet = Alphabet::from_names(["f", "g", "end"]);
        assert_eq!(
            describe_words(&alphabet, &[vec![0, 2]]),
            "the membership query [f end]"
        );
        let many = vec![vec![0, 2]; 5];
        let text = describe_words(&alphabet, &many);
        assert!(
            text.starts_with("a membership query of 5 words ([f end]"),
            "{text}"
        );
        assert!(text.ends_with(", ...)"), "{text}");
    }

    /// The check of the pre-check in the prefetch run: a pre-check that rejects the word of
    /// an execution is found out, dropped with a note, and learning still gets the language.
    #[test]
    fn a_pre_check_that_misses_an_execution_is_dropped() {
        use crate::cbmc::learning::learn_with_teacher;
        use crate::cprog::{FrontEndConfig, instrument};
        use crate::learn::GuessPolicy;

        let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = tempfile::tempdir().unwrap();
        let config = FrontEndConfig::new(vec![root.join("tests/programs/fig12_base.c")]);
        let program = instrument(&config, dir.path()).unwrap();
        let bounds = LearnBounds {
            unwind: 2,
            max_word_length: 8,
        };
        let options = TeacherOptions::default();
        let mut teacher = CbmcTeacher::new(&program, tools, root.to_path_buf(), bounds, options);
        let word = |names: &str| -> Word {
            names
                .split(' ')
                .map(|n| program.alphabet.letter(n).unwrap())
                .collect()
        };
        // A wrong pre-check: it admits `funcA end`, not the real `funcA funcB end`.
        teacher.allowed =
            crate::automaton::ops::from_words(&program.alphabet, &[word("funcA end")]);
        teacher.prefetch().unwrap();
        assert_eq!(teacher.precheck_missed(), Some(&word("funcA funcB end")));
        let note = teacher.precheck_note().unwrap();
        assert!(note.contains("rejected [funcA funcB end]"), "{note}");
        assert!(!teacher.complete);
        let learned = learn_with_teacher(&mut teacher, &program, GuessPolicy::Constant(true))
            .unwrap_or_else(|e| panic!("{e}"));
        let accepted = analysis::words_up_to(&learned.dfa, 8, 100).unwrap();
        assert_eq!(accepted, [word("funcA funcB end")]);
    }
}
