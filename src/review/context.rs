//! [`LearnContext`]: what learning needs besides the versions, shared by every version and
//! entry of a review: CBMC, the rayon pool (`--jobs`), the caches under `.git/mergelens/`,
//! progress reporting and the warnings collected on the way (among them the notes of cache
//! entries that failed their check, [`crate::cache_mac`], which go into the report too).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::error::ReviewError;
use super::store;
use crate::cbmc::Toolchain;
use crate::config::Settings;

type Progress = Box<dyn Fn(&str) + Send + Sync>;

/// What learning needs besides the versions, shared by every version and entry.
pub struct LearnContext {
    pub(crate) tools: Toolchain,
    pub(crate) pool: rayon::ThreadPool,
    pub(crate) automata: Option<store::AutomatonStore>,
    /// The answer store's directory (as `mergelens learn` uses it).
    pub(crate) answers: Option<PathBuf>,
    /// The per-execution check's cache (`.git/mergelens/executions/`).
    pub(crate) executions: Option<PathBuf>,
    progress: Option<Progress>,
    warnings: Mutex<Vec<String>>,
    /// Cache entries that failed their check, and a missing key: for the report's notes.
    cache_notes: Mutex<Vec<String>>,
}

impl LearnContext {
    /// Finds CBMC and builds the pool. `mergelens_dir` (`.git/mergelens/`) holds the caches;
    /// `None` learns everything afresh and keeps nothing.
    pub fn new(
        settings: &Settings,
        mergelens_dir: Option<&Path>,
    ) -> Result<LearnContext, ReviewError> {
        let mut tools = Toolchain::locate(settings.cbmc.as_deref())?;
        tools.allocations = settings.allocations;
        // The preprocessor and goto-cc of every version run under the query timeout too.
        crate::process::set_tool_timeout(settings.query_timeout);
        crate::process::set_memory_limit(settings.memory_limit);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(settings.jobs.max(1))
            .thread_name(|i| format!("mergelens-learn-{i}"))
            .build()
            .map_err(|e| ReviewError::Io {
                path: PathBuf::from("rayon"),
                source: std::io::Error::other(e),
            })?;
        // Without a key no cache is believed, nor written.
        let mut cache_notes = Vec::new();
        let mergelens_dir =
            mergelens_dir.filter(|_| crate::cache_mac::key_ready(|n| cache_notes.push(n)));
        Ok(LearnContext {
            tools,
            pool,
            automata: mergelens_dir.map(|d| store::AutomatonStore::new(d.join("automata"))),
            answers: mergelens_dir.map(|d| d.join("cache")),
            executions: mergelens_dir.map(|d| d.join("executions")),
            progress: None,
            warnings: Mutex::new(cache_notes.clone()),
            cache_notes: Mutex::new(cache_notes),
        })
    }

    /// Calls `report` with a line about each version's learning (for a progress bar).
    pub fn with_progress(mut self, report: impl Fn(&str) + Send + Sync + 'static) -> LearnContext {
        self.progress = Some(Box::new(report));
        self
    }

    pub(crate) fn progress(&self, line: &str) {
        if let Some(report) = &self.progress {
            report(line);
        }
    }

    pub(crate) fn warn(&self, line: &str) {
        if let Ok(mut w) = self.warnings.lock() {
            w.push(line.to_string());
        }
    }

    /// Notes a cache entry that failed its check (once per entry, on the terminal and in
    /// the report); the caller recomputes it, so there is nothing to return.
    pub(crate) fn cache_rejected<T>(&self, rejected: &crate::cache_mac::Rejected) -> Option<T> {
        let note = rejected.to_string();
        if let Ok(mut notes) = self.cache_notes.lock()
            && !notes.contains(&note)
        {
            notes.push(note.clone());
            self.warn(&note);
        }
        None
    }

    /// The cache notes since the last call, for a report's notes.
    pub(crate) fn take_cache_notes(&self) -> Vec<String> {
        self.cache_notes
            .lock()
            .map(|mut n| std::mem::take(&mut *n))
            .unwrap_or_default()
    }

    /// Warnings collected so far (a cache that could not be written, say).
    pub fn take_warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default()
    }
}
