//! Coverage of the change (issue 14): whether some execution within the bounds reaches each
//! changed hunk, with the real CBMC and real git repositories.

use crate::common;

use crate::common::{Repo, text};
use serde_json::Value;

/// `c()` once per iteration of a loop of nondeterministic length `n`; `before` runs before
/// the loop (line 9), `late` only when `n > 3` (line 14), that is after a fourth iteration.
fn program(before: &str, late: &str) -> String {
    format!(
        "int nondet_int(void);\nvoid a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\n\n\
         int main(void)\n{{\n    int n = nondet_int();\n    {before}\n    \
         for (int i = 0; i < n; i++) {{\n        c();\n    }}\n    \
         if (n > 3) {{\n        {late}\n    }}\n    return 0;\n}}\n"
    )
}

fn hunks(entry: &Value) -> Vec<(String, String, u64, u64, bool)> {
    entry["coverage"]["hunks"]
        .as_array()
        .unwrap_or_else(|| panic!("no coverage in {entry}"))
        .iter()
        .map(|h| {
            (
                h["side"].as_str().unwrap().to_string(),
                h["file"].as_str().unwrap().to_string(),
                h["start_line"].as_u64().unwrap(),
                h["end_line"].as_u64().unwrap(),
                h["reached"].as_bool().unwrap(),
            )
        })
        .collect()
}

/// Base: the loop. Ours calls `a()` first (line 9); theirs calls `b()` after a fourth
/// iteration (line 14), which `--unwind 2` never runs.
fn merge() -> Repo {
    let repo = Repo::new();
    repo.commit("prog.c", &program("", ""), "base");
    repo.git(&["branch", "feature"]);
    repo.commit("prog.c", &program("a();", ""), "ours: a first");
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit("prog.c", &program("", "b();"), "theirs: b late");
    repo.git(&["checkout", "-q", "main"]);
    repo
}

#[test]
fn a_change_behind_a_loop_the_bounds_cut_makes_the_review_inconclusive() {
    let repo = merge();
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    // No finding; the default fail-on lets an inconclusive verdict through.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "inconclusive", "{}", text(&out));
    let entry = &doc["entries"][0];
    assert_eq!(
        hunks(entry),
        [
            ("ours".into(), "prog.c".into(), 9, 9, true),
            ("theirs".into(), "prog.c".into(), 14, 14, false),
        ]
    );
    let counts = &entry["coverage"]["counts"];
    assert_eq!(
        (&counts["hunks"], &counts["reached"], &counts["unreached"]),
        (&2.into(), &1.into(), &1.into()),
        "{counts}"
    );
    // n > 3 needs a fourth iteration: --unwind 4 (the limit of --auto-bounds) reaches it.
    assert_eq!(entry["coverage"]["hunks"][1]["reached_at_unwind"], 4);
    // The hunk is a call: the sentence names it.
    let sentence = "theirs' change at prog.c:14 is never reached within --unwind 2: its call of `b` never runs (--unwind 4 reaches it)";
    assert_eq!(doc["inconclusive"][0], sentence, "{}", doc["inconclusive"]);
    // The summary leads with it, right below the verdict.
    let summary = String::from_utf8_lossy(&out.stderr);
    let verdict_at = summary.find("verdict: inconclusive").expect("verdict");
    let sentence_at = summary.find(sentence).expect("the unreached change");
    assert!(verdict_at < sentence_at, "{summary}");
    let out = repo.mergelens(&["review", "main", "feature", "--fail-on", "inconclusive"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // A finished review that falls short is not unfinished: a fail-on that names
    // `unfinished` lets it through.
    assert_eq!(doc.get("unfinished"), None, "{doc}");
    let out = repo.mergelens(&[
        "review",
        "main",
        "feature",
        "--fail-on",
        "unexpected,unfinished",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // The reports lead with it too.
    let html =
        std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.html")).unwrap();
    assert!(html.contains("prog.c:14"), "the HTML names the hunk");
    let out = repo.mergelens(&["review", "main", "feature", "--format", "md"]);
    let md = String::from_utf8_lossy(&out.stdout);
    // Markdown escapes the backticks around the call's name.
    assert!(md.contains(&sentence.replace('`', "\\`")), "{md}");
    // At the bound that reaches it, the change is checked: the merge's `a c c c c b end`
    // is a word neither branch has, but on every execution it is the composition of both
    // changes (issue 12's per-execution verdict), so the merge is clean.
    let out = repo.mergelens(&[
        "review", "main", "feature", "--format", "json", "--unwind", "4",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "clean", "{}", text(&out));
    assert!(hunks(&doc["entries"][0]).iter().all(|h| h.4), "{doc}");
    assert!(!text(&out).contains("never reached"), "{}", text(&out));
}

#[test]
fn a_merge_whose_changes_all_run_keeps_its_verdict() {
    // The paper's Fig. 12: both branches' calls run within the default bounds.
    let repo = common::fig12();
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    // Both branches changed what follows funcA: an overlap (issue 12), which the default
    // fail-on lets through.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "overlapping", "{}", text(&out));
    let entry = &doc["entries"][0];
    // Ours adds a declaration (no code) and funcZ; theirs a declaration and a definition
    // (lines 2-3, funcC's body runs) and the choice.
    let file = common::demo_fig12::PROGRAM.to_string();
    assert_eq!(
        hunks(entry),
        [
            ("ours".into(), file.clone(), 7, 8, false),
            ("ours".into(), file.clone(), 12, 16, true),
            ("theirs".into(), file.clone(), 2, 3, true),
            ("theirs".into(), file, 13, 16, true),
        ]
    );
    assert_eq!(entry["coverage"]["hunks"][0]["code"], false);
    let counts = &entry["coverage"]["counts"];
    assert_eq!(
        (&counts["hunks"], &counts["reached"], &counts["unreached"]),
        (&4.into(), &3.into(), &0.into())
    );
    assert_eq!(doc.get("inconclusive"), None, "{doc}");
    assert!(!text(&out).contains("never reached"), "{}", text(&out));
}

#[test]
fn a_diff_with_an_unreached_change_is_inconclusive() {
    let repo = Repo::new();
    repo.commit("prog.c", &program("", ""), "v1");
    repo.git(&["tag", "v1"]);
    // A comment (no code) and a call after a fourth iteration.
    let v2 = program("/* nothing yet */", "b();");
    repo.commit("prog.c", &v2, "v2");
    repo.git(&["tag", "v2"]);
    let out = repo.mergelens(&["diff", "v1", "v2", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = &doc["entries"][0];
    let coverage = &entry["coverage"];
    assert_eq!(
        hunks(entry),
        [
            ("to".into(), "prog.c".into(), 9, 9, false),
            ("to".into(), "prog.c".into(), 14, 14, false),
        ],
        "{coverage}"
    );
    // A comment is neither reached nor unreached.
    assert_eq!(coverage["hunks"][0]["code"], false, "{coverage}");
    assert_eq!(coverage["counts"]["unreached"], 1, "{coverage}");
    assert_eq!(
        doc["inconclusive"][0],
        "v2's change at prog.c:14 is never reached within --unwind 2: its call of `b` never runs (--unwind 4 reaches it)"
    );
    assert!(
        text(&out).contains("inconclusive: behaviour unchanged within the bounds"),
        "{}",
        text(&out)
    );
    let out = repo.mergelens(&["diff", "v1", "v2", "--fail-on", "inconclusive"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

/// Eleven calls of `a` before theirs' new call: every execution has more calls than the
/// default word bound of 10, so the change is reached only at a longer word, and the hint
/// names `--max-word-length`, not `--unwind`.
#[test]
fn a_change_past_the_word_bound_names_the_word_length() {
    let body = |late: &str| {
        format!(
            "int nondet_int(void);\nvoid a(void) {{}}\nvoid c(void) {{}}\n\nint main(void)\n{{\n{}    if (nondet_int()) {{\n        {late}\n    }}\n    return 0;\n}}\n",
            "    a();\n".repeat(11)
        )
    };
    let repo = common::three_way(
        &body(""),
        // Ours calls a new `d` last, so that main's merge is neither branch's code alone.
        &body("")
            .replace("void c", "void d(void) {}\nvoid c")
            .replace("    return 0;", "    d();\n    return 0;"),
        &body("c();"),
    );
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    let said = text(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hunk = doc["entries"][0]["coverage"]["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["side"] == "theirs" && h["code"] != false)
        .cloned()
        .unwrap_or_else(|| panic!("{doc}"));
    assert_eq!(hunk["reached"], false, "{hunk}");
    assert_eq!(hunk["reached_at_word_length"], 15, "{hunk}");
    assert!(hunk.get("reached_at_unwind").is_none(), "{hunk}");
    assert!(
        said.contains(
            "(--max-word-length 15 reaches it: its executions make more calls than the word bound)"
        ),
        "{said}"
    );
}

/// `b()` once per iteration of a loop of nondeterministic length; `before` runs before the
/// loop (line 9), `inside` in the loop after `b()` (line 12).
fn loop_program(before: &str, inside: &str) -> String {
    format!(
        "int nondet_int(void);\nvoid a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\n\n\
         int main(void)\n{{\n    int n = nondet_int();\n    int k = 0;\n    {before}\n    \
         for (int i = 0; i < n; i++) {{\n        b();\n        {inside}\n    }}\n    \
         return k;\n}}\n"
    )
}

/// Issue 38: theirs adds `if (i == 2) c();` on one line of a loop that `--unwind 2` runs
/// at most twice. The condition runs, `c()` never does: the hunk is unreached, and the
/// sentence names `c` and the bound at which it runs.
#[test]
fn a_one_line_call_behind_its_condition_is_reached_only_when_the_call_runs() {
    let repo = common::three_way(
        &loop_program("", ""),
        &loop_program("a();", ""),
        &loop_program("", "if (i == 2) c();"),
    );
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "inconclusive", "{}", text(&out));
    let entry = &doc["entries"][0];
    assert_eq!(
        hunks(entry),
        [
            ("ours".into(), "prog.c".into(), 10, 10, true),
            ("theirs".into(), "prog.c".into(), 13, 13, false),
        ]
    );
    let theirs = &entry["coverage"]["hunks"][1];
    assert_eq!(theirs["calls"], serde_json::json!(["c"]), "{theirs}");
    assert_eq!(theirs["reached_at_unwind"], 3, "{theirs}");
    let sentence = "theirs' change at prog.c:13 is never reached within --unwind 2: its call of `c` never runs (--unwind 3 reaches it)";
    assert_eq!(doc["inconclusive"][0], sentence, "{}", doc["inconclusive"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains(sentence));
    let out = repo.mergelens(&["review", "main", "feature", "--format", "md"]);
    // Markdown escapes the backticks of the sentence's text.
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("its call of \\`c\\` never runs"), "{md}");
    // SARIF's result at the hunk's line names the call too.
    let out = repo.mergelens(&["review", "main", "feature", "--format", "sarif"]);
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    let at_hunk = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"] == 13)
        .unwrap_or_else(|| panic!("{sarif}"));
    let message = at_hunk["message"]["text"].as_str().unwrap();
    assert!(
        message.starts_with(
            "This change is never reached within --unwind 2 (its call of `c` never runs): "
        ),
        "{message}"
    );
    // At the bound where `c` runs, the change is checked and the merge composes both.
    let out = repo.mergelens(&[
        "review", "main", "feature", "--format", "json", "--unwind", "3",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "clean", "{}", text(&out));
    assert!(hunks(&doc["entries"][0]).iter().all(|h| h.4), "{doc}");
    assert!(!text(&out).contains("never reached"), "{}", text(&out));
}

/// A changed line without a call is reached when its statement runs, as before: theirs'
/// `if (i == 2) k++;` beside a new call of `c` on a line of its own that runs.
#[test]
fn a_changed_line_without_a_call_is_reached_by_its_statement() {
    let repo = common::three_way(
        &loop_program("", ""),
        &loop_program("a();", ""),
        &loop_program("c();", "if (i == 2) k++;"),
    );
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let entry = &doc["entries"][0];
    assert_eq!(
        hunks(entry),
        [
            ("ours".into(), "prog.c".into(), 10, 10, true),
            ("theirs".into(), "prog.c".into(), 10, 10, true),
            ("theirs".into(), "prog.c".into(), 13, 13, true),
        ],
        "{}",
        text(&out)
    );
    let theirs = &entry["coverage"]["hunks"];
    assert_eq!(theirs[1]["calls"], serde_json::json!(["c"]), "{theirs}");
    assert!(theirs[2].get("calls").is_none(), "{theirs}");
    assert!(!text(&out).contains("never reached"), "{}", text(&out));
}
