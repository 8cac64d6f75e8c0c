//! [`ReportError`]: why a document could not be made into a report.

use thiserror::Error;

use crate::automaton::AutomatonError;
use crate::failure::{FailureKind, HasKind};

/// Everything that can stop a report from being made. Each message is one line that names
/// the input; all but [`ReportError::Template`] are the input's fault.
#[derive(Debug, Error)]
pub enum ReportError {
    #[error("{path}: cannot read")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not valid JSON")]
    Json {
        path: String,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "{path}: no \"format\" key; expected a mergelens-review/1, mergelens-diff/1, mergelens-audit/1 or mergelens-dfa/1 document"
    )]
    NoFormat { path: String },
    #[error(
        "{path}: format is {found:?}; mergelens report reads mergelens-review/1, mergelens-diff/1, mergelens-audit/1 and mergelens-dfa/1"
    )]
    UnknownFormat { path: String, found: String },
    #[error("{path}: not a valid {format} document")]
    Invalid {
        path: String,
        format: &'static str,
        #[source]
        source: serde_json::Error,
    },
    /// A document over the size budget of [`crate::limits`].
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
    /// A `mergelens-dfa/1` input that is not a valid automaton.
    #[error(transparent)]
    Automaton(#[from] AutomatonError),
    /// SARIF reports findings, which a learned or explained automaton has none of.
    #[error(
        "SARIF is written for reviews, diffs and audits; a learned or explained automaton has no findings (use html or md)"
    )]
    NoSarif,
    /// A bug rather than bad input: the templates are compiled in, so they only fail when
    /// writing into the output string fails.
    #[error("cannot render the HTML report")]
    Template(#[from] askama::Error),
}

impl ReportError {
    /// Whether the input is to blame (exit code 2), rather than mergelens (exit code 4).
    pub fn is_bad_input(&self) -> bool {
        self.kind() == FailureKind::BadInput
    }
}

impl HasKind for ReportError {
    fn kind(&self) -> FailureKind {
        match self {
            ReportError::Limit(e) => e.kind(),
            ReportError::Automaton(e) => e.kind(),
            ReportError::Read { .. }
            | ReportError::Json { .. }
            | ReportError::NoFormat { .. }
            | ReportError::UnknownFormat { .. }
            | ReportError::Invalid { .. }
            | ReportError::NoSarif => FailureKind::BadInput,
            ReportError::Template(_) => FailureKind::Failed,
        }
    }
}
