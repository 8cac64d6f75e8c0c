//! [`GitError`]: why a repository, a revision, a merge or a hook could not be read, in one
//! line, and whether the user's input is to blame.

use std::path::PathBuf;

use thiserror::Error;

use crate::failure::{FailureKind, HasKind};

/// Why a repository, a revision or a merge could not be read.
#[derive(Debug, Error)]
pub enum GitError {
    #[error("{}: not a git repository (or any of its parents); run mergelens inside one", path.display())]
    NotARepository { path: PathBuf },
    #[error("the revision `{rev}` does not exist in this repository")]
    NoSuchRevision { rev: String },
    #[error(
        "{ours} and {theirs} have no merge base (unrelated histories): there is no common version to compare the branches' changes with"
    )]
    NoMergeBase { ours: String, theirs: String },
    #[error("the repository has no commit yet (HEAD is unborn)")]
    UnbornHead,
    /// `review --commit` of a commit that is no merge of two parents.
    #[error("{rev} is not a merge of two branches: it has {parents} parent(s); {what}")]
    NotAMerge {
        rev: String,
        parents: usize,
        what: &'static str,
    },
    #[error("{what}")]
    Git {
        what: String,
        #[source]
        source: git2::Error,
    },
    #[error("{}: cannot read or write", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: unsafe path in the tree ({why}); it was not written")]
    UnsafePath { path: String, why: &'static str },
    #[error("the hook cannot tell which branch is being merged: {0}")]
    HookContext(String),
    #[error("{}: {message}", path.display())]
    Hook { path: PathBuf, message: String },
}

impl HasKind for GitError {
    fn kind(&self) -> FailureKind {
        match self {
            GitError::NotARepository { .. }
            | GitError::NoSuchRevision { .. }
            | GitError::NoMergeBase { .. }
            | GitError::UnbornHead
            | GitError::NotAMerge { .. }
            | GitError::UnsafePath { .. }
            | GitError::HookContext(_)
            | GitError::Hook { .. } => FailureKind::BadInput,
            GitError::Git { .. } | GitError::Io { .. } => FailureKind::Failed,
        }
    }
}

pub(crate) fn git_err(what: impl Into<String>) -> impl FnOnce(git2::Error) -> GitError {
    let what = what.into();
    move |source| GitError::Git { what, source }
}
