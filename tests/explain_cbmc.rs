//! `mergelens explain` against the real CBMC: the language of an assertion failure (Eq. 4 of
//! Chockler et al., JAIR 2020) on the programs of the paper's Fig. 2, 6, 8 and 10 and on
//! programs written for these tests, compared with the hand-derived automata of
//! `tests/fixtures/explain_*/`; target selection and its errors; debug traces; outputs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mergelens::automaton::analysis::words_up_to;
use mergelens::automaton::{Dfa, json};
use mergelens::cprog::{AssertionTarget, FrontEndConfig, instrument_error, syntax_automaton};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `mergelens explain ARGS --no-cache` from the repository root.
fn explain(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(root())
        .arg("explain")
        .args(args)
        .arg("--no-cache")
        .output()
        .expect("run mergelens explain")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The accepted words of at most `max_len` letters, by letter name.
fn words(d: &Dfa, max_len: usize) -> BTreeSet<String> {
    words_up_to(d, max_len, 100_000)
        .unwrap()
        .iter()
        .map(|w| d.alphabet().format_word(w))
        .collect()
}

fn case_args(case: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(case.join("explain.txt")).unwrap();
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap();
    line.split_whitespace().map(str::to_string).collect()
}

fn max_word_length(args: &[String]) -> usize {
    args.iter()
        .position(|a| a == "--max-word-length")
        .map_or(10, |i| args[i + 1].parse().unwrap())
}

#[test]
fn every_explain_case_learns_its_expected_language() {
    let fixtures = root().join("tests/fixtures");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|c| c.join("explain.txt").is_file())
        .collect();
    cases.sort();
    assert!(cases.len() >= 8, "{cases:?}");
    for case in cases {
        let args = case_args(&case);
        let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = explain(&arg_refs);
        assert!(
            output.status.success(),
            "{}: {}",
            case.display(),
            stderr(&output)
        );
        let learned = json::from_str(&String::from_utf8_lossy(&output.stdout), "stdout").unwrap();
        let expected = json::read(&case.join("expected.json")).unwrap();
        let n = max_word_length(&args);
        assert_eq!(
            words(&learned, n),
            words(&expected, n),
            "{}: the languages differ within {n} letters",
            case.display()
        );
        assert_eq!(
            learned,
            mergelens::automaton::ops::minimize(&learned),
            "{}: not minimal",
            case.display()
        );
        assert_eq!(stderr(&output).lines().count(), 1, "{}", stderr(&output));
    }
}

#[test]
fn auto_bounds_raise_the_unwinding_until_the_failure_appears_and_stops_changing() {
    // The assertion fails only in the third iteration: at unwinding 1 the language is
    // empty, which must not pass for converged.
    let output = explain(&[
        "tests/programs/explain_loop_k.c",
        "--auto-bounds",
        "--max-unwind",
        "5",
        "--max-word-length",
        "6",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let d = json::from_value(value.clone(), "explain output").unwrap();
    assert_eq!(
        words(&d, 6),
        BTreeSet::from(["step step step assert".to_string()])
    );
    // It stopped because the automaton stopped changing, before the largest unwinding.
    assert!(
        value["bounds"]["unwind"].as_u64().unwrap() < 5,
        "{}",
        value["bounds"]
    );
    assert!(
        !stderr(&output).contains("still changed"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn the_json_output_carries_the_explain_metadata() {
    let output = explain(&["tests/programs/explain_fig8.c"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["format"], "mergelens-dfa/1");
    assert_eq!(value["kind"], "explain");
    assert_eq!(value["entry"], "main");
    assert!(
        value["assertion"]
            .as_str()
            .unwrap()
            .ends_with("explain_fig8.c:19: assert(input < 20)"),
        "{}",
        value["assertion"]
    );
    let explained = &value["explained"];
    assert_eq!(explained["assertion_id"], "main.assertion.1");
    assert_eq!(explained["empty"], false);
    assert_eq!(explained["shortest"], serde_json::json!(["F F G H assert"]));
    // Every failing run calls G and H (and F); `assert` itself is not named.
    assert_eq!(explained["dominating"], serde_json::json!(["F", "G", "H"]));
    // The control-flow pre-check admits four words: one batch answers them all, and
    // nothing is left to guess.
    let summary = stderr(&output);
    assert!(summary.starts_with("explained "), "{summary}");
    assert!(
        summary.contains("1 CBMC runs") && summary.contains("no guesses"),
        "{summary}"
    );

    // With longer words the pre-check admits more than one batch: lazy learning guesses
    // "no" and reports the paper's p.
    let output = explain(&["tests/programs/explain_order.c", "--max-word-length", "12"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(
        value["explained"]["guess_accuracy_p"].as_f64().unwrap() > 0.9,
        "{value}"
    );
    let summary = stderr(&output);
    assert!(
        summary.contains("guessed \"no\"") && summary.contains("p = "),
        "{summary}"
    );
}

#[test]
fn an_assertion_that_cannot_fail_gives_the_empty_language() {
    let output = explain(&["tests/programs/explain_never.c"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("empty language"),
        "{}",
        stderr(&output)
    );
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["explained"]["empty"], true);
    assert_eq!(value["accepting"], serde_json::json!([]));
    // The only assertion is the target without a run that checks it first: learning finds
    // that it holds.
    assert!(
        value["stats"]["cbmc_runs"].as_u64().unwrap() >= 1,
        "{value}"
    );
    assert!(
        stderr(&output).contains("(+1 to find the assertion)"),
        "{}",
        stderr(&output)
    );

    // Named by its id, the target is not checked first: the learner finds the same.
    let output = explain(&[
        "tests/programs/explain_never.c",
        "--assertion",
        "check.assertion.1",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let named: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(named["explained"]["empty"], true);
    assert!(named["stats"]["cbmc_runs"].as_u64().unwrap() >= 1);
}

/// An assertion that fails only after a failed allocation: explained by default; with
/// `--allocations succeed` the language is empty, and both outputs say under which model.
#[test]
fn an_assertion_failing_only_when_malloc_fails_is_empty_when_allocations_succeed() {
    let program = "tests/programs/allocation_assert.c";
    let output = explain(&[program]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["explained"]["empty"], false, "{value}");
    assert_eq!(value["bounds"]["allocations"], "may-fail", "{value}");
    let dfa = json::from_str(&String::from_utf8_lossy(&output.stdout), "stdout").unwrap();
    assert!(
        words(&dfa, 10).contains("out_of_memory fill assert"),
        "{value}"
    );

    let output = explain(&[program, "--allocations", "succeed"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(value["explained"]["empty"], true, "{value}");
    assert_eq!(value["bounds"]["allocations"], "succeed", "{value}");
    // A report made from the document says it too (the bounds' notes).
    assert!(
        value["bounds"]["notes"][0]
            .as_str()
            .is_some_and(|n| n.starts_with("Allocations were assumed to succeed")),
        "{value}"
    );
    let err = stderr(&output);
    assert!(
        err.contains("empty language") && err.contains("allocations assumed to succeed"),
        "{err}"
    );
}

/// CBMC's malloc model has assertions of its own; they are no choice, so the program's one
/// assertion is the target with nothing but the listing run (`--show-properties`), not the
/// run that checks the whole program at the bounds.
#[test]
fn the_library_models_assertions_are_no_choice() {
    let output = explain(&["tests/programs/explain_malloc.c"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("(+1 to find the assertion)"), "{text}");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        value["explained"]["assertion_id"], "main.assertion.1",
        "{value}"
    );
    assert_eq!(value["explained"]["empty"], false, "{value}");
}

#[test]
fn several_failing_assertions_are_listed_to_choose_from() {
    let output = explain(&["tests/programs/explain_two.c"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains("--assertion"), "{text}");
    assert!(lines[1].starts_with("main.assertion.1  ") && lines[1].contains("explain_two.c:14"));
    assert!(lines[2].starts_with("main.assertion.2  ") && lines[2].contains("explain_two.c:16"));
}

#[test]
fn bad_targets_list_the_assertions_that_exist() {
    let output = explain(&[
        "tests/programs/explain_two.c",
        "--assertion",
        "main.assertion.7",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("main.assertion.7") && text.contains("main.assertion.2"),
        "{text}"
    );
    let output = explain(&[
        "tests/programs/explain_two.c",
        "--line",
        "tests/programs/explain_two.c:15",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("no assertion at") && text.contains(":16: assert(x != 1)"),
        "{text}"
    );
    let output = explain(&["tests/programs/explain_two.c", "--line", "nowhere"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    // loop_calls.c has no assertion at all.
    let output = explain(&["tests/programs/loop_calls.c"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("no assertion"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn traces_replay_each_example_word_and_are_linked() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("fig8.json");
    let traces = work.path().join("traces");
    let output = explain(&[
        "tests/programs/explain_fig8.c",
        "--traces",
        traces.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let link = value["traces"]["F F G H assert"].as_str().unwrap();
    assert_eq!(link, "traces/trace-1.json");
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.path().join(link)).unwrap()).unwrap();
    assert_eq!(
        trace["word"],
        serde_json::json!(["F", "F", "G", "H", "assert"])
    );
    // The input that makes it fail: nondet_int() returned at least 20.
    let input = trace["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["lhs"] == "return_value_nondet_int")
        .expect("the input is in the trace");
    let value: i64 = input["value"]["data"].as_str().unwrap().parse().unwrap();
    assert!(value >= 20, "{input}");
    // No harness internals.
    let text = trace.to_string();
    assert!(!text.contains("\"lhs\":\"__mergelens_"), "{text}");
}

#[test]
fn dot_svg_and_html_outputs() {
    for (format, start) in [
        ("dot", "digraph"),
        ("svg", "<?xml"),
        ("html", "<!DOCTYPE html"),
    ] {
        let output = explain(&["tests/programs/explain_order.c", "--format", format]);
        assert!(output.status.success(), "{format}: {}", stderr(&output));
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            text.trim_start()
                .to_lowercase()
                .starts_with(&start.to_lowercase()),
            "{format}: {}",
            &text[..text.len().min(80)]
        );
    }
}

#[test]
fn the_baseline_learns_the_same_language() {
    let output = explain(&[
        "tests/programs/explain_loop_k.c",
        "--unwind",
        "4",
        "--max-word-length",
        "6",
        "--baseline",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let d = json::from_str(&String::from_utf8_lossy(&output.stdout), "stdout").unwrap();
    assert_eq!(
        words(&d, 6),
        BTreeSet::from(["step step step assert".to_string()])
    );
}

#[test]
fn error_mode_instruments_the_target_and_prechecks_the_shape() {
    let dir = tempfile::tempdir().unwrap();
    let file = root().join("tests/programs/explain_two.c");
    let config = FrontEndConfig::new(vec![file.clone()]);
    let target = AssertionTarget {
        file: file.clone(),
        line: 16,
        index: None,
    };
    let program = instrument_error(&config, &target, dir.path()).unwrap();
    let names: Vec<&str> = program.alphabet.names().collect();
    assert_eq!(names, ["a", "b", "assert"]);
    assert_eq!(program.alphabet.name(program.end), "assert");
    let targets: Vec<u32> = program
        .assertions
        .iter()
        .filter(|a| a.target)
        .map(|a| a.line)
        .collect();
    assert_eq!(targets, [16]);
    assert_eq!(program.assertions.len(), 2);
    let text = std::fs::read_to_string(&program.path).unwrap();
    assert_eq!(text.matches("__mergelens_end()").count(), 1, "{text}");
    assert!(
        text.contains("__mergelens_exit()"),
        "the entry's return is an exit point"
    );
    assert!(
        !text.contains("__assert_fail (\"0\""),
        "the other assertion is gone"
    );
    // Pre-check: `assert` last and once.
    let d = syntax_automaton(&program, 3, 10);
    let word = |w: &[&str]| -> Vec<u32> {
        w.iter()
            .map(|n| program.alphabet.letter(n).unwrap())
            .collect()
    };
    assert!(d.accepts(&word(&["a", "b", "assert"])));
    assert!(!d.accepts(&word(&["assert", "b"])));
    assert!(!d.accepts(&word(&["a", "assert", "assert"])));
    assert!(!d.accepts(&word(&["a", "b"])));
    // Another target, another fingerprint (so the answer cache never mixes them).
    let other = instrument_error(
        &config,
        &AssertionTarget { line: 14, ..target },
        tempfile::tempdir().unwrap().path(),
    )
    .unwrap();
    assert_ne!(program.fingerprint(), other.fingerprint());
}

/// A CBMC installation in `dir/bin` whose `cbmc`, `goto-cc` and `goto-instrument` append
/// their name and arguments to `dir/calls.log`, then run the real tool; the path of its
/// `cbmc` and of the log.
fn logged_tools(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let real = mergelens::cbmc::Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let log = dir.join("calls.log");
    for (name, tool) in [
        ("cbmc", &real.cbmc),
        ("goto-cc", &real.goto_cc),
        ("goto-instrument", &real.goto_instrument),
    ] {
        let path = bin.join(name);
        let script = format!(
            "#!/bin/sh\necho \"{name} $*\" >>'{}'\nexec '{}' \"$@\"\n",
            log.display(),
            tool.display()
        );
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    (bin.join("cbmc"), log)
}

#[test]
fn a_syntax_error_is_reported_before_any_cbmc_run() {
    // Without --assertion the target is found by running CBMC; the front end's checks come
    // first. A CBMC that does not exist proves that none ran: finding it would fail with
    // exit code 5 (tool missing), but the syntax error (exit code 2) comes first. The real
    // tools behind scripts that log each call prove it where CBMC is found.
    let dir = tempfile::tempdir().unwrap();
    let (logged, log) = logged_tools(dir.path());
    for cbmc in [logged.to_str().unwrap(), "/nonexistent/mergelens-test/cbmc"] {
        let output = explain(&["tests/programs/syntax_error.c", "--cbmc", cbmc]);
        let text = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{text}");
        assert!(text.contains("syntax_error.c:7:"), "{text}");
        assert!(text.contains("C syntax error"), "{text}");
    }
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let runs: Vec<&str> = calls
        .lines()
        .filter(|l| !l.ends_with(" --version"))
        .collect();
    assert!(runs.is_empty(), "{calls}");
    // The scripts do log: a call of their own is in the log.
    let version = Command::new(&logged).arg("--version").output().unwrap();
    assert!(version.status.success(), "{version:?}");
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        calls.lines().any(|l| l.ends_with("cbmc --version")),
        "{calls}"
    );
    // The same for a missing entry function.
    let output = explain(&[
        "tests/programs/explain_two.c",
        "--entry",
        "nowhere",
        "--cbmc",
        "/nonexistent/mergelens-test/cbmc",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("`nowhere`"), "{}", stderr(&output));
}

#[test]
fn a_harness_file_defines_the_entry_of_the_assertion_search_too() {
    // Without --assertion or --line, one CBMC run lists the failing assertions: it must
    // compile the harness that defines the entry, as learning does.
    let output = explain(&[
        "tests/programs/explain_lib.c",
        "--harness",
        "tests/programs/explain_lib_harness.c",
        "--entry",
        "harness",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        value["explained"]["shortest"],
        serde_json::json!(["step log_value assert"])
    );
}
