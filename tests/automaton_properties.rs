//! Every operation of `automaton::ops` and `automaton::analysis` checked against brute-force
//! enumeration of all words up to length 6 on random small automata.
//!
//! The automata have 1 to 6 states and 1 to 3 letters drawn, in random order, from one
//! shared pool, so products meet alphabets that overlap only partly. With at most 6 states
//! (7 with the sink) words of length 6 are enough to decide emptiness, the equivalence of
//! two states and the other questions asked here of a single automaton; for products the
//! check is membership of every word up to length 6.

use mergelens::automaton::analysis::{self, Side};
use mergelens::automaton::ops::{self, BoolOp};
use mergelens::automaton::{Alphabet, AutomatonError, Dfa, Letter, StateId, Word};
use proptest::prelude::*;

const POOL: [&str; 4] = ["a", "b", "c", "end"];
const MAX_LEN: usize = 6;

fn arb_dfa() -> impl Strategy<Value = Dfa> {
    (
        1usize..=6,
        proptest::sample::subsequence(POOL.to_vec(), 1..=3).prop_shuffle(),
    )
        .prop_flat_map(|(n, letters)| {
            let k = letters.len();
            (
                Just(letters),
                proptest::collection::vec(proptest::option::weighted(0.7, 0..n as StateId), n * k),
                proptest::collection::vec(proptest::bool::weighted(0.35), n),
                0..n as StateId,
            )
        })
        .prop_map(|(letters, edges, accepting, initial)| {
            let alphabet = Alphabet::from_names(&letters);
            let k = alphabet.len();
            let mut d = Dfa::with_states(alphabet, accepting.len());
            for (i, to) in edges.into_iter().enumerate() {
                if let Some(to) = to {
                    d.set_transition((i / k) as StateId, (i % k) as Letter, to);
                }
            }
            for (q, acc) in accepting.into_iter().enumerate() {
                d.set_accepting(q as StateId, acc);
            }
            d.set_initial(initial);
            d
        })
}

/// All words over `k` letters of length at most `max`, in length-lexicographic order.
fn all_words(k: usize, max: usize) -> Vec<Word> {
    let mut words = vec![vec![]];
    let mut layer: Vec<Word> = vec![vec![]];
    for _ in 0..max {
        let mut next = Vec::new();
        for w in &layer {
            for a in 0..k as Letter {
                let mut v = w.clone();
                v.push(a);
                next.push(v);
            }
        }
        words.extend(next.iter().cloned());
        layer = next;
    }
    words
}

fn names(alphabet: &Alphabet, word: &[Letter]) -> Vec<String> {
    word.iter().map(|&a| alphabet.name(a).to_string()).collect()
}

/// Whether `d` accepts a word written over another alphabet (letters it lacks reject).
fn accepts_over(d: &Dfa, alphabet: &Alphabet, word: &[Letter]) -> bool {
    d.accepts_names(&names(alphabet, word))
}

fn accepts_from(d: &Dfa, q: StateId, word: &[Letter]) -> bool {
    d.run_from(q, word).is_some_and(|s| d.is_accepting(s))
}

/// Reachable and co-reachable states by brute force (words of length < 6 suffice).
fn brute_useful(d: &Dfa) -> Vec<bool> {
    let words = all_words(d.alphabet().len(), MAX_LEN - 1);
    let mut reachable = vec![false; d.num_states()];
    for w in &words {
        if let Some(q) = d.run(w) {
            reachable[q as usize] = true;
        }
    }
    d.states()
        .map(|q| reachable[q as usize] && words.iter().any(|w| accepts_from(d, q, w)))
        .collect()
}

/// An automaton with the same language and a different shape: every state doubled, each
/// edge sent to a random copy of its target, the states shuffled, and an unreachable state
/// and a dead loop added.
fn scramble(d: &Dfa, seed: u64) -> Dfa {
    let mut rng = seed | 1;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let n = d.num_states();
    let total = 2 * n + 2;
    let mut perm: Vec<StateId> = (0..total as StateId).collect();
    for i in (1..total).rev() {
        perm.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    let copy = |q: StateId, c: u64| perm[q as usize + n * c as usize];
    let (junk, dead) = (perm[2 * n], perm[2 * n + 1]);
    let mut e = Dfa::with_states(d.alphabet().clone(), total);
    for (q, a, to) in d.transitions() {
        for c in 0..2 {
            e.set_transition(copy(q, c), a, copy(to, next() % 2));
        }
    }
    for q in d.accepting_states() {
        e.set_accepting(copy(q, 0), true);
        e.set_accepting(copy(q, 1), true);
    }
    for a in d.alphabet().letters() {
        e.set_transition(dead, a, dead);
        e.set_transition(junk, a, copy(d.initial(), 1));
        // Missing edges of the original may go to the dead loop instead.
        for q in d.states() {
            if d.next(q, a).is_none() && next() % 2 == 0 {
                e.set_transition(copy(q, 0), a, dead);
            }
        }
    }
    e.set_accepting(junk, true);
    e.set_initial(copy(d.initial(), next() % 2));
    e
}

fn op_holds(op: BoolOp, x: bool, y: bool) -> bool {
    match op {
        BoolOp::Intersection => x && y,
        BoolOp::Union => x || y,
        BoolOp::Difference => x && !y,
        BoolOp::SymmetricDifference => x != y,
    }
}

/// The least word up to length 6 over `union` with `pick(in a, in b)`.
fn brute_least(
    a: &Dfa,
    b: &Dfa,
    union: &Alphabet,
    pick: impl Fn(bool, bool) -> bool,
) -> Option<Word> {
    all_words(union.len(), MAX_LEN)
        .into_iter()
        .find(|w| pick(accepts_over(a, union, w), accepts_over(b, union, w)))
}

/// Doomed by the brute-force characterisation: no path of |U| steps inside U from `q`
/// stays within non-accepting states, and every maximal finite path inside U from `q`
/// passes an accepting state.
fn brute_doomed(d: &Dfa, useful: &[bool], q: StateId) -> bool {
    let size = useful.iter().filter(|&&u| u).count();
    // Depth-first over the paths that have stayed within non-accepting states so far.
    let mut stack = vec![(q, 0usize)];
    while let Some((s, len)) = stack.pop() {
        if d.is_accepting(s) {
            continue;
        }
        if len >= size {
            return false;
        }
        let inside: Vec<StateId> = d
            .alphabet()
            .letters()
            .filter_map(|a| d.next(s, a))
            .filter(|&t| useful[t as usize])
            .collect();
        if inside.is_empty() {
            return false;
        }
        stack.extend(inside.into_iter().map(|t| (t, len + 1)));
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn bound_length_keeps_exactly_the_short_words(d in arb_dfa(), n in 0usize..=5) {
        let b = ops::bound_length(&d, n);
        prop_assert_eq!(&ops::minimize(&b), &b);
        prop_assert!(ops::is_finite(&b));
        for w in all_words(d.alphabet().len(), MAX_LEN) {
            prop_assert_eq!(b.accepts(&w), d.accepts(&w) && w.len() <= n, "word {:?}", w);
        }
        // A finite language of an automaton of at most 6 states has no word of 6 letters.
        if ops::is_finite(&d) {
            prop_assert_eq!(ops::bound_length(&d, MAX_LEN), ops::minimize(&d));
        }
    }

    #[test]
    fn complement_flips_every_word(d in arb_dfa()) {
        let c = ops::complement(&d);
        prop_assert_eq!(c.alphabet(), d.alphabet());
        for w in all_words(d.alphabet().len(), MAX_LEN) {
            prop_assert_eq!(c.accepts(&w), !d.accepts(&w), "word {:?}", w);
        }
    }

    #[test]
    fn products_follow_the_boolean_operation(a in arb_dfa(), b in arb_dfa()) {
        let union = a.alphabet().union(b.alphabet());
        let words = all_words(union.len(), MAX_LEN);
        type Minimised = fn(&Dfa, &Dfa) -> Dfa;
        let ops_min: [(BoolOp, Minimised); 4] = [
            (BoolOp::Intersection, ops::intersection),
            (BoolOp::Union, ops::union),
            (BoolOp::Difference, ops::difference),
            (BoolOp::SymmetricDifference, ops::symmetric_difference),
        ];
        for (op, minimised) in ops_min {
            let p = ops::product(&a, &b, op);
            prop_assert_eq!(p.alphabet(), &union);
            prop_assert_eq!(p.initial(), 0);
            prop_assert!(p.num_states() < (a.num_states() + 1) * (b.num_states() + 1));
            let m = minimised(&a, &b);
            prop_assert_eq!(&m, &ops::minimize(&p));
            for w in &words {
                let expected = op_holds(op, accepts_over(&a, &union, w), accepts_over(&b, &union, w));
                prop_assert_eq!(p.accepts(w), expected, "{:?} {:?}", op, w);
                prop_assert_eq!(m.accepts(w), expected, "{:?} {:?}", op, w);
            }
        }
    }

    #[test]
    fn minimize_is_minimal_canonical_and_idempotent(d in arb_dfa(), seed in any::<u64>()) {
        let m = ops::minimize(&d);
        prop_assert_eq!(m.alphabet(), d.alphabet());
        prop_assert_eq!(m.initial(), 0);
        let words = all_words(d.alphabet().len(), MAX_LEN);
        for w in &words {
            prop_assert_eq!(m.accepts(w), d.accepts(w), "word {:?}", w);
        }
        // The Myhill-Nerode residuals of the reachable states, by brute force.
        let reachable: std::collections::BTreeSet<StateId> =
            words.iter().filter_map(|w| d.run(w)).collect();
        let residuals: std::collections::BTreeSet<Vec<bool>> = reachable
            .iter()
            .map(|&q| words.iter().map(|w| accepts_from(&d, q, w)).collect::<Vec<bool>>())
            .filter(|r| r.iter().any(|&x| x))
            .collect();
        if residuals.is_empty() {
            prop_assert_eq!(&m, &Dfa::new(d.alphabet().clone()));
        } else {
            prop_assert_eq!(m.num_states(), residuals.len());
            prop_assert!(analysis::useful_states(&m).iter().all(|&u| u));
        }
        prop_assert_eq!(&ops::minimize(&m), &m);
        let e = scramble(&d, seed);
        prop_assert_eq!(&ops::minimize(&e), &m);
        prop_assert_eq!(analysis::equivalence_witness(&d, &e), None);
    }

    #[test]
    fn trim_keeps_exactly_the_useful_states(d in arb_dfa()) {
        let t = ops::trim(&d);
        let useful = brute_useful(&d);
        let count = useful.iter().filter(|&&u| u).count();
        prop_assert_eq!(analysis::useful_states(&d), useful);
        prop_assert_eq!(t.initial(), 0);
        prop_assert_eq!(t.num_states(), count.max(1));
        if count > 0 {
            prop_assert!(analysis::useful_states(&t).iter().all(|&u| u));
        } else {
            prop_assert_eq!(t.num_transitions(), 0);
        }
        for w in all_words(d.alphabet().len(), MAX_LEN) {
            prop_assert_eq!(t.accepts(&w), d.accepts(&w), "word {:?}", w);
        }
    }

    #[test]
    fn emptiness_and_least_word(d in arb_dfa()) {
        let least = all_words(d.alphabet().len(), MAX_LEN).into_iter().find(|w| d.accepts(w));
        prop_assert_eq!(analysis::is_empty(&d), least.is_none());
        prop_assert_eq!(analysis::shortest_accepted(&d), least);
    }

    #[test]
    fn inclusion_and_equivalence_witnesses_are_least(a in arb_dfa(), b in arb_dfa()) {
        let union = a.alphabet().union(b.alphabet());
        let inclusion = analysis::inclusion_witness(&a, &b);
        match brute_least(&a, &b, &union, |x, y| x && !y) {
            Some(w) => prop_assert_eq!(inclusion.clone(), Some(names(&union, &w))),
            None => {
                // No witness up to length 6; a longer one must still be a witness.
                if let Some(w) = &inclusion {
                    prop_assert!(w.len() > MAX_LEN);
                    prop_assert!(a.accepts_names(w) && !b.accepts_names(w));
                }
            }
        }
        prop_assert_eq!(inclusion.is_none(), analysis::is_empty(&ops::difference(&a, &b)));

        let equivalence = analysis::equivalence_witness(&a, &b);
        match brute_least(&a, &b, &union, |x, y| x != y) {
            Some(w) => {
                let witness = equivalence.clone();
                prop_assert!(witness.is_some());
                let witness = witness.unwrap();
                prop_assert_eq!(&witness.word, &names(&union, &w));
                let side = if accepts_over(&a, &union, &w) { Side::Left } else { Side::Right };
                prop_assert_eq!(witness.accepted_by, side);
            }
            None => {
                if let Some(w) = &equivalence {
                    prop_assert!(w.word.len() > MAX_LEN);
                    prop_assert_ne!(a.accepts_names(&w.word), b.accepts_names(&w.word));
                }
            }
        }
        prop_assert_eq!(
            equivalence.is_none(),
            analysis::is_empty(&ops::symmetric_difference(&a, &b))
        );
    }

    #[test]
    fn words_and_counts_match_enumeration(d in arb_dfa()) {
        let accepted: Vec<Word> = all_words(d.alphabet().len(), MAX_LEN)
            .into_iter()
            .filter(|w| d.accepts(w))
            .collect();
        let mut by_length = vec![0u128; MAX_LEN + 1];
        for w in &accepted {
            by_length[w.len()] += 1;
        }
        prop_assert_eq!(analysis::count_by_length(&d, MAX_LEN), by_length);
        for max in 0..=MAX_LEN {
            let expected: Vec<Word> = accepted.iter().filter(|w| w.len() <= max).cloned().collect();
            let count = expected.len() as u64;
            prop_assert_eq!(analysis::count_up_to(&d, max), Some(u128::from(count)));
            prop_assert_eq!(&analysis::words_up_to(&d, max, count).unwrap(), &expected);
            for first in 0..=expected.len() + 1 {
                prop_assert_eq!(
                    analysis::shortest_words(&d, max, first),
                    expected.iter().take(first).cloned().collect::<Vec<_>>()
                );
            }
            if count > 0 {
                match analysis::words_up_to(&d, max, count - 1) {
                    Err(AutomatonError::TooManyWords { max_length, count: c, limit }) => {
                        prop_assert_eq!((max_length, c, limit), (max, count.to_string(), count - 1));
                    }
                    other => prop_assert!(false, "expected TooManyWords, got {:?}", other),
                }
            }
        }
    }

    #[test]
    fn dominating_letters_occur_in_every_accepted_word(d in arb_dfa()) {
        let accepted: Vec<Word> = all_words(d.alphabet().len(), MAX_LEN)
            .into_iter()
            .filter(|w| d.accepts(w))
            .collect();
        let expected: Vec<Letter> = if accepted.is_empty() {
            vec![]
        } else {
            d.alphabet().letters().filter(|a| accepted.iter().all(|w| w.contains(a))).collect()
        };
        prop_assert_eq!(analysis::dominating_letters(&d), expected);
    }

    #[test]
    fn doomed_states_match_their_characterisation(d in arb_dfa()) {
        let useful = brute_useful(&d);
        let expected: Vec<StateId> = d
            .states()
            .filter(|&q| useful[q as usize] && !d.is_accepting(q) && brute_doomed(&d, &useful, q))
            .collect();
        prop_assert_eq!(analysis::doomed_states(&d), expected);
    }

    #[test]
    fn back_edges_leave_accepting_useful_states(d in arb_dfa()) {
        let useful = brute_useful(&d);
        let expected: Vec<(StateId, Letter, StateId)> = d
            .transitions()
            .filter(|&(q, _, to)| d.is_accepting(q) && useful[q as usize] && useful[to as usize])
            .collect();
        prop_assert_eq!(analysis::back_edges(&d), expected);
    }
}
