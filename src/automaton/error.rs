use thiserror::Error;

use crate::failure::{FailureKind, HasKind};

/// Everything that can be wrong with an automaton or a request about one.
#[derive(Debug, Error)]
pub enum AutomatonError {
    /// A document over the size budget of [`crate::limits`], refused before allocation.
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
    #[error("{path}: cannot read")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not valid JSON for a mergelens-dfa/1 automaton")]
    Json {
        path: String,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path}: format is {found:?}, expected \"mergelens-dfa/1\"")]
    WrongFormat { path: String, found: String },
    #[error("{path}: letter {letter:?} appears twice in the alphabet")]
    DuplicateLetter { path: String, letter: String },
    #[error(
        "{path}: {what} {state} is out of range (the automaton has {states} states: 0..{states})"
    )]
    StateOutOfRange {
        path: String,
        what: &'static str,
        state: u64,
        states: u64,
    },
    #[error(
        "{path}: transition from state {from} uses letter {letter:?}, which is not in the alphabet"
    )]
    UnknownLetter {
        path: String,
        from: u64,
        letter: String,
    },
    #[error(
        "{path}: state {from} has two transitions on letter {letter:?} (to {to1} and {to2}); a DFA has at most one"
    )]
    Nondeterministic {
        path: String,
        from: u64,
        letter: String,
        to1: u64,
        to2: u64,
    },
    #[error("{path}: an automaton needs at least one state (the initial state)")]
    NoStates { path: String },
    #[error("{path}: {states} states is more than mergelens handles ({max})")]
    TooLarge { path: String, states: u64, max: u64 },
    #[error(
        "there are {count} accepted words of length at most {max_length}, more than the limit of {limit}; lower --max-length"
    )]
    TooManyWords {
        max_length: usize,
        count: String,
        limit: u64,
    },
    #[error("cannot write {path}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl HasKind for AutomatonError {
    fn kind(&self) -> FailureKind {
        match self {
            AutomatonError::Limit(e) => e.kind(),
            AutomatonError::Read { .. }
            | AutomatonError::Json { .. }
            | AutomatonError::WrongFormat { .. }
            | AutomatonError::DuplicateLetter { .. }
            | AutomatonError::StateOutOfRange { .. }
            | AutomatonError::UnknownLetter { .. }
            | AutomatonError::Nondeterministic { .. }
            | AutomatonError::NoStates { .. }
            | AutomatonError::TooLarge { .. }
            | AutomatonError::TooManyWords { .. } => FailureKind::BadInput,
            AutomatonError::Write { .. } => FailureKind::Failed,
        }
    }
}
