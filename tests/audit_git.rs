//! `mergelens audit` (issue 21) on a real repository with the real CBMC: every merge of a
//! range reviewed as committed, one line each, a `mergelens-audit/1` document and reports
//! in HTML and Markdown; a second audit of the same range runs no CBMC.

use crate::common::{Repo, text};
use serde_json::Value;

/// `main` calls `first`, `mid`, then `second` (changes of the two are apart in the calls
/// too, so that they compose).
fn program(first: &str, second: &str) -> String {
    format!(
        "void a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\nvoid d(void) {{}}\nvoid e(void) {{}}\nvoid mid(void) {{}}\n\nint main(void)\n{{\n    {first}();\n\n    mid();\n\n    {second}();\n    return 0;\n}}\n"
    )
}

/// Three merges after `v1`: a clean one, an evil one (the merge commit adds a call of `e`
/// neither branch made), and one whose branch changed no code.
fn history() -> Repo {
    let repo = Repo::new();
    repo.commit("prog.c", &program("a", "b"), "base");
    repo.git(&["tag", "v1"]);
    let branch = |name: &str, file: &str, text: &str| {
        repo.git(&["checkout", "-q", "-b", name, "main"]);
        repo.commit(file, text, name);
        repo.git(&["checkout", "-q", "main"]);
    };
    // 1: ours changes the first call, theirs the second: clean.
    branch("second-d", "prog.c", &program("a", "d"));
    repo.commit("prog.c", &program("c", "b"), "first c");
    repo.git(&["merge", "-q", "--no-ff", "second-d", "-m", "merge second-d"]);
    // 2: an evil merge: git merges cleanly, the commit adds `e` after the second call.
    branch("second-a", "prog.c", &program("c", "a"));
    repo.commit("prog.c", &program("b", "d"), "first b");
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "second-a"]);
    repo.commit(
        "prog.c",
        &program("b", "a").replace("    a();\n    return", "    a();\n    e();\n    return"),
        "merge second-a, and call e",
    );
    // 3: a branch of documentation only.
    branch("docs", "README", "how to\n");
    repo.commit("notes.txt", "n\n", "notes");
    repo.git(&["merge", "-q", "--no-ff", "docs", "-m", "merge docs"]);
    repo.git(&["tag", "v2"]);
    repo
}

#[test]
fn an_audit_reviews_each_merge_as_committed_and_a_second_one_runs_no_cbmc() {
    let repo = history();
    let out = repo.mergelens(&["audit", "v1..v2", "-o", "audit.json"]);
    let said = text(&out);
    // The evil merge has an unexpected execution: exit code 1 under the default fail-on.
    assert_eq!(out.status.code(), Some(1), "{said}");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.path().join("audit.json")).unwrap())
            .unwrap();
    assert_eq!(doc["format"], "mergelens-audit/1");
    let merges = doc["merges"].as_array().unwrap();
    let verdicts: Vec<&str> = merges
        .iter()
        .map(|m| m["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["clean", "unexpected", "clean"], "{said}");
    // No configuration anywhere: the terminal says so for each merge, and so does each
    // merge's document.
    assert_eq!(
        said.matches("no .mergelens.toml committed on").count(),
        3,
        "{said}"
    );
    assert!(
        said.contains(
            "reviewed with the defaults and the command line (every *.c file; entry main; changed functions at their own entries: unreached)"
        ),
        "{said}"
    );
    let subjects: Vec<&str> = merges
        .iter()
        .map(|m| m["subject"].as_str().unwrap())
        .collect();
    assert_eq!(
        subjects,
        ["merge second-d", "merge second-a, and call e", "merge docs"]
    );
    assert_eq!(merges[1]["unexpected"], 1, "{}", merges[1]);
    // One line per merge on standard output.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 3, "{stdout}");
    assert!(
        stdout.lines().nth(1).unwrap().contains("unexpected"),
        "{stdout}"
    );
    // Each merge's full report, linked from the document.
    for m in merges {
        let report = repo.path().join(m["report"].as_str().unwrap());
        assert!(report.exists(), "{}", report.display());
    }
    let first_runs: u64 = merges
        .iter()
        .map(|m| m["cbmc_runs"].as_u64().unwrap())
        .sum();
    assert!(first_runs > 0);

    // The same range again: everything from the caches.
    let out = repo.mergelens(&["audit", "v1..v2", "--format", "json"]);
    let again: Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs: Vec<u64> = again["merges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["cbmc_runs"].as_u64().unwrap())
        .collect();
    assert_eq!(runs, [0, 0, 0], "{}", text(&out));

    // Markdown and the HTML index render the same rows.
    let md = repo.mergelens(&["audit", "v1..v2", "--format", "md"]);
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("| merge | subject | verdict |"), "{md}");
    assert!(
        md.contains("merge second-a, and call e | **unexpected**"),
        "{md}"
    );
    let html = std::fs::read_to_string(repo.path().join(".git/mergelens/last-audit.html")).unwrap();
    assert!(
        html.contains("2 of 3 merges") || html.contains("1 of 3 merges"),
        "{html}"
    );
    // --first-parent and --since narrow the range.
    let out = repo.mergelens(&["audit", "v2", "--since", "2999-01-01"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).trim().is_empty(),
        "{}",
        text(&out)
    );
}

#[test]
fn a_series_of_tags_is_a_behaviour_changelog_one_step_each() {
    let repo = history();
    // A tag at each merge, in an order only version sorting gets right.
    let merges = repo.git(&["rev-list", "--merges", "--reverse", "v1..v2"]);
    let merges: Vec<&str> = merges.lines().collect();
    repo.git(&["tag", "v1.9", merges[0]]);
    repo.git(&["tag", "v1.10", merges[1]]);
    let out = repo.mergelens(&["diff", "--tags", "v1*", "-o", "series.json"]);
    let said = text(&out);
    // Both steps changed behaviour: exit code 1, as for a diff.
    assert_eq!(out.status.code(), Some(1), "{said}");
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 2, "{said}");
    assert!(
        lines[0].starts_with("v1 -> v1.9: behaviour changed"),
        "{said}"
    );
    assert!(
        lines[1].starts_with("v1.9 -> v1.10: behaviour changed"),
        "{said}"
    );
    assert!(lines[1].contains("added `b mid a e end`"), "{said}");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.path().join("series.json")).unwrap())
            .unwrap();
    assert_eq!(doc["format"], "mergelens-series/1");
    assert_eq!(doc["revisions"], serde_json::json!(["v1", "v1.9", "v1.10"]));
    for step in doc["steps"].as_array().unwrap() {
        assert_eq!(step["changed"], true);
        assert!(std::path::Path::new(step["report"].as_str().unwrap()).exists());
        assert_eq!(step["diff"]["kind"], "diff");
    }
    // The last step changed no code: unchanged, at once.
    let out = repo.mergelens(&["diff", "v1", "v1.10", "v2"]);
    let said = text(&out);
    assert!(said.contains("v1.10 -> v2: behaviour unchanged"), "{said}");
    let out = repo.mergelens(&["diff", "--tags", "none*"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("two revisions at least; 0 given"),
        "{}",
        text(&out)
    );
}

#[test]
fn a_merge_that_cannot_be_reviewed_says_why_and_counts_as_unfinished() {
    let repo = Repo::new();
    let program = |name: &str| {
        format!("void {name}(void) {{}}\nint main(void)\n{{\n    {name}();\n    return 0;\n}}\n")
    };
    repo.commit("a.c", &program("a"), "a");
    repo.commit("b.c", &program("b"), "b: a second main");
    repo.git(&["tag", "v1"]);
    repo.git(&["checkout", "-q", "-b", "side", "main"]);
    repo.commit("a.c", &program("a").replace("a();", "a(); a();"), "side");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "side", "-m", "merge side"]);
    let out = repo.mergelens(&["audit", "v1..main"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("not reviewed (unfinished)"), "{said}");
    assert!(said.contains("`main` is defined twice"), "{said}");
    let out = repo.mergelens(&["audit", "v1..main", "--also-fail-on", "unfinished"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}
