//! What kind of failure an error is, so that a front end can answer it: the binary turns a
//! [`FailureKind`] into its documented exit code, a hook decides from it whether a merge may
//! go ahead. The library names no exit code; it only says whose fault a failure is.
//!
//! [`failure_kind`] reads the kind off one error of a chain; a front end walks the chain
//! (`anyhow::Error::chain`) and takes the first error that has one, the most specific.

use std::error::Error;

use crate::automaton::AutomatonError;
use crate::cbmc::{CbmcError, CbmcRunError, CbmcTeacherError};
use crate::config::ConfigError;
use crate::cprog::FrontEndError;
use crate::git::GitError;
use crate::report::ReportError;
use crate::review::ReviewError;

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

/// The kind of `error` when it is one of the library's errors that knows it; `None` for
/// errors that do not (the caller looks further down the chain).
pub fn failure_kind(error: &(dyn Error + 'static)) -> Option<FailureKind> {
    use FailureKind::{BadInput, Failed, MissingTool};
    let judged = |bad_input: bool| if bad_input { BadInput } else { Failed };
    if let Some(e) = error.downcast_ref::<GitError>() {
        return Some(judged(e.is_bad_input()));
    }
    if error.downcast_ref::<ConfigError>().is_some() {
        return Some(BadInput);
    }
    if let Some(e) = error.downcast_ref::<ReviewError>() {
        return e.kind();
    }
    if let Some(e) = error.downcast_ref::<AutomatonError>() {
        return Some(judged(!matches!(e, AutomatonError::Write { .. })));
    }
    if let Some(e) = error.downcast_ref::<ReportError>() {
        return Some(judged(e.is_bad_input()));
    }
    if error.downcast_ref::<CbmcError>().is_some() {
        return Some(MissingTool);
    }
    // The program is to blame for what the front end, goto-cc or CBMC reject; a query that
    // timed out or crashed is a failure of the run.
    if error.downcast_ref::<FrontEndError>().is_some() {
        return Some(BadInput);
    }
    if let Some(e) = error.downcast_ref::<CbmcTeacherError>() {
        return Some(judged(e.is_bad_input()));
    }
    if let Some(e) = error.downcast_ref::<CbmcRunError>() {
        return Some(judged(matches!(
            e,
            CbmcRunError::Compile { .. } | CbmcRunError::GotoCc { .. } | CbmcRunError::Cbmc { .. }
        )));
    }
    None
}
