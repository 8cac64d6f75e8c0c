//! Reviewing merges that exist (issue 21) on real repositories with the real CBMC:
//! `review --commit` reviews a merge commit as it was committed, manual conflict
//! resolutions included, and refuses what is no merge of two branches.

use crate::common;

use crate::common::{Repo, example_words, text};
use serde_json::Value;

/// `main` calls `a` then `CALL`: base `b`, ours `c`, theirs `d`, so git cannot merge them.
fn program(call: &str) -> String {
    format!(
        "void a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\nvoid d(void) {{}}\nvoid e(void) {{}}\n\nint main(void)\n{{\n    a();\n    {call}();\n    return 0;\n}}\n"
    )
}

/// A conflicted merge of feature into main, resolved by hand with a call of `resolution`.
fn resolved(resolution: &str) -> Repo {
    let repo = Repo::new();
    repo.commit("prog.c", &program("b"), "base");
    repo.git(&["branch", "feature"]);
    repo.commit("prog.c", &program("c"), "ours");
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit("prog.c", &program("d"), "theirs");
    repo.git(&["checkout", "-q", "main"]);
    let out = repo.run_git(&["merge", "-q", "feature", "-m", "merge feature"], &[]);
    assert!(!out.status.success(), "git merged it: {}", text(&out));
    repo.commit("prog.c", &program(resolution), "merge feature, resolved");
    repo
}

fn review_commit(repo: &Repo, rev: &str) -> (Option<i32>, Value, String) {
    let out = repo.mergelens(&["review", "--commit", rev, "--format", "json"]);
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), doc, text(&out))
}

#[test]
fn a_conflict_resolved_by_hand_into_what_neither_branch_meant_is_reviewed_as_committed() {
    let repo = resolved("e");
    let (_, doc, said) = review_commit(&repo, "HEAD");
    // git's own merge conflicts; the commit's tree is what is reviewed.
    assert_eq!(doc["conflicts"], serde_json::json!([]), "{said}");
    assert_eq!(doc["revisions"]["merged"], repo.head(), "{said}");
    assert_eq!(
        doc["revisions"]["theirs"],
        repo.git(&["rev-parse", "HEAD^2"])
    );
    let entry = &doc["entries"][0];
    assert_eq!(example_words(&entry["unexpected"]), ["a e end"], "{said}");
    assert_eq!(
        example_words(&entry["lost"]),
        ["a c end", "a d end"],
        "{said}"
    );
    assert_ne!(doc["verdict"], "clean", "{said}");
    assert!(
        said.contains("the merge commit HEAD as committed")
            || doc
                .to_string()
                .contains("the merge commit HEAD as committed")
    );

    // Resolved as ours: nothing neither branch meant, and theirs' change is lost.
    let repo = resolved("c");
    let (_, doc, said) = review_commit(&repo, "HEAD");
    let entry = &doc["entries"][0];
    assert!(example_words(&entry["unexpected"]).is_empty(), "{said}");
    assert_eq!(example_words(&entry["lost"]), ["a d end"], "{said}");
}

#[test]
fn a_commit_that_is_no_merge_of_two_branches_is_refused_in_one_line() {
    let repo = resolved("e");
    let (code, _, said) = review_commit(&repo, "HEAD^1");
    assert_eq!(code, Some(2), "{said}");
    assert!(
        said.contains("HEAD^1 is not a merge of two branches: it has 1 parent(s)")
            && said.contains("mergelens diff REV^ REV"),
        "{said}"
    );
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    // An octopus merge of three branches.
    for branch in ["one", "two"] {
        repo.git(&["checkout", "-q", "-b", branch, "main"]);
        repo.commit(&format!("{branch}.txt"), "x\n", branch);
    }
    repo.git(&["checkout", "-q", "main"]);
    repo.commit("main.txt", "x\n", "main");
    repo.git(&["merge", "-q", "one", "two", "-m", "octopus"]);
    assert_eq!(
        repo.git(&["rev-list", "--parents", "-n1", "HEAD"])
            .split(' ')
            .count(),
        4
    );
    let (code, _, said) = review_commit(&repo, "HEAD");
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("3 parent(s); an octopus merge"), "{said}");
    let (code, _, said) = review_commit(&repo, "no-such-rev");
    assert_eq!(code, Some(2), "{said}");
}

#[test]
fn the_hook_stops_at_the_owners_budget_and_says_how_to_finish_after_the_merge() {
    let repo = common::many_executions();
    repo.commit(
        ".mergelens.toml",
        "unwind = 15\nmax-word-length = 20\nhook-time-budget = 2\n",
        "settings",
    );
    let out = repo.mergelens(&["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    let said = text(&out);
    // Unfinished, which the default fail-on lets through: the merge is committed, and the
    // hook says which it was and what would block it.
    assert!(out.status.success(), "{said}");
    assert!(said.contains("verdict: unfinished"), "{said}");
    assert!(
        said.contains("unfinished: the review stopped at the 2 s budget")
            && said
                .contains("the merge goes ahead unfinished: fail-on = [\"unexpected\", \"lost\"]")
            && said.contains("the time budget ran out")
            && said
                .contains("to finish the review after the merge: mergelens review --commit HEAD"),
        "{said}"
    );
    let (code, doc, said) = review_commit(&repo, "HEAD");
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    assert_eq!(
        doc["entries"][0]["execution_check"]["quadruples"], 15,
        "{said}"
    );
}

#[test]
fn a_configuration_file_stands_in_for_one_the_first_parent_lacks() {
    let repo = resolved("e");
    let outside = tempfile::tempdir().unwrap();
    let config = outside.path().join("review.toml");
    std::fs::write(&config, "max-word-length = 3\nunwind = 1\n").unwrap();
    let out = repo.mergelens(&[
        "review",
        "--commit",
        "HEAD",
        "--config",
        config.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["bounds"]["max_word_length"], 3, "{}", text(&out));
    assert_eq!(doc["bounds"]["unwind"], 1, "{}", text(&out));
    // A program to run is no configuration's to name, trusted or not: one clear line.
    std::fs::write(&config, "cbmc = \"/bin/sh\"\n").unwrap();
    let out = repo.mergelens(&[
        "review",
        "--commit",
        "HEAD",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--cbmc"), "{}", text(&out));
}
