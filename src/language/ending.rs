//! How a learning run ended: finished, or stopped early with a partial result ([`Partial`],
//! [`partial_cause`]); [`Ending`] and the keys of the JSON output that `learn` and `explain`
//! share ([`LearnedKeys`]).
//!
//! A stopped run keeps the learner's last conjecture built on confirmed answers, marked
//! `partial` with the length up to which it agrees with every known answer
//! (`exact_up_to`). A stop the user asked for (`--time-budget`, Ctrl-C) is success once the
//! result is out; in a run with a time budget, a query over the query timeout keeps the
//! partial result too but stays an error ([`Partial::finish`]): nobody asked the run to stop
//! there. Without a time budget a query timeout is the plain error it always was.

use serde::Serialize;

use super::error::LanguageError;
use crate::automaton::{Dfa, Letter, Marks, StateId};
use crate::cbmc::cache_store::Exactness;
use crate::cbmc::{CbmcTeacherError, LearnBounds, PacResult};
use crate::cprog::{FrontEndWarning, InstrumentedProgram};
use crate::document::Concise;
use crate::learn::{LearnError, LearnStats};
use crate::stop::{self, StopReason};

/// Why a run ended with a partial result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialCause {
    Stopped(StopReason),
    /// One CBMC query took longer than the query timeout.
    QueryTimeout,
}

impl PartialCause {
    /// The JSON's `stopped` value.
    pub fn key(self) -> &'static str {
        match self {
            PartialCause::Stopped(StopReason::Interrupted) => "interrupted",
            PartialCause::Stopped(StopReason::TimeBudget | StopReason::ShareSpent) => "time-budget",
            PartialCause::QueryTimeout => "query-timeout",
        }
    }
}

/// What a stopped run keeps besides its conjecture.
#[derive(Debug)]
pub struct Partial {
    pub cause: PartialCause,
    /// Every word of at most this many letters is classified as the known answers say.
    pub exact_up_to: usize,
    /// The error that stopped the run (returned after the output for a query timeout).
    pub error: LanguageError,
    /// The program allocates and allocations may fail
    /// ([`crate::cbmc::CbmcTeacher::explores_allocation_failures`]): a stop at the time
    /// budget may name `--allocations succeed` (a query timeout's error already does).
    pub allocation_failures: bool,
}

impl Partial {
    /// After the output is written: a stop the user asked for is success, a query timeout
    /// stays an error.
    pub fn finish(self) -> Result<(), LanguageError> {
        match self.cause {
            PartialCause::QueryTimeout => Err(self.error),
            PartialCause::Stopped(_) => Ok(()),
        }
    }
}

/// Whether `error` ended learning in a way that keeps a partial result. A query timeout
/// does only in an anytime run (`anytime`: a time budget given); otherwise it stays the
/// plain error it always was, with nothing written.
pub fn partial_cause(error: &LanguageError, anytime: bool) -> Option<PartialCause> {
    let of_teacher = |e: &CbmcTeacherError| match e {
        CbmcTeacherError::Stopped { reason } => Some(PartialCause::Stopped(*reason)),
        CbmcTeacherError::Timeout { .. } if anytime => Some(PartialCause::QueryTimeout),
        _ => None,
    };
    let direct = match error {
        LanguageError::Teacher(e) => of_teacher(e),
        _ => None,
    };
    if direct.is_some() {
        return direct;
    }
    // A transparent variant is not in the chain itself, only what it wraps.
    let mut next: Option<&(dyn std::error::Error + 'static)> = match error {
        LanguageError::OtherTeacher(boxed) => Some(&**boxed),
        other => Some(other),
    };
    while let Some(e) = next {
        // A stop met in mergelens's own loops rather than in a CBMC run.
        if let Some(stop::Stopped(reason)) = e.downcast_ref::<stop::Stopped>() {
            return Some(PartialCause::Stopped(*reason));
        }
        if let Some(LearnError::Stopped(stop::Stopped(reason))) = e.downcast_ref::<LearnError>() {
            return Some(PartialCause::Stopped(*reason));
        }
        if let Some(cause) = e.downcast_ref::<CbmcTeacherError>().and_then(of_teacher) {
            return Some(cause);
        }
        next = e.source();
    }
    None
}

/// How a learning run ended, as `learn` and `explain` both hold it.
pub struct Ending<'a> {
    pub bounds: LearnBounds,
    pub partial: Option<&'a Partial>,
    pub exactness: Option<&'a Exactness>,
    /// A PAC result's guarantee and the length up to which known answers back it.
    pub pac: Option<&'a (PacResult, usize)>,
}

impl<'a> Ending<'a> {
    /// How a run at `bounds` ended, from the parts a run keeps.
    pub fn of(
        bounds: LearnBounds,
        partial: &'a Option<Partial>,
        exactness: &'a Option<Exactness>,
        pac: &'a Option<(PacResult, usize)>,
    ) -> Self {
        Ending {
            bounds,
            partial: partial.as_ref(),
            exactness: exactness.as_ref(),
            pac: pac.as_ref(),
        }
    }
}

/// The keys the `learned` object of `learn` and the `explained` object of `explain` share
/// (docs/formats.md): the bounds, how far the automaton is exact, the marks of the paper's
/// Sec. 7.2, and what else was found.
#[derive(Serialize)]
pub struct LearnedKeys<'a> {
    unwind: u32,
    max_word_length: usize,
    cbmc_unwind: u32,
    /// Every accepted word of at most this many letters is the word of an execution.
    exact_up_to: usize,
    /// Learning stopped before it finished (`stopped` says why): the automaton is the last
    /// conjecture, right on the words up to `exact_up_to` letters.
    partial: bool,
    stopped: Option<&'static str>,
    dominating: Vec<&'a str>,
    doomed: &'a [StateId],
    /// The concise automaton (`--exact` leaves it out): see `language::concise`.
    #[serde(skip_serializing_if = "Option::is_none")]
    concise: Option<&'a Concise>,
    /// `--mode pac`: the result is probably approximately correct, not exact; the guarantee.
    #[serde(skip_serializing_if = "Option::is_none")]
    pac: Option<&'a PacResult>,
    /// What the front end could not see through, each with its kind: the terminal counts
    /// them unless `--verbose`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    front_end_warnings: &'a [FrontEndWarning],
}

impl<'a> LearnedKeys<'a> {
    /// The keys of `dfa`, learned as `ending` says, with its `marks`; a dominating letter in
    /// `unsaid` is left out (for `explain`, `assert` ends every failing word: naming it
    /// would say nothing).
    pub fn new(
        ending: &Ending<'a>,
        dfa: &'a Dfa,
        marks: &'a Marks,
        unsaid: Option<Letter>,
        concise: Option<&'a Concise>,
        program: &'a InstrumentedProgram,
    ) -> Self {
        let bounds = ending.bounds;
        LearnedKeys {
            unwind: bounds.unwind,
            max_word_length: bounds.max_word_length,
            cbmc_unwind: bounds.cbmc().unwind,
            exact_up_to: match (ending.partial, ending.pac) {
                (Some(p), _) => p.exact_up_to,
                (None, Some((_, known))) => *known,
                (None, None) => ending
                    .exactness
                    .map_or(bounds.max_word_length, |e| e.exact_up_to),
            },
            partial: ending.partial.is_some(),
            stopped: ending.partial.map(|p| p.cause.key()),
            dominating: marks
                .dominating
                .iter()
                .filter(|&&a| Some(a) != unsaid)
                .map(|&a| dfa.alphabet().name(a))
                .collect(),
            doomed: &marks.doomed,
            concise,
            pac: ending.pac.map(|(p, _)| p),
            front_end_warnings: &program.warnings,
        }
    }
}

/// Adds a run's statistics to the total of a bounds search; sizes are the last run's.
pub fn add_stats(total: &mut LearnStats, run: &LearnStats) {
    total.cex.clone_from(&run.cex);
    total.guess.clone_from(&run.guess);
    total.letters = run.letters;
    total.membership_queries += run.membership_queries;
    total.from_cache += run.from_cache;
    total.from_precheck += run.from_precheck;
    total.from_guess += run.from_guess;
    total.from_teacher += run.from_teacher;
    total.from_concrete += run.from_concrete;
    total.teacher_batches += run.teacher_batches;
    total.guesses_confirmed += run.guesses_confirmed;
    total.guesses_wrong += run.guesses_wrong;
    total.guessing_stopped |= run.guessing_stopped;
    total.equivalence_queries += run.equivalence_queries;
    total.free_counterexamples += run.free_counterexamples;
    total.restarts += run.restarts;
    total.states = run.states;
    total.columns = run.columns;
    total.rows = run.rows;
    total.wall_seconds += run.wall_seconds;
    total.teacher_seconds += run.teacher_seconds;
    total.finish_accuracy();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::{FailureKind, HasKind};

    fn timeout() -> LanguageError {
        LanguageError::Teacher(CbmcTeacherError::Timeout {
            query: "membership".into(),
            seconds: 1.0,
            unwind: 2,
            max_word_length: 8,
            hint: "",
        })
    }

    #[test]
    fn a_stop_keeps_a_partial_result_and_a_timeout_only_in_an_anytime_run() {
        let stopped = LanguageError::Teacher(CbmcTeacherError::Stopped {
            reason: StopReason::TimeBudget,
        });
        let cause = partial_cause(&stopped, false);
        assert_eq!(cause, Some(PartialCause::Stopped(StopReason::TimeBudget)));
        assert_eq!(cause.map(PartialCause::key), Some("time-budget"));
        assert_eq!(partial_cause(&timeout(), false), None);
        assert_eq!(
            partial_cause(&timeout(), true),
            Some(PartialCause::QueryTimeout)
        );
        let learner = LanguageError::Learn {
            doing: "learning `main`".into(),
            source: LearnError::Stopped(stop::Stopped(StopReason::Interrupted)),
        };
        assert_eq!(
            partial_cause(&learner, false),
            Some(PartialCause::Stopped(StopReason::Interrupted))
        );
        let other = LanguageError::Learn {
            doing: "learning `main`".into(),
            source: LearnError::TooManyStates { limit: 3 },
        };
        assert_eq!(partial_cause(&other, true), None);
    }

    #[test]
    fn a_stopped_run_succeeds_unless_a_query_timed_out() {
        let partial = |cause| Partial {
            cause,
            exact_up_to: 2,
            error: timeout(),
            allocation_failures: false,
        };
        let asked = partial(PartialCause::Stopped(StopReason::Interrupted));
        assert!(asked.finish().is_ok());
        let error = partial(PartialCause::QueryTimeout).finish().unwrap_err();
        assert_eq!(error.kind(), FailureKind::Failed);
        assert_eq!(error.to_string(), timeout().to_string());
    }

    #[test]
    fn the_learners_error_says_the_run_then_its_cause_once() {
        let error = LanguageError::Learn {
            doing: "learning `main` at --unwind 1 --max-word-length 4".into(),
            source: LearnError::WrongGuessRate(2.0),
        };
        assert_eq!(
            crate::failure::text(&error),
            "learning `main` at --unwind 1 --max-word-length 4: the wrong-guess rate must be between 0 and 1, not 2"
        );
        assert_eq!(error.kind(), FailureKind::BadInput);
    }
}
