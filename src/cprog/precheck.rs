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
//! Error mode ([`build_error`]; the paper's error explanation, Eq. 4, whose pre-checks in
//! Sec. 4 reject a word without `assert` last, with `assert` twice, or "incompatible with
//! the control-flow graph"): the language is the events of a path prefix from the entry's
//! start to the target assertion's failure point ([`Edge::Target`]), then `assert`. The
//! failing run stops there and never returns from the calls pending at that moment, so no
//! call stack is needed and the language is regular (the words of right-linear
//! descents): one ε-NFA holds one copy of every function's graph, where a call edge is both
//! the completed call (the callee's summary, exactly as above) and a descent (ε into the
//! callee's copy, shared by every caller: what happens inside the callee until the failure
//! does not depend on who called it). A target edge reads `assert` into the single accepting
//! state; a completed call never takes it (summaries drop it). The entry's return and the
//! exit points accept nothing. An unknown call reads callback letters as above and may then
//! descend into any function whose address is taken; an opaque function's descent is "any
//! events, then `assert`". The only approximations are those of the summaries, the
//! callbacks and the syntax (conditions are not read); states that cannot reach the
//! accepting one are trimmed before the subset construction. This is sharper than the
//! shape `(events)* assert` (the fallback) by orders of magnitude: on Fig. 8 of the paper,
//! 4 words of at most 10 letters instead of 29,524.
//!
//! Soundness rests on three rules: every edge of the graph carries the letter the
//! instrumentation emits at that point; code the front end cannot see (a library call, a
//! function pointer) may emit the events of any function whose address is taken, and of
//! what those call; and when control can go anywhere (`setjmp`/`longjmp`, threads, an entry
//! function that is recursive, used as a value or called by a function unknown code may
//! call, an automaton too large to build) the answer is "any word ending in `end`" (in error
//! mode, the shape `(events)* assert`).

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
/// The error language's ε-NFA (all functions' graphs with their summaries embedded) gives
/// up beyond this many states.
const NFA_STATE_LIMIT: usize = 1 << 21;

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

/// The pre-check of error mode (the paper's error explanation, Eq. 4): a DFA accepting
/// every word `w · end` such that some path from the entry function's start emits `w` and
/// reaches the target assertion's failure point ([`Edge::Target`]), `end` being the letter
/// `assert`; see the module documentation. Falls back to [`shape`] when control can go
/// anywhere or the automaton grows too large.
pub(crate) fn build_error(
    model: &ProgramModel,
    alphabet: &Alphabet,
    end: Letter,
    unwind: u32,
) -> Dfa {
    let events: Vec<Letter> = alphabet.letters().filter(|&l| l != end).collect();
    let calls = call_graph(model);
    if gives_up(model, &calls) || model.functions[model.entry].cfg.opaque {
        return shape(alphabet, end);
    }
    let callback = callback_letters(model, &calls, &events);
    let builder = Builder {
        model,
        alphabet,
        events: &events,
        callback: &callback,
    };
    // Unknown code may call any function whose address is taken: those need summaries
    // and descents too.
    let mut roots = vec![model.entry];
    roots.extend(&model.taken);
    let summaries = builder.summaries(&calls, &roots, unwind);
    let descend = reachable_from(&calls, &roots, model.functions.len());
    let Some((mut nfa, start)) = builder.error_nfa(&summaries, &descend, end) else {
        return shape(alphabet, end);
    };
    nfa.trim();
    match determinise(&nfa, start, alphabet) {
        Some(d) => ops::minimize(&d.dfa.extend_alphabet(alphabet)),
        None => shape(alphabet, end),
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
    /// The summaries of the functions reachable from `roots` but the entry's (which is not
    /// recursive: see [`gives_up`]), callees first over the strongly connected components
    /// of the call graph. A recursive component starts from Σ* and is refined `unwind + 1`
    /// rounds (at most [`MAX_ROUNDS`]); `None` is left for functions not reached.
    fn summaries(
        &self,
        calls: &[Vec<usize>],
        roots: &[usize],
        unwind: u32,
    ) -> Vec<Option<Summary>> {
        let entry = self.model.entry;
        let mut summaries: Vec<Option<Summary>> = vec![None; self.model.functions.len()];
        for component in components(calls, roots, self.model.functions.len()) {
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

    /// The ε-NFA of the error language and its start: one copy of the graph of each
    /// function in `descend`, shared by all the calls that descend into it (a failing run
    /// never returns from the calls pending at the failure, so no call stack is needed).
    /// In these copies a call edge is both the completed call (the callee's summary, as in
    /// [`Self::nfa`]) and a descent (ε to the callee's copy); an unknown call is its
    /// callback letters and then possibly a descent into a function whose address is taken;
    /// the target edge reads `end` into the one accepting state. Nothing else accepts: not
    /// the entry's return, not the exits. An opaque function's copy is "any events, then
    /// `end`". `None` past [`NFA_STATE_LIMIT`] states.
    fn error_nfa(
        &self,
        summaries: &[Option<Summary>],
        descend: &[bool],
        end: Letter,
    ) -> Option<(Nfa, u32)> {
        let functions = &self.model.functions;
        let mut nfa = Nfa::with_states(0);
        let accept = nfa.add_state();
        nfa.accept[accept as usize] = true;
        let chaos = nfa.add_state();
        for &l in self.events {
            nfa.edge(chaos, l, chaos);
        }
        nfa.edge(chaos, end, accept);
        let mut base = vec![u32::MAX; functions.len()];
        for (f, function) in functions.iter().enumerate() {
            if descend[f] {
                base[f] = nfa.len();
                for _ in 0..function.cfg.nodes {
                    nfa.add_state();
                }
            }
        }
        let start = |g: usize| {
            let cfg = &functions[g].cfg;
            if cfg.opaque {
                chaos
            } else {
                base[g] + cfg.start
            }
        };
        for (f, function) in functions.iter().enumerate() {
            let cfg = &function.cfg;
            if !descend[f] || cfg.opaque {
                continue;
            }
            let b = base[f];
            for &(from, edge, to) in &cfg.edges {
                let (from, to) = (b + from, b + to);
                match edge {
                    Edge::Eps => nfa.eps(from, to),
                    Edge::Letter(l) => nfa.edge(from, l, to),
                    Edge::Call(g) => {
                        match &summaries[g] {
                            Some(summary) => nfa.embed(summary, from, to),
                            None => nfa.star(self.events, from, to),
                        }
                        nfa.eps(from, start(g));
                    }
                    Edge::Unknown => {
                        let hub = nfa.hub(self.callback, from, to);
                        for &t in &self.model.taken {
                            nfa.eps(hub, start(t));
                        }
                    }
                    Edge::Target => nfa.edge(from, end, accept),
                }
            }
            if nfa.len() as usize > NFA_STATE_LIMIT {
                return None;
            }
        }
        Some((nfa, start(self.model.entry)))
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

    fn len(&self) -> u32 {
        self.accept.len() as u32
    }

    /// Drops the edges into states from which no accepting state can be reached, and those
    /// out of them: the language stays, and the subset construction meets fewer states.
    fn trim(&mut self) {
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

    /// `from` (any of `letters`)* `to` through a new state, which is returned.
    fn hub(&mut self, letters: &[Letter], from: u32, to: u32) -> u32 {
        let hub = self.add_state();
        self.eps(from, hub);
        for &l in letters {
            self.edge(hub, l, hub);
        }
        self.eps(hub, to);
        hub
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
    use crate::cprog::cfg::{Cfg, FunctionModel};

    /// A function whose graph starts at node 0 and returns at node 1.
    fn function(nodes: u32, edges: &[(u32, Edge, u32)]) -> FunctionModel {
        FunctionModel {
            cfg: Cfg {
                nodes,
                edges: edges.to_vec(),
                start: 0,
                exit: 1,
                opaque: false,
            },
        }
    }

    fn model(functions: Vec<FunctionModel>, taken: Vec<usize>) -> ProgramModel {
        ProgramModel {
            functions,
            entry: 0,
            taken,
            jumps: false,
        }
    }

    /// Letters: f = 0, g = 1, x = 2, assert = 3.
    fn letters() -> Alphabet {
        Alphabet::from_names(["f", "g", "x", "assert"])
    }

    fn error_words(model: &ProgramModel) -> Vec<String> {
        let alphabet = letters();
        let d = build_error(model, &alphabet, 3, 2);
        crate::automaton::analysis::words_up_to(&d, 6, 1000)
            .unwrap()
            .iter()
            .map(|w| alphabet.format_word(w))
            .collect()
    }

    /// `main() { f(); x(); f(); }` with `f() { f; __CPROVER_assert(c); }`: the run fails in
    /// the first call of f, or returns from it and fails in the second.
    fn calls_twice() -> ProgramModel {
        let main = function(
            4,
            &[
                (0, Edge::Call(1), 2),
                (2, Edge::Letter(2), 3),
                (3, Edge::Call(1), 1),
            ],
        );
        let f = function(
            4,
            &[
                (0, Edge::Letter(0), 2),
                (2, Edge::Target, 3),
                (2, Edge::Eps, 1),
            ],
        );
        model(vec![main, f], Vec::new())
    }

    #[test]
    fn error_words_descend_into_calls_and_stop_at_the_target() {
        assert_eq!(error_words(&calls_twice()), ["f assert", "f x f assert"]);
    }

    #[test]
    fn the_entry_return_and_the_exits_do_not_accept() {
        // main() { x(); if (c) exit(); f(); } with f's failure unreachable (no target).
        let main = function(
            5,
            &[
                (0, Edge::Letter(2), 2),
                (2, Edge::Eps, 3),
                (2, Edge::Call(1), 1),
            ],
        );
        let f = function(2, &[(0, Edge::Letter(0), 1)]);
        assert!(error_words(&model(vec![main, f], Vec::new())).is_empty());
    }

    #[test]
    fn unknown_code_may_descend_into_functions_whose_address_is_taken() {
        // main() { x(); lib(); } with g (address taken) { g; fail; }.
        let main = function(3, &[(0, Edge::Letter(2), 2), (2, Edge::Unknown, 1)]);
        let g = function(3, &[(0, Edge::Letter(1), 2), (2, Edge::Target, 1)]);
        let f = function(2, &[(0, Edge::Letter(0), 1)]);
        let m = model(vec![main, g, f], vec![1]);
        // Unknown code may call g any number of times (when g returns: here it never does),
        // then fail in it.
        assert_eq!(
            error_words(&m),
            [
                "x g assert",
                "x g g assert",
                "x g g g assert",
                "x g g g g assert"
            ]
        );
        // An opaque function may do anything before it fails.
        let mut m = m;
        m.functions[1].cfg.opaque = true;
        let words = error_words(&m);
        assert!(words.contains(&"x f g x assert".to_string()), "{words:?}");
        assert!(!words.contains(&"f assert".to_string()), "{words:?}");
    }

    #[test]
    fn recursion_descends_through_the_shared_copy() {
        // f() { f; if (c) f(); fail if c'; }: the failure happens in one of the nested
        // calls, after the completed ones it made.
        let main = function(2, &[(0, Edge::Call(1), 1)]);
        let f = function(
            5,
            &[
                (0, Edge::Letter(0), 2),
                (2, Edge::Call(1), 3),
                (2, Edge::Eps, 3),
                (3, Edge::Target, 4),
                (3, Edge::Eps, 1),
            ],
        );
        let words = error_words(&model(vec![main, f], Vec::new()));
        // Completed calls nested deeper than the refinement rounds are any events.
        let short: Vec<&str> = words
            .iter()
            .map(String::as_str)
            .filter(|w| w.split(' ').count() <= 5)
            .collect();
        assert_eq!(
            short,
            ["f assert", "f f assert", "f f f assert", "f f f f assert"]
        );
        assert!(
            words
                .iter()
                .all(|w| w.starts_with("f f f f ") || short.contains(&w.as_str()))
        );
    }

    #[test]
    fn control_that_can_go_anywhere_gives_the_shape() {
        let alphabet = letters();
        let mut m = calls_twice();
        m.jumps = true;
        assert_eq!(build_error(&m, &alphabet, 3, 2), shape(&alphabet, 3));
        // A function whose address is taken calls the entry: unknown code may start a
        // nested run of it.
        let mut m = calls_twice();
        m.functions.push(function(2, &[(0, Edge::Call(0), 1)]));
        m.taken = vec![2];
        assert_eq!(build_error(&m, &alphabet, 3, 2), shape(&alphabet, 3));
        let mut m = calls_twice();
        m.functions[0].cfg.opaque = true;
        assert_eq!(build_error(&m, &alphabet, 3, 2), shape(&alphabet, 3));
    }

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

    /// The assertion calls from C: the target's condition is evaluated (its events first),
    /// the target fails there or the run goes on; `reach_error()` always fails; other
    /// assertions neither stop nor count.
    #[test]
    fn assertions_in_c_are_modelled_as_instrumented() {
        use crate::cprog::{AssertionTarget, EventKind, FrontEndConfig, instrument_error};
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("asserts.c");
        std::fs::write(
            &source,
            "#include <assert.h>\nint nondet_int(void);\nvoid reach_error(void);\nint c(void) { return nondet_int(); }\nvoid a(void) {}\nint main(void) {\n  assert(c());\n  __CPROVER_assert(c(), \"second\");\n  if (nondet_int()) reach_error();\n  a();\n  return 0;\n}\n",
        )
        .unwrap();
        let mut config = FrontEndConfig::new(vec![source.clone()]);
        config.events = EventKind::Calls;
        let words = |line: u32| -> Vec<String> {
            let out = tempfile::tempdir().unwrap();
            let target = AssertionTarget {
                file: source.clone(),
                line,
                index: None,
            };
            let p = instrument_error(&config, &target, out.path()).unwrap();
            let d = crate::cprog::syntax_automaton(&p, 3, 10);
            crate::automaton::analysis::words_up_to(&d, 10, 1000)
                .unwrap()
                .iter()
                .map(|w| p.alphabet.format_word(w))
                .collect()
        };
        assert_eq!(words(7), ["c@7 assert"]);
        assert_eq!(words(8), ["c@7 c@8 assert"]);
        assert_eq!(words(9), ["c@7 c@8 assert"]);
    }

    #[test]
    fn components_come_callees_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3
        let calls = vec![vec![1, 3], vec![2], vec![1], vec![]];
        let c = components(&calls, &[0], 4);
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
