//! The files of one version, and writing them into a directory of their own.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use git2::{ObjectType, Oid, TreeWalkMode, TreeWalkResult};

use git2::Repository;

use super::error::{GitError, git_err};

/// A file of a version: its blob, and whether it is a symbolic link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileEntry {
    blob: Oid,
    symlink: bool,
}

/// The files of a version, by repository-relative path ('/'-separated). Submodules are
/// left out: their sources are another repository's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Snapshot {
    files: BTreeMap<String, FileEntry>,
}

/// What [`super::GitRepo::materialise`] wrote.
#[derive(Clone, Debug, Default)]
pub struct Materialised {
    pub root: PathBuf,
    /// Symbolic links that were not written because their target leaves the tree (or is
    /// absolute), and paths refused as unsafe.
    pub skipped: Vec<String>,
    /// Files whose line directives were blanked before anything read them (see
    /// [`crate::cprog::line_directives`]): the path and the lines, in path order.
    pub line_directives: Vec<(String, Vec<u32>)>,
}

const MODE_LINK: u32 = 0o120000;
const MODE_GITLINK: u32 = 0o160000;

impl Snapshot {
    pub(crate) fn from_tree(tree: &git2::Tree<'_>) -> Result<Snapshot, GitError> {
        let mut files = BTreeMap::new();
        tree.walk(TreeWalkMode::PreOrder, |dir, entry| {
            if entry.kind() == Some(ObjectType::Blob) {
                let name = String::from_utf8_lossy(entry.name_bytes());
                files.insert(
                    format!("{dir}{name}"),
                    FileEntry {
                        blob: entry.id(),
                        symlink: entry.filemode() as u32 == MODE_LINK,
                    },
                );
            }
            TreeWalkResult::Ok
        })
        .map_err(git_err("cannot read a tree"))?;
        Ok(Snapshot { files })
    }

    /// The stage-0 entries of an index (a conflicted index has no snapshot).
    pub(crate) fn from_index(index: &git2::Index) -> Result<Snapshot, GitError> {
        let mut files = BTreeMap::new();
        for entry in index.iter() {
            let stage = (entry.flags >> 12) & 0x3;
            if stage != 0 || entry.mode == MODE_GITLINK {
                continue;
            }
            files.insert(
                String::from_utf8_lossy(&entry.path).into_owned(),
                FileEntry {
                    blob: entry.id,
                    symlink: entry.mode == MODE_LINK,
                },
            );
        }
        Ok(Snapshot { files })
    }

    /// Every path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// What the files are, in bytes (each path, link flag and blob id): equal for two
    /// snapshots of the same files, whichever commit, index or clone they come from.
    pub fn content_key(&self) -> Vec<u8> {
        let mut key = Vec::new();
        for (path, entry) in &self.files {
            key.extend_from_slice(path.as_bytes());
            key.push(u8::from(entry.symlink));
            key.extend_from_slice(entry.blob.as_bytes());
        }
        key
    }

    /// The blob id of a file, for comparing versions without reading them.
    pub fn blob(&self, path: &str) -> Option<Oid> {
        self.files.get(path).map(|f| f.blob)
    }

    /// The contents of a file.
    pub(crate) fn read(&self, repo: &Repository, path: &str) -> Option<Vec<u8>> {
        let entry = self.files.get(path)?;
        repo.find_blob(entry.blob)
            .ok()
            .map(|b| b.content().to_vec())
    }

    /// Writes the files into `root` (which must exist and be empty): regular files first,
    /// then the symbolic links whose target stays inside the tree. Every path is checked
    /// (no absolute path, `..`, `.git` component); files are created, never opened, so no
    /// link is ever followed while writing.
    pub(crate) fn materialise(
        &self,
        repo: &Repository,
        root: &Path,
    ) -> Result<Materialised, GitError> {
        let mut out = Materialised {
            root: root.to_path_buf(),
            skipped: Vec::new(),
            line_directives: Vec::new(),
        };
        let mut links = Vec::new();
        for (path, entry) in &self.files {
            let relative = match checked_path(path) {
                Ok(p) => p,
                Err(why) => {
                    out.skipped.push(format!("{path} ({why})"));
                    continue;
                }
            };
            if entry.symlink {
                links.push((path, relative, entry.blob));
                continue;
            }
            let blob = repo
                .find_blob(entry.blob)
                .map_err(git_err(format!("cannot read {path}")))?;
            let target = root.join(&relative);
            create_parents(root, &relative)?;
            let io = |source| GitError::Io {
                path: target.clone(),
                source,
            };
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&target)
                .map_err(io)?;
            // A version is untrusted: a line directive in it could make gcc call its code
            // a system header's, so every file is written without them.
            match crate::cprog::line_directives::neutralise(blob.content()) {
                Some((text, lines)) => {
                    file.write_all(&text).map_err(io)?;
                    out.line_directives.push((path.clone(), lines));
                }
                None => file.write_all(blob.content()).map_err(io)?,
            }
        }
        // Every link's target, so that each one is resolved through the others as the
        // kernel will resolve it, not lexically.
        let mut targets = std::collections::HashMap::new();
        for (path, _, blob) in &links {
            let blob = repo
                .find_blob(*blob)
                .map_err(git_err(format!("cannot read {path}")))?;
            targets.insert(
                path.to_string(),
                String::from_utf8_lossy(blob.content()).into_owned(),
            );
        }
        let lookup = |p: &str| targets.get(p).cloned();
        for (path, relative, _) in links {
            let text = &targets[path.as_str()];
            let target = PathBuf::from(text);
            let resolved = super::paths::resolve_link(path, text, &lookup);
            if let super::paths::Resolved::Outside(why) = resolved {
                out.skipped
                    .push(format!("{path} (a symbolic link out of the tree: {why})"));
                continue;
            }
            create_parents(root, &relative)?;
            #[cfg(unix)]
            std::os::unix::fs::symlink(&target, root.join(&relative)).map_err(|source| {
                GitError::Io {
                    path: root.join(&relative),
                    source,
                }
            })?;
        }
        Ok(out)
    }
}

/// A repository path as a relative path of normal components, or why it is refused.
pub(crate) fn checked_path(path: &str) -> Result<PathBuf, &'static str> {
    if path.is_empty() {
        return Err("empty path");
    }
    if path.contains('\0') || path.contains('\\') {
        return Err("a NUL or backslash in the path");
    }
    let mut out = PathBuf::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(name) => {
                if name.eq_ignore_ascii_case(".git") {
                    return Err("a .git component");
                }
                out.push(name);
            }
            Component::CurDir | Component::ParentDir => return Err("a . or .. component"),
            Component::RootDir | Component::Prefix(_) => return Err("an absolute path"),
        }
    }
    Ok(out)
}

/// Creates the directories above `relative`, one at a time: a component that exists must
/// be a real directory (never a link), which holds as links are written last.
fn create_parents(root: &Path, relative: &Path) -> Result<(), GitError> {
    let mut dir = root.to_path_buf();
    let Some(parent) = relative.parent() else {
        return Ok(());
    };
    for component in parent.components() {
        dir.push(component);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(GitError::UnsafePath {
                    path: relative.display().to_string(),
                    why: "a parent is not a directory",
                });
            }
            Err(_) => std::fs::create_dir(&dir).map_err(|source| GitError::Io {
                path: dir.clone(),
                source,
            })?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_checked() {
        assert_eq!(checked_path("src/a.c").unwrap(), PathBuf::from("src/a.c"));
        for bad in [
            "",
            "../x",
            "a/../../x",
            "/etc/passwd",
            "a/.git/config",
            ".GIT/hooks/x",
            "a\\b",
        ] {
            assert!(checked_path(bad).is_err(), "{bad}");
        }
    }
}
