//! Stopping a long run early and keeping what it learned: the process-wide stop request
//! (Ctrl-C) and time budget (`--time-budget`) that every CBMC run obeys.
//!
//! Key items: [`StopReason`], [`request_stop`], [`set_time_budget`], [`stop_reason`] and
//! [`check`] (with its error, [`Stopped`]), which mergelens's own long loops (the pre-check's
//! subset construction, the front end's walks, the learner's table filling and
//! counterexample processing, the concise automaton's SAT search) call so that a stop holds
//! where no tool run is in flight.
//!
//! Process-wide because a signal is: the binary's SIGINT handler can only store a flag, and
//! every run of gcc, goto-cc and CBMC in the process ([`crate::process::run_bounded`]), whichever teacher started it, must end at the budget. A
//! run that starts after the stop does not start; one under way is killed within a tenth of
//! a second. The teacher turns either into [`crate::cbmc::CbmcTeacherError::Stopped`], and the
//! commands keep the last conjecture as a partial result.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

static STOP: AtomicBool = AtomicBool::new(false);
/// The deadline in nanoseconds after [`epoch`], plus one; 0 for none. An atomic rather than a
/// lock: [`stop_reason`] is asked inside tight loops, from many threads.
static DEADLINE: AtomicU64 = AtomicU64::new(0);
/// The end of the current share of the budget ([`Share`]), in [`DEADLINE`]'s units.
static SHARE_DEADLINE: AtomicU64 = AtomicU64::new(0);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Why a run stopped before its learning finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    /// The user interrupted the run (SIGINT, Ctrl-C).
    Interrupted,
    /// `--time-budget` ran out.
    TimeBudget,
    /// The share of the time budget one part of the run was given ([`Share`]) ran out; the
    /// run goes on with the next part.
    ShareSpent,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StopReason::Interrupted => "interrupted",
            StopReason::TimeBudget => "the time budget ran out",
            StopReason::ShareSpent => "its share of the time budget ran out",
        })
    }
}

/// Asks every CBMC run of the process to stop. Only stores a flag, so a signal handler may
/// call it.
pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

/// The flag [`request_stop`] sets, for a signal handler to set itself
/// (`signal_hook::flag::register` in the binary).
pub fn stop_flag() -> &'static AtomicBool {
    &STOP
}

/// Whether [`request_stop`] was called.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::SeqCst)
}

/// From `budget` after now, no CBMC run starts and those under way are killed.
pub fn set_time_budget(budget: Duration) {
    // A budget past what 64 bits of nanoseconds hold (584 years) is no budget.
    DEADLINE.store(nanos_from_now(budget), Ordering::SeqCst);
}

/// Nanoseconds after [`epoch`] plus one, `duration` from now; 0 (none) past 64 bits.
fn nanos_from_now(duration: Duration) -> u64 {
    let since = epoch().elapsed().saturating_add(duration);
    u64::try_from(since.as_nanos()).map_or(0, |n| n.saturating_add(1))
}

/// One part of a run given a share of the time budget: until it is dropped, runs stop
/// ([`StopReason::ShareSpent`]) once `share` has passed, so that one slow part (one changed
/// function of a review) cannot spend the time of the parts after it. Parts run one after
/// another; a share never outlasts the budget itself.
#[must_use]
pub struct Share(());

impl Share {
    pub fn start(share: Duration) -> Share {
        SHARE_DEADLINE.store(nanos_from_now(share), Ordering::SeqCst);
        Share(())
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        SHARE_DEADLINE.store(0, Ordering::SeqCst);
    }
}

/// The time budget's deadline, if one was set.
pub fn deadline() -> Option<Instant> {
    match DEADLINE.load(Ordering::SeqCst) {
        0 => None,
        n => epoch().checked_add(Duration::from_nanos(n - 1)),
    }
}

/// Why runs must stop now, if they must.
pub fn stop_reason() -> Option<StopReason> {
    if stop_requested() {
        Some(StopReason::Interrupted)
    } else if deadline().is_some_and(|d| Instant::now() >= d) {
        Some(StopReason::TimeBudget)
    } else {
        match SHARE_DEADLINE.load(Ordering::SeqCst) {
            0 => None,
            n => epoch()
                .checked_add(Duration::from_nanos(n - 1))
                .is_some_and(|d| Instant::now() >= d)
                .then_some(StopReason::ShareSpent),
        }
    }
}

/// A loop of mergelens's own stopped at a stop request or the time budget: the caller keeps
/// what it has, marked partial, as for a tool run that was stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("stopped: {0}")]
pub struct Stopped(pub StopReason);

/// `Err` once runs must stop ([`stop_reason`]). Cheap (two atomic loads and a clock read),
/// so long loops call it every iteration or every few.
pub fn check() -> Result<(), Stopped> {
    stop_reason().map_or(Ok(()), |reason| Err(Stopped(reason)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deadline_reads_back_and_a_huge_budget_is_none() {
        // The process-wide state is shared with other tests: only a budget far away is set.
        set_time_budget(Duration::from_secs(3600));
        let d = deadline().expect("a deadline");
        let left = d.saturating_duration_since(Instant::now());
        assert!(left > Duration::from_secs(3590) && left <= Duration::from_secs(3600));
        assert!(check().is_ok() || stop_requested());
        set_time_budget(Duration::MAX);
        assert_eq!(deadline(), None);
    }
}
