//! The algebra of automata: complement, Boolean products, trimming and minimisation.
//!
//! Every operation takes [`Dfa`]s with partial transition functions and returns one; a
//! missing edge always means "the run falls into the implicit rejecting sink".
//!
//! * [`complement`] completes the automaton (adds the sink only when an edge is missing)
//!   and flips acceptance.
//! * [`product`] builds the reachable part of the synchronous product over the *union* of
//!   the two alphabets, for any [`BoolOp`]. A letter one side lacks sends that side to its
//!   sink, which is kept as a component of the pair; the pair (sink, sink) rejects for every
//!   operation and is never built, so the product stays partial too. [`intersection`],
//!   [`union`], [`difference`] and [`symmetric_difference`] are the product followed by
//!   [`minimize`].
//! * [`trim`] is the paper's "removing the sink state" (Chockler, Kesseli, Kroening and
//!   Strichman, *Learning the Language of Software Errors*, JAIR 2020, Sec. 7.2): only the
//!   states that are reachable and can still reach acceptance are kept.
//! * [`minimize`] is Hopcroft's partition refinement (J. E. Hopcroft, *An n log n algorithm
//!   for minimizing states in a finite automaton*, 1971), run on the reachable part made
//!   complete by one explicit sink state, followed by a canonical renumbering. Its result is
//!   the unique minimal trimmed partial DFA of the language, so equivalent automata over the
//!   same alphabet minimise to equal values.
//!
//! Cost: the product is linear in the number of reachable pairs times the letters; the
//! minimisation is `O(k n log n)` for `n` states and `k` letters. Both avoid the standard
//! hash map on their inner loops (a hand-written pair table); `benches/README.md` has
//! measurements.

use std::borrow::Cow;

use super::dfa::{Alphabet, Dfa, Letter, NO_STATE, StateId, Word};
use super::pairs::{PairMap, letter_map, pair_key, step};

/// The language of words over `d`'s alphabet that `d` rejects.
pub fn complement(d: &Dfa) -> Dfa {
    let n = d.num_states();
    let k = d.alphabet().len();
    let needs_sink = d.table().contains(&NO_STATE);
    let total = n + usize::from(needs_sink);
    let sink = n as StateId;
    let mut delta = Vec::with_capacity(total * k);
    delta.extend(
        d.table()
            .iter()
            .map(|&to| if to == NO_STATE { sink } else { to }),
    );
    let mut accepting: Vec<bool> = d.acceptance().iter().map(|&acc| !acc).collect();
    if needs_sink {
        // The sink rejected everything, so in the complement it accepts everything.
        delta.extend(std::iter::repeat_n(sink, k));
        accepting.push(true);
    }
    Dfa::from_parts(d.alphabet().clone(), d.initial(), accepting, delta)
}

/// A Boolean operation on two languages, for [`product`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    /// Words both accept.
    Intersection,
    /// Words either accepts.
    Union,
    /// Words the left one accepts and the right one rejects.
    Difference,
    /// Words exactly one of them accepts.
    SymmetricDifference,
}

impl BoolOp {
    #[inline]
    fn apply(self, left: bool, right: bool) -> bool {
        match self {
            BoolOp::Intersection => left && right,
            BoolOp::Union => left || right,
            BoolOp::Difference => left && !right,
            BoolOp::SymmetricDifference => left != right,
        }
    }
}

/// The reachable synchronous product of `a` and `b` over `a.alphabet().union(b.alphabet())`,
/// accepting by `op`; not minimised. State 0 is the pair of initial states; the states are
/// numbered in breadth-first order. Difference is `L(a) \ L(b)`.
pub fn product(a: &Dfa, b: &Dfa, op: BoolOp) -> Dfa {
    let alphabet = a.alphabet().union(b.alphabet());
    let k = alphabet.len();
    let b_letter = letter_map(&alphabet, b.alphabet());
    let estimate = a.num_states().max(b.num_states());
    let mut index = PairMap::with_capacity(estimate);
    let mut pairs: Vec<(StateId, StateId)> = Vec::with_capacity(estimate);
    let mut delta: Vec<StateId> = Vec::with_capacity(estimate * k);
    let mut accepting: Vec<bool> = Vec::with_capacity(estimate);

    let start = (a.initial(), b.initial());
    index.get_or_insert(pair_key(start.0, start.1), 0);
    pairs.push(start);
    // The pairs are numbered in discovery order, so `pairs` doubles as the BFS queue.
    let mut next = 0;
    while next < pairs.len() {
        let (p, q) = pairs[next];
        next += 1;
        accepting.push(op.apply(
            p != NO_STATE && a.is_accepting(p),
            q != NO_STATE && b.is_accepting(q),
        ));
        for (letter, &lb) in b_letter.iter().enumerate() {
            let p2 = step(a, p, letter as Letter);
            let q2 = step(b, q, lb);
            if p2 == NO_STATE && q2 == NO_STATE {
                delta.push(NO_STATE);
                continue;
            }
            let fresh = StateId::try_from(pairs.len())
                .ok()
                .filter(|&id| id != NO_STATE)
                .expect("product of more than 2^32 - 1 states");
            let (id, new) = index.get_or_insert(pair_key(p2, q2), fresh);
            if new {
                pairs.push((p2, q2));
            }
            delta.push(id);
        }
    }
    Dfa::from_parts(alphabet, 0, accepting, delta)
}

/// The minimal automaton of `L(a) ∩ L(b)` over the union alphabet.
pub fn intersection(a: &Dfa, b: &Dfa) -> Dfa {
    minimize(&product(a, b, BoolOp::Intersection))
}

/// The minimal automaton of `L(a) ∪ L(b)` over the union alphabet.
pub fn union(a: &Dfa, b: &Dfa) -> Dfa {
    minimize(&product(a, b, BoolOp::Union))
}

/// The minimal automaton of `L(a) \ L(b)` over the union alphabet.
pub fn difference(a: &Dfa, b: &Dfa) -> Dfa {
    minimize(&product(a, b, BoolOp::Difference))
}

/// The minimal automaton of the words exactly one of `a` and `b` accepts.
pub fn symmetric_difference(a: &Dfa, b: &Dfa) -> Dfa {
    minimize(&product(a, b, BoolOp::SymmetricDifference))
}

/// The automaton accepting exactly `words`: their prefix tree (not minimised). A word
/// with a letter outside `alphabet` is skipped.
pub fn from_words(alphabet: &Alphabet, words: &[Word]) -> Dfa {
    let mut d = Dfa::new(alphabet.clone());
    for word in words {
        if word.iter().any(|&a| a as usize >= alphabet.len()) {
            continue;
        }
        let mut q = d.initial();
        for &a in word {
            q = match d.next(q, a) {
                Some(to) => to,
                None => {
                    let to = d.add_state(false);
                    d.set_transition(q, a, to);
                    to
                }
            };
        }
        d.set_accepting(q, true);
    }
    d
}

/// The same language with only the useful states: reachable from the initial state and able
/// to reach an accepting one (the paper's sink removal, Sec. 7.2). The initial state is kept
/// even when it is useless (the empty language) and becomes state 0; the other states keep
/// their relative order, so the result reads like the input.
pub fn trim(d: &Dfa) -> Dfa {
    let useful = super::analysis::useful_states(d);
    let mut order: Vec<StateId> = Vec::with_capacity(d.num_states());
    order.push(d.initial());
    order.extend(
        d.states()
            .filter(|&q| useful[q as usize] && q != d.initial()),
    );
    // Only useful targets are renumbered: a useless initial state is kept for its own sake,
    // and an edge into it (or anywhere else useless) becomes a missing edge.
    let mut renumber = vec![NO_STATE; d.num_states()];
    for (new, &old) in order.iter().enumerate() {
        if useful[old as usize] {
            renumber[old as usize] = new as StateId;
        }
    }
    let k = d.alphabet().len();
    let mut delta = Vec::with_capacity(order.len() * k);
    let mut accepting = Vec::with_capacity(order.len());
    for &old in &order {
        accepting.push(d.is_accepting(old));
        // A dropped target can never lead to acceptance, so the sink replaces it.
        delta.extend(d.row(old).iter().map(|&to| {
            if to == NO_STATE {
                NO_STATE
            } else {
                renumber[to as usize]
            }
        }));
    }
    Dfa::from_parts(d.alphabet().clone(), 0, accepting, delta)
}

/// The minimal automaton of the words of `L(d)` with at most `max_length` letters.
///
/// When `d`'s words are no longer than that already, this is just [`minimize`]; otherwise
/// `d` is unrolled layer by layer, a copy of the reachable states per length, so the result
/// has at most `(max_length + 1)` times `d`'s states before minimisation: a caller with a
/// large bound on an automaton with cycles checks that size first.
pub fn bound_length(d: &Dfa, max_length: usize) -> Dfa {
    let m = minimize(d);
    if longest_word(&m).is_some_and(|longest| longest <= max_length) {
        return m;
    }
    let k = m.alphabet().len();
    let mut accepting = vec![m.is_accepting(m.initial())];
    let mut delta: Vec<StateId> = Vec::new();
    // `layer` holds the (state of `m`, state of the result) pairs of words of one length;
    // `slot` numbers the next layer's states, so each state of `m` appears once per layer.
    let mut layer = vec![(m.initial(), 0 as StateId)];
    let mut slot = vec![NO_STATE; m.num_states()];
    for length in 0..=max_length {
        let mut next = Vec::new();
        for &(q, _) in &layer {
            for &to in m.row(q) {
                let target = if to == NO_STATE || length == max_length {
                    NO_STATE
                } else if slot[to as usize] != NO_STATE {
                    slot[to as usize]
                } else {
                    let id = accepting.len() as StateId;
                    accepting.push(m.is_accepting(to));
                    slot[to as usize] = id;
                    next.push((to, id));
                    id
                };
                delta.push(target);
            }
        }
        for &(q, _) in &next {
            slot[q as usize] = NO_STATE;
        }
        layer = next;
    }
    debug_assert_eq!(delta.len(), accepting.len() * k);
    minimize(&Dfa::from_parts(m.alphabet().clone(), 0, accepting, delta))
}

/// Whether `L(d)` is finite.
pub fn is_finite(d: &Dfa) -> bool {
    longest_word(&minimize(d)).is_some()
}

/// The length of the longest word of a trimmed automaton (every state useful, as
/// [`minimize`] leaves it), `None` when it has a cycle and so words of every length.
fn longest_word(d: &Dfa) -> Option<usize> {
    // Kahn's order: a state's longest path to it is final once all its predecessors are.
    let n = d.num_states();
    let mut indegree = vec![0usize; n];
    for (_, _, to) in d.transitions() {
        indegree[to as usize] += 1;
    }
    let mut ready: Vec<StateId> = d.states().filter(|&q| indegree[q as usize] == 0).collect();
    let mut depth = vec![0usize; n];
    let mut done = 0;
    while let Some(q) = ready.pop() {
        done += 1;
        for &to in d.row(q).iter().filter(|&&to| to != NO_STATE) {
            depth[to as usize] = depth[to as usize].max(depth[q as usize] + 1);
            indegree[to as usize] -= 1;
            if indegree[to as usize] == 0 {
                ready.push(to);
            }
        }
    }
    (done == n).then(|| depth.into_iter().max().unwrap_or(0))
}

/// The minimal trimmed partial DFA of `L(d)` over `d`'s alphabet.
///
/// The states are numbered canonically: breadth-first from the initial state (0), the
/// successors of a state taken in letter order. Two automata over the same alphabet with
/// the same language therefore minimise to equal (`==`) values. The empty language gives a
/// single rejecting initial state without transitions.
pub fn minimize(d: &Dfa) -> Dfa {
    let k = d.alphabet().len();
    let reachable = reachable_part(d);
    let (n, initial, delta, accepting) = (
        reachable.accepting.len(),
        reachable.initial,
        &reachable.delta[..],
        &reachable.accepting[..],
    );
    let block = hopcroft(n, k, delta, accepting);
    // The explicit sink (state n) shares its block with every state whose language is empty.
    let dead = block.class[n];
    if block.class[initial as usize] == dead {
        return Dfa::new(d.alphabet().clone());
    }

    // Canonical numbering: breadth-first over the blocks, letters in order.
    let mut number = vec![NO_STATE; block.count];
    let mut queue: Vec<u32> = Vec::with_capacity(block.count);
    let start = block.class[initial as usize];
    number[start as usize] = 0;
    queue.push(start);
    let mut out_delta: Vec<StateId> = Vec::with_capacity(block.count * k);
    let mut out_accepting = Vec::with_capacity(block.count);
    let mut next = 0;
    while next < queue.len() {
        let b = queue[next];
        next += 1;
        let rep = block.representative[b as usize] as usize;
        out_accepting.push(accepting[rep]);
        for &to in &delta[rep * k..(rep + 1) * k] {
            let target = if to == NO_STATE {
                dead
            } else {
                block.class[to as usize]
            };
            if target == dead {
                out_delta.push(NO_STATE);
                continue;
            }
            if number[target as usize] == NO_STATE {
                number[target as usize] = queue.len() as StateId;
                queue.push(target);
            }
            out_delta.push(number[target as usize]);
        }
    }
    Dfa::from_parts(d.alphabet().clone(), 0, out_accepting, out_delta)
}

/// The reachable part of an automaton as raw tables, borrowed when every state is reachable
/// (the usual case, which then costs one traversal and no copy).
struct RawPart<'a> {
    initial: StateId,
    delta: Cow<'a, [StateId]>,
    accepting: Cow<'a, [bool]>,
}

fn reachable_part(d: &Dfa) -> RawPart<'_> {
    let reachable = super::analysis::reachable_states(d);
    if reachable.iter().all(|&r| r) {
        return RawPart {
            initial: d.initial(),
            delta: Cow::Borrowed(d.table()),
            accepting: Cow::Borrowed(d.acceptance()),
        };
    }
    let mut renumber = vec![NO_STATE; d.num_states()];
    let mut count = 0;
    for q in d.states().filter(|&q| reachable[q as usize]) {
        renumber[q as usize] = count;
        count += 1;
    }
    let mut delta = Vec::with_capacity(count as usize * d.alphabet().len());
    let mut accepting = Vec::with_capacity(count as usize);
    for q in d.states().filter(|&q| reachable[q as usize]) {
        accepting.push(d.is_accepting(q));
        delta.extend(d.row(q).iter().map(|&to| {
            if to == NO_STATE {
                NO_STATE
            } else {
                renumber[to as usize]
            }
        }));
    }
    RawPart {
        initial: renumber[d.initial() as usize],
        delta: Cow::Owned(delta),
        accepting: Cow::Owned(accepting),
    }
}

/// The coarsest partition of the states by language.
struct Blocks {
    /// The block of each state, the sink (state `n`) included.
    class: Vec<u32>,
    /// A state of each block.
    representative: Vec<u32>,
    count: usize,
}

/// Hopcroft's algorithm on the `n` states of `delta` completed by a sink, state `n`, that
/// takes every missing edge and loops on every letter.
///
/// The worklist holds blocks, each standing for all `k` (block, letter) splitters at once:
/// a splitter block is processed for every letter, and when a block splits only the smaller
/// half is queued (unless the block was queued already, in which case both halves are).
/// Since the letters of a block are always queued and processed together, this keeps
/// Hopcroft's invariant, and every state is in at most `log2 n + 1` processed splitters.
fn hopcroft(n: usize, k: usize, delta: &[StateId], accepting: &[bool]) -> Blocks {
    let total = n + 1;
    let sink = n as u32;
    let target = |q: usize, a: usize| -> u32 {
        if q == n {
            return sink;
        }
        let to = delta[q * k + a];
        if to == NO_STATE { sink } else { to }
    };

    // Inverse transitions as a CSR indexed by target: the edges into q are
    // `preds[offset[q]..offset[q + 1]]` as (source, letter). Grouping by target alone keeps
    // the offsets small enough to stay in cache while the table is built, and the splitter
    // loop below sorts the edges by letter anyway. The completed automaton has exactly
    // `total * k` edges.
    let mut offset = vec![0usize; total + 1];
    for q in 0..total {
        for a in 0..k {
            offset[target(q, a) as usize + 1] += 1;
        }
    }
    for i in 1..offset.len() {
        offset[i] += offset[i - 1];
    }
    let mut preds = vec![(0u32, 0u32); total * k];
    {
        let mut cursor = offset.clone();
        for q in 0..total {
            for a in 0..k {
                let slot = &mut cursor[target(q, a) as usize];
                preds[*slot] = (q as u32, a as u32);
                *slot += 1;
            }
        }
    }

    let mut part = Partition::new(total, |q| q < n && accepting[q]);
    let mut worklist: Vec<u32> = Vec::new();
    if part.count == 2 {
        worklist.push(if part.size(0) <= part.size(1) { 0 } else { 1 });
    }

    // Predecessors of the splitter, bucketed by letter.
    let mut by_letter: Vec<Vec<u32>> = vec![Vec::new(); k];
    while let Some(b) = worklist.pop() {
        // All predecessors are gathered before the first split, so every letter splits by
        // the block as it was dequeued even if it splits itself; that set is still a union
        // of blocks, so splitting by it stays sound.
        for bucket in &mut by_letter {
            bucket.clear();
        }
        for &q in part.members(b) {
            for &(p, a) in &preds[offset[q as usize]..offset[q as usize + 1]] {
                by_letter[a as usize].push(p);
            }
        }
        for bucket in &by_letter {
            for &p in bucket {
                part.mark(p);
            }
            // The new block is the smaller half. Hopcroft queues both halves of a queued
            // block and the smaller half of any other; the old id of a queued block stays
            // queued and now names its larger half, so in both cases only `new` is pushed.
            part.split_marked(|new| worklist.push(new));
        }
    }

    let representative = (0..part.count as u32).map(|b| part.members(b)[0]).collect();
    Blocks {
        class: part.block,
        representative,
        count: part.count,
    }
}

/// A partition of `0..n` into blocks stored as contiguous ranges of one permutation, with
/// per-block marking for the splits of Hopcroft's algorithm.
struct Partition {
    elems: Vec<u32>,
    pos: Vec<u32>,
    block: Vec<u32>,
    start: Vec<u32>,
    end: Vec<u32>,
    /// The marked states of a block are `start..start + marked`.
    marked: Vec<u32>,
    touched: Vec<u32>,
    count: usize,
}

impl Partition {
    /// The partition into the states with and without `first`, leaving out an empty block.
    fn new(n: usize, first: impl Fn(usize) -> bool) -> Partition {
        let mut elems: Vec<u32> = (0..n as u32).filter(|&q| first(q as usize)).collect();
        let split = elems.len();
        elems.extend((0..n as u32).filter(|&q| !first(q as usize)));
        let mut pos = vec![0u32; n];
        for (i, &q) in elems.iter().enumerate() {
            pos[q as usize] = i as u32;
        }
        let mut block = vec![0u32; n];
        let (mut start, mut end) = (Vec::new(), Vec::new());
        for (lo, hi) in [(0, split), (split, n)] {
            if lo < hi {
                let b = start.len() as u32;
                for &q in &elems[lo..hi] {
                    block[q as usize] = b;
                }
                start.push(lo as u32);
                end.push(hi as u32);
            }
        }
        let count = start.len();
        Partition {
            elems,
            pos,
            block,
            start,
            end,
            marked: vec![0; count],
            touched: Vec::new(),
            count,
        }
    }

    fn size(&self, b: u32) -> usize {
        (self.end[b as usize] - self.start[b as usize]) as usize
    }

    fn members(&self, b: u32) -> &[u32] {
        &self.elems[self.start[b as usize] as usize..self.end[b as usize] as usize]
    }

    #[inline]
    fn mark(&mut self, q: u32) {
        let b = self.block[q as usize] as usize;
        let i = self.pos[q as usize];
        let m = self.start[b] + self.marked[b];
        if i < m {
            return;
        }
        // Swap q to the end of the marked prefix of its block.
        let other = self.elems[m as usize];
        self.elems[m as usize] = q;
        self.elems[i as usize] = other;
        self.pos[q as usize] = m;
        self.pos[other as usize] = i;
        if self.marked[b] == 0 {
            self.touched.push(b as u32);
        }
        self.marked[b] += 1;
    }

    /// Splits every block with marked and unmarked states; the smaller half becomes a new
    /// block (relabelling only it keeps the `n log n` bound) and is passed to `on_split`.
    fn split_marked(&mut self, mut on_split: impl FnMut(u32)) {
        while let Some(b) = self.touched.pop() {
            let bi = b as usize;
            let marked = self.marked[bi];
            self.marked[bi] = 0;
            let (lo, hi) = (self.start[bi], self.end[bi]);
            if marked == hi - lo {
                continue;
            }
            let mid = lo + marked;
            let new = self.count as u32;
            let (new_lo, new_hi) = if marked <= hi - mid {
                self.start[bi] = mid;
                (lo, mid)
            } else {
                self.end[bi] = mid;
                (mid, hi)
            };
            self.start.push(new_lo);
            self.end.push(new_hi);
            self.marked.push(0);
            self.count += 1;
            for &q in &self.elems[new_lo as usize..new_hi as usize] {
                self.block[q as usize] = new;
            }
            on_split(new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::automaton::dfa::from_edges as dfa;

    #[test]
    fn complement_adds_an_accepting_sink_only_when_needed() {
        let d = dfa(&["a", "b"], 2, &[(0, "a", 1)], &[1]);
        let c = complement(&d);
        assert_eq!(c.num_states(), 3);
        assert!(!c.accepts_names(&["a"]));
        assert!(c.accepts_names::<&str>(&[]));
        assert!(c.accepts_names(&["b"]));
        assert!(c.accepts_names(&["a", "a", "b"]));
        let full = dfa(&["a"], 1, &[(0, "a", 0)], &[0]);
        let c = complement(&full);
        assert_eq!(c.num_states(), 1);
        assert!(!c.accepts_names(&["a", "a"]));
    }

    #[test]
    fn product_over_different_alphabets_sends_missing_letters_to_the_sink() {
        // a: (f)* end ; b: f* g? end — letters f, end vs f, g, end.
        let a = dfa(&["f", "end"], 2, &[(0, "f", 0), (0, "end", 1)], &[1]);
        let b = dfa(
            &["g", "f", "end"],
            3,
            &[(0, "f", 0), (0, "g", 1), (0, "end", 2), (1, "end", 2)],
            &[2],
        );
        let p = product(&a, &b, BoolOp::Intersection);
        assert_eq!(p.alphabet().names().collect::<Vec<_>>(), ["f", "end", "g"]);
        assert!(p.accepts_names(&["f", "end"]));
        assert!(!p.accepts_names(&["g", "end"]));
        let diff = product(&b, &a, BoolOp::Difference);
        assert!(diff.accepts_names(&["g", "end"]));
        assert!(!diff.accepts_names(&["f", "f", "end"]));
        let u = product(&a, &b, BoolOp::Union);
        assert!(u.accepts_names(&["g", "end"]) && u.accepts_names(&["end"]));
        let x = product(&a, &b, BoolOp::SymmetricDifference);
        assert!(x.accepts_names(&["g", "end"]) && !x.accepts_names(&["end"]));
        // (sink, sink) is never built: "end end" leaves both in their sinks.
        assert_eq!(u.run(&u.alphabet().word(&["end", "end"]).unwrap()), None);
    }

    #[test]
    fn trim_keeps_the_initial_state_first() {
        // 0 -a-> 1 (accepting), 0 -b-> 2 (dead loop), 3 unreachable.
        let d = dfa(
            &["a", "b"],
            4,
            &[(0, "a", 1), (0, "b", 2), (2, "a", 2), (3, "a", 1)],
            &[1],
        );
        let t = trim(&d);
        assert_eq!(t.num_states(), 2);
        assert_eq!(t.num_transitions(), 1);
        assert!(t.accepts_names(&["a"]));
        let mut moved = dfa(&["a"], 2, &[(1, "a", 0)], &[0]);
        moved.set_initial(1);
        let t = trim(&moved);
        assert_eq!(t.initial(), 0);
        assert!(t.accepts_names(&["a"]) && !t.accepts_names::<&str>(&[]));
        let empty = trim(&dfa(&["a"], 2, &[(0, "a", 1)], &[]));
        assert_eq!((empty.num_states(), empty.num_transitions()), (1, 0));
    }

    #[test]
    fn minimize_merges_equivalent_states_and_is_canonical() {
        // (ab)* written with duplicated states, and again with another numbering.
        let d = dfa(
            &["a", "b"],
            4,
            &[(0, "a", 1), (1, "b", 2), (2, "a", 3), (3, "b", 0)],
            &[0, 2],
        );
        let m = minimize(&d);
        assert_eq!(m.num_states(), 2);
        assert_eq!(m.num_transitions(), 2);
        let mut e = dfa(
            &["a", "b"],
            3,
            &[(2, "a", 0), (0, "b", 1), (1, "a", 0)],
            &[1, 2],
        );
        e.set_initial(2);
        assert_eq!(minimize(&e), m);
        assert_eq!(minimize(&m), m);
    }

    #[test]
    fn minimize_of_the_empty_language_is_one_state() {
        let d = dfa(&["a"], 3, &[(0, "a", 1), (1, "a", 0)], &[2]);
        assert_eq!(minimize(&d), Dfa::new(d.alphabet().clone()));
        let no_letters = Dfa::with_states(crate::automaton::Alphabet::new(), 2);
        assert_eq!(minimize(&no_letters).num_states(), 1);
    }

    #[test]
    fn minimize_drops_dead_states_of_a_complete_automaton() {
        // a b* accepted; every other word leads to a dead loop (state 2).
        let d = dfa(
            &["a", "b"],
            3,
            &[
                (0, "a", 1),
                (0, "b", 2),
                (1, "b", 1),
                (1, "a", 2),
                (2, "a", 2),
                (2, "b", 2),
            ],
            &[1],
        );
        let m = minimize(&d);
        assert_eq!((m.num_states(), m.num_transitions()), (2, 2));
    }

    #[test]
    fn boolean_operations_minimise() {
        let a = dfa(&["x"], 2, &[(0, "x", 1), (1, "x", 0)], &[0]); // even length
        let b = dfa(&["x"], 3, &[(0, "x", 1), (1, "x", 2), (2, "x", 0)], &[0]); // length 0 mod 3
        assert_eq!(intersection(&a, &b).num_states(), 6);
        assert_eq!(union(&a, &b).num_states(), 6);
        let d = difference(&a, &a);
        assert_eq!(d, Dfa::new(a.alphabet().clone()));
        assert!(symmetric_difference(&a, &b).accepts_names(&["x", "x"]));
    }

    #[test]
    fn bound_length_keeps_the_short_words() {
        // (ab)* end: cyclic, so unrolled.
        let d = dfa(
            &["a", "b", "end"],
            3,
            &[(0, "a", 1), (1, "b", 0), (0, "end", 2)],
            &[2],
        );
        let b = bound_length(&d, 3);
        assert!(b.accepts_names(&["end"]) && b.accepts_names(&["a", "b", "end"]));
        assert!(!b.accepts_names(&["a", "b", "a", "b", "end"]));
        assert_eq!(b.num_states(), 4);
        assert_eq!(bound_length(&d, 0), Dfa::new(d.alphabet().clone()));
        // A finite language within the bound is only minimised.
        let finite = bound_length(&d, 5);
        assert_eq!(bound_length(&finite, 5), finite);
        assert_eq!(bound_length(&finite, 9), finite);
        assert!(!is_finite(&d) && is_finite(&b) && is_finite(&Dfa::new(d.alphabet().clone())));
        let eps = dfa(&["a"], 1, &[(0, "a", 0)], &[0]);
        assert_eq!(bound_length(&eps, 0).num_transitions(), 0);
        assert!(bound_length(&eps, 0).accepts_names::<&str>(&[]));
    }

    #[test]
    fn pair_map_grows_and_finds_everything() {
        let mut map = PairMap::with_capacity(1);
        for i in 0..10_000u32 {
            let (id, new) = map.get_or_insert(pair_key(i, i.wrapping_mul(7)), i);
            assert!(new && id == i);
        }
        for i in 0..10_000u32 {
            assert_eq!(
                map.get_or_insert(pair_key(i, i.wrapping_mul(7)), 0),
                (i, false)
            );
        }
        // A sink component is a valid key.
        assert!(map.get_or_insert(pair_key(NO_STATE, 3), 99).1);
    }
}
