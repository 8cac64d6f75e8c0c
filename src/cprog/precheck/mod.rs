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
//! Error mode ([`error_mode::build_error`]) builds its language from the same summaries, in
//! `error_mode` (its documentation explains the construction); the ε-NFA and the subset
//! construction both use are in `nfa`.
//!
//! Soundness rests on three rules: every edge of the graph carries the letter the
//! instrumentation emits at that point; code the front end cannot see (a library call, a
//! function pointer) may emit the events of any function whose address is taken, and of
//! what those call; and when control can go anywhere (`setjmp`/`longjmp`, threads, an entry
//! function that is recursive, used as a value or called by a function unknown code may
//! call, an automaton too large to build) the answer is "any word ending in `end`" (in error
//! mode, the shape `(events)* assert`).

pub(super) mod error_mode;
mod nfa;
mod summary;

use std::collections::{HashMap, VecDeque};

use super::cfg::{Edge, ProgramModel};
use crate::automaton::{Alphabet, Dfa, Letter, StateId, ops};
use nfa::{Nfa, determinise};
use summary::{Summary, sigma_star};

/// Refinement rounds of a recursive component, at most (each costs one determinisation of
/// every function in it).
const MAX_ROUNDS: u32 = 16;
/// Longer word-length bounds are not applied: the automaton would grow with the bound.
const LENGTH_LIMIT: usize = 1024;

/// The pre-check of program explanation: the words of the entry function's paths from its
/// start to its return, then `end` (see the module documentation).
pub(crate) fn build(model: &ProgramModel, alphabet: &Alphabet, end: Letter, unwind: u32) -> Dfa {
    let events: Vec<Letter> = alphabet.letters().filter(|&l| l != end).collect();
    let calls = call_graph(model);
    if gives_up(model, &calls) {
        return any_then_end(alphabet, end);
    }
    let entry = model.entry;
    let callback = callback_letters(model, &calls, &events);
    let builder = Builder {
        model,
        alphabet,
        events: &events,
        callback: &callback,
    };
    let summaries = builder.summaries(&calls, &[entry], unwind);
    if crate::stop::stop_reason().is_some() {
        return any_then_end(alphabet, end); // the summaries are cut short: the sound fallback
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

/// The functions reachable from the entry that can call themselves, directly or through
/// others, by the call graph (calls through pointers are not seen).
pub(crate) fn recursive_functions(model: &ProgramModel) -> Vec<usize> {
    let calls = call_graph(model);
    let mut recursive: Vec<usize> = components(&calls, &[model.entry], model.functions.len())
        .into_iter()
        .filter(|c| c.len() > 1 || calls[c[0]].contains(&c[0]))
        .flatten()
        .collect();
    recursive.sort_unstable();
    recursive
}

/// The functions an execution of the entry may call, by the call graph: those its calls
/// reach, and, where a call goes to code the front end cannot see (a library function, a
/// function pointer), every function whose address is taken. `None` when the graph cannot
/// tell (`setjmp`, threads, a function it cannot read).
pub(crate) fn callable_functions(model: &ProgramModel) -> Option<Vec<usize>> {
    if model.jumps {
        return None;
    }
    let calls = call_graph(model);
    let mut seen = vec![false; model.functions.len()];
    let mut stack = vec![model.entry];
    let mut unknown = false;
    while let Some(f) = stack.pop() {
        if std::mem::replace(seen.get_mut(f)?, true) {
            continue;
        }
        let cfg = &model.functions[f].cfg;
        if cfg.opaque {
            return None;
        }
        if !unknown && cfg.edges.iter().any(|&(_, e, _)| e == Edge::Unknown) {
            unknown = true;
            stack.extend(model.taken.iter().copied());
        }
        stack.extend(calls[f].iter().copied());
    }
    Some((0..seen.len()).filter(|&f| seen[f]).collect())
}

/// For each function, the functions its graph calls (sorted, without repeats).
fn call_graph(model: &ProgramModel) -> Vec<Vec<usize>> {
    model
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
        .collect()
}

/// Whether control can go where no graph leads: non-local jumps and threads, an entry
/// function used as a value, or called by a function that can run (reachable from the
/// entry, or from a function unknown code may call): a nested return of the entry ends
/// the word in the middle of a path.
fn gives_up(model: &ProgramModel, calls: &[Vec<usize>]) -> bool {
    let entry = model.entry;
    let mut roots = vec![entry];
    roots.extend(&model.taken);
    let reachable = reachable_from(calls, &roots, model.functions.len());
    let entry_called = calls
        .iter()
        .enumerate()
        .any(|(f, cs)| reachable[f] && cs.contains(&entry));
    model.jumps || entry_called || model.taken.contains(&entry)
}

struct Builder<'a> {
    model: &'a ProgramModel,
    alphabet: &'a Alphabet,
    events: &'a [Letter],
    callback: &'a [Letter],
}

impl Builder<'_> {
    /// The summaries of the functions reachable from `roots` but the entry's (which is not
    /// recursive: see [`gives_up`]), callees first over the strongly connected components
    /// of the call graph. A recursive component starts from Σ* and is refined `unwind + 1`
    /// rounds (at most [`MAX_ROUNDS`]); `None` is left for functions not reached. Cut short
    /// at a stop request ([`crate::stop`]), after which the callers do not use them.
    fn summaries(
        &self,
        calls: &[Vec<usize>],
        roots: &[usize],
        unwind: u32,
    ) -> Vec<Option<Summary>> {
        let entry = self.model.entry;
        let mut summaries: Vec<Option<Summary>> = vec![None; self.model.functions.len()];
        for component in components(calls, roots, self.model.functions.len()) {
            // Once a stop is requested the callers give up on the summaries (see `build`).
            if crate::stop::stop_reason().is_some() {
                break;
            }
            if component.contains(&entry) {
                continue; // not recursive (checked by `gives_up`): the top level covers it
            }
            let recursive = component.len() > 1 || calls[component[0]].contains(&component[0]);
            if !recursive {
                let f = component[0];
                let summary = self
                    .summary(f, &summaries)
                    .unwrap_or_else(|| Summary::sigma_star(self.alphabet, self.events));
                summaries[f] = Some(summary);
                continue;
            }
            for &f in &component {
                summaries[f] = Some(Summary::sigma_star(self.alphabet, self.events));
            }
            // Every round is an over-approximation; when one grows too large, the previous
            // round's summaries stand.
            for _ in 0..unwind.saturating_add(1).min(MAX_ROUNDS) {
                let next: Option<Vec<Summary>> = component
                    .iter()
                    .map(|&f| self.summary(f, &summaries))
                    .collect();
                let Some(next) = next else { break };
                for (&f, d) in component.iter().zip(next) {
                    summaries[f] = Some(d);
                }
            }
        }
        summaries
    }

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
                // A run that fails there does not return.
                Edge::Target => {}
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

/// The strongly connected components of the call graph reachable from `roots`, callees
/// before callers (Tarjan's algorithm, iteratively, so deep call chains cannot overflow).
fn components(calls: &[Vec<usize>], roots: &[usize], n: usize) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut result = Vec::new();
    let mut next = 0;
    for &root in roots {
        if index[root] != UNSEEN {
            continue;
        }
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
    }
    result
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

/// `L(d) · end`.
pub(crate) fn concat_end(d: &Dfa, end: Letter) -> Dfa {
    let mut out = d.clone();
    let accept = out.add_state(true);
    for q in d.accepting_states() {
        out.set_accepting(q, false);
        out.set_transition(q, end, accept);
    }
    out
}

/// `(events)* end`, `end` once and last: the shape of every word of error mode, and its
/// pre-check when the control-flow model cannot be followed.
pub(crate) fn shape(alphabet: &Alphabet, end: Letter) -> Dfa {
    let mut d = Dfa::with_states(alphabet.clone(), 2);
    for a in alphabet.letters() {
        d.set_transition(0, a, if a == end { 1 } else { 0 });
    }
    d.set_accepting(1, true);
    d
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
        let c = components(&calls, &[0], 4);
        assert_eq!(c, vec![vec![1, 2], vec![3], vec![0]]);
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
