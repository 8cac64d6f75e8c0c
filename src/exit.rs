//! The documented exit codes of the `mergelens` binary.
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | success; for comparisons: no difference (`automaton equiv`: equivalent) |
//! | 1 | the command worked and found a difference (`automaton equiv`: not equivalent) |
//! | 2 | bad input or usage: a file that is not what it should be, a wrong flag or value |
//! | 3 | `review`: git cannot merge the files textually (a conflict) |
//! | 4 | a run failed for another reason (a CBMC timeout or crash, a write failed, a limit was hit) |
//! | 5 | a tool mergelens needs is missing or too old (CBMC: run `scripts/install-cbmc.sh`) |

use crate::automaton::AutomatonError;
use crate::cbmc::{CbmcError, CbmcRunError, CbmcTeacherError};
use crate::cprog::FrontEndError;
use crate::report::ReportError;

pub const SUCCESS: u8 = 0;
pub const DIFFERENT: u8 = 1;
pub const BAD_INPUT: u8 = 2;
/// `mergelens review`: git cannot merge the files textually.
pub const CONFLICT: u8 = 3;
pub const FAILED: u8 = 4;
pub const MISSING_TOOL: u8 = 5;

/// The exit code for an error, from the most specific error in its chain.
pub fn code_for(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<crate::git::GitError>() {
            return if e.is_bad_input() { BAD_INPUT } else { FAILED };
        }
        if cause.downcast_ref::<crate::config::ConfigError>().is_some()
            || cause
                .downcast_ref::<crate::commands::review::UsageError>()
                .is_some()
            || cause
                .downcast_ref::<crate::commands::explain::ExplainError>()
                .is_some()
        {
            return BAD_INPUT;
        }
        if let Some(code) = cause
            .downcast_ref::<crate::review::ReviewError>()
            .and_then(crate::review::ReviewError::own_exit_code)
        {
            return code;
        }
        if let Some(e) = cause.downcast_ref::<AutomatonError>() {
            return match e {
                AutomatonError::Write { .. } => FAILED,
                _ => BAD_INPUT,
            };
        }
        if let Some(e) = cause.downcast_ref::<ReportError>() {
            return if e.is_bad_input() { BAD_INPUT } else { FAILED };
        }
        if cause.downcast_ref::<CbmcError>().is_some() {
            return MISSING_TOOL;
        }
        // The program is to blame for what the front end, goto-cc or CBMC reject; a query
        // that timed out or crashed is a failure of the run.
        if cause.downcast_ref::<FrontEndError>().is_some() {
            return BAD_INPUT;
        }
        if let Some(e) = cause.downcast_ref::<CbmcTeacherError>() {
            return if e.is_bad_input() { BAD_INPUT } else { FAILED };
        }
        if let Some(e) = cause.downcast_ref::<CbmcRunError>() {
            return match e {
                CbmcRunError::Compile { .. }
                | CbmcRunError::GotoCc { .. }
                | CbmcRunError::Cbmc { .. } => BAD_INPUT,
                _ => FAILED,
            };
        }
    }
    FAILED
}
