//! Progress on standard error ([`Progress`]): on a terminal, an indicatif spinner line;
//! otherwise (CI logs, hooks) one plain line every few seconds (`MERGELENS_PROGRESS_SECS`,
//! default 3) with the phase, the time, the CBMC runs and the states of the last conjecture.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mergelens::cbmc::TeacherStats;

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
