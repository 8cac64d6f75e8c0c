//! `mergelens hook install|uninstall`: the hook script of `hooks/pre-merge-commit`, put where
//! git looks for hooks (`core.hooksPath`, else `.git/hooks/`), as `pre-merge-commit` (git
//! runs it before committing a merge it made) and `pre-commit` (which git runs when a merge
//! whose conflicts were resolved is committed; on ordinary commits the review finds no merge
//! and exits at once).
//!
//! A hook already there is never overwritten: it is renamed to `NAME.mergelens-saved` and
//! the script runs it first, so both keep working; uninstalling restores it.

use std::path::{Path, PathBuf};

use super::GitRepo;
use super::error::{GitError, git_err};

/// The script, as shipped in `hooks/pre-merge-commit`.
pub const SCRIPT: &str = include_str!("../../hooks/pre-merge-commit");

/// The hooks the script is installed as.
pub const HOOK_NAMES: [&str; 2] = ["pre-merge-commit", "pre-commit"];

/// How a script is recognised as mergelens'.
const MARKER: &str = "# mergelens hook:";

/// The suffix of a hook the script replaced and runs first.
pub const SAVED_SUFFIX: &str = ".mergelens-saved";

/// What happened to one hook.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HookChange {
    /// Installed where there was no hook.
    Installed(PathBuf),
    /// Installed, and the hook that was there is run first from `saved`.
    Chained { path: PathBuf, saved: PathBuf },
    /// The script was there already and was refreshed.
    Updated(PathBuf),
    /// Removed; `restored` is the hook put back, if one was saved.
    Removed { path: PathBuf, restored: bool },
    /// Nothing of mergelens' was there.
    NotInstalled(PathBuf),
}

impl std::fmt::Display for HookChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HookChange::Installed(p) => write!(f, "installed {}", p.display()),
            HookChange::Chained { path, saved } => write!(
                f,
                "installed {}; the hook that was there runs first, from {}",
                path.display(),
                saved.display()
            ),
            HookChange::Updated(p) => write!(f, "updated {}", p.display()),
            HookChange::Removed { path, restored } => {
                if *restored {
                    write!(
                        f,
                        "removed {} and restored the hook it had replaced",
                        path.display()
                    )
                } else {
                    write!(f, "removed {}", path.display())
                }
            }
            HookChange::NotInstalled(p) => {
                write!(f, "{}: not a mergelens hook; left as it is", p.display())
            }
        }
    }
}

/// Where git looks for hooks: `core.hooksPath` (relative to the work tree's root, `~`
/// expanded), else the common git directory's `hooks/`.
pub fn hooks_dir(repo: &GitRepo) -> Result<PathBuf, GitError> {
    let config = repo
        .raw()
        .config()
        .map_err(git_err("cannot read the git configuration"))?;
    match config.get_path("core.hooksPath") {
        Ok(path) if path.is_absolute() => Ok(path),
        Ok(path) => Ok(repo.root().join(path)),
        Err(_) => Ok(repo.common_dir().join("hooks")),
    }
}

/// The script with the binary it runs: `mergelens` from `PATH` unless `binary` is given.
pub fn script(binary: Option<&Path>) -> String {
    match binary {
        Some(bin) => {
            let quoted = format!("'{}'", bin.display().to_string().replace('\'', "'\\''"));
            // Unquoted, so that the shell removes the single quotes of the default.
            SCRIPT.replace(
                "mergelens=${MERGELENS_BIN:-mergelens}",
                &format!("mergelens=${{MERGELENS_BIN:-{quoted}}}"),
            )
        }
        None => SCRIPT.to_string(),
    }
}

fn is_ours(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.contains(MARKER))
}

fn saved_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(SAVED_SUFFIX);
    path.with_file_name(name)
}

/// Installs the script as every hook of [`HOOK_NAMES`].
pub fn install(repo: &GitRepo, binary: Option<&Path>) -> Result<Vec<HookChange>, GitError> {
    let dir = hooks_dir(repo)?;
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| GitError::Io { path, source }
    };
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let text = script(binary);
    let mut changes = Vec::new();
    for name in HOOK_NAMES {
        let path = dir.join(name);
        let saved = saved_path(&path);
        let exists = std::fs::symlink_metadata(&path).is_ok();
        let change = if exists && is_ours(&path) {
            HookChange::Updated(path.clone())
        } else if exists {
            if std::fs::symlink_metadata(&saved).is_ok() {
                return Err(GitError::Hook {
                    path: saved,
                    message: "a saved hook is already there; move it away or run `mergelens hook uninstall` first".into(),
                });
            }
            std::fs::rename(&path, &saved).map_err(io(&path))?;
            HookChange::Chained {
                path: path.clone(),
                saved,
            }
        } else {
            HookChange::Installed(path.clone())
        };
        write_executable(&path, &text)?;
        changes.push(change);
    }
    Ok(changes)
}

/// Removes the script and puts back what it had replaced.
pub fn uninstall(repo: &GitRepo) -> Result<Vec<HookChange>, GitError> {
    let dir = hooks_dir(repo)?;
    let mut changes = Vec::new();
    for name in HOOK_NAMES {
        let path = dir.join(name);
        if !is_ours(&path) {
            changes.push(HookChange::NotInstalled(path));
            continue;
        }
        std::fs::remove_file(&path).map_err(|source| GitError::Io {
            path: path.clone(),
            source,
        })?;
        let saved = saved_path(&path);
        let restored = std::fs::symlink_metadata(&saved).is_ok();
        if restored {
            std::fs::rename(&saved, &path).map_err(|source| GitError::Io {
                path: saved.clone(),
                source,
            })?;
        }
        changes.push(HookChange::Removed { path, restored });
    }
    Ok(changes)
}

fn write_executable(path: &Path, text: &str) -> Result<(), GitError> {
    let io = |source| GitError::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::write(path, text).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(io)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_names_the_binary_quoted() {
        let text = script(Some(Path::new("/opt/it's/mergelens")));
        assert!(text.contains("mergelens=${MERGELENS_BIN:-'/opt/it'\\''s/mergelens'}\n"));
        assert!(text.contains(MARKER));
        assert!(script(None).contains("mergelens=${MERGELENS_BIN:-mergelens}\n"));
    }
}
