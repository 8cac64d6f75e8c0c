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

/// How many of `n` pieces of work (an audit's merges, a series' steps) run at once:
/// `--remote-jobs` with a remote engine, but one at a time under `--time-budget`, saying so
/// (`why`: what goes one at a time, and why).
pub fn concurrent_jobs(time_budget: bool, n: usize, why: &str) -> usize {
    let jobs = mergelens::remote::current().map_or(1, |r| r.config().jobs);
    if jobs > 1 && time_budget {
        errln!("mergelens: warning: --remote-jobs: {why}");
        return 1;
    }
    jobs.min(n).max(1)
}

/// `run(k)` of every `k` below `n` on `jobs` threads, each result given to `emit` in the
/// order of `k` as soon as those before it are done; what `emit` returns, in that order.
pub fn in_order<R: Send, T: Send>(
    n: usize,
    jobs: usize,
    run: impl Fn(usize) -> R + Sync,
    emit: &mut (impl FnMut(R) -> T + Send),
) -> Vec<T> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    // The results not yet emitted, and those emitted.
    let state = Mutex::new((
        (0..n).map(|_| None).collect::<Vec<Option<R>>>(),
        Vec::with_capacity(n),
        emit,
    ));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, Ordering::SeqCst);
                    if k >= n {
                        break;
                    }
                    let result = run(k);
                    let mut guard = state.lock().unwrap_or_else(|p| p.into_inner());
                    let (waiting, done, emit) = &mut *guard;
                    waiting[k] = Some(result);
                    while let Some(result) = waiting.get_mut(done.len()).and_then(Option::take) {
                        done.push(emit(result));
                    }
                }
            });
        }
    });
    state.into_inner().unwrap_or_else(|p| p.into_inner()).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_emitted_in_order_whichever_finishes_first() {
        use std::sync::atomic::{AtomicBool, Ordering};
        // The first waits for the second to finish: the second is done first, and waits.
        let second_done = AtomicBool::new(false);
        let run = |k: usize| {
            while k == 0 && !second_done.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
            if k == 1 {
                second_done.store(true, Ordering::SeqCst);
            }
            k * 10
        };
        let mut seen = Vec::new();
        let mut emit = |r: usize| {
            seen.push(r);
            r + 1
        };
        assert_eq!(in_order(5, 2, run, &mut emit), [1, 11, 21, 31, 41]);
        assert_eq!(seen, [0, 10, 20, 30, 40]);
    }
}
