//! Questions a reviewer asks of an automaton.
//!
//! * Which states matter ([`useful_states`]), is the language empty ([`is_empty`]), and
//!   what is its least word ([`shortest_accepted`]).
//! * Inclusion and equivalence of two automata, answered by a shortest counterexample
//!   ([`inclusion_witness`], [`equivalence_witness`]). Both search the pair space breadth
//!   first without building the product automaton, and stop at the first witness; the
//!   learning engine asks [`equivalence_witness`] on every equivalence query.
//! * The words themselves, in length-lexicographic order: all up to a length
//!   ([`words_up_to`]) or the first few ([`shortest_words`]), and how many there are of
//!   each length ([`count_by_length`], [`count_up_to`]).
//! * The simplifications of the paper's Sec. 7.2 (Chockler, Kesseli, Kroening and Strichman,
//!   *Learning the Language of Software Errors*, JAIR 2020) that make an error automaton
//!   readable: letters every error trace contains ([`dominating_letters`]), states from
//!   which the error can no longer be avoided ([`doomed_states`]), and the edges leaving
//!   accepting states ([`back_edges`], drawn separately in Fig. 17).
//!
//! Words are compared length-lexicographically: shorter first, then letter by letter by
//! letter index (for two automata, by index in the union of their alphabets).

use super::dfa::NO_STATE;
use super::dfa::{Dfa, Letter, StateId, Word};
use super::error::AutomatonError;
use super::pairs::{PairMap, letter_map, pair_key, step};

/// The states reachable from the initial state.
pub(crate) fn reachable_states(d: &Dfa) -> Vec<bool> {
    let mut seen = vec![false; d.num_states()];
    let mut stack = vec![d.initial()];
    seen[d.initial() as usize] = true;
    while let Some(q) = stack.pop() {
        for &to in d.row(q) {
            if to != NO_STATE && !seen[to as usize] {
                seen[to as usize] = true;
                stack.push(to);
            }
        }
    }
    seen
}

/// The predecessors of every state (with repetitions, letters dropped) as a CSR: the
/// predecessors of `q` are `preds[offset[q]..offset[q + 1]]`. Only edges whose both ends
/// satisfy `keep` are listed.
fn predecessors(d: &Dfa, keep: impl Fn(StateId) -> bool) -> (Vec<usize>, Vec<StateId>) {
    let n = d.num_states();
    let mut offset = vec![0usize; n + 1];
    for (_, _, to) in d.transitions().filter(|&(q, _, to)| keep(q) && keep(to)) {
        offset[to as usize + 1] += 1;
    }
    for i in 1..=n {
        offset[i] += offset[i - 1];
    }
    let mut preds = vec![0; offset[n]];
    let mut cursor = offset.clone();
    for (q, _, to) in d.transitions().filter(|&(q, _, to)| keep(q) && keep(to)) {
        preds[cursor[to as usize]] = q;
        cursor[to as usize] += 1;
    }
    (offset, preds)
}

/// The states from which an accepting state is reachable.
fn coreachable_states(d: &Dfa) -> Vec<bool> {
    let (offset, preds) = predecessors(d, |_| true);
    let mut seen = d.acceptance().to_vec();
    let mut stack: Vec<StateId> = d.accepting_states().collect();
    while let Some(q) = stack.pop() {
        for &p in &preds[offset[q as usize]..offset[q as usize + 1]] {
            if !seen[p as usize] {
                seen[p as usize] = true;
                stack.push(p);
            }
        }
    }
    seen
}

/// For every state, whether it is useful: reachable from the initial state and able to
/// reach an accepting state. Only useful states lie on accepting runs.
pub fn useful_states(d: &Dfa) -> Vec<bool> {
    let reachable = reachable_states(d);
    let coreachable = coreachable_states(d);
    reachable
        .iter()
        .zip(&coreachable)
        .map(|(&r, &c)| r && c)
        .collect()
}

/// The length-lexicographically least accepted word, `None` for the empty language.
pub fn shortest_accepted(d: &Dfa) -> Option<Word> {
    // Breadth first with letters in order reaches every state first by its least word, and
    // the queue holds the states in the order of those words; so the first accepting state
    // found carries the least accepted word.
    let n = d.num_states();
    let mut parent: Vec<(StateId, Letter)> = vec![(NO_STATE, 0); n];
    let mut seen = vec![false; n];
    let mut queue = vec![d.initial()];
    seen[d.initial() as usize] = true;
    let mut next = 0;
    while next < queue.len() {
        let q = queue[next];
        next += 1;
        if d.is_accepting(q) {
            let mut word = Vec::new();
            let mut at = q;
            while at != d.initial() {
                let (from, letter) = parent[at as usize];
                word.push(letter);
                at = from;
            }
            word.reverse();
            return Some(word);
        }
        for (letter, &to) in d.row(q).iter().enumerate() {
            if to != NO_STATE && !seen[to as usize] {
                seen[to as usize] = true;
                parent[to as usize] = (q, letter as Letter);
                queue.push(to);
            }
        }
    }
    None
}

/// Whether `d` accepts no word at all.
pub fn is_empty(d: &Dfa) -> bool {
    let reachable = reachable_states(d);
    !d.accepting_states().any(|q| reachable[q as usize])
}

/// Which of two automata accepts a word of their symmetric difference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// A word accepted by exactly one of two automata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// The letter names of the word.
    pub word: Vec<String>,
    /// The automaton that accepts it; the other rejects it.
    pub accepted_by: Side,
}

/// `None` if every word `a` accepts `b` accepts too; otherwise the length-lexicographically
/// least word of `L(a) \ L(b)`, ordered by the union of the alphabets (`a`'s letters first).
pub fn inclusion_witness(a: &Dfa, b: &Dfa) -> Option<Vec<String>> {
    pair_search(a, b, true, |in_a, in_b| in_a && !in_b).map(|(word, _)| word)
}

/// `None` if `a` and `b` accept the same words; otherwise the length-lexicographically least
/// word (over the union alphabet) that exactly one of them accepts, and which one.
pub fn equivalence_witness(a: &Dfa, b: &Dfa) -> Option<Witness> {
    pair_search(a, b, false, |in_a, in_b| in_a != in_b).map(|(word, in_a)| Witness {
        word,
        accepted_by: if in_a { Side::Left } else { Side::Right },
    })
}

/// Breadth-first search of the reachable pairs of `a` and `b` for the first pair whose
/// acceptance satisfies `is_witness`; returns the word reaching it (as names) and whether
/// `a` accepts it. With `left_live`, pairs where `a` is in its sink are not explored: no
/// word through them is accepted by `a`. The pair (sink, sink) is never explored.
fn pair_search(
    a: &Dfa,
    b: &Dfa,
    left_live: bool,
    is_witness: impl Fn(bool, bool) -> bool,
) -> Option<(Vec<String>, bool)> {
    let alphabet = a.alphabet().union(b.alphabet());
    let b_letter = letter_map(&alphabet, b.alphabet());
    let accepts = |d: &Dfa, q: StateId| q != NO_STATE && d.is_accepting(q);

    let mut index = PairMap::with_capacity(64);
    let mut pairs: Vec<(StateId, StateId)> = vec![(a.initial(), b.initial())];
    // How each pair was first reached: its predecessor pair and the letter.
    let mut parent: Vec<(u32, Letter)> = vec![(u32::MAX, 0)];
    index.get_or_insert(pair_key(a.initial(), b.initial()), 0);

    let mut found = None;
    if is_witness(accepts(a, a.initial()), accepts(b, b.initial())) {
        found = Some(0);
    }
    // Checking pairs when they are discovered rather than dequeued is the same order (the
    // discovery order is the queue order) and saves expanding a whole layer.
    let mut next = 0;
    'search: while found.is_none() && next < pairs.len() {
        let (p, q) = pairs[next];
        let here = next as u32;
        next += 1;
        for (letter, &lb) in b_letter.iter().enumerate() {
            let p2 = step(a, p, letter as Letter);
            let q2 = step(b, q, lb);
            if p2 == NO_STATE && (left_live || q2 == NO_STATE) {
                continue;
            }
            let fresh = pairs.len() as u32;
            if index.get_or_insert(pair_key(p2, q2), fresh).1 {
                pairs.push((p2, q2));
                parent.push((here, letter as Letter));
                if is_witness(accepts(a, p2), accepts(b, q2)) {
                    found = Some(fresh);
                    break 'search;
                }
            }
        }
    }

    let end = found?;
    let mut word = Vec::new();
    let mut at = end;
    while at != 0 {
        let (from, letter) = parent[at as usize];
        word.push(alphabet.name(letter).to_string());
        at = from;
    }
    word.reverse();
    Some((word, accepts(a, pairs[end as usize].0)))
}

/// The number of accepted words of each length `0..=max_length`, exactly: `None` stands
/// for a number above `u128::MAX`. Calls `each(length, count)` in order; stops when `each`
/// returns false, and early (leaving the remaining lengths, all zero, unreported) once no
/// run can accept any more.
fn exact_counts(d: &Dfa, max_length: usize, mut each: impl FnMut(usize, Option<u128>) -> bool) {
    let useful = useful_states(d);
    let n = d.num_states();
    // Only edges between useful states carry runs that can still accept.
    let edges: Vec<(StateId, StateId)> = d
        .transitions()
        .filter(|&(q, _, to)| useful[q as usize] && useful[to as usize])
        .map(|(q, _, to)| (q, to))
        .collect();
    let accepting: Vec<StateId> = d
        .accepting_states()
        .filter(|&q| useful[q as usize])
        .collect();
    let mut now: Vec<Option<u128>> = vec![Some(0); n];
    if useful[d.initial() as usize] {
        now[d.initial() as usize] = Some(1);
    }
    let mut then: Vec<Option<u128>> = vec![Some(0); n];
    for length in 0..=max_length {
        let count = accepting.iter().try_fold(0u128, |sum, &q| {
            now[q as usize].and_then(|c| sum.checked_add(c))
        });
        if !each(length, count) || length == max_length || now.iter().all(|&c| c == Some(0)) {
            return;
        }
        then.fill(Some(0));
        for &(q, to) in &edges {
            let add = now[q as usize];
            let slot = &mut then[to as usize];
            *slot = slot.and_then(|c| add.and_then(|x| c.checked_add(x)));
        }
        std::mem::swap(&mut now, &mut then);
    }
}

/// The number of accepted words of each length: index `n` holds the number of length `n`,
/// for `n` in `0..=max_length`, saturating at `u128::MAX`. Cost: `O(max_length ×
/// transitions)`, less when the language is finite.
pub fn count_by_length(d: &Dfa, max_length: usize) -> Vec<u128> {
    let mut counts = vec![0; max_length + 1];
    exact_counts(d, max_length, |length, count| {
        counts[length] = count.unwrap_or(u128::MAX);
        true
    });
    counts
}

/// The number of accepted words of length at most `max_length`; `None` when it exceeds
/// `u128::MAX`.
pub fn count_up_to(d: &Dfa, max_length: usize) -> Option<u128> {
    let mut total = Some(0u128);
    exact_counts(d, max_length, |_, count| {
        total = total.and_then(|t| count.and_then(|c| t.checked_add(c)));
        // Past u128::MAX the answer is known, however long the words may still grow.
        total.is_some()
    });
    total
}

/// All accepted words of length at most `max_length`, in length-lexicographic order (the
/// empty word first). When there are more than `limit`, fails with
/// [`AutomatonError::TooManyWords`] (holding their exact number) before enumerating any.
///
/// Cost: `O(max_length × transitions)` to count, then time proportional to the output.
pub fn words_up_to(d: &Dfa, max_length: usize, limit: u64) -> Result<Vec<Word>, AutomatonError> {
    let mut total = Some(0u128);
    let mut per_length: Vec<u128> = Vec::new();
    exact_counts(d, max_length, |_, count| {
        total = total.and_then(|t| count.and_then(|c| t.checked_add(c)));
        per_length.push(count.unwrap_or(u128::MAX));
        total.is_some()
    });
    match total {
        None => {
            return Err(AutomatonError::TooManyWords {
                max_length,
                count: format!("more than {}", u128::MAX),
                limit,
            });
        }
        Some(total) if total > u128::from(limit) => {
            return Err(AutomatonError::TooManyWords {
                max_length,
                count: total.to_string(),
                limit,
            });
        }
        Some(_) => {}
    }
    let Some(longest) = per_length.iter().rposition(|&c| c > 0) else {
        return Ok(Vec::new());
    };
    let mut live = LiveRows::new(d);
    while live.rows() <= longest {
        live.push_row(d);
    }
    // The count is exact here, but a generous limit must not reserve memory up front.
    let expected = per_length.iter().sum::<u128>().min(1 << 16) as usize;
    let mut words = Vec::with_capacity(expected);
    for (length, _) in per_length.iter().enumerate().filter(|&(_, &c)| c > 0) {
        each_word_of_length(d, &live, length, |word| {
            words.push(word.clone());
            true
        });
    }
    Ok(words)
}

/// The first `count` accepted words of at most `max_length` letters, in length-lexicographic
/// order: fewer when the automaton has fewer. Unlike [`words_up_to`] it never fails: it stops
/// at `count` words, so a language with many long words costs no more than its first few.
///
/// Cost: `O(L × transitions + count × L × letters)` for the length `L` of the last word
/// returned (at most `max_length`; less when the language is finite).
pub fn shortest_words(d: &Dfa, max_length: usize, count: usize) -> Vec<Word> {
    let mut words = Vec::new();
    if count == 0 {
        return words;
    }
    let mut live = LiveRows::new(d);
    for length in 0..=max_length {
        if length > 0 {
            live.push_row(d);
        }
        // No state has an accepted word of this length, so none has a longer one either.
        if live.row_is_empty(length) {
            break;
        }
        if live.get(length, d.initial()) {
            each_word_of_length(d, &live, length, |word| {
                words.push(word.clone());
                words.len() < count
            });
        }
        if words.len() >= count {
            break;
        }
    }
    words
}

/// Row `r` holds the states from which some accepted word has exactly `r` letters: with it a
/// depth-first enumeration never enters a branch that yields no word.
struct LiveRows {
    /// `u64`s per row.
    row_words: usize,
    bits: Vec<u64>,
}

impl LiveRows {
    /// Row 0 only: the accepting states.
    fn new(d: &Dfa) -> Self {
        let row_words = d.num_states().div_ceil(64);
        let mut bits = vec![0u64; row_words];
        for q in d.accepting_states() {
            bits[q as usize / 64] |= 1 << (q % 64);
        }
        LiveRows { row_words, bits }
    }

    fn rows(&self) -> usize {
        self.bits.len() / self.row_words.max(1)
    }

    fn get(&self, r: usize, q: StateId) -> bool {
        self.bits[r * self.row_words + q as usize / 64] >> (q % 64) & 1 == 1
    }

    fn row_is_empty(&self, r: usize) -> bool {
        self.bits[r * self.row_words..(r + 1) * self.row_words]
            .iter()
            .all(|&b| b == 0)
    }

    /// Adds the next row: a state is in it when one of its edges leads into the last row.
    fn push_row(&mut self, d: &Dfa) {
        let last = self.rows() - 1;
        let start = self.bits.len();
        self.bits.resize(start + self.row_words, 0);
        for (q, _, to) in d.transitions() {
            if self.get(last, to) {
                self.bits[start + q as usize / 64] |= 1 << (q % 64);
            }
        }
    }
}

/// Calls `emit` on each accepted word of exactly `length` letters, in letter order, until it
/// returns false. `live` must have a row for every length up to `length`.
fn each_word_of_length(
    d: &Dfa,
    live: &LiveRows,
    length: usize,
    mut emit: impl FnMut(&Word) -> bool,
) {
    if !live.get(length, d.initial()) {
        return;
    }
    let k = d.alphabet().len() as Letter;
    // An explicit stack, so long words cannot overflow the call stack.
    let mut states = vec![d.initial()];
    let mut word: Word = Vec::with_capacity(length);
    let mut next_letter: Vec<Letter> = vec![0];
    while let Some(&q) = states.last() {
        let depth = word.len();
        if depth == length {
            if !emit(&word) {
                return;
            }
        } else if next_letter[depth] < k {
            let a = next_letter[depth];
            next_letter[depth] += 1;
            if let Some(to) = d.next(q, a).filter(|&to| live.get(length - depth - 1, to)) {
                states.push(to);
                word.push(a);
                next_letter.push(0);
            }
            continue;
        }
        states.pop();
        next_letter.pop();
        word.pop();
    }
}

/// The letters that every accepted word contains, sorted by letter index: removing all the
/// edges of such a letter leaves no accepting state reachable (Sec. 7.2 of the paper; for an
/// error automaton, the calls every failing trace makes). For the empty language, whose
/// words trivially contain every letter, the answer is empty: it would say nothing.
pub fn dominating_letters(d: &Dfa) -> Vec<Letter> {
    let Some(shortest) = shortest_accepted(d) else {
        return Vec::new();
    };
    // A dominating letter occurs in the shortest accepted word too, so only its letters are
    // candidates; each costs one search of the automaton without that letter.
    let mut candidates = shortest;
    candidates.sort_unstable();
    candidates.dedup();
    candidates
        .into_iter()
        .filter(|&letter| !accepts_avoiding(d, letter))
        .collect()
}

/// Whether an accepted word without `letter` exists.
fn accepts_avoiding(d: &Dfa, letter: Letter) -> bool {
    let mut seen = vec![false; d.num_states()];
    let mut stack = vec![d.initial()];
    seen[d.initial() as usize] = true;
    while let Some(q) = stack.pop() {
        if d.is_accepting(q) {
            return true;
        }
        for (a, &to) in d.row(q).iter().enumerate() {
            if a as Letter != letter && to != NO_STATE && !seen[to as usize] {
                seen[to as usize] = true;
                stack.push(to);
            }
        }
    }
    false
}

/// The doomed states: non-accepting states from which, whatever happens next, the run
/// reaches an accepting state (for an error automaton: the assertion will fail).
///
/// Precisely: let `U` be the useful states (reachable and co-reachable) and consider only
/// the edges between states of `U`; an edge leaving `U` is ignored, since a run that takes
/// it can never accept. Let `D` be the least set of states such that every accepting state
/// of `U` is in `D`, and a state of `U` with at least one edge inside `U`, all of whose
/// edges inside `U` lead into `D`, is in `D`. The doomed states are the non-accepting states
/// of `D`, sorted. Being the least fixpoint, `D` contains no cycle of non-accepting states:
/// a run may loop there forever without reaching acceptance.
pub fn doomed_states(d: &Dfa) -> Vec<StateId> {
    let useful = useful_states(d);
    let inside = |q: StateId| useful[q as usize];
    let (offset, preds) = predecessors(d, inside);
    // The edges inside U not yet known to lead into D; a state joins D when it reaches 0.
    let mut pending: Vec<u32> = d
        .states()
        .map(|q| {
            if inside(q) {
                d.row(q)
                    .iter()
                    .filter(|&&to| to != NO_STATE && inside(to))
                    .count() as u32
            } else {
                0
            }
        })
        .collect();
    let mut in_d = vec![false; d.num_states()];
    let mut stack: Vec<StateId> = d.accepting_states().filter(|&q| inside(q)).collect();
    for &q in &stack {
        in_d[q as usize] = true;
    }
    while let Some(q) = stack.pop() {
        // One entry per edge, so a state with two letters into q is decremented twice.
        for &p in &preds[offset[q as usize]..offset[q as usize + 1]] {
            if in_d[p as usize] {
                continue;
            }
            pending[p as usize] -= 1;
            if pending[p as usize] == 0 {
                // p is useful and not accepting, so it had an edge inside U: it qualifies.
                in_d[p as usize] = true;
                stack.push(p);
            }
        }
    }
    d.states()
        .filter(|&q| in_d[q as usize] && !d.is_accepting(q))
        .collect()
}

/// The edges of the useful part that leave an accepting state, as `(from, letter, to)` in
/// `d`'s numbering, by state then letter. Fig. 17 of the paper draws these "back edges"
/// apart: they continue a trace after the error was already reached.
pub fn back_edges(d: &Dfa) -> Vec<(StateId, Letter, StateId)> {
    let useful = useful_states(d);
    d.transitions()
        .filter(|&(q, _, to)| d.is_accepting(q) && useful[q as usize] && useful[to as usize])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::Alphabet;

    use crate::automaton::dfa::from_edges as dfa;

    #[test]
    fn useful_states_are_reachable_and_coreachable() {
        // f g? end, a dead loop on g from state 0, and an unreachable state 4.
        let d = dfa(
            &["f", "g", "end"],
            5,
            &[
                (0, "f", 1),
                (0, "g", 3),
                (1, "g", 2),
                (1, "end", 2),
                (3, "g", 3),
                (4, "f", 0),
            ],
            &[2],
        );
        assert_eq!(useful_states(&d), [true, true, true, false, false]);
    }

    #[test]
    fn shortest_accepted_is_length_lexicographic() {
        let d = dfa(
            &["a", "b"],
            4,
            &[(0, "b", 1), (0, "a", 2), (2, "b", 3), (1, "a", 3)],
            &[3],
        );
        assert_eq!(shortest_accepted(&d), Some(vec![0, 1]));
        assert!(!is_empty(&d));
        let e = dfa(&["a"], 2, &[], &[1]);
        assert_eq!(shortest_accepted(&e), None);
        assert!(is_empty(&e));
        let eps = dfa(&["a"], 1, &[], &[0]);
        assert_eq!(shortest_accepted(&eps), Some(vec![]));
    }

    #[test]
    fn shortest_words_come_in_length_then_letter_order() {
        // f* assert over {f, assert}.
        let d = dfa(&["f", "assert"], 2, &[(0, "f", 0), (0, "assert", 1)], &[1]);
        assert_eq!(
            shortest_words(&d, 10, 3),
            [vec![1], vec![0, 1], vec![0, 0, 1]]
        );
        assert_eq!(shortest_words(&d, 1, 3), [vec![1]]);
        assert!(shortest_words(&d, 10, 0).is_empty());
        let empty = dfa(&["f", "assert"], 1, &[], &[]);
        assert!(shortest_words(&empty, 10, 3).is_empty());
        // 50 letters, any word: the first three never enumerate a whole length.
        let names: Vec<String> = (0..50).map(|i| format!("f{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let edges: Vec<(StateId, &str, StateId)> = names.iter().map(|&n| (0, n, 0)).collect();
        let any = dfa(&names, 1, &edges, &[0]);
        assert_eq!(shortest_words(&any, 5, 3), [vec![], vec![0], vec![1]]);
        assert_eq!(shortest_words(&any, 1_000, 52)[51], [0, 0]);
    }

    #[test]
    fn witnesses_use_the_union_alphabet() {
        let a = dfa(&["f", "end"], 2, &[(0, "f", 0), (0, "end", 1)], &[1]);
        let b = dfa(&["g", "end"], 2, &[(0, "g", 0), (0, "end", 1)], &[1]);
        assert_eq!(
            inclusion_witness(&a, &b),
            Some(vec!["f".into(), "end".into()])
        );
        assert_eq!(inclusion_witness(&a, &a), None);
        assert_eq!(
            equivalence_witness(&b, &a),
            Some(Witness {
                word: vec!["g".into(), "end".into()],
                accepted_by: Side::Left
            })
        );
        assert_eq!(
            equivalence_witness(&a, &b).map(|w| w.accepted_by),
            Some(Side::Left)
        );
        let eps = dfa(&["x"], 1, &[], &[0]);
        assert_eq!(
            equivalence_witness(&a, &eps),
            Some(Witness {
                word: vec![],
                accepted_by: Side::Right
            })
        );
        assert_eq!(
            equivalence_witness(&a, &a.extend_alphabet(&a.alphabet().union(b.alphabet()))),
            None
        );
    }

    #[test]
    fn words_and_counts() {
        // (a | b)* c over a, b, c.
        let d = dfa(
            &["a", "b", "c"],
            2,
            &[(0, "a", 0), (0, "b", 0), (0, "c", 1)],
            &[1],
        );
        let words = words_up_to(&d, 2, 100).unwrap();
        assert_eq!(words, [vec![2], vec![0, 2], vec![1, 2]]);
        assert_eq!(count_by_length(&d, 4), [0, 1, 2, 4, 8]);
        assert_eq!(count_up_to(&d, 4), Some(15));
        match words_up_to(&d, 4, 14) {
            Err(AutomatonError::TooManyWords { count, limit, .. }) => {
                assert_eq!((count.as_str(), limit), ("15", 14));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(words_up_to(&d, 0, 0).unwrap(), Vec::<Word>::new());
    }

    #[test]
    fn counts_overflow_exactly() {
        // All words over 64 letters: 64^n words of length n; 64^21 = 2^126 fits, the sum
        // up to 21 fits, up to 22 it does not.
        let names: Vec<String> = (0..64).map(|i| format!("l{i}")).collect();
        let alphabet = Alphabet::from_names(&names);
        let mut d = Dfa::with_states(alphabet, 1);
        for a in 0..64 {
            d.set_transition(0, a, 0);
        }
        d.set_accepting(0, true);
        assert_eq!(count_by_length(&d, 21)[21], 1u128 << 126);
        assert!(count_up_to(&d, 21).is_some());
        assert_eq!(count_up_to(&d, 22), None);
        assert_eq!(count_by_length(&d, 22)[22], u128::MAX);
        match words_up_to(&d, 30, 10) {
            Err(AutomatonError::TooManyWords { count, .. }) => {
                assert_eq!(count, format!("more than {}", u128::MAX));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn counts_ignore_dead_branches() {
        // A huge dead loop must not make the count overflow.
        let names: Vec<String> = (0..64).map(|i| format!("l{i}")).collect();
        let alphabet = Alphabet::from_names(&names);
        let mut d = Dfa::with_states(alphabet, 3);
        for a in 0..64 {
            d.set_transition(1, a, 1);
        }
        d.set_transition(0, 0, 1);
        d.set_transition(0, 1, 2);
        d.set_accepting(2, true);
        assert_eq!(count_up_to(&d, 100), Some(1));
        assert_eq!(words_up_to(&d, 100, 1).unwrap(), [vec![1]]);
    }

    #[test]
    fn dominating_letters_are_in_every_word() {
        // f (g | h) end: f and end dominate, g and h do not.
        let d = dfa(
            &["f", "g", "h", "end"],
            4,
            &[(0, "f", 1), (1, "g", 2), (1, "h", 2), (2, "end", 3)],
            &[3],
        );
        assert_eq!(dominating_letters(&d), [0, 3]);
        assert_eq!(
            dominating_letters(&dfa(&["f"], 1, &[], &[])),
            Vec::<Letter>::new()
        );
        assert_eq!(
            dominating_letters(&dfa(&["f"], 1, &[], &[0])),
            Vec::<Letter>::new()
        );
    }

    #[test]
    fn doomed_states_cannot_avoid_acceptance() {
        // 0 -f-> 1 -g-> 2 (accepting); 1 -h-> 3 (dead); 0 -x-> 4 -x-> 0 loop, 4 -f-> 1.
        let d = dfa(
            &["f", "g", "h", "x"],
            5,
            &[
                (0, "f", 1),
                (1, "g", 2),
                (1, "h", 3),
                (0, "x", 4),
                (4, "x", 0),
                (4, "f", 1),
            ],
            &[2],
        );
        // 1's only useful edge leads to 2; 4 and 0 can loop forever.
        assert_eq!(doomed_states(&d), [1]);
        // A non-accepting cycle is never doomed, even if it must eventually be left.
        let cyc = dfa(
            &["a", "b"],
            3,
            &[(0, "a", 1), (1, "a", 0), (1, "b", 2)],
            &[2],
        );
        assert_eq!(doomed_states(&cyc), Vec::<StateId>::new());
        // Chains are doomed transitively; two letters into the same state count twice.
        let chain = dfa(
            &["a", "b"],
            3,
            &[(0, "a", 1), (0, "b", 1), (1, "a", 2)],
            &[2],
        );
        assert_eq!(doomed_states(&chain), [0, 1]);
    }

    #[test]
    fn back_edges_leave_accepting_useful_states() {
        let d = dfa(
            &["a", "b"],
            4,
            &[
                (0, "a", 1),
                (1, "a", 0),
                (1, "b", 3),
                (0, "b", 1),
                (2, "a", 1),
            ],
            &[1],
        );
        assert_eq!(back_edges(&d), [(1, 0, 0)]);
    }
}
