//! `automaton::concise::separate` on random inputs: every answer is consistent, never larger
//! than the minimal DFA of yes or of the complement of no, and an answer the solver calls
//! minimal is checked against brute force over every smaller partial DFA.
//!
//! Two kinds of input: finite samples (random disjoint sets of words of at most 4 letters
//! over 2 or 3 letters, each made into its prefix-tree automaton), which is how learning
//! uses `separate`; and random automata with cycles (yes = A, no = B \ A), which the code
//! must handle too.

use mergelens::automaton::concise::{Budget, Method, Separation, separate};
use mergelens::automaton::{Alphabet, Dfa, Letter, StateId, Word, analysis, ops};
use proptest::prelude::*;

const LETTERS: [&str; 3] = ["a", "b", "end"];

/// A sample: the alphabet, the yes words and the no words (disjoint).
fn arb_sample() -> impl Strategy<Value = (Alphabet, Vec<Word>, Vec<Word>)> {
    (2usize..=3).prop_flat_map(|k| {
        let word = proptest::collection::vec(0..k as Letter, 0..=4);
        proptest::collection::vec((word, any::<bool>()), 1..=10).prop_map(move |pairs| {
            let (mut yes, mut no): (Vec<Word>, Vec<Word>) = (Vec::new(), Vec::new());
            for (w, positive) in pairs {
                if yes.contains(&w) || no.contains(&w) {
                    continue;
                }
                if positive { yes.push(w) } else { no.push(w) }
            }
            (Alphabet::from_names(&LETTERS[..k]), yes, no)
        })
    })
}

fn arb_dfa(k: usize) -> impl Strategy<Value = Dfa> {
    (1usize..=5).prop_flat_map(move |n| {
        (
            proptest::collection::vec(proptest::option::weighted(0.7, 0..n as StateId), n * k),
            proptest::collection::vec(proptest::bool::weighted(0.35), n),
        )
            .prop_map(move |(edges, accepting)| {
                let mut d = Dfa::with_states(Alphabet::from_names(&LETTERS[..k]), n);
                for (i, to) in edges.into_iter().enumerate() {
                    if let Some(to) = to {
                        d.set_transition((i / k) as StateId, (i % k) as Letter, to);
                    }
                }
                for (q, acc) in accepting.into_iter().enumerate() {
                    d.set_accepting(q as StateId, acc);
                }
                d
            })
    })
}

/// Every partial DFA with `m` states over `k` letters (initial state 0), in turn; stops
/// and returns true as soon as `found` does.
fn any_dfa(alphabet: &Alphabet, m: usize, found: &mut dyn FnMut(&Dfa) -> bool) -> bool {
    let k = alphabet.len();
    let cells = m * k;
    // Each cell is 0 (missing) or 1 + target; counted like a number in base m + 1.
    let mut targets = vec![0usize; cells];
    loop {
        for accepting in 0..1u32 << m {
            let mut d = Dfa::with_states(alphabet.clone(), m);
            for (i, &t) in targets.iter().enumerate() {
                if t > 0 {
                    d.set_transition((i / k) as StateId, (i % k) as Letter, (t - 1) as StateId);
                }
            }
            for q in 0..m {
                d.set_accepting(q as StateId, accepting >> q & 1 == 1);
            }
            if found(&d) {
                return true;
            }
        }
        let mut i = 0;
        while i < cells && targets[i] == m {
            targets[i] = 0;
            i += 1;
        }
        if i == cells {
            return false;
        }
        targets[i] += 1;
    }
}

fn consistent_on(d: &Dfa, yes: &[Word], no: &[Word]) -> bool {
    yes.iter().all(|w| d.accepts(w)) && no.iter().all(|w| !d.accepts(w))
}

/// The checks every answer must pass, whatever the input.
fn check_answer(yes: &Dfa, no: &Dfa, d: &Dfa) -> Result<(), TestCaseError> {
    prop_assert_eq!(
        analysis::inclusion_witness(yes, d),
        None,
        "loses a yes word"
    );
    prop_assert!(
        analysis::is_empty(&ops::intersection(d, no)),
        "accepts a no word"
    );
    prop_assert_eq!(&ops::minimize(d), d, "not minimal-trimmed");
    let from_yes = ops::minimize(yes).num_states();
    let from_no = ops::minimize(&ops::complement(no)).num_states();
    prop_assert!(
        d.num_states() <= from_yes,
        "{} > {from_yes}",
        d.num_states()
    );
    prop_assert!(d.num_states() <= from_no, "{} > {from_no}", d.num_states());
    Ok(())
}

fn check_bound(s: &Separation) -> Result<(), TestCaseError> {
    prop_assert!(s.lower_bound >= 1 && s.lower_bound <= s.dfa.num_states());
    prop_assert_eq!(s.minimal, s.lower_bound == s.dfa.num_states());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn samples_are_separated_minimally((alphabet, yes_words, no_words) in arb_sample()) {
        let (yes, no) = (ops::from_words(&alphabet, &yes_words), ops::from_words(&alphabet, &no_words));
        let s = separate(&yes, &no, Budget::default()).unwrap();
        check_answer(&yes, &no, &s.dfa)?;
        check_bound(&s)?;
        prop_assert!(consistent_on(&s.dfa, &yes_words, &no_words));
        // Tiny cases: nothing smaller is consistent. Up to 3 states over 2 letters there
        // are 32,768 partial DFAs of 3 states; over 3 letters only 2 states are enumerated.
        // The enumeration must find a DFA of the answer's own size, which checks it.
        prop_assert!(s.minimal && s.method == Method::Sat, "{:?}", s);
        let n = s.dfa.num_states();
        let limit = 5 - alphabet.len();
        let mut consistent = |d: &Dfa| consistent_on(d, &yes_words, &no_words);
        if n <= limit {
            prop_assert!(any_dfa(&alphabet, n, &mut consistent));
        }
        if n >= 2 && n - 1 <= limit {
            let beaten = any_dfa(&alphabet, n - 1, &mut consistent);
            prop_assert!(!beaten, "a DFA of {} states separates too", n - 1);
        }
    }

    #[test]
    fn the_merge_heuristic_alone_is_consistent((alphabet, yes_words, no_words) in arb_sample()) {
        let (yes, no) = (ops::from_words(&alphabet, &yes_words), ops::from_words(&alphabet, &no_words));
        let budget = Budget { time: std::time::Duration::from_secs(5), max_states: 0 };
        let s = separate(&yes, &no, budget).unwrap();
        prop_assert_eq!(s.method, Method::Merge);
        prop_assert_eq!(s.minimal, s.dfa.num_states() == 1);
        check_answer(&yes, &no, &s.dfa)?;
        check_bound(&s)?;
        prop_assert!(consistent_on(&s.dfa, &yes_words, &no_words));
        let exact = separate(&yes, &no, Budget::default()).unwrap();
        prop_assert!(exact.dfa.num_states() <= s.dfa.num_states());
    }

    #[test]
    fn automata_with_cycles_are_separated(k in 2usize..=3, a in arb_dfa(3), b in arb_dfa(3)) {
        let alphabet = Alphabet::from_names(&LETTERS[..k]);
        let restrict = |d: &Dfa| {
            let mut r = Dfa::with_states(alphabet.clone(), d.num_states());
            for (q, l, to) in d.transitions().filter(|&(_, l, _)| (l as usize) < k) {
                r.set_transition(q, l, to);
            }
            for q in d.accepting_states() {
                r.set_accepting(q, true);
            }
            r
        };
        let yes = restrict(&a);
        let no = ops::difference(&restrict(&b), &yes).extend_alphabet(&alphabet);
        let s = separate(&yes, &no, Budget::default()).unwrap();
        check_answer(&yes, &no, &s.dfa)?;
        check_bound(&s)?;
        prop_assert!(s.minimal);
    }
}

#[test]
fn overlapping_inputs_are_refused() {
    let alphabet = Alphabet::from_names(["a", "b"]);
    let yes = ops::from_words(&alphabet, &[vec![0], vec![0, 1]]);
    let no = ops::from_words(&alphabet, &[vec![1], vec![0, 1]]);
    let err = separate(&yes, &no, Budget::default()).unwrap_err();
    assert!(err.to_string().contains("[a b] is in both"), "{err}");
}
