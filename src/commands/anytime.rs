//! Anytime learning for the commands: the time budget and Ctrl-C ([`start`]; the signals
//! themselves in [`super::signals`]) and the warning of a run stopped early ([`warn`]; what
//! it keeps is [`mergelens::language::Partial`]). Progress on standard error is
//! [`super::progress`].
//!
//! A stopped run writes the learner's last conjecture built on confirmed answers, marked
//! `partial` in its JSON with the length up to which it agrees with every known answer
//! (`exact_up_to`). `--time-budget` and Ctrl-C end with exit code 0 and a warning: the
//! user asked for what there is. In a run with `--time-budget`, a query over
//! `--query-timeout` also writes the partial result but stays an error (exit code 4):
//! nobody asked the run to stop there. Without `--time-budget` a query timeout is the
//! plain error it always was (exit code 4, nothing written), as scripts rely on.

use std::time::Duration;

use mergelens::language::{Partial, PartialCause};
use mergelens::stop::{self, StopReason};

/// The warning of a partial result; with a query timeout the error follows it.
pub(crate) fn warn(partial: &Partial, what: &str) {
    let hint = match partial.cause {
        PartialCause::Stopped(StopReason::TimeBudget) if partial.allocation_failures => {
            "; where CBMC's queries take the time, leaving out the executions in which an allocation fails (--allocations succeed) can make them many times cheaper"
        }
        _ => "",
    };
    errln!(
        "mergelens: warning: {what} stopped early ({}): wrote the last conjecture, marked partial, exact up to length {}{hint}",
        match partial.cause {
            PartialCause::Stopped(reason) => reason.to_string(),
            PartialCause::QueryTimeout => "a CBMC query timed out".to_string(),
        },
        partial.exact_up_to
    );
}

/// Starts the clock of `--time-budget` and makes Ctrl-C stop learning (a second Ctrl-C
/// ends the process at once, exit code 130).
pub(crate) fn start(budget: Option<Duration>) {
    if let Some(budget) = budget {
        stop::set_time_budget(budget);
    }
    super::signals::install();
}
