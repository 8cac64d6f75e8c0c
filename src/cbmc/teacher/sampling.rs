//! The data of the teacher's sampling answers, apart from the methods that use them
//! (`super::concrete`, `super::pac`) so that the teacher's state can hold them: the words
//! of concrete runs ([`ConcreteWords`], built by a [`ConcreteBuilder`]) and the parameters
//! and guarantee of PAC equivalence ([`Pac`], [`PacResult`]).

use std::collections::HashMap;

use serde::Serialize;

use crate::automaton::Word;
use crate::cbmc::concrete::{ConcreteError, ConcreteProgram};

/// The longest one batch of concrete runs may take.
pub(super) const SAMPLING_BUDGET: std::time::Duration = std::time::Duration::from_secs(10);

/// Builds the concrete program, or says why there is none.
pub type ConcreteBuilder<'p> = Box<dyn FnOnce() -> Result<ConcreteProgram, ConcreteError> + 'p>;

/// The concrete runs of one program version and what they found.
pub(crate) struct ConcreteWords<'p> {
    /// Built on the first sampling, so that a run the prefetch answers entirely needs no gcc.
    pub(super) program: Option<ConcreteProgram>,
    pub(super) build: Option<ConcreteBuilder<'p>>,
    /// Runs to make before learning.
    pub(super) runs: u64,
    pub(super) next_seed: u64,
    /// Each word with the smallest user `--unwind` a run of it was within.
    pub(super) words: HashMap<Word, u32>,
}

impl<'p> ConcreteWords<'p> {
    pub(crate) fn new(build: ConcreteBuilder<'p>, runs: u64) -> ConcreteWords<'p> {
        ConcreteWords {
            program: None,
            build: Some(build),
            runs,
            next_seed: 0,
            words: HashMap::new(),
        }
    }
}

/// The parameters of PAC equivalence.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Pac {
    /// The largest share of samples the result may get wrong.
    pub epsilon: f64,
    /// The largest probability that it gets more wrong.
    pub delta: f64,
}

impl Pac {
    /// Angluin's sample size for the `i`-th equivalence query (from 1).
    pub fn samples(self, i: u64) -> u64 {
        let m = ((1.0 / self.delta).ln() + i as f64 * std::f64::consts::LN_2) / self.epsilon;
        m.ceil().max(1.0) as u64
    }
}

/// The guarantee of a result accepted by PAC equivalence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PacResult {
    pub epsilon: f64,
    pub delta: f64,
    /// PAC equivalence queries asked (the last one accepted).
    pub equivalence_queries: u64,
    /// Samples of the accepting query.
    pub samples: u64,
    /// ... of which concrete runs.
    pub concrete_samples: u64,
    /// The guarantee in one sentence.
    pub guarantee: String,
}
