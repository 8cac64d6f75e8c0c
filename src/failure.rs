//! What kind of failure an error is, so that a front end can answer it: the binary turns a
//! [`FailureKind`] into its documented exit code, a hook decides from it whether a merge may
//! go ahead. The library names no exit code; it only says whose fault a failure is.
//!
//! This module is a leaf, so that every subsystem's error can say its kind;
//! [`crate::failure_kind`] reads the kind off one error of a chain, and a front end walks the
//! chain (`anyhow::Error::chain`) and takes the first error that has one, the most specific.

/// Whose fault a failure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The input is wrong: a file that is not what it should be, a program the front end,
    /// goto-cc or CBMC rejects, a revision that does not exist. The user can fix it.
    BadInput,
    /// A tool mergelens needs (CBMC) is missing or too old.
    MissingTool,
    /// The run failed for another reason: a CBMC timeout or crash, a write that failed, a
    /// limit that was hit, an internal error.
    Failed,
}
