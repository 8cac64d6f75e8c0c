//! What a review is asked to look at, before it learns anything: the merge's versions
//! ([`versions_to_review`], from a hook, a merge commit or two names), the settings that
//! govern it ([`review_setup`]: the owner's committed file under the user's, under the
//! flags; a diff's are the work tree's: [`work_tree_setup`]) and the rule of its gate
//! ([`gate`]: whether `fail-on` lets the merge go ahead).
//!
//! Key types: [`Request`], [`ReviewSetup`] and [`Gate`].

use super::error::ReviewError;
use super::merge::ReviewReport;
use crate::config::{ConfigError, FILE_NAME, FailOnName, FileConfig, Overrides, Settings};
use crate::document::Verdict;
use crate::git::{GitError, GitRepo, MergeVersions};
use crate::trust::{self, HarnessFiles, OwnerConfig, UserConfig};

/// Which merge to review.
#[derive(Clone, Copy, Debug)]
pub enum Request<'a> {
    /// The merge git shows a hook (`MERGE_HEAD`, `GITHEAD_*`).
    Hook,
    /// An existing merge commit, as it was committed.
    Commit(&'a str),
    /// git's merge of `theirs` into `ours` (`HEAD` when only one is named); with neither, a
    /// merge in progress.
    Branches {
        ours: Option<&'a str>,
        theirs: Option<&'a str>,
    },
}

/// The versions to review; `None` when a hook finds no merge (an ordinary commit: the hook
/// script also serves as pre-commit).
pub fn versions_to_review(
    repo: &GitRepo,
    request: Request<'_>,
) -> Result<Option<MergeVersions>, ReviewError> {
    Ok(Some(match request {
        Request::Hook => match repo.hook_versions()? {
            Some(v) => v,
            // git is committing a merge (the script says which hook runs), yet names no
            // branch: say so, and let on-error decide.
            None if std::env::var("MERGELENS_HOOK_NAME").is_ok_and(|n| n == "pre-merge-commit") => {
                return Err(GitError::HookContext(format!(
                    "git is committing a merge but names no merged branch (no MERGE_HEAD, no GITHEAD_* variable, GIT_REFLOG_ACTION = {:?})",
                    std::env::var("GIT_REFLOG_ACTION").unwrap_or_default()
                ))
                .into());
            }
            None => return Ok(None),
        },
        Request::Commit(rev) => repo.commit_versions(rev)?,
        Request::Branches { ours, theirs } => match (ours, theirs) {
            (Some(ours), Some(theirs)) => repo.merge_versions(ours, theirs)?,
            (None, Some(theirs)) | (Some(theirs), None) => repo.merge_versions("HEAD", theirs)?,
            (None, None) => match repo.hook_versions()? {
                // A merge in progress (MERGE_HEAD): its staged result.
                Some(v) => v,
                None => return Err(ReviewError::NoBranch),
            },
        },
    }))
}

/// The settings of a review and what comes with them.
pub struct ReviewSetup {
    pub settings: Settings,
    /// The repository's harness files, temporary copies: keep them until the review ends.
    pub harness: HarnessFiles,
    /// When the merge changes `.mergelens.toml` (and the settings are the committed ones):
    /// the unified diff ([`trust::settings_change`]).
    pub settings_change: Option<String>,
}

/// The settings that govern the review of `versions`: the owner's committed settings (or
/// the file `flags.config` names), never the work tree's or theirs', under the user's,
/// under the flags (docs/trust.md).
pub fn review_setup(
    repo: &GitRepo,
    versions: &MergeVersions,
    user: &UserConfig,
    flags: &Overrides,
) -> Result<ReviewSetup, ConfigError> {
    let owner = match &flags.config {
        Some(path) => OwnerConfig::from_file(path)?,
        None => OwnerConfig::committed(repo, &versions.ours)?,
    };
    let mut settings = trust::review_settings(repo, &versions.ours, &owner, user, flags)?;
    let harness = trust::attach_harness(repo, &owner.file, &owner.origin, user, &mut settings)?;
    // Settings the user named are no branch's to change.
    let settings_change = match &flags.config {
        Some(_) => None,
        None => trust::settings_change(repo, versions, owner.text.as_deref()),
    };
    Ok(ReviewSetup {
        settings,
        harness,
        settings_change,
    })
}

/// The settings of a diff: the work tree's `.mergelens.toml` (or the file `flags.config`
/// names) under the user's, under the flags, with CBMC from trusted places only; and the
/// harness files they name, which must be kept while the diff runs.
pub fn work_tree_setup(
    repo: &GitRepo,
    flags: &Overrides,
) -> Result<(Settings, HarnessFiles), ConfigError> {
    let file = match &flags.config {
        Some(path) => OwnerConfig::from_file(path)?.file,
        None => FileConfig::load(repo.root())?,
    };
    let user = UserConfig::load()?;
    let mut settings = Settings::resolve(&trust::under_user(&file, &user), flags, repo.root())?;
    settings.cbmc = trust::cbmc_path(flags.cbmc.as_deref(), Some(repo), &user).0;
    let harness = trust::attach_harness(repo, &file, FILE_NAME, &user, &mut settings)?;
    Ok((settings, harness))
}

/// What a review's gate says of the merge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// The merge may go ahead.
    Pass,
    /// `fail-on` names what the review found (or that it did not finish, or that it is
    /// inconclusive).
    Fail,
    /// git cannot merge the files textually.
    Conflict,
}

/// The gate of `report` under `settings`' `fail-on`: a finding it names, a review that did
/// not finish (whatever else it found: its reasons say what was not done), or an
/// inconclusive verdict fails; with `settings_changed`, `fail-on = "any"` fails a merge
/// that changes the settings too.
pub fn gate(report: &ReviewReport, settings: &Settings, settings_changed: bool) -> Gate {
    let fail_on = settings.fail_on;
    if report.verdict() == Verdict::Conflict {
        Gate::Conflict
    } else if fail_on.fails(report.unexpected, report.lost, report.overlapping)
        || (!report.document.unfinished.is_empty() && fail_on.fails_unfinished())
        || (report.verdict() == Verdict::Inconclusive && fail_on.fails_inconclusive())
        || (settings_changed && fail_on.contains(FailOnName::Any))
    {
        Gate::Fail
    } else {
        Gate::Pass
    }
}
