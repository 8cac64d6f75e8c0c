//! [`Slot`]: a directory of a fixed name (`mergelens-remote-N`) that one live process holds
//! at a time, and that a process killed while holding it (SIGKILL leaves no chance to
//! remove it) gives back to the next run.
//!
//! A slot holds a lock file, `.lock`, which its holder keeps locked (`flock`) for as long as
//! it uses the slot; the kernel lets go of the lock when the holder dies, however it dies.
//! A new slot is made whole under a random name (the directory, mode 0700, and its locked
//! lock file) and then renamed to the slot's name only if that name is free
//! (`renameat2(RENAME_NOREPLACE)`), so no slot is ever seen without its lock file. A slot
//! that exists is taken over only when it is a real directory (no link is followed) of this
//! user with mode 0700, its lock file a regular file of this user that this call can lock,
//! and both are still the entries the name leads to once locked; its contents (the dead
//! holder's) are then removed. Anything else (a live holder, a link, someone else's or a
//! lock-less directory) is left alone and the caller takes the next name.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The lock file's name inside a slot.
pub(crate) const LOCK: &str = ".lock";

/// A slot this process holds: `dir` and its lock file, locked until dropped.
#[derive(Debug)]
pub(crate) struct Slot {
    pub(crate) dir: PathBuf,
    /// Unlocked when closed (the kernel's `flock` goes with the open file).
    _lock: File,
}

/// The first of `parent/PREFIX0` .. `parent/PREFIX{count-1}` this process can hold: a free
/// name made new, or a dead holder's slot emptied and taken over.
pub(crate) fn claim(parent: &Path, prefix: &str, count: u32) -> Option<Slot> {
    (0..count).find_map(|n| {
        let dir = parent.join(format!("{prefix}{n}"));
        match std::fs::symlink_metadata(&dir) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => make(parent, &dir)
                .ok()
                .flatten()
                .or_else(|| reclaim(&dir).ok().flatten()),
            _ => reclaim(&dir).ok().flatten(),
        }
    })
}

/// Makes `dir` new: `None` when the name was taken meanwhile.
fn make(parent: &Path, dir: &Path) -> io::Result<Option<Slot>> {
    use std::os::unix::fs::PermissionsExt;
    let fresh = tempfile::Builder::new()
        .prefix(".mergelens-slot-")
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(parent)?;
    let lock = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(fresh.path().join(LOCK))?;
    lock.lock()?;
    rename_no_replace(fresh.path(), dir).map(|made| {
        made.then(|| {
            // Renamed: the directory is the slot's now, not the temporary one's to remove.
            let _ = fresh.keep();
            Slot {
                dir: dir.to_path_buf(),
                _lock: lock,
            }
        })
    })
}

/// `rename(from, to)` unless `to` exists: `Ok(false)` then.
fn rename_no_replace(from: &Path, to: &Path) -> io::Result<bool> {
    let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).map_err(io::Error::other);
    let (from, to) = (c(from)?, c(to)?);
    // SAFETY: two NUL-terminated paths (relative ones to the current directory).
    let done = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if done == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    if error.raw_os_error() == Some(libc::EEXIST) {
        Ok(false)
    } else {
        Err(error)
    }
}

/// Takes `dir` over when its holder is gone (see the module's documentation); `None` when
/// it is not this process's to take.
fn reclaim(dir: &Path) -> io::Result<Option<Slot>> {
    let handle = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(dir)?;
    let meta = handle.metadata()?;
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me || meta.mode() & 0o7777 != 0o700 {
        return Ok(None);
    }
    let Some(lock) = open_lock(&handle)? else {
        return Ok(None);
    };
    let lock_meta = lock.metadata()?;
    if !lock_meta.is_file() || lock_meta.uid() != me {
        return Ok(None);
    }
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    }
    // Locked; but a holder that was just letting go may have removed the slot, and another
    // process made a new one under the name: then this lock is on a file no longer there.
    let now_dir = std::fs::symlink_metadata(dir)?;
    let now_lock = std::fs::symlink_metadata(dir.join(LOCK))?;
    let same =
        |a: &std::fs::Metadata, b: &std::fs::Metadata| a.dev() == b.dev() && a.ino() == b.ino();
    if !same(&now_dir, &meta) || !same(&now_lock, &lock_meta) {
        return Ok(None);
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() == LOCK {
            continue;
        }
        // `file_type` does not follow a link: a link is removed, never what it leads to.
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(Some(Slot {
        dir: dir.to_path_buf(),
        _lock: lock,
    }))
}

/// The slot's lock file, opened inside the directory `handle` is (never through a link);
/// `None` when there is none.
fn open_lock(handle: &File) -> io::Result<Option<File>> {
    let name = std::ffi::CString::new(LOCK).map_err(io::Error::other)?;
    // SAFETY: a directory descriptor this function borrows and a NUL-terminated name.
    let fd = unsafe {
        libc::openat(
            handle.as_raw_fd(),
            name.as_ptr(),
            libc::O_RDWR | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        let error = io::Error::last_os_error();
        return match error.kind() {
            io::ErrorKind::NotFound => Ok(None),
            _ if error.raw_os_error() == Some(libc::ELOOP) => Ok(None),
            _ => Err(error),
        };
    }
    // SAFETY: `fd` was just opened and is owned by nothing else.
    Ok(Some(unsafe {
        <File as std::os::fd::FromRawFd>::from_raw_fd(fd)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_live_holder_keeps_its_slot_and_a_free_name_is_made_whole() {
        let parent = tempfile::tempdir().unwrap();
        let first = claim(parent.path(), "s-", 3).unwrap();
        assert_eq!(first.dir, parent.path().join("s-0"));
        let mode = std::fs::metadata(&first.dir).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        assert!(first.dir.join(LOCK).is_file());
        // Held (a lock of another open file, even in this process): the next name.
        let second = claim(parent.path(), "s-", 3).unwrap();
        assert_eq!(second.dir, parent.path().join("s-1"));
        let third = claim(parent.path(), "s-", 3).unwrap();
        assert!(claim(parent.path(), "s-", 3).is_none(), "all three held");
        // No temporary directory is left behind.
        let names: Vec<_> = std::fs::read_dir(parent.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
        drop((second, third));
    }

    #[test]
    fn a_dead_holders_slot_is_emptied_and_taken_over() {
        let parent = tempfile::tempdir().unwrap();
        let slot = claim(parent.path(), "s-", 2).unwrap();
        std::fs::create_dir(slot.dir.join("tree")).unwrap();
        std::fs::write(slot.dir.join("tree/a.c"), "int a;").unwrap();
        // A link inside leads outside: removing it must not remove what it leads to.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), slot.dir.join("link")).unwrap();
        let dir = slot.dir.clone();
        // The holder lets go without removing anything, as a killed process does.
        drop(slot);
        let again = claim(parent.path(), "s-", 2).unwrap();
        assert_eq!(again.dir, dir);
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from(LOCK)]);
        assert!(outside.path().join("keep").exists());
    }

    #[test]
    fn links_foreign_modes_and_lockless_directories_are_never_taken() {
        let parent = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::set_permissions(elsewhere.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::write(elsewhere.path().join(LOCK), "").unwrap();
        // s-0: a link to a directory that would otherwise qualify.
        std::os::unix::fs::symlink(elsewhere.path(), parent.path().join("s-0")).unwrap();
        // s-1: a directory others may read.
        let open = parent.path().join("s-1");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(open.join(LOCK), "").unwrap();
        // s-2: no lock file (an older run's, or someone else's).
        let lockless = parent.path().join("s-2");
        std::fs::create_dir(&lockless).unwrap();
        std::fs::set_permissions(&lockless, std::fs::Permissions::from_mode(0o700)).unwrap();
        // s-3: a lock file that is a link.
        let linked = parent.path().join("s-3");
        std::fs::create_dir(&linked).unwrap();
        std::fs::set_permissions(&linked, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::os::unix::fs::symlink(elsewhere.path().join(LOCK), linked.join(LOCK)).unwrap();
        assert!(claim(parent.path(), "s-", 4).is_none());
        let slot = claim(parent.path(), "s-", 5).unwrap();
        assert_eq!(slot.dir, parent.path().join("s-4"));
        assert!(elsewhere.path().join(LOCK).exists());
    }
}
