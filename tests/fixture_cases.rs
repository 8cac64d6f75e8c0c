//! The fixture harness: every folder `tests/fixtures/<case>/` holds input automata
//! (`<name>.json`), an `ops.txt` of lines `result = OP LEFT [RIGHT]` run through the real
//! `mergelens automaton` binary, and `expected/<name>.json` for results whose language is
//! known. Every expected file must be produced, must have the same language as the result,
//! and the result must be minimal (equal to its own minimisation).
//!
//! A folder with a `learn.txt` instead is a case of `mergelens learn` against the real CBMC:
//! its one line that is neither empty nor a `#` comment holds the arguments (paths relative
//! to the repository root), and `expected/learned.json` the language the program's
//! semantics give, which the learned automaton must have; it must also be minimal.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn mergelens(args: &[&Path]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .arg("automaton")
        .args(args)
        .output()
        .expect("run mergelens")
}

fn run_case(case: &Path) {
    let work = tempfile::tempdir().unwrap();
    let mut files: HashMap<String, PathBuf> = HashMap::new();
    for entry in std::fs::read_dir(case).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            files.insert(name, path);
        }
    }
    let ops = std::fs::read_to_string(case.join("ops.txt")).unwrap();
    for line in ops
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (result, command) = line.split_once(" = ").expect("result = OP ARGS");
        let mut words = command.split_whitespace();
        let op = words.next().unwrap();
        let out = work.path().join(format!("{result}.json"));
        let mut args: Vec<&Path> = vec![Path::new(op)];
        for arg in words {
            args.push(
                files
                    .get(arg)
                    .unwrap_or_else(|| panic!("{line}: unknown input {arg}")),
            );
        }
        args.extend([Path::new("-o"), &out]);
        let output = mergelens(&args);
        assert!(
            output.status.success(),
            "{line}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        files.insert(result.to_string(), out);
    }
    let expected_dir = case.join("expected");
    let mut checked = 0;
    for entry in std::fs::read_dir(&expected_dir).unwrap() {
        let expected = entry.unwrap().path();
        let name = expected.file_stem().unwrap().to_string_lossy().into_owned();
        let actual = files
            .get(&name)
            .unwrap_or_else(|| panic!("{}: no operation produces {name}", case.display()));
        let equiv = mergelens(&[Path::new("equiv"), actual, &expected]);
        assert!(
            equiv.status.success(),
            "{}/{name}: {}",
            case.display(),
            String::from_utf8_lossy(&equiv.stdout)
        );
        let minimal = work.path().join(format!("{name}.min.json"));
        assert!(
            mergelens(&[Path::new("minimize"), actual, Path::new("-o"), &minimal])
                .status
                .success()
        );
        assert_eq!(
            std::fs::read_to_string(actual).unwrap(),
            std::fs::read_to_string(&minimal).unwrap(),
            "{name} is not minimal"
        );
        checked += 1;
    }
    assert!(checked > 0, "{}: no expected automata", case.display());
}

#[test]
fn every_fixture_case_matches_its_expected_automata() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let case = entry.unwrap().path();
        if case.join("ops.txt").is_file() {
            run_case(&case);
            cases += 1;
        }
    }
    assert!(cases > 0);
}

/// Runs `mergelens learn` with the arguments of `case/learn.txt` from the repository root.
fn run_learn_case(case: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(case.join("learn.txt")).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(lines.len(), 1, "{}: one line of arguments", case.display());
    let args: Vec<&str> = lines[0].split_whitespace().collect();
    let work = tempfile::tempdir().unwrap();
    let learned = work.path().join("learned.json");
    let mut command = Command::new(env!("CARGO_BIN_EXE_mergelens"));
    command
        .current_dir(root)
        .arg("learn")
        .args(&args)
        .arg("-o")
        .arg(&learned);
    // Never the repository's own .git/mergelens cache.
    if !args
        .iter()
        .any(|a| *a == "--cache-dir" || *a == "--no-cache")
    {
        command.arg("--no-cache");
    }
    let output = command.output().expect("run mergelens learn");
    assert!(
        output.status.success(),
        "{}: {}",
        case.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let expected = case.join("expected/learned.json");
    let equiv = mergelens(&[Path::new("equiv"), &learned, &expected]);
    assert!(
        equiv.status.success(),
        "{}: {}",
        case.display(),
        String::from_utf8_lossy(&equiv.stdout)
    );
    let dfa = mergelens::automaton::json::read(&learned).unwrap();
    assert_eq!(
        dfa,
        mergelens::automaton::ops::minimize(&dfa),
        "{}: the learned automaton is not minimal",
        case.display()
    );
}

#[test]
fn every_learn_case_learns_its_expected_language() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases = 0;
    for entry in std::fs::read_dir(root).unwrap() {
        let case = entry.unwrap().path();
        if case.join("learn.txt").is_file() {
            run_learn_case(&case);
            cases += 1;
        }
    }
    assert!(cases > 0);
}
