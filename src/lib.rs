//! mergelens: see what a git merge does to a C program's behaviour.
//!
//! The method is Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//! Software Errors* (JAIR 2020): Angluin's L* with lazy learning, whose membership and
//! equivalence queries the CBMC bounded model checker answers on an instrumented copy of the
//! program. A review learns the automaton of four versions of a program (the merge base,
//! both branches, the merge result) and shows what the merge does that neither branch meant.
//!
//! The modules follow the data flow of a review, and each imports only from those above it
//! in this list (the first five are leaves; `scripts/check-layers.py` checks the order):
//!
//! | module | what it holds |
//! |---|---|
//! | [`bounds`] | the default loop and word-length bounds every analysis shares |
//! | [`failure`] | [`FailureKind`]: whose fault a failure is (bad input, a missing tool, a failed run), which every error type of the library says through [`HasKind`]; [`failure_kind`] reads it off any of them, for a front end's exit code; `failure::text`, an error and its causes on one line |
//! | `fingerprint` | the one content hash (SHA-256) of every cache key, and C text hashed by its tokens |
//! | [`sandbox`] | Landlock: in a review, gcc, goto-cc and CBMC may read only the checkouts, the system and CBMC's installation |
//! | [`stop`] | the process-wide stop request (Ctrl-C) and time budget (`--time-budget`) every run of gcc, goto-cc and CBMC obeys, so a stopped run keeps what it learned |
//! | [`process`] | running gcc, goto-cc and CBMC within bounds: a deadline, an output cap, a memory limit (`RLIMIT_AS`) and the peak memory |
//! | [`remote`] | remote execution through the Bazel Remote Execution API v2: a run as an Action, the action cache first, retries, the counts of remote runs, cache hits and local fallbacks |
//! | [`limits`] | the size of the JSON documents mergelens reads |
//! | [`cache_mac`] | authenticated cache entries: an HMAC under a key outside the repository (`$MERGELENS_CACHE_KEY` or the user's key file), so a forged entry is recomputed, never believed |
//! | [`automaton`] | [`automaton::Dfa`] over named letters: products, complement, minimisation (Hopcroft), analyses, `mergelens-dfa/1` JSON, DOT and SVG drawings |
//! | [`learn`] | L* (Angluin 1987) with lazy learning, counterexample processing (Rivest-Schapire), the query cache, the simulated teacher |
//! | [`cprog`] | the C front end: preprocessing, parsing (tree-sitter, with K&R and GNU forms rewritten for it), the alphabet of events, instrumentation, pre-check automata, generated entry harnesses, the product program of a merge's four versions |
//! | [`cbmc`] | finding and running CBMC; the teacher whose queries CBMC answers; the answer store; the bounds search of `--auto-bounds`; reachability of lines (coverage) and of the entry's return (why a language is empty); the per-execution check's queries |
//! | [`git`] | repositories, revisions, in-memory merges, checkouts into temporary directories, hook installation |
//! | [`document`] | the documents reports are made from (`mergelens-review/1`, the report keys of `mergelens-dfa/1`) and the languages they carry: plain data over [`automaton`] |
//! | [`config`] | `.mergelens.toml`, `compile_commands.json`, and the settings of a review |
//! | [`trust`] | who may decide what (`docs/trust.md`): tools only from trusted places, the owner's committed settings govern a review and the hook, paths stay inside, panics are internal failures |
//! | [`language`] | the language of one program as `learn` and `explain` compute it: the options they share, a learning run that keeps a stopped run's last conjecture, the choice of an assertion to explain, its example words and traces, the output documents |
//! | [`setup`] | what `init` works out for a repository: the program's files, the candidate entries, the harness skeleton, the commented `.mergelens.toml`, one learning at small bounds and the bound it suggests |
//! | [`review`] | versions → automata → the word-level differences (the fast first pass), the per-execution check (a product of the four versions on one input tape, call trees merged as diff3 merges lines), the coverage of the changed code, the verdict; `diff` between two revisions |
//! | [`report`] | the HTML page and the Markdown comment people read, from a [`document`] |
//!
//! The binary (`src/main.rs`) adds the command line (`cli`), the commands (`commands`: each
//! parses its arguments, calls this library and prints what it returns) and the exit codes
//! (`exit`); none of them is part of this library.
//!
//! # Example
//!
//! ```
//! use mergelens::automaton::{Alphabet, Dfa, ops};
//!
//! // The merge's automaton accepts `f end` and `f g end`; the branch's only `f end`.
//! let alphabet = Alphabet::from_names(["f", "g", "end"]);
//! let [f, g, end] = [0, 1, 2].map(|i| alphabet.letters().nth(i).unwrap());
//! let mut merged = Dfa::with_states(alphabet.clone(), 3);
//! merged.set_transition(0, f, 1);
//! merged.set_transition(1, g, 1);
//! merged.set_transition(1, end, 2);
//! merged.set_accepting(2, true);
//! let mut branch = Dfa::with_states(alphabet, 3);
//! branch.set_transition(0, f, 1);
//! branch.set_transition(1, end, 2);
//! branch.set_accepting(2, true);
//!
//! // What the merge does beyond the branch: `f g end`, `f g g end`, ...
//! let added = ops::difference(&merged, &branch);
//! assert!(added.accepts(&[f, g, end]) && !added.accepts(&[f, end]));
//! ```

pub mod automaton;
pub mod bounds;
pub mod cache_mac;
pub mod cbmc;
pub mod config;
pub mod cprog;
pub mod document;
pub mod failure;
mod fingerprint;
pub mod git;
pub mod language;
pub mod learn;
pub mod limits;
pub mod process;
pub mod remote;
pub mod report;
pub mod review;
pub mod sandbox;
pub mod setup;
pub mod stop;
pub mod trust;

pub use failure::{FailureKind, HasKind};

use std::error::Error;

/// The registry of the library's error types: [`failure_kind`] tries each in turn. Every
/// type listed must implement [`HasKind`] (else this does not compile), and a unit test
/// fails when an error type of the library is missing here.
macro_rules! error_types {
    ($($ty:ty),* $(,)?) => {
        /// The kind of `error` when it is one of the library's errors; `None` for an error of
        /// another crate (the caller looks further down the chain: the first error of a
        /// chain that has a kind is the outermost, whose kind accounts for what it wraps).
        pub fn failure_kind(error: &(dyn Error + 'static)) -> Option<FailureKind> {
            $(
                if let Some(e) = error.downcast_ref::<$ty>() {
                    return Some(e.kind());
                }
            )*
            None
        }

        /// The names of the registered types, for the test that every error type is one.
        #[cfg(test)]
        const ERROR_TYPES: &[&str] = &[$(stringify!($ty)),*];
    };
}

error_types![
    automaton::AutomatonError,
    automaton::concise::ConciseError,
    cache_mac::CacheKeyError,
    cache_mac::Rejected,
    cbmc::CbmcError,
    cbmc::CbmcRunError,
    cbmc::CbmcTeacherError,
    cbmc::learning::LearningError,
    cbmc::cache_store::StoreError,
    cbmc::concrete::ConcreteError,
    config::ConfigError,
    cprog::ConcreteTextError,
    cprog::FrontEndError,
    cprog::HarnessError,
    cprog::product::ProductError,
    cprog::UnknownEventKind,
    failure::InternalError,
    git::GitError,
    language::ExplainError,
    language::LanguageError,
    learn::LearnError,
    learn::ParseError,
    limits::LimitError,
    process::NotAMemorySize,
    remote::RemoteError,
    report::ReportError,
    review::ReviewError,
    review::CoverageError,
    setup::SetupError,
    stop::Stopped,
];

/// A stop request or the time budget ended the run: no fault of the input's. (`stop` is a
/// leaf beside `failure`, so its error's kind is said here.)
impl HasKind for stop::Stopped {
    fn kind(&self) -> FailureKind {
        FailureKind::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names of the types that derive or implement `Error` in the library's files (the
    /// binary's `main.rs`, `exit.rs`, `cli/` and `commands/` aside, and unit tests).
    fn declared_error_types() -> Vec<String> {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut names = Vec::new();
        let mut dirs = vec![src.clone()];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                let rel = path
                    .strip_prefix(&src)
                    .unwrap()
                    .to_string_lossy()
                    .to_string();
                if ["main.rs", "exit.rs", "cli", "commands"].contains(&rel.as_str())
                    || rel.ends_with("tests.rs")
                {
                    continue;
                }
                if path.is_dir() {
                    dirs.push(path);
                } else if rel.ends_with(".rs") {
                    let text = std::fs::read_to_string(&path).unwrap();
                    let text = text
                        .split("#[cfg(test)]\nmod tests")
                        .next()
                        .unwrap_or_default();
                    names.extend(error_types_in(text));
                    assert_no_catch_all(&rel, text);
                }
            }
        }
        names.sort();
        names
    }

    /// Each `HasKind` impl names every variant: a `_` arm would give a new variant a kind
    /// no one chose.
    fn assert_no_catch_all(file: &str, text: &str) {
        for (at, _) in text.match_indices("HasKind for ") {
            let block = &text[at..];
            let block = &block[..block.find("\n}\n").unwrap_or(block.len())];
            assert!(!block.contains("_ =>"), "{file}: a `_` arm in {block}");
        }
    }

    /// The types after a `derive(...Error...)` and those named in `impl ... Error for T`.
    fn error_types_in(text: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut derived = false;
        for line in text.lines().map(str::trim) {
            if line.starts_with("#[derive(") && line.contains("Error") {
                derived = true;
            } else if derived && !line.starts_with('#') && !line.starts_with("///") {
                let words: Vec<&str> = line.split([' ', '(', '{', '<', ';']).collect();
                if let Some(at) = words.iter().position(|w| *w == "enum" || *w == "struct") {
                    names.push(words[at + 1].to_string());
                }
                derived = false;
            }
            if let Some(rest) = line.strip_prefix("impl")
                && let Some((head, ty)) = rest.split_once(" for ")
                && head.trim_end().ends_with("Error")
                && !head.contains("From")
            {
                names.push(ty.trim_end_matches(" {").to_string());
            }
        }
        names
    }

    #[test]
    fn every_error_type_of_the_library_has_a_registered_kind() {
        let registered: Vec<&str> = ERROR_TYPES
            .iter()
            .map(|t| t.rsplit("::").next().unwrap().trim())
            .collect();
        let declared = declared_error_types();
        assert!(
            declared.len() >= 20,
            "the scan finds the error types: {declared:?}"
        );
        for name in &declared {
            assert!(
                registered.contains(&name.as_str()),
                "{name} is an error type of the library without a kind: implement HasKind for it and list it in error_types!"
            );
        }
        assert_eq!(
            registered.len(),
            declared.len(),
            "{registered:?} vs {declared:?}"
        );
    }

    #[test]
    fn a_library_error_gives_its_kind_through_what_it_wraps() {
        let e = cprog::FrontEndError::Stopped {
            file: "a.c".into(),
            reason: stop::StopReason::Interrupted,
        };
        assert_eq!(failure_kind(&e), Some(FailureKind::Failed));
        let io = std::io::Error::other("x");
        assert_eq!(failure_kind(&io), None);
        let wrapped = review::ReviewError::Git(git::GitError::UnbornHead);
        assert_eq!(failure_kind(&wrapped), Some(FailureKind::BadInput));
    }
}
