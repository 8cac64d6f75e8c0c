//! The built `mergelens` binary on files: outputs, exit codes, and one-line errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/fig12")
        .join(name)
}

fn mergelens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mergelens"))
        // `doctor` loads the cache key: never a key file in the real home.
        .env(
            "MERGELENS_CACHE_KEY",
            "the-cache-key-of-the-cli-tests-0123456789",
        )
        .args(args)
        .output()
        .expect("run mergelens")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn equiv_exits_zero_or_one_with_a_shortest_distinguishing_word() {
    let (ours, theirs) = (fixture("ours.json"), fixture("theirs.json"));
    let same = mergelens(&["automaton", "equiv", path(&ours), path(&ours)]);
    assert_eq!(same.status.code(), Some(0));
    assert_eq!(stdout(&same), "equivalent\n");
    let differ = mergelens(&["automaton", "equiv", path(&ours), path(&theirs)]);
    assert_eq!(differ.status.code(), Some(1));
    // Both sides have a word of length 3 the other lacks; the least one is theirs'
    // `funcA funcB end` (funcB sorts before funcZ in the alphabet).
    assert!(
        stdout(&differ).contains("[funcA funcB end] is accepted only by the second automaton"),
        "{}",
        stdout(&differ)
    );
}

#[test]
fn words_lists_accepted_words_in_length_lexicographic_order() {
    let merged = fixture("merged.json");
    let out = mergelens(&["automaton", "words", path(&merged), "--max-length", "4"]);
    assert!(out.status.success());
    assert_eq!(
        stdout(&out),
        "funcA funcZ funcB end\nfuncA funcZ funcC end\n"
    );
    let none = mergelens(&["automaton", "words", path(&merged), "--max-length", "3"]);
    assert_eq!(stdout(&none), "");
}

#[test]
fn words_prints_the_empty_word_as_an_empty_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("eps.json");
    std::fs::write(
        &file,
        r#"{"format":"mergelens-dfa/1","alphabet":["a"],"states":1,"initial":0,"accepting":[0],"transitions":[{"from":0,"letter":"a","to":0}]}"#,
    )
    .unwrap();
    let out = mergelens(&["automaton", "words", path(&file), "--max-length", "2"]);
    assert_eq!(stdout(&out), "\na\na a\n");
    let many = mergelens(&[
        "automaton",
        "words",
        path(&file),
        "--max-length",
        "20",
        "--limit",
        "5",
    ]);
    assert_eq!(many.status.code(), Some(2));
    assert!(
        stderr(&many).contains("there are 21 accepted words"),
        "{}",
        stderr(&many)
    );
}

#[test]
fn show_summarises_the_automaton() {
    let out = mergelens(&["automaton", "show", path(&fixture("merged.json"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn dot_marks_accepting_states_and_dominating_letters() {
    let out = mergelens(&["automaton", "dot", path(&fixture("theirs.json"))]);
    assert!(out.status.success(), "{}", stderr(&out));
    insta::assert_snapshot!(stdout(&out));
}

#[test]
fn svg_is_drawn_in_process() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("m.svg");
    let out = mergelens(&[
        "automaton",
        "svg",
        path(&fixture("merged.json")),
        "-o",
        path(&svg),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("<svg") && text.contains("funcZ") && text.trim_end().ends_with("</svg>"));
}

#[test]
fn complement_and_raw_products_keep_their_languages() {
    let dir = tempfile::tempdir().unwrap();
    let comp = dir.path().join("c.json");
    let out = mergelens(&[
        "automaton",
        "complement",
        path(&fixture("base.json")),
        "-o",
        path(&comp),
    ]);
    assert!(out.status.success());
    let words = mergelens(&["automaton", "words", path(&comp), "--max-length", "1"]);
    // Over 5 letters, all words of length <= 1 but none of base's (which has length 3).
    assert_eq!(stdout(&words).lines().count(), 6);
    let raw = dir.path().join("raw.json");
    let out = mergelens(&[
        "automaton",
        "union",
        path(&fixture("ours.json")),
        path(&fixture("theirs.json")),
        "--raw",
        "-o",
        path(&raw),
    ]);
    assert!(out.status.success());
    let merged_words = mergelens(&["automaton", "words", path(&raw), "--max-length", "4"]);
    assert_eq!(
        stdout(&merged_words),
        "funcA funcB end\nfuncA funcC end\nfuncA funcZ funcB end\n"
    );
}

/// Every kind of bad input gets one line on stderr, naming the file, and exit code 2.
#[test]
fn bad_input_gets_one_clear_line_and_exit_code_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(fixture("base.json")).unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("truncated", good[..50].to_string(), "not valid JSON"),
        ("tag", good.replace("mergelens-dfa/1", "mergelens-dfa/9"), "expected \"mergelens-dfa/1\""),
        ("range", good.replace("\"to\": 3", "\"to\": 30"), "out of range"),
        ("letter", good.replace("\"letter\": \"end\"", "\"letter\": \"exit\""), "not in the alphabet"),
        (
            "nondet",
            good.replace(
                "{\"from\": 1, \"letter\": \"funcB\", \"to\": 2}",
                "{\"from\": 1, \"letter\": \"funcB\", \"to\": 2}, {\"from\": 1, \"letter\": \"funcB\", \"to\": 3}",
            ),
            "two transitions on letter \"funcB\"",
        ),
    ];
    for (name, text, expected) in cases {
        let file = dir.path().join(format!("{name}.json"));
        std::fs::write(&file, text).unwrap();
        let out = mergelens(&["automaton", "show", path(&file)]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(
            err.contains(expected) && err.contains(&format!("{name}.json")),
            "{name}: {err}"
        );
    }
    let missing = mergelens(&["automaton", "show", "/nonexistent/x.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("/nonexistent/x.json: cannot read"));
}

#[test]
fn doctor_finds_the_real_cbmc() {
    let out = mergelens(&["doctor"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("cbmc "), "{text}");
    assert!(text.contains("goto-cc") && text.contains("goto-instrument"));
}

#[test]
fn a_missing_cbmc_names_the_installer_with_exit_code_5() {
    let out = mergelens(&["doctor", "--cbmc", "/nonexistent/cbmc"]);
    assert_eq!(out.status.code(), Some(5));
    let err = stderr(&out);
    assert!(
        err.contains("scripts/install-cbmc.sh") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn automaton_learn_learns_the_target_and_prints_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let target = fixture("merged.json");
    for args in [
        vec!["--cex", "rs"],
        vec!["--cex", "angluin", "--lazy", "yes"],
        vec![
            "--cex",
            "mp",
            "--lazy",
            "no",
            "--wrong-guess-rate",
            "0.3",
            "--seed",
            "7",
        ],
    ] {
        let learned = dir.path().join("learned.json");
        let stats = dir.path().join("stats.json");
        let mut argv = vec!["automaton", "learn", path(&target), "-o", path(&learned)];
        argv.extend(["--stats", path(&stats)]);
        argv.extend(args.iter().copied());
        let out = mergelens(&argv);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let equiv = mergelens(&["automaton", "equiv", path(&learned), path(&target)]);
        assert_eq!(stdout(&equiv), "equivalent\n", "{args:?}");
        let stats: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        assert_eq!(stats["states"], 5, "{args:?}");
        assert!(stats["membership_queries"].as_u64().unwrap() > 0);
    }
    let capped = mergelens(&["automaton", "learn", path(&target), "--max-states", "2"]);
    assert_ne!(capped.status.code(), Some(0));
    assert!(
        stderr(&capped).contains("mergelens: error:"),
        "{}",
        stderr(&capped)
    );
}

/// `f^k end` for `k <= 3`, and every word over {f, end}.
const CHAIN: &str = r#"{"format":"mergelens-dfa/1","alphabet":["f","end"],"states":6,"initial":0,"accepting":[5],"transitions":[{"from":0,"letter":"f","to":1},{"from":1,"letter":"f","to":2},{"from":2,"letter":"f","to":3},{"from":0,"letter":"end","to":5},{"from":1,"letter":"end","to":5},{"from":2,"letter":"end","to":5},{"from":3,"letter":"end","to":5}]}"#;
const EVERYTHING: &str = r#"{"format":"mergelens-dfa/1","alphabet":["f","end"],"states":1,"initial":0,"accepting":[0],"transitions":[{"from":0,"letter":"f","to":0},{"from":0,"letter":"end","to":0}]}"#;

#[test]
fn separate_finds_the_concise_loop_and_says_how() {
    let dir = tempfile::tempdir().unwrap();
    let (yes, all, no) = (
        dir.path().join("yes.json"),
        dir.path().join("all.json"),
        dir.path().join("no.json"),
    );
    std::fs::write(&yes, CHAIN).unwrap();
    std::fs::write(&all, EVERYTHING).unwrap();
    let out = mergelens(&[
        "automaton",
        "difference",
        path(&all),
        path(&yes),
        "-o",
        path(&no),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));

    // Words longer than 4 letters are free: f* end, 2 states instead of 5.
    let concise = dir.path().join("concise.json");
    let out = mergelens(&[
        "automaton",
        "separate",
        path(&yes),
        path(&no),
        "--max-length",
        "4",
        "-o",
        path(&concise),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&concise).unwrap()).unwrap();
    assert_eq!(doc["format"], "mergelens-dfa/1");
    assert_eq!(
        (&doc["states"], &doc["minimal"], &doc["method"]),
        (&2.into(), &true.into(), &"sat".into())
    );
    assert_eq!(
        (&doc["exact_states"], &doc["states_saved"]),
        (&5.into(), &3.into())
    );
    let words = mergelens(&["automaton", "words", path(&concise), "--max-length", "3"]);
    assert_eq!(stdout(&words), "end\nf end\nf f end\n");

    // Without the bound, f^4 end is a no word: nothing is saved.
    let out = mergelens(&["automaton", "separate", path(&yes), path(&no)]);
    assert!(out.status.success(), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        (&doc["states"], &doc["states_saved"]),
        (&5.into(), &0.into())
    );
}

#[test]
fn separate_refuses_overlapping_or_unboundable_inputs_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (yes, all) = (dir.path().join("yes.json"), dir.path().join("all.json"));
    std::fs::write(&yes, CHAIN).unwrap();
    std::fs::write(&all, EVERYTHING).unwrap();
    let out = mergelens(&["automaton", "separate", path(&yes), path(&all)]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("yes.json and") && err.contains("[end] is in both languages"),
        "{err}"
    );
    let huge = mergelens(&[
        "automaton",
        "separate",
        path(&yes),
        path(&all),
        "--max-length",
        "100000000",
    ]);
    let err = stderr(&huge);
    assert_eq!(huge.status.code(), Some(2), "{err}");
    assert!(err.contains("all.json has words of every length"), "{err}");
}
