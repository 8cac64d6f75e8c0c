//! Every kind of bad input, given to the real binary in a real git repository: one line on
//! standard error (after any progress lines), each cause said once (no stretch of 12
//! characters or more appears twice), and the exit code `docs/cli.md` documents for it.

use std::process::Output;

use crate::common::Repo;

/// A stretch of at least `n` characters that `line` says twice, if any.
fn repeated(line: &str, n: usize) -> Option<String> {
    let chars: Vec<char> = line.chars().collect();
    (0..chars.len().saturating_sub(n)).find_map(|i| {
        let stretch: String = chars[i..i + n].iter().collect();
        let rest: String = chars[i + 1..].iter().collect();
        rest.contains(&stretch).then_some(stretch)
    })
}

/// Checks one refused run: exit `code`, one error line that contains `says`, no cause twice.
fn refused(what: &str, out: &Output, code: i32, says: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("mergelens: progress:"))
        .collect();
    assert_eq!(out.status.code(), Some(code), "{what}: {stderr}");
    assert_eq!(lines.len(), 1, "{what}: not one line: {stderr}");
    let line = lines[0];
    assert!(line.starts_with("mergelens: error: "), "{what}: {line}");
    assert!(line.contains(says), "{what}: {line} lacks {says:?}");
    assert_eq!(repeated(line, 12), None, "{what}: said twice in {line}");
}

fn automaton(states: &str) -> String {
    format!(
        r#"{{"format":"mergelens-dfa/1","alphabet":["f","end"],"states":{states},"initial":0,"accepting":[1],"transitions":[{{"from":0,"letter":"end","to":1}}]}}"#
    )
}

const PROGRAM: &str = "void f(void) {}\nint main(void)\n{\n    f();\n    return 0;\n}\n";

#[test]
fn the_repeat_check_finds_a_cause_said_twice() {
    let twice = "a.json: not valid JSON (expected ident at line 1); expected ident at line 1";
    assert_eq!(repeated(twice, 12).as_deref(), Some("expected ide"));
    assert_eq!(repeated("a.json: cannot read: no such file", 12), None);
}

#[test]
fn bad_files_are_one_line_with_exit_code_2() {
    let repo = Repo::new();
    repo.write("bad.json", "{x");
    repo.write(
        "tag.json",
        &automaton("2").replace("mergelens-dfa/1", "other/2"),
    );
    repo.write("states.json", &automaton("0"));
    repo.write("syntax.c", "int main(void) { return 0 +; }\n");
    for (args, says) in [
        (
            &["automaton", "show", "bad.json"][..],
            "bad.json: not valid JSON",
        ),
        (
            &["automaton", "show", "tag.json"],
            "expected \"mergelens-dfa/1\"",
        ),
        (&["automaton", "show", "states.json"], "at least one state"),
        (
            &["automaton", "show", "missing.json"],
            "missing.json: cannot read: ",
        ),
        (&["report", "bad.json"], "bad.json: not valid JSON: "),
        (&["report", "gone.json"], "gone.json: cannot read: "),
        (&["learn", "missing.c"], "missing.c: cannot read"),
        (&["learn", "syntax.c"], "syntax.c:1:28: C syntax error"),
    ] {
        refused(&args.join(" "), &repo.mergelens(args), 2, says);
    }
}

#[test]
fn bad_flags_and_flag_combinations_exit_2_on_one_line() {
    let repo = Repo::new();
    repo.write("a.json", &automaton("2"));
    repo.write("main.c", PROGRAM);
    for (args, says) in [
        (
            &[
                "automaton",
                "learn",
                "a.json",
                "--lazy",
                "yes",
                "--wrong-guess-rate",
                "2",
            ][..],
            "--wrong-guess-rate 2: a share of the guesses, between 0 and 1",
        ),
        (
            &["automaton", "learn", "a.json", "--wrong-guess-rate", "0.5"],
            "needs --lazy yes or --lazy no",
        ),
        (
            &["learn", "main.c", "--events", "bogus"],
            "invalid value 'bogus'",
        ),
        (
            &["learn", "main.c", "--memory-limit", "4ZB"],
            "`4ZB` is no memory size",
        ),
        (
            &["learn", "main.c", "--query-timeout", "x"],
            "x is not a number of seconds",
        ),
        (
            &["learn", "main.c", "--entry", "start"],
            "`start` is not defined",
        ),
        (
            &["learn", "main.c", "--mode", "pac", "--epsilon", "2"],
            "2 is not a share strictly between 0 and 1",
        ),
        (
            &["explain", "main.c", "--line", "main.c"],
            "expected FILE:LINE",
        ),
        (&["learn"], "required arguments were not provided"),
        (&["frobnicate"], "unrecognized subcommand 'frobnicate'"),
    ] {
        refused(&args.join(" "), &repo.mergelens(args), 2, says);
    }
}

#[test]
fn a_bad_config_line_names_its_file_line_and_column_with_exit_code_2() {
    let repo = Repo::new();
    repo.commit("main.c", PROGRAM, "base");
    repo.commit(
        "main.c",
        &PROGRAM.replace("f();", "f();\n    f();"),
        "twice",
    );
    repo.write(".mergelens.toml", "unwind = 3\nfial-on = [\"added\"]\n");
    let out = repo.mergelens(&["diff", "HEAD~1", "HEAD"]);
    refused(
        "fial-on",
        &out,
        2,
        ".mergelens.toml: line 2, column 1: unknown field `fial-on`",
    );
    repo.write(".mergelens.toml", "unwind = \"three\"\n");
    let out = repo.mergelens(&["diff", "HEAD~1", "HEAD"]);
    refused(
        "unwind",
        &out,
        2,
        ".mergelens.toml: line 1, column 10: invalid type",
    );
    std::fs::remove_file(repo.path().join(".mergelens.toml")).unwrap();
    repo.user_config(Some("fail-on = 3\n"));
    let out = repo.mergelens(&["diff", "HEAD~1", "HEAD"]);
    refused(
        "user config",
        &out,
        2,
        "config.toml: line 1, column 11: invalid type",
    );
}

#[test]
fn revisions_that_cannot_be_read_are_one_line() {
    let repo = Repo::new();
    repo.commit("main.c", PROGRAM, "base");
    let head = repo.commit(
        "main.c",
        &PROGRAM.replace("f();", "f();\n    f();"),
        "twice",
    );
    let out = repo.mergelens(&["review", "--commit", "nosuch"]);
    refused(
        "review --commit",
        &out,
        2,
        "the revision `nosuch` does not exist",
    );
    let out = repo.mergelens(&["diff", "HEAD~7", "HEAD"]);
    refused(
        "diff HEAD~7",
        &out,
        2,
        "the revision `HEAD~7` does not exist",
    );
    let out = repo.mergelens(&["review", "--commit", &head]);
    refused("not a merge", &out, 2, "is not a merge of two branches");
    // A blob missing from the object database: the repository is broken, no input to fix.
    let blob = repo.git(&["rev-parse", "HEAD~1:main.c"]);
    let object = repo
        .path()
        .join(".git/objects")
        .join(&blob[..2])
        .join(&blob[2..]);
    std::fs::remove_file(object).unwrap();
    let out = repo.mergelens(&["diff", "HEAD~1", "HEAD"]);
    refused("missing blob", &out, 4, "cannot read main.c: ");
}

#[test]
fn a_missing_cbmc_is_exit_code_5_on_one_line() {
    let repo = Repo::new();
    repo.write("main.c", PROGRAM);
    let out = repo.mergelens(&["learn", "main.c", "--cbmc", "/nonexistent/cbmc"]);
    refused(
        "learn --cbmc",
        &out,
        5,
        "CBMC not found (looked in /nonexistent/cbmc)",
    );
    let out = repo.mergelens(&["doctor", "--cbmc", "/nonexistent/cbmc"]);
    refused("doctor --cbmc", &out, 5, "scripts/install-cbmc.sh");
}
