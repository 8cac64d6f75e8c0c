//! The documented exit codes of the `mergelens` binary: the only place that names them.
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | success; for comparisons: no difference (`automaton equiv`: equivalent) |
//! | 1 | the command worked and found a difference (`automaton equiv`: not equivalent) |
//! | 2 | bad input or usage: a file that is not what it should be, a wrong flag or value |
//! | 3 | `review`: git cannot merge the files textually (a conflict) |
//! | 4 | a run failed for another reason (a CBMC timeout or crash, a write failed, a limit was hit) |
//! | 5 | a tool mergelens needs is missing or too old (CBMC: run `scripts/install-cbmc.sh`) |

use mergelens::FailureKind;

use crate::commands::{explain::ExplainError, review::UsageError};

pub const SUCCESS: u8 = 0;
pub const DIFFERENT: u8 = 1;
pub const BAD_INPUT: u8 = 2;
/// `mergelens review`: git cannot merge the files textually.
pub const CONFLICT: u8 = 3;
pub const FAILED: u8 = 4;
pub const MISSING_TOOL: u8 = 5;

/// The exit code for an error, from the most specific error in its chain that knows its
/// kind: the commands' own usage errors, then the library's ([`mergelens::failure_kind`]).
pub fn code_for(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if cause.downcast_ref::<UsageError>().is_some()
            || cause.downcast_ref::<ExplainError>().is_some()
        {
            return BAD_INPUT;
        }
        if let Some(kind) = mergelens::failure_kind(cause) {
            return match kind {
                FailureKind::BadInput => BAD_INPUT,
                FailureKind::MissingTool => MISSING_TOOL,
                FailureKind::Failed => FAILED,
            };
        }
    }
    FAILED
}
