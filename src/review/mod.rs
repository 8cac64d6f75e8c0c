//! Merge review and behavioural diff: from git revisions to learned automata, the languages
//! a reviewer must look at, and a verdict.
//!
//! Key types and functions:
//!
//! * [`review_merge`]: the versions of a merge ([`crate::git::MergeVersions`]: the base O,
//!   ours A, theirs B and the merge result M) → a [`ReviewReport`] holding the
//!   `mergelens-review/1` document ([`crate::document::Review`]): per entry function,
//!   the four automata over one alphabet, `merge_minus_ours` = L(M) \ L(A) and
//!   `merge_minus_theirs` = L(M) \ L(B) (the paper's Fig. 13-14), the expected merge E
//!   ([`crate::document::languages::expected_merge`]), `unexpected` = L(M) \ E and `lost` = E \ L(M)
//!   (the word-level first pass), and the verdict of the per-execution check (`execution`,
//!   with the call-tree three-way merge of `diff3`): clean, unexpected, overlapping, or
//!   conflict when git could not merge the files (then O, A and B are learned and A △ B
//!   shown instead of conflict markers).
//!   Each entry also carries the source changes (`source`) of the functions its
//!   differences are about: base → merged, or ours → theirs in a conflict.
//! * [`diff_revisions`]: two commits → the behaviour added, removed and changed per entry,
//!   with the source changes of the functions in it.
//! * [`LearnContext`]: CBMC, the rayon pool (`--jobs`), the caches under `.git/mergelens/`
//!   and progress reporting, shared by all versions and entries.
//! * [`versions_to_review`], [`review_setup`] and [`gate`] (`request`): which merge, the
//!   settings that govern its review, and whether `fail-on` lets it go ahead.
//! * [`ReviewError`]: why a review could not be made, naming the version and entry.
//!
//! The stages, one file each: `versions` (the checkouts and what is learned from them),
//! `engine` (each entry's versions prepared and learned), `entries` (the one per-entry loop
//! a review and a diff share), `merge` and `diff` (the two uses), `tally` (what the entries
//! add up to).
//!
//! This is the third use case of Chockler, Kesseli, Kroening and Strichman, *Learning the
//! Language of Software Errors* (JAIR 2020), Sec. 5 and Fig. 12-14: the merged program and
//! both branches are learned as automata, and their differences show behaviour the merge
//! introduced that neither developer meant. The expected merge E turns the paper's two
//! differences into one answer: what the merge does beyond each branch's own change.

mod budget;
mod call_sites;
mod changed_functions;
mod context;
mod coverage;
mod diff;
mod diff3;
mod engine;
mod entries;
mod error;
mod execution;
mod execution_cache;
mod learn;
mod merge;
mod merged_lines;
mod request;
mod results;
mod source;
mod store;
mod tally;
mod versions;

pub use context::LearnContext;
pub(crate) use coverage::CoverageError;
pub use diff::{DiffReport, diff_revisions};
pub use error::ReviewError;
pub use merge::{ReviewReport, review_merge};
pub use request::{
    Gate, Request, ReviewSetup, gate, review_setup, versions_to_review, work_tree_setup,
};
pub use results::{UNSEEN_CALLS, UNSEEN_CHANGE};
pub use tally::{NO_CODE_CHANGE, NO_ENTRY_REVIEWED};
