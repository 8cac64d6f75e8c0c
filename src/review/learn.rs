//! Learning one version's automaton: the building blocks of `mergelens learn` (the CBMC
//! teacher, its persistent answer store, lazy L* as [`crate::cbmc::learning`] runs it), at
//! fixed bounds, with the guess policy a review chooses (Sec. 6 of the paper; the guesses of
//! A, B and M come from O's automaton). Key items: [`LearnJob`], [`learn_program`] and
//! [`LearnedProgram`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::automaton::{Dfa, ops};
use crate::cache_mac::Rejected;
use crate::cbmc::cache_store::{AnswerStore, Exactness, StoreError, StoreMode};
use crate::cbmc::learning::{LearningError, learn_with_teacher};
use crate::cbmc::{
    CbmcCounters, CbmcTeacher, CbmcTeacherError, CutLoop, LearnBounds, TeacherOptions, Toolchain,
};
use crate::cprog::InstrumentedProgram;
use crate::learn::{GuessPolicy, LearnStats};

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
    /// Why the pre-check was dropped, when the teacher found it wrong for this program.
    pub precheck_note: Option<String>,
    /// Set when `--time-budget` or Ctrl-C cut learning short ([`super::budget::partial`]).
    pub stopped: Option<super::budget::Stopped>,
    /// The answer store's file when it failed its check (its answers were not used).
    pub store_rejected: Option<Rejected>,
    /// How often the queries unwound the library's loops, when they tested it
    /// ([`crate::cbmc::GotoProgram::tested_library_unwind`]).
    pub library_unwind: Option<u32>,
}

/// Learns `job.program` at `job.bounds`, reading and extending the answer store.
pub(crate) fn learn_program(job: &LearnJob<'_>) -> Result<LearnedProgram, LearningError> {
    let program = job.program;
    let store = job
        .store_dir
        .map(|dir| AnswerStore::for_program(dir, program, StoreMode::Learn.key(), job.tools));
    let counters = Arc::new(CbmcCounters::new());
    let mut teacher = CbmcTeacher::new(
        program,
        job.tools.clone(),
        PathBuf::from(job.work_dir),
        job.bounds,
        job.options.clone(),
    )
    .with_counters(Arc::clone(&counters));
    let mut store_note = None;
    match store.as_ref().map(AnswerStore::load) {
        Some(Ok(stored)) => teacher.add_known(stored),
        Some(Err(StoreError::Rejected(forged))) => store_note = Some(forged),
        // A file of another format or program only costs time.
        Some(Err(_)) | None => {}
    }
    let result = learn_with_teacher(&mut teacher, program, job.guess.clone());
    // Confirmed answers are worth keeping even when the run failed half way; a store that
    // cannot be written only costs the next run time.
    if let Some(store) = &store {
        let _ = store.save(&teacher.known());
    }
    let run = match result {
        Ok(run) => run,
        Err(e) => match super::budget::cut_of(&e) {
            Some(reason) => {
                let (dfa, stopped) = super::budget::partial(&teacher, program, reason);
                return Ok(LearnedProgram {
                    stats: LearnStats {
                        states: dfa.num_states(),
                        ..LearnStats::default()
                    },
                    dfa,
                    cbmc_runs: counters.runs(),
                    exactness: None,
                    constant_guess_p: None,
                    precheck_note: None,
                    stopped: Some(stopped),
                    store_rejected: store_note,
                    library_unwind: teacher.tested_library_unwind(),
                });
            }
            None => return Err(e),
        },
    };
    Ok(LearnedProgram {
        dfa: ops::minimize(&run.dfa),
        stats: run.stats,
        cbmc_runs: counters.runs(),
        exactness: teacher.exactness().cloned(),
        constant_guess_p: run.constant_guess_p,
        precheck_note: teacher.precheck_note(),
        stopped: None,
        store_rejected: store_note,
        library_unwind: teacher.tested_library_unwind(),
    })
}

/// The loops the unwinding of `job.bounds` cuts on executions within the word bound
/// ([`CbmcTeacher::cut_loops`]); answers and the guess policy play no part.
pub(crate) fn cut_loops(job: &LearnJob<'_>) -> Result<Vec<CutLoop>, CbmcTeacherError> {
    let mut teacher = CbmcTeacher::new(
        job.program,
        job.tools.clone(),
        PathBuf::from(job.work_dir),
        job.bounds,
        job.options.clone(),
    );
    teacher.cut_loops()
}
