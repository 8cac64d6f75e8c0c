//! `mergelens review` and `mergelens diff` on real repositories built with the `git` command
//! line in temporary directories (a cleared environment: no user or system configuration),
//! learned with the real CBMC: the merge of Fig. 12 (unexpected and lost words, an
//! overlapping execution; the per-execution verdict has tests of its own in
//! `review_execution.rs`), a
//! conflict, a clean merge, caching across runs, a release-tag diff, bad input, and the
//! promise that the user's work tree, index and refs stay as they were.

use std::path::Path;
use std::process::Output;

use crate::common::demo_fig12::{BASE, OURS, PROGRAM, THEIRS};
use crate::common::{Repo, conflicting, example_words as words, fig12, text, three_way};
use serde_json::Value;

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What must not change: the work tree's status, the index file, every ref, the objects.
fn fingerprint(repo: &Repo) -> (String, Vec<u8>, std::time::SystemTime, String, Vec<String>) {
    let index = repo.path().join(".git/index");
    let mut objects: Vec<String> = walk(&repo.path().join(".git/objects"));
    objects.sort();
    (
        repo.git(&["--no-optional-locks", "status", "--porcelain"]),
        std::fs::read(&index).unwrap(),
        std::fs::metadata(&index).unwrap().modified().unwrap(),
        repo.git(&["show-ref", "--head"]),
        objects,
    )
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            out.extend(walk(&entry.path()));
        } else {
            out.push(entry.path().display().to_string());
        }
    }
    out
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one end-to-end scenario (the review, each output, the repository untouched) read top to bottom"
)]
fn the_merge_of_fig12_overlaps_and_the_repository_stays_as_it_was() {
    let repo = fig12();
    // A dirty work tree is fine: only committed content is read, and the report says so.
    repo.write(PROGRAM, "/* work in progress */\n");
    let before = fingerprint(&repo);
    let out_dir = tempfile::tempdir().unwrap();
    let report = out_dir.path().join("review.json");
    let out = repo.mergelens(&["review", "main", "feature", "-o", report.to_str().unwrap()]);
    // Per execution Fig. 12 is an overlap, which the default fail-on (unexpected) lets
    // through: exit 0 (it was 1 when the verdict compared words).
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        fingerprint(&repo),
        before,
        "the review changed the repository"
    );
    let summary = text(&out);
    assert!(summary.contains("funcA funcZ funcC end"), "{summary}");
    assert!(
        summary.contains(".git/mergelens/last-review.html"),
        "{summary}"
    );

    let doc = read_json(&report);
    assert_eq!(doc["format"], "mergelens-review/1");
    assert_eq!(doc["kind"], "review");
    assert_eq!(doc["verdict"], "overlapping");
    assert_eq!(doc["revisions"]["ours"], repo.git(&["rev-parse", "main"]));
    assert_eq!(
        doc["revisions"]["theirs"],
        repo.git(&["rev-parse", "feature"])
    );
    assert_eq!(
        doc["revisions"]["base"],
        repo.git(&["merge-base", "main", "feature"])
    );
    assert_eq!(doc["revisions"]["merged"].as_str().unwrap().len(), 40);
    assert_eq!(doc["conflicts"], serde_json::json!([]));
    let entry = &doc["entries"][0];
    assert_eq!(entry["entry"], "main");
    assert_eq!(words(&entry["unexpected"]), ["funcA funcZ funcC end"]);
    assert_eq!(words(&entry["lost"]), ["funcA funcC end"]);
    assert_eq!(entry["unexpected"]["count_up_to_bound"], 1);
    assert_eq!(words(&entry["merge_minus_ours"]), ["funcA funcZ funcC end"]);
    assert_eq!(words(&entry["merge_minus_theirs"]).len(), 2);
    for v in ["base", "ours", "theirs", "merged"] {
        assert_eq!(entry["automata"][v]["format"], "mergelens-dfa/1");
        assert_eq!(
            entry["automata"][v]["alphabet"], entry["alphabet"],
            "one alphabet"
        );
        assert!(entry["stats"][v].is_object(), "{v}");
    }
    assert_eq!(entry["stats"]["base"]["guess"], "yes");
    assert_eq!(entry["stats"]["merged"]["guess"], "oracle");
    assert!(
        doc["bounds"]["notes"]
            .to_string()
            .contains("uncommitted changes"),
        "{}",
        doc["bounds"]
    );
    // The renderer reads what review writes.
    assert!(matches!(
        mergelens::report::read(&report).unwrap(),
        mergelens::report::Document::Review(_)
    ));
    // funcZ is new in ours and so in the merge: its whole text is an addition.
    let changes = entry["source_changes"].as_array().expect("source changes");
    let funcz = changes
        .iter()
        .find(|c| c["function"] == "funcZ")
        .unwrap_or_else(|| panic!("{changes:?}"));
    assert_eq!(
        (&funcz["file"], &funcz["from"], &funcz["to"]),
        (
            &serde_json::json!(PROGRAM),
            &serde_json::json!("base"),
            &serde_json::json!("merged")
        )
    );
    let diff = funcz["diff"].as_str().unwrap();
    assert!(
        diff.starts_with(&format!("--- {PROGRAM} (base)\n+++ {PROGRAM} (merged)\n")),
        "{diff}"
    );
    assert!(
        diff.contains("+void funcZ(void)") && !diff.contains("\n-"),
        "{diff}"
    );
    let html =
        std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.html")).unwrap();
    // The per-execution check gave the verdict: the word-level languages are its first pass.
    assert!(html.contains("Word by word: unexpected words (first pass)"));
    assert!(!html.contains("Unexpected behaviour"));
    assert!(
        html.contains("<code>funcZ</code> in <code>") && html.contains("+void funcZ(void)"),
        "the HTML shows funcZ's change"
    );

    // A second review learns nothing; one more commit on a branch relearns that branch and
    // the merge only.
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    for v in ["base", "ours", "theirs", "merged"] {
        assert_eq!(doc["entries"][0]["stats"][v]["reused"], "cache", "{v}");
    }
    repo.git(&["checkout", "-q", "--", PROGRAM]);
    // A commit that only edits a comment leaves every program as it was: nothing is learned.
    let commit_on_theirs = |source: String, message: &str| {
        repo.git(&["checkout", "-q", "feature"]);
        repo.commit(PROGRAM, &source, message);
        repo.git(&["checkout", "-q", "main"]);
        let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["verdict"], "overlapping");
        doc["entries"][0]["stats"].clone()
    };
    let with_comment = THEIRS.replace(
        "void funcC(void) {}",
        "void funcC(void)\n{\n    /* fast path */\n}",
    );
    let stats = commit_on_theirs(with_comment.clone(), "theirs: a comment");
    for v in ["base", "ours", "theirs", "merged"] {
        assert_eq!(stats[v]["reused"], "cache", "{v}: {stats}");
    }
    // A commit that changes code relearns theirs and the merge only.
    let with_code = with_comment.replace("/* fast path */", "int spare = 0; (void)spare;");
    let stats = commit_on_theirs(with_code, "theirs: code");
    assert_eq!(stats["base"]["reused"], "cache");
    assert_eq!(stats["ours"]["reused"], "cache");
    assert!(stats["theirs"]["reused"].is_null(), "{stats}");
    assert!(stats["merged"]["reused"].is_null(), "{stats}");
}

#[test]
fn a_conflict_learns_the_branches_and_exits_3() {
    let repo = conflicting();
    let out = repo.mergelens(&["review", "feature", "--format", "json"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "conflict");
    assert_eq!(doc["conflicts"], serde_json::json!(["main.c"]));
    assert!(doc["revisions"].get("merged").is_none());
    let entry = &doc["entries"][0];
    assert!(entry["automata"].get("merged").is_none());
    assert!(entry.get("unexpected").is_none());
    let shown = words(&entry["ours_vs_theirs"]);
    assert_eq!(shown, ["g end", "f f end"]);
    assert!(text(&out).contains("conflict"));
}

#[test]
fn a_merge_that_changes_nothing_observable_is_clean_and_an_absent_entry_is_reported() {
    let repo = Repo::new();
    let program = |f: &str, g: &str| {
        format!(
            "void h(void) {{}}\n\nvoid f(void)\n{{\n    {f}\n}}\n\n/* g */\n\nvoid g(void)\n{{\n    {g}\n}}\n\nint main(void)\n{{\n    f();\n    g();\n    return 0;\n}}\n"
        )
    };
    repo.commit("prog.c", &program("", ""), "base");
    // Links in a tree are written only when they stay inside it.
    #[cfg(unix)]
    {
        std::fs::create_dir(repo.path().join("inc")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", repo.path().join("evil.h")).unwrap();
        std::os::unix::fs::symlink("../prog.c", repo.path().join("inc/copy.h")).unwrap();
        repo.git(&["add", "evil.h", "inc/copy.h"]);
        repo.git(&["commit", "-q", "-m", "links"]);
    }
    repo.commit(
        ".mergelens.toml",
        "entries = [\"main\", \"extra\"]\nfail-on = \"any\"\n",
        "settings",
    );
    repo.git(&["branch", "feature"]);
    repo.commit("prog.c", &program("h();", ""), "ours: f calls h");
    repo.git(&["checkout", "-q", "feature"]);
    // Theirs changes nothing observable: a comment.
    repo.commit(
        "prog.c",
        &program("", "/* nothing to do */"),
        "theirs: a comment",
    );
    repo.git(&["checkout", "-q", "main"]);
    let out = repo.mergelens(&[
        "review", "main", "feature", "--format", "json", "--entry", "main",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "clean");
    // Theirs' program is the base's and the merge's ours': nothing to learn.
    assert!(doc["entries"].as_array().unwrap().is_empty(), "{doc}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("the merge does exactly ours' change, on every input and at every bound"),
        "{notes}"
    );
    assert!(
        notes.contains("evil.h (a symbolic link out of the tree"),
        "{notes}"
    );
    assert!(!notes.contains("copy.h"), "{notes}");

    // A function nobody calls from main, as a second entry.
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit("extra.c", "void extra(void) {}\n", "theirs: extra");
    repo.git(&["checkout", "-q", "main"]);
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // At main the merge runs ours' code (extra is no callee of it); `extra`, which only
    // theirs and the merge define, is theirs' code in the merge: both judged, clean.
    assert_eq!(doc["verdict"], "clean", "{}", text(&out));
    let judged: Vec<&str> = doc["judged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["entry"].as_str().unwrap())
        .collect();
    assert_eq!(judged, ["main", "extra"], "{doc}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("judged at `extra`'s entry: the merge runs exactly theirs' code there"),
        "{notes}"
    );
}

/// `mergelens review main feature --format json EXTRA`, which must exit with `code`.
fn review_json(repo: &Repo, extra: &[&str], code: i32) -> Value {
    let mut args = vec!["review", "main", "feature", "--format", "json"];
    args.extend(extra);
    let out = repo.mergelens(&args);
    assert_eq!(out.status.code(), Some(code), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Theirs changes only what the program does when `malloc` fails. By default that is
/// behaviour like any other, and the merge composes it with ours; with `--allocations
/// succeed` theirs's change is never exercised, so the review is `inconclusive` (never
/// `clean`) and says under which model it learned.
#[test]
fn with_allocations_that_succeed_a_change_on_the_failure_path_is_unreached() {
    let program = |ok: &str, failed: &str| {
        format!(
            "#include <stdlib.h>\n\nvoid h(void) {{}}\n\nvoid oom(void) {{}}\n\nvoid report(void) {{}}\n\nint main(void)\n{{\n    char *p = malloc(4);\n    if (p == NULL) {{\n        oom();\n        {failed}\n        return 1;\n    }}\n    {ok}\n    free(p);\n    return 0;\n}}\n"
        )
    };
    // Ours calls h when the allocation works; theirs reports a failed one.
    let repo = three_way(
        &program("", ""),
        &program("h();", ""),
        &program("", "report();"),
    );
    let review = |extra: &[&str]| review_json(&repo, extra, 0);
    let doc = review(&[]);
    assert_eq!(doc["verdict"], "clean", "{doc}");
    assert_eq!(
        words(&doc["entries"][0]["merge_minus_ours"]),
        ["oom report end"]
    );
    assert!(!doc["bounds"]["notes"].to_string().contains("Allocations"));

    let doc = review(&["--allocations", "succeed"]);
    assert_eq!(doc["verdict"], "inconclusive", "{doc}");
    assert!(
        words(&doc["entries"][0]["merge_minus_ours"]).is_empty(),
        "{doc}"
    );
    assert!(
        doc["inconclusive"]
            .to_string()
            .contains("theirs' change at prog.c:14 is never reached"),
        "{}",
        doc["inconclusive"]
    );
    assert!(
        doc["inconclusive"]
            .to_string()
            .contains("a change that runs only after a failed allocation is never reached"),
        "{}",
        doc["inconclusive"]
    );
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("Allocations were assumed to succeed (--allocations succeed)"),
        "{notes}"
    );
}

/// Both branches change what the program does when `malloc` fails, and together they do
/// what neither meant: an unexpected execution by default. With `--allocations succeed`
/// the per-execution check (whose allocators read whether they fail from a shared input)
/// must not find it either: the changes are unreached, the verdict `inconclusive`.
#[test]
fn an_interference_after_a_failed_allocation_is_found_only_where_allocations_may_fail() {
    let program = |x: &str, call: &str| {
        format!(
            "#include <stdlib.h>\n\nvoid a(void) {{}}\n\nvoid b(void) {{}}\n\nint main(void)\n{{\n    char *p = malloc(4);\n    if (p == NULL) {{\n        int x = {x};\n        /* x says whether to tell */\n        /* anyone about it */\n        if (x)\n            {call}();\n        return 1;\n    }}\n    p[0] = 1;\n    free(p);\n    return 0;\n}}\n"
        )
    };
    // Ours tells (x = 1); theirs tells b instead of a.
    let repo = three_way(&program("0", "a"), &program("1", "a"), &program("0", "b"));
    let review = |extra: &[&str], code: i32| review_json(&repo, extra, code);
    let doc = review(&[], 1);
    assert_eq!(doc["verdict"], "unexpected", "{doc}");
    let doc = review(&["--allocations", "succeed"], 0);
    assert_eq!(doc["verdict"], "inconclusive", "{doc}");
    let entry = &doc["entries"][0];
    assert!(words(&entry["unexpected"]).is_empty(), "{doc}");
    assert_eq!(
        entry["execution_check"]["unexpected"].as_u64().unwrap_or(0),
        0,
        "{doc}"
    );
}

#[test]
fn diff_between_release_tags() {
    let repo = Repo::new();
    repo.commit(PROGRAM, BASE, "v1");
    repo.git(&["tag", "-a", "v1.0", "-m", "release 1.0"]);
    repo.commit(PROGRAM, OURS, "v2");
    repo.git(&["tag", "v2.0"]);
    let out = repo.mergelens(&["diff", "v1.0", "v2.0", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["format"], "mergelens-review/1");
    assert_eq!(doc["kind"], "diff");
    assert_eq!(
        doc["revisions"]["from"],
        repo.git(&["rev-parse", "v1.0^{commit}"])
    );
    assert_eq!(doc["revisions"]["to"], repo.git(&["rev-parse", "v2.0"]));
    let entry = &doc["entries"][0];
    assert_eq!(words(&entry["added"]), ["funcA funcZ funcB end"]);
    assert_eq!(words(&entry["removed"]), ["funcA funcB end"]);
    assert_eq!(words(&entry["symdiff"]).len(), 2);
    let html = tempfile::tempdir().unwrap();
    let page = html.path().join("diff.html");
    let out = repo.mergelens(&["diff", "v1.0", "v2.0", "-o", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(std::fs::read_to_string(&page).unwrap().contains("<html"));
    let out = repo.mergelens(&["diff", "v1.0", "v2.0", "--format", "md"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("## "),
        "{}",
        text(&out)
    );
    // --auto-bounds raises the unwinding until no version's automaton changes.
    let out = repo.mergelens(&[
        "diff",
        "v1.0",
        "v2.0",
        "--auto-bounds",
        "--max-unwind",
        "3",
        "--format",
        "json",
    ]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["bounds"]["unwind"], 2, "{}", doc["bounds"]);
    assert_eq!(
        words(&doc["entries"][0]["added"]),
        ["funcA funcZ funcB end"]
    );
    let out = repo.mergelens(&["diff", "v1.0", "v1.0"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("behaviour unchanged"));
}

#[test]
fn bad_input_gets_one_clear_message_and_exit_code_2() {
    let outside = tempfile::tempdir().unwrap();
    let repo = fig12();
    let not_repo = Repo::not_a_repository(outside.path());
    let check = |out: Output, expected: &str| {
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{t}");
        assert!(t.contains(expected), "{t:?} lacks {expected:?}");
        assert_eq!(t.trim().lines().count(), 1, "{t}");
    };
    check(
        not_repo.mergelens(&["review", "a", "b"]),
        "not a git repository",
    );
    check(
        repo.mergelens(&["review", "main", "nope"]),
        "the revision `nope` does not exist",
    );
    check(repo.mergelens(&["review"]), "name the branch to merge");
    // Unrelated histories.
    repo.git(&["checkout", "-q", "--orphan", "other"]);
    repo.git(&["rm", "-q", "-r", "--cached", "."]);
    repo.commit("other.c", "int main(void) { return 0; }\n", "unrelated");
    repo.git(&["checkout", "-q", "-f", "main"]);
    check(
        repo.mergelens(&["review", "main", "other"]),
        "no merge base (unrelated histories)",
    );
    // No C files selected.
    check(
        repo.mergelens(&["review", "main", "feature", "--files", "lib/*.c"]),
        "no C files to analyse",
    );
    // An unknown configuration key is named.
    repo.commit(".mergelens.toml", "fail_on = \"any\"\n", "bad settings");
    check(repo.mergelens(&["review", "main", "feature"]), "fail_on");
    repo.git(&["rm", "-q", ".mergelens.toml"]);
    repo.git(&["commit", "-q", "-m", "no settings"]);
    check(
        repo.mergelens(&["review", "main", "feature", "--entry", "nowhere"]),
        "`nowhere` is defined in no version",
    );
}

#[test]
fn the_demo_prints_the_verdict_the_words_and_the_report() {
    let out_dir = tempfile::tempdir().unwrap();
    let repo = Repo::new();
    let out = repo.mergelens(&["demo", "--out", out_dir.path().to_str().unwrap()]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("verdict: overlapping"), "{said}");
    // The input value, named by the line that read it.
    assert!(
        said.contains(
            "overlapping execution:\n    input: nondet_int() at src/server.c:20 (funcZ): 0\n"
        ),
        "{said}"
    );
    let first = "word-level unexpected (";
    let lost_title = "word-level lost (";
    let unexpected = &said[said.find(first).unwrap()..said.find(lost_title).unwrap()];
    assert!(unexpected.contains("    funcA funcZ funcC end"), "{said}");
    let lost = &said[said.find(lost_title).unwrap()..];
    assert!(lost.contains("    funcA funcC end"), "{said}");
    let page = out_dir.path().join("review.html");
    assert!(
        said.contains(&page.canonicalize().unwrap().display().to_string()),
        "{said}"
    );
    assert!(
        std::fs::read_to_string(page)
            .unwrap()
            .contains("Word by word: unexpected words (first pass)")
    );
}

#[test]
fn named_files_that_match_nothing_are_an_error_naming_them() {
    let repo = fig12();
    let out = repo.mergelens(&[
        "review",
        "main",
        "feature",
        "--files",
        "src/server.c,src/nosuch.c,../outside/*.c",
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("match no C file in any version: src/nosuch.c, ../outside/*.c;"),
        "{t}"
    );
    assert_eq!(t.trim().lines().count(), 1, "{t}");
    let out = repo.mergelens(&[
        "diff",
        "main",
        "feature",
        "--files",
        "src/server.c,nosuch.c",
    ]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(
        t.contains("match no C file in any version: nosuch.c;"),
        "{t}"
    );
}

#[test]
fn a_check_short_of_the_bound_is_inconclusive_and_fail_on_inconclusive_blocks_it() {
    // Three choices up to three times: 40 words, more than an exact limit of 5.
    let program = "int nondet_int(void);\nvoid a(void) {}\nvoid b(void) {}\nvoid c(void) {}\n\
         int main(void)\n{\n    int n = nondet_int();\n    for (int i = 0; i < n; i++) {\n        \
         switch (nondet_int()) {\n        case 0: a(); break;\n        case 1: b(); break;\n        \
         default: c();\n        }\n    }\n    return 0;\n}\n";
    let make = || {
        let repo = Repo::new();
        repo.commit("prog.c", program, "base");
        repo.git(&["branch", "feature"]);
        // Code that calls nothing: learned (only a merge without a code change is not),
        // with the same language.
        let ours = program.replace("    return 0;", "    n = 0;\n    return 0;");
        repo.commit("prog.c", &ours, "ours: a statement that calls nothing");
        repo.git(&["checkout", "-q", "feature"]);
        // Theirs too changes code that calls nothing, so that the merge is neither branch's
        // program alone.
        let theirs = program.replace(
            "    int n = nondet_int();\n",
            "    int n = nondet_int();\n    int unused = n;\n    (void)unused;\n",
        );
        repo.commit("prog.c", &theirs, "theirs: a statement that calls nothing");
        repo.git(&["checkout", "-q", "main"]);
        repo
    };
    let review = |repo: &Repo, extra: &[&str]| {
        let mut args = vec![
            "review",
            "main",
            "feature",
            "--format",
            "json",
            "--unwind",
            "3",
            "--max-word-length",
            "8",
        ];
        args.extend_from_slice(extra);
        repo.mergelens(&args)
    };
    // The exactness pass may check only five words: the automata are exact only up to a
    // shorter length than the bound, so "no difference" says less than it seems.
    let repo = make();
    let out = review(&repo, &["--exact-limit", "5"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "inconclusive", "{}", text(&out));
    assert!(
        doc["inconclusive"]
            .to_string()
            .contains("raise --exact-limit"),
        "{}",
        doc["inconclusive"]
    );
    assert!(
        text(&out).contains("inconclusive: no unexpected behaviour found"),
        "{}",
        text(&out)
    );
    let out = review(&repo, &["--exact-limit", "5", "--fail-on", "inconclusive"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // With the default limit every word is checked: clean, also when the answer store
    // holds the acceptance the smaller limit left short.
    let out = review(&repo, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "clean");
}

/// A `$Id$` comment removed together with the `ident` attribute that expanded it: the
/// versions are read as committed (git's checkout filters never run on them), so the merge
/// takes the no-code fast path, as a review and as the hook.
#[test]
fn an_ident_comment_change_takes_the_no_code_path() {
    let program = "/* $Id$ */\nvoid a(void) {}\nint main(void)\n{\n    a();\n    return 0;\n}\n";
    let repo = Repo::new();
    repo.commit(".gitattributes", "*.c ident\n", "ident");
    repo.commit("p.c", program, "base");
    repo.git(&["branch", "feature"]);
    repo.commit("README", "x\n", "ours");
    repo.git(&["checkout", "-q", "feature"]);
    repo.git(&["rm", "-q", ".gitattributes"]);
    repo.commit(
        "p.c",
        &program.replacen("/* $Id$ */\n", "", 1),
        "theirs: no $Id$",
    );
    repo.git(&["checkout", "-q", "main"]);
    let said = text(&repo.mergelens(&["review", "main", "feature"]));
    assert!(said.contains("token for token"), "{said}");
    // No configuration: the summary says what was reviewed instead.
    assert!(
        said.contains("  no .mergelens.toml committed on main: reviewed with the defaults and the command line (every *.c file; entry main; changed functions at their own entries: unreached)"),
        "{said}"
    );
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge", "feature"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("token for token"), "{}", text(&out));
}
