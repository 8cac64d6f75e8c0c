//! The CBMC teacher: the learner's membership and equivalence queries about a C program's
//! behaviour, answered by pre-checks, known answers and CBMC.
//!
//! Key types:
//!
//! * [`CbmcTeacher`] implements [`crate::learn::Teacher`] for one instrumented program
//!   ([`crate::cprog::InstrumentedProgram`]) in program-explanation mode (Chockler,
//!   Kesseli, Kroening and Strichman, *Learning the Language of Software Errors*, JAIR 2020,
//!   Sec. 5): the language is the event words of the executions that return from the entry
//!   function, each ending with `end`.
//! * [`LearnBounds`]: the user's bounds, `--unwind b` and `--max-word-length n`, and the
//!   CBMC bounds they stand for ([`LearnBounds::cbmc`]).
//! * [`TeacherOptions`] (query timeout, `--exact-limit`, batch size, the paper's baseline),
//!   [`TeacherStats`] (what the queries cost) and [`CbmcTeacherError`].
//!
//! How each query is answered, cheapest first:
//!
//! * **Pre-check** (Sec. 4, "Optimisations"): a word without `end` last, longer than `n`, or
//!   rejected by the syntax automaton ([`crate::cprog::syntax_automaton`], a sound
//!   over-approximation) is "no" without CBMC.
//! * **Membership**: known answers (this run's, earlier bounds', the persistent store's,
//!   reused as Sec. 7.1 allows: see [`super::cache_store`]); the rest in one CBMC run per
//!   batch ([`GotoProgram::membership`], Fig. 7 with one assertion per word). When the
//!   syntax automaton accepts few words, [`CbmcTeacher::prefetch`] asks them all in one
//!   batch before learning starts, and the learner finds every answer in its cache.
//!   The language within the bounds is then known exactly (the pre-check is sound, so no
//!   other word can be in it): the teacher is **complete**, and decides equivalence queries
//!   from the answers alone, with no conjecture query. The pre-check's soundness rests on
//!   assumptions of the front end (every call it cannot see is a library's or goes through
//!   a pointer it knows of), so the same run checks it: the batch's harness also holds the
//!   positive half of a conjecture query for the pre-check automaton
//!   ([`GotoProgram::membership_within`]), which finds any execution whose word the
//!   pre-check rejects. If there is one, the teacher drops the pre-check for the words'
//!   shape, says so ([`CbmcTeacher::precheck_note`]) and is not complete.
//! * **Equivalence**: first what needs no CBMC: an accepted word the syntax automaton
//!   rejects, a known answer the conjecture contradicts, a conjecture accepted before at
//!   these bounds. Then the conjecture query of Fig. 9 with the trap of Fig. 11
//!   ([`GotoProgram::conjecture`]), which finds every execution whose word the conjecture
//!   rejects (Theorem 4.1) but not every accepted word without an execution. So once it
//!   passes, the **exactness pass** checks, in batches, every accepted word of at most `n`
//!   letters that is not known to be in the language, and returns the first that no
//!   execution has as negative feedback: the result is then exact on words within the bounds
//!   (the paper's property (6)). When there are more such words than `--exact-limit`, the
//!   pass checks the words up to the longest length that fits and [`Exactness`] says so.
//! * **Guesses and conjecture together**: lazy learning checks its guesses right before each
//!   conjecture (Fig. 16). When both need CBMC, the guessed words ride along in the
//!   conjecture query's run ([`GotoProgram::conjecture_and_membership`]); if a guess was
//!   wrong, the conjecture stood on it and its answer is dropped, as the learner would not
//!   have asked it. The paper pays one run for each.
//!
//! The baseline ([`TeacherOptions::baseline`], the paper's Sec. 8 "CBMC only") turns off
//! pre-checks and batching: every membership query that needs CBMC is a CBMC run of its own.
//! Words without `end` last or longer than `n` are still answered without CBMC, as
//! [`GotoProgram::membership`] always does, so the baseline's run count is a lower bound of
//! the paper's.
//!
//! A query is never answered by giving up: a CBMC timeout or crash is an error that names
//! the query, its words and the bounds.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use thiserror::Error;

use super::cache_store::{AcceptedConjecture, Exactness, Stored, StoredAnswer, dfa_digest};
use super::language::{is_explanation_word, words_dfa};
use super::{Bounds, CbmcCounters, CbmcRunError, Feedback, GotoProgram, Toolchain};
use crate::automaton::{Alphabet, Dfa, Letter, Word, analysis, ops};
use crate::cprog::{InstrumentedProgram, syntax_automaton};
use crate::learn::{Answer, Equivalence, Teacher, TeacherError, unpack};

/// The words one membership run checks at most. A CBMC run over a batch costs little more
/// than over one word (about 40 ms of CBMC time for 500 words of Fig. 12 against 10 ms for
/// one), but a batch's formula grows with it, so very large batches are split.
pub const MEMBERSHIP_BATCH: usize = 1024;

/// The default of `--exact-limit`: the most accepted words the exactness pass checks.
pub const DEFAULT_EXACT_LIMIT: u64 = 20_000;

/// The user's bounds (Eqn. (4) of the paper): executions with at most `unwind` iterations
/// of every loop, and words of at most `max_word_length` letters, `end` included.
///
/// `cbmc --unwind k` lets the body of a `for` or `while` loop run at most `k - 1` times (the
/// `k`-th visit of the loop head is cut), a `do`/`while` body `k` times, and a recursive
/// function call itself `k` times (measured with CBMC 6.6). So `--unwind b` is passed to
/// CBMC as `b + 1` ([`LearnBounds::cbmc`]): loop bodies run at most `b` times, as the
/// paper's `Depth(π) ≤ b` says, and each recursive function gets `--unwindset f:b`
/// ([`GotoProgram::with_recursive_functions`]), so it calls itself at most `b` times too. A
/// `do`/`while` body runs at most `b + 1` times: CBMC numbers loops in the goto program,
/// where the front end cannot name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LearnBounds {
    pub unwind: u32,
    pub max_word_length: usize,
}

impl LearnBounds {
    /// The bounds CBMC is run with.
    pub fn cbmc(self) -> Bounds {
        Bounds {
            unwind: self.unwind.saturating_add(1),
            max_word_length: self.max_word_length,
        }
    }
}

/// How the teacher works.
#[derive(Clone, Debug)]
pub struct TeacherOptions {
    /// The longest a CBMC query (one run, or a conjecture query with its checks) may take.
    pub query_timeout: Option<Duration>,
    /// The most accepted words the exactness pass checks per conjecture.
    pub exact_limit: u64,
    /// The most words of one membership run.
    pub batch_size: usize,
    /// The paper's baseline: no pre-checks, one CBMC run per word.
    pub baseline: bool,
}

impl Default for TeacherOptions {
    fn default() -> TeacherOptions {
        TeacherOptions {
            query_timeout: None,
            exact_limit: DEFAULT_EXACT_LIMIT,
            batch_size: MEMBERSHIP_BATCH,
            baseline: false,
        }
    }
}

/// What the teacher's queries cost, over all bounds it was used with.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TeacherStats {
    /// Words the pre-check answered "no" (the learner asks it before anything else).
    pub precheck_no: u64,
    /// Words of membership batches.
    pub membership_words: u64,
    /// ... answered from known answers (this run's, other bounds', the store's).
    pub words_known: u64,
    /// ... answered "no" for their shape or length.
    pub words_by_shape: u64,
    /// Words CBMC checked, exactness pass and prefetch included.
    pub words_to_cbmc: u64,
    /// Words the pre-check automaton accepts that were asked in one batch before learning
    /// ([`CbmcTeacher::prefetch`]).
    pub prefetched_words: u64,
    pub conjectures: u64,
    /// Conjectures refuted without CBMC (syntax automaton, known answers).
    pub conjectures_refuted_without_cbmc: u64,
    /// Conjectures accepted at these bounds before (the store).
    pub conjectures_known: u64,
    /// Conjectures accepted without CBMC because every word the pre-check admits has a
    /// known answer ([`CbmcTeacher::prefetch`]).
    pub conjectures_decided_by_answers: u64,
    /// Conjecture queries CBMC answered.
    pub conjectures_to_cbmc: u64,
    /// Accepted words the exactness pass had CBMC check.
    pub exactness_words: u64,
    /// Conjectures the exactness pass refuted: accepted words no execution has, which the
    /// trap of Fig. 11 did not catch.
    pub exactness_counterexamples: u64,
    /// CBMC runs and their wall time, from the program's [`CbmcCounters`].
    pub cbmc_runs: u64,
    pub cbmc_seconds: f64,
}

/// Why the teacher could not answer. Each variant prints as one line.
#[derive(Debug, Error)]
pub enum CbmcTeacherError {
    /// goto-cc rejected the instrumented program (a `file:line` of the user's source).
    #[error("{0}")]
    Compile(#[source] CbmcRunError),
    /// A CBMC run took longer than the query timeout.
    #[error(
        "CBMC timed out after {seconds:.1} s on {query} at --unwind {unwind} --max-word-length {max_word_length}; raise --query-timeout or lower the bounds"
    )]
    Timeout {
        query: String,
        seconds: f64,
        unwind: u32,
        max_word_length: usize,
    },
    /// CBMC failed on a query: it crashed, reported an error, or its output was unreadable.
    #[error("{query} at --unwind {unwind} --max-word-length {max_word_length}: {source}")]
    Query {
        query: String,
        unwind: u32,
        max_word_length: usize,
        #[source]
        source: CbmcRunError,
    },
}

impl CbmcTeacherError {
    /// Whether the input is to blame (the program does not compile, CBMC rejects it) rather
    /// than the run (a timeout, a crash).
    pub fn is_bad_input(&self) -> bool {
        let run_error = match self {
            CbmcTeacherError::Compile(e) | CbmcTeacherError::Query { source: e, .. } => e,
            CbmcTeacherError::Timeout { .. } => return false,
        };
        matches!(
            run_error,
            CbmcRunError::Compile { .. } | CbmcRunError::GotoCc { .. } | CbmcRunError::Cbmc { .. }
        )
    }
}

/// An equivalence query answered without CBMC ([`CbmcTeacher::shortcut`]).
enum Shortcut {
    /// A word the hypothesis gets wrong.
    Refuted(Word),
    /// Every word the pre-check admits is known: the hypothesis is the language.
    Complete(Exactness),
    /// This hypothesis was accepted at these bounds before.
    AcceptedBefore(Exactness),
}

/// A word's answers, in CBMC unwinding values; see [`StoredAnswer`].
#[derive(Clone, Copy, Debug, Default)]
struct Known {
    yes_from: Option<u32>,
    no_up_to: Option<u32>,
}

impl Known {
    fn at(self, unwind: u32) -> Option<bool> {
        if self.yes_from.is_some_and(|y| y <= unwind) {
            Some(true)
        } else if self.no_up_to.is_some_and(|n| n >= unwind) {
            Some(false)
        } else {
            None
        }
    }
}

type Observer<'p> = Box<dyn FnMut(&TeacherStats) + 'p>;

/// The teacher of one instrumented program; see the module documentation.
pub struct CbmcTeacher<'p> {
    program: &'p InstrumentedProgram,
    tools: Toolchain,
    /// Where goto-cc runs (the `#line` markers' relative paths are relative to it).
    work_dir: PathBuf,
    /// Compiled on the first query that needs CBMC, so that a run the store answers
    /// entirely needs no goto-cc either.
    goto: Option<GotoProgram>,
    counters: Arc<CbmcCounters>,
    options: TeacherOptions,
    bounds: LearnBounds,
    /// What a conjecture may accept without CBMC refuting it: the syntax automaton, or in
    /// the baseline the words of the right shape and length.
    allowed: Dfa,
    /// The intersection of the syntax automata of every unwinding used so far, without
    /// the length cut, and those unwindings. Each is sound whatever the bounds, so a word
    /// one of them rejects stays "no" at every bound (Sec. 7.1: pre-check answers do not
    /// depend on the bound).
    syntax: Option<(Vec<u32>, Dfa)>,
    known: HashMap<Word, Known>,
    accepted: Vec<AcceptedConjecture>,
    /// The exactness of the last conjecture accepted.
    exactness: Option<Exactness>,
    /// Every word the pre-check admits at the current bounds has a known answer.
    complete: bool,
    /// The word of an execution the pre-check rejected, found by [`CbmcTeacher::prefetch`]:
    /// from then on only the words' shape is pre-checked.
    precheck_missed: Option<Word>,
    stats: TeacherStats,
    precheck_no: Cell<u64>,
    observer: Option<Observer<'p>>,
}

impl<'p> CbmcTeacher<'p> {
    /// A teacher for `program` at `bounds`; goto-cc will compile the program, in
    /// `work_dir`, when CBMC is first needed.
    pub fn new(
        program: &'p InstrumentedProgram,
        tools: Toolchain,
        work_dir: PathBuf,
        bounds: LearnBounds,
        options: TeacherOptions,
    ) -> CbmcTeacher<'p> {
        let mut teacher = CbmcTeacher {
            program,
            tools,
            work_dir,
            goto: None,
            counters: Arc::new(CbmcCounters::new()),
            options,
            bounds,
            allowed: Dfa::new(program.alphabet.clone()),
            syntax: None,
            known: HashMap::new(),
            accepted: Vec::new(),
            exactness: None,
            complete: false,
            precheck_missed: None,
            stats: TeacherStats::default(),
            precheck_no: Cell::new(0),
            observer: None,
        };
        teacher.set_bounds(bounds);
        teacher
    }

    /// Moves to other bounds. Known answers stay, and answer where they still hold (Sec.
    /// 7.1 of the paper: "yes" at a smaller unwinding, "no" at a larger one, either for
    /// words within the word-length bound).
    pub fn set_bounds(&mut self, bounds: LearnBounds) {
        self.bounds = bounds;
        self.exactness = None;
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

    pub fn bounds(&self) -> LearnBounds {
        self.bounds
    }

    /// Counts CBMC runs into `counters` (e.g. one shared with other teachers).
    pub fn with_counters(mut self, counters: Arc<CbmcCounters>) -> CbmcTeacher<'p> {
        self.counters = counters;
        self
    }

    /// Calls `observer` with the statistics whenever a query starts or ends (for a
    /// progress display).
    pub fn on_progress(&mut self, observer: impl FnMut(&TeacherStats) + 'p) {
        self.observer = Some(Box::new(observer));
    }

    /// The pre-check automaton at the current bounds (in the baseline: shape and length).
    pub fn precheck_automaton(&self) -> &Dfa {
        &self.allowed
    }

    /// The word of an execution the pre-check wrongly rejected, if the prefetch found one
    /// (a program that breaks one of the front end's assumptions, e.g. a function called
    /// through a pointer it cannot see); learning then did without the pre-check.
    pub fn precheck_missed(&self) -> Option<&Word> {
        self.precheck_missed.as_ref()
    }

    /// [`CbmcTeacher::precheck_missed`] as one line for the user.
    pub fn precheck_note(&self) -> Option<String> {
        self.precheck_missed.as_ref().map(|word| {
            format!(
                "the control-flow pre-check rejected [{}], which an execution has (code the front end cannot follow?); learned without the pre-check, which only costs time",
                self.program.alphabet.format_word(word)
            )
        })
    }

    /// How far the last accepted conjecture was checked; `None` before one was accepted at
    /// the current bounds.
    pub fn exactness(&self) -> Option<&Exactness> {
        self.exactness.as_ref()
    }

    pub fn stats(&self) -> TeacherStats {
        let mut stats = self.stats.clone();
        stats.precheck_no = self.precheck_no.get();
        stats.cbmc_runs = self.counters.runs();
        stats.cbmc_seconds = self.counters.seconds();
        stats
    }

    /// Adds answers from a store (or an earlier teacher of the same program).
    pub fn add_known(&mut self, stored: Stored) {
        for answer in stored.answers {
            let k = self.known.entry(answer.word).or_default();
            k.yes_from = min_option(k.yes_from, answer.yes_from);
            k.no_up_to = k.no_up_to.max(answer.no_up_to);
        }
        for accepted in stored.accepted {
            if !self.accepted.contains(&accepted) {
                self.accepted.push(accepted);
            }
        }
    }

    /// Everything the teacher knows, for the store: confirmed answers only.
    pub fn known(&self) -> Stored {
        Stored {
            answers: self
                .known
                .iter()
                .map(|(word, k)| StoredAnswer {
                    word: word.clone(),
                    yes_from: k.yes_from,
                    no_up_to: k.no_up_to,
                })
                .collect(),
            accepted: self.accepted.clone(),
        }
    }

    /// The known answers that hold at the current bounds, for seeding the learner's
    /// [`crate::learn::QueryCache`].
    pub fn answers_at_bounds(&self) -> Vec<(Word, bool)> {
        let unwind = self.bounds.cbmc().unwind;
        let mut out: Vec<(Word, bool)> = self
            .known
            .iter()
            .filter(|(w, _)| w.len() <= self.bounds.max_word_length)
            .filter_map(|(w, k)| k.at(unwind).map(|a| (w.clone(), a)))
            .collect();
        out.sort();
        out
    }

    fn lookup(&self, word: &[Letter]) -> Option<bool> {
        if word.len() > self.bounds.max_word_length {
            return None;
        }
        self.known
            .get(word)
            .and_then(|k| k.at(self.bounds.cbmc().unwind))
    }

    /// Records a confirmed answer at the current unwinding. CBMC is the authority: an
    /// earlier answer it contradicts (a stale store) gives way.
    fn record(&mut self, word: &[Letter], accepted: bool) {
        if !is_explanation_word(word, self.program.end) || word.len() > self.bounds.max_word_length
        {
            return; // answered by their shape; nothing worth remembering
        }
        let unwind = self.bounds.cbmc().unwind;
        let k = self.known.entry(word.to_vec()).or_default();
        if accepted {
            k.yes_from = min_option(k.yes_from, Some(unwind));
            if k.no_up_to.is_some_and(|n| n >= unwind) {
                k.no_up_to = None;
            }
        } else {
            k.no_up_to = k.no_up_to.max(Some(unwind));
            if k.yes_from.is_some_and(|y| y <= unwind) {
                k.yes_from = None;
            }
        }
    }

    fn notify(&mut self) {
        if self.observer.is_some() {
            let stats = self.stats();
            if let Some(observer) = self.observer.as_mut() {
                observer(&stats);
            }
        }
    }

    fn goto(&mut self) -> Result<&GotoProgram, CbmcTeacherError> {
        if self.goto.is_none() {
            let program =
                GotoProgram::compile(&self.tools, &self.program.paths, &[], &[], &self.work_dir)
                    .map_err(CbmcTeacherError::Compile)?
                    .with_entry(self.program.entry.clone())
                    .with_recursive_functions(self.program.recursive_functions())
                    .with_counters(Arc::clone(&self.counters));
            self.goto = Some(program);
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
            },
            source => CbmcTeacherError::Query {
                query,
                unwind,
                max_word_length,
                source,
            },
        }
    }

    /// One CBMC run over `words` (or, in the baseline, one per word).
    fn cbmc_membership(&mut self, words: &[Word]) -> Result<Vec<bool>, CbmcTeacherError> {
        let chunk = if self.options.baseline {
            1
        } else {
            self.options.batch_size.max(1)
        };
        let mut answers = Vec::with_capacity(words.len());
        for part in words.chunks(chunk) {
            self.stats.words_to_cbmc += part.len() as u64;
            self.notify();
            let (bounds, end, timeout) = self.query_settings();
            let result = self.goto()?.membership(part, bounds, end, timeout);
            let replies = result
                .map_err(|e| self.query_error(describe_words(&self.program.alphabet, part), e))?;
            for (word, &accepted) in part.iter().zip(&replies) {
                self.record(word, accepted);
            }
            answers.extend(replies);
        }
        self.notify();
        Ok(answers)
    }

    /// Answers, in one CBMC run, every word the pre-check automaton accepts that is not known
    /// yet, when there are at most [`TeacherOptions::batch_size`] of them; returns how many
    /// it asked. The language is a subset of those words (the pre-check is sound), so the
    /// learner then needs no membership query of CBMC at all, and the teacher no conjecture
    /// query: on small programs one batch replaces the rounds of guesses and checks of lazy
    /// learning and the conjecture queries. Nothing in the baseline.
    pub fn prefetch(&mut self) -> Result<usize, CbmcTeacherError> {
        if self.options.baseline {
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
            let (replies, missed) = result.map_err(|e| {
                self.query_error(describe_words(&self.program.alphabet, &unknown), e)
            })?;
            for (word, &accepted) in unknown.iter().zip(&replies) {
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

    /// The shortest known answer at the current bounds that `hypothesis` gets wrong.
    fn known_disagreement(&self, hypothesis: &Dfa) -> Option<Word> {
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
    fn known_accepted(&self, hypothesis: &Dfa) -> Vec<Word> {
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

    /// Checks every accepted word not known to be in the language, shortest first, up to
    /// `--exact-limit` words; returns the first that no execution has.
    fn exactness_pass(&mut self, hypothesis: &Dfa) -> Result<Option<Word>, CbmcTeacherError> {
        let max_len = self.bounds.max_word_length;
        let known = words_dfa(&self.program.alphabet, &self.known_accepted(hypothesis));
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

    /// How an equivalence query can be answered without CBMC, if it can, cheapest first: an
    /// accepted word outside the syntax automaton (in the baseline: of the wrong shape or
    /// too long), a known answer the hypothesis contradicts, a complete batch, a conjecture
    /// accepted at these bounds before. Changes nothing.
    fn shortcut(&self, hypothesis: &Dfa) -> Option<Shortcut> {
        if let Some(word) = analysis::shortest_accepted(&ops::difference(hypothesis, &self.allowed))
            .or_else(|| self.known_disagreement(hypothesis))
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
            })
            .map(|a| Shortcut::AcceptedBefore(a.exactness.clone()))
    }

    /// The answer of [`CbmcTeacher::shortcut`], counted.
    fn equivalence_without_cbmc(&mut self, hypothesis: &Dfa) -> Option<Equivalence> {
        let answer = match self.shortcut(hypothesis)? {
            Shortcut::Refuted(word) => {
                self.stats.conjectures_refuted_without_cbmc += 1;
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

    /// After the conjecture query: its feedback, or else the exactness pass's; the
    /// conjecture is accepted (and remembered for the store) when neither finds a word.
    fn conclude(
        &mut self,
        hypothesis: &Dfa,
        feedback: Option<Feedback>,
    ) -> Result<Equivalence, CbmcTeacherError> {
        if let Some(feedback) = feedback {
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
        self.notify();
        if let Some(answer) = self.equivalence_without_cbmc(hypothesis) {
            return Ok(answer);
        }
        let known = self.known_accepted(hypothesis);
        self.stats.conjectures_to_cbmc += 1;
        let (bounds, end, timeout) = self.query_settings();
        let result = self
            .goto()?
            .conjecture(hypothesis, bounds, end, &known, timeout);
        self.notify();
        let feedback =
            result.map_err(|e| self.query_error(describe_conjecture(hypothesis, &[]), e))?;
        self.conclude(hypothesis, feedback)
    }

    /// The words of a membership query that need no CBMC answered (their shape, their
    /// length, known answers); returns the answers and the positions of the rest.
    fn answers_without_cbmc(&mut self, words: &[Word]) -> (Vec<Option<bool>>, Vec<usize>) {
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
            } else {
                ask.push(i);
            }
        }
        (answers, ask)
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
        let together =
            !ask.is_empty() && !self.options.baseline && self.shortcut(hypothesis).is_none();
        let feedback = if together {
            let batch: Vec<Word> = ask.iter().map(|&i| words[i].clone()).collect();
            self.stats.conjectures += 1;
            self.stats.conjectures_to_cbmc += 1;
            self.stats.words_to_cbmc += batch.len() as u64;
            self.notify();
            let known = self.known_accepted(hypothesis);
            let (bounds, end, timeout) = self.query_settings();
            let result = self
                .goto()?
                .conjecture_and_membership(hypothesis, bounds, end, &known, &batch, timeout);
            self.notify();
            let (feedback, replies) =
                result.map_err(|e| self.query_error(describe_conjecture(hypothesis, &batch), e))?;
            for (word, &accepted) in batch.iter().zip(&replies) {
                self.record(word, accepted);
            }
            for (&i, reply) in ask.iter().zip(replies) {
                answers[i] = Some(reply);
            }
            Some(feedback)
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

fn min_option(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
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
        teacher.allowed = words_dfa(&program.alphabet, &[word("funcA end")]);
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
