//! Active learning of DFAs: L* with a shared query cache and lazy learning.
//!
//! Key types:
//!
//! * [`Teacher`]: answers batches of membership queries ([`Answer`]: yes, no, and a
//!   "don't care" the learner refuses for now) and equivalence queries ([`Equivalence`]),
//!   with an optional cheap [`Teacher::precheck`]. [`DfaTeacher`] simulates one with a
//!   known target automaton.
//! * [`QueryCache`]: a trie of every answer known, with its [`Source`] and whether it is
//!   confirmed. The caller owns it, so that all runs of a process share it.
//! * [`Learner`] and [`learn`], configured by [`LearnConfig`]: counterexample processing
//!   ([`CexProcessing`]) and lazy learning ([`GuessPolicy`]); [`LearnStats`] says what a
//!   run cost, and [`LearnError`] why one failed.
//!
//! The algorithm is Angluin's L* (D. Angluin, *Learning regular sets from queries and
//! counterexamples*, Information and Computation 75, 1987; the paper's Sec. 2.2) on an
//! observation table whose rows are bit vectors. A counterexample is processed as Angluin
//! did (its prefixes become rows), as O. Maler and A. Pnueli, *On the learnability of
//! infinitary regular sets* (Information and Computation 118, 1995) did (its suffixes become
//! columns), or by R. L. Rivest and R. E. Schapire's binary search, *Inference of finite
//! automata using homing sequences* (Information and Computation 103, 1993), which adds
//! one column and is the default.
//!
//! Every membership query will be a CBMC run, so the learner is frugal:
//!
//! * it hands the teacher all the words it needs before it can go on at once (a new row
//!   or column, a step of a counterexample analysis), never a word it already knows;
//! * when a batch goes to the teacher anyway and no guess is made, the words the next
//!   closing round would need ride along ([`LearnConfig::lookahead`]: a speculative
//!   one-step lookahead of the table, worth it where a batch costs what one word costs);
//! * before each equivalence query it looks for a counterexample among the words it
//!   knows: the table's cells (with Rivest-Schapire's columns a conjecture can disagree
//!   with its own table), the words of earlier analyses, the whole cache; the conjecture
//!   queried is always consistent with everything known;
//! * lazy learning (Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//!   Software Errors*, JAIR 2020, Sec. 6, Fig. 15-16) lets a guess answer what the cache
//!   cannot. Before each equivalence query, all unconfirmed answers go to the teacher in
//!   one batch; if a guess was wrong, the cache is corrected and the learner returns to its
//!   state at the last conjecture and replays against the cache (in effect: it resumes from
//!   a checkpoint taken before the first step that used a wrong guess, which is where the
//!   deterministic replay would lead). The equivalence query is only ever asked about a
//!   conjecture built from confirmed answers, so the result is the automaton learning
//!   without guesses gives. Guesses are also checked when their number or the table's
//!   growth since the last check gets large, and a policy whose guesses prove mostly wrong
//!   is dropped for the rest of the run ([`LearnConfig::min_guess_accuracy`]): a run of
//!   guesses is worth only what precedes its first wrong one.
//!
//! Conjectures are handed out trimmed (without the rejecting sink) and minimal, as the
//! table's rows are pairwise distinct; the learned automaton is moreover canonically
//! numbered by [`crate::automaton::ops::minimize`].

mod cache;
mod config;
mod error;
mod guess;
mod hash;
mod lstar;
pub mod random;
mod stats;
mod table;
mod teacher;

pub use cache::{Entry, QueryCache, Source};
pub use config::{
    CexProcessing, DEFAULT_MAX_EQUIVALENCE_QUERIES, DEFAULT_MAX_STATES, GuessPolicy, LearnConfig,
    MIN_CHECKED_GUESSES, ParseError,
};
pub use error::LearnError;
pub use lstar::{Learned, Learner, learn};
pub use stats::LearnStats;
pub use teacher::{Answer, DfaTeacher, Equivalence, Teacher, TeacherError, unpack};

#[cfg(test)]
mod tests;
