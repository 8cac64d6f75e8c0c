use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::failure::{FailureKind, HasKind};
use thiserror::Error;

/// The oldest CBMC whose `--json-ui` output and `goto-cc` linking mergelens relies on.
pub const MIN_VERSION: Version = Version {
    major: 5,
    minor: 12,
    patch: 0,
};

const INSTALL_HINT: &str =
    "run scripts/install-cbmc.sh (or pass --cbmc PATH, or set MERGELENS_CBMC)";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    /// Reads the first line of `cbmc --version`, for example `6.6.0 (cbmc-6.6.0)`.
    pub fn parse(text: &str) -> Option<Version> {
        let first = text.split_whitespace().next()?;
        let mut parts = first.split('.').map(|p| p.parse::<u32>());
        let major = parts.next()?.ok()?;
        let minor = parts.next()?.ok()?;
        let patch = parts.next().and_then(Result::ok).unwrap_or(0);
        Some(Version {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[derive(Debug, Error)]
pub enum CbmcError {
    #[error("CBMC not found (looked in {searched}); {INSTALL_HINT}")]
    NotFound { searched: String },
    #[error("{path}: does not run as CBMC ({reason}); {INSTALL_HINT}")]
    Broken { path: PathBuf, reason: String },
    #[error("{path}: CBMC {found} is older than the {MIN_VERSION} mergelens needs; {INSTALL_HINT}")]
    TooOld { path: PathBuf, found: Version },
    #[error("{path}: CBMC found, but {tool} is missing beside it; {INSTALL_HINT}")]
    MissingCompanion { path: PathBuf, tool: &'static str },
}

impl HasKind for CbmcError {
    fn kind(&self) -> FailureKind {
        match self {
            CbmcError::NotFound { .. }
            | CbmcError::Broken { .. }
            | CbmcError::TooOld { .. }
            | CbmcError::MissingCompanion { .. } => FailureKind::MissingTool,
        }
    }
}

/// The CBMC tools mergelens runs, all from one installation, and the one setting of CBMC's
/// C library model that every run on a program shares ([`Allocations`]).
#[derive(Clone, Debug)]
pub struct Toolchain {
    pub cbmc: PathBuf,
    pub goto_cc: PathBuf,
    pub goto_instrument: PathBuf,
    pub version: Version,
    pub allocations: Allocations,
}

/// Whether an allocation (`malloc`, `calloc`, `realloc`) may fail in the executions a query
/// asks about. Part of what every answer means, so of every cache key that holds answers
/// ([`Allocations::key`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Allocations {
    /// CBMC 6's model: any allocation may return `NULL`, and what the program does then
    /// (its clean-up paths) is behaviour like any other.
    #[default]
    MayFail,
    /// Every allocation succeeds (`cbmc --no-malloc-may-fail`): the words of executions in
    /// which one fails are left out. On a parser that frees what it built whenever an
    /// allocation fails, those clean-up paths are most of CBMC's formula.
    Succeed,
}

impl Allocations {
    /// The option's value (`--allocations`), as outputs name it.
    pub fn name(self) -> &'static str {
        match self {
            Allocations::MayFail => "may-fail",
            Allocations::Succeed => "succeed",
        }
    }

    /// The model of this name (`.mergelens.toml`'s `allocations`).
    pub fn from_name(name: &str) -> Option<Allocations> {
        [Allocations::MayFail, Allocations::Succeed]
            .into_iter()
            .find(|a| a.name() == name)
    }

    /// The note a document's bounds carry when executions were left out, so that no
    /// reader takes its guarantee for the whole language.
    pub fn note(self) -> Option<&'static str> {
        match self {
            Allocations::MayFail => None,
            Allocations::Succeed => Some(
                "Allocations were assumed to succeed (--allocations succeed): executions in which malloc, calloc or realloc fails are in no automaton here.",
            ),
        }
    }

    /// What a cache key adds: nothing for the default, so that answers stored before the
    /// option existed stay valid.
    pub fn key(self) -> &'static str {
        match self {
            Allocations::MayFail => "",
            Allocations::Succeed => ";allocations=succeed",
        }
    }
}

impl Toolchain {
    /// Finds CBMC: `explicit` (the `--cbmc` flag), then `$MERGELENS_CBMC` (either may name
    /// the `cbmc` binary or its directory), then the private prefix `scripts/install-cbmc.sh`
    /// installs into, then `PATH`. `goto-cc` and `goto-instrument` come from beside `cbmc`, so
    /// that all three are of one installation.
    pub fn locate(explicit: Option<&Path>) -> Result<Toolchain, CbmcError> {
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        Self::locate_in(
            explicit,
            env("MERGELENS_CBMC"),
            private_prefix_bin(),
            env("PATH"),
        )
    }

    fn locate_in(
        explicit: Option<&Path>,
        from_env: Option<OsString>,
        prefix_bin: Option<PathBuf>,
        path_var: Option<OsString>,
    ) -> Result<Toolchain, CbmcError> {
        // A CBMC the user names is the only candidate: falling back to another one would
        // hide their mistake.
        if let Some(named) = explicit.map(PathBuf::from).or(from_env.map(PathBuf::from)) {
            let cbmc = if named.is_dir() {
                named.join("cbmc")
            } else {
                named
            };
            if cbmc.is_file() {
                return Self::check(cbmc);
            }
            return Err(CbmcError::NotFound {
                searched: cbmc.display().to_string(),
            });
        }
        let mut searched = Vec::new();
        let path_dirs = path_var.iter().flat_map(std::env::split_paths);
        for dir in prefix_bin.into_iter().chain(path_dirs) {
            let cbmc = dir.join("cbmc");
            if cbmc.is_file() {
                return Self::check(cbmc);
            }
            searched.push(dir.display().to_string());
        }
        Err(CbmcError::NotFound {
            searched: if searched.is_empty() {
                "nowhere: PATH is empty".to_string()
            } else {
                searched.join(", ")
            },
        })
    }

    fn check(cbmc: PathBuf) -> Result<Toolchain, CbmcError> {
        let output = version_output(&cbmc).map_err(|e| CbmcError::Broken {
            path: cbmc.clone(),
            reason: e.to_string(),
        })?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let version = Version::parse(&stdout)
            .filter(|_| output.status.success())
            .ok_or_else(|| CbmcError::Broken {
                path: cbmc.clone(),
                reason: format!(
                    "`--version` printed {:?}",
                    first_line(&stdout, &String::from_utf8_lossy(&output.stderr))
                ),
            })?;
        if version < MIN_VERSION {
            return Err(CbmcError::TooOld {
                path: cbmc,
                found: version,
            });
        }
        let dir = cbmc.parent().unwrap_or(Path::new("."));
        let companion = |tool: &'static str| {
            let p = dir.join(tool);
            if p.is_file() {
                Ok(p)
            } else {
                Err(CbmcError::MissingCompanion {
                    path: cbmc.clone(),
                    tool,
                })
            }
        };
        Ok(Toolchain {
            goto_cc: companion("goto-cc")?,
            goto_instrument: companion("goto-instrument")?,
            cbmc,
            version,
            allocations: Allocations::default(),
        })
    }
}

fn first_line(stdout: &str, stderr: &str) -> String {
    let text = if stdout.trim().is_empty() {
        stderr
    } else {
        stdout
    };
    text.lines().next().unwrap_or("").trim().to_string()
}

/// `$MERGELENS_CBMC_PREFIX/bin`, else `$XDG_DATA_HOME/mergelens/cbmc/bin`, else
/// `~/.local/share/mergelens/cbmc/bin`: the same rule as `scripts/install-cbmc.sh`.
pub(crate) fn private_prefix_bin() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let prefix = var("MERGELENS_CBMC_PREFIX")
        .or_else(|| var("XDG_DATA_HOME").map(|d| d.join("mergelens/cbmc")))
        .or_else(|| var("HOME").map(|h| h.join(".local/share/mergelens/cbmc")))?;
    Some(prefix.join("bin"))
}

/// `cbmc --version`'s output. A file just written is "busy" while a process forked at that
/// moment (by another thread) still holds it open: that passes, so it is asked again.
fn version_output(cbmc: &Path) -> std::io::Result<std::process::Output> {
    let mut tries = 0;
    loop {
        match Command::new(cbmc).arg("--version").output() {
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && tries < 50 => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            result => return result,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn parses_versions() {
        let v = Version::parse("6.6.0 (cbmc-6.6.0)\n").unwrap();
        assert_eq!(v.to_string(), "6.6.0");
        assert!(Version::parse("5.11").unwrap() < MIN_VERSION);
        assert!(Version::parse("5.12.3").unwrap() >= MIN_VERSION);
        assert_eq!(Version::parse("cbmc"), None);
    }

    fn fake_tool(dir: &Path, name: &str, version: &str) {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\necho '{version} (fake)'\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn reports_missing_and_too_old_cbmc_naming_the_installer() {
        let dir = tempfile::tempdir().unwrap();
        let err = Toolchain::locate_in(None, None, Some(dir.path().into()), None).unwrap_err();
        assert!(matches!(err, CbmcError::NotFound { .. }));
        assert!(err.to_string().contains("scripts/install-cbmc.sh"));

        fake_tool(dir.path(), "cbmc", "5.10.0");
        let err = Toolchain::locate_in(None, None, Some(dir.path().into()), None).unwrap_err();
        assert!(matches!(err, CbmcError::TooOld { .. }), "{err}");
        assert!(err.to_string().contains("scripts/install-cbmc.sh"));
    }

    #[test]
    fn explicit_path_comes_first_and_needs_its_companions() {
        let old = tempfile::tempdir().unwrap();
        fake_tool(old.path(), "cbmc", "5.10.0");
        let new = tempfile::tempdir().unwrap();
        fake_tool(new.path(), "cbmc", "6.1.0");
        let err = Toolchain::locate_in(
            Some(&new.path().join("cbmc")),
            None,
            Some(old.path().into()),
            None,
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                CbmcError::MissingCompanion {
                    tool: "goto-cc",
                    ..
                }
            ),
            "{err}"
        );
        fake_tool(new.path(), "goto-cc", "6.1.0");
        fake_tool(new.path(), "goto-instrument", "6.1.0");
        let found =
            Toolchain::locate_in(None, Some(new.path().into()), Some(old.path().into()), None)
                .unwrap();
        assert_eq!(found.version.to_string(), "6.1.0");
        assert_eq!(found.goto_cc, new.path().join("goto-cc"));
    }
}
