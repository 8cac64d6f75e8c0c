//! [`LanguageError`], why learning or explaining a program failed, and [`ExplainError`],
//! why no assertion to explain could be chosen; each with its kind.

use crate::cbmc::{CbmcError, CbmcRunError, CbmcTeacherError};
use crate::config::ConfigError;
use crate::cprog::FrontEndError;
use crate::failure::{FailureKind, HasKind};
use crate::learn::LearnError;

/// Why learning or explaining a program failed.
#[derive(Debug, thiserror::Error)]
pub enum LanguageError {
    #[error(transparent)]
    FrontEnd(#[from] FrontEndError),
    /// CBMC is missing or too old.
    #[error(transparent)]
    Toolchain(#[from] CbmcError),
    /// A CBMC run outside the learner's queries: listing assertions, compiling for traces.
    #[error(transparent)]
    CbmcRun(#[from] CbmcRunError),
    /// CBMC could not answer a query; the error names the query and the bounds.
    #[error(transparent)]
    Teacher(#[from] CbmcTeacherError),
    /// The user's configuration (`UserConfig`) that says where CBMC is.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The learner gave up; `doing` names the run (`learning `main` at --unwind 2 ...`).
    #[error("{doing}")]
    Learn {
        doing: String,
        #[source]
        source: LearnError,
    },
    /// A teacher's error that is not CBMC's.
    #[error(transparent)]
    OtherTeacher(Box<dyn std::error::Error + Send + Sync>),
    /// No assertion to explain could be chosen.
    #[error(transparent)]
    Explain(#[from] ExplainError),
    #[error("cannot create a temporary directory")]
    TempDir(#[source] std::io::Error),
    #[error("cannot read the current directory")]
    CurrentDir(#[source] std::io::Error),
    #[error("cannot create the trace directory {}", .dir.display())]
    TraceDir {
        dir: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the trace {}", .path.display())]
    WriteTrace {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl HasKind for LanguageError {
    fn kind(&self) -> FailureKind {
        match self {
            LanguageError::FrontEnd(e) => e.kind(),
            LanguageError::Toolchain(e) => e.kind(),
            LanguageError::CbmcRun(e) => e.kind(),
            LanguageError::Teacher(e) => e.kind(),
            LanguageError::Config(e) => e.kind(),
            LanguageError::Learn { source, .. } => source.kind(),
            LanguageError::Explain(e) => e.kind(),
            LanguageError::OtherTeacher(_)
            | LanguageError::TempDir(_)
            | LanguageError::CurrentDir(_)
            | LanguageError::TraceDir { .. }
            | LanguageError::WriteTrace { .. } => FailureKind::Failed,
        }
    }
}

/// Why no target could be chosen; all are bad input.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// Several assertions fail within the bounds: the user names one. One line per
    /// assertion after the message.
    #[error(
        "{} assertions can fail within the bounds; name one with --assertion ID or --line FILE:LINE:\n{}",
        .failing.len(),
        .failing.join("\n")
    )]
    Choose { failing: Vec<String> },
    /// `--assertion ID` names no assertion of the program.
    #[error(
        "the program has no assertion `{id}`; its assertions are:\n{}",
        list_or_none(.existing)
    )]
    UnknownProperty { id: String, existing: Vec<String> },
    /// A malformed option, e.g. `--line` without a line number.
    #[error("{message}")]
    Usage { message: String },
    /// The program has no assertion at all.
    #[error(
        "the program has no assertion to explain (CBMC finds none); add one, or use `mergelens learn`"
    )]
    NoAssertion,
}

impl HasKind for ExplainError {
    fn kind(&self) -> FailureKind {
        match self {
            ExplainError::Choose { .. }
            | ExplainError::UnknownProperty { .. }
            | ExplainError::Usage { .. }
            | ExplainError::NoAssertion => FailureKind::BadInput,
        }
    }
}

fn list_or_none(lines: &[String]) -> String {
    if lines.is_empty() {
        "(none)".to_string()
    } else {
        lines.join("\n")
    }
}
