//! The pre-check automaton: a DFA over-approximating the event words of the entry
//! function's executions, from the syntax alone (Chockler et al., JAIR 2020, Sec. 4,
//! "Optimisations"). A word it rejects is answered "no" without calling CBMC.
//!
//! Each function's control-flow graph ([`super::cfg`]) becomes an ε-NFA whose call edges are
//! replaced by copies of the callee's summary: the minimal DFA of the words from the callee's
//! entry to its return. Summaries are built callees first over the strongly connected
//! components of the call graph; a recursive component starts from "any events" (Σ*) and
//! is refined by inlining itself once per round, `unwind + 1` rounds. Starting from Σ* keeps
//! every round an over-approximation whatever the recursion depth, and the rounds make it
//! exact up to that depth. Loops are cycles of the graph (a star), never unrolled, so the
//! result does not depend on how the teacher counts iterations. [`bound_length`] then drops
//! the words longer than the teacher's word-length bound.
//!
//! Soundness rests on three rules: every edge of the graph carries the letter the
//! instrumentation emits at that point; code the front end cannot see (a library call, a
//! function pointer) may emit the events of any function whose address is taken, and of
//! what those call; and when control can go anywhere (`setjmp`/`longjmp`, threads, an entry
//! function that is recursive or used as a value, an automaton too large to build) the
//! answer is "any word ending in `end`".

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::cfg::{Edge, ProgramModel};
use crate::automaton::{Alphabet, Dfa, Letter, StateId, ops};

/// Subset construction gives up beyond this many states and over-approximates instead.
const STATE_LIMIT: usize = 20_000;
/// Refinement rounds of a recursive component, at most (each costs one determinisation of
/// every function in it).
const MAX_ROUNDS: u32 = 16;
/// Longer word-length bounds are not applied: the automaton would grow with the bound.
const LENGTH_LIMIT: usize = 1024;

pub(crate) fn build(model: &ProgramModel, alphabet: &Alphabet, end: Letter, unwind: u32) -> Dfa {
    let events: Vec<Letter> = alphabet.letters().filter(|&l| l != end).collect();
    let n = model.functions.len();
    let calls: Vec<Vec<usize>> = model
        .functions
        .iter()
        .map(|f| {
            let mut callees: Vec<usize> = f
                .cfg
                .edges
                .iter()
                .filter_map(|&(_, e, _)| match e {
                    Edge::Call(g) => Some(g),
                    _ => None,
                })
                .collect();
            callees.sort_unstable();
            callees.dedup();
            callees
        })
        .collect();
    let entry = model.entry;
    let reachable = reachable_from(&calls, &[entry], n);
    let entry_recursive = calls
        .iter()
        .enumerate()
        .any(|(f, cs)| reachable[f] && cs.contains(&entry));
    if model.jumps || entry_recursive || model.taken.contains(&entry) {
        return any_then_end(alphabet, end);
    }
    let callback = callback_letters(model, &calls, &events);
    let builder = Builder {
        model,
        alphabet,
        events: &events,
        callback: &callback,
    };

    let mut summaries: Vec<Option<Summary>> = vec![None; n];
    for component in components(&calls, entry, n) {
        if component.contains(&entry) {
            continue; // not recursive (checked above): the top level below covers it
        }
        let recursive = component.len() > 1 || calls[component[0]].contains(&component[0]);
        if !recursive {
            let f = component[0];
            let summary = builder
                .summary(f, &summaries)
                .unwrap_or_else(|| Summary::sigma_star(alphabet, &events));
            summaries[f] = Some(summary);
            continue;
        }
        for &f in &component {
            summaries[f] = Some(Summary::sigma_star(alphabet, &events));
        }
        // Every round is an over-approximation; when one grows too large, the previous
        // round's summaries stand.
        for _ in 0..unwind.saturating_add(1).min(MAX_ROUNDS) {
            let next: Option<Vec<Summary>> = component
                .iter()
                .map(|&f| builder.summary(f, &summaries))
                .collect();
            let Some(next) = next else { break };
            for (&f, d) in component.iter().zip(next) {
                summaries[f] = Some(d);
            }
        }
    }

    let cfg = &model.functions[entry].cfg;
    if cfg.opaque {
        return ops::minimize(&concat_end(&sigma_star(alphabet, &events), end));
    }
    let mut nfa = builder.nfa(entry, &summaries);
    let accept = nfa.add_state();
    nfa.accept[accept as usize] = true;
    nfa.edge(cfg.exit, end, accept);
    match determinise(&nfa, cfg.start, alphabet) {
        Some(top) => ops::minimize(&top.dfa.extend_alphabet(alphabet)),
        None => any_then_end(alphabet, end),
    }
}

/// A function's summary, over only the letters it can emit: the automata of programs with
/// hundreds of letters (branch events) stay small to build and minimise.
#[derive(Clone)]
struct Summary {
    /// Over the sub-alphabet of `letters`' names, in that order.
    dfa: Dfa,
    /// The global letter of each local one.
    letters: Vec<Letter>,
}

impl Summary {
    fn sigma_star(alphabet: &Alphabet, letters: &[Letter]) -> Summary {
        let local = Alphabet::from_names(letters.iter().map(|&l| alphabet.name(l)));
        let all: Vec<Letter> = local.letters().collect();
        Summary {
            dfa: sigma_star(&local, &all),
            letters: letters.to_vec(),
        }
    }
}

struct Builder<'a> {
    model: &'a ProgramModel,
    alphabet: &'a Alphabet,
    events: &'a [Letter],
    callback: &'a [Letter],
}

impl Builder<'_> {
    /// The words from `f`'s entry to its return; `None` if the automaton grows too large.
    fn summary(&self, f: usize, summaries: &[Option<Summary>]) -> Option<Summary> {
        let cfg = &self.model.functions[f].cfg;
        if cfg.opaque {
            return Some(Summary::sigma_star(self.alphabet, self.events));
        }
        let mut nfa = self.nfa(f, summaries);
        nfa.accept[cfg.exit as usize] = true;
        let Summary { dfa, letters } = determinise(&nfa, cfg.start, self.alphabet)?;
        Some(Summary {
            dfa: ops::minimize(&dfa),
            letters,
        })
    }

    /// `f`'s graph with every call replaced by a copy of the callee's summary.
    fn nfa(&self, f: usize, summaries: &[Option<Summary>]) -> Nfa {
        let cfg = &self.model.functions[f].cfg;
        let mut nfa = Nfa::with_states(cfg.nodes as usize);
        for &(from, edge, to) in &cfg.edges {
            match edge {
                Edge::Eps => nfa.eps(from, to),
                Edge::Letter(l) => nfa.edge(from, l, to),
                Edge::Call(g) => match &summaries[g] {
                    Some(summary) => nfa.embed(summary, from, to),
                    None => nfa.star(self.events, from, to),
                },
                Edge::Unknown => nfa.star(self.callback, from, to),
            }
        }
        nfa
    }
}

/// The letters that code the front end cannot see may emit: those of the functions whose
/// address is taken and of everything they call (all events if one of them is opaque).
fn callback_letters(model: &ProgramModel, calls: &[Vec<usize>], events: &[Letter]) -> Vec<Letter> {
    let reachable = reachable_from(calls, &model.taken, model.functions.len());
    let mut letters = Vec::new();
    for (f, function) in model.functions.iter().enumerate() {
        if !reachable[f] {
            continue;
        }
        if function.cfg.opaque {
            return events.to_vec();
        }
        letters.extend(function.cfg.edges.iter().filter_map(|&(_, e, _)| match e {
            Edge::Letter(l) => Some(l),
            _ => None,
        }));
    }
    letters.sort_unstable();
    letters.dedup();
    letters
}

fn reachable_from(calls: &[Vec<usize>], roots: &[usize], n: usize) -> Vec<bool> {
    let mut seen = vec![false; n];
    let mut stack: Vec<usize> = roots.to_vec();
    while let Some(f) = stack.pop() {
        if !std::mem::replace(&mut seen[f], true) {
            stack.extend(&calls[f]);
        }
    }
    seen
}

/// The strongly connected components of the call graph reachable from `root`, callees
/// before callers (Tarjan's algorithm, iteratively, so deep call chains cannot overflow).
fn components(calls: &[Vec<usize>], root: usize, n: usize) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut result = Vec::new();
    let mut next = 0;
    let mut frames: Vec<(usize, usize)> = vec![(root, 0)];
    index[root] = next;
    low[root] = next;
    next += 1;
    stack.push(root);
    on_stack[root] = true;
    while let Some(&mut (v, ref mut i)) = frames.last_mut() {
        if let Some(&w) = calls[v].get(*i) {
            *i += 1;
            if index[w] == UNSEEN {
                index[w] = next;
                low[w] = next;
                next += 1;
                stack.push(w);
                on_stack[w] = true;
                frames.push((w, 0));
            } else if on_stack[w] {
                low[v] = low[v].min(index[w]);
            }
            continue;
        }
        frames.pop();
        if low[v] == index[v] {
            let mut component = Vec::new();
            loop {
                let w = stack.pop().expect("v is on the stack");
                on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            component.sort_unstable();
            result.push(component);
        }
        if let Some(&(parent, _)) = frames.last() {
            low[parent] = low[parent].min(low[v]);
        }
    }
    result
}

/// An ε-NFA: the states of the control-flow graph plus those of embedded summaries.
struct Nfa {
    eps: Vec<Vec<u32>>,
    edges: Vec<Vec<(Letter, u32)>>,
    accept: Vec<bool>,
}

impl Nfa {
    fn with_states(n: usize) -> Nfa {
        Nfa {
            eps: vec![Vec::new(); n],
            edges: vec![Vec::new(); n],
            accept: vec![false; n],
        }
    }

    fn add_state(&mut self) -> u32 {
        self.eps.push(Vec::new());
        self.edges.push(Vec::new());
        self.accept.push(false);
        (self.accept.len() - 1) as u32
    }

    fn eps(&mut self, from: u32, to: u32) {
        self.eps[from as usize].push(to);
    }

    fn edge(&mut self, from: u32, letter: Letter, to: u32) {
        self.edges[from as usize].push((letter, to));
    }

    /// `from` (any of `letters`)* `to`.
    fn star(&mut self, letters: &[Letter], from: u32, to: u32) {
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

    /// A copy of a summary between `from` and `to`.
    fn embed(&mut self, summary: &Summary, from: u32, to: u32) {
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

    fn closure(&self, states: &mut Vec<u32>, mark: &mut [bool]) {
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

/// Subset construction over the letters the NFA uses; `None` past [`STATE_LIMIT`] states.
fn determinise(nfa: &Nfa, start: u32, alphabet: &Alphabet) -> Option<Summary> {
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

/// The words of `d` with at most `max_len` letters: `d` itself if it has no longer ones,
/// or if the bound is beyond [`LENGTH_LIMIT`] (no teacher checks words that long).
pub(crate) fn bound_length(d: &Dfa, max_len: usize) -> Dfa {
    if max_len > LENGTH_LIMIT || (max_len >= d.num_states() && !has_cycle(d)) {
        return d.clone();
    }
    let mut out = Dfa::with_states(d.alphabet().clone(), 1);
    out.set_accepting(0, d.is_accepting(d.initial()));
    let mut ids: HashMap<(StateId, usize), StateId> = HashMap::from([((d.initial(), 0), 0)]);
    let mut queue = VecDeque::from([(d.initial(), 0usize, 0)]);
    while let Some((q, len, id)) = queue.pop_front() {
        if len == max_len {
            continue;
        }
        for l in d.alphabet().letters() {
            let Some(r) = d.next(q, l) else { continue };
            let target = *ids.entry((r, len + 1)).or_insert_with(|| {
                let t = out.add_state(d.is_accepting(r));
                queue.push_back((r, len + 1, t));
                t
            });
            out.set_transition(id, l, target);
        }
    }
    ops::minimize(&out)
}

/// Whether a cycle is reachable (then `d` has words of every length beyond some point, or
/// loops through states that lead nowhere, which minimisation has removed).
fn has_cycle(d: &Dfa) -> bool {
    // Kahn's algorithm on the transition graph: a cycle leaves states with pending edges.
    let n = d.num_states();
    let mut indegree = vec![0usize; n];
    for (_, _, r) in d.transitions() {
        indegree[r as usize] += 1;
    }
    let mut ready: Vec<StateId> = d.states().filter(|&q| indegree[q as usize] == 0).collect();
    let mut removed = 0;
    while let Some(q) = ready.pop() {
        removed += 1;
        for l in d.alphabet().letters() {
            if let Some(r) = d.next(q, l) {
                indegree[r as usize] -= 1;
                if indegree[r as usize] == 0 {
                    ready.push(r);
                }
            }
        }
    }
    removed < n
}

/// Any word over `letters`.
fn sigma_star(alphabet: &Alphabet, letters: &[Letter]) -> Dfa {
    let mut d = Dfa::with_states(alphabet.clone(), 1);
    d.set_accepting(0, true);
    for &l in letters {
        d.set_transition(0, l, 0);
    }
    d
}

/// `L(d) · end`.
fn concat_end(d: &Dfa, end: Letter) -> Dfa {
    let mut out = d.clone();
    let accept = out.add_state(true);
    for q in d.accepting_states() {
        out.set_accepting(q, false);
        out.set_transition(q, end, accept);
    }
    out
}

/// Every word that ends with `end`, `end` included anywhere before: the answer when control
/// may go anywhere.
fn any_then_end(alphabet: &Alphabet, end: Letter) -> Dfa {
    let mut d = Dfa::with_states(alphabet.clone(), 2);
    d.set_accepting(1, true);
    for q in [0, 1] {
        for l in alphabet.letters() {
            d.set_transition(q, l, if l == end { 1 } else { 0 });
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_callees_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3
        let calls = vec![vec![1, 3], vec![2], vec![1], vec![]];
        let c = components(&calls, 0, 4);
        assert_eq!(c, vec![vec![1, 2], vec![3], vec![0]]);
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

    #[test]
    fn length_bound_cuts_long_words_only() {
        let alphabet = Alphabet::from_names(["a", "end"]);
        let d = ops::minimize(&concat_end(&sigma_star(&alphabet, &[0]), 1));
        let b = bound_length(&d, 3);
        assert!(b.accepts_names(&["a", "a", "end"]) && b.accepts_names(&["end"]));
        assert!(!b.accepts_names(&["a", "a", "a", "end"]));
        assert_eq!(bound_length(&d, usize::MAX), d);
        let finite = bound_length(&d, 2);
        assert_eq!(bound_length(&finite, 2), finite);
    }

    #[test]
    fn fallback_accepts_exactly_the_words_ending_in_end() {
        let alphabet = Alphabet::from_names(["a", "end"]);
        let d = any_then_end(&alphabet, 1);
        assert!(d.accepts_names(&["a", "end", "a", "end"]));
        assert!(!d.accepts_names(&["end", "a"]));
    }
}
