//! The documented exit codes of the `mergelens` binary.
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | success; for comparisons: no difference (`automaton equiv`: equivalent) |
//! | 1 | the command worked and found a difference (`automaton equiv`: not equivalent) |
//! | 2 | bad input or usage: a file that is not what it should be, a wrong flag or value |
//! | 3 | a tool mergelens needs is missing or too old (CBMC: run `scripts/install-cbmc.sh`) |
//! | 4 | a run failed for another reason (a write failed, a limit was hit) |

use crate::automaton::AutomatonError;
use crate::cbmc::CbmcError;
use crate::report::ReportError;

pub const SUCCESS: u8 = 0;
pub const DIFFERENT: u8 = 1;
pub const BAD_INPUT: u8 = 2;
pub const MISSING_TOOL: u8 = 3;
pub const FAILED: u8 = 4;

/// The exit code for an error, from the most specific error in its chain.
pub fn code_for(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
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
    }
    FAILED
}
