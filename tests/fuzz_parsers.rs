//! Property-based fuzzing of every parser of outside input: `mergelens-dfa/1`,
//! `mergelens-review/1` (and the other report documents), `.mergelens.toml` with the
//! settings it resolves to, `compile_commands.json`, CBMC's `--json-ui` output, and what git
//! tells a hook. Each runs at least 10,000 cases (`FUZZ_CASES` raises it): no input may
//! panic, every rejection is one line that names the input, and what is accepted keeps the
//! trust model's invariants (repository paths stay relative and inside, no program named).
//! Parsers only: no CBMC, no git, so the file fits the test budget in a debug build.

use std::path::{Component, Path};

use mergelens::config::{CompileCommands, ConfigError, FileConfig, Overrides, Settings};
use mergelens::git::hook_env::{self, Named};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

/// Runs `strategy` through `test` for [`cases`] cases; the number run.
fn fuzz<S: Strategy>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) -> u32 {
    let n = cases();
    let mut runner = TestRunner::new(Config {
        cases: n,
        failure_persistence: None,
        ..Config::default()
    });
    runner.run(&strategy, test).unwrap();
    n
}

/// One line that names the input.
fn clear(message: &str, origin: &str) -> Result<(), TestCaseError> {
    prop_assert!(!message.is_empty());
    prop_assert!(!message.contains('\n'), "more than one line: {message}");
    prop_assert!(
        message.contains(origin),
        "does not name {origin}: {message}"
    );
    Ok(())
}

/// Text with edits that JSON readers get wrong: tokens of other types, huge and negative
/// numbers, deep nesting, control characters, truncation.
fn mutated(base: String) -> impl Strategy<Value = String> {
    let tokens = prop_oneof![
        Just("null".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("-1".to_string()),
        Just("1e999".to_string()),
        Just("18446744073709551616".to_string()),
        Just("50000000".to_string()),
        Just("\"\\u0000\"".to_string()),
        Just("\"\\ud800\"".to_string()),
        Just("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[".to_string()),
        Just(",".to_string()),
        Just("\"".to_string()),
        "[ -~]{0,8}",
    ];
    let len = base.len();
    proptest::collection::vec((0..=len, 0..8usize, tokens), 0..4).prop_map(move |edits| {
        let mut text = base.clone().into_bytes();
        for (at, cut, token) in edits {
            let at = at.min(text.len());
            let end = (at + cut).min(text.len());
            text.splice(at..end, token.into_bytes());
        }
        String::from_utf8_lossy(&text).into_owned()
    })
}

fn letter() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("f".to_string()),
        Just("g".to_string()),
        Just("end".to_string()),
        "[a-z]{0,3}",
        ".{0,4}",
    ]
}

fn state() -> impl Strategy<Value = Value> {
    prop_oneof![
        8 => (0u64..6).prop_map(|n| json!(n)),
        1 => any::<u64>().prop_map(|n| json!(n)),
        1 => Just(json!(-1)),
        1 => Just(json!("0")),
        1 => Just(json!(null)),
    ]
}

/// A `mergelens-dfa/1` document, mostly well formed.
fn dfa_value() -> impl Strategy<Value = Value> {
    (
        prop_oneof![
            9 => Just("mergelens-dfa/1".to_string()),
            1 => ".{0,12}",
        ],
        proptest::collection::vec(letter(), 0..5),
        prop_oneof![
            6 => (0u64..8).prop_map(|n| json!(n)),
            1 => Just(json!(50_000_000u64)),
            1 => any::<u64>().prop_map(|n| json!(n)),
            1 => Just(json!(1.5)),
        ],
        state(),
        proptest::collection::vec(state(), 0..4),
        proptest::collection::vec((state(), letter(), state()), 0..12),
    )
        .prop_map(
            |(format, alphabet, states, initial, accepting, transitions)| {
                let transitions: Vec<Value> = transitions
                    .into_iter()
                    .map(|(from, letter, to)| json!({"from": from, "letter": letter, "to": to}))
                    .collect();
                json!({"format": format, "alphabet": alphabet, "states": states,
                   "initial": initial, "accepting": accepting, "transitions": transitions})
            },
        )
}

#[test]
fn mergelens_dfa_documents() {
    let structured = fuzz(dfa_value(), |doc| {
        let text = doc.to_string();
        match mergelens::automaton::json::from_str(&text, "fuzz.json") {
            Ok(dfa) => {
                prop_assert!(dfa.num_states() >= 1);
                // What was read writes back and reads again as the same automaton.
                let again = mergelens::automaton::json::to_string(&dfa);
                let back = mergelens::automaton::json::from_str(&again, "again").unwrap();
                prop_assert_eq!(back.num_states(), dfa.num_states());
            }
            Err(e) => clear(&e.to_string(), "fuzz.json")?,
        }
        Ok(())
    });
    let valid = r#"{"format":"mergelens-dfa/1","alphabet":["f","g","end"],"states":3,"initial":0,"accepting":[2],"transitions":[{"from":0,"letter":"f","to":1},{"from":1,"letter":"end","to":2}]}"#;
    let edited = fuzz(mutated(valid.to_string()), |text| {
        if let Err(e) = mergelens::automaton::json::from_str(&text, "fuzz.json") {
            clear(&e.to_string(), "fuzz.json")?;
        }
        Ok(())
    });
    eprintln!("mergelens-dfa/1: {structured} structured + {edited} edited documents");
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/report")
            .join(name),
    )
    .unwrap()
}

#[test]
fn report_documents() {
    // The smaller fixtures keep a debug build fast; the review document is edited too, with
    // fewer cases for its size (every case still parses the whole document).
    let docs = [
        fixture("review.json"),
        fixture("diff.json"),
        fixture("explain.json"),
    ];
    let mut total = 0;
    for doc in docs {
        total += fuzz(mutated(doc), |text| {
            if let Err(e) = mergelens::report::parse(&text, "fuzz-report.json") {
                clear(&e.to_string(), "fuzz-report.json")?;
            }
            Ok(())
        });
    }
    // And arbitrary short text, with the format key of each kind.
    total += fuzz(
        (
            prop_oneof![
                Just("mergelens-review/1"),
                Just("mergelens-diff/1"),
                Just("mergelens-dfa/1"),
                Just("other"),
            ],
            ".{0,40}",
        ),
        |(format, rest)| {
            let text = format!("{{\"format\":\"{format}\",{rest}");
            if let Err(e) = mergelens::report::parse(&text, "fuzz-report.json") {
                clear(&e.to_string(), "fuzz-report.json")?;
            }
            Ok(())
        },
    );
    eprintln!("mergelens-review/1, -diff/1, -dfa/1 reports: {total} documents");
}

fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("\"main\"".to_string()),
        Just("\"src/*.c\"".to_string()),
        Just("\"/etc\"".to_string()),
        Just("\"../..\"".to_string()),
        Just("\"a/../../b\"".to_string()),
        Just("\"~/x\"".to_string()),
        Just("\".git/config\"".to_string()),
        Just("\"[\"".to_string()),
        Just("[\"include\", \"/usr/include\"]".to_string()),
        Just("[\"src/**/*.c\"]".to_string()),
        Just("[\"src/[\"]".to_string()),
        Just("[]".to_string()),
        Just("\"never\"".to_string()),
        Just("\"block\"".to_string()),
        Just("\"calls\"".to_string()),
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("1e308".to_string()),
        Just("18446744073709551615".to_string()),
        Just("true".to_string()),
        Just("{ a = 1 }".to_string()),
        "\"[ -~]{0,10}\"",
        "[ -~]{0,10}",
    ]
}

const KEYS: [&str; 22] = [
    "files",
    "include-dirs",
    "defines",
    "compile-commands",
    "entries",
    "events",
    "only",
    "exclude",
    "unwind",
    "max-word-length",
    "auto-bounds",
    "max-unwind",
    "cbmc",
    "query-timeout",
    "exact-limit",
    "fail-on",
    "on-error",
    "jobs",
    "fial-on",
    "\"cbmc\"",
    "[table]\nx",
    "",
];

/// Whether a path from the repository's file stays inside: relative, no `..`.
fn inside(path: &Path) -> bool {
    !path.is_absolute()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

#[test]
fn mergelens_toml_and_the_settings_it_gives() {
    let line = (proptest::sample::select(KEYS.to_vec()), toml_value())
        .prop_map(|(k, v)| format!("{k} = {v}"));
    let lines = prop_oneof![
        9 => proptest::collection::vec(line, 0..6).prop_map(|l| l.join("\n")),
        1 => ".{0,60}",
    ];
    let n = fuzz(lines, |text| {
        let origin = ".mergelens.toml (committed on main)";
        let file = match FileConfig::parse(&text, Path::new(origin)) {
            Ok(file) => file,
            Err(e) => {
                clear(&e.to_string(), origin)?;
                if let ConfigError::ToolInRepository { line, .. } = e {
                    prop_assert!(line >= 1 && line <= text.lines().count().max(1));
                }
                return Ok(());
            }
        };
        // A file that parses never names a program.
        prop_assert!(file.cbmc.is_none());
        let no_file = |_: &str| -> Result<Option<String>, ConfigError> { Ok(None) };
        match Settings::resolve_with(
            &file,
            &Overrides::default(),
            Path::new("/r"),
            origin,
            &no_file,
        ) {
            Ok(s) => {
                prop_assert!(s.cbmc.is_none());
                for d in &s.sources.include_dirs {
                    prop_assert!(inside(d), "{d:?} from {text:?}");
                }
                for f in &s.sources.files {
                    prop_assert!(inside(Path::new(f)), "{f:?} from {text:?}");
                }
                // No entry only where the changed functions are the review.
                prop_assert!(
                    !s.entries.is_empty()
                        || s.changed_functions != mergelens::config::ChangedFunctions::None
                );
            }
            Err(e) => prop_assert!(!e.to_string().contains('\n'), "{e}"),
        }
        Ok(())
    });
    eprintln!(".mergelens.toml: {n} files");
}

fn shell_word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("-I".to_string()),
        Just("-Iinclude".to_string()),
        Just("-I/usr/include".to_string()),
        Just("-I../..".to_string()),
        Just("-isystem".to_string()),
        Just("-iquote".to_string()),
        Just("-D".to_string()),
        Just("-DN=4".to_string()),
        Just("'-DNAME=\"x y\"'".to_string()),
        Just("\"unterminated".to_string()),
        Just("\\".to_string()),
        Just("/etc".to_string()),
        "[ -~]{0,8}",
    ]
}

fn entry() -> impl Strategy<Value = Value> {
    let dir = prop_oneof![
        Just(json!("/r")),
        Just(json!("/r/build")),
        Just(json!("/elsewhere")),
        Just(json!("build")),
        Just(json!("/r/../..")),
        Just(json!(7)),
    ];
    let file = prop_oneof![
        Just(json!("a.c")),
        Just(json!("../src/a.c")),
        Just(json!("/r/src/b.c")),
        Just(json!("/etc/x.c")),
        Just(json!("../../../../x.c")),
        Just(json!("b.h")),
    ];
    let words = proptest::collection::vec(shell_word(), 0..8);
    (dir, file, words, any::<bool>()).prop_map(|(directory, file, words, as_args)| {
        if as_args {
            json!({"directory": directory, "file": file, "arguments": words})
        } else {
            json!({"directory": directory, "file": file, "command": words.join(" ")})
        }
    })
}

#[test]
fn compile_commands_json() {
    let docs = prop_oneof![
        9 => proptest::collection::vec(entry(), 0..5).prop_map(|e| Value::Array(e).to_string()),
        1 => ".{0,40}",
    ];
    let n = fuzz(docs, |text| {
        let path = Path::new("build/compile_commands.json");
        match CompileCommands::parse(&text, path, Path::new("/r"), false) {
            Ok(db) => {
                // From a repository, nothing outside it survives.
                for d in &db.include_dirs {
                    prop_assert!(inside(d), "{d:?} from {text}");
                }
                for f in &db.files {
                    prop_assert!(inside(Path::new(f)), "{f:?} from {text}");
                }
                for w in &db.warnings {
                    prop_assert!(!w.contains('\n'));
                }
            }
            Err(e) => clear(&e.to_string(), "compile_commands.json")?,
        }
        Ok(())
    });
    eprintln!("compile_commands.json: {n} databases");
}

fn cbmc_value() -> impl Strategy<Value = Value> {
    let step = (
        prop_oneof![Just(json!("assignment")), Just(json!("failure")), Just(json!(1))],
        prop_oneof![
            Just(json!("__mergelens_word[0]")),
            Just(json!("x")),
            Just(json!(null))
        ],
        prop_oneof![
            Just(json!({"data": "3", "binary": "00000011"})),
            Just(json!({"data": "4294967296ul"})),
            Just(json!({"binary": "1".repeat(80)})),
            Just(json!({"data": "-1"})),
            Just(json!("7")),
            Just(json!(null)),
        ],
        any::<bool>(),
    )
        .prop_map(|(kind, lhs, value, hidden)| {
            json!({"stepType": kind, "lhs": lhs, "value": value, "hidden": hidden})
        });
    let property = (
        prop_oneof![Just(json!("main.assertion.1")), Just(json!(3))],
        prop_oneof![Just(json!("q1")), Just(json!("")), Just(json!(null))],
        prop_oneof![
            Just(json!("SUCCESS")),
            Just(json!("FAILURE")),
            Just(json!("UNKNOWN")),
            Just(json!(false)),
        ],
        proptest::collection::vec(step, 0..4),
    )
        .prop_map(|(property, description, status, trace)| {
            json!({"property": property, "description": description, "status": status, "trace": trace})
        });
    let message = prop_oneof![
        Just(json!({"program": "CBMC 6.6.0"})),
        Just(json!({"messageType": "ERROR", "messageText": "the program has no entry point"})),
        Just(json!({"messageType": "STATUS-MESSAGE", "messageText": "Solving"})),
        proptest::collection::vec(property, 0..3).prop_map(|r| json!({"result": r})),
        Just(json!({"result": "not a list"})),
        Just(json!({"cProverStatus": "failure"})),
        Just(json!(42)),
    ];
    proptest::collection::vec(message, 0..5).prop_map(Value::Array)
}

#[test]
fn cbmc_json_ui_output() {
    let outputs = prop_oneof![
        6 => cbmc_value().prop_map(|v| v.to_string().into_bytes()),
        2 => cbmc_value().prop_flat_map(|v| mutated(v.to_string())).prop_map(String::into_bytes),
        1 => proptest::collection::vec(any::<u8>(), 0..64),
    ];
    let n = fuzz(outputs, |bytes| {
        if let Err(e) = mergelens::cbmc::read_json_ui(&bytes) {
            let message = e.to_string();
            prop_assert!(!message.contains('\n'), "{message}");
            prop_assert!(
                message.contains("CBMC") || message.contains("json-ui"),
                "{message}"
            );
        }
        Ok(())
    });
    eprintln!("CBMC --json-ui output: {n} outputs");
}

#[test]
fn what_git_tells_a_hook() {
    let text = prop_oneof![
        "[ -~\t\n]{0,40}",
        ".{0,40}",
        Just("merge --no-ff -m msg feature".to_string()),
        Just("pull --no-rebase . feature".to_string()),
        Just("abc\tnot-for-merge\tbranch 'x'\nfff\t\tbranch 'y'\n".to_string()),
    ];
    let names = proptest::collection::vec(
        prop_oneof!["GITHEAD_[0-9a-f]{0,6}", "[A-Z_]{0,10}", ".{0,10}"],
        0..4,
    );
    let n = fuzz((text, names), |(text, names)| {
        let check = |named: Result<Named<'_>, mergelens::git::GitError>| {
            match named {
                Ok(Named::One(rev)) => {
                    prop_assert!(!rev.is_empty());
                    prop_assert!(!rev.contains(char::is_whitespace), "{rev:?}");
                }
                Ok(_) => {}
                Err(e) => {
                    prop_assert!(!e.to_string().contains('\n'));
                    prop_assert!(e.to_string().contains("octopus"), "{e}");
                }
            }
            Ok(())
        };
        check(hook_env::merge_head(&text))?;
        check(hook_env::reflog_action(&text))?;
        check(hook_env::githead(names.iter().map(String::as_str)))?;
        match hook_env::fetch_head(&text) {
            Ok(sha) => {
                prop_assert!(!sha.is_empty());
                prop_assert!(!sha.contains(['\t', '\n']));
            }
            Err(e) => prop_assert!(e.to_string().contains("FETCH_HEAD")),
        }
        Ok(())
    });
    eprintln!("hook environment: {n} cases (MERGE_HEAD, GITHEAD_*, GIT_REFLOG_ACTION, FETCH_HEAD)");
}
