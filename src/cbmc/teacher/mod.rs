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
//!
//! The code is split the same way: `policy` decides (the bounds, the options, what the
//! pre-check admits at each bound, which answers known so far still hold, and which queries
//! can be answered without CBMC), `queries` runs CBMC for the rest and implements
//! [`crate::learn::Teacher`]. This module holds the teacher's state and what it reports.

mod bounds;
mod concrete;
mod pac;
mod policy;
mod queries;
mod sampling;

use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use thiserror::Error;

use super::cache_store::{AcceptedConjecture, Exactness, LoopCheck, Stored, StoredAnswer};
use super::error::CbmcRunError;
use super::language::is_explanation_word;
use super::locate::Toolchain;
use super::program::GotoProgram;
use super::run::CbmcCounters;
use crate::automaton::{Dfa, Letter, Word};
use crate::cprog::InstrumentedProgram;
use crate::failure::{FailureKind, HasKind};
use crate::stop::StopReason;
pub use bounds::{DEFAULT_EXACT_LIMIT, LearnBounds, MEMBERSHIP_BATCH, TeacherOptions};
use bounds::{Known, min_option};
pub use sampling::{ConcreteBuilder, Pac, PacResult};

/// What the teacher's queries cost, over all bounds it was used with.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TeacherStats {
    /// Words the pre-check answered "no" (the learner asks it before anything else).
    pub precheck_no: u64,
    /// Words of membership batches.
    pub membership_words: u64,
    /// Membership batches that ran past the query timeout or the memory limit and were
    /// split in halves and asked again.
    pub batches_split: u64,
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
    /// The states of the last conjecture built on confirmed answers (for progress lines).
    pub conjecture_states: u64,
    /// CBMC runs and their wall time, from the program's [`CbmcCounters`].
    pub cbmc_runs: u64,
    pub cbmc_seconds: f64,
    /// Membership answers and positive conjecture halves read from a formula CBMC wrote
    /// once per bounds and a SAT solver kept, with no CBMC run of their own
    /// ([`crate::cbmc::GotoProgram::with_kept_formulas`]).
    pub formula_answers: u64,
    /// Whether concrete runs answered (`--concrete-runs`, see [`crate::cbmc::concrete`]).
    pub concrete: bool,
    /// Why there were no concrete runs, when they were asked for.
    pub concrete_note: Option<String>,
    pub concrete_runs: u64,
    /// Concrete runs that gave no word (an exit, a crash, a failed assumption, a timeout).
    pub concrete_discarded: u64,
    /// Distinct words of concrete runs.
    pub concrete_words: u64,
    /// Membership words answered "yes" by a concrete run, without CBMC.
    pub from_concrete: u64,
    /// Conjectures refuted by a concrete word they reject, without CBMC.
    pub concrete_counterexamples: u64,
    /// Samples of PAC equivalence queries (`--mode pac`), and the conjectures they refuted.
    pub pac_samples: u64,
    pub pac_counterexamples: u64,
}

/// Why the teacher could not answer. Each variant prints as one line.
#[derive(Debug, Error)]
pub enum CbmcTeacherError {
    /// goto-cc rejected the instrumented program (a `file:line` of the user's source).
    #[error(transparent)]
    Compile(CbmcRunError),
    /// A CBMC run took longer than the query timeout.
    #[error(
        "CBMC timed out after {seconds:.1} s on {query} at --unwind {unwind} --max-word-length {max_word_length}; raise --query-timeout or lower the bounds{hint}"
    )]
    Timeout {
        query: String,
        seconds: f64,
        unwind: u32,
        max_word_length: usize,
        /// One more remedy where one may apply (`--allocations succeed`), else empty.
        hint: &'static str,
    },
    /// The run was stopped (Ctrl-C, `--time-budget`) before the query was answered: the
    /// commands keep [`CbmcTeacher::last_conjecture`] as a partial result.
    #[error("learning stopped before it finished: {reason}")]
    Stopped { reason: StopReason },
    /// CBMC said "no" to a word a concrete run had: gcc and CBMC read the program
    /// differently. Nothing learned from that answer is returned.
    #[error(
        "a concrete run had the word [{word}], which CBMC says no execution within the bounds has (gcc and CBMC read the program differently); run again with --concrete-runs 0"
    )]
    ConcreteDisagrees { word: String },
    /// CBMC failed on a query: it crashed, reported an error, or its output was unreadable.
    #[error("{query} at --unwind {unwind} --max-word-length {max_word_length}")]
    Query {
        query: String,
        unwind: u32,
        max_word_length: usize,
        #[source]
        source: CbmcRunError,
    },
}

impl CbmcTeacherError {
    /// The same error with the paths under `root` made relative to it
    /// ([`CbmcRunError::relative_to`]).
    pub fn relative_to(self, root: &std::path::Path) -> CbmcTeacherError {
        match self {
            CbmcTeacherError::Compile(e) => CbmcTeacherError::Compile(e.relative_to(root)),
            CbmcTeacherError::Query {
                query,
                unwind,
                max_word_length,
                source,
            } => CbmcTeacherError::Query {
                query,
                unwind,
                max_word_length,
                source: source.relative_to(root),
            },
            other => other,
        }
    }
}

impl HasKind for CbmcTeacherError {
    /// The program is to blame when it does not compile or CBMC rejects it
    /// ([`CbmcRunError`]'s kind); a timeout, a stop or a disagreement is the run's.
    fn kind(&self) -> FailureKind {
        match self {
            CbmcTeacherError::Compile(e) | CbmcTeacherError::Query { source: e, .. } => e.kind(),
            CbmcTeacherError::Timeout { .. }
            | CbmcTeacherError::Stopped { .. }
            | CbmcTeacherError::ConcreteDisagrees { .. } => FailureKind::Failed,
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
    /// Whether the unwinding cut a loop, by bounds (the store's and this run's).
    loop_checks: Vec<LoopCheck>,
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
    /// The last conjecture built from confirmed answers: what a stopped run returns.
    last_conjecture: Option<Dfa>,
    /// The words of concrete runs, if any (`concrete`).
    concrete: Option<sampling::ConcreteWords<'p>>,
    /// PAC equivalence instead of the conjecture query (`pac`), its queries so far, and
    /// the guarantee of the last conjecture it accepted.
    pac: Option<Pac>,
    pac_queries: u64,
    pac_result: Option<PacResult>,
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
            loop_checks: Vec::new(),
            exactness: None,
            complete: false,
            precheck_missed: None,
            stats: TeacherStats::default(),
            precheck_no: Cell::new(0),
            observer: None,
            last_conjecture: None,
            concrete: None,
            pac: None,
            pac_queries: 0,
            pac_result: None,
        };
        teacher.set_bounds(bounds);
        teacher
    }

    pub fn bounds(&self) -> LearnBounds {
        self.bounds
    }

    /// Whether every word the pre-check admits at the current bounds has a known answer
    /// ([`CbmcTeacher::prefetch`]).
    pub fn is_complete(&self) -> bool {
        self.complete
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

    /// How often the library's loops were unwound at the current bounds, once the test of
    /// them ran ([`GotoProgram::tested_library_unwind`]).
    pub fn tested_library_unwind(&self) -> Option<u32> {
        self.goto
            .as_ref()?
            .tested_library_unwind(self.bounds.cbmc())
    }

    /// The `--object-bits` CBMC needed for this program, when its default was too few;
    /// said in a note, since it changes nothing but what CBMC can handle.
    pub fn object_bits(&self) -> Option<u32> {
        self.goto.as_ref().and_then(GotoProgram::object_bits)
    }

    /// The last conjecture the learner asked about with only confirmed answers behind it
    /// (any bounds), for a run stopped before learning finished; `None` before the first.
    pub fn last_conjecture(&self) -> Option<&Dfa> {
        self.last_conjecture.as_ref()
    }

    /// The longest length up to which `dfa` is known to be right at the current bounds:
    /// every word of at most that many letters is either rejected by the pre-check (and by
    /// `dfa`) or has a known answer that `dfa` agrees with. What a partial result can claim.
    pub fn agrees_up_to(&self, dfa: &Dfa) -> usize {
        // Words the pre-check admits or `dfa` accepts: every other word is "no" on both.
        let either = crate::automaton::ops::union(&self.allowed, dfa);
        // As far as the words can be listed in reasonable time.
        const LIMIT: u128 = 200_000;
        let max = (0..=self.bounds.max_word_length)
            .take_while(|&n| {
                crate::automaton::analysis::count_up_to(&either, n).is_some_and(|c| c <= LIMIT)
            })
            .last();
        let Some(max) = max else {
            return 0;
        };
        let Ok(words) = crate::automaton::analysis::words_up_to(&either, max, LIMIT as u64) else {
            return 0;
        };
        let mut first_wrong = max + 1;
        for word in words {
            let right = if self.allowed.accepts(&word) {
                self.lookup(&word)
            } else {
                Some(false)
            };
            if right != Some(dfa.accepts(&word)) {
                first_wrong = first_wrong.min(word.len());
            }
        }
        first_wrong.saturating_sub(1)
    }

    pub fn stats(&self) -> TeacherStats {
        let mut stats = self.stats.clone();
        stats.precheck_no = self.precheck_no.get();
        stats.cbmc_runs = self.counters.runs();
        stats.cbmc_seconds = self.counters.seconds();
        stats.formula_answers = self.counters.formula_answers();
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
        for check in stored.loop_checks {
            if !self.loop_checks.contains(&check) {
                self.loop_checks.push(check);
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
            loop_checks: self.loop_checks.clone(),
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
}
