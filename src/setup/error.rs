//! [`SetupError`]: why `init`'s work on a repository failed, with its kind.

use std::path::PathBuf;

use crate::cbmc::CbmcError;
use crate::cbmc::learning::LearningError;
use crate::config::ConfigError;
use crate::cprog::FrontEndError;
use crate::failure::{FailureKind, HasKind};
use crate::git::GitError;

/// Why finding the program, writing its harness skeleton or learning it once failed.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// What the user asked for does not fit the repository (no C file, a glob that matches
    /// none, a function that cannot be the harness's).
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Git(#[from] GitError),
    /// A compilation database, or the user's configuration.
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    FrontEnd(#[from] FrontEndError),
    /// CBMC is missing or too old.
    #[error(transparent)]
    Toolchain(#[from] CbmcError),
    #[error("learning `{entry}` at small bounds")]
    Learning {
        entry: String,
        #[source]
        source: Box<LearningError>,
    },
    #[error("cannot read {}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot create a temporary directory")]
    TempDir(#[source] std::io::Error),
}

impl HasKind for SetupError {
    fn kind(&self) -> FailureKind {
        match self {
            SetupError::Usage(_) => FailureKind::BadInput,
            SetupError::Git(e) => e.kind(),
            SetupError::Config(e) => e.kind(),
            SetupError::FrontEnd(e) => e.kind(),
            SetupError::Toolchain(e) => e.kind(),
            SetupError::Learning { source, .. } => source.kind(),
            SetupError::Read { .. } | SetupError::TempDir(_) => FailureKind::Failed,
        }
    }
}
