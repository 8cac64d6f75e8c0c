//! The time budget and SIGTERM hold where mergelens itself does the work, with no CBMC run
//! in flight: a branch of thousands of small functions, each called under a nondeterministic
//! condition, keeps the front end, the pre-check and the learner busy for minutes. With the
//! real gcc, CBMC and git; the waits are for lines on standard error, and the bounds are on
//! the work a run does (CPU time, [`crate::common::work`]), not on the wall clock.

use crate::common;

use std::io::{BufRead, BufReader, Lines};
use std::path::Path;
use std::process::{Child, ChildStderr, Stdio};
use std::time::Duration;

use crate::common::work::{cpu_so_far, on_every_core, output_and_cpu, wait_cpu};
use crate::common::{Repo, text};

/// `n` functions `f0` … each called from `main` under `if (nondet_int())`; `first` and
/// `last`, when given, are called unconditionally before and after them.
fn many_functions(n: usize, first: Option<&str>, last: Option<&str>) -> String {
    let mut c = String::from("int nondet_int(void);\nvoid g(void) {}\nvoid h(void) {}\n");
    for i in 0..n {
        c.push_str(&format!("void f{i}(void) {{}}\n"));
    }
    c.push_str("int main(void)\n{\n");
    if let Some(f) = first {
        c.push_str(&format!("    {f}();\n"));
    }
    for i in 0..n {
        c.push_str(&format!("    if (nondet_int()) f{i}();\n"));
    }
    if let Some(f) = last {
        c.push_str(&format!("    {f}();\n"));
    }
    c.push_str("    return 0;\n}\n");
    c
}

/// A merge of `n` functions: ours calls `g` first, theirs `h` last (no textual conflict).
fn wide_merge(n: usize) -> Repo {
    common::three_way(
        &many_functions(n, None, None),
        &many_functions(n, Some("g"), None),
        &many_functions(n, None, Some("h")),
    )
}

/// How a stopped run may end: a partial result (0, or 1 when `fail-on` names
/// `inconclusive`) or, stopped before a version was read, a failure (4); never a signal.
fn assert_stopped(status: std::process::ExitStatus, stderr: &str, reason: &str) {
    assert!(
        matches!(status.code(), Some(0 | 4)),
        "{status:?} (a signal has no code): {stderr}"
    );
    assert!(stderr.contains(reason), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_review_of_thousands_of_functions_ends_at_the_budget() {
    let repo = wide_merge(3000);
    let bin = Path::new(env!("CARGO_BIN_EXE_mergelens"));
    let review = ["review", "feature", "--no-cache", "--time-budget", "5"];
    let (out, cpu) = output_and_cpu(repo.command(bin, &[]).args(review));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_stopped(out.status, &stderr, "the review stopped at the 5 s budget");
    // Without the checks in mergelens's own loops this took minutes of work (CPU time,
    // which a loaded machine does not stretch as it does the wall clock).
    assert!(
        cpu < on_every_core(Duration::from_secs(25)),
        "{cpu:?} of CPU: {}",
        text(&out)
    );
}

#[test]
fn learning_thousands_of_functions_ends_at_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("wide.c");
    std::fs::write(&file, many_functions(2000, None, None)).unwrap();
    let (out, cpu) = output_and_cpu(
        std::process::Command::new(env!("CARGO_BIN_EXE_mergelens"))
            .args(["learn", "--no-cache", "--time-budget", "4"])
            .arg(&file),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_stopped(out.status, &stderr, "the time budget ran out");
    assert!(
        cpu < on_every_core(Duration::from_secs(24)),
        "{cpu:?} of CPU: {stderr}"
    );
}

/// A review of a wide merge, under way: it has reported progress, so its signal handlers
/// are in place. The child, the rest of its standard error, and what it said so far.
fn review_under_way(repo: &Repo) -> (Child, Lines<BufReader<ChildStderr>>, String) {
    let mut child = repo
        .command(
            Path::new(env!("CARGO_BIN_EXE_mergelens")),
            &[("MERGELENS_PROGRESS_SECS", "0.2")],
        )
        .args(["review", "feature", "--no-cache"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.starts_with("mergelens: progress:") {
            break;
        }
    }
    assert!(seen.contains("mergelens: progress:"), "{seen}");
    (child, lines, seen)
}

/// Sends `signal` to `child`.
fn signal(child: &Child, signal: libc::c_int) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: kill(2) with the id of our own child and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
}

#[test]
fn sigterm_ends_a_review_of_thousands_of_functions_within_seconds() {
    let repo = wide_merge(3000);
    let (child, lines, mut seen) = review_under_way(&repo);
    let before = cpu_so_far(child.id());
    signal(&child, libc::SIGTERM);
    for line in lines {
        seen.push_str(&line.unwrap());
        seen.push('\n');
    }
    let (status, cpu) = wait_cpu(child);
    assert_stopped(status, &seen, "interrupted");
    // The work after the signal (CPU time, which load does not stretch): seconds, where
    // the whole review is minutes.
    let after = cpu.saturating_sub(before);
    assert!(
        after < on_every_core(Duration::from_secs(20)),
        "{after:?} of CPU after the signal: {seen}"
    );
}

/// The first signal stops the review, which then writes what it has; a second one ends
/// the process at once, with 130. Two different signals, sent together: two of the same
/// kind still pending would be delivered as one.
#[test]
fn a_second_signal_ends_the_review_at_once_with_130() {
    let repo = wide_merge(3000);
    let (child, lines, mut seen) = review_under_way(&repo);
    signal(&child, libc::SIGTERM);
    signal(&child, libc::SIGINT);
    for line in lines {
        seen.push_str(&line.unwrap());
        seen.push('\n');
    }
    let (status, _) = wait_cpu(child);
    assert_eq!(status.code(), Some(130), "{status:?}: {seen}");
    // Ended before it wrote a verdict.
    assert!(!seen.contains("verdict:"), "{seen}");
    assert!(!seen.contains("panicked"), "{seen}");
}

#[test]
fn the_hook_budget_ends_git_merge_of_thousands_of_functions_within_seconds() {
    let repo = wide_merge(2000);
    repo.commit(".mergelens.toml", "hook-time-budget = 5\n", "settings");
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let merge = ["merge", "--no-ff", "-m", "merge feature", "feature"];
    let (out, cpu) = output_and_cpu(repo.command(Path::new("git"), &[]).args(merge));
    let said = text(&out);
    assert!(!said.contains("died of signal"), "{said}");
    assert!(said.contains("the time budget ran out"), "{said}");
    // The default on-error lets an unreviewed merge through, saying so; a review that got
    // as far as learning lets it through as inconclusive. Either way git ends.
    assert!(out.status.success(), "{said}");
    assert!(repo.merged(), "{said}");
    // git's work and its hook's (CPU time, which load does not stretch).
    assert!(
        cpu < on_every_core(Duration::from_secs(25)),
        "{cpu:?} of CPU: {said}"
    );
}
