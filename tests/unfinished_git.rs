//! `unfinished` is not `unreached` (issue 37), on real repositories with the real gcc,
//! goto-cc, CBMC and git: a branch whose code goto-cc rejects (while gcc -E and the front end
//! accept it) makes its review `unfinished`, with the reason, instead of an error that the
//! hook's `on-error = "allow"` lets through unreviewed; `fail-on` can name `unfinished`
//! (alone, in a list, or added by `--also-fail-on`), and the hook says which it was.

use crate::common::{Repo, text, three_way};
use serde_json::Value;

const BASE: &str =
    "void a(void) {}\nvoid b(void) {}\n\nint main(void)\n{\n    a();\n\n\n\n    return 0;\n}\n";

/// Ours calls `b`; theirs adds a function whose body names a variable nobody declares:
/// gcc -E and the front end take it, goto-cc fails ("failed to find symbol"), in theirs
/// and in the merge result.
fn rejected_by_goto_cc() -> Repo {
    let ours = BASE.replace("    return 0;", "    b();\n    return 0;");
    let theirs = BASE
        .replace(
            "void b(void) {}\n",
            "void b(void) {}\nint c(void) { return undeclared_anywhere; }\n",
        )
        .replace("    a();\n", "    c();\n    a();\n");
    three_way(BASE, &ours, &theirs)
}

fn json(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

#[test]
fn code_goto_cc_rejects_makes_the_review_unfinished_with_the_reason() {
    let repo = rejected_by_goto_cc();
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    // The default fail-on (`["unexpected", "lost"]`) does not name it: exit 0, but never `clean`,
    // never an error, and never `inconclusive`.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = json(&out);
    assert_eq!(doc["verdict"], "unfinished", "{doc}");
    let reason = doc["unfinished"][0].as_str().expect("a reason");
    assert!(
        (reason.starts_with("theirs (feature ") || reason.starts_with("merged ("))
            && reason.contains("entry `main`")
            && reason.contains("failed to find symbol 'undeclared_anywhere'")
            && reason.ends_with("this entry's review did not finish"),
        "{reason}"
    );
    assert_eq!(doc.get("inconclusive"), None, "{doc}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("verdict: unfinished"), "{said}");
    assert!(said.contains("  unfinished: "), "{said}");

    // Named in a list, or added to the owner's policy, it fails the review.
    for flags in [
        ["--fail-on", "unexpected,unfinished"],
        ["--fail-on", "unfinished"],
        ["--also-fail-on", "unfinished"],
    ] {
        let mut args = vec!["review", "main", "feature"];
        args.extend(flags);
        let out = repo.mergelens(&args);
        assert_eq!(out.status.code(), Some(1), "{flags:?}: {}", text(&out));
    }
    repo.commit(
        ".mergelens.toml",
        "fail-on = [\"unexpected\", \"unfinished\"]\n",
        "owner: fail on unfinished",
    );
    let out = repo.mergelens(&["review", "main", "feature"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));

    // Every output says so: Markdown, HTML and SARIF.
    let last = repo.path().join(".git/mergelens/last-review.json");
    let last = last.to_str().unwrap();
    let out = repo.mergelens(&["report", last, "--format", "md"]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("Unfinished review") && md.contains("Why the review did not finish"),
        "{md}"
    );
    let html =
        std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.html")).unwrap();
    assert!(
        html.contains("banner summary unfinished") && html.contains("undeclared_anywhere"),
        "{html}"
    );
    let out = repo.mergelens(&["report", last, "--format", "sarif"]);
    let sarif: Value = json(&out);
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"mergelens/unfinished"), "{sarif}");
}

#[test]
fn the_hook_names_an_unfinished_review_and_blocks_it_where_fail_on_says() {
    let repo = rejected_by_goto_cc();
    let out = repo.mergelens(&["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    let ours = repo.head();
    let merge = ["merge", "--no-ff", "-m", "merge feature", "feature"];

    // The default lets it through, but says what it was: no "NOT REVIEWED" failure, an
    // unfinished review with its reason, and what would block it.
    let out = repo.run_git(&merge, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(!said.contains("NOT REVIEWED"), "{said}");
    assert!(said.contains("verdict: unfinished"), "{said}");
    assert!(
        said.contains("failed to find symbol 'undeclared_anywhere'"),
        "{said}"
    );
    assert!(
        said.contains("the merge goes ahead unfinished: fail-on = [\"unexpected\", \"lost\"]"),
        "{said}"
    );
    assert!(repo.merged());
    repo.git(&["reset", "-q", "--hard", &ours]);

    // The owner names it: blocked, saying which fail-on did.
    repo.commit(
        ".mergelens.toml",
        "fail-on = [\"unexpected\", \"unfinished\"]\n",
        "settings",
    );
    let ours = repo.head();
    let out = repo.run_git(&merge, &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert_eq!(repo.head(), ours, "no merge commit");
    assert!(said.contains("verdict: unfinished"), "{said}");
    assert!(
        said.contains("the merge is not committed (fail-on = [\"unexpected\", \"unfinished\"])"),
        "{said}"
    );
    repo.git(&["merge", "--abort"]);
}

#[test]
fn goto_cc_rejecting_the_owners_own_code_stays_an_error() {
    // The base and ours are the owner's: a setup goto-cc cannot build is broken whatever
    // the branch, and says so with an error (exit 2), as before.
    let broken = BASE.replace("    a();\n", "    a();\n    (void)undeclared_anywhere;\n");
    let ours = broken.replace("    return 0;", "    b();\n    return 0;");
    let repo = three_way(
        &broken,
        &ours,
        &broken.replace("void a(void) {}", "void a(void) { b(); }"),
    );
    let out = repo.mergelens(&["review", "main", "feature"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("failed to find symbol 'undeclared_anywhere'"),
        "{}",
        text(&out)
    );
}

/// A branch that adds a second `main` (a test program, or on purpose) cannot turn its
/// review into an error the hook lets through: the merge's entry is defined twice, the
/// review of that entry is `unfinished` with both places named.
#[test]
fn a_second_entry_added_by_a_branch_makes_the_review_unfinished() {
    let repo = Repo::new();
    repo.commit("prog.c", BASE, "base");
    repo.git(&["branch", "feature"]);
    repo.commit(
        "prog.c",
        &BASE.replace("    a();", "    a();\n    b();"),
        "ours",
    );
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit(
        "other.c",
        "int main(void) { return 1; }\n",
        "theirs: a second main",
    );
    repo.git(&["checkout", "-q", "main"]);
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc = json(&out);
    assert_eq!(doc["verdict"], "unfinished", "{doc}");
    let reasons = doc["unfinished"].to_string();
    assert!(reasons.contains("is defined twice"), "{reasons}");
    assert!(
        reasons.contains("other.c:1") && reasons.contains("prog.c:"),
        "{reasons}"
    );
    let out = repo.mergelens(&["review", "main", "feature", "--also-fail-on", "unfinished"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}
