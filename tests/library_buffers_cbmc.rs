//! Libraries as they are, against the real CBMC: a library whose internal buffers dwarf the
//! harness's input (a 200-byte line and a 64-entry table behind 3 input characters) and
//! that computes in floating point is learned at its own sizes, without redefining them,
//! and its language is the one the C code has.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use mergelens::automaton::analysis::words_up_to;
use mergelens::automaton::json;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_big_line_buffer_behind_a_short_input_is_learned_at_its_own_size() {
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("stats.json");
    let output = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(root())
        .env(
            "MERGELENS_CACHE_KEY",
            "the-cache-key-of-library-buffers-0123456789",
        )
        .args([
            "learn",
            "tests/programs/line_buffer.c",
            "--entry",
            "parse_short",
            "--only",
            "on_section,on_pair,on_big,on_error",
            "--unwind",
            "3",
            "--max-word-length",
            "4",
            "--no-cache",
            "--query-timeout",
            "300",
            "--stats",
        ])
        .arg(&stats)
        .output()
        .expect("run mergelens learn");
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{err}");
    let dfa = json::from_str(&String::from_utf8_lossy(&output.stdout), "stdout").unwrap();
    let words: BTreeSet<String> = words_up_to(&dfa, 64, 10_000)
        .unwrap()
        .iter()
        .map(|w| dfa.alphabet().format_word(w))
        .collect();
    // Three characters make at most three lines ("[\n=" is a section, then a pair); a value
    // of 7 or more is big only through the floating-point product (7 * 1.5 > 10).
    for expected in [
        "end",
        "on_section end",
        "on_pair end",
        "on_pair on_big end",
        "on_error end",
        "on_section on_pair end",
        "on_error on_error end",
    ] {
        assert!(
            words.contains(expected),
            "{expected} missing from {words:?}"
        );
    }
    for word in &words {
        assert!(
            !word.starts_with("on_big") && !word.contains("on_section on_big"),
            "a big value without a pair: {word}"
        );
    }
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(stats["bounds"]["unwind"], 3, "{stats}");
    assert!(stats["cbmc_runs"].as_u64().unwrap() <= 10, "{stats}");
}
