//! One bound for every part of a review (issue 19), on real repositories with the real
//! CBMC: the learner, the per-execution check and coverage see the same executions, so
//! interference in the last loop iteration or at the deepest recursion level the bound
//! allows is found at that bound; a change only a larger bound reaches is inconclusive
//! with the bound that reaches it; coverage counts complete executions only; a deletion
//! against a change inside the deleted call overlaps.

use crate::common::{Repo, text, three_way as merge, word};
use serde_json::Value;

/// Reviews feature into main as JSON: the exit code, the document and what was said.
fn review(repo: &Repo, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["review", "main", "feature", "--format", "json"];
    args.extend_from_slice(extra);
    let out = repo.mergelens(&args);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), doc, text(&out))
}

/// Ours makes the global grow by 2 instead of 1 each step; theirs alerts once it reaches
/// 3. With n = 2 steps only the merge alerts, in the second step.
fn growth(looped: bool) -> Repo {
    let program = |grow: &str, check: &str| {
        let step = format!("g = g + {grow};\n    step();\n{check}");
        let body = if looped {
            format!("    for (int i = 0; i < n; i++) {{\n        {step}    }}\n")
        } else {
            format!("    if (n <= 0)\n        return;\n    {step}    walk(n - 1);\n")
        };
        let walk = format!("void walk(int n)\n{{\n{body}}}\n");
        format!(
            "int nondet_int(void);\nint g;\nvoid step(void) {{}}\nvoid alert(void) {{}}\n\n{walk}\n/* between */\n\nint main(void)\n{{\n    int n = nondet_int();\n    if (n < 0 || n > 2)\n        return 0;\n    walk(n);\n    return 0;\n}}\n"
        )
    };
    let check = "    if (g >= 3)\n        alert();\n";
    merge(&program("1", ""), &program("2", ""), &program("1", check))
}

fn assert_found_at_the_bound(repo: &Repo) {
    let (code, doc, said) = review(repo, &["--unwind", "2"]);
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    assert_eq!(code, Some(1), "{said}");
    let s = &doc["entries"][0]["executions"][0];
    let merged = word(&s["merged"]);
    assert!(merged.contains("alert"), "{s}");
    assert!(!word(&s["expected"]).contains("alert"), "{s}");
    assert_eq!(s["input"]["tape"][0], 2, "{s}");
    // The learned merge has the word too: the learner saw this execution.
    let learned = &doc["entries"][0]["unexpected"];
    assert!(learned.to_string().contains("alert"), "{learned}");
}

#[test]
fn interference_in_the_last_loop_iteration_the_bound_allows_is_found_at_that_bound() {
    assert_found_at_the_bound(&growth(true));
}

#[test]
fn interference_at_the_deepest_recursion_the_bound_allows_is_found_at_that_bound() {
    assert_found_at_the_bound(&growth(false));
}

#[test]
fn a_change_only_a_larger_bound_reaches_is_inconclusive_with_that_bound() {
    // Theirs changes what the third iteration does; at --unwind 2 no complete execution
    // runs it, at --unwind 3 one does.
    let program = |third: &str| {
        format!(
            "int nondet_int(void);\nvoid step(void) {{}}\nvoid late(void) {{}}\n\nint main(void)\n{{\n    int n = nondet_int();\n    if (n < 0 || n > 3)\n        return 0;\n    for (int i = 0; i < n; i++) {{\n        step();\n        if (i == 2) {{\n            {third}\n        }}\n    }}\n    return 0;\n}}\n"
        )
    };
    // Ours calls a new `first` before the loop: the merge is neither branch's code alone.
    let ours = program("")
        .replace("void late", "void first(void) {}\nvoid late")
        .replace(
            "    int n = nondet_int();\n",
            "    first();\n    int n = nondet_int();\n",
        );
    let repo = merge(&program(""), &ours, &program("late();"));
    let (code, doc, said) = review(&repo, &["--unwind", "2"]);
    assert_eq!(doc["verdict"], "inconclusive", "{said}");
    assert_eq!(code, Some(0), "{said}");
    let hunks = &doc["entries"][0]["coverage"]["hunks"];
    assert_eq!(hunks[0]["side"], "ours", "{hunks}");
    let hunk = hunks
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["side"] == "theirs")
        .expect("theirs' hunk");
    assert_eq!(hunk["reached"], false, "{hunk}");
    assert_eq!(hunk["reached_at_unwind"], 3, "{hunk}");
    assert!(said.contains("--unwind 3"), "{said}");
    // And at that bound the learning shows it: the merge's new word is theirs' change.
    let (code, doc, said) = review(&repo, &["--unwind", "3"]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    assert_eq!(code, Some(0), "{said}");
    let learned = doc["entries"][0]["merge_minus_ours"].to_string();
    assert!(learned.contains("late"), "{learned}");
}

#[test]
fn a_deletion_against_a_change_inside_the_deleted_call_overlaps() {
    let program = |call: &str, body: &str| {
        format!(
            "void close_files(void) {{}}\nvoid sync_disk(void) {{}}\n\nvoid cleanup(void)\n{{\n    close_files();{body}\n}}\n\n/* between */\n\nint main(void)\n{{\n    {call}\n    return 0;\n}}\n"
        )
    };
    let repo = merge(
        &program("cleanup();", ""),
        &program("", ""),
        &program("cleanup();", "\n    sync_disk();"),
    );
    let (code, doc, said) = review(&repo, &["--fail-on", "lost"]);
    assert_eq!(doc["verdict"], "overlapping", "{said}");
    // The merge never syncs, which theirs added: lost, so `fail-on = lost` blocks it.
    assert_eq!(code, Some(1), "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(s["kind"], "overlapping", "{s}");
    assert_eq!(
        word(&s["theirs"]),
        "cleanup close_files sync_disk end",
        "{s}"
    );
    assert_eq!(word(&s["merged"]), "end", "{s}");
    assert_eq!(doc["entries"][0]["execution_check"]["lost"], 1, "{s}");
}
