//! Kept formulas against the real CBMC: from the second query at a bounds on, membership
//! and conjecture queries are answered by a SAT solver on the formula CBMC wrote once, and
//! the automaton is the one learned without it.

use std::path::Path;
use std::process::Command;

use mergelens::automaton::analysis::equivalence_witness;
use mergelens::automaton::{Dfa, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Learns `tests/programs/hash_loop.c` at `--unwind 3 --max-word-length 12` with `extra`;
/// returns the automaton and the statistics.
fn learn(extra: &[&str]) -> (Dfa, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("stats.json");
    let out = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(root())
        .args(["learn", "tests/programs/hash_loop.c", "--no-cache"])
        .args(["--unwind", "3", "--max-word-length", "12", "--stats"])
        .arg(&stats)
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let dfa = json::from_str(&String::from_utf8_lossy(&out.stdout), "learn").unwrap();
    let stats = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    (dfa, stats)
}

#[test]
fn answers_from_a_kept_formula_learn_the_automaton_cbmc_runs_learn() {
    let (kept, stats) = learn(&[]);
    // The paper's lazy learning keeps no formula: every answer is a CBMC run's.
    let (runs_only, paper) = learn(&["--paper-lazy"]);
    assert_eq!(paper["teacher"]["formula_answers"], 0, "{paper}");
    let answered = stats["teacher"]["formula_answers"].as_u64().unwrap();
    assert!(answered > 0, "no answer from the formula: {stats}");
    assert!(
        stats["cbmc_runs"].as_u64() < paper["cbmc_runs"].as_u64(),
        "{stats}\n{paper}"
    );
    assert!(
        equivalence_witness(&kept, &runs_only).is_none(),
        "different languages: {stats}"
    );
}
