//! Running `goto-cc` and `cbmc` as child processes with a deadline.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::error::CbmcRunError;
use super::stop;

/// How often a waiting run checks for a stop request.
const STOP_POLL: Duration = Duration::from_millis(100);

/// How many CBMC runs answered queries and how long they took, for the learner's statistics.
/// Shared between threads: queries take `&self`.
#[derive(Debug, Default)]
pub struct CbmcCounters {
    runs: AtomicU64,
    nanos: AtomicU64,
    timeouts: AtomicU64,
}

impl CbmcCounters {
    pub fn new() -> CbmcCounters {
        CbmcCounters::default()
    }

    /// CBMC runs started, including those that timed out or failed.
    pub fn runs(&self) -> u64 {
        self.runs.load(Ordering::Relaxed)
    }

    /// Wall-clock time spent in CBMC runs.
    pub fn total_time(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }

    pub fn seconds(&self) -> f64 {
        self.total_time().as_secs_f64()
    }

    /// CBMC runs that were killed at their deadline.
    pub fn timeouts(&self) -> u64 {
        self.timeouts.load(Ordering::Relaxed)
    }

    fn record(&self, elapsed: Duration, timed_out: bool) {
        self.runs.fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.nanos.fetch_add(nanos, Ordering::Relaxed);
        if timed_out {
            self.timeouts.fetch_add(1, Ordering::Relaxed);
        }
    }
}

pub(crate) struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

pub(crate) enum Outcome {
    Finished(Finished),
    TimedOut,
}

/// Runs `cmd` to completion or until `deadline`, whichever comes first; on the deadline the
/// child's whole process group is killed (goto-cc runs a preprocessor, and a CBMC left
/// running would keep a core busy long after its answer stopped mattering).
/// `counters`, when given, record the run as a CBMC run.
pub(crate) fn run(
    mut cmd: Command,
    tool: &'static str,
    deadline: Option<Instant>,
    counters: Option<&CbmcCounters>,
) -> Result<Outcome, CbmcRunError> {
    let start = Instant::now();
    // A stopped run starts nothing more: its caller keeps what it has.
    if stop::stop_reason().is_some() {
        return Ok(Outcome::TimedOut);
    }
    let deadline = match (deadline, stop::deadline()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd.spawn().map_err(CbmcRunError::io(cmd.get_program()))?;
    let group = child.id();
    // Whatever happens below, a group that is still running when we leave is killed.
    let mut guard = GroupGuard(Some(group));

    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let (done_tx, done_rx) = mpsc::channel();
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let result = stdout.read_to_end(&mut buf).map(|_| buf);
        // The receiver may be gone if we timed out; nothing to do then.
        let _ = done_tx.send(());
        result
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        stderr.read_to_end(&mut buf).map(|_| buf)
    });

    // Wait for the end of stdout rather than for the child itself: only this thread reaps
    // the child, so the group id cannot be recycled before a kill.
    // Waits in slices, so that a stop request (Ctrl-C) ends the run promptly too.
    let in_time = loop {
        let slice = match deadline {
            Some(deadline) => deadline
                .saturating_duration_since(Instant::now())
                .min(STOP_POLL),
            None => STOP_POLL,
        };
        match done_rx.recv_timeout(slice) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                break match deadline {
                    Some(deadline) => {
                        wait_until(&mut child, deadline).map_err(CbmcRunError::io(tool))?
                    }
                    None => true,
                };
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if stop::stop_requested() || deadline.is_some_and(|d| Instant::now() >= d) {
                    break false;
                }
            }
        }
    };
    if !in_time {
        guard.kill();
        // Reap the killed child; its readers then see the pipes close.
        let _ = child.wait();
        let _ = out_reader.join();
        let _ = err_reader.join();
        if let Some(counters) = counters {
            counters.record(start.elapsed(), true);
        }
        return Ok(Outcome::TimedOut);
    }
    let status = child.wait().map_err(CbmcRunError::io(tool))?;
    guard.0 = None;
    let stdout = join_reader(out_reader, tool)?;
    let stderr = join_reader(err_reader, tool)?;
    if let Some(counters) = counters {
        counters.record(start.elapsed(), false);
    }
    Ok(Outcome::Finished(Finished {
        status,
        stdout,
        stderr,
    }))
}

/// Polls for the child's exit until the deadline; true if it exited in time. Called once
/// stdout is closed, when the child is normally already gone.
fn wait_until(child: &mut std::process::Child, deadline: Instant) -> std::io::Result<bool> {
    let mut step = Duration::from_micros(200);
    loop {
        if child.try_wait()?.is_some() {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        thread::sleep(step.min(deadline - now));
        step = (step * 2).min(Duration::from_millis(20));
    }
}

fn join_reader(
    reader: thread::JoinHandle<std::io::Result<Vec<u8>>>,
    tool: &'static str,
) -> Result<Vec<u8>, CbmcRunError> {
    reader
        .join()
        .unwrap_or_else(|_| Err(std::io::Error::other("output reader panicked")))
        .map_err(CbmcRunError::io(tool))
}

/// Kills a child's process group when dropped, unless disarmed.
struct GroupGuard(Option<u32>);

impl GroupGuard {
    fn kill(&mut self) {
        if let Some(group) = self.0.take() {
            kill_group(group);
        }
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.kill();
    }
}

fn kill_group(group: u32) {
    unsafe extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const SIGKILL: i32 = 9;
    if let Ok(group) = i32::try_from(group) {
        // SAFETY: kill(2) takes plain integers and touches no memory of ours. The group is
        // the child's own (process_group(0)) and the child has not been reaped yet, so the
        // id still names that group.
        unsafe {
            kill(-group, SIGKILL);
        }
    }
}

/// The last lines of a tool's error output, for a one-line error message.
pub(crate) fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let kept: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let from = kept.len().saturating_sub(lines);
    let joined = kept[from..].join(" | ");
    if joined.is_empty() {
        "no output".to_string()
    } else {
        joined
    }
}
