//! The heuristic: blue-fringe state merging, in the style of RPNI (Oncina and García,
//! *Inferring regular languages in polynomial updated time*, 1992) and of EDSM (Lang,
//! Pearlmutter and Price, *Results of the Abbadingo One DFA learning competition and a new
//! evidence-driven state merging algorithm*, ICGI 1998).
//!
//! Both classic algorithms start from the prefix tree of the sample; here the start is any
//! automaton already consistent with the sample (the prefix tree of yes, [`prefix_tree`],
//! the minimal DFA of yes, or that of the complement of no), so every step keeps a
//! consistent automaton and the result is never larger than the start. The *red* states are settled; the *blue* ones are the successors
//! of red states that are not red. A step tries to merge a blue state into a red one (with
//! the determinising fold: the successors of merged states on the same letter are merged
//! too) and keeps the merge when [`Sample::consistent`] accepts the result. A blue state
//! that merges with no red state becomes red. On small automata every (red, blue) pair is
//! tried and the merge that folds most states wins (EDSM's evidence, counted in merged
//! states); on larger ones the first consistent merge of the first blue state is taken, as
//! RPNI does.

use std::time::Instant;

use super::sample::{Hypothesis, Sample};
use crate::automaton::dfa::{Alphabet, Dfa, Letter, NO_STATE, StateId};
use crate::automaton::ops::minimize;

/// Up to this many states, every (red, blue) pair is scored before a merge is chosen.
const EXHAUSTIVE_LIMIT: usize = 64;

/// The largest prefix tree merged from: a few thousand states merge in well under a second.
pub(crate) const PREFIX_TREE_LIMIT: usize = 5000;

/// The prefix tree of a finite language given by a trimmed automaton (as [`minimize`]
/// leaves it): one state per prefix of its words, breadth first. `None` when the language
/// is infinite or has more than `limit` prefixes.
///
/// Starting from the tree matters: every automaton that accepts the yes words, restricted
/// to the edges their runs take, is a quotient of it, so the optimum is within reach of
/// merging; a minimal DFA has already merged prefixes that the optimum may keep apart.
pub(crate) fn prefix_tree(d: &Dfa, limit: usize) -> Option<Dfa> {
    let mut tree = Dfa::with_states(d.alphabet().clone(), 1);
    tree.set_accepting(0, d.is_accepting(d.initial()));
    let mut queue = vec![(d.initial(), 0)];
    let mut next = 0;
    while next < queue.len() {
        let (q, t) = queue[next];
        next += 1;
        for (a, &to) in d.row(q).iter().enumerate() {
            if to == NO_STATE {
                continue;
            }
            // A cycle makes the tree grow past any limit, so this also ends infinite ones.
            if tree.num_states() >= limit {
                return None;
            }
            let child = tree.add_state(d.is_accepting(to));
            tree.set_transition(t, a as Letter, child);
            queue.push((to, child));
        }
    }
    Some(tree)
}

/// A consistent automaton no larger than `start`, which must be consistent with `sample`
/// and over its alphabet; merging stops early, with what it has, at `deadline`.
pub(crate) fn merge(start: &Dfa, sample: &Sample, deadline: Instant) -> Dfa {
    let mut q = Quotient::new(start);
    let mut red = vec![q.find(start.initial())];
    let exhaustive = start.num_states() <= EXHAUSTIVE_LIMIT;
    // The run's stop request and time budget ([`crate::stop`]) end merging as the deadline does.
    while Instant::now() < deadline && crate::stop::stop_reason().is_none() {
        let blue = q.fringe(&red);
        if blue.is_empty() {
            break;
        }
        match step(&mut q, &red, &blue, sample, exhaustive, deadline) {
            Step::Promote(b) => red.push(b),
            Step::Merge(r, b) => {
                q.merge(r, b);
                q.log.clear();
                // A fold may merge two red states with each other: keep each class once.
                let mut roots: Vec<StateId> = Vec::with_capacity(red.len());
                for r in red {
                    let root = q.find(r);
                    if !roots.contains(&root) {
                        roots.push(root);
                    }
                }
                red = roots;
            }
            Step::OutOfTime => break,
        }
    }
    minimize(&q.to_dfa(sample.alphabet()))
}

enum Step {
    Promote(StateId),
    /// Merge this blue state into this red one.
    Merge(StateId, StateId),
    OutOfTime,
}

/// The next step of the blue-fringe loop: the best consistent merge, or the first blue
/// state that merges with no red state. Every merge tried is undone before returning.
fn step(
    q: &mut Quotient,
    red: &[StateId],
    blue: &[StateId],
    sample: &Sample,
    exhaustive: bool,
    deadline: Instant,
) -> Step {
    let mut best: Option<(usize, StateId, StateId)> = None;
    for &b in blue {
        let mut mergeable = false;
        for &r in red {
            if Instant::now() >= deadline || crate::stop::stop_reason().is_some() {
                return Step::OutOfTime;
            }
            let score = q.merge(r, b);
            let consistent = sample.consistent(&*q);
            q.undo();
            if !consistent {
                continue;
            }
            if !exhaustive {
                return Step::Merge(r, b);
            }
            mergeable = true;
            if best.is_none_or(|(s, _, _)| score > s) {
                best = Some((score, r, b));
            }
        }
        if !mergeable {
            return Step::Promote(b);
        }
    }
    match best {
        Some((_, r, b)) => Step::Merge(r, b),
        None => Step::OutOfTime,
    }
}

/// One change to a [`Quotient`], for undoing a merge that was only tried.
enum Change {
    Parent(StateId),
    Next(usize, StateId),
    Accepting(StateId, bool),
}

/// A partition of a DFA's states (union-find), with the merged transitions of each class.
/// Trying a merge logs its changes, so that rejecting it costs what the merge did rather
/// than a copy of the whole table.
struct Quotient {
    k: usize,
    initial: StateId,
    parent: Vec<StateId>,
    /// The row of a class's root is the class's row; a target is any member of its class.
    next: Vec<StateId>,
    accepting: Vec<bool>,
    log: Vec<Change>,
}

impl Quotient {
    fn new(d: &Dfa) -> Quotient {
        Quotient {
            k: d.alphabet().len(),
            initial: d.initial(),
            parent: d.states().collect(),
            next: d.table().to_vec(),
            accepting: d.acceptance().to_vec(),
            log: Vec::new(),
        }
    }

    fn find(&self, mut q: StateId) -> StateId {
        while self.parent[q as usize] != q {
            q = self.parent[q as usize];
        }
        q
    }

    /// Merges the class of `b` into the class of `keep`, then folds: successors on the same
    /// letter are merged in turn, so the quotient stays deterministic. A merged class
    /// accepts when either part did. Returns how many pairs of classes were merged.
    fn merge(&mut self, keep: StateId, b: StateId) -> usize {
        let k = self.k;
        let mut merged = 0;
        let mut pending = vec![(keep, b)];
        while let Some((x, y)) = pending.pop() {
            let (x, y) = (self.find(x), self.find(y));
            if x == y {
                continue;
            }
            self.log.push(Change::Parent(y));
            self.parent[y as usize] = x;
            merged += 1;
            if !self.accepting[x as usize] && self.accepting[y as usize] {
                self.log.push(Change::Accepting(x, false));
                self.accepting[x as usize] = true;
            }
            let (xs, ys) = (x as usize * k, y as usize * k);
            for a in 0..k {
                let ty = self.next[ys + a];
                if ty == NO_STATE {
                    continue;
                }
                match self.next[xs + a] {
                    NO_STATE => {
                        self.log.push(Change::Next(xs + a, NO_STATE));
                        self.next[xs + a] = ty;
                    }
                    tx => pending.push((tx, ty)),
                }
            }
        }
        merged
    }

    /// Undoes every change since the log was last cleared.
    fn undo(&mut self) {
        while let Some(change) = self.log.pop() {
            match change {
                Change::Parent(y) => self.parent[y as usize] = y,
                Change::Next(cell, old) => self.next[cell] = old,
                Change::Accepting(x, old) => self.accepting[x as usize] = old,
            }
        }
    }

    /// The classes one edge away from a red class that are not red, in breadth-first order.
    fn fringe(&self, red: &[StateId]) -> Vec<StateId> {
        let mut blue = Vec::new();
        for &r in red {
            let row = &self.next[r as usize * self.k..(r as usize + 1) * self.k];
            for &to in row.iter().filter(|&&to| to != NO_STATE) {
                let c = self.find(to);
                if !red.contains(&c) && !blue.contains(&c) {
                    blue.push(c);
                }
            }
        }
        blue
    }

    /// The quotient automaton: its classes reachable from the initial one, breadth first.
    fn to_dfa(&self, alphabet: &Alphabet) -> Dfa {
        let k = self.k;
        let mut number = vec![NO_STATE; self.parent.len()];
        let start = self.find(self.initial);
        number[start as usize] = 0;
        let mut order = vec![start];
        let mut delta = Vec::new();
        let mut next = 0;
        while next < order.len() {
            let c = order[next] as usize;
            next += 1;
            for a in 0..k {
                let to = self.next[c * k + a];
                if to == NO_STATE {
                    delta.push(NO_STATE);
                    continue;
                }
                let t = self.find(to);
                if number[t as usize] == NO_STATE {
                    number[t as usize] = order.len() as StateId;
                    order.push(t);
                }
                delta.push(number[t as usize]);
            }
        }
        let accepting = order.iter().map(|&c| self.accepting[c as usize]).collect();
        Dfa::from_parts(alphabet.clone(), 0, accepting, delta)
    }
}

/// The quotient runs as the automaton [`Quotient::to_dfa`] would build, class by class,
/// so a merge is checked without building it.
impl Hypothesis for Quotient {
    fn start(&self) -> StateId {
        self.find(self.initial)
    }

    fn step(&self, state: StateId, letter: Letter) -> Option<StateId> {
        let to = self.next[state as usize * self.k + letter as usize];
        (to != NO_STATE).then(|| self.find(to))
    }

    fn accepts(&self, state: StateId) -> bool {
        self.accepting[state as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::dfa::from_edges as dfa;
    use std::time::Duration;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn folds_a_chain_into_a_loop() {
        // yes: f^k end for k <= 3; no: every other word of length <= 4 over {f, end}.
        let names = ["f", "end"];
        let mut yes = dfa(&names, 6, &[(0, "f", 1), (1, "f", 2), (2, "f", 3)], &[5]);
        for q in 0..4 {
            yes.set_transition(q, 1, 5);
        }
        let no = crate::automaton::ops::difference(
            &crate::automaton::ops::bound_length(
                &dfa(&names, 1, &[(0, "f", 0), (0, "end", 0)], &[0]),
                4,
            ),
            &yes,
        );
        let sample = Sample::build(&yes, &no).unwrap();
        let start = minimize(&yes);
        let result = merge(&start, &sample, later());
        assert!(sample.consistent(&result));
        assert_eq!(result.num_states(), 2, "{result:?}");
        assert!(result.accepts_names(&["f", "f", "f", "f", "f", "end"]));
    }

    #[test]
    fn a_past_deadline_returns_the_start() {
        let yes = dfa(&["a"], 3, &[(0, "a", 1), (1, "a", 2)], &[0, 2]);
        let no = dfa(&["a"], 2, &[(0, "a", 1)], &[1]);
        let sample = Sample::build(&yes, &no).unwrap();
        let start = minimize(&yes);
        assert_eq!(merge(&start, &sample, Instant::now()), start);
        // With time, "even length" (2 states) is found: it accepts ε and a a, rejects a.
        let merged = merge(&start, &sample, later());
        assert!(sample.consistent(&merged));
        assert_eq!(merged.num_states(), 2);
    }

    #[test]
    fn folding_keeps_the_quotient_deterministic() {
        // 0 -a-> 1 -a-> 2, 0 -b-> 3 -a-> 4: merging 1 and 3 folds 2 and 4 together.
        let d = dfa(
            &["a", "b"],
            5,
            &[(0, "a", 1), (1, "a", 2), (0, "b", 3), (3, "a", 4)],
            &[2, 4],
        );
        let mut q = Quotient::new(&d);
        let before = q.to_dfa(d.alphabet());
        assert_eq!(q.merge(1, 3), 2);
        let m = q.to_dfa(d.alphabet());
        assert_eq!(m.num_states(), 3);
        assert!(m.accepts_names(&["b", "a"]) && m.accepts_names(&["a", "a"]));
        q.undo();
        assert_eq!(q.to_dfa(d.alphabet()), before);
    }
}
