//! The per-execution check's cache: [`CachedEnumeration`] (one finished check, under
//! [`cache_key`]), [`PartialEnumeration`] (what a stopped check had found, resumed from by
//! [`Resume`]) and [`LimitHit`] (a check past the memory limit or timeout, not run again
//! under the same limits). Each is one JSON file in `.git/mergelens/executions/`, written
//! whole or not at all, with its MAC ([`crate::cache_mac`]): [`load`] notes a forged one in
//! the review and recomputes.

use super::context::LearnContext;
use crate::cbmc::product::{Enumeration, Execution as RawExecution, Goal, Layout, harness};
use crate::cbmc::{CbmcRunError, LearnBounds};
use crate::config::Settings;
use crate::document::SelfCheck;
use crate::fingerprint::Fingerprint;

/// Version 3: executions carry where each input value was read.
/// At most this many quadruples are enumerated per entry; past it the check is partial.
pub(super) const LIMIT: usize = 64;

/// Version 5: logs end with the entry's result, executions carry the results, and an entry
/// names the branches whose change no call and no result shows.
pub(super) const CACHE_FORMAT: &str = "mergelens-executions/5";

#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct CachedEnumeration {
    pub(super) format: String,
    /// Absent when no CBMC run was needed.
    pub(super) self_check: Option<SelfCheck>,
    pub(super) enumeration: Enumeration,
    /// The branches (`ours`, `theirs`) that changed the entry's program and yet call and
    /// return as the base does on every input within the bounds.
    #[serde(default)]
    pub(super) unseen: Vec<String>,
    /// The unwinding of the library's loops proved enough for the check (by the versions'
    /// tests or the product's own); absent: the default bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) library_unwind: Option<u32>,
}

impl CachedEnumeration {
    /// The check of a merge that runs one branch's code: complete without a CBMC run.
    pub(super) fn nothing_to_enumerate() -> CachedEnumeration {
        CachedEnumeration {
            format: CACHE_FORMAT.to_string(),
            self_check: None,
            enumeration: Enumeration {
                complete: true,
                ..Enumeration::default()
            },
            unseen: Vec::new(),
            library_unwind: None,
        }
    }
}

/// Executions found by a run that stopped before its enumeration ended.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct PartialEnumeration {
    pub(super) format: String,
    pub(super) executions: Vec<RawExecution>,
}

/// Where a per-execution check starts and keeps what it finds against a stop.
pub(super) struct Resume {
    pub(super) start: Vec<RawExecution>,
    pub(super) path: Option<std::path::PathBuf>,
}

/// The kind of entry the MACs of this cache name.
const KIND: &str = "executions";

/// The entry at `path`, if there is an authentic one of this format; a forged one is noted
/// in the review (and so recomputed).
pub(super) fn load<T: serde::de::DeserializeOwned + Formatted>(
    path: &std::path::Path,
    ctx: &LearnContext,
) -> Option<T> {
    crate::cache_mac::read_json::<T>(path, KIND)
        .unwrap_or_else(|forged| ctx.cache_rejected(&forged))
        .filter(|entry| entry.format() == CACHE_FORMAT)
}

/// An entry that names its format.
pub(super) trait Formatted {
    fn format(&self) -> &str;
}

impl Formatted for CachedEnumeration {
    fn format(&self) -> &str {
        &self.format
    }
}

impl Formatted for PartialEnumeration {
    fn format(&self) -> &str {
        &self.format
    }
}

impl Formatted for LimitHit {
    fn format(&self) -> &str {
        &self.format
    }
}

/// A per-execution check that ran past the memory limit or the query timeout, remembered
/// beside its cache entry with the limits it ran under.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct LimitHit {
    pub(super) format: String,
    pub(super) reason: String,
    /// Set for a run out of memory: the limit in bytes.
    pub(super) memory_limit: Option<u64>,
    /// Set for a run out of time: the query timeout in milliseconds.
    pub(super) timeout_ms: Option<u64>,
}

impl LimitHit {
    pub(super) fn remember(
        path: &std::path::Path,
        error: &CbmcRunError,
        reason: &str,
        settings: &Settings,
    ) {
        let hit = LimitHit {
            format: CACHE_FORMAT.to_string(),
            reason: reason.to_string(),
            memory_limit: matches!(error, CbmcRunError::OutOfMemory { .. })
                .then_some(settings.memory_limit)
                .flatten(),
            timeout_ms: matches!(error, CbmcRunError::Timeout { .. })
                .then(|| settings.query_timeout.map(|t| t.as_millis() as u64))
                .flatten(),
        };
        if hit.memory_limit.is_some() || hit.timeout_ms.is_some() {
            let _ = save(path, &hit);
        }
    }

    /// The reason again, when the limits now are no larger than those the check ran out of.
    pub(super) fn recalled(&self, settings: &Settings) -> Option<String> {
        let memory = self
            .memory_limit
            .zip(settings.memory_limit)
            .is_some_and(|(then, now)| now <= then);
        let time = self
            .timeout_ms
            .zip(settings.query_timeout)
            .is_some_and(|(then, now)| now.as_millis() as u64 <= then);
        (memory || time).then(|| {
            format!(
                "{} (remembered from an earlier review under the same limits; raise the limit to try again)",
                self.reason
            )
        })
    }
}

/// Why a per-execution check ended without an answer that is no error of the review: a
/// stop request (the executions found so far are kept), or a CBMC run past its timeout or
/// memory limit. The review is then `unfinished`.
pub(super) fn unfinished(error: &CbmcRunError, kept: bool) -> Option<String> {
    if let Some(reason) = crate::stop::stop_reason() {
        return Some(if kept {
            format!(
                "the run was stopped ({reason}); the executions found so far are kept and the next review resumes from them"
            )
        } else {
            format!("the run was stopped ({reason})")
        });
    }
    matches!(
        error,
        CbmcRunError::Timeout { .. } | CbmcRunError::OutOfMemory { .. }
    )
    .then(|| error.to_string())
}

pub(super) fn save(path: &std::path::Path, e: &impl serde::Serialize) -> std::io::Result<()> {
    crate::cache_mac::write_json(path, KIND, e)
}

/// What an enumeration depends on: mergelens's query semantics (the version and digest the
/// answer store is keyed by too), the four instrumented versions, the bounds, the harness
/// (its encoding and tape), the limit and the CBMC version.
pub(super) fn cache_key(
    fingerprints: &[String],
    bounds: LearnBounds,
    ctx: &LearnContext,
) -> String {
    let mut h = Fingerprint::new();
    h.field(CACHE_FORMAT);
    h.field(&crate::cbmc::cache_store::semantics_digest());
    for f in fingerprints {
        h.field(f);
    }
    h.field(&format!(
        "unwind={};max-word-length={};limit={LIMIT}",
        bounds.unwind, bounds.max_word_length
    ));
    let layout = Layout {
        tags: &['o', 'a', 'b', 'm'],
        maps: &[],
        sites: &[],
        counted: &[],
        arguments: 0,
        max_word_length: bounds.max_word_length,
        inputs: &["key".to_string()],
        results: true,
        globals: (1, &[]),
    };
    h.field(&harness(&layout, &Goal::NewQuadruple { blocked: &[] }));
    h.field(&harness(&layout, &Goal::Divergence(&[('o', 'p')])));
    let v = ctx.tools.version;
    let allocations = ctx.tools.allocations.key();
    h.field(&format!("{}.{}.{}{allocations}", v.major, v.minor, v.patch));
    h.hex()
}
