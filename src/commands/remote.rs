//! `--remote`: the remote execution engine of a command's CBMC runs (docs/remote.md), from
//! the command line or the user's trusted configuration, never from a repository's.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use mergelens::remote::{CacheMode, Remote, RemoteConfig, RemoteStats, WorkDir};

/// The variable that holds the server's bearer token, if it wants one.
pub const TOKEN_VARIABLE: &str = "MERGELENS_REMOTE_TOKEN";
/// The variable that names the PEM file of a private CA for a `grpcs://` server.
pub const CA_VARIABLE: &str = "MERGELENS_REMOTE_CA";

/// What the command line says (`--remote`, `--remote-instance`, `--remote-cache`).
#[derive(Debug, Default)]
pub struct RemoteFlags {
    pub remote: Option<String>,
    pub remote_instance: Option<String>,
    pub remote_cache: Option<String>,
    pub remote_jobs: Option<usize>,
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
        jobs: cli.remote_jobs.or(user.remote_jobs).unwrap_or(1).max(1),
        // From the environment only: a secret has no place in a file or a command line.
        token: std::env::var(TOKEN_VARIABLE)
            .ok()
            .filter(|t| !t.is_empty())
            .map(mergelens::remote::Token),
        ca: std::env::var_os(CA_VARIABLE)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from),
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

/// Confines the command's children ([`mergelens::sandbox`]): with a remote engine in a
/// private directory named the same from run to run, since the paths in it are part of the
/// actions the cache keys on.
pub fn confine() -> std::io::Result<mergelens::sandbox::ChildrenConfined> {
    if mergelens::remote::current().is_some() {
        mergelens::sandbox::confine_children_stable()
    } else {
        mergelens::sandbox::confine_children()
    }
}

/// A command's temporary directory: with a remote engine, named by what it is for (`key`:
/// the files learned and the current directory), so that the paths CBMC's goto binaries
/// record are the same in every run and the action cache can answer a second run
/// ([`mergelens::remote::work_dir`]).
pub fn work_dir(prefix: &str, key: &[PathBuf]) -> anyhow::Result<WorkDir> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let parts: Vec<&[u8]> = std::iter::once(&cwd)
        .chain(key)
        .map(|p| p.as_os_str().as_encoded_bytes())
        .collect();
    mergelens::remote::work_dir(prefix, &parts).context("cannot create a temporary directory")
}
