//! The documented exit codes of the `mergelens` binary: the only place that names them.
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | success; for comparisons: no difference (`automaton equiv`: equivalent) |
//! | 1 | the command worked and found a difference (`automaton equiv`: not equivalent) |
//! | 2 | bad input or usage: a file that is not what it should be, a wrong flag, value or combination, a revision that does not exist |
//! | 3 | `review`: git cannot merge the files textually (a conflict) |
//! | 4 | a run failed for another reason (a CBMC timeout or crash, a write failed, a limit was hit, an unreadable repository, an internal error); also an error no one gave a kind |
//! | 5 | a tool mergelens needs is missing or too old (CBMC: run `scripts/install-cbmc.sh`) |

use mergelens::{FailureKind, HasKind};

use crate::cli::{NotAShare, NotSeconds};
use crate::commands::review::UsageError;

pub const SUCCESS: u8 = 0;
pub const DIFFERENT: u8 = 1;
pub const BAD_INPUT: u8 = 2;
/// `mergelens review`: git cannot merge the files textually.
pub const CONFLICT: u8 = 3;
pub const FAILED: u8 = 4;
pub const MISSING_TOOL: u8 = 5;

/// The kind of one of the binary's own errors (the library's are
/// [`mergelens::failure_kind`]'s); a unit test fails when an error type of the binary is
/// missing here.
fn binary_kind(error: &(dyn std::error::Error + 'static)) -> Option<FailureKind> {
    if let Some(e) = error.downcast_ref::<UsageError>() {
        return Some(e.kind());
    }
    if let Some(e) = error.downcast_ref::<NotAShare>() {
        return Some(e.kind());
    }
    error.downcast_ref::<NotSeconds>().map(HasKind::kind)
}

/// The exit code for an error, from the outermost error in its chain that knows its kind
/// (its kind accounts for the causes it wraps); an error no one knows (an I/O error with
/// only a command's context) is a failed run.
pub fn code_for(error: &anyhow::Error) -> u8 {
    let kind = error
        .chain()
        .find_map(|cause| binary_kind(cause).or_else(|| mergelens::failure_kind(cause)));
    match kind {
        Some(FailureKind::BadInput) => BAD_INPUT,
        Some(FailureKind::MissingTool) => MISSING_TOOL,
        Some(FailureKind::Failed) | None => FAILED,
    }
}

impl HasKind for UsageError {
    fn kind(&self) -> FailureKind {
        FailureKind::BadInput
    }
}

impl HasKind for NotAShare {
    fn kind(&self) -> FailureKind {
        FailureKind::BadInput
    }
}

impl HasKind for NotSeconds {
    fn kind(&self) -> FailureKind {
        FailureKind::BadInput
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error types the binary's own files declare.
    fn declared() -> Vec<String> {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut names = Vec::new();
        let mut dirs = vec![src.join("commands"), src.join("cli")];
        let mut files = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        for path in files {
            let text = std::fs::read_to_string(path).unwrap();
            let text = text
                .split("#[cfg(test)]\nmod tests")
                .next()
                .unwrap_or_default();
            let mut derived = false;
            for line in text.lines().map(str::trim) {
                if line.starts_with("#[derive(") && line.contains("Error") {
                    derived = true;
                } else if derived && !line.starts_with('#') && !line.starts_with("///") {
                    let words: Vec<&str> = line.split([' ', '(', '{', ';']).collect();
                    if let Some(at) = words.iter().position(|w| *w == "enum" || *w == "struct") {
                        names.push(words[at + 1].to_string());
                    }
                    derived = false;
                }
            }
        }
        names.sort();
        names
    }

    #[test]
    fn every_error_type_of_the_binary_has_a_kind() {
        assert_eq!(declared(), ["NotAShare", "NotSeconds", "UsageError"]);
        let usage = anyhow::Error::new(UsageError("--x".into())).context("learning");
        assert_eq!(code_for(&usage), BAD_INPUT);
        let explain = anyhow::Error::new(mergelens::language::ExplainError::NoAssertion);
        assert_eq!(code_for(&explain), BAD_INPUT);
    }

    #[test]
    fn a_library_error_gives_its_kind_and_an_unknown_one_fails() {
        let missing = anyhow::Error::new(mergelens::cbmc::CbmcError::NotFound {
            searched: "PATH".into(),
        });
        assert_eq!(code_for(&missing), MISSING_TOOL);
        let io = anyhow::Error::new(std::io::Error::other("disk")).context("writing");
        assert_eq!(code_for(&io), FAILED);
    }
}
