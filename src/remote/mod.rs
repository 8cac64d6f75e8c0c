//! Remote execution of tool runs through the Bazel Remote Execution API v2 (REAPI): a run is
//! an Action (command line, input root, output files, timeout), looked up in the server's
//! action cache first and executed by its workers otherwise.
//!
//! Key items:
//!
//! * [`Remote`]: one connection to a REAPI server ([`RemoteConfig`]: its `grpc://` address,
//!   instance name and [`CacheMode`]); [`Remote::run`] runs an [`ActionSpec`], retrying a
//!   lost connection, and says whether the answer came from the cache ([`ActionOutcome`]).
//!   [`Remote::mount`] uploads a directory (the CBMC installation) to the CAS once and gives
//!   its digest, which every action's input root then holds.
//! * [`install`] / [`current`]: the process's remote engine, set by a command that was given
//!   `--remote`; without one every run stays on this machine.
//! * [`stats`]: how many actions ran remotely, were answered by the action cache, or fell
//!   back to a local run ([`RemoteStats`]), for documents and progress lines.
//! * [`work_dir`]: a temporary directory named by what it holds when a remote engine runs
//!   the actions, so that a second run's goto binaries are the same and the cache answers.
//! * [`RemoteError`]: what went wrong talking to the server.
//!
//! The generated REAPI types come from the `bazel-remote-apis` crate (pre-generated prost
//! and tonic code, so no `protoc` at build time). Calls block their thread on one shared
//! tokio runtime: the callers are the learners' threads.

mod client;
pub(crate) mod tree;
mod types;
mod work_dir;

pub use types::{
    ActionOutcome, ActionSpec, CacheMode, MountedTree, RemoteConfig, RemoteError, Token,
};
pub use work_dir::WorkDir;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Attempts of one action before the caller runs it locally.
const ATTEMPTS: u32 = 3;

/// A connection to a REAPI server.
pub struct Remote {
    config: RemoteConfig,
    client: client::Client,
    mounted: Mutex<HashMap<PathBuf, MountedTree>>,
}

impl Remote {
    /// Connects to the server and asks for its capabilities, so that a wrong address is
    /// one clear error at the start rather than a fallback on every run.
    pub fn connect(config: RemoteConfig) -> Result<Remote, RemoteError> {
        let token = config.token.as_ref().map(|t| t.0.as_str());
        let client =
            client::Client::connect(&config.url, &config.instance, token, config.ca.as_deref())?;
        client.capabilities()?;
        Ok(Remote {
            config,
            client,
            mounted: Mutex::new(HashMap::new()),
        })
    }

    pub fn config(&self) -> &RemoteConfig {
        &self.config
    }

    /// The server's capabilities in a few lines, for `doctor`.
    pub fn describe(&self) -> Result<Vec<String>, RemoteError> {
        self.client.capabilities()
    }

    /// Uploads the files under `dir` named by `select` (paths relative to it; a directory
    /// brings all it holds) once per process and gives the tree's digest.
    pub fn mount(&self, dir: &Path, select: &[&str]) -> Result<MountedTree, RemoteError> {
        let mut mounted = self.mounted.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tree) = mounted.get(dir) {
            return Ok(tree.clone());
        }
        let mut builder = tree::TreeBuilder::default();
        for part in select {
            let disk = dir.join(part);
            if disk.is_dir() {
                tree::add_dir(&mut builder, part, &disk)?;
            } else {
                builder.file(part, &disk)?;
            }
        }
        let (root, blobs) = builder.finish();
        self.client.upload_missing(&blobs)?;
        let tree = MountedTree(root);
        mounted.insert(dir.to_path_buf(), tree.clone());
        Ok(tree)
    }

    /// Runs `spec`: the action cache first, then an execution; a transient failure is
    /// tried again, [`ATTEMPTS`] times in all. The caller runs it locally on an error.
    pub fn run(&self, spec: &ActionSpec) -> Result<ActionOutcome, RemoteError> {
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.client.run(spec, self.config.cache) {
                Ok(outcome) => {
                    let counter = if outcome.cached {
                        &STATS.cache_hits
                    } else {
                        &STATS.executed
                    };
                    counter.fetch_add(1, Ordering::Relaxed);
                    return Ok(outcome);
                }
                Err(e) if e.transient() && attempt < ATTEMPTS => {
                    STATS.retries.fetch_add(1, Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(200 << attempt));
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// What the remote engine did in this process (or in a part of its work, [`RemoteStats::since`]);
/// the `remote` key of `learn --stats`, review and audit documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteStats {
    /// Actions the server's workers executed.
    pub executed: u64,
    /// Actions the action cache answered.
    pub cache_hits: u64,
    /// Attempts tried again after a transient failure.
    pub retries: u64,
    /// Runs that went to the server and were then run on this machine after all.
    pub local_fallbacks: u64,
}

impl RemoteStats {
    /// What happened after `earlier` (an earlier reading of [`stats`]).
    pub fn since(&self, earlier: &RemoteStats) -> RemoteStats {
        RemoteStats {
            executed: self.executed.saturating_sub(earlier.executed),
            cache_hits: self.cache_hits.saturating_sub(earlier.cache_hits),
            retries: self.retries.saturating_sub(earlier.retries),
            local_fallbacks: self.local_fallbacks.saturating_sub(earlier.local_fallbacks),
        }
    }

    /// The counts in words, as the terminal, Markdown and HTML reports say them.
    pub fn sentence(&self) -> String {
        format!(
            "{} actions executed, {} answered by the action cache, {} retried, {} run locally instead",
            self.executed, self.cache_hits, self.retries, self.local_fallbacks
        )
    }
}

struct Counters {
    executed: AtomicU64,
    cache_hits: AtomicU64,
    retries: AtomicU64,
    local_fallbacks: AtomicU64,
}

static STATS: Counters = Counters {
    executed: AtomicU64::new(0),
    cache_hits: AtomicU64::new(0),
    retries: AtomicU64::new(0),
    local_fallbacks: AtomicU64::new(0),
};

/// The counts so far.
pub fn stats() -> RemoteStats {
    RemoteStats {
        executed: STATS.executed.load(Ordering::Relaxed),
        cache_hits: STATS.cache_hits.load(Ordering::Relaxed),
        retries: STATS.retries.load(Ordering::Relaxed),
        local_fallbacks: STATS.local_fallbacks.load(Ordering::Relaxed),
    }
}

/// A temporary directory for files whose paths goto binaries record: with a remote engine
/// ([`current`]) named by `key` (a checkout's files, an instrumented copy's checkout and
/// entry), so that a second run sends the same actions; else a random name ([`WorkDir`]).
pub fn work_dir(prefix: &str, key: &[&[u8]]) -> std::io::Result<WorkDir> {
    work_dir::make(prefix, key, current().is_some())
}

/// Counts a run that fell back to this machine.
pub fn record_fallback() {
    STATS.local_fallbacks.fetch_add(1, Ordering::Relaxed);
}

static CURRENT: RwLock<Option<Arc<Remote>>> = RwLock::new(None);

/// Makes `remote` the engine of every run from now on (`None`: all runs local).
pub fn install(remote: Option<Arc<Remote>>) {
    *CURRENT.write().unwrap_or_else(|p| p.into_inner()) = remote;
}

/// The engine [`install`] set, if any.
pub fn current() -> Option<Arc<Remote>> {
    CURRENT.read().unwrap_or_else(|p| p.into_inner()).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_modes_read_as_written_and_a_closed_port_is_one_error() {
        assert_eq!(
            "read-only".parse::<CacheMode>().ok(),
            Some(CacheMode::ReadOnly)
        );
        assert!("rw".parse::<CacheMode>().is_err());
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let error = Remote::connect(RemoteConfig {
            url: format!("grpc://127.0.0.1:{port}"),
            instance: String::new(),
            cache: CacheMode::ReadWrite,
            jobs: 1,
            token: None,
            ca: None,
        })
        .err()
        .expect("nothing listens there");
        let text = crate::failure::text(&error);
        assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
        assert!(!text.contains('\n'), "{text}");
        let bad = Remote::connect(RemoteConfig {
            url: "http://x".into(),
            instance: String::new(),
            cache: CacheMode::ReadWrite,
            jobs: 1,
            token: None,
            ca: None,
        });
        assert!(matches!(bad, Err(RemoteError::BadSetting { .. })));
    }
}
