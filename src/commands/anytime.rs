//! Anytime learning for the commands: the time budget and Ctrl-C ([`start`]; the signals
//! themselves in [`super::signals`]) and what a run stopped early keeps ([`Partial`],
//! [`partial_cause`]). Progress on standard error is [`super::progress`].
//!
//! A stopped run writes the learner's last conjecture built on confirmed answers, marked
//! `partial` in its JSON with the length up to which it agrees with every known answer
//! (`exact_up_to`). `--time-budget` and Ctrl-C end with exit code 0 and a warning: the
//! user asked for what there is. In a run with `--time-budget`, a query over
//! `--query-timeout` also writes the partial result but stays an error (exit code 4):
//! nobody asked the run to stop there. Without `--time-budget` a query timeout is the
//! plain error it always was (exit code 4, nothing written), as scripts rely on.

use std::time::Duration;

use mergelens::cbmc::CbmcTeacherError;
use mergelens::learn::LearnError;
use mergelens::stop::{self, StopReason};

/// Why a run ended with a partial result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PartialCause {
    Stopped(StopReason),
    /// One CBMC query took longer than `--query-timeout`.
    QueryTimeout,
}

impl PartialCause {
    /// The JSON's `stopped` value.
    pub(crate) fn key(self) -> &'static str {
        match self {
            PartialCause::Stopped(StopReason::Interrupted) => "interrupted",
            PartialCause::Stopped(StopReason::TimeBudget | StopReason::ShareSpent) => "time-budget",
            PartialCause::QueryTimeout => "query-timeout",
        }
    }
}

/// What a stopped run keeps besides its conjecture.
pub(crate) struct Partial {
    pub cause: PartialCause,
    /// Every word of at most this many letters is classified as the known answers say.
    pub exact_up_to: usize,
    /// The error that stopped the run (returned after the output for a query timeout).
    pub error: anyhow::Error,
    /// The program allocates and allocations may fail
    /// ([`mergelens::cbmc::CbmcTeacher::explores_allocation_failures`]): a stop at the
    /// time budget names `--allocations succeed` (a query timeout's error already does).
    pub allocation_failures: bool,
}

impl Partial {
    /// The warning of a partial result; with a query timeout the error follows it.
    pub(crate) fn warn(&self, what: &str) {
        let hint = match self.cause {
            PartialCause::Stopped(StopReason::TimeBudget) if self.allocation_failures => {
                "; where CBMC's queries take the time, leaving out the executions in which an allocation fails (--allocations succeed) can make them many times cheaper"
            }
            _ => "",
        };
        errln!(
            "mergelens: warning: {what} stopped early ({}): wrote the last conjecture, marked partial, exact up to length {}{hint}",
            match self.cause {
                PartialCause::Stopped(reason) => reason.to_string(),
                PartialCause::QueryTimeout => "a CBMC query timed out".to_string(),
            },
            self.exact_up_to
        );
    }

    /// After the output is written: a stop the user asked for is success, a query timeout
    /// stays an error.
    pub(crate) fn finish(self) -> anyhow::Result<()> {
        match self.cause {
            PartialCause::QueryTimeout => Err(self.error),
            PartialCause::Stopped(_) => Ok(()),
        }
    }
}

/// Whether `error` ended learning in a way that keeps a partial result. A query timeout
/// does only in an anytime run (`anytime`: `--time-budget` given); otherwise it stays the
/// plain error it always was, with nothing written.
pub(crate) fn partial_cause(error: &anyhow::Error, anytime: bool) -> Option<PartialCause> {
    error.chain().find_map(|e| {
        // A stop met in mergelens's own loops rather than in a CBMC run.
        if let Some(stop::Stopped(reason)) = e.downcast_ref::<stop::Stopped>() {
            return Some(PartialCause::Stopped(*reason));
        }
        if let Some(LearnError::Stopped(stop::Stopped(reason))) = e.downcast_ref::<LearnError>() {
            return Some(PartialCause::Stopped(*reason));
        }
        match e.downcast_ref::<CbmcTeacherError>()? {
            CbmcTeacherError::Stopped { reason } => Some(PartialCause::Stopped(*reason)),
            CbmcTeacherError::Timeout { .. } if anytime => Some(PartialCause::QueryTimeout),
            _ => None,
        }
    })
}

/// Starts the clock of `--time-budget` and makes Ctrl-C stop learning (a second Ctrl-C
/// ends the process at once, exit code 130).
pub(crate) fn start(budget: Option<Duration>) {
    if let Some(budget) = budget {
        stop::set_time_budget(budget);
    }
    super::signals::install();
}
