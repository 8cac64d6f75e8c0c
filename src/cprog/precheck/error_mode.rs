//! The pre-check of error mode ([`build_error`]; the paper's error explanation, Eq. 4, whose pre-checks in
//! Sec. 4 reject a word without `assert` last, with `assert` twice, or "incompatible with
//! the control-flow graph"): the language is the events of a path prefix from the entry's
//! start to the target assertion's failure point ([`Edge::Target`]), then `assert`. The
//! failing run stops there and never returns from the calls pending at that moment, so no
//! call stack is needed and the language is regular (the words of right-linear
//! descents): one ε-NFA holds one copy of every function's graph, where a call edge is both
//! the completed call (the callee's summary, exactly as in program explanation's pre-check,
//! [`super::build`]) and a descent (ε into the
//! callee's copy, shared by every caller: what happens inside the callee until the failure
//! does not depend on who called it). A target edge reads `assert` into the single accepting
//! state; a completed call never takes it (summaries drop it). The entry's return and the
//! exit points accept nothing. An unknown call reads callback letters as there and may then
//! descend into any function whose address is taken; an opaque function's descent is "any
//! events, then `assert`". The only approximations are those of the summaries, the
//! callbacks and the syntax (conditions are not read); states that cannot reach the
//! accepting one are trimmed before the subset construction. This is sharper than the
//! shape `(events)* assert` (the fallback) by orders of magnitude: on Fig. 8 of the paper,
//! 4 words of at most 10 letters instead of 29,524.
//!
//! Apart from program explanation's pre-check because it needs an ε-NFA over every
//! function at once (the descents), where program explanation only composes summaries.

use super::nfa::{Nfa, determinise};
use super::summary::Summary;
use super::{Builder, call_graph, callback_letters, gives_up, reachable_from, shape};
use crate::automaton::{Alphabet, Dfa, Letter, ops};
use crate::cprog::cfg::{Edge, ProgramModel};

/// The error language's ε-NFA (all functions' graphs with their summaries embedded) gives
/// up beyond this many states.
const NFA_STATE_LIMIT: usize = 1 << 21;

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
    if crate::stop::stop_reason().is_some() {
        return shape(alphabet, end); // the summaries are cut short: the sound fallback
    }
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

impl Builder<'_> {
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
}
