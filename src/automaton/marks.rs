//! What a drawing of an automaton highlights, shared by the DOT and SVG writers.

use std::collections::{BTreeMap, HashSet};

use super::analysis;
use super::dfa::{Dfa, Letter, StateId};

/// The highlights of a drawing: dominating letters and doomed states (the paper's Sec. 7.2
/// post-processing) and edges a caller wants coloured (for example the edges of a version's
/// automaton that a difference runs through).
#[derive(Clone, Debug, Default)]
pub struct Marks {
    pub dominating: Vec<Letter>,
    pub doomed: Vec<StateId>,
    pub highlighted: HashSet<(StateId, Letter)>,
}

impl Marks {
    /// The marks the analyses find: dominating letters and doomed states.
    pub fn analyse(dfa: &Dfa) -> Marks {
        Marks {
            dominating: analysis::dominating_letters(dfa),
            doomed: analysis::doomed_states(dfa),
            highlighted: HashSet::new(),
        }
    }
}

/// One drawn edge: all letters between the same two states, so that parallel transitions
/// become one arrow with a list of letters rather than a fan of overlapping arrows.
pub(crate) struct DrawnEdge {
    pub from: StateId,
    pub to: StateId,
    pub letters: Vec<Letter>,
    pub dominating: bool,
    pub highlighted: bool,
}

impl DrawnEdge {
    pub fn label(&self, dfa: &Dfa) -> String {
        let names: Vec<&str> = self
            .letters
            .iter()
            .map(|&a| dfa.alphabet().name(a))
            .collect();
        names.join(", ")
    }
}

pub(crate) fn drawn_edges(dfa: &Dfa, marks: &Marks) -> Vec<DrawnEdge> {
    let mut grouped: BTreeMap<(StateId, StateId), Vec<Letter>> = BTreeMap::new();
    for (from, a, to) in dfa.transitions() {
        grouped.entry((from, to)).or_default().push(a);
    }
    grouped
        .into_iter()
        .map(|((from, to), letters)| DrawnEdge {
            dominating: letters.iter().any(|a| marks.dominating.contains(a)),
            highlighted: letters
                .iter()
                .any(|&a| marks.highlighted.contains(&(from, a))),
            from,
            to,
            letters,
        })
        .collect()
}
