//! Speed of `automaton::concise::separate` on inputs of the size learning produces: exact
//! automata of 5 to 40 states, small results, alphabets up to 102 letters.
//!
//! Each case is timed twice: with the default budget (state merging for an upper bound,
//! then the SAT solver from 1 state up), and with the solver switched off (`max_states: 0`,
//! state merging alone). The "no" language is always every word up to a length bound that
//! is not a "yes" word, so only longer words are "don't care", as in `learn`'s use.

use std::time::Duration;

use mergelens::automaton::concise::{Budget, Separation, separate};
use mergelens::automaton::{Alphabet, Dfa, Letter, StateId, Word, ops};

use super::{Rng, time};

/// The automaton accepting exactly `words`, minimal.
fn from_words(alphabet: &Alphabet, words: &[Word]) -> Dfa {
    ops::minimize(&ops::from_words(alphabet, words))
}

/// Every word over the alphabet of `yes` of at most `max_length` letters that `yes` rejects.
fn rest(yes: &Dfa, max_length: usize) -> Dfa {
    let alphabet = yes.alphabet();
    let mut all = Dfa::with_states(alphabet.clone(), 1);
    for a in alphabet.letters() {
        all.set_transition(0, a, 0);
    }
    all.set_accepting(0, true);
    ops::difference(&ops::bound_length(&all, max_length), yes)
}

/// yes: `f^k end` for `k <= 8`; no: the other words of at most 9 letters, so `f^9 end` is
/// "don't care" and `f* end` separates.
fn chain() -> (Dfa, Dfa) {
    let (yes, _) = chain10();
    let no = rest(&yes, 9);
    (yes, no)
}

/// The same yes words; no: the other words of at most 10 letters. Now `f^9 end` is a no
/// word, so nothing generalises: the solver has to refute every size below 10.
fn chain10() -> (Dfa, Dfa) {
    let alphabet = Alphabet::from_names(["f", "end"]);
    let words: Vec<Word> = (0..=8)
        .map(|k| {
            let mut w = vec![0; k];
            w.push(1);
            w
        })
        .collect();
    let yes = from_words(&alphabet, &words);
    let no = rest(&yes, 10);
    (yes, no)
}

/// yes: `w end` for `w` over {a, b} of at most 6 letters with a number of a's divisible by
/// 3; no: the other words of at most 7 letters. The least separator counts a's modulo 3.
fn counter() -> (Dfa, Dfa) {
    let alphabet = Alphabet::from_names(["a", "b", "end"]);
    let mut words = Vec::new();
    for len in 0..=6u32 {
        for bits in 0..1u32 << len {
            if bits.count_ones() % 3 == 0 {
                let mut w: Word = (0..len).map(|i| bits >> i & 1).collect();
                w.push(2);
                words.push(w);
            }
        }
    }
    let yes = from_words(&alphabet, &words);
    let no = rest(&yes, 7);
    (yes, no)
}

/// yes: `g_i f^k end` for 100 letters `g_i` and `k <= 3`; no: the other words of at most
/// 5 letters. 102 letters, 3 states.
fn wide() -> (Dfa, Dfa) {
    let mut names: Vec<String> = (0..100).map(|i| format!("g{i}")).collect();
    names.extend(["f".to_string(), "end".to_string()]);
    let alphabet = Alphabet::from_names(&names);
    let mut words = Vec::new();
    for g in 0..100 {
        for k in 0..=3 {
            let mut w = vec![g];
            w.extend(std::iter::repeat_n(100, k));
            w.push(101);
            words.push(w);
        }
    }
    let yes = from_words(&alphabet, &words);
    let no = rest(&yes, 5);
    (yes, no)
}

/// yes: the words of at most `len` letters of a random 30-state automaton over 6 letters
/// (two edges per state, a third of the states accepting); no: the other words of at most
/// `no_len` letters.
fn random30(len: usize, no_len: usize) -> (Dfa, Dfa) {
    let mut rng = Rng(0x0063_6f6e_6369_7365);
    let letters = 6;
    let alphabet = Alphabet::from_names((0..letters).map(|i| format!("f{i}")));
    let mut d = Dfa::with_states(alphabet, 30);
    for q in 0..30 {
        for _ in 0..2 {
            let a = rng.below(letters) as Letter;
            d.set_transition(q, a, rng.below(30) as StateId);
        }
        d.set_accepting(q, rng.chance(33));
    }
    let yes = ops::bound_length(&d, len);
    let no = rest(&yes, no_len);
    (yes, no)
}

fn row(input: &str, yes: &Dfa, no: &Dfa, method: &str, seconds: f64, s: &Separation) {
    println!(
        "| {input:<26} | {:>7} | {:>3} | {:>3} | {method:<11} | {seconds:>7.4} | {:>6} | {:>5} | {:<7} | {:<6} |",
        yes.alphabet().len(),
        yes.num_states(),
        no.num_states(),
        s.dfa.num_states(),
        s.lower_bound,
        s.minimal,
        s.method.as_str(),
    );
}

pub fn run() {
    println!();
    println!(
        "| input                      | letters | yes |  no | search      | seconds | states | bound | minimal | method |"
    );
    println!(
        "|----------------------------|--------:|----:|----:|-------------|--------:|-------:|------:|---------|--------|"
    );
    type Case = (&'static str, Box<dyn Fn() -> (Dfa, Dfa)>);
    let cases: Vec<Case> = vec![
        ("chain f^k end, k ≤ 8", Box::new(chain)),
        ("same, no up to 10", Box::new(chain10)),
        ("a's mod 3, length ≤ 7", Box::new(counter)),
        ("wide: 100 g_i f* end", Box::new(wide)),
        ("random 30: yes ≤ 6, no ≤ 6", Box::new(|| random30(6, 6))),
        ("random 30: yes ≤ 7, no ≤ 7", Box::new(|| random30(7, 7))),
        ("random 30: yes ≤ 6, no ≤ 7", Box::new(|| random30(6, 7))),
    ];
    let merge_only = Budget {
        time: Duration::from_secs(5),
        max_states: 0,
    };
    for (name, make) in cases {
        let (yes, no) = make();
        let (s, sat) = time(|| separate(&yes, &no, Budget::default()).expect("disjoint"));
        row(name, &yes, &no, "merge + SAT", s, &sat);
        let (s, merged) = time(|| separate(&yes, &no, merge_only).expect("disjoint"));
        row(name, &yes, &no, "merge only", s, &merged);
    }
}
