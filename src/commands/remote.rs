//! `--remote`: the remote execution engine of a command's CBMC runs (docs/remote.md), from
//! the command line or the user's trusted configuration, never from a repository's.

use std::sync::Arc;

use anyhow::Context;
use mergelens::remote::{CacheMode, Remote, RemoteConfig};

use crate::cli::RemoteCli;

/// The engine's settings: the command line's, else the user configuration's; `None` when
/// neither names a server.
pub fn config(cli: &RemoteCli) -> anyhow::Result<Option<RemoteConfig>> {
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
    }))
}

/// Connects to the configured server and makes it the engine of every CBMC run: a server
/// that does not answer is an error here, before any work.
pub fn setup(cli: &RemoteCli) -> anyhow::Result<()> {
    let Some(config) = config(cli)? else {
        return Ok(());
    };
    let url = config.url.clone();
    let remote = Remote::connect(config).with_context(|| format!("--remote {url}"))?;
    mergelens::remote::install(Some(Arc::new(remote)));
    Ok(())
}

/// One line on stderr of what the engine did, when there is one.
pub fn summary() {
    if let Some(remote) = mergelens::remote::current() {
        let s = mergelens::remote::stats();
        eprintln!(
            "mergelens: remote {}: {} actions executed, {} answered by the action cache, {} retried, {} run locally instead",
            remote.config().url,
            s.executed,
            s.cache_hits,
            s.retries,
            s.local_fallbacks
        );
    }
}
