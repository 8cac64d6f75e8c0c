//! Learning one version's automaton: the building blocks of `mergelens learn` (the CBMC
//! teacher, its persistent answer store, lazy L*), at fixed bounds, with the guess policy a
//! review chooses (Sec. 6 of the paper; the guesses of A, B and M come from O's automaton).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::automaton::{Dfa, ops};
use crate::cbmc::cache_store::{AnswerStore, Exactness, MODE_EXPLAIN, StoreKey};
use crate::cbmc::{
    CbmcCounters, CbmcTeacher, CbmcTeacherError, LearnBounds, TeacherOptions, Toolchain,
};
use crate::cprog::InstrumentedProgram;
use crate::learn::{
    Entry, GuessPolicy, LearnConfig, LearnError, LearnStats, Learner, QueryCache, Source,
};

/// What learning one program needs.
pub(crate) struct LearnJob<'a> {
    pub program: &'a InstrumentedProgram,
    pub tools: &'a Toolchain,
    /// Where goto-cc runs: the version's checkout.
    pub work_dir: &'a Path,
    pub bounds: LearnBounds,
    pub options: TeacherOptions,
    pub guess: GuessPolicy,
    /// The answer store's directory, if any.
    pub store_dir: Option<&'a Path>,
}

/// A learned automaton and what it cost.
#[derive(Clone, Debug)]
pub(crate) struct LearnedProgram {
    /// Minimal and trimmed, over the program's alphabet.
    pub dfa: Dfa,
    pub stats: LearnStats,
    pub cbmc_runs: u64,
    pub exactness: Option<Exactness>,
    /// The share of the words the teacher answered that the constant guess "yes" gets
    /// right: the baseline of the guess accuracy p.
    pub constant_guess_p: Option<f64>,
}

/// Why learning failed.
#[derive(Debug)]
pub(crate) enum LearnFailure {
    Teacher(CbmcTeacherError),
    Learn(LearnError),
}

/// Learns `job.program` at `job.bounds`, reading and extending the answer store.
pub(crate) fn learn_program(job: &LearnJob<'_>) -> Result<LearnedProgram, LearnFailure> {
    let program = job.program;
    let store = job.store_dir.map(|dir| {
        AnswerStore::new(
            dir,
            &StoreKey {
                fingerprint: &program.fingerprint(),
                entry: &program.entry,
                mode: MODE_EXPLAIN,
                alphabet: &program.alphabet,
                cbmc_version: job.tools.version,
            },
        )
    });
    let counters = Arc::new(CbmcCounters::new());
    let mut teacher = CbmcTeacher::new(
        program,
        job.tools.clone(),
        PathBuf::from(job.work_dir),
        job.bounds,
        job.options.clone(),
    )
    .with_counters(Arc::clone(&counters));
    if let Some(stored) = store.as_ref().and_then(|s| s.load().ok()) {
        teacher.add_known(stored);
    }
    let result = learn_with(&mut teacher, program, job);
    // Confirmed answers are worth keeping even when the run failed half way; a store that
    // cannot be written only costs the next run time.
    if let Some(store) = &store {
        let _ = store.save(&teacher.known());
    }
    let (dfa, stats, constant_guess_p) = result?;
    Ok(LearnedProgram {
        dfa: ops::minimize(&dfa),
        stats,
        cbmc_runs: counters.runs(),
        exactness: teacher.exactness().cloned(),
        constant_guess_p,
    })
}

fn learn_with(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    job: &LearnJob<'_>,
) -> Result<(Dfa, LearnStats, Option<f64>), LearnFailure> {
    teacher.prefetch().map_err(LearnFailure::Teacher)?;
    let mut cache = QueryCache::new(program.alphabet.clone());
    for (word, accepted) in teacher.answers_at_bounds() {
        // The teacher's answers agree with each other, so none is refused.
        let _ = cache.insert(&word, Entry::confirmed(accepted, Source::Teacher));
    }
    let config = LearnConfig {
        guess: job.guess.clone(),
        ..LearnConfig::default()
    };
    let mut learner = Learner::new(program.alphabet.clone(), config);
    let dfa = learner.run(teacher, &mut cache).map_err(|e| match e {
        LearnError::Teacher(inner) => match inner.downcast::<CbmcTeacherError>() {
            Ok(e) => LearnFailure::Teacher(*e),
            Err(other) => LearnFailure::Learn(LearnError::Teacher(other)),
        },
        other => LearnFailure::Learn(other),
    })?;
    let answered: Vec<bool> = cache
        .entries()
        .into_iter()
        .filter(|(_, e)| e.confirmed && e.source != Source::Precheck)
        .map(|(_, e)| e.accepted)
        .collect();
    let constant_guess_p = (!answered.is_empty())
        .then(|| answered.iter().filter(|&&a| a).count() as f64 / answered.len() as f64);
    Ok((dfa, learner.stats().clone(), constant_guess_p))
}
