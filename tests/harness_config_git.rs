//! `harness = [...]` in the configuration files, with the real CBMC and real git: the
//! repository's harness is read from the committed `HEAD` (so it serves a tag that predates
//! it), the user's from anywhere, and a repository path that leaves the checkout is refused.

use crate::common::tokenizer::{HARNESS, HEADER, V1, V2, words};
use crate::common::{Repo, text};
use serde_json::Value;

/// A harness that does not compile: used to show which copy is read.
const BROKEN: &str = "int main(void) { this is not C }\n";

/// v1.0 without a harness; v2.0 with a broken copy of the harness file; HEAD with the
/// working harness and `config` as `.mergelens.toml`.
fn library(config: &str) -> Repo {
    let repo = Repo::new();
    repo.write("tok.h", HEADER);
    repo.git(&["add", "tok.h"]);
    repo.commit("tok.c", V1, "tokenizer 1.0");
    repo.git(&["tag", "v1.0"]);
    repo.write("tok.c", V2);
    repo.write("harness/tok_harness.c", BROKEN);
    repo.git(&["add", "tok.c", "harness/tok_harness.c"]);
    repo.git(&["commit", "-q", "-m", "tokenizer 2.0"]);
    repo.git(&["tag", "v2.0"]);
    repo.write("harness/tok_harness.c", HARNESS);
    repo.write(".mergelens.toml", config);
    repo.git(&["add", "harness/tok_harness.c", ".mergelens.toml"]);
    repo.git(&["commit", "-q", "-m", "a harness"]);
    repo
}

const ARGS: [&str; 7] = [
    "--unwind",
    "3",
    "--max-word-length",
    "6",
    "--format",
    "json",
    "--no-cache",
];

fn expect_added(out: &std::process::Output) {
    assert_eq!(out.status.code(), Some(1), "{}", text(out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = &doc["entries"][0];
    assert_eq!(
        entry["alphabet"],
        serde_json::json!(["token", "report", "count_tokens", "empty", "end"]),
        "{entry}"
    );
    assert!(words(&entry["removed"]).is_empty(), "{entry}");
    assert_eq!(
        words(&entry["added"]),
        ["count_tokens empty end".to_string()].into(),
        "{entry}"
    );
}

#[test]
fn the_repository_harness_comes_from_head_for_every_version() {
    let repo = library("harness = [\"harness/tok_harness.c\"]\ninclude-dirs = [\".\"]\n");
    // v1.0 has no harness, v2.0 a broken one: both are learned with HEAD's, and v2.0's copy
    // is no source of v2.0.
    let mut args = vec!["diff", "v1.0", "v2.0"];
    args.extend(ARGS);
    let out = repo.mergelens(&args);
    expect_added(&out);
    // An uncommitted change to the harness is not read: HEAD's blob is.
    repo.write("harness/tok_harness.c", BROKEN);
    let out = repo.mergelens(&args);
    expect_added(&out);
}

#[test]
fn the_user_harness_serves_a_repository_without_one() {
    let repo = library("include-dirs = [\".\"]\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("h.c"), HARNESS).unwrap();
    // Relative to the user file's directory.
    let dir = repo.home().join(".config/mergelens");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(outside.path().join("h.c"), dir.join("tok_harness.c")).unwrap();
    repo.user_config(Some("harness = [\"tok_harness.c\"]\n"));
    let mut args = vec!["diff", "v1.0", "v2.0", "--files", "tok.c"];
    args.extend(ARGS);
    expect_added(&repo.mergelens(&args));
    // --harness wins over the user file.
    let broken = outside.path().join("broken.c");
    std::fs::write(&broken, BROKEN).unwrap();
    let mut args = vec![
        "diff",
        "v1.0",
        "v2.0",
        "--files",
        "tok.c",
        "--harness",
        broken.to_str().unwrap(),
    ];
    args.extend(ARGS);
    let out = repo.mergelens(&args);
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    assert_ne!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn a_repository_harness_outside_the_checkout_is_refused() {
    for (path, why) in [("../h.c", ".."), ("/tmp/h.c", "absolute")] {
        let repo = library(&format!("harness = [\"{path}\"]\n"));
        let out = repo.mergelens(&["diff", "v1.0", "v2.0", "--no-cache"]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&format!("harness = \"{path}\" is refused")) && stderr.contains(why),
            "{stderr}"
        );
    }
    // Named but not committed.
    let repo = library("harness = [\"harness/other.c\"]\n");
    repo.write("harness/other.c", HARNESS);
    let out = repo.mergelens(&["diff", "v1.0", "v2.0", "--no-cache"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not in the committed HEAD"),
        "{}",
        text(&out)
    );
}
