//! A branch cannot hide its code as a system header's, nor read a host file through one
//! (issue 37), on real repositories with the real gcc, CBMC and git. What is a system
//! header is decided by where the file is, never by what the text says: a forged line
//! marker is blanked before gcc reads the version, and `#pragma GCC system_header` (also
//! through `_Pragma` out of a macro) in a branch's header is ignored with a warning.

use crate::common::{Repo, text, three_way};
use serde_json::Value;

const MERGE: [&str; 5] = ["merge", "--no-ff", "-m", "merge feature", "feature"];

/// Ours arms on some inputs; theirs fires when armed (`fire` defined by `fire_def`, placed
/// after `main`, with `extra` before everything). Neither branch fires alone, so the merge
/// is `unexpected` — unless `fire` is hidden from the alphabet.
fn program(set: &str, use_: &str, extra: &str, fire_def: &str) -> String {
    format!(
        "{extra}int nondet_int(void);\nint armed;\nvoid fire(void);\n\nvoid arm(void)\n{{\n    {set}\n}}\n\n/* between */\n\nvoid use(void)\n{{\n    {use_}\n}}\n\nint main(void)\n{{\n    arm();\n    use();\n    return 0;\n}}\n{fire_def}"
    )
}

/// The armed/fire merge with theirs' `fire` written as `extra` and `fire_def` say.
fn armed_merge(extra: &str, fire_def: &str) -> Repo {
    let plain = "void fire(void) {}\n";
    three_way(
        &program("", "", "", plain),
        &program("armed = nondet_int();", "", "", plain),
        &program("", "if (armed) fire();", extra, fire_def),
    )
}

fn review(repo: &Repo) -> (Option<i32>, Value, String) {
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), doc, text(&out))
}

#[test]
fn a_forged_system_header_marker_hides_nothing_and_the_hook_blocks() {
    for marker in [
        "# 1 \"/usr/include/stdio.h\" 3\n",
        "# 40 \"anything.h\" 3 4\n",
        "#line 7 \"/usr/include/stdlib.h\"\n",
        "/* hidden */ %: 1 \"x.h\" 1 3\n",
        "#\\\nline 3 \"/usr/include/string.h\"\n",
    ] {
        let repo = armed_merge("", &format!("{marker}void fire(void) {{}}\n"));
        let (code, doc, said) = review(&repo);
        assert_eq!(code, Some(1), "{marker:?}: {said}");
        assert_eq!(doc["verdict"], "unexpected", "{marker:?}: {said}");
        let notes = doc["bounds"]["notes"].to_string();
        assert!(notes.contains("line directive(s)"), "{marker:?}: {notes}");
    }
    // Through the hook: the default gate still blocks the merge.
    let repo = armed_merge("", "# 1 \"/usr/include/stdio.h\" 3\nvoid fire(void) {}\n");
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let out = repo.run_git(&MERGE, &[]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(!repo.merged(), "{}", text(&out));
    assert!(text(&out).contains("unexpected"), "{}", text(&out));
}

#[test]
fn a_header_that_declares_itself_a_system_header_hides_nothing() {
    for pragma in [
        "#pragma GCC system_header\n",
        "#define SYS(x) _Pragma(#x)\nSYS(GCC system_header)\n",
    ] {
        let repo = armed_merge("#include \"fire.h\"\n", "");
        repo.git(&["checkout", "-q", "feature"]);
        repo.commit(
            "fire.h",
            &format!("{pragma}static void fire(void) {{}}\n"),
            "theirs: fire in a header",
        );
        repo.git(&["checkout", "-q", "main"]);
        let (code, doc, said) = review(&repo);
        assert_eq!(code, Some(1), "{pragma:?}: {said}");
        assert_eq!(doc["verdict"], "unexpected", "{pragma:?}: {said}");
        assert!(
            doc.to_string().contains("declares itself a system header"),
            "{pragma:?}: {doc}"
        );
    }
}

#[test]
fn a_host_file_read_through_a_system_header_claim_reaches_no_output() {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    let first = passwd.lines().next().unwrap_or("root:x:0:0").to_string();
    for (header, how) in [
        (
            "#pragma GCC system_header\n#include \"/etc/passwd\"\n",
            "pragma",
        ),
        (
            "# 1 \"/usr/include/stdio.h\" 3\n#include \"/etc/passwd\"\n",
            "marker",
        ),
        (
            "#include \"/usr/include/../../etc/passwd\"\n",
            "a path through /usr/include",
        ),
    ] {
        let repo = armed_merge("#include \"fire.h\"\n", "");
        repo.git(&["checkout", "-q", "feature"]);
        repo.commit(
            "fire.h",
            &format!("{header}static void fire(void) {{}}\n"),
            "theirs",
        );
        repo.git(&["checkout", "-q", "main"]);
        // The branch's code cannot be reviewed: `unfinished`, which the CI recipes' gate
        // (`--also-fail-on unfinished`) blocks.
        let out = repo.mergelens(&[
            "review",
            "main",
            "feature",
            "--format",
            "md",
            "--also-fail-on",
            "unfinished",
        ]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{how}: {said}");
        assert!(said.contains("unfinished"), "{how}: {said}");
        assert!(said.contains("outside the checkout"), "{how}: {said}");
        assert!(!said.contains(&first), "{how}: {said}");
        for name in ["last-review.json", "last-review.html"] {
            let path = repo.path().join(".git/mergelens").join(name);
            let written = std::fs::read_to_string(path).unwrap_or_default();
            assert!(!written.contains(&first), "{how}: {name}");
        }
    }
}

#[test]
fn a_file_name_with_a_line_break_is_reviewed_as_a_file() {
    let name = "new\nline.c";
    let repo = Repo::new();
    let helper = |body: &str| format!("void helper(void)\n{{\n    {body}\n}}\n");
    repo.commit(name, &helper(""), "base");
    repo.commit(
        "prog.c",
        "void helper(void);\nvoid a(void) {}\nint main(void)\n{\n    helper();\n    return 0;\n}\n",
        "base main",
    );
    repo.git(&["branch", "feature"]);
    repo.commit("prog.c", "void helper(void);\nvoid a(void) {}\nint main(void)\n{\n    a();\n    helper();\n    return 0;\n}\n", "ours");
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit(name, &helper("return;"), "theirs");
    repo.git(&["checkout", "-q", "main"]);
    let (code, doc, said) = review(&repo);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    assert!(!said.contains("outside the checkout"), "{said}");
}

#[test]
fn a_function_named_through_a_system_macro_is_the_programs() {
    // `major(d)` expands to `gnu_dev_major (d)`: the name's tokens are the system macro's,
    // but the definition and its body are the program's, and its call an event.
    let repo = Repo::new();
    repo.write(
        "g.c",
        "#include <sys/sysmacros.h>\nvoid fire(void) {}\nunsigned int major(unsigned long d) { fire(); return 0; }\nint main(void) { major(3); return 0; }\n",
    );
    let out = repo.mergelens(&["learn", "g.c", "--entry", "main"]);
    assert!(out.status.success(), "{}", text(&out));
    let dfa: Value = serde_json::from_slice(&out.stdout).unwrap();
    let alphabet = dfa["alphabet"].to_string();
    assert!(alphabet.contains("gnu_dev_major"), "{alphabet}");
}
