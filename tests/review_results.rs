//! Results are behaviour too (issue 38), on real repositories with the real CBMC: the
//! per-execution check compares what each version's entry returns beside its calls, by
//! the diff3 rule on values. A branch that changes only the result beside a branch that
//! adds a call composes (clean); a merge whose result neither branch's change gives is
//! unexpected, with the results in the story; and a change that no call and no result
//! shows is said, never silently clean.

use crate::common::{Repo, text, three_way, word};
use serde_json::Value;

/// `f(x)`: a place for a call at its start, a statement, and its result.
fn program(call: &str, statement: &str, result: &str) -> String {
    format!(
        "void audit(void) {{}}\n\nint f(int x)\n{{\n    {call}\n    int y = x;\n    /* between */\n    {statement}\n    /* the result */\n    return {result};\n}}\n"
    )
}

fn review(repo: &Repo, args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--entry", "f", "--format", "json"]);
    let out = repo.mergelens(&all);
    let doc: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
    (out.status.code(), doc, text(&out))
}

#[test]
fn a_result_change_beside_a_new_call_composes_and_an_invented_result_is_unexpected() {
    let base = program("", "(void)y;", "y + 1");
    let ours = program("", "(void)y;", "y + 2");
    let theirs = program("audit();", "(void)y;", "y + 1");
    let repo = three_way(&base, &ours, &theirs);
    let (code, doc, said) = review(&repo, &["review", "main", "feature"]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "clean", "{said}");
    let check = &doc["entries"][0]["execution_check"];
    assert_eq!(check["results"], true, "{check}");
    assert_eq!(check["complete"], true, "{check}");
    assert!(check["quadruples"].as_u64().unwrap() >= 1, "{check}");
    assert_eq!(check["explained"], check["quadruples"], "{check}");
    assert!(!said.contains("changes no call and no result"), "{said}");

    // The same merge committed with a result neither branch's change gives.
    repo.git(&["merge", "-q", "--no-commit", "--no-ff", "feature"]);
    repo.commit(
        "prog.c",
        &program("audit();", "(void)y;", "y + 3"),
        "merge feature, resolved",
    );
    let out = repo.mergelens(&[
        "review", "--commit", "HEAD", "--entry", "f", "--format", "json",
    ]);
    let (code, said) = (out.status.code(), text(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {said}"));
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(s["kind"], "unexpected", "{s}");
    // The calls are as expected; the result is not.
    assert_eq!(word(&s["merged"]), word(&s["expected"]), "{s}");
    let x = s["input"]["arguments"][0].as_i64().expect("the argument") as i32;
    let r = &s["returns"];
    let at = |k: &str| r[k].as_i64().unwrap_or_else(|| panic!("{k}: {s}"));
    assert_eq!(at("base"), i64::from(x.wrapping_add(1)), "{s}");
    assert_eq!(at("ours"), i64::from(x.wrapping_add(2)), "{s}");
    assert_eq!(at("theirs"), i64::from(x.wrapping_add(1)), "{s}");
    assert_eq!(at("merged"), i64::from(x.wrapping_add(3)), "{s}");
    assert_eq!(at("expected"), i64::from(x.wrapping_add(2)), "{s}");

    // The terminal tells the same story, a row of results under the calls.
    let out = repo.mergelens(&["review", "--commit", "HEAD", "--entry", "f"]);
    let said = text(&out);
    assert!(
        said.contains(&format!(
            "returns  base {}, ours {}, theirs {}, merged {}, expected {}",
            at("base"),
            at("ours"),
            at("theirs"),
            at("merged"),
            at("expected")
        )),
        "{said}"
    );
    assert!(
        said.contains("(calls and what the entry returns)"),
        "{said}"
    );
}

#[test]
fn a_merge_of_two_result_changes_giving_neither_result_is_unexpected() {
    let base = program("", "(void)y;", "y + 1");
    // Ours returns x + 2; theirs, changing another line, x. Git merges the two lines into
    // x + 1: neither branch's result (nor the base's change by either alone).
    let ours = program("", "(void)y;", "y + 2");
    let theirs = program("", "(void)y;", "y + 1").replace("int y = x;", "int y = x - 1;");
    let repo = three_way(&base, &ours, &theirs);
    let (code, doc, said) = review(&repo, &["review", "main", "feature"]);
    assert_eq!(code, Some(1), "{said}");
    assert_eq!(doc["verdict"], "unexpected", "{said}");
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(s["kind"], "unexpected", "{s}");
    // Both changed the result differently: no result is expected.
    assert!(s["returns"].get("expected").is_none(), "{s}");
    assert_eq!(s["returns"]["merged"], s["returns"]["base"], "{s}");
}

#[test]
fn a_change_no_call_and_no_result_shows_is_said() {
    let base = program("", "(void)y;", "y + 1");
    // Ours adds a statement that changes nothing anyone can observe.
    let ours = program("", "(void)y; y = y * 1;", "y + 1");
    let theirs = program("audit();", "(void)y;", "y + 1");
    let repo = three_way(&base, &ours, &theirs);
    let (code, doc, said) = review(&repo, &["review", "main", "feature"]);
    assert_eq!(code, Some(0), "{said}");
    let all = doc.to_string();
    assert!(
        all.contains("f: ours' change at prog.c:8 changes no call and no result within the bounds"),
        "{said}"
    );
    // Theirs' change is seen: no note for it.
    assert!(!all.contains("theirs' change at"), "{said}");
    // The terminal says it under the verdict, from the cache as from CBMC.
    for _ in 0..2 {
        let out = repo.mergelens(&["review", "main", "feature", "--entry", "f"]);
        let said = text(&out);
        assert!(
            said.contains(
                "  f: ours' change at prog.c:8 changes no call and no result within the bounds"
            ),
            "{said}"
        );
    }
}

#[test]
fn a_pointer_entrys_result_is_observed_through_its_generated_harness() {
    let program = |call: &str, result: &str| {
        format!(
            "void audit(void) {{}}\n\nint count(const char *s, int n)\n{{\n    {call}\n    int k = 0;\n    for (int i = 0; i < n && i < 2; i++)\n        if (s[i] == 'a')\n            k++;\n    /* between */\n    return k{result};\n}}\n"
        )
    };
    let repo = three_way(
        &program("", ""),
        &program("", " + 1"),
        &program("audit();", ""),
    );
    repo.git(&["merge", "-q", "--no-commit", "--no-ff", "feature"]);
    repo.commit("prog.c", &program("audit();", " + 2"), "merge, resolved");
    let out = repo.mergelens(&["review", "--commit", "HEAD", "--entry", "count"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("(calls and what the entry returns)"),
        "{said}"
    );
    // Whatever the buffer holds, ours adds one to the count and the merge two.
    let row = said
        .lines()
        .find(|l| l.trim_start().starts_with("returns  base"))
        .unwrap_or_else(|| panic!("{said}"));
    let values: Vec<i64> = row
        .split(", ")
        .map(|part| part.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    let [base, ours, theirs, merged, expected] = values[..] else {
        panic!("{row}");
    };
    assert_eq!(
        (ours, theirs, merged, expected),
        (base + 1, base, base + 2, base + 1),
        "{row}"
    );
}

#[test]
fn what_the_entry_leaves_in_a_global_is_compared_like_its_result() {
    let program = |call: &str, value: &str| {
        format!(
            "int total;\nvoid audit(void) {{}}\n\nvoid add(int x)\n{{\n    {call}\n    int y = x;\n    /* between */\n    (void)y;\n    /* the state */\n    total = {value};\n}}\n"
        )
    };
    let repo = three_way(
        &program("", "y + 1"),
        &program("", "y + 2"),
        &program("audit();", "y + 1"),
    );
    let out = repo.mergelens(&["review", "main", "feature", "--entry", "add"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("verdict: clean"), "{said}");
    assert!(said.contains("(calls and the global total)"), "{said}");
    repo.git(&["merge", "-q", "--no-commit", "--no-ff", "feature"]);
    repo.commit("prog.c", &program("audit();", "y + 3"), "merge, resolved");
    let out = repo.mergelens(&[
        "review", "--commit", "HEAD", "--entry", "add", "--format", "json",
    ]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {said}"));
    let s = &doc["entries"][0]["executions"][0];
    assert_eq!(s["kind"], "unexpected", "{s}");
    assert!(
        s.get("returns").is_none(),
        "a void entry returns nothing: {s}"
    );
    let g = &s["globals"][0];
    assert_eq!(g["name"], "total", "{s}");
    let at = |k: &str| g[k].as_i64().unwrap_or_else(|| panic!("{k}: {s}"));
    assert_eq!(at("merged") - at("base"), 2, "{s}");
    assert_eq!(at("expected"), at("ours"), "{s}");
    assert_eq!(at("ours") - at("base"), 1, "{s}");
}

#[test]
fn a_typedef_integer_result_is_compared_and_a_double_one_is_said_not_to_be() {
    // `f` returns `flag`, the program's own name for `int`: ours' changed result is seen
    // (no note), composed with theirs' call.
    let typed = |call: &str, result: &str, ty: &str| {
        format!("typedef int flag;\n{}", program(call, "(void)y;", result))
            .replace("int f(int x)", &format!("{ty} f(int x)"))
    };
    let repo = three_way(
        &typed("", "y + 1", "flag"),
        &typed("", "y + 2", "flag"),
        &typed("audit();", "y + 1", "flag"),
    );
    let (code, doc, said) = review(&repo, &["review", "main", "feature"]);
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(
        doc["entries"][0]["execution_check"]["results"], true,
        "{said}"
    );
    assert!(!doc.to_string().contains("change at prog.c"), "{said}");
    // A `double` result is not compared: a change only the result shows is said as one no
    // call shows, and the note says why the result is not compared.
    let repo = three_way(
        &typed("", "y + 1", "double"),
        &typed("", "y + 2", "double"),
        &typed("audit();", "y + 1", "double"),
    );
    let (code, doc, said) = review(&repo, &["review", "main", "feature"]);
    assert_eq!(code, Some(0), "{said}");
    let all = doc.to_string();
    assert!(
        all.contains("f: ours' change at prog.c:11 changes no call within the bounds (what the entry returns is not compared, as it returns no integer on every path;"),
        "{said}"
    );
    assert!(!all.contains("no call and no result"), "{said}");
    assert!(
        said.contains("  f: ours' change at prog.c:11 changes no call within"),
        "{said}"
    );
}
