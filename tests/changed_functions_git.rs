//! Changed functions as entries of their own (issue 35), with the real CBMC and real git
//! repositories: a function the configured entry never calls is reviewed at its own entry
//! through the generated harness; `changed-functions` selects which; a stop among many
//! changed functions leaves the rest unfinished, never clean.

use crate::common;

use crate::common::{Repo, text};
use serde_json::Value;

/// A library: `parse` sets a mode from its string argument and calls `a()` in mode 1;
/// `main` (when `with_main`) calls only `b()`.
fn library(extra: &str, after_a: &str, with_main: bool) -> String {
    let main = if with_main {
        "\nint main(void)\n{\n    b();\n    return 0;\n}\n"
    } else {
        ""
    };
    format!(
        "void a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\n\nint parse(const char *s)\n{{\n    int mode = 0;\n    if (s[0] == 'x')\n        mode = 1;\n{extra}    if (mode == 1)\n        a();\n{after_a}    return 0;\n}}\n{main}"
    )
}

/// Ours adds a mode 2 on "xy" (which then skips `a()`); theirs calls `c()` in mode 2, which
/// theirs alone never reaches. Together, on "xy", the merge calls `c()`: neither meant it.
fn interfering(with_main: bool) -> Repo {
    common::three_way(
        &library("", "", with_main),
        &library(
            "    if (mode == 1 && s[1] == 'y')\n        mode = 2;\n",
            "",
            with_main,
        ),
        &library("", "    if (mode == 2)\n        c();\n", with_main),
    )
}

fn review(repo: &Repo, extra: &[&str]) -> (Value, String) {
    let mut args = vec!["review", "main", "feature", "--format", "json"];
    args.extend_from_slice(extra);
    let out = repo.mergelens(&args);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (doc, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn entry<'a>(doc: &'a Value, name: &str) -> Option<&'a Value> {
    doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["entry"] == name)
}

#[test]
fn a_changed_function_no_entry_calls_is_reviewed_at_its_own_entry() {
    let repo = interfering(true);
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    // main calls only `b()`: every version runs the same code there, judged without
    // learning.
    assert!(entry(&doc, "main").is_none(), "{doc}");
    let judged = &doc["judged"][0];
    assert_eq!(judged["entry"], "main", "{doc}");
    assert!(judged.get("changed_function").is_none(), "{judged}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("judged at `main`'s entry: every version runs the same code there"),
        "{notes}"
    );
    let parse = entry(&doc, "parse").expect("parse at its own entry");
    assert_eq!(parse["changed_function"], true);
    // The merge's execution on "xy": `c end` where the expected merge ends at once.
    let story = &parse["executions"][0];
    assert_eq!(story["kind"], "unexpected", "{story}");
    let merged: Vec<&str> = story["merged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(merged, ["c", "end"], "{story}");
    // Ours' hunk is reached at parse's own entry. Theirs' hunk is a call, counted only when
    // it runs (issue 38): theirs alone never has mode 2, so no execution of theirs calls
    // `c`, at any bound; the finding, not the coverage, makes the verdict.
    assert_eq!(
        doc["inconclusive"],
        serde_json::json!([
            "theirs' change at prog.c:12-13 is never reached within --unwind 2: its call of `c` never runs (nor does any --unwind up to 4; nor does any --max-word-length up to 40)"
        ]),
        "{}",
        doc["inconclusive"]
    );
    assert!(
        said.contains("entry parse (changed, at its own entry: any arguments the harness allows):"),
        "{said}"
    );
}

#[test]
fn a_library_without_main_is_reviewed_at_its_changed_functions() {
    let repo = interfering(false);
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let names: Vec<&str> = doc["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["entry"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["parse"], "{said}");
}

#[test]
fn independent_changes_inside_one_function_are_clean_at_its_own_entry() {
    // Ours calls `b()` on "b…", theirs `c()` on "c…": different inputs, both composed.
    let base = library("", "", true);
    let ours = base.replace(
        "    return 0;\n}\n\nint main",
        "    if (s[0] == 'b')\n        b();\n    return 0;\n}\n\nint main",
    );
    let theirs = base.replace(
        "    int mode = 0;\n",
        "    int mode = 0;\n    if (s[0] == 'c')\n        c();\n",
    );
    let repo = common::three_way(&base, &ours, &theirs);
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    let parse = entry(&doc, "parse").expect("parse at its own entry");
    let counts = &parse["coverage"]["counts"];
    assert_eq!(counts["hunks"], counts["reached"], "{counts}");
}

#[test]
fn changed_functions_selects_which_functions_get_their_own_entry() {
    // `main` calls parse on a fixed string: the change is reached from main, so `unreached`
    // adds nothing, `all` adds parse anyway, `none` never does.
    let body = |extra: &str| {
        format!(
            "void a(void) {{}}\nvoid b(void) {{}}\n\nint parse(const char *s)\n{{\n    a();\n{extra}    return s[0];\n}}\n\nint main(void)\n{{\n    parse(\"x\");\n    return 0;\n}}\n"
        )
    };
    // Theirs calls `b()` in main after parse.
    let theirs = body("").replace("    parse(\"x\");\n", "    parse(\"x\");\n    b();\n");
    let repo = common::three_way(&body(""), &body("    b();\n"), &theirs);
    // Learned entries and entries judged without learning, in that order.
    let names = |extra: &[&str]| -> Vec<String> {
        let (doc, said) = review(&repo, extra);
        assert_eq!(doc["verdict"], "clean", "{said}");
        let listed = |key: &str| -> Vec<String> {
            doc[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|e| e["entry"].as_str().unwrap().to_string())
                        .collect()
                })
                .unwrap_or_default()
        };
        [listed("entries"), listed("judged")].concat()
    };
    assert_eq!(names(&[]), ["main"]);
    // At parse's entry the merge runs ours' code (theirs changed main only): judged.
    assert_eq!(names(&["--changed-functions", "all"]), ["main", "parse"]);
    assert_eq!(names(&["--changed-functions", "none"]), ["main"]);
}

#[test]
fn a_stop_among_many_changed_functions_leaves_the_rest_unfinished() {
    // Twelve functions, each changed by ours; no main, so they are the review.
    // Both branches change each: ours calls `b()` at the end, theirs at the start, so that
    // no function's merge is one branch's code.
    let functions = |end: &str, start: &str| -> String {
        (0..12)
            .map(|i| {
                format!(
                    "int f{i}(const char *s)\n{{\n{start}    for (int k = 0; s[k] != 0; k++)\n        a();\n{end}    return 0;\n}}\n\n"
                )
            })
            .collect::<String>()
    };
    let program = |end: &str, start: &str| {
        format!(
            "void a(void) {{}}\nvoid b(void) {{}}\n\n{}",
            functions(end, start)
        )
    };
    let repo = common::three_way(
        &program("", ""),
        &program("    b();\n", ""),
        &program("", "    b();\n"),
    );
    let (doc, said) = review(&repo, &["--time-budget", "3"]);
    assert_eq!(doc["verdict"], "unfinished", "{said}");
    let unfinished: Vec<&str> = doc["unfinished"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    let not_reviewed = unfinished
        .iter()
        .filter(|u| {
            u.contains("not reviewed at its own entry, the run was stopped before it")
                || u.contains("its share of the time budget ran out")
        })
        .count();
    assert!(not_reviewed >= 1, "{unfinished:#?}");
    // Each of the twelve is either reviewed (an entry) or named as unfinished.
    let reviewed = doc["entries"].as_array().unwrap().len();
    let named = (0..12)
        .filter(|i| {
            unfinished
                .iter()
                .any(|u| u.contains(&format!("`f{i}`")) || u.contains(&format!("(f{i})")))
        })
        .count();
    assert!(
        reviewed + named >= 12,
        "{reviewed} + {named}: {unfinished:#?}"
    );
}

#[test]
fn a_library_whose_change_is_compiled_out_is_clean_without_learning() {
    // Theirs changes a macro only another platform sees: the program is the base's.
    let base = format!(
        "#ifdef _WIN32\n#define LIMIT 1\n#endif\n{}",
        library("", "", false)
    );
    let theirs = base.replace("#define LIMIT 1", "#define LIMIT 2");
    let ours = format!("/* ours */\n{base}");
    let repo = common::three_way(&base, &ours, &theirs);
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    assert!(doc["entries"].as_array().unwrap().is_empty(), "{doc}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(notes.contains("no version's program differs"), "{notes}");
}

#[test]
fn a_merge_that_is_one_branch_token_for_token_is_clean_without_learning() {
    // Ours only touches a comment; git's merge is theirs' program.
    let base = library("", "", true);
    let ours = format!("/* ours */\n{base}");
    let theirs = library("", "    if (mode == 1)\n        c();\n", true);
    let repo = common::three_way(&base, &ours, &theirs);
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    assert!(doc["entries"].as_array().unwrap().is_empty(), "{doc}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("the merge does exactly theirs' change, on every input and at every bound"),
        "{notes}"
    );
}

#[test]
fn a_merge_of_one_change_both_branches_made_is_clean_without_learning() {
    // Both branches make `parse` call `c()` in mode 1 (theirs also adds a comment).
    let base = library("", "", true);
    let changed = library("", "    if (mode == 1)\n        c();\n", true);
    let repo = common::three_way(&base, &changed, &format!("/* theirs */\n{changed}"));
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    assert!(doc["entries"].as_array().unwrap().is_empty(), "{doc}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("both branches made the same change and the merge keeps it"),
        "{notes}"
    );
}

#[test]
fn a_function_one_branch_adds_is_judged_at_its_own_entry() {
    // Ours adds `count`, which nothing calls yet; theirs changes parse.
    let base = library("", "", true);
    let ours = format!(
        "{base}\nint count(const char *s)\n{{\n    int n = 0;\n    while (s[n] != 0)\n        n++;\n    a();\n    return n;\n}}\n"
    );
    let theirs = library("", "    if (mode == 1)\n        c();\n", true);
    let repo = common::three_way(&base, &ours, &theirs);
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    let judged: Vec<&str> = doc["judged"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["entry"].as_str().unwrap())
        .collect();
    assert!(judged.contains(&"count"), "{doc}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("judged at `count`'s entry: the merge runs exactly ours' code there"),
        "{notes}"
    );
}

#[test]
fn a_struct_pointer_the_function_only_dereferences_is_never_null_at_its_own_entry() {
    // `show` reads through `it` without a test: a caller never passes NULL. Were the
    // harness to pass NULL, CBMC would read a fresh `kind` in each copy of a version and
    // the self-check would fail (inconclusive). Ours calls `b()` for kind 2, theirs `c()`
    // for kind 3: composed, clean.
    let program = |first: &str, last: &str| {
        format!(
            "struct item {{ int kind; double value; }};\nvoid a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\n\nint show(const struct item *it)\n{{\n{first}    if (it->kind == 1)\n        a();\n    if (it->value > 0)\n        return 1;\n{last}    return 0;\n}}\n"
        )
    };
    let repo = common::three_way(
        &program("", ""),
        &program("    if (it->kind == 2)\n        b();\n", ""),
        &program("", "    if ((*it).kind == 3)\n        c();\n"),
    );
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    let show = entry(&doc, "show").expect("show at its own entry");
    let check = &show["execution_check"];
    assert_eq!(check["self_check"]["identical"], true, "{check}");
    assert_eq!(check["complete"], true, "{check}");
}

#[test]
fn a_merge_that_drops_a_function_one_branch_added_loses_it() {
    // Theirs adds `count`, which nothing calls; ours changes parse; the merge commit takes
    // ours' file and leaves `count` out (jsmn 07af5df drops `jsmn_count_tokens` so).
    let base = library("", "", true);
    let ours = library("", "    if (mode == 1)\n        c();\n", true);
    let theirs = format!(
        "{base}\nint count(const char *s)\n{{\n    int n = 0;\n    b();\n    return n;\n}}\n"
    );
    let repo = common::three_way(&base, &ours, &theirs);
    repo.git(&["merge", "-q", "--no-commit", "feature"]);
    repo.commit("prog.c", &ours, "merge, dropping count");
    assert!(repo.merged());
    let out = repo.mergelens(&["review", "--commit", "HEAD", "--format", "json"]);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    let said = text(&out);
    // Written `unexpected` (the document's word for lost), told apart by the languages.
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    assert!(
        said.contains("merge does not do what a branch's change does (lost)"),
        "{said}"
    );
    let count = entry(&doc, "count").unwrap_or_else(|| panic!("no entry `count`: {doc}"));
    let lost = common::example_words(&count["lost"]);
    assert!(lost.iter().any(|w| w.starts_with('b')), "{lost:?} {said}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("`count`: theirs adds it and the merge does not define it"),
        "{notes}"
    );
    let inconclusive = doc["inconclusive"].to_string();
    assert!(
        !inconclusive.contains("`count` is not defined"),
        "{inconclusive}"
    );
}

#[test]
fn a_global_the_function_never_names_does_not_keep_it_from_being_judged() {
    // Ours changes a table and a prototype `scale` never names; theirs changes `scale`. At
    // `scale`'s entry the merge runs exactly theirs' code: judged without learning.
    let program = |table: &str, scale: &str| {
        format!(
            "int table[3] = {{{table}}};\nint lookup(int i{});\nint lookup(int i{}) {{ return table[i]; }}\nint scale(int x)\n{{\n    return {scale};\n}}\n",
            if table.starts_with('1') {
                ""
            } else {
                ", int j"
            },
            if table.starts_with('1') {
                ""
            } else {
                ", int j"
            },
        )
    };
    let base = program("1, 2, 3", "2 * x");
    let ours = program("4, 5, 6", "2 * x");
    let theirs = program("1, 2, 3", "3 * x");
    let repo = common::three_way(&base, &ours, &theirs);
    let config = "entries = []\n";
    repo.commit(".mergelens.toml", config, "config");
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit(".mergelens.toml", config, "config");
    repo.git(&["checkout", "-q", "main"]);
    let (doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "clean", "{said}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("judged at `scale`'s entry: the merge runs exactly theirs' code there"),
        "{notes}"
    );
}
