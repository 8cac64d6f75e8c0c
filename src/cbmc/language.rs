//! Word-level facts about program-explanation languages that need no CBMC run: the shape of
//! their words, and finite sets of words as automata.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};

use crate::automaton::{Dfa, Letter, StateId, Word};

/// Whether `word` has the shape of a program-explanation word: `end` last and nowhere else.
/// Words of another shape are in no program's language (the paper's pre-checks, Sec. 4.1).
pub(crate) fn is_explanation_word(word: &[Letter], end: Letter) -> bool {
    word.split_last()
        .is_some_and(|(&last, rest)| last == end && !rest.contains(&end))
}

/// A shortest word of length at most `max_len` that `d` accepts but that does not have the
/// shape of a program-explanation word.
pub(crate) fn misshapen_accepted_word(d: &Dfa, end: Letter, max_len: usize) -> Option<Word> {
    // Phase 0: no end yet; 1: end was the last letter; 2: something followed an end.
    type Node = (StateId, u8);
    let step = |phase: u8, a: Letter| match (phase, a == end) {
        (0, false) => 0,
        (0, true) => 1,
        _ => 2,
    };
    let start: Node = (d.initial(), 0);
    let mut parent: HashMap<Node, Option<(Node, Letter)>> = HashMap::from([(start, None)]);
    let mut queue = VecDeque::from([(start, 0usize)]);
    while let Some((node, depth)) = queue.pop_front() {
        let (q, phase) = node;
        if phase != 1 && d.is_accepting(q) {
            let mut word = Vec::new();
            let mut at = node;
            while let Some((prev, a)) = parent[&at] {
                word.push(a);
                at = prev;
            }
            word.reverse();
            return Some(word);
        }
        if depth == max_len {
            continue;
        }
        for a in d.alphabet().letters() {
            if let Some(to) = d.next(q, a) {
                let next = (to, step(phase, a));
                if let Entry::Vacant(e) = parent.entry(next) {
                    e.insert(Some((node, a)));
                    queue.push_back((next, depth + 1));
                }
            }
        }
    }
    None
}

/// `prefix · x · end` for a shortest `x` without `end` such that `d` accepts it, if one is at
/// most `max_len` long: the completion the trap of Fig. 11 found from an exit prefix.
pub(crate) fn complete(d: &Dfa, prefix: &[Letter], end: Letter, max_len: usize) -> Option<Word> {
    let start = d.run(prefix)?;
    let mut parent: HashMap<StateId, Option<(StateId, Letter)>> = HashMap::from([(start, None)]);
    let mut queue = VecDeque::from([(start, prefix.len())]);
    while let Some((q, len)) = queue.pop_front() {
        if len >= max_len {
            continue;
        }
        if d.next(q, end).is_some_and(|t| d.is_accepting(t)) {
            let mut x = vec![end];
            let mut at = q;
            while let Some((prev, a)) = parent[&at] {
                x.push(a);
                at = prev;
            }
            x.reverse();
            return Some([prefix, &x].concat());
        }
        for a in d.alphabet().letters().filter(|&a| a != end) {
            if let Some(to) = d.next(q, a)
                && let Entry::Vacant(e) = parent.entry(to)
            {
                e.insert(Some((q, a)));
                queue.push_back((to, len + 1));
            }
        }
    }
    None
}

/// The first `limit` words `d` accepts of length at most `max_len`, in length-lexicographic
/// order. Unlike enumerating them all, the cost is proportional to `limit`, not to the
/// language.
pub(crate) fn first_words(d: &Dfa, max_len: usize, limit: usize) -> Vec<Word> {
    // reaches[r][q]: some word of length exactly r leads from q to acceptance.
    let n = d.num_states();
    let mut reaches = vec![d.states().map(|q| d.is_accepting(q)).collect::<Vec<_>>()];
    for r in 1..=max_len {
        let prev = &reaches[r - 1];
        let now = d
            .states()
            .map(|q| {
                d.alphabet()
                    .letters()
                    .any(|a| d.next(q, a).is_some_and(|t| prev[t as usize]))
            })
            .collect();
        reaches.push(now);
    }
    debug_assert!(reaches.iter().all(|row| row.len() == n));
    let mut out = Vec::new();
    for length in 0..=max_len {
        let mut word = Vec::with_capacity(length);
        collect(d, &reaches, d.initial(), length, &mut word, &mut out, limit);
        if out.len() >= limit {
            break;
        }
    }
    out
}

fn collect(
    d: &Dfa,
    reaches: &[Vec<bool>],
    q: StateId,
    left: usize,
    word: &mut Word,
    out: &mut Vec<Word>,
    limit: usize,
) {
    if out.len() >= limit || !reaches[left][q as usize] {
        return;
    }
    if left == 0 {
        out.push(word.clone());
        return;
    }
    for a in d.alphabet().letters() {
        if let Some(to) = d.next(q, a) {
            word.push(a);
            collect(d, reaches, to, left - 1, word, out, limit);
            word.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::Alphabet;

    #[test]
    fn shapes_of_explanation_words() {
        assert!(is_explanation_word(&[0, 1, 2], 2));
        assert!(is_explanation_word(&[2], 2));
        assert!(!is_explanation_word(&[], 2));
        assert!(!is_explanation_word(&[0, 2, 2], 2));
        assert!(!is_explanation_word(&[0, 1], 2));
    }

    #[test]
    fn finds_a_shortest_misshapen_accepted_word() {
        // Over {f, end}: accepts f end and f f.
        let mut h = Dfa::with_states(Alphabet::from_names(["f", "end"]), 3);
        h.set_transition(0, 0, 1);
        h.set_transition(1, 1, 2);
        h.set_transition(1, 0, 2);
        h.set_accepting(2, true);
        assert_eq!(misshapen_accepted_word(&h, 1, 4), Some(vec![0, 0]));
        assert_eq!(misshapen_accepted_word(&h, 1, 1), None);
        h.remove_transition(1, 0);
        assert_eq!(misshapen_accepted_word(&h, 1, 4), None);
    }

    #[test]
    fn completes_exit_prefixes_shortest_first() {
        let alphabet = Alphabet::from_names(["f", "g", "end"]);
        let d = crate::automaton::ops::from_words(
            &alphabet,
            &[vec![0, 1, 1, 2], vec![0, 0, 2], vec![1, 2]],
        );
        assert_eq!(complete(&d, &[0], 2, 9), Some(vec![0, 0, 2]));
        assert_eq!(complete(&d, &[0, 1], 2, 9), Some(vec![0, 1, 1, 2]));
        assert_eq!(complete(&d, &[0, 1], 2, 3), None);
        assert_eq!(complete(&d, &[], 2, 2), Some(vec![1, 2]));
        assert_eq!(complete(&d, &[1, 1], 2, 9), None);
    }

    #[test]
    fn finite_sets_and_their_first_words() {
        let alphabet = Alphabet::from_names(["f", "g", "end"]);
        let words = [vec![0, 1, 2], vec![1, 2], vec![0, 0, 0, 2], vec![7, 2]];
        let d = crate::automaton::ops::from_words(&alphabet, &words);
        assert!(d.accepts(&[1, 2]) && d.accepts(&[0, 1, 2]) && !d.accepts(&[0, 2]));
        assert_eq!(
            first_words(&d, 9, 9),
            [vec![1, 2], vec![0, 1, 2], vec![0, 0, 0, 2]]
        );
        assert_eq!(first_words(&d, 3, 9), [vec![1, 2], vec![0, 1, 2]]);
        assert_eq!(first_words(&d, 9, 1), [vec![1, 2]]);
        // f* end has one word per length.
        let mut star = Dfa::with_states(alphabet, 2);
        star.set_transition(0, 0, 0);
        star.set_transition(0, 2, 1);
        star.set_accepting(1, true);
        assert_eq!(
            first_words(&star, 100, 3),
            [vec![2], vec![0, 2], vec![0, 0, 2]]
        );
    }
}
