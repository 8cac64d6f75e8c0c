//! The work a child process did, as CPU time: its own and that of the processes it waited
//! for (git's hooks, gcc, CBMC). A test that a run stops promptly bounds this rather than
//! the wall clock: a loaded machine (the tests share two cores with each other and with
//! other builds) stretches the wall clock of a run, not its work, while a run that kept
//! working for minutes after its stop would use minutes of CPU.
//!
//! Key items: [`output_and_cpu`], [`wait_cpu`], [`cpu_so_far`], [`children_cpu`],
//! [`on_every_core`].

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::Duration;

/// Runs `cmd` to its end as [`Command::output`] does (no input, both outputs captured):
/// its output and the CPU time it used.
pub fn output_and_cpu(cmd: &mut Command) -> (Output, Duration) {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the command");
    // Both pipes are read on threads, so that a full pipe cannot block the child.
    let out = read_on_a_thread(child.stdout.take().unwrap());
    let err = read_on_a_thread(child.stderr.take().unwrap());
    let (status, cpu) = wait_cpu(child);
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    (output, cpu)
}

fn read_on_a_thread(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        pipe.read_to_end(&mut bytes).unwrap();
        bytes
    })
}

/// Waits for `child` to end: its exit status and the CPU time it used, from `wait4(2)`
/// (per child, unlike `getrusage(RUSAGE_CHILDREN)`, which every test of this process adds
/// to). Its pipes must be taken or not piped, or a chatty child could block on them.
pub fn wait_cpu(child: Child) -> (ExitStatus, Duration) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data, for which all zeroes is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child, with valid pointers to a status and a rusage.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        assert_eq!(e.kind(), std::io::ErrorKind::Interrupted, "wait4: {e}");
    }
    // The child is reaped; `Child` does not wait on drop, so dropping it is harmless.
    drop(child);
    let time = |t: libc::timeval| {
        Duration::from_secs(u64::try_from(t.tv_sec).unwrap())
            + Duration::from_micros(u64::try_from(t.tv_usec).unwrap())
    };
    (
        ExitStatus::from_raw(status),
        time(usage.ru_utime) + time(usage.ru_stime),
    )
}

/// The CPU time the running process `pid` has used so far, itself and the children it has
/// waited for (`/proc/PID/stat`: utime, stime, cutime, cstime).
pub fn cpu_so_far(pid: u32) -> Duration {
    cpu_if_running(pid).unwrap_or_else(|| panic!("process {pid} is not running"))
}

/// [`cpu_so_far`], or `None` once the process is gone.
fn cpu_if_running(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces; field 3 follows.
    let after_name = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: u64 = fields[11..15]
        .iter()
        .map(|f| f.parse::<u64>().unwrap())
        .sum();
    // SAFETY: sysconf has no preconditions.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap();
    Some(Duration::from_millis(ticks * 1000 / per_second))
}

/// The CPU time a run that ends within `wall` on every core can use at most: a bound that
/// holds wherever the wall-clock bound held, and that load does not stretch.
pub fn on_every_core(wall: Duration) -> Duration {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    wall * u32::try_from(cores).unwrap()
}

/// Runs `f` while another thread watches the children the calling thread starts (through
/// `/proc/self/task/TID/children`, so no other test's): `f`'s result, how many children
/// were seen, and the most CPU time one of them was seen to use (sampled every 20 ms, so a
/// child shorter than that may go unseen). For work the library starts in this process,
/// where [`wait_cpu`] cannot reach.
pub fn children_cpu<T>(f: impl FnOnce() -> T) -> (T, usize, Duration) {
    use std::collections::HashMap;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    let done = Arc::new(AtomicBool::new(false));
    let watching = Arc::clone(&done);
    let watcher = std::thread::spawn(move || {
        let mut seen: HashMap<u32, Duration> = HashMap::new();
        let children = format!("/proc/self/task/{tid}/children");
        while !watching.load(Ordering::Relaxed) {
            let pids = std::fs::read_to_string(&children).unwrap_or_default();
            for pid in pids.split_whitespace().filter_map(|p| p.parse().ok()) {
                // A child may end between the two reads.
                if let Some(cpu) = cpu_if_running(pid) {
                    let most = seen.entry(pid).or_default();
                    *most = (*most).max(cpu);
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        seen
    });
    let value = f();
    done.store(true, Ordering::Relaxed);
    let seen = watcher.join().unwrap();
    let most = seen.values().copied().max().unwrap_or_default();
    (value, seen.len(), most)
}
