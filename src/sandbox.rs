//! The Landlock sandbox of the programs a review runs: gcc, goto-cc and CBMC read the code of
//! branches anyone can push, so where the kernel offers Landlock they run with read access
//! limited to what a version may read (see `docs/trust.md`).
//!
//! Key items:
//!
//! * [`confine_children`]: turns the sandbox on for the rest of the process (`review`,
//!   `diff` and the hook call it first). It gives mergelens a private temporary directory
//!   (every checkout, instrumented copy and CBMC work directory is made inside it) and sets
//!   `TMPDIR` of the children to it.
//! * [`allow_read`]: adds a trusted path (an include directory or a harness file the user
//!   named).
//! * `restrict`: what [`crate::process::run_bounded`] calls before it starts a child: the
//!   child is confined to reading the system directories, the tool's installation, the
//!   private temporary directory and the allowed paths. Everything else, the user's home,
//!   other temporary files, the repository itself, is refused by the kernel, also through
//!   symbolic links and `#include "/abs/path"`.
//! * [`status`]: what `mergelens doctor` reports.
//!
//! The ruleset is built in the parent with the `landlock` crate (allocations and `open` are
//! not safe between `fork` and `exec` of a multithreaded process); the child only makes the
//! two system calls that apply it (`prctl(PR_SET_NO_NEW_PRIVS)` and `landlock_restrict_self`). Only reading is
//! restricted (Landlock's `READ_FILE` and `READ_DIR` rights): what the tools write goes to
//! their own directories anyway, and execution needs the system's programs.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

mod slot;

use landlock::{
    AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr, path_beneath_rules,
};

/// Where a sandboxed child may read besides the allowed paths: the system's programs,
/// libraries and headers, and the devices.
const SYSTEM_ROOTS: [&str; 8] = [
    "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/dev",
];
/// What of `/etc` the tools read (seen with `strace -f` on gcc, goto-cc, goto-instrument
/// and CBMC, the private prefix's loader included): the dynamic loader's cache and
/// configuration, and the alternatives links through which `cc` and friends resolve. The
/// rest of `/etc` (host names, accounts, keys, the machine's identity) is no business of a
/// program under review, which could otherwise `#include` it or ask `__has_include` about it.
pub const ETC_FILES: [&str; 5] = [
    "/etc/ld.so.cache",
    "/etc/ld.so.preload",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
];
/// `/proc` is read by the tools about themselves; paths through `/proc/*/root` still resolve
/// to where they lead, which Landlock checks.
const PROC: &str = "/proc";

/// `landlock_create_ruleset`'s flag asking for the ABI version instead of a ruleset.
const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;

/// Whether children run sandboxed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The kernel offers Landlock with this ABI version; reviews confine their children.
    Available { abi: i64 },
    /// No Landlock (an old kernel, or one built without it, or a container that hides it).
    Unavailable { why: String },
}

/// The state of a process whose children are confined.
struct Confined {
    /// The private temporary directory; removed by [`ChildrenConfined`]'s drop.
    temp: PathBuf,
    allowed: Mutex<Vec<PathBuf>>,
}

static CONFINED: OnceLock<Confined> = OnceLock::new();

/// Landlock's ABI version, or why it cannot be used.
pub fn status() -> Status {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns the ABI version.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi >= 1 {
        Status::Available { abi }
    } else {
        Status::Unavailable {
            why: io::Error::last_os_error().to_string(),
        }
    }
}

/// Held by a command whose children are confined; removes the private temporary directory
/// when dropped.
pub struct ChildrenConfined {
    temp: Option<PathBuf>,
    /// The lock of a stable directory, let go of after the directory is removed.
    slot: Option<slot::Slot>,
}

impl Drop for ChildrenConfined {
    fn drop(&mut self) {
        if let Some(temp) = &self.temp {
            let _ = std::fs::remove_dir_all(temp);
        }
        drop(self.slot.take());
    }
}

/// Confines every child mergelens starts from now on, when the kernel offers Landlock (else
/// nothing changes, and [`status`] says why). Call it once, before any temporary directory
/// is made.
pub fn confine_children() -> io::Result<ChildrenConfined> {
    confine(false)
}

/// [`confine_children`], with a private directory whose name is the same from run to run:
/// the first of `mergelens-remote-0` to `-7` in the temporary directory that no live process
/// holds (made by this process, private to its user, or a killed run's taken over and
/// emptied: `slot`), random when all are held. A remote engine's action cache keys on the
/// paths goto binaries record, which lie in it.
pub fn confine_children_stable() -> io::Result<ChildrenConfined> {
    confine(true)
}

fn confine(stable: bool) -> io::Result<ChildrenConfined> {
    if !matches!(status(), Status::Available { .. }) || CONFINED.get().is_some() {
        return Ok(ChildrenConfined {
            temp: None,
            slot: None,
        });
    }
    let slot = stable
        .then(|| slot::claim(&std::env::temp_dir(), "mergelens-remote-", 8))
        .flatten();
    let temp = match &slot {
        Some(slot) => slot.dir.clone(),
        None => tempfile::Builder::new()
            .prefix("mergelens-review-")
            .tempdir()?
            .keep(),
    };
    // Every tempfile of the process is made inside the private directory from now on, so
    // that the children may read the checkouts and nothing else of the temporary files.
    let _ = tempfile::env::override_temp_dir(&temp);
    let _ = CONFINED.set(Confined {
        temp: temp.clone(),
        allowed: Mutex::new(Vec::new()),
    });
    Ok(ChildrenConfined {
        temp: Some(temp),
        slot,
    })
}

/// Whether the children of this process are confined.
pub fn confining() -> bool {
    CONFINED.get().is_some()
}

/// Lets confined children read `path` (a trusted include directory or harness file).
pub fn allow_read(path: &Path) {
    if let Some(c) = CONFINED.get() {
        let mut allowed = c.allowed.lock().unwrap_or_else(|e| e.into_inner());
        if !allowed.iter().any(|a| a == path) {
            allowed.push(path.to_path_buf());
        }
    }
}

/// Prepares `cmd` to run confined, when the process confines its children: the ruleset is
/// built here, applied in the child just before `exec`. The returned descriptor must live
/// until the child is spawned.
pub(crate) fn restrict(cmd: &mut Command) -> io::Result<Option<OwnedFd>> {
    let Some(confined) = CONFINED.get() else {
        return Ok(None);
    };
    let mut roots: Vec<PathBuf> = SYSTEM_ROOTS.iter().map(PathBuf::from).collect();
    roots.extend(ETC_FILES.iter().map(PathBuf::from));
    roots.push(PathBuf::from(PROC));
    roots.push(confined.temp.clone());
    roots.extend(tool_installation(cmd.get_program()));
    roots.extend(
        confined
            .allowed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned(),
    );
    let rules = ruleset(&roots)?;
    cmd.env("TMPDIR", &confined.temp);
    restrict_child(cmd, &rules);
    Ok(Some(rules))
}

/// A Landlock ruleset that lets a process read beneath `roots` and nowhere else (a root
/// that does not exist is skipped; a file root allows reading that file).
fn ruleset(roots: &[PathBuf]) -> io::Result<OwnedFd> {
    let read = AccessFs::ReadFile | AccessFs::ReadDir;
    let created = Ruleset::default()
        // A kernel without the rights would make a sandbox that confines nothing.
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(read)
        .and_then(|r| r.create())
        .and_then(|r| r.add_rules(path_beneath_rules(roots, read)))
        .map_err(io::Error::other)?;
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| io::Error::other("the kernel enforces no Landlock ruleset"))
}

/// Makes the child of `cmd` apply `rules` to itself just before `exec`.
fn restrict_child(cmd: &mut Command, rules: &OwnedFd) {
    let raw = rules.as_raw_fd();
    // SAFETY: the closure makes two system calls and allocates nothing, as code between
    // fork and exec must; `rules` outlives the spawn (the caller keeps it).
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::syscall(libc::SYS_landlock_restrict_self, raw, 0 as libc::c_uint) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The installation a tool runs from: `PREFIX` for `PREFIX/bin/tool` (CBMC's private prefix
/// holds its own loader and libraries), through symbolic links.
fn tool_installation(program: &std::ffi::OsStr) -> Option<PathBuf> {
    let path = Path::new(program);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|dir| dir.join(path))
            .find(|p| p.is_file())?
    };
    let real = path.canonicalize().ok()?;
    Some(real.parent()?.parent()?.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child confined to the system directories and `allowed` reads `file`, or not.
    fn reads(file: &Path, allowed: &Path) -> bool {
        let mut roots: Vec<PathBuf> = SYSTEM_ROOTS.iter().map(PathBuf::from).collect();
        roots.extend(ETC_FILES.iter().map(PathBuf::from));
        roots.push(allowed.to_path_buf());
        let rules = ruleset(&roots).unwrap();
        let mut cmd = Command::new("cat");
        cmd.arg(file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        restrict_child(&mut cmd, &rules);
        cmd.status().unwrap().success()
    }

    #[test]
    fn a_confined_child_reads_what_is_allowed_and_nothing_else() {
        if !matches!(status(), Status::Available { .. }) {
            // The kernel has no Landlock: `doctor` says so; nothing to check here.
            return;
        }
        let allowed = tempfile::tempdir().unwrap();
        let secret = tempfile::tempdir().unwrap();
        std::fs::write(allowed.path().join("ok.c"), "int x;\n").unwrap();
        std::fs::write(secret.path().join("secret.h"), "SECRET\n").unwrap();
        // A link inside the allowed tree to the secret: the kernel checks where it leads.
        std::os::unix::fs::symlink(secret.path().join("secret.h"), allowed.path().join("x.c"))
            .unwrap();
        assert!(reads(&allowed.path().join("ok.c"), allowed.path()));
        assert!(!reads(&secret.path().join("secret.h"), allowed.path()));
        assert!(!reads(&allowed.path().join("x.c"), allowed.path()));
        // Of /etc, the loader's cache only: not the host's identity or accounts.
        assert!(reads(Path::new("/etc/ld.so.cache"), allowed.path()));
        for host in ["/etc/passwd", "/etc/hostname", "/etc/hosts"] {
            if Path::new(host).exists() {
                assert!(!reads(Path::new(host), allowed.path()), "{host}");
            }
        }
    }
}
