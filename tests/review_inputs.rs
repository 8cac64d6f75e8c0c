//! One world for the four versions (issue 18), on real repositories with the real CBMC:
//! whatever a version reads that CBMC would choose (a function without a body, the C
//! library's input, an uninitialised local or harness buffer, `malloc`'s bytes, `main`'s
//! arguments, a pointer parameter's buffer, what `sscanf`, `sprintf` and `snprintf` give) is read from streams the product program
//! shares, so independent changes on the two arms of a branch on such an input compose;
//! interference through such an input is still found, with the input shown; and an input
//! the product does not share makes the self-check fail and the entry inconclusive.

use crate::common::{Repo, text, three_way as merge, word};
use serde_json::{Value, json};

/// Reviews feature into main as JSON: the exit code, the document and what was said.
fn review(repo: &Repo, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["review", "main", "feature", "--format", "json"];
    args.extend_from_slice(extra);
    let out = repo.mergelens(&args);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), doc, text(&out))
}

/// A program branching on `condition` (after `setup`) in `signature`, with `then` and
/// `otherwise` added to the arms.
fn arms(
    prelude: &str,
    signature: &str,
    setup: &str,
    condition: &str,
    arms: (&str, &str),
) -> String {
    let (then, otherwise) = arms;
    format!(
        "{prelude}\nvoid low(void) {{}}\nvoid high(void) {{}}\nvoid log_low(void) {{}}\nvoid log_high(void) {{}}\n\n{signature}\n{{\n    {setup}\n    if ({condition}) {{\n        high();{then}\n    }} else {{\n        low();{otherwise}\n    }}\n    return 0;\n}}\n"
    )
}

/// Ours logs on one arm, theirs on the other: on every input the merge is one branch's
/// change or the other's, so the verdict is clean, and the self-check held.
fn assert_arms_compose(
    prelude: &str,
    signature: &str,
    setup: &str,
    condition: &str,
    extra: &[&str],
) {
    let program = |a| arms(prelude, signature, setup, condition, a);
    let repo = merge(
        &program(("", "")),
        &program(("\n        log_high();", "")),
        &program(("", "\n        log_low();")),
    );
    let (code, doc, said) = review(&repo, extra);
    assert_eq!(doc["verdict"], "clean", "{condition}: {said}");
    assert_eq!(code, Some(0), "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["self_check"]["identical"], true, "{check}");
    assert_eq!(check["unexpected"], 0, "{check}");
    assert_eq!(check["complete"], true, "{check}");
}

#[test]
fn a_branch_on_a_function_without_a_body_composes() {
    assert_arms_compose(
        "int sensor(void);",
        "int main(void)",
        "",
        "sensor() > 10",
        &[],
    );
}

#[test]
fn a_branch_on_getchar_and_on_fgets_composes() {
    assert_arms_compose(
        "#include <stdio.h>",
        "int main(void)",
        "int c = getchar();",
        "c == 'x'",
        &[],
    );
    assert_arms_compose(
        "#include <stdio.h>",
        "int main(void)",
        "char line[16];",
        "fgets(line, sizeof line, stdin) && line[0] == 'q'",
        &[],
    );
}

#[test]
fn a_branch_on_an_uninitialised_local_and_on_malloced_bytes_composes() {
    assert_arms_compose("", "int main(void)", "int x;", "x > 3", &[]);
    assert_arms_compose(
        "#include <stdlib.h>",
        "int main(void)",
        "char *p = malloc(4);\n    if (!p)\n        return 1;",
        "p[1] == 'z'",
        &[],
    );
}

#[test]
fn a_branch_on_what_strtod_and_strtoul_read_composes() {
    // CBMC 6.6 has no model of `strtod`: mergelens's gives the end pointer from the text
    // and reads the number from the shared input.
    assert_arms_compose(
        "#include <stdlib.h>",
        "int main(void)",
        "char text[4];\n    text[3] = 0;\n    char *end;\n    double v = strtod(text, &end);",
        "end != text && v > 2.5",
        &[],
    );
    // Nor of `strtoul`: mergelens's gives its value too, the same in every version.
    assert_arms_compose(
        "#include <stdlib.h>",
        "int main(void)",
        "char text[3];\n    text[2] = 0;\n    unsigned long n = strtoul(text, 0, 10);",
        "n > 5",
        &[],
    );
}

#[test]
fn a_branch_on_what_sscanf_sprintf_and_snprintf_give_composes() {
    // CBMC's models choose these results and bytes afresh in each version (a version beside
    // a copy of itself went different ways: the self-check failed, as on cJSON's
    // `print_number`); mergelens reads them from the shared input.
    assert_arms_compose(
        "#include <stdio.h>",
        "int main(void)",
        "char text[4];\n    text[3] = 0;\n    double d = 0;\n    int got = sscanf(text, \"%lg\", &d);",
        "got == 1 && d < 0",
        &[],
    );
    assert_arms_compose(
        "#include <stdio.h>",
        "int main(void)",
        "char out[8];\n    int n = sprintf(out, \"%d\", 42);",
        "n > 2",
        &[],
    );
    assert_arms_compose(
        "#include <stdio.h>",
        "int main(void)",
        "char out[4];\n    int n = snprintf(out, sizeof out, \"%d\", 7);",
        "n == 1 && out[0] == '7'",
        &[],
    );
}

#[test]
fn entries_with_pointer_parameters_are_checked_per_execution() {
    assert_arms_compose(
        "",
        "int main(int argc, char **argv)",
        "",
        "argc > 1 && argv[1][0] == '-'",
        &[],
    );
    assert_arms_compose(
        "#include <stddef.h>",
        "int parse(const char *s, size_t n)",
        "",
        "n > 0 && s[0] == '{'",
        &["--entry", "parse"],
    );
}

#[test]
fn a_branch_on_an_uninitialised_harness_buffer_composes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let harness = dir.path().join("harness.c");
    std::fs::write(
        &harness,
        "int parse(const char *s);\nint main(void)\n{\n    char buf[4];\n    buf[3] = 0;\n    parse(buf);\n    return 0;\n}\n",
    )
    .expect("the harness");
    let harness = harness.display().to_string();
    assert_arms_compose(
        "",
        "int parse(const char *s)",
        "",
        "s[0] == '['",
        &["--harness", &harness],
    );
}

/// Ours sets a global from `input`; theirs alerts when the global is above 7: only the
/// merge alerts, on the inputs above 7.
fn interference(prelude: &str, signature: &str, input: &str) -> Repo {
    let program = |set: &str, check: &str| {
        format!(
            "{prelude}\nint g;\nvoid alert(void) {{}}\nvoid note(void) {{}}\n\n{signature}\n{{\n    int v = {input};\n    g = {set};\n    note();\n{check}    return 0;\n}}\n"
        )
    };
    merge(
        &program("0", ""),
        &program("v", ""),
        &program("0", "    if (g > 7)\n        alert();\n"),
    )
}

#[test]
fn interference_through_a_function_without_a_body_is_unexpected_and_shows_its_value() {
    let repo = interference("int sensor(void);", "int main(void)", "sensor()");
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(word(&s["merged"]), "note alert end", "{s}");
    assert_eq!(word(&s["expected"]), "note end", "{s}");
    let read = &s["input"]["reads"][0];
    assert_eq!(read["source"], "sensor()", "{s}");
    let v = read["values"][0].as_i64().expect("the value sensor() gave");
    assert!(v > 7, "{s}");
    // Where the value was read: `int v = sensor();`, line 8 of prog.c in every version.
    let site = &read["sites"][0];
    assert_eq!(
        (&site["file"], &site["line"], &site["function"]),
        (&json!("prog.c"), &json!(8), &json!("main")),
        "{s}"
    );
    assert_eq!(
        (&site["call"], &site["variable"]),
        (&json!("sensor"), &json!("v"))
    );
    assert_eq!(site["version"], "merged", "{s}");
    assert!(
        said.contains(&format!("v = sensor() at prog.c:8 (main): {v}")),
        "{said}"
    );
}

#[test]
fn interference_through_the_number_strtod_read_is_unexpected_and_shows_the_number() {
    let repo = interference(
        "#include <stdlib.h>",
        "int main(void)",
        "strtod(\"3.5\", 0) > 7.0 ? 9 : 0",
    );
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    let read = &s["input"]["reads"][0];
    assert_eq!(
        (&read["source"], &read["real"]),
        (&json!("strtod"), &json!("double")),
        "{s}"
    );
    let bits = read["values"][0].as_i64().expect("the number strtod gave");
    let number = f64::from_bits(bits as u64);
    assert!(number > 7.0, "{s}");
    assert!(
        said.contains(&format!("strtod at prog.c:8 (main): {number:?}")),
        "{said}"
    );
}

#[test]
fn interference_through_harness_data_is_unexpected() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let harness = dir.path().join("harness.c");
    std::fs::write(
        &harness,
        "int run(int level);\nint main(void)\n{\n    signed char buf[2];\n    run(buf[0]);\n    return 0;\n}\n",
    )
    .expect("the harness");
    let repo = interference("", "int run(int level)", "level");
    let (code, doc, said) = review(&repo, &["--harness", &harness.display().to_string()]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(word(&s["merged"]), "run note alert end", "{s}");
    assert_eq!(s["input"]["reads"][0]["source"], "buf in main", "{s}");
}

#[test]
fn an_input_the_product_does_not_share_fails_the_self_check_and_is_inconclusive() {
    // A body-less function returning a pointer: what it points to is drawn anew in every
    // version, and mergelens does not share it.
    let program = |a| {
        arms(
            "const char *name(void);",
            "int main(void)",
            "const char *s = name();",
            "s[0] == 'a'",
            a,
        )
    };
    let repo = merge(
        &program(("", "")),
        &program(("\n        log_high();", "")),
        &program(("", "\n        log_low();")),
    );
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(doc["verdict"], "inconclusive", "{said}");
    assert_eq!(code, Some(0), "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["self_check"]["identical"], false, "{check}");
    let place = check["self_check"]["divergence"].as_str().expect("where");
    assert!(place.contains("prog.c:"), "{place}");
    assert!(!place.contains("/tmp"), "{place}");
    let why = doc["inconclusive"][0].as_str().expect("a reason");
    assert!(why.contains("self-check failed"), "{why}");
    assert!(said.contains("self-check failed"), "{said}");
}

#[test]
fn the_same_call_added_at_two_call_sites_is_two_changes_and_clean() {
    // Ours logs after `a` when the sensor reads more than 0, theirs before `b` when it reads
    // more than 5, lines apart: git merges both insertions, and where both conditions hold
    // the merge logs twice where each branch logs once: two changes, not one taken twice.
    let program = |after_a: &str, before_b: &str| {
        format!(
            "int sensor(void);\nint x;\nvoid a(void) {{}}\nvoid b(void) {{}}\nvoid log_it(void) {{}}\n\nint main(void)\n{{\n    int v = sensor();\n    a();{after_a}\n    x = 1;\n    x = x + 1;\n    x = x + 2;\n    x = x + 3;\n{before_b}    b();\n    return 0;\n}}\n"
        )
    };
    let repo = merge(
        &program("", ""),
        &program("\n    if (v > 0) log_it();", ""),
        &program("", "    if (v > 5) log_it();\n"),
    );
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["explained"], check["quadruples"], "{check}");
    assert_eq!(check["self_check"]["identical"], true, "{check}");
    assert!(
        !said.contains("two changes at different call sites"),
        "{said}"
    );
}

#[test]
fn a_pointer_entrys_story_shows_the_characters_it_read_and_no_overwritten_value() {
    // Ours keeps the second character of `s` in the global `g` when the first is 'a';
    // theirs alerts when `g` holds '0': only the merge alerts, on "a0...". The local `v`
    // and the global `g` are assigned before anything reads them: no input.
    let program = |set: &str, check: &str| {
        format!(
            "int g;\nvoid alert(void) {{}}\nvoid note(void) {{}}\n\nint f(const char *s)\n{{\n    int v;\n    v = s[0] == 'a' ? s[1] : 0;\n    g = {set};\n    note();\n{check}    return 0;\n}}\n"
        )
    };
    let repo = merge(
        &program("0", ""),
        &program("v", ""),
        &program("0", "    if (g == '0')\n        alert();\n"),
    );
    let (code, doc, said) = review(&repo, &["--entry", "f"]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(word(&s["merged"]), "note alert end", "{s}");
    let reads = s["input"]["reads"].as_array().expect("the reads");
    assert_eq!(reads.len(), 1, "only the string is an input: {s}");
    let read = &reads[0];
    assert_eq!(read["source"], "the buffer of argument 1 of f", "{s}");
    assert_eq!(read["types"], json!(["char [4]"]), "{s}");
    // The three characters before the string's NUL, which is no input.
    let bytes = read["bytes"][0].as_array().expect("the bytes read");
    assert_eq!(bytes.len(), 3, "{s}");
    assert_eq!((&bytes[0], &bytes[1]), (&json!(97), &json!(48)), "{s}");
    // The terminal tells the story with the characters.
    let out = repo.mergelens(&["review", "main", "feature", "--entry", "f"]);
    let told = text(&out);
    assert!(
        told.contains("the buffer of argument 1 of f [\"a0"),
        "{told}"
    );
    assert!(!told.contains("g_value"), "{told}");
}
