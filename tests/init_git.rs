//! `mergelens init` in a fresh repository, with the real CBMC and real git: it finds the C
//! files and candidate entries, writes a commented `.mergelens.toml` and a harness skeleton,
//! learns once at small bounds; a review of a real merge then runs on the written
//! configuration, once committed.

use crate::common::{Repo, text};
use serde_json::Value;

/// A library with no `main`: `count` is the candidate entry, `token` and `report` are
/// called by it; `scan` is `static` (no candidate, but a letter like every analysed
/// function).
const BASE: &str = r#"void token(void) {}
void report(void) {}

static int scan(char c)
{
    return c == 'a';
}

int count(const char *s, unsigned n)
{
    int k = 0;
    for (unsigned i = 0; i < n && s[i]; i++) {
        if (scan(s[i])) {
            token();
            k++;
        }
    }



    report();
    return k;
}
"#;

#[test]
fn init_then_review_a_merge_with_the_written_configuration() {
    let repo = Repo::new();
    repo.commit("lib.c", BASE, "a library");
    let head = repo.head();

    let out = repo.mergelens(&["init", "--harness-for", "count", "--time-budget", "60"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("candidate entry functions (most of the program reached first):\n  count(const char *s, unsigned n)    lib.c:"),
        "{stdout}"
    );
    // Called by `count`, or static: no candidates.
    for name in ["token(", "report(", "scan("] {
        assert!(!stdout.contains(&format!("  {name}")), "{stdout}");
    }
    assert!(
        stdout.contains("alphabet of `main` (5 letters): token report scan count end"),
        "{stdout}"
    );
    assert!(
        stdout.contains("learned `main` at --unwind 1 --max-word-length 6 in "),
        "{stdout}"
    );
    assert!(stdout.contains("suggested bound: unwind = "), "{stdout}");
    let config = std::fs::read_to_string(repo.path().join(".mergelens.toml")).unwrap();
    assert!(config.contains("entries = [\"main\"]"), "{config}");
    assert!(
        config.contains("harness = [\"mergelens-harness.c\"]"),
        "{config}"
    );
    let harness = std::fs::read_to_string(repo.path().join("mergelens-harness.c")).unwrap();
    // The generated entry harness's own text: `s` and its length `n` sized together.
    assert!(harness.contains("    count(s_buffer, n);"), "{harness}");
    assert!(
        harness.contains("__CPROVER_assume(n >= 0 && n <= 4);"),
        "{harness}"
    );
    // Only the two files it names: no commit, nothing staged.
    assert_eq!(repo.head(), head);
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "?? .mergelens.toml\n?? mergelens-harness.c"
    );
    // Never over an existing configuration without --force.
    let again = repo.mergelens(&["init", "--no-learn"]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(text(&again).contains("pass --force"), "{}", text(&again));

    repo.git(&["add", ".mergelens.toml", "mergelens-harness.c"]);
    repo.git(&["commit", "-q", "-m", "mergelens configuration"]);
    repo.git(&["branch", "feature"]);
    // Ours: a call after the loop; theirs: an empty buffer is reported at once.
    let ours = BASE.replace("\n\n\n\n    report();", "\n    token();\n\n\n    report();");
    repo.commit("lib.c", &ours, "ours: one more token");
    repo.git(&["checkout", "-q", "feature"]);
    let theirs = BASE.replace(
        "    int k = 0;\n",
        "    int k = 0;\n    if (n == 0) {\n        report();\n        return 0;\n    }\n",
    );
    repo.commit("lib.c", &theirs, "theirs: an empty buffer");
    repo.git(&["checkout", "-q", "main"]);

    // Theirs' early return skips the token ours adds after the loop: for an empty buffer the
    // merge still reports without a token, which ours' change removed and theirs' did not
    // add.
    let out = repo.mergelens(&["review", "feature", "--format", "json", "--no-cache"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["verdict"], "unexpected", "{doc}");
    assert_eq!(
        doc["entries"][0]["unexpected"]["examples"],
        serde_json::json!([["count", "report", "end"]]),
        "{doc}"
    );
    let entry = &doc["entries"][0];
    assert_eq!(entry["entry"], "main", "{entry}");
    assert_eq!(
        entry["alphabet"],
        serde_json::json!(["token", "report", "scan", "count", "end"]),
        "{entry}"
    );
}

#[test]
fn init_leaves_out_test_code_and_files_gcc_cannot_read_and_says_which() {
    let repo = Repo::new();
    repo.write("lib.c", BASE);
    // A test framework that needs a header the repository does not have, a test program
    // with a second `main`, and an example.
    repo.write(
        "tests/unity/unity.c",
        "#include \"unity_config.h\"\nint u;\n",
    );
    repo.write(
        "tests.c",
        "int count(const char *s, unsigned n);\nint main(void) { return count(\"a\", 1); }\n",
    );
    repo.write("examples/ex.c", "int main(void) { return 0; }\n");
    repo.write("extra.c", "#include \"missing.h\"\nint e;\n");
    // A benchmark and a REPL by their names, and two programs whose names say nothing:
    // each defines `main`, so each is a program of its own beside the library.
    repo.write("bench.c", "int count(const char *s, unsigned n);\nint b;\n");
    repo.write("repl.c", "int r;\n");
    for name in ["cli.c", "driver.c"] {
        repo.write(
            name,
            "int count(const char *s, unsigned n);\nint\nmain (void)\n{\n    return count(\"a\", 1);\n}\n",
        );
    }
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "library"]);
    let out = repo.mergelens(&["init", "--no-learn"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("left out 8 C files"), "{said}");
    assert!(
        said.contains("tests/unity/unity.c: test, example, benchmark or fuzzing code"),
        "{said}"
    );
    for name in ["bench.c", "repl.c"] {
        assert!(
            said.contains(&format!("{name}: test, example, benchmark")),
            "{said}"
        );
    }
    for name in ["cli.c", "driver.c"] {
        assert!(
            said.contains(&format!("{name}: defines `main` as other files do")),
            "{said}"
        );
    }
    assert!(said.contains("extra.c: gcc cannot preprocess it"), "{said}");
    let config = std::fs::read_to_string(repo.path().join(".mergelens.toml")).unwrap();
    assert!(config.contains("files = [\"lib.c\"]"), "{config}");
    assert!(config.contains("entries = [\"count\"]"), "{config}");
    // --files chooses.
    let out = repo.mergelens(&["init", "--no-learn", "--force", "--files", "lib.c,tests.c"]);
    assert!(out.status.success(), "{}", text(&out));
    let config = std::fs::read_to_string(repo.path().join(".mergelens.toml")).unwrap();
    assert!(config.contains("entries = [\"main\"]"), "{config}");
    let out = repo.mergelens(&["init", "--no-learn", "--force", "--files", "nothing/*.c"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn a_first_learning_stopped_by_its_budget_is_never_called_empty() {
    let repo = Repo::new();
    // Reaching found() means factoring a 64-bit semiprime: no quick answer.
    let hard = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/hard_factor.c"),
    )
    .unwrap();
    repo.commit("hard.c", &hard, "hard");
    let out = repo.mergelens(&["init", "--time-budget", "2"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("PARTIAL: stopped by the time budget"),
        "{said}"
    );
    assert!(said.contains("no bound suggested"), "{said}");
    assert!(!said.contains("empty"), "{said}");
    assert!(!said.contains("suggested bound:"), "{said}");
}

#[test]
fn three_files_defining_the_entry_are_one_clear_error_in_learn_and_review() {
    let program = |name: &str| {
        format!("void {name}(void) {{}}\nint main(void)\n{{\n    {name}();\n    return 0;\n}}\n")
    };
    let repo = Repo::new();
    for name in ["a", "b", "c"] {
        repo.write(&format!("{name}.c"), &program(name));
    }
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "three programs"]);
    repo.git(&["branch", "feature"]);
    repo.commit(
        "a.c",
        &program("a").replace("    a();", "    a();\n    a();"),
        "ours",
    );
    let out = repo.mergelens(&["learn", "a.c", "b.c", "c.c", "--entry", "main"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("`main` is defined twice, at a.c:2 and at b.c:2"),
        "{said}"
    );
    assert_eq!(said.trim().lines().count(), 1, "{said}");
    let out = repo.mergelens(&["review", "main", "feature"]);
    let said = text(&out);
    assert!(said.contains("`main` is defined twice"), "{said}");
    assert!(said.contains("at a.c:2 and at b.c:2"), "{said}");
}

#[test]
fn a_library_including_its_own_header_by_angle_brackets_gets_its_include_dir() {
    // http-parser's `#include <http_parser.h>`: gcc finds it only with `-I.`.
    let repo = Repo::new();
    repo.write(
        "inc/lib.h",
        "struct box { int n; };\nint size(struct box *b);\n",
    );
    repo.write(
        "src/lib.c",
        "#include <stdio.h>\n#include <lib.h>\nvoid big(void) {}\nint size(struct box *b)\n{\n    if (b->n > 3)\n        big();\n    return b->n;\n}\n",
    );
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "library"]);
    let out = repo.mergelens(&["init", "--harness-for", "size", "--no-learn"]);
    assert!(out.status.success(), "{}", text(&out));
    let config = std::fs::read_to_string(repo.path().join(".mergelens.toml")).unwrap();
    assert!(config.contains("include-dirs = [\"inc\"]"), "{config}");
    let harness = std::fs::read_to_string(repo.path().join("mergelens-harness.c")).unwrap();
    assert!(harness.contains("#include <lib.h>"), "{harness}");
    assert!(!harness.contains("#include <stdio.h>"), "{harness}");
    // The harness compiles with the program and that directory.
    let out = repo.mergelens(&[
        "learn",
        "src/lib.c",
        "-I",
        "inc",
        "--harness",
        "mergelens-harness.c",
        "--entry",
        "main",
        "-o",
        "d.json",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let out = repo.mergelens(&["automaton", "words", "--max-length", "4", "d.json"]);
    let words = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(words.contains("size big end"), "{words}");
}

#[test]
fn a_harness_skeleton_binds_a_callback_to_a_stub_that_records_its_calls() {
    let repo = Repo::new();
    repo.write(
        "lib.h",
        "typedef int (*handler_fn)(const char *key, void *ctx);\nint each(const char *keys, handler_fn cb, void *ctx);\n",
    );
    repo.write(
        "lib.c",
        "#include \"lib.h\"\nvoid found(void) {}\nvoid skipped(void) {}\nint each(const char *keys, handler_fn cb, void *ctx)\n{\n    if (cb(keys, ctx))\n        found();\n    else\n        skipped();\n    return 0;\n}\n",
    );
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "library"]);
    let out = repo.mergelens(&["init", "--harness-for", "each", "--no-learn"]);
    assert!(out.status.success(), "{}", text(&out));
    let harness = std::fs::read_to_string(repo.path().join("mergelens-harness.c")).unwrap();
    assert!(
        harness.contains("static int stub_cb(const char *key, void *ctx)"),
        "{harness}"
    );
    // `ctx`, a `void *`, is NULL or points to bytes: the choice is an input.
    assert!(
        harness.contains("each(keys_string, stub_cb, (ctx_is_null ? 0 : &ctx_bytes[0]));"),
        "{harness}"
    );
    // The stub answers either way: both of the library's paths are behaviour.
    let out = repo.mergelens(&[
        "learn",
        "lib.c",
        "--harness",
        "mergelens-harness.c",
        "--entry",
        "main",
        "-o",
        "d.json",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let out = repo.mergelens(&["automaton", "words", "--max-length", "5", "d.json"]);
    let words = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        words.contains("each found end") && words.contains("each skipped end"),
        "{words}"
    );
}

#[test]
fn init_ranks_entries_by_how_much_of_the_library_they_reach_and_suggests_measured_bounds() {
    let repo = Repo::new();
    repo.write(
        "lib.c",
        "int value;\nint get_value(void) { return value; }\nvoid token(void) {}\nvoid number(void) { token(); }\nvoid report(void) {}\nint parse(const char *s)\n{\n    if (s[0] == '1')\n        number();\n    report();\n    return 0;\n}\n",
    );
    repo.git(&["add", "."]);
    repo.git(&["commit", "-q", "-m", "library"]);
    let out = repo.mergelens(&["init"]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    let parse = said.find("  parse(").unwrap_or_else(|| panic!("{said}"));
    let getter = said
        .find("  get_value(")
        .unwrap_or_else(|| panic!("{said}"));
    assert!(parse < getter, "{said}");
    assert!(said.contains("reaches 3 function(s)"), "{said}");
    let config = std::fs::read_to_string(repo.path().join(".mergelens.toml")).unwrap();
    assert!(config.contains("entries = [\"parse\"]"), "{config}");
    // Each step of the ladder is measured, and the suggestion says what it rests on.
    assert!(
        said.contains("learned `parse` at --unwind 2 --max-word-length 10"),
        "{said}"
    );
    assert!(
        said.contains("suggested bound: unwind = 3, max-word-length = 12"),
        "{said}"
    );
    assert!(said.contains("measured: learned in"), "{said}");
}
