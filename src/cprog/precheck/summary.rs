//! [`Summary`]: a function's language over only the letters it can emit, the unit the
//! pre-check automata are assembled from (program explanation in `super`, error mode in
//! `super::error_mode`, both determinised by `super::nfa`).

use crate::automaton::{Alphabet, Dfa, Letter};

/// A function's summary, over only the letters it can emit: the automata of programs with
/// hundreds of letters (branch events) stay small to build and minimise.
#[derive(Clone)]
pub(super) struct Summary {
    /// Over the sub-alphabet of `letters`' names, in that order.
    pub(super) dfa: Dfa,
    /// The global letter of each local one.
    pub(super) letters: Vec<Letter>,
}

impl Summary {
    pub(super) fn sigma_star(alphabet: &Alphabet, letters: &[Letter]) -> Summary {
        let local = Alphabet::from_names(letters.iter().map(|&l| alphabet.name(l)));
        let all: Vec<Letter> = local.letters().collect();
        Summary {
            dfa: sigma_star(&local, &all),
            letters: letters.to_vec(),
        }
    }
}

/// Any word over `letters`.
pub(super) fn sigma_star(alphabet: &Alphabet, letters: &[Letter]) -> Dfa {
    let mut d = Dfa::with_states(alphabet.clone(), 1);
    d.set_accepting(0, true);
    for &l in letters {
        d.set_transition(0, l, 0);
    }
    d
}
