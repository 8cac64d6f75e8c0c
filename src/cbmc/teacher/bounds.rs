//! The teacher's plain settings: the user's [`LearnBounds`] and the CBMC bounds they stand
//! for, the [`TeacherOptions`], and the answers known at some unwinding ([`Known`], which
//! still hold at larger or smaller ones: Sec. 7.1 of the paper). Data only, so that the
//! teacher's state (`super`), its decisions (`super::policy`) and its CBMC runs
//! (`super::queries`) all read them without depending on each other.

use std::time::Duration;

use serde::Serialize;

use crate::cbmc::program::Bounds;

/// The words one membership run checks at most. A CBMC run over a batch costs little more
/// than over one word (about 40 ms of CBMC time for 500 words of Fig. 12 against 10 ms for
/// one), but a batch's formula grows with it, so very large batches are split.
pub const MEMBERSHIP_BATCH: usize = 1024;

/// The default of `--exact-limit`: the most accepted words the exactness pass checks.
pub const DEFAULT_EXACT_LIMIT: u64 = 20_000;

/// The user's bounds (Eqn. (4) of the paper): executions with at most `unwind` iterations
/// of every loop, and words of at most `max_word_length` letters, `end` included.
///
/// `cbmc --unwind k` lets the body of a `for` or `while` loop run at most `k - 1` times (the
/// `k`-th visit of the loop head is cut), a `do`/`while` body `k` times, and a recursive
/// function call itself `k` times (measured with CBMC 6.6). So `--unwind b` is passed to
/// CBMC as `b + 1` ([`LearnBounds::cbmc`]): loop bodies run at most `b` times, as the
/// paper's `Depth(π) ≤ b` says, and each recursive function gets `--unwindset f:b`
/// ([`crate::cbmc::GotoProgram::with_recursive_functions`]), so it calls itself at most `b` times too. A
/// `do`/`while` body runs at most `b + 1` times: CBMC numbers loops in the goto program,
/// where the front end cannot name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LearnBounds {
    pub unwind: u32,
    pub max_word_length: usize,
}

impl LearnBounds {
    /// The bounds CBMC is run with.
    pub fn cbmc(self) -> Bounds {
        Bounds {
            unwind: self.unwind.saturating_add(1),
            max_word_length: self.max_word_length,
        }
    }
}

/// How the teacher works.
#[derive(Clone, Debug)]
pub struct TeacherOptions {
    /// The longest a CBMC query (one run, or a conjecture query with its checks) may take.
    pub query_timeout: Option<Duration>,
    /// The most accepted words the exactness pass checks per conjecture.
    pub exact_limit: u64,
    /// The most words of one membership run.
    pub batch_size: usize,
    /// The paper's baseline: no pre-checks, one CBMC run per word.
    pub baseline: bool,
    /// Lazy learning as the paper's Sec. 6 describes it, for benchmarks: pre-checks and
    /// guesses checked in batches, but no prefetch of every word the pre-check admits and
    /// no guesses riding along in the conjecture query's run.
    pub paper_lazy: bool,
    /// How often a loop of CBMC's C library models may iterate
    /// ([`crate::cbmc::program::LIBRARY_UNWIND`] unless set).
    pub library_unwind: u32,
}

impl Default for TeacherOptions {
    fn default() -> TeacherOptions {
        TeacherOptions {
            query_timeout: None,
            exact_limit: DEFAULT_EXACT_LIMIT,
            batch_size: MEMBERSHIP_BATCH,
            baseline: false,
            paper_lazy: false,
            library_unwind: crate::cbmc::program::LIBRARY_UNWIND,
        }
    }
}

/// A word's answers, in CBMC unwinding values; see [`StoredAnswer`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Known {
    pub(super) yes_from: Option<u32>,
    pub(super) no_up_to: Option<u32>,
}

impl Known {
    pub(super) fn at(self, unwind: u32) -> Option<bool> {
        if self.yes_from.is_some_and(|y| y <= unwind) {
            Some(true)
        } else if self.no_up_to.is_some_and(|n| n >= unwind) {
            Some(false)
        } else {
            None
        }
    }
}

pub(super) fn min_option(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}
