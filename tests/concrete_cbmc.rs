//! Concrete runs as a second teacher and `--mode pac`, end to end with the real gcc and
//! CBMC: the automata learned with and without concrete runs are the same, the concrete
//! runs answer queries the statistics count as `from_concrete`, and a PAC result says it
//! is one in its summary line, its JSON and its statistics.

use std::path::Path;
use std::process::{Command, Output};

use mergelens::automaton::{Dfa, analysis, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn run(command: &str, args: &[&str], stats: &Path) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(root())
        .arg(command)
        .args(args)
        .args(["--no-cache", "--stats"])
        .arg(stats)
        .output()
        .expect("run mergelens");
    assert!(
        output.status.success(),
        "{command} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn read_stats(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn automaton(output: &Output) -> Dfa {
    json::from_str(&String::from_utf8_lossy(&output.stdout), "stdout").unwrap()
}

/// The learn and explain cases whose languages need more than the prefetch, so that
/// concrete runs are made: (command, arguments).
const CASES: [(&str, &[&str]); 3] = [
    (
        "learn",
        &[
            "tests/fixtures/learn_choices/choices.c",
            "--unwind",
            "3",
            "--max-word-length",
            "14",
        ],
    ),
    (
        "learn",
        &[
            "tests/programs/hash_loop.c",
            "--unwind",
            "3",
            "--max-word-length",
            "14",
        ],
    ),
    (
        "explain",
        &[
            "tests/programs/explain_order.c",
            "--unwind",
            "3",
            "--max-word-length",
            "12",
        ],
    ),
];

#[test]
fn concrete_runs_answer_queries_and_change_no_automaton() {
    let dir = tempfile::tempdir().unwrap();
    let mut answered = 0;
    for (command, args) in CASES {
        let off = dir.path().join("off.json");
        let on = dir.path().join("on.json");
        let without = automaton(&run(
            command,
            &[args, &["--concrete-runs", "0"]].concat(),
            &off,
        ));
        let with = automaton(&run(
            command,
            &[args, &["--concrete-runs", "200"]].concat(),
            &on,
        ));
        assert!(
            analysis::equivalence_witness(&without, &with).is_none(),
            "{command} {args:?}: the automata differ"
        );
        let (off, on) = (read_stats(&off), read_stats(&on));
        assert_eq!(off["teacher"]["concrete"], false, "{command} {args:?}");
        assert_eq!(on["teacher"]["concrete"], true, "{command} {args:?}: {on}");
        assert!(on["teacher"]["concrete_runs"].as_u64().unwrap() >= 200);
        // learn's statistics flatten the learner's; explain's nest them.
        let learner = if command == "learn" {
            &on
        } else {
            &on["learn"]
        };
        let from_concrete = learner["from_concrete"].as_u64().unwrap();
        assert_eq!(
            from_concrete,
            on["teacher"]["from_concrete"].as_u64().unwrap()
        );
        answered += from_concrete + on["teacher"]["concrete_counterexamples"].as_u64().unwrap();
    }
    assert!(answered > 0, "no concrete run answered anything");
}

#[test]
fn a_pac_run_says_pac_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    for (command, args) in [CASES[0], CASES[2]] {
        let stats = dir.path().join("pac.json");
        let pac = [
            args,
            &["--mode", "pac", "--epsilon", "0.1", "--delta", "0.1"],
        ]
        .concat();
        let output = run(command, &pac, &stats);
        let err = String::from_utf8_lossy(&output.stderr);
        let summary = err.lines().last().unwrap();
        assert!(summary.contains("PAC (epsilon 0.1, delta 0.1"), "{summary}");
        assert!(summary.contains("NOT EXACT"), "{summary}");
        assert!(!summary.contains("cannot fail"), "{summary}");
        assert!(err.contains("with probability at least 0.9"), "{err}");
        let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let key = if command == "learn" {
            "learned"
        } else {
            "explained"
        };
        let facts = &doc[key]["pac"];
        assert_eq!(facts["epsilon"], 0.1, "{doc}");
        // Angluin's size for the accepting query i: ceil((ln 10 + i ln 2) / 0.1).
        let i = facts["equivalence_queries"].as_u64().unwrap();
        let m = ((10f64.ln() + i as f64 * 2f64.ln()) / 0.1).ceil() as u64;
        assert_eq!(facts["samples"].as_u64(), Some(m), "{facts}");
        assert!(facts["guarantee"].as_str().unwrap().contains("Not exact"));
        let stats = read_stats(&stats);
        assert_eq!(stats["pac"]["delta"], 0.1, "{stats}");
        assert!(stats["teacher"]["pac_samples"].as_u64().unwrap() >= m);
        // The drawings and the report say it too.
        let drawing = run(
            command,
            &[&pac[..], &["--format", "dot"]].concat(),
            &stats_path(&dir),
        );
        let dot = String::from_utf8_lossy(&drawing.stdout);
        assert!(
            dot.contains("label=\"PAC result (epsilon 0.1, delta 0.1), not exact\""),
            "{dot}"
        );
        if command == "explain" {
            let page = run(
                command,
                &[&pac[..], &["--format", "html"]].concat(),
                &stats_path(&dir),
            );
            let html = String::from_utf8_lossy(&page.stdout);
            assert!(html.contains("PAC result: probably approximately correct, not exact"));
            assert!(!html.contains("The assertion cannot fail"));
        }
    }
}

fn stats_path(dir: &tempfile::TempDir) -> std::path::PathBuf {
    dir.path().join("more.json")
}
