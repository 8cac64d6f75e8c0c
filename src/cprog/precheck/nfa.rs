//! The ε-NFA the pre-checks are built in ([`Nfa`]: a function's control-flow graph, the
//! summaries embedded at its calls, and in error mode every function's copy at once) and
//! the subset construction that turns it into a [`Summary`] over only the letters it uses
//! ([`determinise`]). Apart from the construction of the languages because both pre-checks
//! share it and it is where their size limits bite.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::summary::Summary;
use crate::automaton::{Alphabet, Dfa, Letter, StateId};

/// Subset construction gives up beyond this many states and over-approximates instead.
const STATE_LIMIT: usize = 20_000;

/// An ε-NFA: the states of the control-flow graph plus those of embedded summaries.
pub(super) struct Nfa {
    pub(super) eps: Vec<Vec<u32>>,
    pub(super) edges: Vec<Vec<(Letter, u32)>>,
    pub(super) accept: Vec<bool>,
}

impl Nfa {
    pub(super) fn with_states(n: usize) -> Nfa {
        Nfa {
            eps: vec![Vec::new(); n],
            edges: vec![Vec::new(); n],
            accept: vec![false; n],
        }
    }

    pub(super) fn add_state(&mut self) -> u32 {
        self.eps.push(Vec::new());
        self.edges.push(Vec::new());
        self.accept.push(false);
        (self.accept.len() - 1) as u32
    }

    pub(super) fn len(&self) -> u32 {
        self.accept.len() as u32
    }

    /// Drops the edges into states from which no accepting state can be reached, and those
    /// out of them: the language stays, and the subset construction meets fewer states.
    pub(super) fn trim(&mut self) {
        let n = self.accept.len();
        let mut back: Vec<Vec<u32>> = vec![Vec::new(); n];
        for s in 0..n {
            for &t in &self.eps[s] {
                back[t as usize].push(s as u32);
            }
            for &(_, t) in &self.edges[s] {
                back[t as usize].push(s as u32);
            }
        }
        let mut live = self.accept.clone();
        let mut stack: Vec<u32> = (0..n as u32).filter(|&s| live[s as usize]).collect();
        while let Some(t) = stack.pop() {
            for &s in &back[t as usize] {
                if !std::mem::replace(&mut live[s as usize], true) {
                    stack.push(s);
                }
            }
        }
        for s in 0..n {
            if live[s] {
                self.eps[s].retain(|&t| live[t as usize]);
                self.edges[s].retain(|&(_, t)| live[t as usize]);
            } else {
                self.eps[s].clear();
                self.edges[s].clear();
            }
        }
    }

    pub(super) fn eps(&mut self, from: u32, to: u32) {
        self.eps[from as usize].push(to);
    }

    pub(super) fn edge(&mut self, from: u32, letter: Letter, to: u32) {
        self.edges[from as usize].push((letter, to));
    }

    /// `from` (any of `letters`)* `to`.
    pub(super) fn star(&mut self, letters: &[Letter], from: u32, to: u32) {
        if letters.is_empty() {
            self.eps(from, to);
            return;
        }
        let hub = self.add_state();
        self.eps(from, hub);
        for &l in letters {
            self.edge(hub, l, hub);
        }
        self.eps(hub, to);
    }

    /// `from` (any of `letters`)* `to` through a new state, which is returned.
    pub(super) fn hub(&mut self, letters: &[Letter], from: u32, to: u32) -> u32 {
        let hub = self.add_state();
        self.eps(from, hub);
        for &l in letters {
            self.edge(hub, l, hub);
        }
        self.eps(hub, to);
        hub
    }

    /// A copy of a summary between `from` and `to`.
    pub(super) fn embed(&mut self, summary: &Summary, from: u32, to: u32) {
        let d = &summary.dfa;
        let base = self.accept.len() as u32;
        for _ in 0..d.num_states() {
            self.add_state();
        }
        for (q, l, r) in d.transitions() {
            self.edge(base + q, summary.letters[l as usize], base + r);
        }
        for q in d.accepting_states() {
            self.eps(base + q, to);
        }
        self.eps(from, base + d.initial());
    }

    pub(super) fn closure(&self, states: &mut Vec<u32>, mark: &mut [bool]) {
        let mut stack = states.clone();
        for &s in states.iter() {
            mark[s as usize] = true;
        }
        while let Some(s) = stack.pop() {
            for &t in &self.eps[s as usize] {
                if !mark[t as usize] {
                    mark[t as usize] = true;
                    states.push(t);
                    stack.push(t);
                }
            }
        }
        for &s in states.iter() {
            mark[s as usize] = false;
        }
        states.sort_unstable();
        states.dedup();
    }
}

/// Subset construction over the letters the NFA uses; `None` past [`STATE_LIMIT`] states,
/// or once a stop is requested ([`crate::stop::check`]): the caller's over-approximation
/// in its place is as sound, and the learner stops at its own next look at the request.
pub(super) fn determinise(nfa: &Nfa, start: u32, alphabet: &Alphabet) -> Option<Summary> {
    let mut letters: Vec<Letter> = nfa.edges.iter().flatten().map(|&(l, _)| l).collect();
    letters.sort_unstable();
    letters.dedup();
    let mut local = vec![Letter::MAX; alphabet.len()];
    for (i, &l) in letters.iter().enumerate() {
        local[l as usize] = i as Letter;
    }
    let sub = Alphabet::from_names(letters.iter().map(|&l| alphabet.name(l)));
    let mut mark = vec![false; nfa.accept.len()];
    let mut first = vec![start];
    nfa.closure(&mut first, &mut mark);
    let accepting = |set: &[u32]| set.iter().any(|&s| nfa.accept[s as usize]);
    // Transitions are collected sparsely and the dense table built once at the end: a
    // construction that gives up must not have paid for rows of hundreds of letters.
    let mut acceptance = vec![accepting(&first)];
    let mut transitions: Vec<(StateId, Letter, StateId)> = Vec::new();
    let mut ids: HashMap<Vec<u32>, StateId> = HashMap::new();
    ids.insert(first.clone(), 0);
    let mut queue = VecDeque::from([(first, 0)]);
    while let Some((set, id)) = queue.pop_front() {
        crate::stop::check().ok()?;
        let mut moves: BTreeMap<Letter, Vec<u32>> = BTreeMap::new();
        for &s in &set {
            for &(l, t) in &nfa.edges[s as usize] {
                moves.entry(l).or_default().push(t);
            }
        }
        for (letter, mut targets) in moves {
            nfa.closure(&mut targets, &mut mark);
            let target = match ids.get(&targets) {
                Some(&t) => t,
                None => {
                    if acceptance.len() >= STATE_LIMIT {
                        return None;
                    }
                    let t = acceptance.len() as StateId;
                    acceptance.push(accepting(&targets));
                    ids.insert(targets.clone(), t);
                    queue.push_back((targets, t));
                    t
                }
            };
            transitions.push((id, local[letter as usize], target));
        }
    }
    let mut dfa = Dfa::with_states(sub, acceptance.len());
    for (q, &accepts) in acceptance.iter().enumerate() {
        dfa.set_accepting(q as StateId, accepts);
    }
    for (q, l, r) in transitions {
        dfa.set_transition(q, l, r);
    }
    Some(Summary { dfa, letters })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::ops;

    #[test]
    fn trimming_keeps_the_language() {
        let alphabet = Alphabet::from_names(["a", "b"]);
        // 0 -a-> 1 (accept), 0 -b-> 2 -a-> 3 (dead end)
        let mut nfa = Nfa::with_states(4);
        nfa.edge(0, 0, 1);
        nfa.edge(0, 1, 2);
        nfa.edge(2, 0, 3);
        nfa.accept[1] = true;
        let before = determinise(&nfa, 0, &alphabet).unwrap().dfa;
        nfa.trim();
        assert!(nfa.edges[0] == [(0, 1)] && nfa.edges[2].is_empty());
        let after = determinise(&nfa, 0, &alphabet).unwrap().dfa;
        let (before, after) = (
            before.extend_alphabet(&alphabet),
            after.extend_alphabet(&alphabet),
        );
        assert_eq!(ops::minimize(&before), ops::minimize(&after));
    }

    #[test]
    fn determinise_merges_choices() {
        let alphabet = Alphabet::from_names(["a", "b", "end"]);
        // 0 -a-> 1, 0 -eps-> 2 -a-> 3 -b-> 4(accept), 1 accept
        let mut nfa = Nfa::with_states(5);
        nfa.edge(0, 0, 1);
        nfa.eps(0, 2);
        nfa.edge(2, 0, 3);
        nfa.edge(3, 1, 4);
        nfa.accept[1] = true;
        nfa.accept[4] = true;
        let s = determinise(&nfa, 0, &alphabet).unwrap();
        assert_eq!(s.letters, [0, 1]);
        let d = s.dfa.extend_alphabet(&alphabet);
        assert!(d.accepts_names(&["a"]) && d.accepts_names(&["a", "b"]));
        assert!(!d.accepts_names(&["b"]) && !d.accepts_names(&[] as &[&str]));
    }
}
