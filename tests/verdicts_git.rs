//! Verdicts a reviewer can act on (issue 38), on real repositories with the real CBMC:
//! different calls two branches insert at the start, the middle and the end of one
//! execution compose (`clean`); an early return on one branch that skips the other
//! branch's new call loses that call, which the default `fail-on` blocks, in a review and
//! in the hook; a conflict resolved by hand into calls neither branch made is
//! `unexpected`, in `review --commit` and in `audit`.

use crate::common::{Repo, text, three_way as merge};
use serde_json::Value;

/// Reviews feature into main as JSON: the exit code, the document and what was said.
fn review(repo: &Repo, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = repo.mergelens(&all);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), doc, text(&out))
}

const FUNCTIONS: &str = "int nondet_int(void);\nvoid a(void) {}\nvoid b(void) {}\nvoid begin(void) {}\nvoid alpha(void) {}\nvoid x1(void) {}\nvoid x2(void) {}\nvoid audit(void) {}\n\n";

#[test]
fn different_calls_inserted_at_the_start_middle_and_end_compose() {
    let base = format!(
        "{FUNCTIONS}int main(void)\n{{\n    a();\n    /* one */\n    b();\n    /* two */\n    return 0;\n}}\n"
    );
    // Ours: `begin` first and `x1` last; theirs: `alpha` before `b` on some inputs and
    // `x2` after `b`. The merge runs `begin a alpha b x2 x1`: both changes.
    let ours = base
        .replace("    a();\n", "    begin();\n    a();\n")
        .replace("    /* two */\n", "    /* two */\n    x1();\n");
    let theirs = base
        .replace(
            "    /* one */\n",
            "    /* one */\n    if (nondet_int())\n        alpha();\n",
        )
        .replace("    b();\n", "    b();\n    x2();\n");
    let repo = merge(&base, &ours, &theirs);
    let (code, doc, said) = review(&repo, &["review", "main", "feature"]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    assert_eq!(code, Some(0), "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["complete"], true, "{check}");
    assert_eq!(check["quadruples"], 2, "{check}");
    assert_eq!(check["explained"], 2, "{check}");
}

/// `main` reads x, calls a, then b; ours returns early when x < 0, theirs audits at the end.
fn early_return() -> Repo {
    let base = format!(
        "{FUNCTIONS}int main(void)\n{{\n    int x = nondet_int();\n    a();\n    /* checked */\n    b();\n    /* done */\n    return 0;\n}}\n"
    );
    let ours = base.replace(
        "    a();\n",
        "    a();\n    if (x < 0)\n        return 1;\n",
    );
    let theirs = base.replace("    /* done */\n", "    /* done */\n    audit();\n");
    merge(&base, &ours, &theirs)
}

#[test]
fn an_early_return_that_skips_the_other_branchs_new_call_fails_the_default_gate() {
    let repo = early_return();
    let (code, doc, said) = review(&repo, &["review", "main", "feature"]);
    // Both branches changed what follows `a` when x < 0; the merge keeps ours' change and
    // loses theirs' `audit`: overlapping, and lost, which the default fail-on blocks.
    assert_eq!(doc["verdict"], "overlapping", "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["lost"], 1, "{check}");
    assert_eq!(check["unexpected"], 0, "{check}");
    assert_eq!(code, Some(1), "{said}");
    // The old default lets it through.
    repo.user_config(Some("fail-on = \"unexpected\"\n"));
    let (code, _, said) = review(&repo, &["review", "main", "feature"]);
    assert_eq!(code, Some(0), "{said}");
    repo.user_config(None);

    // The hook blocks the merge and says why.
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("on some input the merge loses a call a branch added"),
        "{said}"
    );
    assert!(!repo.merged(), "{said}");
}

#[test]
fn a_conflict_resolved_into_calls_neither_branch_made_is_unexpected() {
    let program =
        |calls: &str| format!("{FUNCTIONS}int main(void)\n{{\n    {calls}\n    return 0;\n}}\n");
    // Ours meant `a x1`, theirs `a b`; the hand resolution makes `a b b`.
    let repo = merge(
        &program("a();"),
        &program("a(); x1();"),
        &program("a(); b();"),
    );
    repo.git(&["tag", "v1"]);
    let out = repo.run_git(&["merge", "--no-ff", "feature"], &[]);
    assert!(!out.status.success(), "a conflict: {}", text(&out));
    repo.write("prog.c", &program("a(); b(); b();"));
    repo.git(&["add", "prog.c"]);
    repo.git(&["commit", "-q", "--no-edit"]);

    let (code, doc, said) = review(&repo, &["review", "--commit", "HEAD"]);
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    assert_eq!(code, Some(1), "{said}");
    let story = &doc["entries"][0]["executions"][0];
    assert_eq!(story["kind"], "unexpected", "{story}");
    assert_eq!(story["merged"], serde_json::json!(["a", "b", "b", "end"]));

    let out = repo.mergelens(&["audit", "v1..HEAD", "--format", "json"]);
    let audit: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let merges = audit["merges"].as_array().expect("merges");
    assert_eq!(merges.len(), 1, "{audit}");
    assert_eq!(merges[0]["verdict"], "unexpected", "{audit}");
}
