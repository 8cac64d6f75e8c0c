//! The per-execution merge verdict (issue 12) on real repositories with the real CBMC: the
//! four versions run on one shared input, each execution's call trees merged as diff3
//! merges lines. Independent changes on one path and a body change beside a new call of
//! that function compose (clean); a change to a global that the other branch's change
//! reads is unexpected, with the input that shows it; both branches replacing one call
//! differently overlap, as the merge of Fig. 12 does when its guard is false; the entry's
//! arguments are shared like the tape and shown in the story; a change both branches made
//! to a tokenizer is explained without enumerating the executions that show it alone.

use crate::common::{Repo, example_words as words, fig12, text, three_way as merge, word};
use serde_json::Value;

/// Reviews feature into main as JSON: the exit code and the document.
fn review(repo: &Repo, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec!["review", "main", "feature", "--format", "json"];
    args.extend_from_slice(extra);
    let out = repo.mergelens(&args);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), doc, text(&out))
}

/// `void a(void) { A }` ... with `main` calling a, then b.
fn two_functions(a: &str, b: &str) -> String {
    format!(
        "void trace(void) {{}}\nvoid verify(void) {{}}\n\nvoid a(void)\n{{\n    {a}\n}}\n\n/* between */\n\nvoid b(void)\n{{\n    {b}\n}}\n\nint main(void)\n{{\n    a();\n    b();\n    return 0;\n}}\n"
    )
}

#[test]
fn independent_changes_on_one_path_compose_and_are_clean() {
    let repo = merge(
        &two_functions("", ""),
        &two_functions("trace();", ""),
        &two_functions("", "verify();"),
    );
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    let entry = &doc["entries"][0];
    // Word by word the merge looks unexpected; per execution it is both changes together.
    assert_eq!(words(&entry["unexpected"]), ["a trace b verify end"]);
    assert!(entry.get("executions").is_none(), "{entry}");
    let check = &entry["execution_check"];
    assert_eq!(check["complete"], true, "{check}");
    assert_eq!(check["quadruples"], 1, "{check}");
    assert_eq!(check["explained"], 1, "{check}");
    assert!(check["cbmc_runs"].as_u64().unwrap() >= 2, "{check}");
}

#[test]
fn a_body_change_and_a_new_call_of_that_function_compose() {
    let program = |body: &str, calls: &str| {
        format!(
            "void g(void) {{}}\nvoid h(void) {{}}\n\nvoid f(void)\n{{\n    {body}\n}}\n\n/* between */\n\nint main(void)\n{{\n    {calls}\n    return 0;\n}}\n"
        )
    };
    let repo = merge(
        &program("g();", "f();"),
        &program("h();", "f();"),
        &program("g();", "f(); f();"),
    );
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["explained"], 1, "{check}");
}

#[test]
fn a_change_to_a_global_the_other_branchs_change_reads_is_unexpected() {
    let program = |set: &str, use_: &str| {
        format!(
            "int nondet_int(void);\nint armed;\nvoid fire(void) {{}}\n\nvoid arm(void)\n{{\n    {set}\n}}\n\n/* between */\n\nvoid use(void)\n{{\n    {use_}\n}}\n\nint main(void)\n{{\n    arm();\n    use();\n    return 0;\n}}\n"
        )
    };
    // Ours arms on some inputs; theirs fires when armed. Neither branch fires alone.
    let repo = merge(
        &program("", ""),
        &program("armed = nondet_int();", ""),
        &program("", "if (armed) fire();"),
    );
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let entry = &doc["entries"][0];
    let stories = entry["executions"].as_array().expect("stories");
    assert_eq!(stories.len(), 1, "{stories:?}");
    let s = &stories[0];
    assert_eq!(s["kind"], "unexpected");
    for v in ["base", "ours", "theirs"] {
        assert_eq!(word(&s[v]), "arm use end", "{v}: {s}");
    }
    assert_eq!(word(&s["merged"]), "arm use fire end");
    assert_eq!(word(&s["expected"]), "arm use end");
    // The input that shows it: ours' first nondet value arms.
    let tape = s["input"]["tape"].as_array().expect("a tape");
    assert_eq!(tape.len(), 1, "{s}");
    assert_ne!(tape[0].as_i64().unwrap(), 0, "{s}");
    // Each value is labelled with the line that read it, in the merge.
    let site = &s["input"]["tape_sites"][0];
    assert_eq!(site["variable"], "armed", "{s}");
    assert_eq!(site["version"], "merged", "{s}");
    assert!(
        said.contains(&format!(
            "armed = nondet_int() at prog.c:7 (arm): {}",
            tape[0]
        )),
        "{said}"
    );
    // fail-on never lets it through.
    let (code, _, said) = review(&repo, &["--fail-on", "never"]);
    assert_eq!(code, Some(0), "{said}");
}

#[test]
fn both_branches_replacing_one_call_differently_overlap() {
    use crate::common::demo_fig12::{BASE, OURS, THEIRS};
    // Theirs replaces funcB() unconditionally: on every input both branches changed what
    // follows funcA.
    let theirs = THEIRS.replace(
        "    if (nondet_int())\n        funcB();\n    else\n        funcC();",
        "    funcC();",
    );
    assert_ne!(theirs, THEIRS);
    let repo = merge(BASE, OURS, &theirs);
    let (code, doc, said) = review(&repo, &[]);
    // The default fail-on blocks unexpected executions only.
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "overlapping", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(s["kind"], "overlapping");
    assert!(s.get("expected").is_none(), "{s}");
    assert_eq!(word(&s["ours"]), "funcA funcZ funcB end");
    assert_eq!(word(&s["theirs"]), "funcA funcC end");
    assert_eq!(word(&s["merged"]), "funcA funcZ funcC end");
    let (code, _, said) = review(&repo, &["--fail-on", "overlapping"]);
    assert_eq!(code, Some(1), "{said}");
}

#[test]
fn fig12_overlaps_where_the_guard_is_false_and_the_check_is_cached() {
    let repo = fig12();
    let (code, doc, said) = review(&repo, &[]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "overlapping", "{said}");
    let entry = &doc["entries"][0];
    let stories = entry["executions"].as_array().expect("stories");
    assert_eq!(stories.len(), 1, "{stories:?}");
    let s = &stories[0];
    assert_eq!(s["input"]["tape"], serde_json::json!([0]), "{s}");
    assert_eq!(word(&s["base"]), "funcA funcB end");
    assert_eq!(word(&s["ours"]), "funcA funcZ funcB end");
    assert_eq!(word(&s["theirs"]), "funcA funcC end");
    assert_eq!(word(&s["merged"]), "funcA funcZ funcC end");
    // Where the guard holds, theirs is the base and ours' move is expected: not a story.
    let check = &entry["execution_check"];
    assert_eq!(check["overlapping"], 1, "{check}");
    assert_eq!(check["from_cache"], false, "{check}");
    let (_, again, _) = review(&repo, &[]);
    let check = &again["entries"][0]["execution_check"];
    assert_eq!(check["from_cache"], true, "{check}");
    assert_eq!(check["cbmc_runs"], 0, "{check}");
    assert_eq!(again["entries"][0]["executions"], entry["executions"]);
    // The stories in Markdown and HTML.
    let out = repo.mergelens(&["review", "main", "feature", "--format", "md"]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains(
            "**overlapping execution**: ours calls funcZ, theirs calls funcC and drops funcB, the merge calls funcZ and funcC and drops funcB; on `nondet_int()` at src/server.c:20 (funcZ) = **0**"
        ),
        "{md}"
    );
    // In columns, a caret under each of the merge's differences from the base: funcZ,
    // the funcB it drops (a blank) and funcC.
    assert!(
        md.contains("merged   funcA funcZ       funcC end\n               ^     ^     ^\n"),
        "{md}"
    );
    let html =
        std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.html")).unwrap();
    assert!(html.contains("<table class=\"hunk\">"), "{html}");
    assert!(html.contains("<td class=\"differs\">funcC</td>"), "{html}");
    assert!(
        html.contains("<td class=\"lacks\" title=\"the merge lacks funcB here\"></td>"),
        "{html}"
    );
}

#[test]
fn the_entrys_arguments_are_shared_and_shown() {
    let program = |limit: &str, check: &str| {
        format!(
            "int limit;\nvoid warn(void) {{}}\n\nvoid setup(void)\n{{\n    limit = {limit};\n}}\n\n/* between */\n\nvoid check(int x)\n{{\n    {check}\n}}\n\nint run(int x)\n{{\n    setup();\n    check(x);\n    return 0;\n}}\n"
        )
    };
    // Ours lowers the limit; theirs warns above it. On 5 < x <= 10 only the merge warns.
    let repo = merge(
        &program("10", "(void)x;"),
        &program("5", "(void)x;"),
        &program("10", "if (x > limit) warn();"),
    );
    let (code, doc, said) = review(&repo, &["--entry", "run"]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(s["kind"], "unexpected", "{s}");
    assert_eq!(word(&s["merged"]), "setup check warn end");
    assert_eq!(word(&s["expected"]), "setup check end");
    let x = s["input"]["arguments"][0].as_i64().expect("the argument");
    assert!((6..=10).contains(&x), "{s}");
    assert!(said.contains(&format!("arguments ({x})")), "{said}");
}

#[test]
fn with_branch_or_call_events_executions_are_compared_as_call_trees() {
    let program = |a_body: &str, b_body: &str| {
        format!(
            "int sensor(void);\nint armed;\nvoid fire(void) {{}}\n\nvoid a(int v)\n{{\n    if (v > 0) fire();\n    {a_body}\n}}\n\n/* between */\n\nvoid b(int v)\n{{\n    {b_body}\n}}\n\nint main(void)\n{{\n    int v = sensor();\n    a(v);\n    b(v);\n    return 0;\n}}\n"
        )
    };
    // Independent changes in two functions compose, whichever events are the letters.
    let repo = merge(
        &program("", ""),
        &program("if (v > 2) fire();", ""),
        &program("", "if (v > 5) fire();"),
    );
    for events in ["branches", "calls"] {
        let (code, doc, said) = review(&repo, &["--events", events]);
        assert_eq!(code, Some(0), "{events}: {said}");
        assert_eq!(doc["verdict"], "clean", "{events}: {said}");
        let entry = &doc["entries"][0];
        let check = &entry["execution_check"];
        assert_eq!(check["explained"], check["quadruples"], "{events}: {check}");
        assert!(!said.contains("flat words"), "{events}: {said}");
        // The stories' letters are the review's: no function name among branch events.
        assert!(entry.get("executions").is_none(), "{events}: {entry}");
    }
    // A change to a global the other branch's new branch reads is unexpected, with branch
    // events as with function events.
    let repo = merge(
        &program("", ""),
        &program("armed = v > 3;", ""),
        &program("", "if (armed) fire();"),
    );
    let (code, doc, said) = review(&repo, &["--events", "branches"]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(s["kind"], "unexpected", "{s}");
    let merged = word(&s["merged"]);
    assert!(merged.contains("b:15:then"), "{s}");
    assert!(!merged.split(' ').any(|l| l == "b" || l == "fire"), "{s}");
}

/// A tokenizer with a loop over a string: `main` fills three nondet characters and
/// `tokens` logs `number` or `word` for each one before the NUL; `stop` is its loop's
/// extra condition and `first` what `main` does before it.
fn tokenizer(stop: &str, first: &str) -> String {
    format!(
        "char nondet_char(void);\nvoid word(void) {{}}\nvoid number(void) {{}}\nvoid done(void) {{}}\n\nint tokens(const char *s)\n{{\n    int n = 0;\n    for (int i = 0; s[i] != '\\0'{stop}; i++) {{\n        if (s[i] >= '0' && s[i] <= '9')\n            number();\n        else\n            word();\n        n++;\n    }}\n    return n;\n}}\n\n/* between */\n\nint main(void)\n{{\n    char s[4];\n    for (int i = 0; i < 3; i++)\n        s[i] = nondet_char();\n    s[3] = '\\0';\n    {first}\n    tokens(s);\n    return 0;\n}}\n"
    )
}

#[test]
fn a_change_both_branches_made_to_a_tokenizer_is_explained() {
    let semicolon = " && s[i] != ';'";
    // Both branches stop at a semicolon, alike (theirs also adds a function nothing calls,
    // so the programs differ and no identity decides): every execution is explained, and
    // none is enumerated: the self-check and one search that finds nothing (17 quadruples
    // and 19 runs when they were enumerated).
    let repo = merge(
        &tokenizer("", ""),
        &tokenizer(semicolon, ""),
        &format!(
            "{}\nvoid unused(void)\n{{\n    done();\n}}\n",
            tokenizer(semicolon, "")
        ),
    );
    let (code, doc, said) = review(&repo, &["--unwind", "4", "--max-word-length", "8"]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["complete"], true, "{check}");
    assert_eq!(check["quadruples"], 0, "{check}");
    assert!(check["cbmc_runs"].as_u64().unwrap() <= 4, "{check}");
    // Theirs also calls `done` first on an `x`: the executions where ours, theirs and the
    // merge agree ("a;b": one word each, three in the base) are not enumerated; those
    // that show theirs' call beside the semicolon compose.
    let repo = merge(
        &tokenizer("", ""),
        &tokenizer(semicolon, ""),
        &tokenizer(semicolon, "if (s[0] == 'x')\n        done();"),
    );
    let (code, doc, said) = review(&repo, &["--unwind", "4", "--max-word-length", "8"]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["complete"], true, "{check}");
    assert_eq!(check["explained"], check["quadruples"], "{check}");
    // 22 when every execution where the base alone differs was enumerated.
    assert_eq!(check["quadruples"], 5, "{check}");
}

/// `main` reads two characters and compares them with `strcmp` against "ab" (behind a
/// `strlen` of a 40-character constant when `long`); `armed` is what ours adds when they
/// match, `fire` what theirs adds at the end.
fn compare(armed: &str, fire: &str, long: bool) -> String {
    let guard = if long {
        "strlen(\"0123456789012345678901234567890123456789\") > 30 && "
    } else {
        ""
    };
    format!(
        "#include <string.h>\nchar nondet_char(void);\nint armed;\nvoid hit(void) {{}}\nvoid miss(void) {{}}\nvoid fire(void) {{}}\n\nint main(void)\n{{\n    char word[3];\n    word[0] = nondet_char();\n    word[1] = nondet_char();\n    word[2] = 0;\n    if ({guard}strcmp(word, \"ab\") == 0) {{\n        hit();{armed}\n    }} else {{\n        miss();\n    }}\n\n    /* between */\n\n    {fire}\n    return 0;\n}}\n"
    )
}

#[test]
fn library_loops_are_unwound_as_often_as_the_executions_need_and_no_less() {
    for long in [false, true] {
        let repo = merge(
            &compare("", "", long),
            &compare(" armed = 1;", "", long),
            &compare("", "if (armed) fire();", long),
        );
        let (code, doc, said) = review(&repo, &[]);
        // Only the merge fires, on "ab": found through strcmp's whole loop either way.
        assert_eq!(code, Some(1), "{said}");
        assert_eq!(doc["verdict"], "unexpected", "{said}");
        let entry = &doc["entries"][0];
        let check = &entry["execution_check"];
        assert_eq!(check["complete"], true, "{check}");
        assert_eq!(check["unexpected"], 1, "{check}");
        assert_eq!(word(&entry["executions"][0]["merged"]), "hit fire end");
        // strcmp's loop runs at most three times; strlen's 41 times, past every candidate.
        let fit = if long { Value::Null } else { Value::from(8) };
        assert_eq!(check["library_unwind"], fit, "long: {long}: {check}");
    }
}
