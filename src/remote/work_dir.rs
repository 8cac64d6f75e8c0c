//! [`WorkDir`]: a temporary directory whose path, with a remote engine, is named by what it
//! is for, so that the paths CBMC's goto binaries record are the same from run to run.
//!
//! An action's digest covers every input byte, and a goto binary names the files it was
//! compiled from: a checkout or an instrumented copy in a directory with a random name makes
//! every action new, and the action cache answers none of a second run's. [`work_dir`] names
//! the directory by a key (a checkout's tree, an instrumented copy's checkout and entry)
//! instead. The name never decides an answer (the digest covers the contents); it only lets
//! the cache find one. A directory of that name that exists (another holder of the same key
//! in flight, such as a review's base and ours with the same files, or one a killed run
//! left) is not used: the caller gets the next of a few numbered names (`-2`, `-3`, ...),
//! the same in every run that takes them in the same order, and past those a random one,
//! which misses the cache.

use std::io;
use std::path::{Path, PathBuf};

/// A temporary directory, removed when dropped.
#[derive(Debug)]
pub enum WorkDir {
    Temp(tempfile::TempDir),
    /// Named by its key; created by this run.
    Stable(PathBuf),
}

impl WorkDir {
    pub fn path(&self) -> &Path {
        match self {
            WorkDir::Temp(dir) => dir.path(),
            WorkDir::Stable(path) => path,
        }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if let WorkDir::Stable(path) = self {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

/// Numbered names tried after the first.
const NUMBERED: u32 = 4;

/// A new directory in tempfile's temporary directory (the sandbox's private one in a
/// review): when `named`, `PREFIX` and 32 hex digits of the SHA-256 of `key`'s parts (or,
/// taken, that and `-2` to `-5`), else (or when all are taken) `PREFIX` and random letters.
pub(super) fn make(prefix: &str, key: &[&[u8]], named: bool) -> io::Result<WorkDir> {
    let parent = tempfile::env::temp_dir();
    let mut numbers = (1..=NUMBERED + 1).filter(|_| named);
    if let Some(dir) = numbers.find_map(|n| stable(&parent, prefix, key, n)) {
        return Ok(WorkDir::Stable(dir));
    }
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map(WorkDir::Temp)
}

/// `parent/PREFIX+HASH` (`-n` added past the first), created by this call (private to its
/// user), or `None` when it exists or cannot be made.
fn stable(parent: &Path, prefix: &str, key: &[&[u8]], n: u32) -> Option<PathBuf> {
    use sha2::{Digest as _, Sha256};
    use std::os::unix::fs::DirBuilderExt;
    let mut hash = Sha256::new();
    for part in key {
        // Each part's length first, so that no two keys run together the same.
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    let hex = format!("{:x}", hash.finalize());
    let number = if n > 1 {
        format!("-{n}")
    } else {
        String::new()
    };
    let dir = parent.join(format!("{prefix}{}{number}", &hex[..32]));
    // `create` fails on any existing entry, a link included: a name someone else made
    // first is never ours.
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .ok()
        .map(|()| dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_one_directory_which_one_holder_has_at_a_time() {
        let parent = tempfile::tempdir().unwrap();
        let key: &[&[u8]] = &[b"tree", b"entry"];
        let first = stable(parent.path(), "m-", key, 1).unwrap();
        assert!(first.starts_with(parent.path()) && first.is_dir());
        // Taken: a second holder of the key gets none until the first lets go, but the
        // numbered name.
        assert_eq!(stable(parent.path(), "m-", key, 1), None);
        let second = stable(parent.path(), "m-", key, 2).unwrap();
        assert_eq!(
            second.as_os_str(),
            format!("{}-2", first.display()).as_str()
        );
        let held = WorkDir::Stable(first.clone());
        drop(held);
        assert!(!first.exists());
        assert_eq!(stable(parent.path(), "m-", key, 1), Some(first.clone()));
        // The parts are told apart: "tr" + "eeentry" is another key.
        let other = stable(parent.path(), "m-", &[b"tr", b"eeentry"], 1).unwrap();
        assert_ne!(other, first);
        // Not named: a random name.
        let random = make("m-", &[b"tree"], false).unwrap();
        assert!(matches!(random, WorkDir::Temp(_)));
    }
}
