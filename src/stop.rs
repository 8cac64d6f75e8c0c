//! Stopping a long run early and keeping what it learned: the process-wide stop request
//! (Ctrl-C) and time budget (`--time-budget`) that every CBMC run obeys.
//!
//! Key items: [`StopReason`], [`request_stop`], [`set_time_budget`] and [`stop_reason`].
//!
//! Process-wide because a signal is: the binary's SIGINT handler can only store a flag, and
//! every run of gcc, goto-cc and CBMC in the process ([`crate::process::run_bounded`]), whichever teacher started it, must end at the budget. A
//! run that starts after the stop does not start; one under way is killed within a tenth of
//! a second. The teacher turns either into [`crate::cbmc::CbmcTeacherError::Stopped`], and the
//! commands keep the last conjecture as a partial result.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

static STOP: AtomicBool = AtomicBool::new(false);
static DEADLINE: Mutex<Option<Instant>> = Mutex::new(None);

/// Why a run stopped before its learning finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The user interrupted the run (SIGINT, Ctrl-C).
    Interrupted,
    /// `--time-budget` ran out.
    TimeBudget,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Interrupted => "interrupted",
            StopReason::TimeBudget => "the time budget ran out",
        })
    }
}

/// Asks every CBMC run of the process to stop. Only stores a flag, so a signal handler may
/// call it.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// Whether [`request_stop`] was called.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// From `budget` after now, no CBMC run starts and those under way are killed.
pub fn set_time_budget(budget: Duration) {
    let deadline = Instant::now().checked_add(budget);
    *DEADLINE.lock().unwrap_or_else(|e| e.into_inner()) = deadline;
}

/// The time budget's deadline, if one was set.
pub fn deadline() -> Option<Instant> {
    *DEADLINE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why runs must stop now, if they must.
pub fn stop_reason() -> Option<StopReason> {
    if stop_requested() {
        Some(StopReason::Interrupted)
    } else if deadline().is_some_and(|d| Instant::now() >= d) {
        Some(StopReason::TimeBudget)
    } else {
        None
    }
}
