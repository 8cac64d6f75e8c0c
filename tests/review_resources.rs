//! What a review costs and what happens when it runs out (issue 24), on real repositories
//! with the real CBMC: a CBMC run past the memory limit makes its entry `unfinished` with
//! the reason (and is an error naming the query in `learn`); the peak memory is reported; a
//! review terminated by SIGTERM writes its document marked partial, keeps the executions
//! its per-execution check found, and the next review resumes from them.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;

use crate::common::{Repo, many_executions, text, three_way as merge};
use serde_json::Value;

fn document(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

/// A loop of 4,000 multiplications of nondeterministic 64-bit values: a formula of
/// gigabytes, built in seconds.
const BLOW_UP: &str = "    unsigned long long a[4000];\n    unsigned long long acc = 1;\n    for (int i = 0; i < 4000; i++) {\n        a[i] = (unsigned long long)nondet_int();\n        acc = acc * a[i] + (acc ^ a[acc % 4000]);\n    }\n    if (acc == 12345)\n        step();\n";

fn program(extra: &str, tail: &str) -> String {
    format!(
        "int nondet_int(void);\nvoid step(void) {{}}\nvoid done(void) {{}}\n\nint main(void)\n{{\n{extra}    done();\n{tail}    return 0;\n}}\n"
    )
}

#[test]
fn a_cbmc_run_past_the_memory_limit_makes_the_entry_unfinished_with_the_reason() {
    let repo = merge(
        &program("", ""),
        &program("", "    step();\n"),
        &program(BLOW_UP, ""),
    );
    let out = repo.mergelens(&[
        "review",
        "main",
        "feature",
        "--format",
        "json",
        "--unwind",
        "4000",
        "--max-word-length",
        "4",
        "--memory-limit",
        "300MiB",
    ]);
    let doc = document(&out);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(doc["verdict"], "unfinished", "{}", text(&out));
    let reasons = doc["unfinished"].to_string();
    assert!(
        reasons.contains("ran out of memory") && reasons.contains("300 MiB"),
        "{reasons}"
    );
    assert!(reasons.contains("theirs (main)"), "{reasons}");
    assert_eq!(doc["memory_limit_mib"], 300);
    let peak = doc["peak_memory_mib"].as_u64().unwrap();
    assert!(peak > 0 && peak <= 300, "{peak}");

    // `learn` has no verdict to fall back on: an error naming the query, exit 4.
    repo.write("blow.c", &program(BLOW_UP, ""));
    let out = repo.mergelens(&[
        "learn",
        "blow.c",
        "--unwind",
        "4000",
        "--max-word-length",
        "4",
        "--memory-limit",
        "300MiB",
        "--no-cache",
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains("query") && said.contains("memory limit of 300 MiB"),
        "{said}"
    );
    let errors = said.lines().filter(|l| l.contains("error:")).count();
    assert_eq!(errors, 1, "{said}");
}

const BOUNDS: [&str; 4] = ["--unwind", "15", "--max-word-length", "20"];

/// Reviews with progress on standard error, sending SIGTERM once `trigger` is said. The
/// progress lines come every 0.2 s: at the default 3 s, a check that found every execution
/// between two lines (15 in under 3 s on a quiet machine) never said how many it had.
fn review_terminated_at(repo: &Repo, trigger: &str) -> (Option<i32>, Value, String) {
    let mut child = repo
        .command(
            Path::new(env!("CARGO_BIN_EXE_mergelens")),
            &[("MERGELENS_PROGRESS_SECS", "0.2")],
        )
        .args(["review", "main", "feature", "--format", "json"])
        .args(BOUNDS)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut said = String::new();
    let mut sent = false;
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if !sent && line.contains(trigger) {
            let status = std::process::Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status()
                .unwrap();
            assert!(status.success());
            sent = true;
        }
        said.push_str(&line);
        said.push('\n');
    }
    let out = child.wait_with_output().unwrap();
    assert!(sent, "never said {trigger:?}: {said}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {said}"));
    (out.status.code(), doc, said)
}

#[test]
fn a_review_terminated_mid_check_writes_its_document_and_the_next_run_resumes() {
    let repo = many_executions();
    let (code, doc, said) = review_terminated_at(&repo, " executions · ");
    assert_eq!(code, Some(0), "{said}");
    assert_eq!(doc["verdict"], "unfinished", "{said}");
    let reasons = doc["unfinished"].to_string();
    assert!(
        reasons.contains("stopped") && reasons.contains("resumes"),
        "{reasons}"
    );

    let mut args = vec!["review", "main", "feature", "--format", "json"];
    args.extend(BOUNDS);
    let out = repo.mergelens(&args);
    let resumed = document(&out);
    let notes = resumed["bounds"]["notes"].to_string();
    assert!(
        notes.contains("resumed from the") && notes.contains("a stopped review had found"),
        "{notes}"
    );
    // The same answer as a run that was never stopped.
    args.push("--no-cache");
    let fresh = document(&repo.mergelens(&args));
    assert_eq!(resumed["verdict"], fresh["verdict"], "{}", text(&out));
    let check = |d: &Value| d["entries"][0]["execution_check"]["quadruples"].clone();
    assert_eq!(check(&resumed), check(&fresh));
    assert_eq!(
        check(&fresh),
        15,
        "{}",
        fresh["entries"][0]["execution_check"]
    );
}

#[test]
fn a_version_the_front_end_rejects_is_named_by_its_repository_path_and_revision() {
    let base = "void a(void) {}\n\nint main(void)\n{\n    a();\n    return 0;\n}\n";
    let theirs = base.replace("    return 0;", "    return 0 }");
    let repo = merge(base, &base.replace("a();", "a();\n    a();"), &theirs);
    // The branch's own code: no error (which the hook's on-error would let pass
    // unreviewed) but a reason the review did not finish (issue 37), under the verdict of
    // these branches, which git cannot merge.
    let out = repo.mergelens(&["review", "main", "feature"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let said = text(&out);
    assert!(said.contains("verdict: conflict"), "{said}");
    let sha = repo.git(&["rev-parse", "--short=7", "feature"]);
    assert!(
        said.contains(&format!(
            "  unfinished: theirs (feature {sha}), entry `main`: prog.c:6:"
        )),
        "{said}"
    );
    // The reason names no temporary checkout (the report's own path may lie under /tmp).
    let reason = said
        .lines()
        .find(|l| l.contains("unfinished: theirs"))
        .unwrap();
    assert!(
        !reason.contains("/tmp") && !said.contains("mergelens-theirs"),
        "{said}"
    );
}

#[test]
fn a_merge_that_changes_no_code_is_clean_at_once_and_names_its_branches() {
    let base = "int nondet_int(void);\nvoid a(void) {}\n\nint main(void)\n{\n    if (nondet_int())\n        a();\n    return 0;\n}\n";
    let ours = base.replace("int main", "/* the entry */\nint main");
    let theirs = base.replace(
        "        a();",
        "        a(); // the call\n#if 0\n    b();\n#endif",
    );
    let repo = merge(base, &ours, &theirs);
    repo.commit("NOTES", "a file outside the program\n", "notes");
    let out = repo.mergelens(&["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    let merge_feature = |repo: &Repo| {
        let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
        let said = text(&out);
        assert!(out.status.success(), "{said}");
        let doc = std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.json"));
        (said, serde_json::from_str::<Value>(&doc.unwrap()).unwrap())
    };
    let (said, doc) = merge_feature(&repo);
    assert!(
        said.contains("mergelens review: feature into main"),
        "{said}"
    );
    assert!(said.contains("verdict: clean"), "{said}");
    assert!(
        said.contains("only comments, layout or files outside the program changed"),
        "{said}"
    );
    // Nothing was learned: no entry, no automaton, no CBMC run.
    assert_eq!(doc["entries"], serde_json::json!([]), "{said}");

    // The control: a change of code is learned as ever.
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit("prog.c", &theirs.replace("a(); //", "a(); a(); //"), "code");
    repo.git(&["checkout", "-q", "main"]);
    // Ours changes code too: a merge that is one branch's program is judged, not learned.
    repo.commit(
        "prog.c",
        &ours.replace(
            "{\n    if (nondet_int())",
            "{\n    a();\n    if (nondet_int())",
        ),
        "ours: code",
    );
    let (said, doc) = merge_feature(&repo);
    assert!(!said.contains("only comments"), "{said}");
    assert_eq!(doc["entries"][0]["entry"], "main", "{said}");
}

/// A harness that returns early unless `mode` is 0, then runs the code under test: a loop
/// of four iterations, which every unwinding below 4 cuts. At those the language is
/// `{end}`, the same at every unwinding.
fn early_return(call: &str) -> String {
    format!(
        "int nondet_int(void);\nvoid item(void) {{}}\nvoid done(void) {{}}\n\nint main(void)\n{{\n    int mode = nondet_int();\n    if (mode != 0)\n        return 0;\n    int sum = 0;\n    for (int i = 0; i < 4; i++)\n        sum += nondet_int() & 1;\n    if (sum == 4)\n        {call}();\n    done();\n    return 0;\n}}\n"
    )
}

#[test]
fn auto_bounds_go_on_while_the_unwinding_cuts_the_code_under_test() {
    let theirs = early_return("item").replace("void done(void) {}", "void done(void) { item(); }");
    let repo = merge(
        &early_return("item"),
        &early_return("item(); item"),
        &theirs,
    );
    let review = |max_unwind: &str| {
        let out = repo.mergelens(&[
            "review",
            "main",
            "feature",
            "--format",
            "json",
            "--auto-bounds",
            "--max-unwind",
            max_unwind,
        ]);
        (document(&out), text(&out))
    };
    // Unwindings 1 and 2 both give `{end}`; the loop is cut there, so the search goes on.
    let (doc, said) = review("5");
    assert_eq!(doc["bounds"]["unwind"], 5, "{said}");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(!notes.contains("--auto-bounds"), "{notes}");
    let merged = doc["entries"][0]["automata"]["merged"].to_string();
    assert!(merged.contains("item"), "{merged}");
    // With the limit first, the note says where and why it stopped.
    let (doc, said) = review("3");
    let notes = doc["bounds"]["notes"].to_string();
    assert!(
        notes.contains("stopped changing at --unwind")
            && notes.contains("still cuts executions at the loop(s) prog.c:11 in `main`"),
        "{said}"
    );
    assert!(!notes.contains("/tmp"), "{notes}");
}
