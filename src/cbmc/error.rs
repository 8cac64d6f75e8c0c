use std::path::PathBuf;

use thiserror::Error;

use crate::failure::{FailureKind, HasKind};

/// Everything that can go wrong while compiling a program version or answering a query
/// with CBMC. Each variant prints as one line.
///
/// A query never degrades into an answer: a timeout or a crash is an error, not "no".
#[derive(Debug, Error)]
pub enum CbmcRunError {
    /// `goto-cc` rejected the program; `file:line` is the user's source position, since
    /// instrumented files keep `#line` markers.
    #[error("{file}:{line}: {message}")]
    Compile {
        file: String,
        line: u32,
        message: String,
    },
    /// `goto-cc` failed without naming a source position (a link error, a missing file).
    #[error("goto-cc failed ({status}): {message}")]
    GotoCc { status: String, message: String },
    /// CBMC exited abnormally (a signal, an exit code other than 0 and 10) without
    /// reporting an error of its own.
    #[error("{tool} exited abnormally ({status}): {stderr_tail}")]
    Crashed {
        tool: &'static str,
        status: String,
        stderr_tail: String,
    },
    /// CBMC reported an error in its output, e.g. that the entry function does not exist.
    #[error("CBMC failed: {message}")]
    Cbmc { message: String },
    /// CBMC's `--json-ui` output could not be read or lacks a property the harness has.
    #[error("unreadable CBMC --json-ui output: {reason}")]
    Json { reason: String },
    /// The program calls the hooks against the contract (e.g. with a letter outside the
    /// alphabet), so no answer derived from it could be trusted.
    #[error("the instrumented program breaks the hook contract: {message}")]
    Contract { message: String },
    /// The query did not finish in time; CBMC's process group was killed.
    #[error(
        "CBMC timed out after {seconds:.3} s on {what} (unwind {unwind}, max word length {max_word_length})"
    )]
    Timeout {
        what: String,
        unwind: u32,
        max_word_length: usize,
        seconds: f64,
    },
    /// A run without a deadline of its own passed the query timeout, or a run wrote more
    /// output than mergelens reads (the tool's process group was killed).
    #[error("{tool} stopped: it {what}")]
    Limit { tool: &'static str, what: String },
    /// The run needed more memory than `memory-limit` allows; its allocations failed.
    #[error(
        "{tool} ran out of memory: it needed more than the memory limit of {limit_mib} MiB (raise --memory-limit, or lower the bounds)"
    )]
    OutOfMemory { tool: &'static str, limit_mib: u64 },
    /// The run was stopped (Ctrl-C, `--time-budget`) before CBMC answered.
    #[error("stopped before CBMC answered: {reason}")]
    Stopped { reason: crate::stop::StopReason },
    #[error("{}: cannot read or write", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl CbmcRunError {
    /// The same error with the paths under `root` (a review's checkout of a version) made
    /// relative to it: a temporary directory means nothing to the user.
    pub fn relative_to(mut self, root: &std::path::Path) -> CbmcRunError {
        let roots = [
            root.to_path_buf(),
            root.canonicalize().unwrap_or_else(|_| root.to_path_buf()),
        ];
        let strip = |text: &mut String| {
            for r in &roots {
                *text = text.replace(&format!("{}/", r.display()), "");
            }
        };
        match &mut self {
            CbmcRunError::Compile { file, message, .. } => {
                strip(file);
                strip(message);
            }
            CbmcRunError::GotoCc { message, .. }
            | CbmcRunError::Cbmc { message }
            | CbmcRunError::Contract { message } => strip(message),
            CbmcRunError::Crashed { stderr_tail, .. } => strip(stderr_tail),
            _ => {}
        }
        self
    }

    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CbmcRunError {
        let path = path.into();
        move |source| CbmcRunError::Io { path, source }
    }
}

impl HasKind for CbmcRunError {
    /// The program is to blame for what goto-cc or CBMC reject; a run that timed out,
    /// crashed or hit a limit is a failure of the run.
    fn kind(&self) -> FailureKind {
        match self {
            CbmcRunError::Compile { .. }
            | CbmcRunError::GotoCc { .. }
            | CbmcRunError::Cbmc { .. } => FailureKind::BadInput,
            CbmcRunError::Crashed { .. }
            | CbmcRunError::Json { .. }
            | CbmcRunError::Contract { .. }
            | CbmcRunError::Timeout { .. }
            | CbmcRunError::Limit { .. }
            | CbmcRunError::OutOfMemory { .. }
            | CbmcRunError::Stopped { .. }
            | CbmcRunError::Io { .. } => FailureKind::Failed,
        }
    }
}
