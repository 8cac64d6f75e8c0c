//! The automaton cache: each learned automaton under `.git/mergelens/automata/`, keyed by
//! what determines it (the instrumented program's fingerprint, the entry, the bounds, the
//! exactness limit, the CBMC version and the query semantics,
//! [`crate::cbmc::cache_store::semantics_digest`]), so that a second review of the same merge, or a
//! review after one more commit on one branch, learns only the versions whose sources
//! changed. Each entry carries a MAC ([`crate::cache_mac`]): a forged one is learned anew.
//! The answer store of `mergelens learn` sits beside it and makes relearning a
//! changed version cheaper still.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::automaton::Dfa;
use crate::cache_mac::{self, Rejected};
use crate::cbmc::LearnBounds;
use crate::cbmc::cache_store::StoreKey;
use crate::cprog::InstrumentedProgram;
use crate::document::{Automaton, LearningStats};

const FORMAT: &str = "mergelens-automaton-cache/1";
/// The kind of entry its MAC names.
const KIND: &str = "automaton";

/// A cached automaton.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CachedAutomaton {
    format: String,
    pub dfa: Automaton,
    pub stats: LearningStats,
    /// Up to which length the automaton is exact (the bound, unless the exactness pass hit
    /// its limit).
    pub exact_up_to: usize,
}

/// What a cached automaton depends on.
pub(crate) struct CacheKey<'a> {
    pub program: &'a InstrumentedProgram,
    pub bounds: LearnBounds,
    pub exact_limit: u64,
    /// Its CBMC version and allocation model.
    pub tools: &'a crate::cbmc::Toolchain,
}

/// The cache directory.
#[derive(Clone, Debug)]
pub(crate) struct AutomatonStore {
    dir: PathBuf,
}

impl AutomatonStore {
    pub fn new(dir: PathBuf) -> AutomatonStore {
        AutomatonStore { dir }
    }

    fn path(&self, key: &CacheKey<'_>) -> PathBuf {
        let mode = format!(
            "{FORMAT};unwind={};max-word-length={};exact-limit={}{}",
            key.bounds.unwind,
            key.bounds.max_word_length,
            key.exact_limit,
            key.tools.allocations.key()
        );
        let digest = StoreKey {
            fingerprint: &key.program.fingerprint(),
            entry: &key.program.entry,
            mode: &mode,
            alphabet: &key.program.alphabet,
            cbmc_version: key.tools.version,
        }
        .digest();
        self.dir.join(format!("{digest}.json"))
    }

    /// The cached automaton, if there is an authentic one ([`crate::cache_mac`]); a forged
    /// entry is [`Rejected`], to be noted and learned anew.
    pub fn load(&self, key: &CacheKey<'_>) -> Result<Option<CachedAutomaton>, Rejected> {
        let cached: Option<CachedAutomaton> = cache_mac::read_json(&self.path(key), KIND)?;
        // An automaton over other letters belongs to another program: ignore it.
        Ok(cached.filter(|c| c.format == FORMAT && c.dfa.0.alphabet() == &key.program.alphabet))
    }

    /// Writes atomically, with its MAC; a failure only costs the next run time, so it is
    /// returned for a warning.
    pub fn save(
        &self,
        key: &CacheKey<'_>,
        dfa: &Dfa,
        stats: &LearningStats,
        exact_up_to: usize,
    ) -> std::io::Result<()> {
        let entry = CachedAutomaton {
            format: FORMAT.to_string(),
            dfa: Automaton(dfa.clone()),
            stats: stats.clone(),
            exact_up_to,
        };
        cache_mac::write_json(&self.path(key), KIND, &entry)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}
