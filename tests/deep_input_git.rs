//! Deep input is an error, never a crash: a branch whose code nests deeper than the front
//! end's walks may go (a macro that expands to a chain of a million operators, 30,000
//! nested parentheses) gets a one-line error naming the file, in `review` and in the hook,
//! where `on-error` decides and the warning line says so. With the real gcc, CBMC and git.

use crate::common::{Repo, text, three_way};

const BASE: &str = "int nondet_int(void);\nvoid f(void) {}\n\nint main(void)\n{\n    int x = nondet_int();\n\n    if (x) f();\n\n    return 0;\n}\n";

/// Ours adds a call of `g`; theirs replaces the condition `x` by `deep`.
fn merge_with(deep: &str, defines: &str) -> Repo {
    let ours = BASE
        .replace("void f(void) {}", "void f(void) {}\nvoid g(void) {}")
        .replace("    return 0;", "    g();\n    return 0;");
    let theirs = format!(
        "{defines}{}",
        BASE.replace("if (x)", &format!("if ({deep})"))
    );
    three_way(BASE, &ours, &theirs)
}

/// `x+x+…` of 1,000 terms, doubled ten times: about two million tokens, with no
/// parentheses, so one chain nesting a million levels deep.
fn million_token_macro() -> Repo {
    let mut defines = format!("#define A0 {}\n", vec!["x"; 1000].join("+"));
    for i in 1..=10 {
        defines.push_str(&format!("#define A{i} A{}+A{}\n", i - 1, i - 1));
    }
    merge_with("A10", &defines)
}

fn nested_parentheses() -> Repo {
    merge_with(
        &format!("{}x{}", "(".repeat(30_000), ")".repeat(30_000)),
        "",
    )
}

/// Refused at `prog.c`: by the front end (`levels deep`) or, where gcc gives up first (its
/// parser has a nesting limit of its own), by gcc; never a crash.
fn assert_refused(said: &str) {
    assert!(said.contains("prog.c:"), "{said}");
    assert!(
        said.contains("levels deep") || said.contains("memory exhausted"),
        "{said}"
    );
    assert!(!said.contains("overflowed its stack"), "{said}");
    assert!(!said.contains("died of signal"), "{said}");
    assert!(!said.contains("panicked"), "{said}");
}

/// Theirs' deep code is the branch's to answer for: the review is `unfinished` with the
/// reason (exit 0 by default, 1 when fail-on names `unfinished`), never a crash; the same
/// code in ours, the owner's own, is bad input (exit 2).
#[test]
fn review_refuses_deep_input_with_the_file_named() {
    for (repo, front_end) in [(million_token_macro(), true), (nested_parentheses(), false)] {
        let out = repo.mergelens(&["review", "feature", "--no-cache"]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(said.contains("verdict: unfinished"), "{said}");
        assert_refused(&said);
        // The million-token chain is the front end's to refuse: gcc reads it.
        assert!(
            !front_end || said.contains("nests more than 50000 levels deep"),
            "{said}"
        );
        let out = repo.mergelens(&[
            "review",
            "feature",
            "--no-cache",
            "--also-fail-on",
            "unfinished",
        ]);
        assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    }
    // The owner's own deep code (reviewing main into feature): bad input, one error line.
    let repo = million_token_macro();
    repo.git(&["checkout", "-q", "feature"]);
    let out = repo.mergelens(&["review", "feature", "main", "--no-cache"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert_refused(&said);
    assert_eq!(
        said.lines().filter(|l| l.contains("error:")).count(),
        1,
        "{said}"
    );
}

#[test]
fn in_the_hook_fail_on_decides_and_the_message_says_unfinished() {
    let repo = million_token_macro();
    let out = repo.mergelens(&["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    let ours = repo.head();
    let merge = ["merge", "--no-ff", "-m", "merge feature", "feature"];

    // The default fail-on lets an unfinished review through, saying so.
    let out = repo.run_git(&merge, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert_refused(&said);
    assert!(said.contains("unfinished"), "{said}");
    assert!(repo.merged());
    repo.git(&["reset", "-q", "--hard", &ours]);

    // The owner's fail-on names it: not merged.
    repo.commit(
        ".mergelens.toml",
        "fail-on = [\"unexpected\", \"unfinished\"]\n",
        "settings",
    );
    let ours = repo.head();
    let out = repo.run_git(&merge, &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert_refused(&said);
    assert_eq!(repo.head(), ours, "no merge commit");
    repo.git(&["merge", "--abort"]);
}
