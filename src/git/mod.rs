//! Git integration: which program versions a merge review compares, and how their sources
//! reach the disk without touching the user's work tree, index or refs.
//!
//! Key types:
//!
//! * [`GitRepo`]: an opened repository ([`GitRepo::discover`], [`GitRepo::from_env`] for
//!   hooks, which honours `GIT_DIR` and `GIT_INDEX_FILE`). Every object a review creates
//!   (the blobs and trees of an in-memory merge) goes to an in-memory object database
//!   (libgit2's mempack backend), so the repository on disk stays exactly as it was.
//! * [`CommitInfo`]: a resolved revision (full SHA, how the user named it, the first line of
//!   its message); [`GitRepo::resolve`] and [`GitRepo::merge_base`] find them.
//! * [`Snapshot`]: the files of one version, from a commit's tree, from an in-memory merge
//!   ([`GitRepo::merge_commits`], which may instead report [`Merged::Conflict`]) or from the
//!   index git staged for a merge commit; [`GitRepo::materialise`] writes it into a
//!   directory, checking every path and never following a symbolic link out of the tree.
//! * [`MergeVersions`]: O (the merge base), A (ours), B (theirs) and M (the merge result),
//!   either from two revisions ([`GitRepo::merge_versions`]) or from what git shows a hook
//!   ([`GitRepo::hook_versions`]).
//! * [`hooks`]: `mergelens hook install|uninstall`, chaining to a hook already there.
//! * [`GitError`]: why a repository, revision or merge could not be read, in one line.
//!
//! This is the setting of Sec. 5 of Chockler, Kesseli, Kroening and Strichman, *Learning
//! the Language of Software Errors* (JAIR 2020), Fig. 12-14: the versions whose learned
//! automata a merge review compares.

mod error;
pub mod hook_env;
pub mod hooks;
pub mod paths;
mod snapshot;

use std::path::{Path, PathBuf};

use git2::{Oid, Repository};

pub use error::GitError;
use error::git_err;
pub use snapshot::{Materialised, Snapshot};

/// A resolved commit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitInfo {
    pub oid: Oid,
    /// How the user named it (`main`, `v1.2`, `HEAD`, `merge-base`).
    pub label: String,
    /// The first line of its message.
    pub summary: Option<String>,
}

impl CommitInfo {
    pub fn sha(&self) -> String {
        self.oid.to_string()
    }
}

/// The merge result M.
#[derive(Debug)]
pub enum Merged {
    /// git merged the files textually: M's files, and how the document names it (the id of
    /// the merged tree, or `index` for what a hook sees staged).
    Files { snapshot: Snapshot, name: String },
    /// git could not merge these files (repository-relative paths): M does not exist.
    Conflict(Vec<String>),
}

/// The four versions of a merge review.
#[derive(Debug)]
pub struct MergeVersions {
    pub base: CommitInfo,
    pub ours: CommitInfo,
    pub theirs: CommitInfo,
    pub merged: Merged,
    /// The merge commit M is, when an existing one is reviewed (`review --commit`).
    pub commit: Option<CommitInfo>,
}

/// An opened repository whose object writes stay in memory.
pub struct GitRepo {
    repo: Repository,
}

impl std::fmt::Debug for GitRepo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitRepo")
            .field("git_dir", &self.repo.path())
            .finish()
    }
}

impl GitRepo {
    /// The repository containing `path`.
    pub fn discover(path: &Path) -> Result<GitRepo, GitError> {
        let repo = Repository::discover(path).map_err(|_| GitError::NotARepository {
            path: path.to_path_buf(),
        })?;
        GitRepo::wrap(repo)
    }

    /// The repository git's environment names (`GIT_DIR`, `GIT_INDEX_FILE`, ...), else the
    /// one around the current directory: what a hook must use, as git runs hooks with those
    /// variables set.
    pub fn from_env() -> Result<GitRepo, GitError> {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let repo =
            Repository::open_from_env().map_err(|_| GitError::NotARepository { path: cwd })?;
        GitRepo::wrap(repo)
    }

    fn wrap(repo: Repository) -> Result<GitRepo, GitError> {
        {
            // Writes go to the backend of highest priority; the merged blobs and trees of a
            // review then live and die in memory instead of in `.git/objects`.
            let odb = repo
                .odb()
                .map_err(git_err("cannot open the object database"))?;
            odb.add_new_mempack_backend(1000)
                .map_err(git_err("cannot add an in-memory object database"))?;
        }
        Ok(GitRepo { repo })
    }

    /// The contents of a file of `snapshot`.
    pub fn read_file(&self, snapshot: &Snapshot, path: &str) -> Option<Vec<u8>> {
        snapshot.read(&self.repo, path)
    }

    /// Writes `snapshot` into `root`: regular files first, then the symbolic links whose
    /// target stays inside the tree (see `Snapshot::materialise`).
    pub fn materialise(&self, snapshot: &Snapshot, root: &Path) -> Result<Materialised, GitError> {
        snapshot.materialise(&self.repo, root)
    }

    pub(crate) fn raw(&self) -> &Repository {
        &self.repo
    }

    /// The work tree's root, if the repository has one.
    pub fn workdir(&self) -> Option<&Path> {
        self.repo.workdir()
    }

    /// The common `.git` directory (shared by all worktrees).
    pub fn common_dir(&self) -> &Path {
        self.repo.commondir()
    }

    /// `.git/mergelens/`: the only place in the repository mergelens writes to.
    pub fn mergelens_dir(&self) -> PathBuf {
        self.common_dir().join("mergelens")
    }

    /// The repository's root for messages and configuration: the work tree, else the git
    /// directory of a bare repository.
    pub fn root(&self) -> &Path {
        self.workdir().unwrap_or_else(|| self.repo.path())
    }

    /// The commit a revision names (a branch, tag, SHA, `HEAD~2`, ...); tags are peeled.
    pub fn resolve(&self, rev: &str) -> Result<CommitInfo, GitError> {
        let no_such = || GitError::NoSuchRevision {
            rev: rev.to_string(),
        };
        let object = self.repo.revparse_single(rev).map_err(|e| {
            if rev == "HEAD" && e.code() == git2::ErrorCode::UnbornBranch {
                GitError::UnbornHead
            } else {
                no_such()
            }
        })?;
        let commit = object.peel_to_commit().map_err(|_| no_such())?;
        Ok(self.info(commit.id(), rev))
    }

    fn info(&self, oid: Oid, label: &str) -> CommitInfo {
        let summary = self.repo.find_commit(oid).ok().and_then(|c| {
            c.summary_bytes()
                .map(|b| String::from_utf8_lossy(b).into_owned())
        });
        CommitInfo {
            oid,
            label: label.to_string(),
            summary,
        }
    }

    /// The branch HEAD is on (`main`), or `HEAD` when detached.
    pub fn head_label(&self) -> String {
        self.repo
            .head()
            .ok()
            .filter(git2::Reference::is_branch)
            .and_then(|r| r.shorthand().ok().map(str::to_string))
            .unwrap_or_else(|| "HEAD".to_string())
    }

    /// The best common ancestor of two commits.
    pub fn merge_base(
        &self,
        ours: &CommitInfo,
        theirs: &CommitInfo,
    ) -> Result<CommitInfo, GitError> {
        match self.repo.merge_base(ours.oid, theirs.oid) {
            Ok(oid) => Ok(self.info(oid, "merge-base")),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Err(GitError::NoMergeBase {
                ours: ours.label.clone(),
                theirs: theirs.label.clone(),
            }),
            Err(e) => Err(git_err("cannot compute the merge base")(e)),
        }
    }

    /// The files of a commit.
    pub fn commit_snapshot(&self, commit: &CommitInfo) -> Result<Snapshot, GitError> {
        let tree = self
            .repo
            .find_commit(commit.oid)
            .and_then(|c| c.tree())
            .map_err(git_err(format!("cannot read the tree of {}", commit.label)))?;
        Snapshot::from_tree(&tree)
    }

    /// git's merge of `theirs` into `ours` (recursive on criss-cross histories), computed in
    /// memory.
    pub fn merge_commits(
        &self,
        ours: &CommitInfo,
        theirs: &CommitInfo,
    ) -> Result<Merged, GitError> {
        let find = |c: &CommitInfo| {
            self.repo
                .find_commit(c.oid)
                .map_err(git_err(format!("cannot read {}", c.label)))
        };
        let mut options = git2::MergeOptions::new();
        options.find_renames(true);
        let mut index = self
            .repo
            .merge_commits(&find(ours)?, &find(theirs)?, Some(&options))
            .map_err(git_err("git could not merge the commits"))?;
        if index.has_conflicts() {
            return Ok(Merged::Conflict(conflict_paths(&index)?));
        }
        // The merged tree's id names M; the tree itself goes to the in-memory database.
        let tree = index
            .write_tree_to(&self.repo)
            .map_err(git_err("cannot write the merged tree"))?;
        Ok(Merged::Files {
            snapshot: Snapshot::from_index(&index)?,
            name: tree.to_string(),
        })
    }

    /// The versions of merging `theirs` into `ours` (both revisions).
    pub fn merge_versions(&self, ours: &str, theirs: &str) -> Result<MergeVersions, GitError> {
        let mut ours_info = self.resolve(ours)?;
        if ours == "HEAD" {
            ours_info.label = self.head_label();
        }
        let theirs_info = self.resolve(theirs)?;
        let base = self.merge_base(&ours_info, &theirs_info)?;
        let merged = self.merge_commits(&ours_info, &theirs_info)?;
        Ok(MergeVersions {
            base,
            ours: ours_info,
            theirs: theirs_info,
            merged,
            commit: None,
        })
    }

    /// The versions of the merge commit `rev` as it was committed: O the merge base of its
    /// parents, A its first parent, B its second, M its own tree (a conflict resolved by
    /// hand included). A commit of one parent, or of more than two, is refused.
    pub fn commit_versions(&self, rev: &str) -> Result<MergeVersions, GitError> {
        let commit = self.resolve(rev)?;
        let parents: Vec<Oid> = self
            .repo
            .find_commit(commit.oid)
            .map_err(git_err(format!("cannot read the commit {rev}")))?
            .parent_ids()
            .collect();
        let [first, second] = parents[..] else {
            return Err(GitError::NotAMerge {
                rev: rev.to_string(),
                parents: parents.len(),
                what: if parents.len() > 2 {
                    "an octopus merge; review each branch against the first parent with `mergelens review REV^1 REV^N`"
                } else {
                    "`mergelens diff REV^ REV` shows what it changed"
                },
            });
        };
        let label = |oid: Oid, nth: usize| {
            let mut info = self.info(oid, &format!("{rev}^{nth}"));
            if let Some(branch) = self.branch_at(oid) {
                info.label = branch;
            }
            info
        };
        let (ours, theirs) = (label(first, 1), label(second, 2));
        let base = self.merge_base(&ours, &theirs)?;
        let merged = Merged::Files {
            snapshot: self.commit_snapshot(&commit)?,
            name: commit.sha(),
        };
        Ok(MergeVersions {
            base,
            ours,
            theirs,
            merged,
            commit: Some(commit),
        })
    }

    /// The versions of the merge being committed, as git shows them to a hook, or `None`
    /// when no merge is being committed (a `pre-commit` hook on an ordinary commit).
    ///
    /// In `pre-merge-commit` (git 2.47) there is no `MERGE_HEAD` yet: ours is `HEAD`, the
    /// merged tree is the index, and theirs is the argument in `GIT_REFLOG_ACTION`
    /// (`merge feat`), or `FETCH_HEAD` for `pull`; git also names it in a `GITHEAD_<sha>`
    /// variable. After a conflicted merge was resolved, `git commit` runs `pre-commit` with
    /// `MERGE_HEAD` present.
    pub fn hook_versions(&self) -> Result<Option<MergeVersions>, GitError> {
        let Some(theirs) = self.hook_theirs()? else {
            return Ok(None);
        };
        let mut ours = self.resolve("HEAD")?;
        ours.label = self.head_label();
        let base = self.merge_base(&ours, &theirs)?;
        let index = self
            .repo
            .index()
            .map_err(git_err("cannot read the index"))?;
        let merged = if index.has_conflicts() {
            Merged::Conflict(conflict_paths(&index)?)
        } else {
            Merged::Files {
                snapshot: Snapshot::from_index(&index)?,
                name: "index".to_string(),
            }
        };
        Ok(Some(MergeVersions {
            base,
            ours,
            theirs,
            merged,
            commit: None,
        }))
    }

    fn hook_theirs(&self) -> Result<Option<CommitInfo>, GitError> {
        use hook_env::Named;
        let git_dir = self.repo.path();
        if let Ok(text) = std::fs::read_to_string(git_dir.join("MERGE_HEAD")) {
            return match hook_env::merge_head(&text)? {
                Named::One(one) => self.resolve(one).map(|mut c| {
                    c.label = self.branch_at(c.oid).unwrap_or_else(|| "MERGE_HEAD".into());
                    Some(c)
                }),
                _ => Ok(None),
            };
        }
        // git names the merged commit in GITHEAD_<sha> for its conflict labels: the most
        // exact source, whatever options the merge command had.
        let vars: Vec<String> = std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .collect();
        if let Named::One(sha) = hook_env::githead(vars.iter().map(String::as_str))? {
            // The variable's value is the name the user merged (`feature`), a sha for a
            // merge by commit id.
            return self.resolve(sha).map(|mut c| {
                let given = std::env::var(format!("GITHEAD_{sha}")).unwrap_or_default();
                c.label = match given.trim() {
                    name if !name.is_empty() && !sha.starts_with(name) => name.to_string(),
                    _ => self.branch_at(c.oid).unwrap_or(c.label),
                };
                Some(c)
            });
        }
        let action = std::env::var("GIT_REFLOG_ACTION").unwrap_or_default();
        match hook_env::reflog_action(&action)? {
            Named::One(one) => self.resolve(one).map(Some),
            Named::FetchHead => self.fetch_head().map(Some),
            Named::Nothing => Ok(None),
        }
    }

    /// The merge commits of `range` (`v1.0..v2.0`, or one revision: its whole history),
    /// oldest first; `first_parent` follows only first parents (the merges into the
    /// mainline), `since` (seconds since the epoch) leaves out older commits. Octopus merges
    /// are listed too: their review says why it cannot be made.
    pub fn merges_in(
        &self,
        range: &str,
        first_parent: bool,
        since: Option<i64>,
    ) -> Result<Vec<CommitInfo>, GitError> {
        let bad = || GitError::NoSuchRevision {
            rev: range.to_string(),
        };
        let mut walk = self
            .repo
            .revwalk()
            .map_err(git_err("cannot walk the history"))?;
        walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::REVERSE)
            .map_err(git_err("cannot walk the history"))?;
        if range.contains("..") {
            walk.push_range(range).map_err(|_| bad())?;
        } else {
            walk.push(self.resolve(range)?.oid).map_err(|_| bad())?;
        }
        if first_parent {
            walk.simplify_first_parent()
                .map_err(git_err("cannot walk the history"))?;
        }
        let mut merges = Vec::new();
        for oid in walk {
            let oid = oid.map_err(git_err("cannot walk the history"))?;
            let commit = self
                .repo
                .find_commit(oid)
                .map_err(git_err("cannot read a commit"))?;
            if commit.parent_count() < 2 || since.is_some_and(|t| commit.time().seconds() < t) {
                continue;
            }
            merges.push(self.info(oid, &oid.to_string()));
        }
        Ok(merges)
    }

    /// The tags matching `glob` (`v1.*`), in version order: runs of digits compare as
    /// numbers, so `v1.10` comes after `v1.9`.
    pub fn tags_matching(&self, glob: &str) -> Result<Vec<String>, GitError> {
        let names = self
            .repo
            .tag_names(Some(glob))
            .map_err(git_err("cannot list the tags"))?;
        let mut tags: Vec<String> = names
            .iter()
            .flatten()
            .flatten()
            .map(str::to_string)
            .collect();
        tags.sort_by_cached_key(|t| version_key(t));
        Ok(tags)
    }

    /// A local branch whose tip is `oid` (the first by name), for labels a reader knows.
    fn branch_at(&self, oid: Oid) -> Option<String> {
        let branches = self.repo.branches(Some(git2::BranchType::Local)).ok()?;
        let mut names: Vec<String> = branches
            .filter_map(Result::ok)
            .filter(|(b, _)| b.get().target() == Some(oid))
            .filter_map(|(b, _)| b.name().ok().flatten().map(str::to_string))
            .collect();
        names.sort();
        names.into_iter().next()
    }

    /// The first commit of `FETCH_HEAD` that is for merging.
    fn fetch_head(&self) -> Result<CommitInfo, GitError> {
        let path = self.repo.path().join("FETCH_HEAD");
        let text = std::fs::read_to_string(&path).map_err(|source| GitError::Io {
            path: path.clone(),
            source,
        })?;
        let mut info = self.resolve(hook_env::fetch_head(&text)?)?;
        info.label = "FETCH_HEAD".to_string();
        Ok(info)
    }

    /// Whether the work tree or the index differ from HEAD (only committed or staged
    /// content is ever read, which the report then says). Reading the status never writes
    /// the index.
    pub fn is_dirty(&self) -> bool {
        if self.repo.is_bare() {
            return false;
        }
        let mut options = git2::StatusOptions::new();
        options
            .include_untracked(false)
            .include_ignored(false)
            .update_index(false);
        self.repo
            .statuses(Some(&mut options))
            .map(|s| !s.is_empty())
            .unwrap_or(false)
    }
}

impl GitRepo {
    /// The files whose work-tree copy differs from the staged one (what a hook, which
    /// reviews the index, does not read). Reading the status never writes the index.
    pub fn unstaged_paths(&self) -> Vec<String> {
        if self.repo.is_bare() {
            return Vec::new();
        }
        let mut options = git2::StatusOptions::new();
        options
            .include_untracked(false)
            .include_ignored(false)
            .update_index(false);
        let unstaged = git2::Status::WT_MODIFIED
            | git2::Status::WT_DELETED
            | git2::Status::WT_TYPECHANGE
            | git2::Status::WT_RENAMED;
        let Ok(statuses) = self.repo.statuses(Some(&mut options)) else {
            return Vec::new();
        };
        statuses
            .iter()
            .filter(|s| s.status().intersects(unstaged))
            .filter_map(|s| s.path().ok().map(str::to_string))
            .collect()
    }
}

fn conflict_paths(index: &git2::Index) -> Result<Vec<String>, GitError> {
    let mut paths = Vec::new();
    for conflict in index
        .conflicts()
        .map_err(git_err("cannot read the merge's conflicts"))?
    {
        let conflict = conflict.map_err(git_err("cannot read the merge's conflicts"))?;
        let entry = conflict.our.or(conflict.their).or(conflict.ancestor);
        if let Some(entry) = entry {
            paths.push(String::from_utf8_lossy(&entry.path).into_owned());
        }
    }
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// A tag's sort key: its runs of digits as numbers, the rest as text.
fn version_key(tag: &str) -> Vec<(u64, String)> {
    let mut key = Vec::new();
    let mut rest = tag;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits > 0 {
            key.push((rest[..digits].parse().unwrap_or(u64::MAX), String::new()));
            rest = &rest[digits..];
        } else {
            let text = rest
                .find(|c: char| c.is_ascii_digit())
                .unwrap_or(rest.len());
            key.push((0, rest[..text].to_string()));
            rest = &rest[text..];
        }
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_sort_in_version_order() {
        let mut tags = ["v1.10", "v1.2", "v1.9", "v2.0-rc1", "v1.2.1", "v2.0"];
        tags.sort_by_key(|t| version_key(t));
        assert_eq!(
            tags,
            ["v1.2", "v1.2.1", "v1.9", "v1.10", "v2.0", "v2.0-rc1"]
        );
    }
}
