//! [`ReviewError`]: why a review or diff could not be made, naming the version and entry, and
//! what kind of failure that is.

use std::path::PathBuf;

use thiserror::Error;

use crate::cbmc::{CbmcError, CbmcRunError, CbmcTeacherError};
use crate::config::ConfigError;
use crate::cprog::FrontEndError;
use crate::document::Version;
use crate::failure::FailureKind;
use crate::git::GitError;
use crate::learn::LearnError;

/// Why a review or diff could not be made.
#[derive(Debug, Error)]
pub enum ReviewError {
    #[error("{0}")]
    Git(#[from] GitError),
    #[error("{0}")]
    Config(#[from] ConfigError),
    #[error("{0}")]
    Cbmc(#[from] CbmcError),
    #[error(
        "no C files to analyse in any version (looked for {what}); name them with `files` in .mergelens.toml or --files"
    )]
    NoSources { what: String },
    #[error(
        "files named with `files` in .mergelens.toml or --files match no C file in any version: {}; check the paths (repository-relative globs)",
        .files.join(", ")
    )]
    UnmatchedFiles { files: Vec<String> },
    #[error("the entry function `{entry}` is defined in no version; name another with --entry")]
    EntryNowhere { entry: String },
    #[error("{version} ({revision}), entry `{entry}`: {source}")]
    FrontEnd {
        version: Version,
        revision: String,
        entry: String,
        #[source]
        source: Box<FrontEndError>,
    },
    #[error("{version} ({revision}), entry `{entry}`: {source}")]
    Teacher {
        version: Version,
        revision: String,
        entry: String,
        #[source]
        source: Box<CbmcTeacherError>,
    },
    #[error("{version} ({entry}): learning failed: {source}")]
    Learn {
        version: Version,
        entry: String,
        #[source]
        source: Box<LearnError>,
    },
    /// The per-execution merge check failed (a CBMC timeout, crash, or a product program
    /// goto-cc rejects).
    #[error("{entry}: the per-execution merge check failed: {source}")]
    Product {
        entry: String,
        #[source]
        source: Box<CbmcRunError>,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ReviewError {
    /// A version's CBMC error, its paths relative to the version's checkout `root`.
    pub(crate) fn teacher(
        version: Version,
        revision: &str,
        root: &std::path::Path,
        entry: &str,
        source: CbmcTeacherError,
    ) -> ReviewError {
        ReviewError::Teacher {
            version,
            revision: revision.to_string(),
            entry: entry.to_string(),
            source: Box::new(source.relative_to(root)),
        }
    }

    /// A version's front-end error, its paths relative to the version's checkout `root`:
    /// a temporary directory means nothing to the user, the repository path and the
    /// revision do.
    pub(crate) fn front_end(
        version: Version,
        revision: &str,
        root: &std::path::Path,
        entry: &str,
        source: FrontEndError,
    ) -> ReviewError {
        ReviewError::FrontEnd {
            version,
            revision: revision.to_string(),
            entry: entry.to_string(),
            source: Box::new(source.relative_to(root)),
        }
    }

    /// The kind of the errors that are this module's own; `None` for those that wrap
    /// another subsystem's error, whose own kind applies (see [`crate::failure_kind`]).
    pub fn kind(&self) -> Option<FailureKind> {
        match self {
            ReviewError::NoSources { .. }
            | ReviewError::UnmatchedFiles { .. }
            | ReviewError::EntryNowhere { .. } => Some(FailureKind::BadInput),
            ReviewError::FrontEnd { source, .. } => Some(match **source {
                FrontEndError::Stopped { .. } => FailureKind::Failed,
                _ => FailureKind::BadInput,
            }),
            // The sources are boxed (they are large), which hides their types from the
            // chain's downcasts: decide here as `crate::failure_kind` does for them.
            ReviewError::Teacher { source, .. } => Some(if source.is_bad_input() {
                FailureKind::BadInput
            } else {
                FailureKind::Failed
            }),
            ReviewError::Io { .. } | ReviewError::Learn { .. } | ReviewError::Product { .. } => {
                Some(FailureKind::Failed)
            }
            ReviewError::Git(_) | ReviewError::Config(_) | ReviewError::Cbmc(_) => None,
        }
    }
}
