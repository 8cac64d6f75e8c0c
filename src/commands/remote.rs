//! `--remote`: the remote execution engine of a command's CBMC runs (docs/remote.md), from
//! the command line or the user's trusted configuration, never from a repository's.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use mergelens::remote::{CacheMode, Remote, RemoteConfig, RemoteStats};

/// The variable that holds the server's bearer token, if it wants one.
pub const TOKEN_VARIABLE: &str = "MERGELENS_REMOTE_TOKEN";

/// What the command line says (`--remote`, `--remote-instance`, `--remote-cache`).
#[derive(Debug, Default)]
pub struct RemoteFlags {
    pub remote: Option<String>,
    pub remote_instance: Option<String>,
    pub remote_cache: Option<String>,
}

/// The engine's settings: the command line's, else the user configuration's; `None` when
/// neither names a server.
pub fn config(cli: &RemoteFlags) -> anyhow::Result<Option<RemoteConfig>> {
    let user = mergelens::trust::UserConfig::load()?;
    let Some(url) = cli.remote.clone().or(user.remote) else {
        return Ok(None);
    };
    let cache = match cli.remote_cache.as_deref().or(user.remote_cache.as_deref()) {
        Some(mode) => mode.parse::<CacheMode>()?,
        None => CacheMode::default(),
    };
    Ok(Some(RemoteConfig {
        url,
        instance: cli
            .remote_instance
            .clone()
            .or(user.remote_instance)
            .unwrap_or_default(),
        cache,
        // From the environment only: a secret has no place in a file or a command line.
        token: std::env::var(TOKEN_VARIABLE)
            .ok()
            .filter(|t| !t.is_empty())
            .map(mergelens::remote::Token),
    }))
}

/// Connects to the configured server and makes it the engine of every CBMC run: a server
/// that does not answer is an error here, before any work.
pub fn setup(cli: &RemoteFlags) -> anyhow::Result<()> {
    let Some(config) = config(cli)? else {
        return Ok(());
    };
    let remote = Remote::connect(config).context("--remote")?;
    mergelens::remote::install(Some(Arc::new(remote)));
    Ok(())
}

/// One line on stderr of what the engine did, when there is one.
pub fn summary() {
    if let Some(remote) = mergelens::remote::current() {
        eprintln!(
            "mergelens: remote {}: {}",
            remote.config().url,
            mergelens::remote::stats().sentence()
        );
    }
}

/// The counts a document carries: those since `start` (a reading of
/// [`mergelens::remote::stats`] when the work began), `None` without a remote engine.
pub fn counts_since(start: &RemoteStats) -> Option<RemoteStats> {
    mergelens::remote::current().map(|_| mergelens::remote::stats().since(start))
}

/// A command's temporary directory: with a remote engine, named by what it is for (`key`:
/// the files learned and the current directory), so that the paths CBMC's goto binaries
/// record are the same in every run and the action cache can answer a second run; taken
/// by one run at a time (another gets a directory of its own, and misses the cache).
pub enum WorkDir {
    Temp(tempfile::TempDir),
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

pub fn work_dir(prefix: &str, key: &[PathBuf]) -> anyhow::Result<WorkDir> {
    if mergelens::remote::current().is_some() {
        use sha2::{Digest as _, Sha256};
        let mut hash = Sha256::new();
        hash.update(
            std::env::current_dir()
                .unwrap_or_default()
                .as_os_str()
                .as_encoded_bytes(),
        );
        for path in key {
            hash.update(b"\0");
            hash.update(path.as_os_str().as_encoded_bytes());
        }
        let name = format!("{prefix}{:x}", hash.finalize());
        let dir = tempfile::env::temp_dir().join(&name[..prefix.len() + 32]);
        if std::fs::create_dir(&dir).is_ok() {
            return Ok(WorkDir::Stable(dir));
        }
    }
    Ok(WorkDir::Temp(
        tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .context("cannot create a temporary directory")?,
    ))
}
