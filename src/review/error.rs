//! [`ReviewError`]: why a review or diff could not be made, naming the version and entry, and
//! what kind of failure that is.

use std::path::PathBuf;

use thiserror::Error;

use crate::cbmc::{CbmcError, CbmcRunError, CbmcTeacherError};
use crate::config::ConfigError;
use crate::cprog::FrontEndError;
use crate::document::Version;
use crate::failure::{FailureKind, HasKind};
use crate::git::GitError;
use crate::learn::LearnError;

/// Why a review or diff could not be made.
#[derive(Debug, Error)]
pub enum ReviewError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
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
    /// Neither branch named, and no merge in progress.
    #[error("name the branch to merge: mergelens review [OURS] THEIRS")]
    NoBranch,
    #[error("the entry function `{entry}` is defined in no version; name another with --entry")]
    EntryNowhere { entry: String },
    #[error("{version} ({revision}), entry `{entry}`")]
    FrontEnd {
        version: Version,
        revision: String,
        entry: String,
        #[source]
        source: Box<FrontEndError>,
    },
    #[error("{version} ({revision}), entry `{entry}`")]
    Teacher {
        version: Version,
        revision: String,
        entry: String,
        #[source]
        source: Box<CbmcTeacherError>,
    },
    #[error("{version} ({entry}): learning failed")]
    Learn {
        version: Version,
        entry: String,
        #[source]
        source: Box<LearnError>,
    },
    /// The per-execution merge check failed (a CBMC timeout, crash, or a product program
    /// goto-cc rejects).
    #[error("{entry}: the per-execution merge check failed")]
    Product {
        entry: String,
        #[source]
        source: Box<CbmcRunError>,
    },
    #[error("{}: cannot set up the run", path.display())]
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
}

impl HasKind for ReviewError {
    fn kind(&self) -> FailureKind {
        match self {
            ReviewError::NoSources { .. }
            | ReviewError::UnmatchedFiles { .. }
            | ReviewError::EntryNowhere { .. }
            | ReviewError::NoBranch => FailureKind::BadInput,
            ReviewError::Git(e) => e.kind(),
            ReviewError::Config(e) => e.kind(),
            ReviewError::Cbmc(e) => e.kind(),
            ReviewError::FrontEnd { source, .. } => source.kind(),
            ReviewError::Teacher { source, .. } => source.kind(),
            ReviewError::Learn { source, .. } => source.kind(),
            // The product program is mergelens's own: goto-cc or CBMC failing on it is a
            // failed run, not the program's fault.
            ReviewError::Product { .. } => FailureKind::Failed,
            ReviewError::Io { .. } => FailureKind::Failed,
        }
    }
}
