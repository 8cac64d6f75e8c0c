//! `--time-budget` for `review` and `diff`, with the real CBMC and real git: a merge of a
//! program slow enough to be stopped ends with the document of what was learned and the
//! verdict `unfinished` (never `inconclusive`, which is for a finished check short of its
//! bounds); the exit code follows `fail-on`.

use std::path::Path;
use std::time::Duration;

use crate::common::work::{on_every_core, output_and_cpu};
use crate::common::{Repo, text};
use serde_json::Value;

/// `tests/programs/hash_loop.c`: every query is a real CBMC run; at these bounds learning
/// takes CBMC tens of seconds.
const SLOW: &str = include_str!("programs/hash_loop.c");

const BOUNDS: [&str; 5] = ["--unwind", "5", "--max-word-length", "8", "--no-cache"];

/// A merge of two branches that each add a call to `main`: ours at its end, theirs first.
fn slow_merge() -> Repo {
    let repo = Repo::new();
    repo.commit("main.c", SLOW, "base");
    repo.git(&["branch", "feature"]);
    let ours = SLOW
        .replace("void c(void) {}", "void c(void) {}\nvoid d(void) {}")
        .replace("    return 0;\n}", "    d();\n    return 0;\n}");
    repo.commit("main.c", &ours, "ours: d");
    repo.git(&["checkout", "-q", "feature"]);
    // Theirs calls `e` first: both branches change what `main` runs, so nothing is judged
    // without learning.
    let theirs = SLOW
        .replace(
            "int nondet_int(void);",
            "int nondet_int(void);\nvoid e(void) {}",
        )
        .replace(
            "    unsigned h = nondet_uint();\n",
            "    e();\n    unsigned h = nondet_uint();\n",
        );
    repo.commit("main.c", &theirs, "theirs: e");
    repo.git(&["checkout", "-q", "main"]);
    repo
}

#[test]
fn a_review_stopped_by_the_budget_is_unfinished_with_what_it_learned() {
    let repo = slow_merge();
    let mut args = vec![
        "review",
        "feature",
        "--time-budget",
        "4",
        "--format",
        "json",
    ];
    args.extend(BOUNDS);
    let bin = Path::new(env!("CARGO_BIN_EXE_mergelens"));
    let (out, cpu) = output_and_cpu(repo.command(bin, &[]).args(&args));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The work of about the budget on every core, not of the whole learning (the review
    // and its CBMC runs, in CPU time: a loaded machine stretches the wall clock, not this).
    assert!(
        cpu < on_every_core(Duration::from_secs(30)),
        "{cpu:?} of CPU"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unfinished: the review stopped at the 4 s budget"),
        "{stderr}"
    );
    assert!(stderr.contains("verdict: unfinished"), "{stderr}");
    assert!(
        stderr.contains(
            "  unfinished: base (main): learning stopped early (the time budget ran out)"
        ),
        "{stderr}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "unfinished", "{doc}");
    // The stop is no shortfall of a finished check.
    let shortfalls = doc["inconclusive"].as_array().map_or(0, Vec::len);
    assert!(
        !doc["inconclusive"].to_string().contains("stopped"),
        "{shortfalls}: {doc}"
    );
    let reasons: Vec<&str> = doc["unfinished"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("base (main): learning stopped early (the time budget ran out)")),
        "{reasons:?}"
    );
    // Every version has an automaton in the document, learned or not.
    let automata = &doc["entries"][0]["automata"];
    for v in ["base", "ours", "theirs", "merged"] {
        assert!(automata[v].is_object(), "{v}: {automata}");
    }
    // The report is kept as always.
    assert!(repo.path().join(".git/mergelens/last-review.json").exists());

    // A fail-on that names unfinished makes it a failure: the list form, `inconclusive`
    // (which includes it), and `--also-fail-on` on top of the default.
    for fail_on in [
        ["--fail-on", "unexpected,unfinished"],
        ["--fail-on", "inconclusive"],
        ["--also-fail-on", "unfinished"],
    ] {
        let mut args = vec!["review", "feature", "--time-budget", "1"];
        args.extend(fail_on);
        args.extend(BOUNDS);
        let out = repo.mergelens(&args);
        assert_eq!(out.status.code(), Some(1), "{fail_on:?}: {}", text(&out));
        assert!(text(&out).contains("verdict: unfinished"), "{}", text(&out));
    }
}

#[test]
fn a_diff_stopped_by_the_budget_is_inconclusive() {
    let repo = slow_merge();
    let mut args = vec![
        "diff",
        "main~1",
        "main",
        "--time-budget",
        "3",
        "--format",
        "json",
    ];
    args.extend(BOUNDS);
    let out = repo.mergelens(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("inconclusive:"), "{stderr}");
    assert!(
        stderr.contains("old (main): learning stopped early"),
        "{stderr}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reasons = doc["inconclusive"].as_array().unwrap();
    assert!(
        reasons.iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("old (main): learning stopped early")),
        "{reasons:?}"
    );
    // A fail-on that names `unfinished` fails a diff that did not finish.
    let mut args = vec!["diff", "main~1", "main", "--time-budget", "1"];
    args.extend(["--fail-on", "unfinished"]);
    args.extend(BOUNDS);
    let out = repo.mergelens(&args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn hunks_the_budget_kept_from_the_coverage_check_are_unchecked_never_unreached() {
    let repo = slow_merge();
    let mut args = vec![
        "review",
        "feature",
        "--time-budget",
        "3",
        "--format",
        "json",
    ];
    args.extend(BOUNDS);
    let out = repo.mergelens(&args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let coverage = &doc["entries"][0]["coverage"];
    let hunks = coverage["hunks"].as_array().unwrap();
    assert!(!hunks.is_empty(), "{coverage}");
    for h in hunks {
        assert_eq!(h["reached"], false, "{h}");
        assert_eq!(h["unchecked"], "the time budget ran out first", "{h}");
        assert!(h.get("reached_at_unwind").is_none(), "{h}");
    }
    assert_eq!(coverage["counts"]["unreached"], 0, "{coverage}");
    assert_eq!(coverage["counts"]["unchecked"], hunks.len(), "{coverage}");
    assert!(!stderr.contains("never reached"), "{stderr}");
    // A run the budget stopped is no query that passed its timeout.
    assert!(!stderr.contains("timed out after"), "{stderr}");
    assert!(
        stderr.contains("changed hunks unchecked: the time budget ran out first"),
        "{stderr}"
    );
}
