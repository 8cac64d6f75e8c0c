//! The language of one program, as `mergelens learn` and `mergelens explain` compute it: a
//! library a front end (the binary's commands, a CI bot, a language server) calls and
//! prints the results of.
//!
//! Key types: [`ProgramOptions`] (the program, its front end, CBMC, lazy learning, the
//! answer store), [`LanguageError`] (why a run failed, with its kind), [`Watcher`] (what a
//! run tells its caller while it runs: phases, the teacher's progress, warnings and notes)
//! and [`Partial`] (what a run stopped early keeps). `explain` holds the error explanation
//! ([`explain::prepare`], [`explain::Prepared::learn`], [`explain::Explanation`]); `learn`
//! the automaton of a program's behaviour ([`learn::learn_program`]).
//!
//! A run stopped by the time budget, Ctrl-C ([`crate::stop`]) or, in an anytime run, a
//! query timeout keeps the learner's last conjecture built on confirmed answers
//! ([`Partial`]); the caller decides what to print and which exit code it means.

mod concise;
mod ending;
mod error;
pub mod explain;
pub mod learn;
mod options;
mod watch;

pub use concise::{DEFAULT_CONCISE_SECONDS, Found, drawn, find_concise};
pub use ending::{Ending, LearnedKeys, Partial, PartialCause, add_stats, partial_cause};
pub use error::{ExplainError, LanguageError};
pub use options::{
    CacheChoice, DEFAULT_CONCRETE_RUNS, DEFAULT_QUERY_TIMEOUT_SECS, ProgramOptions,
    SamplingOptions, load_answers, object_bits_notice, pac_of, save_answers,
};
pub use watch::{Notice, Watcher};
