use thiserror::Error;

use super::cache::Source;
use super::teacher::TeacherError;
use crate::failure::{FailureKind, HasKind};

/// Why a learning run stopped without an automaton.
///
/// Words are given by their letter names, so that a message names the word the teacher
/// contradicted itself on.
#[derive(Debug, Error)]
pub enum LearnError {
    /// A stop request or the time budget ([`crate::stop::check`]) ended the run between two
    /// questions to the teacher.
    #[error(transparent)]
    Stopped(#[from] crate::stop::Stopped),
    #[error("the teacher failed")]
    Teacher(#[source] TeacherError),
    #[error(
        "the teacher answered \"don't care\" for [{}]; this learner only uses yes and no answers",
        .word.join(" ")
    )]
    DontCareUnsupported { word: Vec<String> },
    #[error("the teacher answered {answered} words of a batch of {asked}")]
    BatchSize { asked: usize, answered: usize },
    #[error(
        "inconsistent teacher: it answered {} for [{}], which its {origin} answer said was {}",
        yes_no(*.answer), .word.join(" "), yes_no(*.known)
    )]
    ContradictsCache {
        word: Vec<String>,
        known: bool,
        origin: Source,
        answer: bool,
    },
    #[error(
        "inconsistent teacher: [{}] is no counterexample: the conjecture {} it, as the {origin} answer says it should",
        .word.join(" "), if *.accepted { "accepts" } else { "rejects" }
    )]
    NotACounterexample {
        word: Vec<String>,
        accepted: bool,
        origin: Source,
    },
    #[error(
        "the counterexample uses letter number {letter}, but the alphabet has {letters} letters"
    )]
    BadCounterexample { letter: u32, letters: usize },
    #[error(
        "inconsistent answers: the counterexample [{}] did not make the conjecture grow beyond {states} states",
        .word.join(" ")
    )]
    NoProgress { word: Vec<String>, states: usize },
    #[error(
        "the conjecture needs more than {limit} states; raise the state limit if that is expected"
    )]
    TooManyStates { limit: usize },
    #[error(
        "{limit} equivalence queries were not enough (the last conjecture had {states} states); raise the limit if that is expected"
    )]
    TooManyEquivalenceQueries { limit: usize, states: usize },
    #[error("the query cache is for the alphabet {cache:?}, but this run learns over {learner:?}")]
    CacheAlphabet {
        cache: Vec<String>,
        learner: Vec<String>,
    },
    #[error("the wrong-guess rate must be between 0 and 1, not {0}")]
    WrongGuessRate(f64),
}

impl HasKind for LearnError {
    fn kind(&self) -> FailureKind {
        match self {
            // Any teacher's error, behind a box whose type this layer cannot name; a CBMC
            // teacher's errors are unpacked above (`cbmc::learning::LearningError`), so what
            // is left here is a failed run.
            LearnError::WrongGuessRate(_) => FailureKind::BadInput,
            LearnError::Teacher(_)
            | LearnError::Stopped(_)
            | LearnError::DontCareUnsupported { .. }
            | LearnError::BatchSize { .. }
            | LearnError::ContradictsCache { .. }
            | LearnError::NotACounterexample { .. }
            | LearnError::BadCounterexample { .. }
            | LearnError::NoProgress { .. }
            | LearnError::TooManyStates { .. }
            | LearnError::TooManyEquivalenceQueries { .. }
            | LearnError::CacheAlphabet { .. } => FailureKind::Failed,
        }
    }
}

fn yes_no(accepted: bool) -> &'static str {
    if accepted { "yes" } else { "no" }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Teacher => "membership",
            Source::Precheck => "pre-check",
            Source::Guess => "confirmed guess",
            Source::Counterexample => "counterexample",
        })
    }
}
