//! The versions a review or diff reads: their checkouts ([`Checkout`]), the
//! [`VersionInput`]s the entries are learned from, the hunks a version changed
//! ([`change_set`]), how the document names a commit ([`revision`]), and the notes every
//! review and diff opens with ([`common_notes`]).

use super::coverage;
use super::engine::VersionInput;
use super::error::ReviewError;
use crate::config::{Settings, SourceSpec};
use crate::document::coverage::HunkSide;
use crate::document::{Revision, Version};
use crate::git::{CommitInfo, GitRepo, Snapshot};

/// A checkout of one version in a temporary directory, deleted on drop.
pub(super) struct Checkout {
    pub(super) version: Version,
    /// How errors name the revision: `feature a5640c1`, `index`.
    pub(super) revision: String,
    pub(super) dir: crate::remote::WorkDir,
    pub(super) files: Vec<String>,
    pub(super) skipped: Vec<String>,
    pub(super) line_directives: Vec<(String, Vec<u32>)>,
}

pub(super) fn checkout(
    repo: &GitRepo,
    version: Version,
    revision: String,
    snapshot: &Snapshot,
    settings: &Settings,
) -> Result<Checkout, ReviewError> {
    // Named by the version's files with a remote engine, whatever its role, so that another
    // review of the same trees (a fresh clone, another CI job) sends the same actions.
    let key = snapshot.content_key();
    let dir =
        crate::remote::work_dir("mergelens-tree-", &[&key]).map_err(|source| ReviewError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let written = repo.materialise(snapshot, dir.path())?;
    let mut files = settings.sources.select(snapshot.paths())?;
    // A link that was not written (it leaves the tree) is no source either.
    files.retain(|f| dir.path().join(f).exists());
    Ok(Checkout {
        version,
        revision,
        dir,
        files,
        skipped: written.skipped,
        line_directives: written.line_directives,
    })
}

/// The checkouts of `commits`, each as its version.
pub(super) fn commit_checkouts(
    repo: &GitRepo,
    commits: &[(Version, &CommitInfo)],
    settings: &Settings,
) -> Result<Vec<Checkout>, ReviewError> {
    let mut checkouts = Vec::new();
    for &(version, commit) in commits {
        let snapshot = repo.commit_snapshot(commit)?;
        checkouts.push(checkout(repo, version, named(commit), &snapshot, settings)?);
    }
    Ok(checkouts)
}

/// A commit as errors name it: its label and short id (`feature a5640c1`).
fn named(commit: &CommitInfo) -> String {
    let sha = commit.sha();
    let short = &sha[..sha.len().min(7)];
    if commit.label.starts_with(short) {
        short.to_string()
    } else {
        format!("{} {short}", commit.label)
    }
}

/// What the entries are learned from: each checkout's root and source files; an error when
/// no version has a source file, or a configured file is in none.
pub(super) fn inputs(
    checkouts: &[Checkout],
    settings: &Settings,
) -> Result<Vec<VersionInput>, ReviewError> {
    if checkouts.iter().all(|c| c.files.is_empty()) {
        return Err(ReviewError::NoSources {
            what: if settings.sources.files.is_empty() {
                "*.c".to_string()
            } else {
                settings.sources.files.join(", ")
            },
        });
    }
    // A named file that is in no version is a typo or a path outside the repository: it
    // would silently drop part of the program.
    let unmatched: Vec<String> = settings
        .sources
        .files
        .iter()
        .filter(|pattern| {
            let one = SourceSpec {
                files: vec![(*pattern).clone()],
                ..SourceSpec::default()
            };
            checkouts.iter().all(|c| {
                one.select(c.files.iter().map(String::as_str))
                    .is_ok_and(|selected| selected.is_empty())
            })
        })
        .cloned()
        .collect();
    if !unmatched.is_empty() {
        return Err(ReviewError::UnmatchedFiles { files: unmatched });
    }
    Ok(checkouts
        .iter()
        .map(|c| VersionInput {
            version: c.version,
            revision: c.revision.clone(),
            root: c.dir.path().to_path_buf(),
            files: c.files.clone(),
        })
        .collect())
}

/// The hunks `new` changed against `old`, which `new`'s executions must reach.
pub(super) fn change_set(
    old: &Checkout,
    new: &Checkout,
    side: HunkSide,
    owner: Option<&str>,
) -> coverage::ChangeSet {
    coverage::ChangeSet {
        side,
        owner: owner.map(str::to_string),
        version: new.version,
        hunks: coverage::changed_hunks(old.dir.path(), &old.files, new.dir.path(), &new.files),
    }
}

pub(super) fn revision(commit: &CommitInfo) -> Revision {
    Revision {
        rev: commit.sha(),
        label: Some(commit.label.clone()),
        summary: commit.summary.clone(),
    }
}

pub(super) fn common_notes(
    repo: &GitRepo,
    checkouts: &[Checkout],
    settings: &Settings,
) -> Vec<String> {
    let mut notes: Vec<String> = settings.unconfigured.iter().cloned().collect();
    notes.extend(settings.warnings.iter().cloned());
    notes.extend(settings.allocations.note().map(str::to_string));
    if repo.is_dirty() {
        notes.push(
            "The work tree has uncommitted changes; they are not part of this review, which reads committed (and, in a hook, staged) content only."
                .to_string(),
        );
    }
    for c in checkouts {
        for s in &c.skipped {
            notes.push(format!("{}: not written: {s}", c.version));
        }
        for (path, lines) in &c.line_directives {
            notes.push(line_directives_note(c.version, path, lines));
        }
        if c.files.is_empty() {
            notes.push(format!("{}: no C files", c.version));
        }
    }
    notes
}

/// What a version's line directives became: the review reads each line as the file it is
/// in, whatever a directive says (docs/trust.md).
fn line_directives_note(version: Version, path: &str, lines: &[u32]) -> String {
    let shown: Vec<String> = lines.iter().take(3).map(u32::to_string).collect();
    let more = if lines.len() > 3 { ", ..." } else { "" };
    format!(
        "{version}: {path}: {} line directive(s) (`#line` or `# N \"file\"`, line {}{more}) ignored: every line is read as the file and line it is in, and only files in the compiler's system directories are system headers",
        lines.len(),
        shown.join(", ")
    )
}

pub(super) fn tool() -> Option<String> {
    Some(format!("mergelens {}", env!("CARGO_PKG_VERSION")))
}
