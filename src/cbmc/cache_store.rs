//! The persistent answer store: the CBMC teacher's confirmed answers on disk, so that a
//! second `mergelens learn` of the same program asks CBMC little or nothing.
//!
//! Key types:
//!
//! * [`StoreKey`]: what an answer depends on besides the word and the bounds: the
//!   instrumented program's fingerprint, the entry function, the mode (program explanation),
//!   the alphabet and the CBMC version, with the semantics of the queries
//!   ([`SEMANTICS_VERSION`], [`semantics_digest`]). Its digest names the store file.
//! * [`AnswerStore`]: one file `<dir>/<digest>.json` (`mergelens-cache/1`), keyed by a
//!   [`StoreKey`] or by a program ([`AnswerStore::for_program`]), read with
//!   [`AnswerStore::load`] and written atomically (a temporary file renamed over the old
//!   one) with [`AnswerStore::save`], which merges with what another run wrote meanwhile.
//! * [`Stored`]: the contents: [`StoredAnswer`]s and [`AcceptedConjecture`]s.
//!
//! The bounds are inside the file rather than in its name, because most answers hold for
//! more than one bound (Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//! Software Errors*, JAIR 2020, Sec. 7.1): an answer about a word `w` does not depend on the
//! word-length bound once that bound admits `w` (the harness only cuts longer paths), and a
//! larger unwinding only adds executions, so "yes" holds from the unwinding it was found at
//! upwards and "no" from it downwards. Each answer records those two limits. An accepted
//! conjecture holds for its exact bounds only.
//!
//! Only confirmed answers are stored: CBMC's, never a guess of lazy learning. A file whose
//! MAC ([`crate::cache_mac`]) is missing or wrong is [`StoreError::Rejected`]; one that
//! cannot be read, belongs to another key or names letters outside the alphabet is reported
//! as [`StoreError::Corrupt`] and not used; the caller warns and the next save replaces it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;
use thiserror::Error;

use super::locate::{Toolchain, Version};
use crate::automaton::{Alphabet, Dfa, Word, json, ops};
use crate::cprog::InstrumentedProgram;
use crate::failure::{FailureKind, HasKind};
use crate::fingerprint::Fingerprint;

/// The kind of entry the store file's MAC names ([`crate::cache_mac`]).
const KIND: &str = "answers";

/// The format tag of store files.
pub const STORE_FORMAT: &str = "mergelens-cache/1";

/// The version of what a query means: bump it whenever the instrumentation, a harness, the
/// query encoding or the way CBMC is run changes what an answer says. Every store key
/// includes it, with [`semantics_digest`] of the texts involved, so that answers and
/// automata learned under older semantics are never served; the `semantics_are_pinned`
/// test fails when those texts change and this number did not.
pub const SEMANTICS_VERSION: u32 = 5;

/// A digest of [`SEMANTICS_VERSION`] and of the texts that decide what a query means: the
/// front end's instrumentation (hooks, header, exit calls, preprocessor flags), the
/// harnesses of a membership, a conjecture and a reachability query on a small example,
/// and the library unwinding.
pub fn semantics_digest() -> String {
    let mut h = Fingerprint::new();
    h.field(&format!("semantics/{SEMANTICS_VERSION}"));
    h.field(&semantics_texts_digest());
    h.hex()
}

/// The digest of the texts alone, which the test pins together with the version.
fn semantics_texts_digest() -> String {
    use crate::automaton::Alphabet;
    use crate::cbmc::harness::{self, Table};
    let mut h = Fingerprint::new();
    h.field(&crate::cprog::instrumentation_text());
    h.field(&harness::membership(&[&[0, 1], &[1]], 1, 3));
    let mut d = Dfa::with_states(Alphabet::from_names(["f", "end"]), 2);
    d.set_transition(0, 0, 0);
    d.set_transition(0, 1, 1);
    d.set_accepting(1, true);
    let table = Table::new(&d);
    h.field(&harness::conjecture(&table, &table, 1, 3, &[&[1]]));
    h.field(crate::cbmc::reach::HARNESS);
    h.field(&format!(
        "library-unwind={}",
        crate::cbmc::program::LIBRARY_UNWIND
    ));
    h.field(&super::library::supplement(&super::library::MODELLED_HERE));
    h.hex()
}

/// What a store's answers are answers to: part of its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreMode {
    /// `learn` and reviews: the words of executions that return from the entry function
    /// (program explanation, Sec. 5 of the paper).
    Learn,
    /// `explain`: the words of executions that fail the target assertion (error
    /// explanation, Sec. 4).
    Explain,
}

impl StoreMode {
    /// The key's text; the names stores were written under before this enum existed, so
    /// that existing caches stay valid.
    pub fn key(self) -> &'static str {
        match self {
            StoreMode::Learn => "explain",
            StoreMode::Explain => "error",
        }
    }
}

/// What the answers of one store depend on, besides words and bounds.
#[derive(Clone, Copy, Debug)]
pub struct StoreKey<'a> {
    /// [`crate::cprog::InstrumentedProgram::fingerprint`].
    pub fingerprint: &'a str,
    pub entry: &'a str,
    pub mode: &'a str,
    pub alphabet: &'a Alphabet,
    pub cbmc_version: Version,
}

impl StoreKey<'_> {
    /// A hex digest of every field.
    pub fn digest(&self) -> String {
        self.digest_under(&semantics_digest())
    }

    /// The digest under the query semantics `semantics` (a [`semantics_digest`]).
    fn digest_under(&self, semantics: &str) -> String {
        let mut h = Fingerprint::new();
        h.field(STORE_FORMAT);
        h.field(semantics);
        h.field(self.fingerprint);
        h.field(self.entry);
        h.field(self.mode);
        for name in self.alphabet.names() {
            h.field(name);
        }
        h.field(&self.cbmc_version.to_string());
        h.hex()
    }
}

/// A word's known answers, in CBMC unwinding values (`cbmc --unwind`).
#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredAnswer {
    pub word: Word,
    /// The word is in the language at this unwinding and every larger one.
    pub yes_from: Option<u32>,
    /// The word is not in the language at this unwinding and every smaller one.
    pub no_up_to: Option<u32>,
}

/// How far the exactness pass checked an accepted conjecture: every accepted word of at most
/// `exact_up_to` letters is the word of an execution; `unchecked_words` longer ones (up to
/// `max_word_length`) were beyond `--exact-limit`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Exactness {
    pub max_word_length: usize,
    pub exact_up_to: usize,
    /// Accepted words the exactness pass had CBMC check.
    pub checked_words: u64,
    /// Accepted words it left unchecked (saturating).
    pub unchecked_words: u64,
}

impl Exactness {
    /// Whether every accepted word within the bound was confirmed.
    pub fn is_complete(&self) -> bool {
        self.exact_up_to >= self.max_word_length
    }
}

/// A conjecture CBMC and the exactness pass accepted at these bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptedConjecture {
    /// The CBMC unwinding value.
    pub unwind: u32,
    pub max_word_length: usize,
    /// [`dfa_digest`] of the conjecture.
    pub dfa: String,
    pub exactness: Exactness,
}

/// Whether the unwinding cut a loop on some execution within the word bound, at these
/// bounds: one CBMC run with unwinding assertions, remembered so that a second run of the
/// same program asks CBMC nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopCheck {
    /// The CBMC unwinding value.
    pub unwind: u32,
    pub max_word_length: usize,
    pub cut: bool,
}

/// The contents of a store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stored {
    pub answers: Vec<StoredAnswer>,
    pub accepted: Vec<AcceptedConjecture>,
    pub loop_checks: Vec<LoopCheck>,
}

impl Stored {
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty() && self.accepted.is_empty() && self.loop_checks.is_empty()
    }

    /// Both stores' facts; for a word in both, the wider limits.
    fn merge(&mut self, other: Stored) {
        let mut at: HashMap<Word, usize> = self
            .answers
            .iter()
            .enumerate()
            .map(|(i, a)| (a.word.clone(), i))
            .collect();
        for answer in other.answers {
            match at.get(&answer.word) {
                Some(&i) => {
                    let mine = &mut self.answers[i];
                    mine.yes_from = min_some(mine.yes_from, answer.yes_from);
                    mine.no_up_to = mine.no_up_to.max(answer.no_up_to);
                }
                None => {
                    at.insert(answer.word.clone(), self.answers.len());
                    self.answers.push(answer);
                }
            }
        }
        for accepted in other.accepted {
            if !self.accepted.contains(&accepted) {
                self.accepted.push(accepted);
            }
        }
        for check in other.loop_checks {
            if !self.loop_checks.contains(&check) {
                self.loop_checks.push(check);
            }
        }
    }
}

fn min_some(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Why the store could not be read or written. Neither stops a learning run.
#[derive(Debug, Error)]
pub enum StoreError {
    /// Its MAC is missing or wrong ([`crate::cache_mac`]).
    #[error(transparent)]
    Rejected(#[from] crate::cache_mac::Rejected),
    #[error("ignoring the corrupt cache file {}: {reason}", path.display())]
    Corrupt { path: PathBuf, reason: String },
    #[error("cannot write the cache file {}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl HasKind for StoreError {
    fn kind(&self) -> FailureKind {
        match self {
            StoreError::Rejected(e) => e.kind(),
            StoreError::Corrupt { .. } | StoreError::Write { .. } => FailureKind::Failed,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct StoreFile {
    format: String,
    key: String,
    alphabet: Vec<String>,
    answers: Vec<StoredAnswer>,
    accepted: Vec<AcceptedConjecture>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    loop_checks: Vec<LoopCheck>,
}

/// The store file of one [`StoreKey`] in a cache directory.
#[derive(Clone, Debug)]
pub struct AnswerStore {
    path: PathBuf,
    key: String,
    alphabet: Vec<String>,
}

impl AnswerStore {
    /// The store of `key` under `dir`; nothing is read or created yet.
    pub fn new(dir: &Path, key: &StoreKey) -> AnswerStore {
        let digest = key.digest();
        AnswerStore {
            path: dir.join(format!("{digest}.json")),
            key: digest,
            alphabet: key.alphabet.names().map(str::to_string).collect(),
        }
    }

    /// The store of `program`'s answers in `mode` under `dir`: the key every command uses,
    /// with `tools`' CBMC version and allocation model.
    pub fn for_program(
        dir: &Path,
        program: &InstrumentedProgram,
        mode: &str,
        tools: &Toolchain,
    ) -> AnswerStore {
        AnswerStore::new(
            dir,
            &StoreKey {
                fingerprint: &program.fingerprint(),
                entry: &program.entry,
                mode: &format!("{mode}{}", tools.allocations.key()),
                alphabet: &program.alphabet,
                cbmc_version: tools.version,
            },
        )
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the store holds; empty when there is no file yet.
    pub fn load(&self) -> Result<Stored, StoreError> {
        // The MAC first ([`crate::cache_mac`], which also bounds the size): a forged file
        // is no answer of CBMC's.
        let text = match crate::cache_mac::read(&self.path, KIND)? {
            Some(bytes) => bytes,
            None => return Ok(Stored::default()),
        };
        let file: StoreFile =
            serde_json::from_slice(&text).map_err(|e| self.corrupt(e.to_string()))?;
        if file.format != STORE_FORMAT {
            return Err(self.corrupt(format!("format {:?}", file.format)));
        }
        // A file renamed or copied under another key must not answer for this program.
        if file.key != self.key || file.alphabet != self.alphabet {
            return Err(self.corrupt("it belongs to another program or alphabet".to_string()));
        }
        let letters = self.alphabet.len();
        for answer in &file.answers {
            if answer.word.iter().any(|&a| a as usize >= letters) {
                return Err(self.corrupt(format!(
                    "the word {:?} is not over the alphabet",
                    answer.word
                )));
            }
            if let (Some(yes), Some(no)) = (answer.yes_from, answer.no_up_to)
                && yes <= no
            {
                return Err(self.corrupt(format!(
                    "the word {:?} is both in and not in the language",
                    answer.word
                )));
            }
        }
        Ok(Stored {
            answers: file.answers,
            accepted: file.accepted,
            loop_checks: file.loop_checks,
        })
    }

    /// Adds `stored` to the file: merged with what the file holds now (another run may have
    /// written it since this one loaded it), then written to a temporary file in the same
    /// directory and renamed over the old one, so that a reader never sees half a file.
    pub fn save(&self, stored: &Stored) -> Result<(), StoreError> {
        let mut all = stored.clone();
        if let Ok(current) = self.load() {
            all.merge(current);
        }
        let file = StoreFile {
            format: STORE_FORMAT.to_string(),
            key: self.key.clone(),
            alphabet: self.alphabet.clone(),
            answers: all.answers,
            accepted: all.accepted,
            loop_checks: all.loop_checks,
        };
        let text = serde_json::to_vec(&file).expect("a store always serialises");
        crate::cache_mac::write(&self.path, KIND, &text).map_err(|source| StoreError::Write {
            path: self.path.clone(),
            source,
        })
    }

    fn corrupt(&self, reason: String) -> StoreError {
        StoreError::Corrupt {
            path: self.path.clone(),
            reason,
        }
    }
}

/// A digest of an automaton's language: equal for equal languages over the same alphabet,
/// since [`ops::minimize`] numbers its result canonically.
pub fn dfa_digest(d: &Dfa) -> String {
    let mut h = Fingerprint::new();
    h.field(&json::to_string(&ops::minimize(d)));
    h.hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every semantics version with the digest of its texts. When this test fails, the
    /// instrumentation, a harness or the library unwinding changed: bump
    /// [`SEMANTICS_VERSION`] and append a pin; never edit an old one. A change of meaning
    /// that no text shows (query encoding in Rust) bumps the version with the same digest.
    const PINS: &[(u32, &str)] = &[
        (
            2,
            "493e1db94f86370d58d63e2a434e8d9eb1110d337ce966ceceb2c490f731c2ed",
        ),
        // Directive lines blanked byte for byte: instrumentation of files whose line
        // markers hold non-ASCII names changed, the texts did not.
        (
            3,
            "493e1db94f86370d58d63e2a434e8d9eb1110d337ce966ceceb2c490f731c2ed",
        ),
        // The membership harness records the path as one bit-vector: same answers, the
        // text changed.
        (
            4,
            "5ad196e46c7df99b9a907618364412391e347889315ab4f441124c8f6092afe2",
        ),
        // mergelens's own models of C library functions (the `strtod` family added) are
        // part of the texts.
        (
            5,
            "4cd97d929dfd5486a657d37c70bb2dc5db383d37f0b8bc52bfb801d80d5601c0",
        ),
    ];

    #[test]
    fn semantics_are_pinned() {
        assert!(
            PINS.windows(2).all(|w| w[0].0 < w[1].0),
            "each pin bumps the version"
        );
        assert_eq!(
            PINS.last().copied(),
            Some((SEMANTICS_VERSION, semantics_texts_digest().as_str())),
            "the query semantics changed: bump SEMANTICS_VERSION and append a pin"
        );
    }

    #[test]
    fn a_key_under_other_semantics_is_another_key() {
        let alphabet = Alphabet::from_names(["f", "end"]);
        let k = key(&alphabet, "p");
        assert_eq!(k.digest(), k.digest_under(&semantics_digest()));
        assert_ne!(k.digest_under("older semantics"), k.digest());
    }

    fn key<'a>(alphabet: &'a Alphabet, fingerprint: &'a str) -> StoreKey<'a> {
        StoreKey {
            fingerprint,
            entry: "main",
            mode: StoreMode::Learn.key(),
            alphabet,
            cbmc_version: Version {
                major: 6,
                minor: 6,
                patch: 0,
            },
        }
    }

    fn answer(word: &[u32], yes_from: Option<u32>, no_up_to: Option<u32>) -> StoredAnswer {
        StoredAnswer {
            word: word.to_vec(),
            yes_from,
            no_up_to,
        }
    }

    #[test]
    fn keys_follow_every_field() {
        let a = Alphabet::from_names(["f", "end"]);
        let b = Alphabet::from_names(["g", "end"]);
        assert_eq!(key(&a, "x").digest(), key(&a, "x").digest());
        assert_ne!(key(&a, "x").digest(), key(&a, "y").digest());
        assert_ne!(key(&a, "x").digest(), key(&b, "x").digest());
        let mut other = key(&a, "x");
        other.cbmc_version.minor = 5;
        assert_ne!(key(&a, "x").digest(), other.digest());
    }

    #[test]
    fn saves_merge_and_load_back() {
        let dir = tempfile::tempdir().unwrap();
        let alphabet = Alphabet::from_names(["f", "end"]);
        let store = AnswerStore::new(&dir.path().join("cache"), &key(&alphabet, "p"));
        assert_eq!(store.load().unwrap(), Stored::default());
        let first = Stored {
            answers: vec![answer(&[0, 1], Some(3), None), answer(&[1], None, Some(2))],
            accepted: vec![],
            loop_checks: vec![LoopCheck {
                unwind: 3,
                max_word_length: 4,
                cut: true,
            }],
        };
        store.save(&first).unwrap();
        let second = Stored {
            answers: vec![answer(&[0, 1], Some(2), None)],
            accepted: vec![AcceptedConjecture {
                unwind: 3,
                max_word_length: 4,
                dfa: "d".into(),
                exactness: Exactness {
                    max_word_length: 4,
                    exact_up_to: 4,
                    checked_words: 1,
                    unchecked_words: 0,
                },
            }],
            loop_checks: vec![],
        };
        store.save(&second).unwrap();
        let back = store.load().unwrap();
        assert_eq!(back.answers.len(), 2);
        let fx = back.answers.iter().find(|a| a.word == [0, 1]).unwrap();
        assert_eq!(fx.yes_from, Some(2));
        assert_eq!(back.accepted.len(), 1);
        assert_eq!(back.loop_checks, first.loop_checks);
        // Only the store file is left in the directory: the temporary one was renamed.
        let names: Vec<_> = std::fs::read_dir(dir.path().join("cache"))
            .unwrap()
            .collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn forged_corrupt_or_foreign_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let alphabet = Alphabet::from_names(["f", "end"]);
        let store = AnswerStore::new(dir.path(), &key(&alphabet, "p"));
        // Without a MAC: refused before it is parsed.
        std::fs::write(store.path(), "{not json").unwrap();
        assert!(matches!(store.load(), Err(StoreError::Rejected(_))));
        // Saving over it replaces it.
        store.save(&Stored::default()).unwrap();
        assert!(store.load().is_ok());
        // An authentic file copied under another key's name fails its MAC.
        let other = AnswerStore::new(dir.path(), &key(&alphabet, "q"));
        std::fs::copy(store.path(), other.path()).unwrap();
        let err = other.load().unwrap_err().to_string();
        assert!(err.contains("failed its check (wrong MAC)"), "{err}");
        // An edited answer fails it too.
        let text = std::fs::read_to_string(store.path()).unwrap();
        let edited = text.replace("\"answers\":[]", "\"answers\":[{\"word\":[1]}]");
        assert_ne!(edited, text);
        std::fs::write(store.path(), edited).unwrap();
        assert!(matches!(store.load(), Err(StoreError::Rejected(_))));
        // Authentic but not ours (a bug, or an older mergelens): still checked.
        let authentic = |text: &str| crate::cache_mac::write(store.path(), KIND, text.as_bytes());
        authentic("{not json").unwrap();
        assert!(matches!(store.load(), Err(StoreError::Corrupt { .. })));
        let foreign = format!(
            "{{\"format\":\"{STORE_FORMAT}\",\"key\":\"x\",\"alphabet\":[],\"answers\":[],\"accepted\":[]}}"
        );
        authentic(&foreign).unwrap();
        let err = store.load().unwrap_err().to_string();
        assert!(err.contains("another program"), "{err}");
    }

    #[test]
    fn digests_ignore_state_numbering() {
        let alphabet = Alphabet::from_names(["f", "end"]);
        let mut a = Dfa::with_states(alphabet.clone(), 3);
        a.set_transition(0, 0, 1);
        a.set_transition(1, 1, 2);
        a.set_accepting(2, true);
        let mut b = Dfa::with_states(alphabet, 3);
        b.set_transition(0, 0, 2);
        b.set_transition(2, 1, 1);
        b.set_accepting(1, true);
        assert_eq!(dfa_digest(&a), dfa_digest(&b));
        b.set_transition(0, 1, 1);
        assert_ne!(dfa_digest(&a), dfa_digest(&b));
    }
}
