//! Which files are system headers, and which files a version under review may read: decided
//! by where a file really is, never by what the text says of itself.
//!
//! Key type: [`Places`], built once per front-end run from gcc's own system include
//! directories ([`system_include_dirs`], asked of `gcc -xc -E -v /dev/null`), mergelens's
//! header directory and, for a version under review, the directories it is confined to.
//!
//! Why not gcc's flag 3: the line marker `# 12 "x.h" 3` that says "system header" is written
//! by gcc, but on request of the text too — a line directive in the source, or
//! `#pragma GCC system_header` (also as `_Pragma` out of a macro) in a header of the
//! checkout. A function below such a marker would drop out of the alphabet. So a region is
//! a system header's only when its file lies in one of gcc's system include directories
//! (see [`super::preprocess::map_lines`] for the one exception, the tokens of a system
//! macro expanded in the user's code).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::error::FrontEndError;

/// The places a front-end run knows: where system headers are, and where a version under
/// review may read.
#[derive(Clone, Debug)]
pub(crate) struct Places {
    /// Canonical: gcc's system include directories and mergelens's own header directory.
    system: Vec<PathBuf>,
    /// Canonical: the checkout, the trusted include directories and harness files; `None`
    /// for the user's own files (`learn`, `explain`), which may read anything.
    confined_to: Option<Vec<PathBuf>>,
}

impl Places {
    /// The places of a run whose header directory is `header_dir`, confined (a version
    /// under review) or not.
    pub(crate) fn new(
        header_dir: &Path,
        confine_to: Option<&[PathBuf]>,
    ) -> Result<Places, FrontEndError> {
        let mut system = system_include_dirs()?.to_vec();
        system.extend(header_dir.canonicalize().ok());
        let confined_to = confine_to.map(|dirs| {
            dirs.iter()
                .filter_map(|d| d.canonicalize().ok())
                .collect::<Vec<_>>()
        });
        Ok(Places {
            system,
            confined_to,
        })
    }

    /// Places with the given system directories and no confinement (tests).
    #[cfg(test)]
    pub(crate) fn with_system(system: Vec<PathBuf>) -> Places {
        Places {
            system,
            confined_to: None,
        }
    }

    /// Places confined to `roots` (tests).
    #[cfg(test)]
    pub(crate) fn confined_for_test(system: Vec<PathBuf>, roots: Vec<PathBuf>) -> Places {
        Places {
            system,
            confined_to: Some(roots),
        }
    }

    /// Whether `name` (as gcc wrote it) is a file in a system include directory.
    pub(crate) fn is_system(&self, name: &str) -> bool {
        !name.starts_with('<') && under(name, &self.system)
    }

    /// Whether the run may read `name`: always when it is not confined; else gcc's own
    /// pseudo files (`<built-in>`, `<command-line>`), system headers, and files inside the
    /// confinement.
    pub(crate) fn may_read(&self, name: &str) -> bool {
        let Some(roots) = &self.confined_to else {
            return true;
        };
        name.starts_with('<') || self.is_system(name) || under(name, roots)
    }

    /// Whether this run reads a version under review.
    pub(crate) fn confined(&self) -> bool {
        self.confined_to.is_some()
    }
}

/// Whether the file `name` really lies beneath one of `roots` (all canonical).
fn under(name: &str, roots: &[PathBuf]) -> bool {
    Path::new(name)
        .canonicalize()
        .is_ok_and(|p| roots.iter().any(|r| p.starts_with(r)))
}

/// gcc's system include directories (`#include <...>` search list without any flag of the
/// user's), canonical; asked once per process. A query the run's stop cut short is a stop
/// (no fault of the program's, and not kept: a later run asks again).
pub(crate) fn system_include_dirs() -> Result<&'static [PathBuf], FrontEndError> {
    static DIRS: OnceLock<Result<Vec<PathBuf>, String>> = OnceLock::new();
    if let Some(dirs) = DIRS.get() {
        return known(dirs);
    }
    let asked = match ask_gcc() {
        Asked::Stopped => {
            return Err(FrontEndError::Stopped {
                file: PathBuf::from("/dev/null"),
                reason: crate::stop::stop_reason().unwrap_or(crate::stop::StopReason::Interrupted),
            });
        }
        Asked::Answer(answer) => answer,
    };
    known(DIRS.get_or_init(|| asked))
}

fn known(dirs: &Result<Vec<PathBuf>, String>) -> Result<&[PathBuf], FrontEndError> {
    dirs.as_deref()
        .map_err(|message| FrontEndError::Preprocess {
            file: PathBuf::from("/dev/null"),
            message: message.clone(),
        })
}

/// What asking gcc gave: its directories or why not, or nothing because the run was
/// stopped.
enum Asked {
    Answer(Result<Vec<PathBuf>, String>),
    Stopped,
}

fn ask_gcc() -> Asked {
    use crate::process::{self, Ran};
    let mut cmd = Command::new("gcc");
    cmd.args(["-xc", "-E", "-v", "/dev/null"]);
    let why = "cannot ask gcc for its system include directories (`gcc -xc -E -v /dev/null`)";
    Asked::Answer(
        match process::run_bounded(cmd, process::tool_deadline(), process::MAX_TOOL_OUTPUT) {
            Ok(Ran::Finished { status, stderr, .. }) if status.success() => {
                let dirs = search_list(&String::from_utf8_lossy(&stderr));
                if dirs.is_empty() {
                    Err(format!("{why}: it listed none"))
                } else {
                    Ok(dirs)
                }
            }
            Ok(Ran::Stopped) => return Asked::Stopped,
            Ok(_) => Err(format!("{why}: it failed or timed out")),
            Err(e) => Err(format!("{why}: {e}; install gcc")),
        },
    )
}

/// The directories of `gcc -v`'s `#include <...>` search list, canonical (those that exist).
fn search_list(stderr: &str) -> Vec<PathBuf> {
    stderr
        .lines()
        .skip_while(|l| !l.starts_with("#include <...> search starts here"))
        .skip(1)
        .take_while(|l| !l.starts_with("End of search list"))
        .map(|l| l.trim().trim_end_matches(" (framework directory)"))
        .filter_map(|d| Path::new(d).canonicalize().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gccs_search_list_is_read() {
        let stderr = "ignoring nonexistent directory \"/x\"\n#include \"...\" search starts here:\n#include <...> search starts here:\n /usr/include\n /nonexistent/dir\nEnd of search list.\n";
        assert_eq!(search_list(stderr), vec![PathBuf::from("/usr/include")]);
    }

    #[test]
    fn system_headers_are_where_gcc_finds_them() {
        let dirs = system_include_dirs().unwrap();
        assert!(dirs.iter().any(|d| d.join("stdio.h").exists()), "{dirs:?}");
        let places = Places::with_system(dirs.to_vec());
        assert!(places.is_system("/usr/include/stdio.h"));
        assert!(!places.is_system("/etc/passwd"));
        assert!(!places.is_system("/usr/include/../../etc/passwd"));
        assert!(!places.is_system("<built-in>"));
    }
}
