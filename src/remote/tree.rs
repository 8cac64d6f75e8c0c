//! Input roots as REAPI Merkle trees: [`TreeBuilder`] takes files, symlinks and whole
//! subtrees by relative path and gives the root [`Directory`]'s digest and every blob the
//! tree needs ([`Blobs`]), each under its SHA-256 digest.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use bazel_remote_apis::build::bazel::remote::execution::v2::{
    Digest, Directory, DirectoryNode, FileNode, SymlinkNode,
};
use prost::Message;
use sha2::{Digest as _, Sha256};

use super::types::RemoteError;

/// Where a blob's bytes are: read from disk only when it is uploaded.
#[derive(Clone, Debug)]
pub(crate) enum Source {
    Bytes(Vec<u8>),
    File(PathBuf),
}

impl Source {
    pub(crate) fn read(&self) -> Result<Vec<u8>, RemoteError> {
        match self {
            Source::Bytes(b) => Ok(b.clone()),
            Source::File(p) => std::fs::read(p).map_err(|source| RemoteError::Io {
                path: p.clone(),
                source,
            }),
        }
    }
}

/// Blobs by digest hash: what an upload offers the CAS.
pub(crate) type Blobs = HashMap<String, (Digest, Source)>;

/// The digest of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> Digest {
    Digest {
        hash: format!("{:x}", Sha256::digest(bytes)),
        size_bytes: i64::try_from(bytes.len()).unwrap_or(i64::MAX),
    }
}

/// A message's digest and its encoding, as the CAS stores it.
pub(crate) fn message_blob(message: &impl Message) -> (Digest, Vec<u8>) {
    let bytes = message.encode_to_vec();
    (digest(&bytes), bytes)
}

enum Node {
    File {
        digest: Digest,
        executable: bool,
    },
    Symlink(String),
    Dir(BTreeMap<String, Node>),
    /// A subtree already built (and its blobs known): the CBMC installation.
    Built(Digest),
}

/// A tree being built; paths are relative, `/`-separated.
#[derive(Default)]
pub(crate) struct TreeBuilder {
    root: BTreeMap<String, Node>,
    pub(crate) blobs: Blobs,
}

impl TreeBuilder {
    fn parent(&mut self, path: &str) -> (&mut BTreeMap<String, Node>, String) {
        let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let name = parts.pop().unwrap_or_default().to_string();
        let mut dir = &mut self.root;
        for part in parts {
            let node = dir
                .entry(part.to_string())
                .or_insert_with(|| Node::Dir(BTreeMap::new()));
            if !matches!(node, Node::Dir(_)) {
                *node = Node::Dir(BTreeMap::new());
            }
            let Node::Dir(next) = node else {
                unreachable!("just made a directory")
            };
            dir = next;
        }
        (dir, name)
    }

    /// Adds the file at `disk` as `path`, hashing it now.
    pub(crate) fn file(&mut self, path: &str, disk: &Path) -> Result<(), RemoteError> {
        let bytes = std::fs::read(disk).map_err(|source| RemoteError::Io {
            path: disk.to_path_buf(),
            source,
        })?;
        let executable = is_executable(disk);
        let d = digest(&bytes);
        let source = if bytes.len() > 1 << 20 {
            Source::File(disk.to_path_buf())
        } else {
            Source::Bytes(bytes)
        };
        self.blobs.insert(d.hash.clone(), (d.clone(), source));
        let (dir, name) = self.parent(path);
        dir.insert(
            name,
            Node::File {
                digest: d,
                executable,
            },
        );
        Ok(())
    }

    pub(crate) fn symlink(&mut self, path: &str, target: String) {
        let (dir, name) = self.parent(path);
        dir.insert(name, Node::Symlink(target));
    }

    /// Mounts a subtree built before (whose blobs the caller has uploaded) at `path`.
    pub(crate) fn subtree(&mut self, path: &str, root: Digest) {
        let (dir, name) = self.parent(path);
        dir.insert(name, Node::Built(root));
    }

    /// The root's digest; the directories' blobs join [`TreeBuilder::blobs`].
    pub(crate) fn finish(mut self) -> (Digest, Blobs) {
        let root = std::mem::take(&mut self.root);
        let d = encode(root, &mut self.blobs);
        (d, self.blobs)
    }
}

fn encode(entries: BTreeMap<String, Node>, blobs: &mut Blobs) -> Digest {
    let mut dir = Directory::default();
    for (name, node) in entries {
        match node {
            Node::File { digest, executable } => dir.files.push(FileNode {
                name,
                digest: Some(digest),
                is_executable: executable,
                node_properties: None,
            }),
            Node::Symlink(target) => dir.symlinks.push(SymlinkNode {
                name,
                target,
                node_properties: None,
            }),
            Node::Dir(children) => dir.directories.push(DirectoryNode {
                name,
                digest: Some(encode(children, blobs)),
            }),
            Node::Built(digest) => dir.directories.push(DirectoryNode {
                name,
                digest: Some(digest),
            }),
        }
    }
    let (d, bytes) = message_blob(&dir);
    blobs.insert(d.hash.clone(), (d.clone(), Source::Bytes(bytes)));
    d
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

/// Adds every file and symlink under `disk` (recursively) below `path` in `tree`.
pub(crate) fn add_dir(tree: &mut TreeBuilder, path: &str, disk: &Path) -> Result<(), RemoteError> {
    let io = |source| RemoteError::Io {
        path: disk.to_path_buf(),
        source,
    };
    let mut entries: Vec<_> = std::fs::read_dir(disk)
        .map_err(io)?
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        let child = format!("{path}/{name}");
        let kind = entry.file_type().map_err(io)?;
        if kind.is_symlink() {
            let target = std::fs::read_link(entry.path()).map_err(io)?;
            tree.symlink(&child, target.to_string_lossy().into_owned());
        } else if kind.is_dir() {
            add_dir(tree, &child, &entry.path())?;
        } else if kind.is_file() {
            tree.file(&child, &entry.path())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_digest_depends_on_contents_and_names_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), b"one").unwrap();
        let build = |name: &str| {
            let mut t = TreeBuilder::default();
            t.file(&format!("in/{name}"), &dir.path().join("a"))
                .unwrap();
            t.symlink("in/link", "a".into());
            t.finish()
        };
        let (d1, blobs) = build("x.gb");
        let (d2, _) = build("x.gb");
        let (d3, _) = build("y.gb");
        assert_eq!(d1, d2);
        assert_ne!(d1, d3);
        // The file, the directory `in` and the root.
        assert_eq!(blobs.len(), 3);
        assert!(blobs.contains_key(&digest(b"one").hash));
        assert_eq!(
            digest(b"").hash,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
