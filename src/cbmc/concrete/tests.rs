//! Concrete runs of real programs with gcc, their words cross-checked with CBMC.

use std::path::Path;

use super::*;
use crate::cbmc::{Bounds, GotoProgram, Toolchain};
use crate::cprog::{FrontEndConfig, instrument};

/// The learned and the concrete instrumentation of a test program.
fn programs(name: &str, dir: &Path) -> (InstrumentedProgram, InstrumentedProgram) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = FrontEndConfig::new(vec![root.join("tests/programs").join(name)]);
    std::fs::create_dir_all(dir.join("learned")).unwrap();
    std::fs::create_dir_all(dir.join("concrete")).unwrap();
    let learned = instrument(&config, &dir.join("learned")).unwrap();
    let mut shared = config.clone();
    shared.share_inputs = true;
    let concrete = instrument(&shared, &dir.join("concrete")).unwrap();
    (learned, concrete)
}

fn names(p: &InstrumentedProgram, w: &Word) -> String {
    p.alphabet.format_word(w)
}

/// Every word a concrete run gives within the bounds is a member by CBMC's own answer, and
/// the runs of a loop reading its bound from `nondet_int` cover the language.
#[test]
fn concrete_words_are_members_by_cbmc() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (file, unwind, expected) in [
        ("loop_calls.c", 2, vec!["f end", "g f end", "g g f end"]),
        (
            "recursion.c",
            2,
            vec![
                "down leaf end",
                "down down leaf end",
                "down down down leaf end",
            ],
        ),
        (
            "input_branch.c",
            2,
            vec!["high done end", "high high done end", "low done end"],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (learned, concrete) = programs(file, dir.path());
        let program =
            ConcreteProgram::build(&learned, &concrete).unwrap_or_else(|e| panic!("{file}: {e}"));
        let sampled = program.sample(0..150, None);
        assert_eq!(sampled.runs, 150);
        let within: Vec<Word> = sampled
            .samples
            .iter()
            .filter(|s| s.unwind <= unwind)
            .map(|s| s.word.clone())
            .collect();
        let mut found: Vec<String> = within.iter().map(|w| names(&learned, w)).collect();
        found.sort();
        found.dedup();
        let mut expected: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        expected.sort();
        assert_eq!(found, expected, "{file}");
        // A run past the bound says so.
        if file == "loop_calls.c" {
            assert!(
                sampled.samples.iter().any(|s| s.unwind > unwind),
                "{sampled:?}"
            );
        }
        let goto = GotoProgram::compile(&tools, &learned.paths, &[], &[], root)
            .unwrap()
            .with_entry(learned.cbmc_entry.clone())
            .with_recursive_functions(learned.recursive_functions());
        let bounds = Bounds {
            unwind: unwind + 1,
            max_word_length: 8,
        };
        let answers = goto.membership(&within, bounds, learned.end, None).unwrap();
        assert!(answers.iter().all(|&a| a), "{file}: {found:?} {answers:?}");
    }
}

/// A program whose `nondet_*` function returns a pointer gets no concrete runs, and says why.
#[test]
fn a_pointer_nondet_gets_no_concrete_runs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.c");
    std::fs::write(
        &file,
        "char *nondet_ptr(void);\nvoid f(void) {}\nint main(void) { if (nondet_ptr()) f(); return 0; }\n",
    )
    .unwrap();
    let config = FrontEndConfig::new(vec![file]);
    let mut shared = config.clone();
    shared.share_inputs = true;
    std::fs::create_dir_all(dir.path().join("a")).unwrap();
    std::fs::create_dir_all(dir.path().join("b")).unwrap();
    let learned = instrument(&config, &dir.path().join("a")).unwrap();
    let concrete = instrument(&shared, &dir.path().join("b")).unwrap();
    let err = ConcreteProgram::build(&learned, &concrete).unwrap_err();
    assert!(err.to_string().contains("nondet_ptr"), "{err}");
}
