//! Running the programs a review needs (gcc, goto-cc, CBMC) within bounds on what outside
//! input can make them spend.
//!
//! Key items:
//!
//! * [`run_bounded`] runs a child process in a process group of its own, kills the group at
//!   a deadline, and stops reading (and kills) once its output passes a cap: a program under
//!   review decides how long its preprocessor runs and how much it writes, so neither may be
//!   unbounded. [`Ran`] is what happened.
//! * [`set_tool_timeout`] / [`tool_deadline`]: the deadline of runs whose caller has none of
//!   its own (the preprocessor, compiling a version): the query timeout of the command.
//! * [`set_memory_limit`]: the address space each child may take (`memory-limit`, a
//!   [`MemorySize`]); CBMC answers an allocation it refuses with "Out of memory", which
//!   [`Ran::Finished`] keeps together with the run's peak resident memory, and
//!   [`peak_memory`] is the largest peak of the process's runs, for the statistics.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::failure::{FailureKind, HasKind};
use thiserror::Error;

/// The most a child process may write on standard output or standard error (each).
pub const MAX_TOOL_OUTPUT: usize = 512 << 20;

/// The query timeout in milliseconds; 0: none.
static TOOL_TIMEOUT_MS: AtomicU64 = AtomicU64::new(0);

/// Sets the deadline of tool runs whose caller sets none (the command's query timeout).
pub fn set_tool_timeout(timeout: Option<Duration>) {
    let ms = timeout.map_or(0, |t| {
        u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1)
    });
    TOOL_TIMEOUT_MS.store(ms, Ordering::Relaxed);
}

/// The timeout [`set_tool_timeout`] set, if any.
pub fn tool_timeout() -> Option<Duration> {
    match TOOL_TIMEOUT_MS.load(Ordering::Relaxed) {
        0 => None,
        ms => Some(Duration::from_millis(ms)),
    }
}

/// The memory limit in bytes; 0: none.
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(0);

/// The largest peak resident memory of a finished child, in bytes.
static PEAK_MEMORY: AtomicU64 = AtomicU64::new(0);

/// `memory-limit` unless configured: CI runners commonly have 7-16 GiB, and CBMC on real
/// code was measured at 8-13 GiB without a limit, which takes the whole runner down.
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// A memory size as the user writes it: `4GiB`, `512MiB`, `4G`, `512M` (powers of 1024), or
/// `0` / `none` for no limit. Plain numbers are MiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemorySize(pub Option<u64>);

/// A text that is no [`MemorySize`].
#[derive(Debug, Error)]
#[error("`{0}` is no memory size; write e.g. 4GiB, 512MiB, or 0 for no limit")]
pub struct NotAMemorySize(pub String);

impl HasKind for NotAMemorySize {
    fn kind(&self) -> FailureKind {
        FailureKind::BadInput
    }
}

impl std::str::FromStr for MemorySize {
    type Err = NotAMemorySize;

    fn from_str(text: &str) -> Result<MemorySize, NotAMemorySize> {
        let t = text.trim();
        if t == "0" || t.eq_ignore_ascii_case("none") {
            return Ok(MemorySize(None));
        }
        let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
        let (digits, unit) = t.split_at(split);
        let shift = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "m" | "mib" | "mb" => 20,
            "g" | "gib" | "gb" => 30,
            "k" | "kib" | "kb" => 10,
            _ => return Err(NotAMemorySize(text.to_string())),
        };
        digits
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(1 << shift))
            .map(|bytes| MemorySize((bytes > 0).then_some(bytes)))
            .ok_or_else(|| NotAMemorySize(text.to_string()))
    }
}

impl std::fmt::Display for MemorySize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            None => f.write_str("none"),
            Some(b) if b % (1 << 30) == 0 => write!(f, "{}GiB", b >> 30),
            Some(b) => write!(f, "{}MiB", b >> 20),
        }
    }
}

/// Limits the address space of every child process started from now on (`RLIMIT_AS`):
/// beyond it the child's allocations fail instead of the machine running out of memory.
/// `None`: no limit.
pub fn set_memory_limit(bytes: Option<u64>) {
    MEMORY_LIMIT.store(bytes.unwrap_or(0), Ordering::Relaxed);
}

/// The limit [`set_memory_limit`] set, if any.
pub fn memory_limit() -> Option<u64> {
    match MEMORY_LIMIT.load(Ordering::Relaxed) {
        0 => None,
        bytes => Some(bytes),
    }
}

/// The largest peak resident memory of any child process that finished so far (since the
/// last [`reset_peak_memory`]), in bytes.
pub fn peak_memory() -> u64 {
    PEAK_MEMORY.load(Ordering::Relaxed)
}

/// Starts the high-water mark of [`peak_memory`] again: one audit's merges each report
/// their own.
pub fn reset_peak_memory() {
    PEAK_MEMORY.store(0, Ordering::Relaxed);
}

/// A deadline [`tool_timeout`] from now.
pub fn tool_deadline() -> Option<Instant> {
    tool_timeout().map(|t| Instant::now() + t)
}

/// What a bounded run did.
#[derive(Debug)]
pub enum Ran {
    Finished {
        status: ExitStatus,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
        /// The child's peak resident memory in bytes (its own and its waited-for children's
        /// largest).
        peak_memory: u64,
    },
    /// Killed at the deadline.
    TimedOut,
    /// Killed because standard output or error passed the cap.
    TooMuchOutput,
    /// Killed, or never started, because the run was asked to stop (Ctrl-C) or its time
    /// budget ran out ([`crate::stop`]).
    Stopped,
}

/// Variables no tool is given: the cache key ([`crate::cache_mac`]) and the remote
/// execution server's token, which gcc, goto-cc and CBMC do not need, so a branch cannot
/// read them back through `/proc/self/environ`.
pub(crate) const WITHHELD: [&str; 2] = ["MERGELENS_CACHE_KEY", "MERGELENS_REMOTE_TOKEN"];

/// How often a waiting run looks for a stop request.
const STOP_POLL: Duration = Duration::from_millis(100);

/// Runs `cmd` to completion, or until `deadline`, or until it writes more than `cap` bytes on
/// either stream, or until the process is asked to stop ([`crate::stop`]: Ctrl-C, the time
/// budget, the end of the share of it the current part was given); in all but the first
/// case the child's whole process group is killed (gcc and goto-cc run subprocesses of
/// their own).
pub fn run_bounded(
    mut cmd: Command,
    deadline: Option<Instant>,
    cap: usize,
) -> std::io::Result<Ran> {
    if crate::stop::stop_reason().is_some() {
        return Ok(Ran::Stopped);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for name in WITHHELD {
        cmd.env_remove(name);
    }
    // Where the process confines its children (a review), the kernel limits what this one
    // may read; the ruleset must stay open until the child has applied it.
    let rules = crate::sandbox::restrict(&mut cmd)?;
    if let Some(limit) = memory_limit() {
        limit_address_space(&mut cmd, limit);
    }
    let mut child = cmd.spawn()?;
    drop(rules);
    let mut guard = GroupGuard(Some(child.id()));
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    // Each reader reports once: its output (None when over the cap).
    let (tx, rx) = mpsc::channel::<(bool, std::io::Result<Option<Vec<u8>>>)>();
    let capped = |mut stream: Box<dyn Read + Send>, is_out: bool, tx: mpsc::Sender<_>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let result = (&mut stream)
                .take(cap as u64 + 1)
                .read_to_end(&mut buf)
                .map(|_| (buf.len() <= cap).then_some(buf));
            let _ = tx.send((is_out, result));
        })
    };
    let out_reader = capped(Box::new(stdout), true, tx.clone());
    let err_reader = capped(Box::new(stderr), false, tx);
    let (mut out, mut err) = (None, None);
    let mut outcome = None;
    while out.is_none() || err.is_none() {
        // Wait in slices, so that a stop request ends the run within one.
        let slice = deadline.map_or(STOP_POLL, |d| {
            d.saturating_duration_since(Instant::now()).min(STOP_POLL)
        });
        match rx.recv_timeout(slice) {
            Ok((is_out, result)) => match result? {
                Some(bytes) if is_out => out = Some(bytes),
                Some(bytes) => err = Some(bytes),
                None => {
                    outcome = Some(Ran::TooMuchOutput);
                    break;
                }
            },
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // The share of one part of the run ends it as the budget does: a single
                // long run (a per-execution check) must not spend the parts after it.
                if crate::stop::stop_reason().is_some() {
                    outcome = Some(Ran::Stopped);
                    break;
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    outcome = Some(Ran::TimedOut);
                    break;
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    if let Some(outcome) = outcome {
        guard.kill();
        reap_killed(child.id());
        let _ = out_reader.join();
        let _ = err_reader.join();
        return Ok(outcome);
    }
    // Both streams are closed: the child has normally exited; wait for it within the deadline.
    let (status, peak_memory) = loop {
        if let Some(reaped) = reap(child.id())? {
            break reaped;
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            guard.kill();
            reap_killed(child.id());
            return Ok(Ran::TimedOut);
        }
        thread::sleep(Duration::from_millis(2));
    };
    guard.0 = None;
    PEAK_MEMORY.fetch_max(peak_memory, Ordering::Relaxed);
    let _ = out_reader.join();
    let _ = err_reader.join();
    Ok(Ran::Finished {
        status,
        stdout: out.unwrap_or_default(),
        stderr: err.unwrap_or_default(),
        peak_memory,
    })
}

/// Makes the child of `cmd` limit its own address space just before `exec`.
fn limit_address_space(cmd: &mut Command, bytes: u64) {
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: the closure makes one system call on a value it owns and allocates nothing, as
    // code between fork and exec must.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Reaps the child `pid` if it has exited: its status and peak resident memory in bytes.
/// `wait4` instead of [`std::process::Child::try_wait`], which has no resource usage.
fn reap(pid: u32) -> std::io::Result<Option<(ExitStatus, u64)>> {
    wait_for(pid, libc::WNOHANG)
}

/// Reaps a child that was killed (by the budget, a stop, its timeout or its output cap):
/// its peak counts like a finished run's, since a run stopped for its size is the one a
/// reader of the peak most needs to see.
fn reap_killed(pid: u32) {
    if let Ok(Some((_, peak))) = wait_for(pid, 0) {
        PEAK_MEMORY.fetch_max(peak, Ordering::Relaxed);
    }
}

fn wait_for(pid: u32, flags: libc::c_int) -> std::io::Result<Option<(ExitStatus, u64)>> {
    use std::os::unix::process::ExitStatusExt;
    let pid = libc::pid_t::try_from(pid).map_err(std::io::Error::other)?;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are to live locals of the right types; the child is ours and
    // not yet reaped, so the pid still names it.
    let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
    match reaped {
        -1 => Err(std::io::Error::last_os_error()),
        0 => Ok(None),
        // ru_maxrss is in KiB on Linux.
        _ => Ok(Some((
            ExitStatus::from_raw(status),
            u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024,
        ))),
    }
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
    if let Ok(group) = libc::pid_t::try_from(group) {
        // SAFETY: kill(2) takes plain integers and touches no memory of ours. The group is
        // the child's own (process_group(0)) and the child has not been reaped yet, so the
        // id still names that group.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn a_run_is_stopped_at_its_deadline_and_its_output_cap() {
        let start = Instant::now();
        let ran = run_bounded(
            sh("sleep 30"),
            Some(Instant::now() + Duration::from_millis(200)),
            1024,
        )
        .unwrap();
        assert!(matches!(ran, Ran::TimedOut), "{ran:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
        let ran = run_bounded(sh("yes"), None, 1 << 16).unwrap();
        assert!(matches!(ran, Ran::TooMuchOutput), "{ran:?}");
        let ran = run_bounded(sh("echo out; echo err >&2; exit 3"), None, 1024).unwrap();
        match ran {
            Ran::Finished {
                status,
                stdout,
                stderr,
                ..
            } => {
                assert_eq!(status.code(), Some(3));
                assert_eq!(stdout, b"out\n");
                assert_eq!(stderr, b"err\n");
            }
            other => panic!("{other:?}"),
        }
    }

    /// Set in the copy of this test binary that [`the_end_of_a_share_stops_a_run_under_way`]
    /// starts: the stop state is process-wide, so the share is set in a process of its own.
    const SHARE_CHILD: &str = "MERGELENS_TEST_SHARE_CHILD";

    #[test]
    fn the_end_of_a_share_stops_a_run_under_way() {
        if std::env::var_os(SHARE_CHILD).is_some() {
            let _share = crate::stop::Share::start(Duration::from_millis(300));
            let start = Instant::now();
            let ran = run_bounded(sh("sleep 30"), None, 1024).unwrap();
            assert!(matches!(ran, Ran::Stopped), "{ran:?}");
            assert!(start.elapsed() < Duration::from_secs(10));
            assert_eq!(
                crate::stop::stop_reason(),
                Some(crate::stop::StopReason::ShareSpent)
            );
            return;
        }
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "process::tests::the_end_of_a_share_stops_a_run_under_way",
                "--exact",
            ])
            .env(SHARE_CHILD, "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(text.contains("1 passed"), "{text}");
    }

    #[test]
    fn memory_sizes_read_as_users_write_them() {
        let size = |t: &str| t.parse::<MemorySize>().map(|m| m.0).ok();
        assert_eq!(size("4GiB"), Some(Some(4 << 30)));
        assert_eq!(size("512 MiB"), Some(Some(512 << 20)));
        assert_eq!(size("300"), Some(Some(300 << 20)));
        assert_eq!(size("0"), Some(None));
        assert_eq!(size("none"), Some(None));
        assert_eq!(size("4 TB"), None);
        assert_eq!(size("-1G"), None);
        assert_eq!(size("99999999999999999999G"), None);
        assert_eq!(MemorySize(Some(4 << 30)).to_string(), "4GiB");
    }

    #[test]
    fn a_child_stopped_at_its_timeout_counts_in_the_peak() {
        // 200 MiB: more than any other test of this binary makes its children use, so the
        // process-wide high-water mark shows this run's.
        let mut c = Command::new("python3");
        c.arg("-c").arg(
            "import time; x = bytearray(200 << 20); x[::4096] = b'1' * len(x[::4096]); print('ready', flush=True); time.sleep(60)",
        );
        let deadline = Instant::now() + Duration::from_secs(3);
        let ran = run_bounded(c, Some(deadline), 1 << 16).unwrap();
        assert!(matches!(ran, Ran::TimedOut), "{ran:?}");
        assert!(
            super::peak_memory() >= 200 << 20,
            "{}",
            super::peak_memory()
        );
    }

    #[test]
    fn a_child_past_its_memory_limit_fails_and_its_peak_is_measured() {
        let python = |bytes: u64| {
            let mut c = Command::new("python3");
            c.arg("-c").arg(format!(
                "x = bytearray({bytes}); x[::4096] = b'1' * len(x[::4096])"
            ));
            c
        };
        let ran = run_bounded(python(96 << 20), None, 1 << 16).unwrap();
        let Ran::Finished {
            status,
            peak_memory,
            ..
        } = ran
        else {
            panic!("{ran:?}")
        };
        assert!(status.success());
        assert!(peak_memory >= 96 << 20, "{peak_memory}");
        assert!(super::peak_memory() >= 96 << 20);
        let mut limited = python(512 << 20);
        limit_address_space(&mut limited, 128 << 20);
        let ran = run_bounded(limited, None, 1 << 16).unwrap();
        let Ran::Finished { status, stderr, .. } = ran else {
            panic!("{ran:?}")
        };
        assert!(!status.success());
        assert!(String::from_utf8_lossy(&stderr).contains("MemoryError"));
    }
}
