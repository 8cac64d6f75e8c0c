//! Who may decide what: the trust model of `review`, `diff` and the merge hook (see
//! `docs/trust.md`).
//!
//! Trusted: the command line, environment variables, the user's git configuration and the
//! user configuration file ([`UserConfig`], `~/.config/mergelens/config.toml`). Not trusted:
//! anything in a revision under review. It follows that
//!
//! * programs to run come only from trusted places ([`cbmc_path`]); a repository's
//!   `.mergelens.toml` naming one is an error ([`crate::config::ConfigError::ToolInRepository`]);
//! * the gate's policy and the analysis settings of a review are those committed on *ours*,
//!   the branch merged into ([`OwnerConfig::committed`]), read from its git object, never
//!   from the work tree (which a hook sees holding the merge result) nor from theirs;
//!   [`settings_change`] says when the merge changes them;
//! * a panic anywhere becomes a [`crate::failure::InternalError`] that `on-error` governs.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::config::{ConfigError, FILE_NAME, FailOn, FileConfig, OnError, Overrides, Settings};
use crate::git::paths::{self, Resolved};
use crate::git::{CommitInfo, GitRepo, MergeVersions, Merged};

/// The user configuration file, in `$XDG_CONFIG_HOME/mergelens/` or `~/.config/mergelens/`.
pub const USER_FILE: &str = "config.toml";

/// Where the user configuration file is, if a home is known.
pub fn user_config_path() -> Option<PathBuf> {
    Some(crate::cache_mac::config_dir()?.join(USER_FILE))
}

/// The user configuration file: trusted, so it may name programs and paths anywhere.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct UserConfig {
    pub cbmc: Option<PathBuf>,
    /// Used where the repository's committed configuration says nothing.
    pub fail_on: Option<FailOn>,
    pub on_error: Option<OnError>,
    /// Added to every review's include directories (absolute paths allowed).
    pub include_dirs: Option<Vec<PathBuf>>,
    /// Harness files (absolute, or relative to this file's directory), compiled with every
    /// version when neither `--harness` nor the repository's configuration names one.
    pub harness: Option<Vec<PathBuf>>,
    /// The remote execution server (`grpc://HOST:PORT`), used unless `--remote` names one;
    /// only here, never in a repository's configuration (docs/trust.md).
    pub remote: Option<String>,
    pub remote_instance: Option<String>,
    /// `read-only` or `read-write`.
    pub remote_cache: Option<String>,
    /// How many merges an audit reviews at once with a remote engine.
    pub remote_jobs: Option<usize>,
}

impl UserConfig {
    pub fn parse(text: &str, path: &Path) -> Result<UserConfig, ConfigError> {
        let mut user: UserConfig =
            toml::from_str(text).map_err(|e| ConfigError::toml(path, text, &e))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        for h in user.harness.iter_mut().flatten() {
            if h.is_relative() {
                *h = dir.join(&*h);
            }
        }
        Ok(user)
    }

    /// The file at [`user_config_path`], or the defaults when there is none.
    pub fn load() -> Result<UserConfig, ConfigError> {
        let Some(path) = user_config_path() else {
            return Ok(UserConfig::default());
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => UserConfig::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(UserConfig::default()),
            Err(source) => Err(ConfigError::Read { path, source }),
        }
    }
}

/// Where the CBMC to use was named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolOrigin {
    Flag,
    /// `$MERGELENS_CBMC`, which [`crate::cbmc::Toolchain::locate`] reads itself.
    Environment,
    GitConfig,
    UserConfig,
    /// Nobody: the private prefix, then `PATH`.
    Search,
}

impl ToolOrigin {
    pub fn describe(self) -> &'static str {
        match self {
            ToolOrigin::Flag => "--cbmc",
            ToolOrigin::Environment => "$MERGELENS_CBMC",
            ToolOrigin::GitConfig => "git config mergelens.cbmc",
            ToolOrigin::UserConfig => "the user configuration file",
            ToolOrigin::Search => "the private prefix, then PATH",
        }
    }
}

/// The CBMC path to hand to [`crate::cbmc::Toolchain::locate`], from trusted places only: the
/// flag, then `$MERGELENS_CBMC` (left to `locate`, so `None` here), then `git config
/// mergelens.cbmc`, then the user configuration file.
pub fn cbmc_path(
    flag: Option<&Path>,
    repo: Option<&GitRepo>,
    user: &UserConfig,
) -> (Option<PathBuf>, ToolOrigin) {
    if let Some(flag) = flag {
        return (Some(flag.to_path_buf()), ToolOrigin::Flag);
    }
    if std::env::var_os("MERGELENS_CBMC").is_some_and(|v| !v.is_empty()) {
        return (None, ToolOrigin::Environment);
    }
    let from_git = repo
        .and_then(|r| r.raw().config().ok())
        .or_else(|| git2::Config::open_default().ok())
        .and_then(|c| c.get_path("mergelens.cbmc").ok());
    if let Some(path) = from_git {
        return (Some(path), ToolOrigin::GitConfig);
    }
    if let Some(path) = &user.cbmc {
        return (Some(path.clone()), ToolOrigin::UserConfig);
    }
    (None, ToolOrigin::Search)
}

/// The owner's `.mergelens.toml`: as committed on ours.
#[derive(Clone, Debug, Default)]
pub struct OwnerConfig {
    pub file: FileConfig,
    /// The file's text; `None` when ours has no `.mergelens.toml`.
    pub text: Option<String>,
    /// How messages name it: `.mergelens.toml (committed on main)`.
    pub origin: String,
}

impl OwnerConfig {
    /// A configuration file the user named (`--config`): trusted like the command line,
    /// it stands in for the repository's committed one.
    pub fn from_file(path: &Path) -> Result<OwnerConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let file = FileConfig::parse(&text, path)?;
        Ok(OwnerConfig {
            file,
            text: Some(text),
            origin: path.display().to_string(),
        })
    }

    /// `.mergelens.toml` as committed on `ours`: its git object, never the work tree.
    pub fn committed(repo: &GitRepo, ours: &CommitInfo) -> Result<OwnerConfig, ConfigError> {
        let origin = format!("{FILE_NAME} (committed on {})", ours.label);
        let text = read_committed(repo, ours, FILE_NAME, &origin)?;
        let file = match &text {
            Some(t) => FileConfig::parse(t, Path::new(&origin))?,
            None => FileConfig::default(),
        };
        Ok(OwnerConfig { file, text, origin })
    }
}

/// A file of a commit, through the commit's own symbolic links (which must stay inside), or
/// `None` when the commit has no such file.
pub fn read_committed(
    repo: &GitRepo,
    commit: &CommitInfo,
    path: &str,
    origin: &str,
) -> Result<Option<String>, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        key: "files",
        message: format!("{origin}: {message}"),
    };
    let tree = repo
        .raw()
        .find_commit(commit.oid)
        .and_then(|c| c.tree())
        .map_err(|e| invalid(format!("cannot read the tree of {}: {e}", commit.label)))?;
    let blob_text = |p: &str| -> Option<(bool, String)> {
        let entry = tree.get_path(Path::new(p)).ok()?;
        let blob = repo.raw().find_blob(entry.id()).ok()?;
        let text = String::from_utf8_lossy(blob.content()).into_owned();
        Some((entry.filemode() == 0o120000, text))
    };
    let link_target = |p: &str| blob_text(p).filter(|(link, _)| *link).map(|(_, t)| t);
    let real = match paths::resolve_in_tree(path, &link_target) {
        Resolved::Inside(real) => real,
        Resolved::Outside(why) => {
            return Err(invalid(format!("{path} is refused: {why}")));
        }
    };
    Ok(blob_text(&real).filter(|(link, _)| !link).map(|(_, t)| t))
}

/// The repository file's policy with the user file's where the repository says nothing.
pub fn under_user(file: &FileConfig, user: &UserConfig) -> FileConfig {
    let mut file = file.clone();
    file.fail_on = file.fail_on.or(user.fail_on);
    file.on_error = file.on_error.or(user.on_error);
    file
}

/// The settings of a review: the owner's committed file (paths checked, its compilation
/// database read from ours' commit) under the user file, under the flags; CBMC from trusted
/// places only.
pub fn review_settings(
    repo: &GitRepo,
    ours: &CommitInfo,
    owner: &OwnerConfig,
    user: &UserConfig,
    flags: &Overrides,
) -> Result<Settings, ConfigError> {
    let mut flags = flags.clone();
    flags
        .include_dirs
        .extend(user.include_dirs.iter().flatten().cloned());
    let read = |rel: &str| read_committed(repo, ours, rel, &owner.origin);
    let mut settings = Settings::resolve_with(
        &under_user(&owner.file, user),
        &flags,
        repo.root(),
        &owner.origin,
        &read,
    )?;
    settings.cbmc = cbmc_path(flags.cbmc.as_deref(), Some(repo), user).0;
    if owner.text.is_none() {
        // Said on the terminal and in the document: a clean verdict under defaults nobody
        // chose reads differently from one under the owner's settings.
        let files = if settings.sources.files.is_empty() {
            "every *.c file".to_string()
        } else {
            settings.sources.files.join(", ")
        };
        settings.unconfigured = Some(format!(
            "{UNCONFIGURED_NOTE} {}: reviewed with the defaults and the command line ({files}; entry {}; changed functions at their own entries: {}); `mergelens init` writes one",
            ours.label,
            settings.entries.join(", "),
            settings.changed_functions.as_str()
        ));
    }
    Ok(settings)
}

/// The harness files of a run that came from a configuration file, kept while they are in
/// use: the repository's are copies of `HEAD`'s blobs in a temporary directory.
#[derive(Debug, Default)]
pub struct HarnessFiles {
    /// Where they came from, for messages; `None` when no configuration named any.
    pub origin: Option<String>,
    pub paths: Vec<PathBuf>,
    _dir: Option<tempfile::TempDir>,
}

/// Fills `settings.harness` from the configuration when `--harness` named none: the
/// repository file's `harness` (`file`, named `origin` in messages), else the user file's.
///
/// A repository's harness paths are relative and stay inside (checked by
/// [`FileConfig::check_paths`] and through the commit's links); the files are read from the
/// committed `HEAD` of the work tree, not from each version, so that one harness serves old
/// tags and merge bases alike. They are C code that is compiled (and model-checked), never
/// executed (`docs/trust.md`).
pub fn attach_harness(
    repo: &GitRepo,
    file: &FileConfig,
    origin: &str,
    user: &UserConfig,
    settings: &mut Settings,
) -> Result<HarnessFiles, ConfigError> {
    if !settings.harness.is_empty() {
        return Ok(HarnessFiles::default());
    }
    let named = file.harness.as_deref().unwrap_or_default();
    if named.is_empty() {
        let paths = user.harness.clone().unwrap_or_default();
        settings.harness.clone_from(&paths);
        let origin = (!paths.is_empty()).then(|| "the user configuration file".to_string());
        return Ok(HarnessFiles {
            origin,
            paths,
            _dir: None,
        });
    }
    file.check_paths(origin)?;
    let invalid = |message: String| ConfigError::Invalid {
        key: "harness",
        message: format!("{origin}: {message}"),
    };
    let head = repo.resolve("HEAD").map_err(|e| {
        invalid(format!(
            "the harness files are read from the committed HEAD, and there is none ({}); commit them first",
            crate::failure::text(&e)
        ))
    })?;
    let dir = tempfile::Builder::new()
        .prefix("mergelens-harness-")
        .tempdir()
        .map_err(|source| ConfigError::Read {
            path: std::env::temp_dir(),
            source,
        })?;
    let mut paths = Vec::new();
    for rel in named {
        let Some(text) = read_committed(repo, &head, rel, origin)? else {
            return Err(invalid(format!(
                "harness = \"{rel}\" is not in the committed HEAD ({}); the harness files are read from HEAD, so commit it (git add {rel} && git commit)",
                head.label
            )));
        };
        let rel = rel.trim_start_matches("./");
        let path = dir.path().join(rel);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text));
        written.map_err(|source| ConfigError::Read {
            path: path.clone(),
            source,
        })?;
        paths.push(path);
    }
    settings.harness.clone_from(&paths);
    Ok(HarnessFiles {
        origin: Some(format!("{origin}, read from HEAD ({})", head.label)),
        paths,
        _dir: Some(dir),
    })
}

/// The finding of a settings change, for the one-screen summary: the first lines of the diff.
pub fn settings_change_summary(diff: &str) -> String {
    const LINES: usize = 12;
    let mut out = format!(
        "finding: this merge changes the review settings ({FILE_NAME}); this review used ours' committed settings:\n"
    );
    for line in diff.lines().take(LINES) {
        out.push_str("    ");
        out.push_str(line);
        out.push('\n');
    }
    if diff.lines().count() > LINES {
        out.push_str("    ...\n");
    }
    out
}

/// How the note of a review without the owner's `.mergelens.toml` begins.
pub const UNCONFIGURED_NOTE: &str = "no .mergelens.toml committed on";

/// How the note of a settings change begins, for the readers that single it out (SARIF).
pub const SETTINGS_CHANGE_NOTE: &str = "Finding: this merge changes the review settings";

/// The finding of a settings change as one line, for the report's notes: the changed lines
/// of the diff, ` | `-separated (a note is one line in every rendering).
pub fn settings_change_note(diff: &str) -> String {
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect();
    format!(
        "{SETTINGS_CHANGE_NOTE} ({FILE_NAME}). This review used those committed on ours; the change governs reviews once merged. Diff: {}",
        changed.join(" | ")
    )
}

/// When the merge changes `.mergelens.toml`: a unified diff from ours' to the merge's (or,
/// in a conflict, theirs').
pub fn settings_change(
    repo: &GitRepo,
    versions: &MergeVersions,
    ours_text: Option<&str>,
) -> Option<String> {
    let after = match &versions.merged {
        Merged::Files { snapshot, .. } => repo
            .read_file(snapshot, FILE_NAME)
            .map(|b| String::from_utf8_lossy(&b).into_owned()),
        Merged::Conflict(_) => read_committed(repo, &versions.theirs, FILE_NAME, FILE_NAME)
            .ok()
            .flatten(),
    };
    let before = ours_text.unwrap_or("");
    let after = after.as_deref().unwrap_or("");
    if before == after {
        return None;
    }
    let diff = similar::TextDiff::from_lines(before, after);
    Some(
        diff.unified_diff()
            .header(
                &format!("a/{FILE_NAME} (ours)"),
                &format!("b/{FILE_NAME} (merge)"),
            )
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settings_change_is_one_line_with_the_changed_lines() {
        let diff = "--- a\n+++ b\n@@ -1 +1 @@\n-fail-on = \"any\"\n+fail-on = \"never\"\n";
        let note = settings_change_note(diff);
        assert!(!note.contains('\n'));
        assert!(
            note.ends_with("Diff: -fail-on = \"any\" | +fail-on = \"never\""),
            "{note}"
        );
    }

    #[test]
    fn the_user_file_may_name_programs() {
        let u = UserConfig::parse(
            "cbmc = \"/opt/cbmc/bin/cbmc\"\non-error = \"block\"\ninclude-dirs = [\"/opt/inc\"]\n",
            Path::new("config.toml"),
        )
        .unwrap();
        assert_eq!(u.cbmc, Some(PathBuf::from("/opt/cbmc/bin/cbmc")));
        assert_eq!(u.on_error, Some(OnError::Block));
        assert!(UserConfig::parse("files = []\n", Path::new("c")).is_err());
    }

    #[test]
    fn a_user_harness_is_relative_to_the_user_file() {
        let u = UserConfig::parse(
            "harness = [\"h.c\", \"/abs/g.c\"]\n",
            Path::new("/home/u/.config/mergelens/config.toml"),
        )
        .unwrap();
        assert_eq!(
            u.harness.unwrap(),
            [
                PathBuf::from("/home/u/.config/mergelens/h.c"),
                PathBuf::from("/abs/g.c")
            ]
        );
    }

    #[test]
    fn a_repository_harness_stays_inside_and_is_no_source() {
        let origin = ".mergelens.toml";
        for bad in ["../h.c", "/h.c", ".git/h.c"] {
            let file =
                FileConfig::parse(&format!("harness = [\"{bad}\"]\n"), Path::new(origin)).unwrap();
            let err = file.check_paths(origin).unwrap_err().to_string();
            assert!(
                err.contains(&format!("harness = \"{bad}\" is refused")),
                "{err}"
            );
        }
        let file = FileConfig::parse("harness = [\"./t/h.c\"]\n", Path::new(origin)).unwrap();
        let settings = Settings::resolve_with(
            &file,
            &Overrides::default(),
            Path::new("/r"),
            origin,
            &|_| Ok(None),
        )
        .unwrap();
        let files = settings
            .sources
            .select(["a.c", "t/h.c"].into_iter())
            .unwrap();
        assert_eq!(files, ["a.c"]);
    }
}
