//! The concise automaton of `learn` and `explain`: the smallest DFA that accepts every
//! "yes" word and rejects every "no" word of [`ThreeValued`] (`mergelens::cprog`'s
//! `three_valued` says what the values are), found by [`concise::separate`] (a SAT encoding,
//! or state merging past its budget) and carried as [`Concise`] in the JSON output.
//! Drawings show it by default; `--exact` leaves it out.

use std::time::{Duration, Instant};

use mergelens::automaton::Dfa;
use mergelens::automaton::concise::{self, Budget, Method};
use mergelens::cprog::ThreeValued;
use mergelens::document::{Automaton, Concise, ConciseMethod};

/// The SAT solver's time for one concise automaton when the user does not say.
pub const DEFAULT_CONCISE_SECONDS: f64 = 5.0;

/// Concise automata with more states than this are not searched by SAT (the encoding
/// grows with the square of the states); state merging still runs.
const SAT_STATE_LIMIT: usize = 24;

/// The concise automaton of `values`, next to `exact` (the exact automaton, minimal):
/// `None`, with a warning, only when the construction fails, which would be a bug in the
/// values (a word both "yes" and "no").
pub fn find(values: &ThreeValued, exact: &Dfa, time: Duration) -> Option<Found> {
    let started = Instant::now();
    let budget = Budget {
        time,
        max_states: SAT_STATE_LIMIT,
    };
    let separation = match concise::separate(&values.yes, &values.no, budget) {
        Ok(s) => s,
        Err(e) => {
            errln!("mergelens: warning: no concise automaton: {e}");
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

/// The end of a summary line: ` · concise automaton: 3 states (minimal, by SAT, 0.4 s)`;
/// nothing without one.
pub fn summary_part(found: Option<&Found>) -> String {
    let Some(Found { concise, took }) = found else {
        return String::new();
    };
    format!(
        " · concise automaton: {} states ({}, {:.1} s)",
        concise.automaton.0.num_states(),
        match (concise.minimal, concise.method) {
            (true, ConciseMethod::Sat) => "minimal, by SAT",
            (true, ConciseMethod::Merge) => "minimal",
            (false, _) => "by state merging, not proved minimal",
        },
        took.as_secs_f64()
    )
}

/// The automaton a drawing shows: the concise one when there is one.
pub fn drawn<'a>(exact: &'a Dfa, concise: Option<&'a Concise>) -> &'a Dfa {
    concise.map_or(exact, |c| &c.automaton.0)
}

/// What a concise automaton is, for every drawing of one.
pub const CAPTION: &str = mergelens::document::CONCISE_MEANING;

/// A DOT drawing of a concise automaton says so in its label.
pub fn label_dot(mut dot: String, concise: Option<&Concise>) -> String {
    if concise.is_some()
        && let Some(line_end) = dot.find('\n')
    {
        let label = format!("  label=\"concise automaton: {CAPTION}\";\n  labelloc=t;\n");
        dot.insert_str(line_end + 1, &label);
    }
    dot
}

/// An SVG drawing of a concise automaton says so in its title (what viewers show as the
/// drawing's name and tooltip).
pub fn label_svg(mut svg: String, concise: Option<&Concise>) -> String {
    if concise.is_some()
        && let Some(start) = svg.find("<svg")
        && let Some(end) = svg[start..].find('>')
    {
        let title = format!("\n<title>concise automaton: {CAPTION}</title>");
        svg.insert_str(start + end + 1, &title);
    }
    svg
}
