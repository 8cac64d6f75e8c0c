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
//! | [`failure`] | [`FailureKind`]: whose fault a failure is (bad input, a missing tool, a failed run); [`failure_kind`] reads it off any error of the library, for a front end's exit code |
//! | `fingerprint` | the one content hash (SHA-256) of every cache key, and C text hashed by its tokens |
//! | [`sandbox`] | Landlock: in a review, gcc, goto-cc and CBMC may read only the checkouts, the system and CBMC's installation |
//! | [`stop`] | the process-wide stop request (Ctrl-C) and time budget (`--time-budget`) every run of gcc, goto-cc and CBMC obeys, so a stopped run keeps what it learned |
//! | [`process`] | running gcc, goto-cc and CBMC within bounds: a deadline, an output cap, a memory limit (`RLIMIT_AS`) and the peak memory |
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
//! | [`review`] | versions → automata → the word-level differences (the fast first pass), the per-execution check (a product of the four versions on one input tape, call trees merged as diff3 merges lines), the coverage of the changed code, the verdict; `diff` between two revisions |
//! | [`report`] | the HTML page and the Markdown comment people read, from a [`document`] |
//!
//! The binary (`src/main.rs`) adds the command line (`cli`), the orchestration of each
//! command (`commands`) and the exit codes (`exit`); none of them is part of this library.
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
pub mod learn;
pub mod limits;
pub mod process;
pub mod report;
pub mod review;
pub mod sandbox;
pub mod stop;
pub mod trust;

pub use failure::FailureKind;

use std::error::Error;

use automaton::AutomatonError;
use automaton::concise::ConciseError;
use cbmc::{CbmcError, CbmcRunError, CbmcTeacherError};
use config::ConfigError;
use cprog::FrontEndError;
use git::GitError;
use report::ReportError;
use review::ReviewError;

/// The kind of `error` when it is one of the library's errors that knows it; `None` for
/// errors that do not (the caller looks further down the chain).
pub fn failure_kind(error: &(dyn Error + 'static)) -> Option<FailureKind> {
    use FailureKind::{BadInput, Failed, MissingTool};
    let judged = |bad_input: bool| if bad_input { BadInput } else { Failed };
    if let Some(e) = error.downcast_ref::<GitError>() {
        return Some(judged(e.is_bad_input()));
    }
    if error.downcast_ref::<ConfigError>().is_some() {
        return Some(BadInput);
    }
    if let Some(e) = error.downcast_ref::<ReviewError>() {
        return e.kind();
    }
    if let Some(e) = error.downcast_ref::<AutomatonError>() {
        return Some(judged(!matches!(e, AutomatonError::Write { .. })));
    }
    if let Some(e) = error.downcast_ref::<ConciseError>() {
        // Overlapping languages are the caller's input; a result that fails its check is ours.
        return Some(judged(matches!(e, ConciseError::Overlap { .. })));
    }
    if let Some(e) = error.downcast_ref::<ReportError>() {
        return Some(judged(e.is_bad_input()));
    }
    if error.downcast_ref::<CbmcError>().is_some() {
        return Some(MissingTool);
    }
    // The program is to blame for what the front end, goto-cc or CBMC reject; a query that
    // timed out or crashed is a failure of the run.
    if let Some(e) = error.downcast_ref::<FrontEndError>() {
        return Some(judged(!matches!(e, FrontEndError::Stopped { .. })));
    }
    if let Some(e) = error.downcast_ref::<CbmcTeacherError>() {
        return Some(judged(e.is_bad_input()));
    }
    if let Some(e) = error.downcast_ref::<CbmcRunError>() {
        return Some(judged(matches!(
            e,
            CbmcRunError::Compile { .. } | CbmcRunError::GotoCc { .. } | CbmcRunError::Cbmc { .. }
        )));
    }
    None
}
