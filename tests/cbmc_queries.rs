//! Membership and conjecture queries answered by the real CBMC on small hand-instrumented
//! programs (tests/programs/hooks/), which call the hooks the way instrumented programs do.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::work::{children_cpu, on_every_core};

use mergelens::automaton::{Alphabet, Dfa, Letter, Word};
use mergelens::cbmc::{Bounds, CbmcRunError, Feedback, GotoProgram, Toolchain};

fn tools() -> Toolchain {
    Toolchain::locate(None).expect("CBMC is installed (make deps)")
}

fn hooks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/hooks")
}

fn compile(file: &str) -> Result<GotoProgram, CbmcRunError> {
    let dir = hooks_dir();
    GotoProgram::compile(&tools(), &[PathBuf::from(file)], &[], &[], &dir)
}

fn word(alphabet: &Alphabet, names: &str) -> Word {
    alphabet
        .word(&names.split_whitespace().collect::<Vec<_>>())
        .unwrap_or_else(|| panic!("{names:?} is over the alphabet"))
}

/// The automaton accepting exactly `words`.
fn finite(alphabet: &Alphabet, words: &[&str]) -> Dfa {
    let words: Vec<_> = words.iter().map(|w| word(alphabet, w)).collect();
    mergelens::automaton::ops::from_words(alphabet, &words)
}

const BOUNDS: Bounds = Bounds {
    unwind: 3,
    max_word_length: 8,
};

fn fig12() -> (GotoProgram, Alphabet, Letter) {
    let alphabet = Alphabet::from_names(["main", "funcA", "funcB", "funcC", "funcZ", "end"]);
    let end = alphabet.letter("end").unwrap();
    (compile("fig12_merged.c").unwrap(), alphabet, end)
}

#[test]
fn one_cbmc_run_answers_a_batch_of_membership_queries() {
    let (program, alphabet, end) = fig12();
    let cases = [
        ("main funcA funcZ funcB end", true),
        ("main funcA funcZ end", false),
        ("main funcA funcZ funcC end", true),
        ("main funcA funcZ funcB funcC end", false),
        ("main funcA funcB end", false),
        ("main funcZ funcA funcB end", false),
        ("funcA funcZ funcB end", false),
        ("main funcA funcZ funcB end", true),
        ("main funcA funcZ funcB", false),
        ("end", false),
    ];
    let words: Vec<Word> = cases.iter().map(|(w, _)| word(&alphabet, w)).collect();
    let answers = program.membership(&words, BOUNDS, end, None).unwrap();
    for ((w, expected), got) in cases.iter().zip(&answers) {
        assert_eq!(got, expected, "{w}");
    }
    assert_eq!(program.counters().runs(), 1);
    assert!(program.counters().seconds() > 0.0);
}

#[test]
fn membership_respects_the_word_length_bound_and_skips_cbmc_when_it_can() {
    let (program, alphabet, end) = fig12();
    let yes = word(&alphabet, "main funcA funcZ funcB end");
    let short = Bounds {
        max_word_length: 4,
        ..BOUNDS
    };
    // Not of the shape "... end", or too long: answered without CBMC.
    let answers = program
        .membership(
            &[yes.clone(), word(&alphabet, "main funcA")],
            short,
            end,
            None,
        )
        .unwrap();
    assert_eq!(answers, [false, false]);
    assert_eq!(program.counters().runs(), 0);
    let exact = Bounds {
        max_word_length: 5,
        ..BOUNDS
    };
    assert_eq!(
        program.membership(&[yes], exact, end, None).unwrap(),
        [true]
    );
    assert_eq!(program.counters().runs(), 1);
}

#[test]
fn loop_iterations_are_bounded_by_the_unwinding() {
    let program = compile("loop.c").unwrap();
    let alphabet = Alphabet::from_names(["main", "f", "end"]);
    let end = alphabet.letter("end").unwrap();
    let words: Vec<Word> = (0..6)
        .map(|k| word(&alphabet, &format!("main {}end", "f ".repeat(k))))
        .collect();
    // `--unwind 3` visits the loop head at most 3 times: the body runs at most twice.
    let bounds = Bounds {
        unwind: 3,
        max_word_length: 10,
    };
    let answers = program.membership(&words, bounds, end, None).unwrap();
    assert_eq!(answers, [true, true, true, false, false, false]);
    let deeper = Bounds {
        unwind: 5,
        ..bounds
    };
    let answers = program.membership(&words, deeper, end, None).unwrap();
    assert_eq!(answers, [true, true, true, true, true, false]);
    // The word length bound cuts before the unwinding does.
    let short = Bounds {
        unwind: 5,
        max_word_length: 4,
    };
    let answers = program.membership(&words, short, end, None).unwrap();
    assert_eq!(answers, [true, true, true, false, false, false]);
    assert_eq!(program.counters().runs(), 3);
}

#[test]
fn a_too_small_hypothesis_gets_positive_feedback() {
    let (program, alphabet, end) = fig12();
    let empty = Dfa::new(alphabet.clone());
    let feedback = program
        .conjecture(&empty, BOUNDS, end, &[], None)
        .unwrap()
        .unwrap();
    assert!(feedback.positive);
    let names = alphabet.format_word(&feedback.word);
    assert!(
        names == "main funcA funcZ funcB end" || names == "main funcA funcZ funcC end",
        "{names}"
    );
    let half = finite(&alphabet, &["main funcA funcZ funcB end"]);
    let feedback = program.conjecture(&half, BOUNDS, end, &[], None).unwrap();
    assert_eq!(
        feedback,
        Some(Feedback {
            word: word(&alphabet, "main funcA funcZ funcC end"),
            positive: true
        })
    );
}

#[test]
fn the_right_automaton_is_accepted() {
    let (program, alphabet, end) = fig12();
    let right = finite(
        &alphabet,
        &["main funcA funcZ funcB end", "main funcA funcZ funcC end"],
    );
    assert_eq!(
        program.conjecture(&right, BOUNDS, end, &[], None).unwrap(),
        None
    );
    assert_eq!(program.counters().runs(), 1);
}

/// The membership query that rides along with a conjecture query gets the answers a
/// membership query of its own gets, and the conjecture the same feedback: in one run.
#[test]
fn a_conjecture_query_answers_membership_queries_in_the_same_run() {
    let (program, alphabet, end) = fig12();
    let cases = [
        ("main funcA funcZ funcB end", true),
        ("main funcA funcZ funcC end", true),
        ("main funcA funcB end", false),
        ("main funcZ funcA funcB end", false),
    ];
    let words: Vec<Word> = cases.iter().map(|(w, _)| word(&alphabet, w)).collect();
    let right = finite(
        &alphabet,
        &["main funcA funcZ funcB end", "main funcA funcZ funcC end"],
    );
    let (feedback, answers) = program
        .conjecture_and_membership(&right, BOUNDS, end, &[], &words, None)
        .unwrap();
    assert_eq!(feedback, None);
    assert_eq!(answers, cases.map(|(_, a)| a));
    assert_eq!(program.counters().runs(), 1);

    let half = finite(&alphabet, &["main funcA funcZ funcB end"]);
    let (feedback, answers) = program
        .conjecture_and_membership(&half, BOUNDS, end, &[], &words, None)
        .unwrap();
    assert_eq!(
        feedback,
        Some(Feedback {
            word: word(&alphabet, "main funcA funcZ funcC end"),
            positive: true
        })
    );
    assert_eq!(answers, cases.map(|(_, a)| a));
    assert_eq!(program.counters().runs(), 2);
}

#[test]
fn an_accepted_word_with_end_misplaced_is_negative_feedback_without_cbmc() {
    let (program, alphabet, end) = fig12();
    let odd = finite(
        &alphabet,
        &[
            "main funcA funcZ funcB end",
            "main funcA funcZ funcC end",
            "main end funcA end",
        ],
    );
    let feedback = program.conjecture(&odd, BOUNDS, end, &[], None).unwrap();
    assert_eq!(
        feedback,
        Some(Feedback {
            word: word(&alphabet, "main end funcA end"),
            positive: false
        })
    );
    assert_eq!(program.counters().runs(), 0);
}

fn exit_program() -> (GotoProgram, Alphabet, Letter) {
    let alphabet = Alphabet::from_names(["main", "g", "f", "end"]);
    let end = alphabet.letter("end").unwrap();
    (compile("exit_in_callee.c").unwrap(), alphabet, end)
}

#[test]
fn the_trap_at_exit_points_gives_negative_feedback() {
    let (program, alphabet, end) = exit_program();
    assert_eq!(
        program
            .membership(&[word(&alphabet, "main g f end")], BOUNDS, end, None)
            .unwrap(),
        [true]
    );
    // "main g" is the word of an execution that exits, so the trap extends it and finds
    // "main g g end", which no execution has.
    let too_large = finite(&alphabet, &["main g f end", "main g g end"]);
    let feedback = program
        .conjecture(&too_large, BOUNDS, end, &[], None)
        .unwrap();
    assert_eq!(
        feedback,
        Some(Feedback {
            word: word(&alphabet, "main g g end"),
            positive: false
        })
    );
    let right = finite(&alphabet, &["main g f end"]);
    assert_eq!(
        program.conjecture(&right, BOUNDS, end, &[], None).unwrap(),
        None
    );
}

#[test]
fn trap_words_that_are_in_the_language_are_not_feedback() {
    let (program, alphabet, end) = exit_program();
    let right = finite(&alphabet, &["main g f end"]);
    // The trap also reaches "main g f end" from the exit after "main g"; whether it is
    // passed as known or confirmed by a membership query, it is not negative feedback.
    let known = [word(&alphabet, "main g f end")];
    assert_eq!(
        program
            .conjecture(&right, BOUNDS, end, &known, None)
            .unwrap(),
        None
    );
    assert_eq!(program.counters().runs(), 1);
    // Unknown, it is a trap candidate; the membership run confirming it finds it in the
    // language, and a second conjecture run, knowing it, finds nothing.
    assert_eq!(
        program.conjecture(&right, BOUNDS, end, &[], None).unwrap(),
        None
    );
    assert_eq!(program.counters().runs(), 1 + 3);
}

#[test]
fn the_trap_cannot_see_words_without_an_exit_prefix() {
    // The limit of Fig. 11 (the gap between Theorem 4.1 and Eqn. (6)): no execution exits
    // after "main" alone, so an accepted "main f end" goes unnoticed...
    let (program, alphabet, end) = exit_program();
    let too_large = finite(&alphabet, &["main g f end", "main f end"]);
    let known = [word(&alphabet, "main g f end")];
    assert_eq!(
        program
            .conjecture(&too_large, BOUNDS, end, &known, None)
            .unwrap(),
        None
    );
    assert_eq!(
        program
            .membership(&[word(&alphabet, "main f end")], BOUNDS, end, None)
            .unwrap(),
        [false]
    );
    // ...unless the trap finds some other unknown word: the membership run that confirms
    // it also checks the other accepted words not known.
    let feedback = program
        .conjecture(&too_large, BOUNDS, end, &[], None)
        .unwrap();
    assert_eq!(
        feedback,
        Some(Feedback {
            word: word(&alphabet, "main f end"),
            positive: false
        })
    );
}

#[test]
fn the_entry_function_can_be_other_than_main() {
    let alphabet = Alphabet::from_names(["run", "small", "big", "end"]);
    let end = alphabet.letter("end").unwrap();
    let program = compile("entry_function.c").unwrap().with_entry("run");
    assert_eq!(program.entry(), "run");
    let words = [
        word(&alphabet, "run small end"),
        word(&alphabet, "run big end"),
        word(&alphabet, "end"),
    ];
    let answers = program.membership(&words, BOUNDS, end, None).unwrap();
    assert_eq!(answers, [true, true, false]);

    let missing = compile("entry_function.c")
        .unwrap()
        .with_entry("no_such_function");
    let err = missing.membership(&words, BOUNDS, end, None).unwrap_err();
    assert!(matches!(err, CbmcRunError::Cbmc { .. }), "{err}");
    assert!(err.to_string().contains("no_such_function"), "{err}");
}

#[test]
fn a_letter_outside_the_alphabet_breaks_the_contract() {
    let program = compile("bad_letter.c").unwrap();
    let alphabet = Alphabet::from_names(["main", "f", "end"]);
    let end = alphabet.letter("end").unwrap();
    let err = program
        .conjecture(&Dfa::new(alphabet), BOUNDS, end, &[], None)
        .unwrap_err();
    assert!(matches!(err, CbmcRunError::Contract { .. }), "{err}");
}

#[test]
fn a_query_past_its_deadline_is_a_timeout_not_an_answer() {
    let (program, alphabet, end) = fig12();
    let words = [word(&alphabet, "main funcA funcZ funcB end")];
    let err = program
        .membership(&words, BOUNDS, end, Some(Duration::from_millis(1)))
        .unwrap_err();
    match &err {
        CbmcRunError::Timeout {
            what,
            unwind,
            max_word_length,
            ..
        } => {
            assert!(what.contains("membership"), "{what}");
            assert_eq!((*unwind, *max_word_length), (3, 8));
        }
        other => panic!("expected a timeout, got {other}"),
    }
    assert!(err.to_string().contains("timed out"), "{err}");
    let err = program
        .conjecture(
            &Dfa::new(alphabet),
            BOUNDS,
            end,
            &[],
            Some(Duration::from_millis(1)),
        )
        .unwrap_err();
    assert!(
        matches!(&err, CbmcRunError::Timeout { what, .. } if what.contains("conjecture with 1 states")),
        "{err}"
    );
    // The program is still usable after a killed run.
    assert_eq!(
        program.membership(&words, BOUNDS, end, None).unwrap(),
        [true]
    );
}

#[test]
fn a_cbmc_run_past_its_deadline_is_killed() {
    let program = compile("hard.c").unwrap();
    let alphabet = Alphabet::from_names(["main", "found", "end"]);
    let end = alphabet.letter("end").unwrap();
    let (err, runs, cpu) = children_cpu(|| {
        program
            .membership(
                &[word(&alphabet, "main found end")],
                BOUNDS,
                end,
                Some(Duration::from_secs(2)),
            )
            .unwrap_err()
    });
    assert!(matches!(err, CbmcRunError::Timeout { .. }), "{err}");
    // Factoring the semiprime takes CBMC minutes of work; the run killed at its deadline
    // did about two seconds' (CPU time, which load does not stretch as it does the wall
    // clock; the old bound was 10 s of wall clock).
    assert!(runs >= 1, "no child seen");
    assert!(cpu < on_every_core(Duration::from_secs(10)), "{cpu:?}");
    assert_eq!(
        (program.counters().runs(), program.counters().timeouts()),
        (1, 1)
    );
}

#[test]
fn a_compile_error_names_the_users_file_and_line() {
    let err = compile("does_not_compile.c").unwrap_err();
    match &err {
        CbmcRunError::Compile {
            file,
            line,
            message,
        } => {
            assert_eq!((file.as_str(), *line), ("src/widget.c", 42), "{err}");
            assert!(message.contains("undeclared_variable"), "{message}");
        }
        other => panic!("expected a compile error, got {other}"),
    }
    assert!(err.to_string().starts_with("src/widget.c:42: "), "{err}");
}
