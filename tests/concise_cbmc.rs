//! The concise automaton of `mergelens learn` and `mergelens explain` against the real
//! CBMC: a loop the bounds cut becomes a loop (not a chain) that still rejects impossible
//! orders; a closed run (no loop cut) keeps every word within the bound exact; a failure
//! characterised by one letter gets the small explanation; `--exact` leaves it out.

use std::path::Path;
use std::process::{Command, Output};

use mergelens::automaton::analysis::words_up_to;
use mergelens::automaton::{Dfa, json};

fn program(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn mergelens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .args(args)
        .arg("--no-cache")
        .output()
        .expect("run mergelens")
}

/// The JSON document of a successful run.
fn document(args: &[&str]) -> serde_json::Value {
    let output = mergelens(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
    serde_json::from_slice(&output.stdout).expect("JSON output")
}

fn concise(doc: &serde_json::Value, key: &str) -> (Dfa, serde_json::Value) {
    let object = doc[key]["concise"].clone();
    assert!(object.is_object(), "no concise automaton in {doc}");
    let dfa = json::from_value(object.clone(), "concise").expect("a mergelens-dfa/1 object");
    (dfa, object)
}

fn accepts(d: &Dfa, word: &str) -> bool {
    d.accepts_names(&word.split(' ').collect::<Vec<_>>())
}

fn words(d: &Dfa, max_len: usize) -> Vec<String> {
    words_up_to(d, max_len, 100_000)
        .unwrap()
        .iter()
        .map(|w| d.alphabet().format_word(w))
        .collect()
}

#[test]
fn a_loop_the_bounds_cut_is_a_loop_in_the_concise_automaton() {
    let doc = document(&["learn", &program("loop_calls.c"), "--unwind", "2"]);
    let exact = json::from_value(doc.clone(), "learned").unwrap();
    assert_eq!(words(&exact, 64), ["f end", "g f end", "g g f end"]);
    let (concise, meta) = concise(&doc, "learned");
    // g* f end: three states, where the exact automaton counts the iterations.
    assert_eq!(concise.num_states(), 3, "{meta}");
    assert!(concise.num_states() < exact.num_states());
    assert_eq!(meta["minimal"], true);
    assert_eq!(meta["method"], "sat");
    assert_eq!(meta["exact_states"], exact.num_states());
    assert_eq!(meta["states_saved"], exact.num_states() - 3);
    assert!(
        accepts(&concise, "g g g g g f end"),
        "it generalises the loop"
    );
    for impossible in ["f g end", "end", "g end", "f end end", "f f end"] {
        assert!(!accepts(&concise, impossible), "{impossible}");
    }
    // Every word of the exact automaton is kept.
    for word in words(&exact, 64) {
        assert!(accepts(&concise, &word), "{word}");
    }
}

#[test]
fn a_run_that_cut_no_loop_keeps_every_word_within_the_bound() {
    let doc = document(&["learn", &program("two_paths.c"), "--max-word-length", "6"]);
    let exact = json::from_value(doc.clone(), "learned").unwrap();
    let (concise, meta) = concise(&doc, "learned");
    assert!(
        meta["rule"].as_str().unwrap().contains("no loop was cut"),
        "{meta}"
    );
    assert_eq!(words(&concise, 6), words(&exact, 6));
    assert!(!accepts(&concise, "f1 g h2 end"));
}

#[test]
fn a_failure_characterised_by_one_letter_gets_the_small_explanation() {
    let doc = document(&[
        "explain",
        &program("explain_one_letter.c"),
        "--unwind",
        "3",
        "--max-word-length",
        "4",
    ]);
    let exact = json::from_value(doc.clone(), "explained").unwrap();
    let (concise, meta) = concise(&doc, "explained");
    // (a|b)* bad (a|b|bad)* assert. The unwinding lets every word of the bound happen:
    // under a cut loop, explain counts the words of more iterations as "no" (its values
    // cannot tell them from passing runs), and the explanation generalises only beyond
    // the word bound.
    assert_eq!(concise.num_states(), 3, "{meta}");
    assert!(exact.num_states() > 3, "the exact automaton counts letters");
    assert_eq!(meta["minimal"], true);
    for failing in ["bad assert", "a b bad a bad b a assert"] {
        assert!(accepts(&concise, failing), "{failing}");
    }
    for passing in ["assert", "a b a a b assert", "bad", "bad assert assert"] {
        assert!(!accepts(&concise, passing), "{passing}");
    }
}

#[test]
fn exact_leaves_the_concise_automaton_out_and_drawings_say_which_they_draw() {
    let file = program("loop_calls.c");
    let doc = document(&["learn", &file, "--unwind", "2", "--exact"]);
    assert!(doc["learned"].get("concise").is_none(), "{doc}");
    let dot = mergelens(&["learn", &file, "--unwind", "2", "--format", "dot"]);
    let dot = String::from_utf8_lossy(&dot.stdout);
    assert!(
        dot.contains("label=\"concise automaton: agrees with every execution"),
        "{dot}"
    );
    let exact = mergelens(&[
        "learn", &file, "--unwind", "2", "--format", "dot", "--exact",
    ]);
    assert!(!String::from_utf8_lossy(&exact.stdout).contains("concise"));
    let svg = mergelens(&["learn", &file, "--unwind", "2", "--format", "svg"]);
    let svg = String::from_utf8_lossy(&svg.stdout);
    assert!(svg.contains("<title>concise automaton: agrees"), "{svg}");
}
