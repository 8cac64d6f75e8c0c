//! The orchestration behind each command of the binary: read inputs, call the library,
//! write outputs. Errors are `anyhow` with context here, and only here; `crate::exit`
//! turns them into exit codes.

pub mod anytime;
pub mod audit;
pub mod automaton;
pub mod demo;
pub mod diff;
pub mod doctor;
pub mod explain;
pub mod hook;
pub mod init;
pub mod learn;
pub mod learn_target;
pub mod program;
pub mod report;
pub mod review;

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use mergelens::automaton::AutomatonError;

/// How a command that compares things ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done, and nothing differs.
    Success,
    /// Done, and a difference was found (exit code 1).
    Different,
    /// git could not merge the files textually (exit code 3, `exit::CONFLICT`).
    Conflict,
}

/// Writes `text` to `output`, or to standard output when there is none.
pub(crate) fn write_output(output: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|source| AutomatonError::Write {
            path: path.display().to_string(),
            source,
        })?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .context("cannot write to standard output")?;
        }
    }
    Ok(())
}
