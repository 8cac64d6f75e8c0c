//! Anytime learning against the real CBMC: `--time-budget` and Ctrl-C stop learning and keep
//! the last conjecture, marked partial; progress lines reach a standard error that is not a
//! terminal.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::work::{cpu_so_far, on_every_core, output_and_cpu, wait_cpu};
use mergelens::automaton::json;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `hash_loop.c` at bounds where the full run takes CBMC about 25 s (a few conjectures
/// come in the first seconds).
/// (`explain_slow.c` is the same loop with an assertion.)
const SLOW: [&str; 6] = [
    "tests/programs/hash_loop.c",
    "--no-cache",
    "--unwind",
    "5",
    "--max-word-length",
    "8",
];

fn learn(extra: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mergelens"));
    c.current_dir(root())
        .arg("learn")
        .args(SLOW)
        .args(extra)
        .env("MERGELENS_PROGRESS_SECS", "1");
    c
}

fn text(out: &Output) -> (serde_json::Value, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let value: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("JSON output ({e}); stderr: {stderr}"));
    (value, stderr)
}

#[test]
fn a_time_budget_returns_the_last_conjecture_marked_partial_with_progress_lines() {
    let (out, cpu) = output_and_cpu(&mut learn(&["--time-budget", "6"]));
    let (value, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // The budget's work, not the whole run's (in CPU time, mergelens's and its CBMC runs',
    // which a loaded machine does not stretch as it does the wall clock).
    assert!(
        cpu < on_every_core(Duration::from_secs(15)),
        "{cpu:?}: {stderr}"
    );
    let learned = &value["learned"];
    assert_eq!(learned["partial"], true, "{value}");
    assert_eq!(learned["stopped"], "time-budget", "{value}");
    let exact = learned["exact_up_to"].as_u64().unwrap();
    assert!(exact < 8, "{value}");
    assert!(stderr.contains("time budget ran out"), "{stderr}");
    // The program allocates nothing: the warning names no option about allocations.
    assert!(!stderr.contains("--allocations"), "{stderr}");
    // A conjecture came before the budget ran out: the automaton accepts something, and
    // it reads back as a mergelens-dfa/1 automaton.
    let dfa = json::from_str(&String::from_utf8_lossy(&out.stdout), "learn").unwrap();
    assert!(dfa.num_states() >= 2, "{value}");
    assert!(dfa.accepts_names(&["end"]), "{value}");
    // Standard error is a pipe here, not a terminal: plain progress lines, one a second.
    let progress: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("mergelens: progress: learning --unwind 5 --max-word-length 8"))
        .collect();
    assert!(progress.len() >= 2, "{stderr}");
    assert!(progress.iter().all(|l| l.contains("CBMC runs")), "{stderr}");
}

#[test]
fn ctrl_c_stops_learning_and_keeps_the_last_conjecture() {
    let mut child = learn(&[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once learning is under way (a progress line names a conjecture), not after
    // a fixed sleep that a loaded machine may not have reached it in.
    let mut stdout = child.stdout.take().unwrap();
    let stdout = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let mut stderr_lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    for line in stderr_lines.by_ref() {
        let line = line.unwrap();
        seen.push_str(&line);
        seen.push('\n');
        if line.starts_with("mergelens: progress: learning") && line.contains("conjecture") {
            break;
        }
    }
    let before = cpu_so_far(child.id());
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    for line in stderr_lines {
        seen.push_str(&line.unwrap());
        seen.push('\n');
    }
    let (status, cpu) = wait_cpu(child);
    // The work after the interrupt (CPU time, load does not stretch it): the CBMC run in
    // flight and the last conjecture's output, not the rest of the learning.
    let after = cpu.saturating_sub(before);
    assert!(
        after < on_every_core(Duration::from_secs(5)),
        "{after:?}: {seen}"
    );
    let out = Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: seen.into_bytes(),
    };
    let (value, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(value["learned"]["partial"], true, "{value}");
    assert_eq!(value["learned"]["stopped"], "interrupted", "{value}");
    assert!(stderr.contains("interrupted"), "{stderr}");
}

#[test]
fn in_an_anytime_run_a_query_timeout_writes_the_partial_result_and_exits_4() {
    // Reaching found() means factoring a 64-bit semiprime: no quick answer.
    let hard = root().join("tests/programs/hard_factor.c");
    let out = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(root())
        .arg("learn")
        .arg(&hard)
        .args(["--no-cache", "--query-timeout", "1"])
        .args(["--time-budget", "60"])
        .output()
        .unwrap();
    let (value, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert_eq!(value["learned"]["partial"], true, "{value}");
    assert_eq!(value["learned"]["stopped"], "query-timeout", "{value}");
    assert!(stderr.contains("CBMC timed out after 1.0 s"), "{stderr}");
}

#[test]
fn explain_stops_at_the_time_budget_with_a_partial_language() {
    let (out, cpu) = output_and_cpu(
        Command::new(env!("CARGO_BIN_EXE_mergelens"))
            .current_dir(root())
            .args(["explain", "tests/programs/explain_slow.c", "--no-cache"])
            .args(["--line", "tests/programs/explain_slow.c:26"])
            .args(["--unwind", "5", "--max-word-length", "8"])
            .args(["--time-budget", "4"]),
    );
    let (value, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        cpu < on_every_core(Duration::from_secs(20)),
        "{cpu:?}: {stderr}"
    );
    let explained = &value["explained"];
    assert_eq!(explained["partial"], true, "{value}");
    assert_eq!(explained["stopped"], "time-budget", "{value}");
    assert!(explained["exact_up_to"].as_u64().unwrap() < 8, "{value}");
    assert!(stderr.contains("explaining stopped early"), "{stderr}");
    // Nowhere does a stopped run claim what it has not proved.
    assert!(stderr.contains("PARTIAL"), "{stderr}");
    assert!(!stderr.contains("cannot fail"), "{stderr}");
    let dir = tempfile::tempdir().unwrap();
    let doc = dir.path().join("explained.json");
    std::fs::write(&doc, &out.stdout).unwrap();
    let md = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .args(["report", doc.to_str().unwrap(), "--format", "md"])
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(
        md.contains("Partial: learning stopped before it finished"),
        "{md}"
    );
    assert!(!md.contains("cannot fail"), "{md}");
}

/// Where the program allocates and allocations may fail, a stop at the time budget names
/// `--allocations succeed` (on parson's parser it turns no answer into 8 s).
#[test]
fn a_stop_at_the_time_budget_names_allocations_where_the_program_allocates() {
    let dir = tempfile::tempdir().unwrap();
    let hard = std::fs::read_to_string(root().join("tests/programs/hard_factor.c"))
        .unwrap()
        .replace(
            "        found();",
            "        { char *p = malloc(4); if (p) found(); free(p); }",
        );
    std::fs::write(
        dir.path().join("hard_alloc.c"),
        format!("#include <stdlib.h>\n{hard}"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(dir.path())
        .args(["learn", "hard_alloc.c", "--no-cache", "--time-budget", "2"])
        .output()
        .unwrap();
    let (value, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(value["learned"]["stopped"], "time-budget", "{value}");
    assert!(stderr.contains("(--allocations succeed)"), "{stderr}");
}
