//! A CBMC run as a remote action ([`crate::remote`]): the command line with each declared
//! input file moved into the input root, and the CBMC installation mounted beside it.
//!
//! [`action`] makes the [`ActionSpec`] of a run, or `None` when the run cannot leave this
//! machine: a working directory of its own, or a path on the command line that is not a
//! declared input (a source file goto-cc or CBMC would preprocess with this machine's
//! headers). The installation `scripts/install-cbmc.sh` unpacks (wrappers in `bin/`, the
//! tools and every library they load under `usr/`) is uploaded to the CAS once, so workers
//! need nothing but `/bin/sh`; a CBMC from the system is named by its file name, and the
//! workers' platform must provide the same version.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::remote::{ActionSpec, Remote, RemoteError};

/// Where the installation sits in each input root.
const INSTALL_DIR: &str = "cbmc-install";

/// How long a query waits for another run's link of the same harness text.
const HARNESS_WAIT: Duration = Duration::from_secs(10);

/// The dynamic loader of an installation `scripts/install-cbmc.sh` unpacked.
const LOADER: &str = "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2";

/// The action of `cmd`, whose files `inputs` are what it reads; `None` when it must run here.
pub(super) fn action(
    remote: &Remote,
    cmd: &Command,
    inputs: &[PathBuf],
    deadline: Option<Instant>,
) -> Result<Option<ActionSpec>, RemoteError> {
    if cmd.get_current_dir().is_some() {
        return Ok(None);
    }
    let left = deadline.map(|d| {
        let left = d.saturating_duration_since(Instant::now());
        Duration::from_secs(left.as_secs() + u64::from(left.subsec_nanos() > 0))
    });
    let mut spec = ActionSpec {
        output_cap: crate::process::MAX_TOOL_OUTPUT as u64,
        // The command's query timeout, the same in every run, since the timeout is part of
        // the action's digest; the run's own deadline (a share of a budget, what is left
        // after the link) bounds how long this process waits for it.
        // A deadline beyond the query timeout (a check of its own) is the timeout then.
        timeout: match (crate::process::tool_timeout(), left) {
            (Some(t), Some(l)) if l > t => Some(l),
            (t, l) => t.or(l),
        },
        wait: left,
        environment: vec![("PATH".into(), "/usr/bin:/bin".into())],
        ..ActionSpec::default()
    };
    let Some((arguments, files)) = arguments(cmd, inputs) else {
        return Ok(None);
    };
    spec.inputs = files;
    let program = Path::new(cmd.get_program());
    let tool = program
        .file_name()
        .map_or("cbmc".into(), |n| n.to_string_lossy().into_owned());
    let argv0 = match installation(program) {
        Some(prefix) => {
            let tree = remote.mount(
                prefix,
                &[
                    &format!("bin/{tool}"),
                    &format!("usr/bin/{tool}"),
                    "usr/lib",
                    "usr/lib64",
                ],
            )?;
            spec.mounts.push((INSTALL_DIR.into(), tree));
            format!("{INSTALL_DIR}/bin/{tool}")
        }
        None => tool,
    };
    // The memory limit as the worker's shell sets it (`ulimit -v`, in KiB).
    spec.arguments = match crate::process::memory_limit() {
        Some(bytes) => vec![
            "/bin/sh".into(),
            "-c".into(),
            format!("ulimit -v {} && exec \"$@\"", bytes >> 10),
            "sh".into(),
            argv0,
        ],
        None => vec![argv0],
    };
    spec.arguments.extend(arguments);
    Ok(Some(spec))
}

/// A harness written where its path depends on its text alone, so that the goto binary a
/// query links (which names the harness's path) is the same in every run and the action
/// cache can answer it: `$TMPDIR/mergelens-queries/HASH/FILE_NAME`. `None` when another run
/// holds that directory for longer than [`HARNESS_WAIT`] (the caller writes it in a
/// directory of its own, uncached).
pub(super) fn stable_harness(source: &str, file_name: &str) -> Option<(StableDir, PathBuf)> {
    use sha2::{Digest as _, Sha256};
    let hash = format!("{:x}", Sha256::digest(source.as_bytes()));
    // tempfile's, which a confined review points at its private directory.
    let parent = tempfile::env::temp_dir().join("mergelens-queries");
    std::fs::create_dir_all(&parent).ok()?;
    let dir = parent.join(&hash[..32]);
    // Created by this run; one taken by another (a query of the same text, which holds it
    // for one goto-cc link) is waited for, a while, and then left to it.
    let since = Instant::now();
    loop {
        match std::fs::create_dir(&dir) {
            Ok(()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if since.elapsed() > HARNESS_WAIT {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(_) => return None,
        }
    }
    let guard = StableDir(dir.clone());
    let harness = dir.join(file_name);
    std::fs::write(&harness, source).ok()?;
    Some((guard, harness))
}

/// Removes a [`stable_harness`] directory when dropped.
pub(super) struct StableDir(PathBuf);

impl Drop for StableDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file of this machine by its path in the input root.
type InputFile = (String, PathBuf);

/// The command line's arguments with each input's path replaced by its path in the input
/// root (`in/I/NAME`), and the inputs by those paths; `None` when an argument is another
/// absolute path (a file of this machine the action would not hold).
fn arguments(cmd: &Command, inputs: &[PathBuf]) -> Option<(Vec<String>, Vec<InputFile>)> {
    let files: Vec<InputFile> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let name = input
                .file_name()
                .map_or("input".into(), |n| n.to_string_lossy().into_owned());
            (format!("in/{i}/{name}"), input.clone())
        })
        .collect();
    let mut arguments = Vec::new();
    for arg in cmd.get_args() {
        let arg = Path::new(arg);
        if let Some(i) = inputs.iter().position(|p| p == arg) {
            arguments.push(files[i].0.clone());
        } else if arg.is_absolute() {
            return None;
        } else {
            arguments.push(arg.to_string_lossy().into_owned());
        }
    }
    Some((arguments, files))
}

/// The prefix of a self-contained installation whose wrapper is `program`.
fn installation(program: &Path) -> Option<&Path> {
    let bin = program.parent()?;
    let prefix = bin.parent()?;
    (bin.file_name()? == "bin" && prefix.join(LOADER).is_file()).then_some(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_declared_files_leave_the_machine_under_their_input_root_names() {
        let gb = PathBuf::from("/tmp/x/query.gb");
        let mut cmd = Command::new("/opt/cbmc/bin/cbmc");
        cmd.arg(&gb).args(["--json-ui", "--unwind", "3"]);
        let (args, files) = arguments(&cmd, std::slice::from_ref(&gb)).unwrap();
        assert_eq!(args, ["in/0/query.gb", "--json-ui", "--unwind", "3"]);
        assert_eq!(files, [("in/0/query.gb".to_string(), gb.clone())]);
        // A file the run would write (or read) that is not declared keeps it here.
        cmd.args(["--outfile", "/tmp/x/f.cnf"]);
        assert!(arguments(&cmd, &[gb]).is_none());
    }

    #[test]
    fn a_stable_harness_is_named_by_its_text_and_held_by_one_run_at_a_time() {
        let text = "int main(void) { return 1; }";
        let (held, path) = stable_harness(text, "h.c").unwrap();
        assert!(path.ends_with("h.c"));
        // A second query of the same text waits for the first to let go.
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            drop(held);
        });
        let started = Instant::now();
        let (_again, same) = stable_harness(text, "h.c").unwrap();
        assert!(started.elapsed() >= Duration::from_millis(150));
        assert_eq!(path, same);
        release.join().unwrap();
    }

    #[test]
    fn an_unpacked_installation_is_known_by_its_loader() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(installation(Path::new("/usr/bin/cbmc")), None);
        let fake = dir.path().join("prefix");
        std::fs::create_dir_all(fake.join("bin")).unwrap();
        std::fs::create_dir_all(fake.join(LOADER).parent().unwrap()).unwrap();
        std::fs::write(fake.join(LOADER), b"").unwrap();
        assert_eq!(installation(&fake.join("bin/cbmc")), Some(fake.as_path()));
    }
}
