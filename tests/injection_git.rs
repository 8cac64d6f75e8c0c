//! Injection through what a branch writes (issue 37): a merge commit's subject and a file
//! name carrying HTML, Markdown, a mention, an unclosed comment and ANSI escapes reach
//! `audit --format md`, the terminal and SARIF only escaped. Real git, gcc and CBMC, on a
//! program of a few functions.

use crate::common;

use crate::common::{Repo, text};
use serde_json::Value;

/// What an attacker writes as a merge subject: an image with a script, a link, a mention,
/// a comment that would hide the rows after it, and a sequence that erases the line and
/// prints a green "clean".
const SUBJECT: &str =
    "<img src=x onerror=alert(1)> [link](http://x) @team <!-- \x1b[2K\r\x1b[32mclean";

/// A file name with a space, `#`, `%`, a tag and an ANSI colour.
const FILE: &str = "we ird#%<b>\x1b[31m.c";

/// `main` calls `first`, `mid`, then `second`.
fn program(first: &str, second: &str) -> String {
    format!(
        "void a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\nvoid d(void) {{}}\nvoid e(void) {{}}\nvoid mid(void) {{}}\n\nint main(void)\n{{\n    {first}();\n\n    mid();\n\n    {second}();\n    return 0;\n}}\n"
    )
}

/// After `v1`: an evil merge (its commit adds a call of `e`) with the hostile subject, in
/// the hostile file; then a merge of documentation whose row must still show.
fn history() -> (Repo, String) {
    let repo = Repo::new();
    repo.commit(FILE, &program("a", "b"), "base");
    repo.git(&["tag", "v1"]);
    repo.git(&["checkout", "-q", "-b", "second-d", "main"]);
    repo.commit(FILE, &program("a", "d"), "second d");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit(FILE, &program("c", "b"), "first c");
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "second-d"]);
    repo.write(
        FILE,
        &program("c", "d").replace("    d();\n    return", "    d();\n    e();\n    return"),
    );
    repo.git(&["add", FILE]);
    repo.git(&["commit", "-q", "--cleanup=verbatim", "-m", SUBJECT]);
    let evil = repo.head();
    repo.git(&["checkout", "-q", "-b", "docs", "main~1"]);
    repo.commit("README", "how to\n", "docs");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "docs", "-m", "after the comment"]);
    repo.git(&["tag", "v2"]);
    (repo, evil)
}

/// No byte of the output can move the cursor, erase or recolour: no ESC, CR, C1 control or
/// bidirectional override.
fn assert_inert_on_a_terminal(bytes: &[u8], said: &str) {
    let shown = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = shown
        .chars()
        .filter(|&c| c != '\n' && mergelens::report::escape::is_hazard(c))
        .collect();
    assert!(bad.is_empty(), "raw controls {bad:?} in:\n{said}");
}

/// The lines of a Markdown text outside its code fences.
fn outside_fences(md: &str) -> String {
    let mut fence: Option<String> = None;
    let mut out = String::new();
    for line in md.lines() {
        let ticks: String = line.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(f) if line.trim_end() == f => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn a_hostile_subject_and_file_name_reach_markdown_the_terminal_and_sarif_escaped() {
    let (repo, evil) = history();

    // The audit as a pull-request comment would post it.
    let out = repo.mergelens(&["audit", "v1..v2", "--format", "md"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(!md.contains("<img") && !md.contains("<!--"), "{md}");
    assert!(!md.contains("[link](") && !md.contains("@team"), "{md}");
    assert!(
        md.contains("&lt;img src=x onerror=alert(1)&gt; \\[link\\](http://x) @\u{2060}team &lt;\\!-- \\\\x1b\\[2K\\\\r\\\\x1b\\[32mclean | **unexpected**"),
        "{md}"
    );
    // The row after the would-be comment is still a row of the table.
    assert!(md.contains("| after the comment | **clean** |"), "{md}");
    assert_eq!(
        md.lines().filter(|l| l.starts_with("| `")).count(),
        2,
        "{md}"
    );
    assert_inert_on_a_terminal(&out.stdout, &said);
    // The progress lines on standard error quote the subject escaped.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("@team <!-- \\x1b[2K\\r\\x1b[32mclean"),
        "{err}"
    );
    assert_inert_on_a_terminal(&out.stderr, &said);

    // The review of the evil merge: SARIF locates it in the file, percent-encoded.
    let out = repo.mergelens(&["review", "--commit", &evil, "--format", "sarif"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_inert_on_a_terminal(&out.stdout, &said);
    assert_inert_on_a_terminal(&out.stderr, &said);
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    let uris: Vec<&str> = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["locations"].as_array().unwrap())
        .map(|l| {
            l["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(!uris.is_empty(), "{log:#}");
    assert!(
        uris.iter()
            .all(|u| *u == "we%20ird%23%25%3Cb%3E%1B%5B31m.c"),
        "{uris:?}"
    );
    // The terminal summary names the file and the branches escaped.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("verdict: unexpected"), "{err}");

    // The review as Markdown and on the terminal.
    let out = repo.mergelens(&["review", "--commit", &evil, "--format", "md"]);
    let said = text(&out);
    let md = String::from_utf8_lossy(&out.stdout);
    // Inside a code fence a tag is text; outside one, none is left.
    let prose = outside_fences(&md);
    for tag in ["<b>", "<img", "<!--", "@team"] {
        assert!(!prose.contains(tag), "{tag} in {prose}");
    }
    assert!(!md.contains("<img"), "{md}");
    assert!(
        md.contains("we ird\\#\u{2060}%&lt;b&gt;\\\\x1b\\[31m.c"),
        "{md}"
    );
    assert_inert_on_a_terminal(&out.stdout, &said);
    assert_inert_on_a_terminal(&out.stderr, &said);
    let out = repo.mergelens(&["review", "--commit", &evil]);
    let said = text(&out);
    assert!(said.contains("verdict: unexpected"), "{said}");
    assert_inert_on_a_terminal(&out.stdout, &said);
    assert_inert_on_a_terminal(&out.stderr, &said);
    // The HTML report: askama escapes the subject and the file name.
    let html =
        std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.html")).unwrap();
    assert!(
        !html.contains("<img src=x") && !html.contains("<b>"),
        "{html}"
    );
    // Controls are shown as escapes there too.
    assert!(
        !html.contains('\x1b') && html.contains("\\x1b[31m.c"),
        "{html}"
    );
    assert!(
        html.contains("&#60;img src=x") || html.contains("&lt;img src=x"),
        "the subject is in the page, escaped"
    );
}

/// The hook's messages in `git merge`: theirs changes a function no entry calls, in the
/// hostile file, so the summary names the file. Every line mergelens prints is inert; git's
/// own `Auto-merging` line prints the name raw, which is git's and not ours to change.
#[test]
fn the_hook_names_a_hostile_file_escaped() {
    let repo = Repo::new();
    let base = "void a(void) {}\nvoid b(void) {}\nvoid c(void) {}\nvoid e(void) {}\n\nint main(void)\n{\n    a();\n\n    b();\n    return 0;\n}\n";
    repo.commit(FILE, base, "base");
    // Theirs' change is examined by no entry (its function's own entry would judge it):
    // the sentence that says so names the file.
    repo.commit(
        ".mergelens.toml",
        "changed-functions = \"none\"\n",
        "review the entry alone",
    );
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.commit(
        FILE,
        &base.replace("void e(void) {}", "void e(void) { a(); }"),
        "theirs",
    );
    repo.git(&["checkout", "-q", "main"]);
    repo.commit(FILE, &base.replace("    a();\n\n", "    c();\n\n"), "ours");
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    let said = text(&out);
    let ours: String = said
        .lines()
        .filter(|l| !l.starts_with("Auto-merging "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_inert_on_a_terminal(ours.as_bytes(), &said);
    assert!(
        said.contains("theirs' change at we ird#%<b>\\x1b[31m.c:4 was examined by no entry"),
        "{said}"
    );
}

#[test]
fn a_branch_calling_the_instrumentation_itself_is_refused_not_believed() {
    // Theirs "calls" `b` by writing the hook the instrumentation would write for it, and
    // marks a hunk as run that never runs: believed, it would forge a behaviour. The review
    // refuses the version, names the place, and the hook's gate stays shut.
    let ours = program("a", "b");
    let theirs = program("a", "b").replace(
        "    mid();\n",
        "    mid();\n    void __mergelens_event(unsigned int);\n    __mergelens_event(1);\n",
    );
    let repo = common::three_way(&program("a", "b"), &ours.replace("a();", "c();"), &theirs);
    let out = repo.mergelens(&["review", "main", "feature"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("prog.c:13: the program names `__mergelens_event`, which mergelens reserves for its instrumentation"),
        "{said}"
    );
}
