//! Concise automata: the smallest DFA that accepts every "yes" word and rejects every "no"
//! word, free on all the others ("don't care").
//!
//! Key types: [`separate`] takes the two languages as [`Dfa`]s and a [`Budget`] and returns
//! a [`Separation`]: the automaton, whether it is proved minimal, and the [`Method`] that
//! found it. [`ConciseError`] says why there is none (the languages overlap), or that a
//! result failed its final check, which is a bug and never passes silently.
//!
//! How it works, in four steps:
//!
//! 1. The three-valued product of yes and no (module `sample`): every pair of states labelled
//!    yes, no or don't care, pruned to the pairs from which a labelled one is reachable.
//! 2. A heuristic upper bound (module `merge`): blue-fringe state merging (RPNI, Oncina and
//!    García 1992; EDSM, Lang, Pearlmutter and Price 1998) from the prefix tree of yes (when
//!    yes is finite and has at most 5,000 prefixes), from the minimal
//!    DFA of yes and from that of the complement of no, each merge kept only while the
//!    automaton stays consistent. The smallest result, of `h` states, is never larger than
//!    the minimal DFA of yes or of the complement of no. It gets at most half the time.
//! 3. The exact minimum (module `sat`): Neider's SAT encoding of a separating DFA with `n`
//!    states (*Computing minimal separating DFAs and regular invariants using SAT and SMT
//!    solvers*, ATVA 2012), with the breadth-first symmetry breaking of Ulyantsev,
//!    Zakirzyanov and Shalyto (LATA 2015), for `n = 1, 2, ...` up to `h`; the first
//!    satisfiable `n` is the minimum. The solver is the `batsat` crate, a
//!    pure-Rust port of MiniSat 2.2 whose `stop` callback enforces the deadline. The [`Budget`] bounds the time and the
//!    largest `n` tried; past it, the heuristic's automaton is the answer, marked not
//!    minimal unless every smaller size was refuted.
//! 4. The answer is checked against `yes` and `no` themselves with [`ops`] and
//!    [`analysis`], independently of the product, before it is returned.
//!
//! The automaton is a minimal, trimmed *partial* DFA over the union of the two alphabets, as
//! the rest of the repository draws them: a missing edge rejects, and the size is counted
//! without a sink (the SAT encoding looks for partial automata, so "2 states" is the loop
//! `f* end` and not the loop plus a sink).
//!
//! ```
//! use mergelens::automaton::concise::{separate, Budget, Method};
//! use mergelens::automaton::{Alphabet, Dfa, ops};
//!
//! // yes: f^k end for k <= 3; no: every other word of at most 4 letters.
//! let alphabet = Alphabet::from_names(["f", "end"]);
//! let mut yes = Dfa::with_states(alphabet.clone(), 6);
//! for q in 0..4 {
//!     yes.set_transition(q, 1, 5);
//!     if q < 3 {
//!         yes.set_transition(q, 0, q + 1);
//!     }
//! }
//! yes.set_accepting(5, true);
//! let mut everything = Dfa::with_states(alphabet, 1);
//! everything.set_transition(0, 0, 0);
//! everything.set_transition(0, 1, 0);
//! everything.set_accepting(0, true);
//! let no = ops::difference(&ops::bound_length(&everything, 4), &yes);
//!
//! let s = separate(&yes, &no, Budget::default())?;
//! assert_eq!((s.dfa.num_states(), s.minimal, s.method), (2, true, Method::Sat));
//! assert!(s.dfa.accepts_names(&["f", "f", "f", "f", "f", "f", "end"]));
//! # Ok::<(), mergelens::automaton::concise::ConciseError>(())
//! ```
//!
//! [`ops`]: crate::automaton::ops
//! [`analysis`]: crate::automaton::analysis

mod merge;
mod sample;
mod sat;

use std::fmt;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::automaton::analysis::{inclusion_witness, shortest_accepted};
use crate::automaton::dfa::{Alphabet, Dfa, Letter};
use crate::automaton::ops::{BoolOp, complement, minimize, product};
use crate::failure::{FailureKind, HasKind};
use sample::Sample;

/// How long the search may take, and the largest size the SAT solver tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Wall time for the whole search, heuristic included.
    pub time: Duration,
    /// The solver tries sizes `1..=max_states` at most; a larger minimum is left unproved.
    pub max_states: usize,
}

impl Budget {
    /// The default time: enough for the usual 5–40 state inputs with room to spare.
    pub const DEFAULT_TIME: Duration = Duration::from_secs(5);
    /// The default size limit.
    pub const DEFAULT_MAX_STATES: usize = 24;

    /// No limit on sizes and an hour of time: for when only the proved minimum will do.
    pub fn exact() -> Budget {
        Budget {
            time: Duration::from_secs(3600),
            max_states: usize::MAX,
        }
    }
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            time: Budget::DEFAULT_TIME,
            max_states: Budget::DEFAULT_MAX_STATES,
        }
    }
}

/// What found the automaton of a [`Separation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// A model of the SAT encoding at the least satisfiable size: always minimal.
    Sat,
    /// State merging; minimal only when [`Separation::minimal`] says so (one state, or the
    /// solver refuted every smaller size before the budget ran out).
    Merge,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Sat => "sat",
            Method::Merge => "merge",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A DFA that accepts every yes word and rejects every no word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Separation {
    /// Minimal, trimmed and partial, over the union of the two alphabets.
    pub dfa: Dfa,
    /// Whether no consistent DFA has fewer states.
    pub minimal: bool,
    /// No consistent DFA has fewer states than this: the solver refuted every smaller size.
    /// Equal to the automaton's size when it is minimal; 1 when nothing was refuted.
    pub lower_bound: usize,
    pub method: Method,
}

/// Why there is no separation.
#[derive(Debug, Error)]
pub enum ConciseError {
    #[error("the yes and no automata overlap: {} is in both languages", show(.word))]
    Overlap { word: Vec<String> },
    #[error(
        "internal error: the concise automaton found by {method} {} {}; please report it",
        if *.accepts_no { "accepts the no word" } else { "rejects the yes word" },
        show(.word)
    )]
    Inconsistent {
        method: Method,
        word: Vec<String>,
        accepts_no: bool,
    },
}

impl HasKind for ConciseError {
    /// Overlapping languages are the caller's input; a result that fails its check is ours.
    fn kind(&self) -> FailureKind {
        match self {
            ConciseError::Overlap { .. } => FailureKind::BadInput,
            ConciseError::Inconsistent { .. } => FailureKind::Failed,
        }
    }
}

fn show(word: &[String]) -> String {
    if word.is_empty() {
        "the empty word".to_string()
    } else {
        format!("[{}]", word.join(" "))
    }
}

/// The smallest DFA (or, past the `budget`, a small one) that accepts every word of `yes`
/// and rejects every word of `no`. Missing transitions of either input reject.
pub fn separate(yes: &Dfa, no: &Dfa, budget: Budget) -> Result<Separation, ConciseError> {
    let deadline = deadline_after(budget.time);
    let sample = Sample::build(yes, no).map_err(|word| ConciseError::Overlap {
        word: names(&yes.alphabet().union(no.alphabet()), &word),
    })?;
    // State merging gets at most half of the time, so that the solver always has some.
    let heuristic = heuristic(yes, no, &sample, deadline_after(budget.time / 2));
    let h = heuristic.num_states();
    let mut refuted = 0;
    for n in 1..=h.min(budget.max_states) {
        match sat::solve(&sample, n, deadline) {
            sat::Outcome::Found(dfa) => return checked(yes, no, dfa, n - 1, Method::Sat),
            sat::Outcome::Refuted => refuted = n,
            sat::Outcome::OutOfBudget => break,
        }
    }
    // The heuristic's automaton is a witness for `h`: refuting `h` would be a bug.
    debug_assert!(refuted < h, "the heuristic's automaton has {h} states");
    checked(yes, no, heuristic, refuted, Method::Merge)
}

/// `now + time`, or the farthest instant this platform can represent.
fn deadline_after(time: Duration) -> Instant {
    let now = Instant::now();
    const YEAR: Duration = Duration::from_secs(365 * 24 * 3600);
    [time, 100 * YEAR, YEAR]
        .into_iter()
        .find_map(|t| now.checked_add(t))
        .unwrap_or(now)
}

/// The smallest of the merges from three consistent starts: the prefix tree of yes (when
/// yes is finite and not too large: the classic start of RPNI, from which every consistent
/// automaton is a quotient), the minimal DFA of yes, and that of the complement of no (which
/// bound the result's size).
fn heuristic(yes: &Dfa, no: &Dfa, sample: &Sample, deadline: Instant) -> Dfa {
    let alphabet = sample.alphabet();
    let yes = minimize(&yes.extend_alphabet(alphabet));
    let co_no = minimize(&complement(&no.extend_alphabet(alphabet)));
    let mut best = merge::merge(&yes, sample, deadline);
    let tree = merge::prefix_tree(&yes, merge::PREFIX_TREE_LIMIT);
    for start in tree.iter().chain([&co_no]) {
        let merged = merge::merge(start, sample, deadline);
        if merged.num_states() < best.num_states() {
            best = merged;
        }
    }
    best
}

/// The separation, after checking its automaton against `yes` and `no` themselves;
/// `refuted` is the largest size the solver proved too small (0 for none).
fn checked(
    yes: &Dfa,
    no: &Dfa,
    dfa: Dfa,
    refuted: usize,
    method: Method,
) -> Result<Separation, ConciseError> {
    if let Some(word) = inclusion_witness(yes, &dfa) {
        return Err(ConciseError::Inconsistent {
            method,
            word,
            accepts_no: false,
        });
    }
    let both = product(&dfa, no, BoolOp::Intersection);
    if let Some(word) = shortest_accepted(&both) {
        return Err(ConciseError::Inconsistent {
            method,
            word: names(both.alphabet(), &word),
            accepts_no: true,
        });
    }
    // Refuting the answer's own size would contradict it (a bug, which debug builds
    // assert against): then only the trivial bound is claimed.
    let states = dfa.num_states();
    let lower_bound = if refuted < states { refuted + 1 } else { 1 };
    Ok(Separation {
        dfa,
        minimal: lower_bound == states,
        lower_bound,
        method,
    })
}

fn names(alphabet: &Alphabet, word: &[Letter]) -> Vec<String> {
    word.iter().map(|&a| alphabet.name(a).to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::dfa::from_edges as dfa;
    use crate::automaton::ops::{bound_length, difference};

    /// yes: `f^k end` for `k <= 3`; no: every other word over {f, end} of at most 4 letters.
    fn chain() -> (Dfa, Dfa) {
        let names = ["f", "end"];
        let mut yes = dfa(&names, 6, &[(0, "f", 1), (1, "f", 2), (2, "f", 3)], &[5]);
        for q in 0..4 {
            yes.set_transition(q, 1, 5);
        }
        let all = dfa(&names, 1, &[(0, "f", 0), (0, "end", 0)], &[0]);
        let no = difference(&bound_length(&all, 4), &yes);
        (yes, no)
    }

    #[test]
    fn the_chain_becomes_a_loop() {
        let (yes, no) = chain();
        let s = separate(&yes, &no, Budget::default()).unwrap();
        assert_eq!(s.method, Method::Sat);
        assert!(s.minimal);
        // 0 -f-> 0, 0 -end-> 1 (accepting): f* end, partial, no sink.
        let expected = dfa(&["f", "end"], 2, &[(0, "f", 0), (0, "end", 1)], &[1]);
        assert_eq!(s.dfa, expected);
    }

    #[test]
    fn without_time_the_heuristic_answers_and_is_checked() {
        let (yes, no) = chain();
        let budget = Budget {
            time: Duration::ZERO,
            max_states: 10,
        };
        let s = separate(&yes, &no, budget).unwrap();
        assert_eq!(s.method, Method::Merge);
        assert!(!s.minimal);
        assert_eq!(s.dfa, minimize(&yes));
        // With sizes capped at 1 the solver never builds a model, but refuting one state
        // proves the merge result of two states minimal.
        let capped = Budget {
            time: Duration::from_secs(60),
            max_states: 1,
        };
        let s = separate(&yes, &no, capped).unwrap();
        assert_eq!((s.method, s.minimal), (Method::Merge, true));
        assert_eq!((s.dfa.num_states(), s.lower_bound), (2, 2));
        let none = Budget {
            time: Duration::from_secs(60),
            max_states: 0,
        };
        let s = separate(&yes, &no, none).unwrap();
        assert_eq!(
            (s.method, s.minimal, s.lower_bound),
            (Method::Merge, false, 1)
        );
    }

    #[test]
    fn overlapping_languages_name_their_least_common_word() {
        let yes = dfa(&["a", "b"], 2, &[(0, "a", 1), (1, "b", 1)], &[1]);
        let no = dfa(&["b", "a"], 3, &[(0, "a", 1), (1, "b", 2)], &[2]);
        let err = separate(&yes, &no, Budget::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the yes and no automata overlap: [a b] is in both languages"
        );
        let eps = dfa(&["a"], 1, &[], &[0]);
        let err = separate(&eps, &eps, Budget::default()).unwrap_err();
        assert!(err.to_string().contains("the empty word"), "{err}");
    }

    #[test]
    fn empty_languages_need_one_state() {
        let empty = dfa(&["a"], 2, &[(0, "a", 1)], &[]);
        let s = separate(&empty, &empty, Budget::default()).unwrap();
        assert_eq!(s.dfa, Dfa::new(empty.alphabet().clone()));
        assert!(s.minimal);
        // Only no words: the empty language separates them.
        let no = dfa(&["a"], 2, &[(0, "a", 1)], &[1]);
        let s = separate(&empty, &no, Budget::default()).unwrap();
        assert_eq!(s.dfa.num_states(), 1);
        assert!(!s.dfa.accepts_names(&["a"]));
    }

    #[test]
    fn the_alphabets_may_differ() {
        // yes: {g}; no: {f}, over {f} only: g is yes's own letter.
        let yes = dfa(&["g"], 2, &[(0, "g", 1)], &[1]);
        let no = dfa(&["f"], 2, &[(0, "f", 1)], &[1]);
        let s = separate(&yes, &no, Budget::default()).unwrap();
        assert_eq!(s.dfa.alphabet().names().collect::<Vec<_>>(), ["g", "f"]);
        assert!(s.dfa.accepts_names(&["g"]) && !s.dfa.accepts_names(&["f"]));
        assert_eq!((s.dfa.num_states(), s.minimal), (1, true));
    }

    #[test]
    fn errors_read_as_one_line() {
        let err = ConciseError::Inconsistent {
            method: Method::Merge,
            word: vec!["f".into(), "end".into()],
            accepts_no: true,
        };
        assert_eq!(
            err.to_string(),
            "internal error: the concise automaton found by merge accepts the no word [f end]; please report it"
        );
    }
}
