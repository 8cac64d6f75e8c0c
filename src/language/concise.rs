//! The concise automaton of `learn` and `explain`: the smallest DFA that accepts every
//! "yes" word and rejects every "no" word of [`ThreeValued`] (`crate::cprog`'s
//! `three_valued` says what the values are), found by [`concise::separate`] (a SAT encoding,
//! or state merging past its budget) and carried as [`Concise`] in the JSON output.
//! Drawings show it by default; `--exact` leaves it out.

use std::time::{Duration, Instant};

use super::watch::{Notice, Watcher};
use crate::automaton::Dfa;
use crate::automaton::concise::{self, Budget, Method};
use crate::cprog::ThreeValued;
use crate::document::{Automaton, Concise, ConciseMethod};

/// The SAT solver's time for one concise automaton when the user does not say.
pub const DEFAULT_CONCISE_SECONDS: f64 = 5.0;

/// Concise automata with more states than this are not searched by SAT (the encoding
/// grows with the square of the states); state merging still runs.
const SAT_STATE_LIMIT: usize = 24;

/// The concise automaton of `values`, next to `exact` (the exact automaton, minimal):
/// `None`, with a warning, only when the construction fails, which would be a bug in the
/// values (a word both "yes" and "no").
pub fn find_concise(
    values: &ThreeValued,
    exact: &Dfa,
    time: Duration,
    watcher: &dyn Watcher,
) -> Option<Found> {
    let started = Instant::now();
    let budget = Budget {
        time,
        max_states: SAT_STATE_LIMIT,
    };
    let separation = match concise::separate(&values.yes, &values.no, budget) {
        Ok(s) => s,
        Err(e) => {
            watcher.notice(Notice::Warning(format!("no concise automaton: {e}")));
            return None;
        }
    };
    // Never larger than the exact automaton: `separate` starts its search from the minimal
    // automaton of "yes", which is the exact one.
    let dfa = separation.dfa;
    let concise = Concise {
        minimal: separation.minimal,
        method: match separation.method {
            Method::Sat => ConciseMethod::Sat,
            Method::Merge => ConciseMethod::Merge,
        },
        exact_states: exact.num_states(),
        states_saved: exact.num_states().saturating_sub(dfa.num_states()),
        rule: values.rule.clone(),
        automaton: Automaton(dfa),
    };
    Some(Found {
        concise,
        took: started.elapsed(),
    })
}

/// A concise automaton and the time it took to find.
pub struct Found {
    pub concise: Concise,
    pub took: Duration,
}

/// The automaton a drawing shows: the concise one when there is one.
pub fn drawn<'a>(exact: &'a Dfa, concise: Option<&'a Concise>) -> &'a Dfa {
    concise.map_or(exact, |c| &c.automaton.0)
}
