//! Running `goto-cc` and `cbmc` as child processes with a deadline.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::error::CbmcRunError;
use crate::process::{self, Ran};

/// How many CBMC runs answered queries and how long they took, for the learner's statistics.
/// Shared between threads: queries take `&self`.
#[derive(Debug, Default)]
pub struct CbmcCounters {
    runs: AtomicU64,
    nanos: AtomicU64,
    timeouts: AtomicU64,
    formula_answers: AtomicU64,
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

    /// Membership answers read from a formula kept in a SAT solver, without a CBMC run of
    /// their own (see `GotoProgram::with_kept_formulas`).
    pub fn formula_answers(&self) -> u64 {
        self.formula_answers.load(Ordering::Relaxed)
    }

    pub(crate) fn record_formula_answers(&self, n: u64) {
        self.formula_answers.fetch_add(n, Ordering::Relaxed);
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

/// The error of a run that ended without an answer: [`CbmcRunError::Stopped`] when the
/// run was stopped (Ctrl-C, the time budget or an entry's share of it ended it first), else
/// `timeout`, the query's own timeout. A stopped run must not read as a query that took
/// longer than its timeout.
pub(crate) fn unanswered(timeout: CbmcRunError) -> CbmcRunError {
    match crate::stop::stop_reason() {
        Some(reason) => CbmcRunError::Stopped { reason },
        None => timeout,
    }
}

/// Runs `cmd` to completion or until `deadline`, whichever comes first; on the deadline the
/// child's whole process group is killed (goto-cc runs a preprocessor, and a CBMC left
/// running would keep a core busy long after its answer stopped mattering). A run without a
/// deadline of its own gets the command's query timeout ([`crate::process::tool_deadline`]),
/// and every run stops at [`crate::process::MAX_TOOL_OUTPUT`] bytes of output: both are errors
/// ([`CbmcRunError::Limit`]). A stop request or the time budget ([`crate::stop`]) ends a run
/// as its deadline does. `counters`, when given, record the run as a CBMC run.
pub(crate) fn run(
    cmd: Command,
    tool: &'static str,
    deadline: Option<Instant>,
    counters: Option<&CbmcCounters>,
) -> Result<Outcome, CbmcRunError> {
    execute(
        ToolRun {
            cmd,
            tool,
            inputs: None,
            deadline,
        },
        counters,
    )
}

/// One run of a CBMC tool: the command line, the files it reads and its deadline (the
/// other limits are the process's: [`crate::process`]). The seam between a run and where it
/// runs: [`execute`] runs it on this machine, or as a remote action when a remote engine is
/// set ([`crate::remote::current`]) and its inputs are declared.
pub(crate) struct ToolRun {
    pub cmd: Command,
    pub tool: &'static str,
    /// The files the run reads, each named on its command line by its absolute path;
    /// `None`: not declared (a compiler run reads what the preprocessor finds), so the run
    /// stays on this machine.
    pub inputs: Option<Vec<PathBuf>>,
    pub deadline: Option<Instant>,
}

/// [`run`] for a run whose input files are declared, which may therefore run remotely.
pub(crate) fn run_declared(
    cmd: Command,
    inputs: &[&Path],
    deadline: Option<Instant>,
    counters: Option<&CbmcCounters>,
) -> Result<Outcome, CbmcRunError> {
    execute(
        ToolRun {
            cmd,
            tool: "cbmc",
            inputs: Some(inputs.iter().map(|p| p.to_path_buf()).collect()),
            deadline,
        },
        counters,
    )
}

/// Runs `run` as [`run`] describes: remotely where it can (a failed remote run, after the
/// engine's own retries, runs here instead), else here.
pub(crate) fn execute(
    run: ToolRun,
    counters: Option<&CbmcCounters>,
) -> Result<Outcome, CbmcRunError> {
    let ToolRun {
        cmd,
        tool,
        inputs,
        deadline,
    } = run;
    let start = Instant::now();
    // A stopped run starts nothing more: its caller keeps what it has.
    if crate::stop::stop_reason().is_some() {
        return Ok(Outcome::TimedOut);
    }
    let program = cmd.get_program().to_owned();
    let implicit = deadline.is_none();
    let deadline = deadline.or_else(process::tool_deadline);
    let remote = inputs
        .zip(crate::remote::current())
        .and_then(|(inputs, remote)| remotely(&remote, &cmd, &inputs, deadline));
    let ran = match remote {
        Some(ran) => ran,
        None => process::run_bounded(cmd, deadline, process::MAX_TOOL_OUTPUT)
            .map_err(CbmcRunError::io(program))?,
    };
    if let Some(counters) = counters {
        counters.record(start.elapsed(), matches!(ran, Ran::TimedOut | Ran::Stopped));
    }
    match ran {
        Ran::Finished {
            status,
            stdout,
            stderr,
            peak_memory,
        } => {
            if let Some(limit) = process::memory_limit()
                && out_of_memory(&status, &stdout, &stderr, peak_memory, limit)
            {
                return Err(CbmcRunError::OutOfMemory {
                    tool,
                    limit_mib: limit >> 20,
                });
            }
            Ok(Outcome::Finished(Finished {
                status,
                stdout,
                stderr,
            }))
        }
        Ran::TimedOut if implicit => Err(CbmcRunError::Limit {
            tool,
            what: format!(
                "ran longer than the query timeout ({:.0} s)",
                process::tool_timeout().unwrap_or_default().as_secs_f64()
            ),
        }),
        // The caller asks `crate::stop` why, and keeps what it has.
        Ran::TimedOut | Ran::Stopped => Ok(Outcome::TimedOut),
        Ran::TooMuchOutput => Err(CbmcRunError::Limit {
            tool,
            what: format!(
                "wrote more than {} MiB of output",
                process::MAX_TOOL_OUTPUT >> 20
            ),
        }),
    }
}

/// Whether a failed run ran out of the address space [`process::set_memory_limit`] gave it.
/// CBMC catches the failed allocation and says so (exit 6, "Out of memory"), but not always
/// (with `--json-ui` it has been seen to exit 6 with no output at all); a tool that does
/// not dies of a signal or an abort. Either way, near the limit.
fn out_of_memory(
    status: &ExitStatus,
    stdout: &[u8],
    stderr: &[u8],
    peak_memory: u64,
    limit: u64,
) -> bool {
    use std::os::unix::process::ExitStatusExt;
    if status.success() || status.code() == Some(10) {
        return false;
    }
    let says = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(&bytes[bytes.len().saturating_sub(4096)..]);
        text.contains("Out of memory") || text.contains("std::bad_alloc")
    };
    let near_the_limit = peak_memory >= limit / 10 * 8;
    let abnormal = status.signal().is_some() || status.code() == Some(6);
    says(stderr) || says(stdout) || (abnormal && near_the_limit)
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

/// `cmd` run as a remote action; `None` when it cannot be one or the engine failed (then
/// counted as a local fallback, and said once on stderr).
fn remotely(
    remote: &crate::remote::Remote,
    cmd: &Command,
    inputs: &[PathBuf],
    deadline: Option<Instant>,
) -> Option<Ran> {
    use std::os::unix::process::ExitStatusExt;
    let outcome = super::remote_run::action(remote, cmd, inputs, deadline)
        .and_then(|spec| spec.map(|spec| remote.run(&spec)).transpose());
    match outcome {
        Ok(Some(done)) => Some(Ran::Finished {
            status: ExitStatus::from_raw((done.exit_code & 0xff) << 8),
            stdout: done.stdout,
            stderr: done.stderr,
            peak_memory: 0,
        }),
        Ok(None) => None,
        Err(crate::remote::RemoteError::Stopped) => Some(Ran::Stopped),
        Err(e) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "mergelens: remote execution failed ({}); running on this machine instead",
                    crate::failure::text(&e)
                );
            });
            crate::remote::record_fallback();
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt;

    #[test]
    fn a_silent_abnormal_exit_near_the_limit_is_out_of_memory() {
        let gib = 1u64 << 30;
        let exit6 = ExitStatus::from_raw(6 << 8);
        assert!(out_of_memory(&exit6, b"", b"", 4 * gib - 1, 4 * gib));
        // Far from the limit, exit 6 is CBMC's own failure, said as such.
        assert!(!out_of_memory(&exit6, b"", b"", gib, 4 * gib));
        assert!(out_of_memory(&exit6, b"", b"Out of memory", gib, 4 * gib));
        let killed = ExitStatus::from_raw(9);
        assert!(out_of_memory(&killed, b"", b"", 4 * gib, 4 * gib));
        let found = ExitStatus::from_raw(10 << 8);
        assert!(!out_of_memory(&found, b"", b"", 4 * gib, 4 * gib));
    }
}
