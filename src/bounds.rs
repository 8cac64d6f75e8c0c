//! The default bounds of every analysis: how often a loop body may run and how long a word
//! may be. One definition for the command line, `.mergelens.toml`, the learner and the
//! documents that record the bounds (a document without `bounds` was made at these).
//!
//! The bounds are those of the paper's Sec. 7.1 (Chockler, Kesseli, Kroening and Strichman,
//! *Learning the Language of Software Errors*, JAIR 2020): the loop and recursion depth `b`
//! and the word length `n`; `--auto-bounds` raises both up to `--max-unwind` and
//! `--max-word-length` as its Fig. 17 does.

/// `--unwind` unless given: loop bodies run at most twice.
pub const DEFAULT_UNWIND: u32 = 2;
/// `--max-word-length` unless given (`end` included).
pub const DEFAULT_MAX_WORD_LENGTH: usize = 10;
/// `--max-unwind` of `--auto-bounds`, as in the paper's Sec. 7.1.
pub const DEFAULT_MAX_UNWIND: u32 = 4;
