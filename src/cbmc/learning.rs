//! One run of lazy L* against a [`CbmcTeacher`] at the teacher's current bounds: the step
//! that `mergelens learn`, `mergelens explain` and a review's learning of each version
//! share. Key items: [`learn_with_teacher`], its result [`LearnedRun`] and its error
//! [`LearningError`].
//!
//! Choosing the bounds, the guess policy and the answer store stays with the callers: each
//! reports progress and store problems in its own way.

use super::{CbmcTeacher, CbmcTeacherError, MEMBERSHIP_BATCH};
use crate::automaton::Dfa;
use crate::cprog::InstrumentedProgram;
use crate::failure::{FailureKind, HasKind};
use crate::learn::{
    Entry, GuessPolicy, LearnConfig, LearnError, LearnStats, Learner, QueryCache, Source,
};

/// What one learning run produced.
#[derive(Clone, Debug)]
pub struct LearnedRun {
    /// The learner's final conjecture, not yet minimised.
    pub dfa: Dfa,
    pub stats: LearnStats,
    /// The share of the words the teacher answered that the constant guess "yes" gets
    /// right: the baseline of the guess accuracy p.
    pub constant_guess_p: Option<f64>,
}

/// Why learning failed.
#[derive(Debug, thiserror::Error)]
pub enum LearningError {
    /// CBMC could not answer a query; the error names the query and the bounds.
    #[error(transparent)]
    Teacher(CbmcTeacherError),
    /// The learner gave up, or a teacher error that is not CBMC's.
    #[error(transparent)]
    Learn(LearnError),
}

impl HasKind for LearningError {
    fn kind(&self) -> FailureKind {
        match self {
            LearningError::Teacher(e) => e.kind(),
            LearningError::Learn(e) => e.kind(),
        }
    }
}

/// Learns `program`'s language at the teacher's bounds with the `guess` policy, starting
/// from the answers the teacher already knows at those bounds.
pub fn learn_with_teacher(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    guess: GuessPolicy,
) -> Result<LearnedRun, LearningError> {
    teacher.prefetch().map_err(LearningError::Teacher)?;
    // Concrete runs (if any): a word a run had is a "yes" without CBMC, and the words are a
    // better guess than a constant (guess "yes" for them, "no" for the rest: on a
    // controller with 38 states, 24 CBMC runs against 57 with the constant and concrete
    // answers, 63 without them). Not needed when the prefetch answered every word already.
    let guess = if teacher.is_complete() {
        guess
    } else {
        teacher.sample_concrete();
        match guess {
            GuessPolicy::Constant(likely) => teacher
                .concrete_oracle(likely)
                .map_or(guess, GuessPolicy::Oracle),
            guess => guess,
        }
    };
    let from_concrete = teacher.stats().from_concrete;
    let mut cache = QueryCache::new(program.alphabet.clone());
    for (word, accepted) in teacher.answers_at_bounds() {
        // The teacher's answers agree with each other, so none is refused.
        let _ = cache.insert(&word, Entry::confirmed(accepted, Source::Teacher));
    }
    let config = LearnConfig {
        guess,
        // A batch of up to this many words is one CBMC run, which costs about what one
        // word does.
        lookahead: MEMBERSHIP_BATCH,
        ..LearnConfig::default()
    };
    let mut learner = Learner::new(program.alphabet.clone(), config);
    let dfa = learner.run(teacher, &mut cache).map_err(|e| match e {
        // The learner boxes its teacher's errors; CBMC's are unboxed again so that callers
        // can report them (and choose exit codes) by type.
        LearnError::Teacher(inner) => match inner.downcast::<CbmcTeacherError>() {
            Ok(e) => LearningError::Teacher(*e),
            Err(other) => LearningError::Learn(LearnError::Teacher(other)),
        },
        // A stop between two queries is the stop a query would have met.
        LearnError::Stopped(crate::stop::Stopped(reason)) => {
            LearningError::Teacher(CbmcTeacherError::Stopped { reason })
        }
        other => LearningError::Learn(other),
    })?;
    let answered: Vec<bool> = cache
        .entries()
        .into_iter()
        .filter(|(_, e)| e.confirmed && e.source != Source::Precheck)
        .map(|(_, e)| e.accepted)
        .collect();
    let constant_guess_p = (!answered.is_empty())
        .then(|| answered.iter().filter(|&&a| a).count() as f64 / answered.len() as f64);
    let mut stats = learner.stats().clone();
    stats.from_concrete = teacher.stats().from_concrete - from_concrete;
    Ok(LearnedRun {
        dfa,
        stats,
        constant_guess_p,
    })
}
