//! Anytime learning for the commands: the time budget and Ctrl-C ([`start`]), what a run
//! stopped early keeps ([`Partial`], [`partial_cause`]), and progress on standard error with
//! or without a terminal ([`Progress`]).
//!
//! A stopped run writes the learner's last conjecture built on confirmed answers, marked
//! `partial` in its JSON with the length up to which it agrees with every known answer
//! (`exact_up_to`). `--time-budget` and Ctrl-C end with exit code 0 and a warning: the
//! user asked for what there is. In a run with `--time-budget`, a query over
//! `--query-timeout` also writes the partial result but stays an error (exit code 4):
//! nobody asked the run to stop there. Without `--time-budget` a query timeout is the
//! plain error it always was (exit code 4, nothing written), as scripts rely on.
//!
//! Progress: on a terminal, an indicatif spinner line; otherwise (CI logs, hooks) one plain
//! line every few seconds (`MERGELENS_PROGRESS_SECS`, default 3) with the phase, the time,
//! the CBMC runs and the states of the last conjecture.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mergelens::cbmc::{CbmcTeacherError, TeacherStats};
use mergelens::learn::LearnError;
use mergelens::stop::{self, StopReason};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::flag;

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
    install_sigint();
}

/// Set by the first stop signal; a signal that finds it set ends the process.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl-C, and the SIGTERM of `timeout` or a CI runner, and the SIGHUP of a closed
/// terminal: each stops the run as Ctrl-C does (the CBMC runs under way are killed, the
/// document is written and marked partial), a second one ends the process at once (exit
/// code 130). The handlers only store flags and call `_exit` (signal-hook's, with
/// `SA_RESTART`, so interrupted reads go on). Installed once: a second set would see the
/// flag the first set stored and end the process at the first signal.
fn install_sigint() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        for signum in [SIGINT, SIGTERM, SIGHUP] {
            // A signal's actions run in the order registered: the exit first, so that it
            // finds the flag set only from the second signal on.
            let installed = flag::register_conditional_shutdown(signum, 130, &INTERRUPTED)
                .and_then(|_| flag::register(signum, &INTERRUPTED))
                .and_then(|_| flag::register(signum, stop::stop_flag()));
            if let Err(e) = installed {
                // The signal keeps its default action: it ends the run, keeping nothing.
                errln!("mergelens: warning: signal {signum} stops the run at once: {e}");
            }
        }
    });
}

/// What the progress line shows.
#[derive(Default)]
struct State {
    phase: String,
    /// The teacher's, when one reports (`learn`, `explain`); a review's versions report
    /// their phase only.
    stats: Option<TeacherStats>,
}

/// Progress on standard error: a spinner on a terminal, else a plain line every few
/// seconds. [`Progress::finish`] (or dropping it) ends it.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    state: Arc<Mutex<State>>,
    done: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl Progress {
    /// `what` names the run in plain lines, e.g. `learning`.
    pub(crate) fn new(what: &'static str) -> Progress {
        Progress::with(what.to_string(), std::io::stderr().is_terminal())
    }

    /// Plain lines even on a terminal: one of several runs at once (an audit's merges with
    /// `--remote-jobs`), whose spinners would draw over each other.
    pub(crate) fn lines(what: String) -> Progress {
        Progress::with(what, false)
    }

    fn with(what: String, spinner: bool) -> Progress {
        let state = Arc::new(Mutex::new(State::default()));
        let done = Arc::new(AtomicBool::new(false));
        if spinner {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix} {msg}").expect("a valid template"),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            return Progress {
                bar: Some(bar),
                state,
                done,
                ticker: None,
            };
        }
        let every = std::env::var("MERGELENS_PROGRESS_SECS")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or(Duration::from_secs(3), Duration::from_secs_f64);
        let ticker = {
            let state = Arc::clone(&state);
            let done = Arc::clone(&done);
            std::thread::spawn(move || {
                let started = Instant::now();
                let mut next = started + every;
                while !done.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                    if Instant::now() < next {
                        continue;
                    }
                    next += every;
                    let line = {
                        let s = state.lock().unwrap_or_else(|e| e.into_inner());
                        format!(
                            "mergelens: progress: {what} {} · {:.0} s {}",
                            s.phase,
                            started.elapsed().as_secs_f64(),
                            s.stats.as_ref().map(message).unwrap_or_default()
                        )
                    };
                    errln!("{line}");
                }
            })
        };
        Progress {
            bar: None,
            state,
            done,
            ticker: Some(ticker),
        }
    }

    /// The phase, e.g. the bounds being learned at.
    pub(crate) fn set_phase(&self, phase: String) {
        // The phase names entry functions and files, which a branch names.
        let phase = super::term(&phase);
        if let Some(bar) = &self.bar {
            bar.set_prefix(phase.clone());
        }
        self.state.lock().unwrap_or_else(|e| e.into_inner()).phase = phase;
    }

    /// A callback for [`mergelens::cbmc::CbmcTeacher::on_progress`].
    pub(crate) fn observer(&self) -> impl FnMut(&TeacherStats) + 'static {
        let bar = self.bar.clone();
        let state = Arc::clone(&self.state);
        move |s: &TeacherStats| {
            if let Some(bar) = &bar {
                bar.set_message(message(s));
            }
            state.lock().unwrap_or_else(|e| e.into_inner()).stats = Some(s.clone());
        }
    }

    /// A callback setting the phase, for [`mergelens::review::LearnContext::with_progress`].
    pub(crate) fn phase_setter(&self) -> impl Fn(&str) + Send + Sync + 'static {
        let bar = self.bar.clone();
        let state = Arc::clone(&self.state);
        move |line: &str| {
            let line = &super::term(line);
            if let Some(bar) = &bar {
                bar.set_message(line.to_string());
            }
            state.lock().unwrap_or_else(|e| e.into_inner()).phase = line.to_string();
        }
    }

    pub(crate) fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        self.done.store(true, Ordering::SeqCst);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

fn message(s: &TeacherStats) -> String {
    format!(
        "· conjecture {} ({} states) · {} CBMC runs · words: {} pre-check no, {} known, {} to CBMC",
        s.conjectures,
        s.conjecture_states,
        s.cbmc_runs,
        s.precheck_no,
        s.words_known,
        s.words_to_cbmc
    )
}
