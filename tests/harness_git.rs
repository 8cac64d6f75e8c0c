//! Harnesses from outside the history (`--harness`), with the real CBMC and real git: a
//! small library with no `main`, reviewed across two release tags through a harness file
//! that is in no version, and learned directly with `mergelens learn --harness`.

use std::collections::BTreeSet;
use std::process::Command;

use crate::common::tokenizer::{HARNESS, HEADER, V1, V2, set, words};
use crate::common::{Repo, text};
use serde_json::Value;

#[test]
fn diff_across_tags_of_a_library_with_a_harness_from_outside_the_repository() {
    let repo = Repo::new();
    repo.write("tok.h", HEADER);
    repo.git(&["add", "tok.h"]);
    repo.commit("tok.c", V1, "tokenizer 1.0");
    repo.git(&["tag", "v1.0"]);
    repo.commit("tok.c", V2, "tokenizer 2.0: an empty buffer is an error");
    repo.git(&["tag", "v2.0"]);
    let outside = tempfile::tempdir().unwrap();
    let harness = outside.path().join("harness.c");
    std::fs::write(&harness, HARNESS).unwrap();

    // Without the harness no version defines `main`.
    let out = repo.mergelens(&["diff", "v1.0", "v2.0", "--format", "json"]);
    assert_ne!(out.status.code(), Some(1), "{}", text(&out));

    let args = [
        "diff",
        "v1.0",
        "v2.0",
        "-I",
        ".",
        "--harness",
        harness.to_str().unwrap(),
        "--unwind",
        "3",
        "--format",
        "json",
        "--no-cache",
    ];
    // A plain progress line every 0.1 s: standard error is a pipe here, as in a hook or CI.
    let out = repo
        .command(
            std::path::Path::new(env!("CARGO_BIN_EXE_mergelens")),
            &[("MERGELENS_PROGRESS_SECS", "0.1")],
        )
        .args(args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("mergelens: progress: reviewing: ") && l.contains("(main)")),
        "{stderr}"
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = &doc["entries"][0];
    // The library's functions are the letters; the harness's own (`main`, `fill`) are not.
    assert_eq!(
        entry["alphabet"],
        serde_json::json!(["token", "report", "count_tokens", "empty", "end"]),
        "{entry}"
    );
    // 2.0 reports an empty buffer instead of counting nothing; a buffer without an `a`
    // still gives `count_tokens report end`, so nothing is lost.
    assert!(words(&entry["removed"]).is_empty(), "{entry}");
    assert_eq!(
        words(&entry["added"]),
        set(&["count_tokens empty end"]),
        "{entry}"
    );
    // The harness is not in the repository, and the work tree is untouched.
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn learn_compiles_the_harness_with_the_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tok.h"), HEADER).unwrap();
    std::fs::write(dir.path().join("tok.c"), V2).unwrap();
    std::fs::write(dir.path().join("harness.c"), HARNESS).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(dir.path())
        .args(["learn", "tok.c", "--harness", "harness.c", "--no-cache"])
        .args(["--unwind", "3", "--max-word-length", "6"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let dfa = mergelens::automaton::json::from_str(&String::from_utf8_lossy(&out.stdout), "learn")
        .unwrap();
    let names: Vec<&str> = dfa.alphabet().names().collect();
    assert_eq!(names, ["token", "report", "empty", "count_tokens", "end"]);
    let words: BTreeSet<String> = mergelens::automaton::analysis::words_up_to(&dfa, 6, 1000)
        .unwrap()
        .iter()
        .map(|w| dfa.alphabet().format_word(w))
        .collect();
    assert_eq!(
        words,
        set(&[
            // The harness returns at once on a length over its buffer's.
            "end",
            "count_tokens empty end",
            "count_tokens report end",
            "count_tokens token report end",
            "count_tokens token token report end",
        ])
    );
}
