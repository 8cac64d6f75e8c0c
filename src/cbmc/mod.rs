//! The CBMC bounded model checker: finding it, and answering the learner's queries with it.
//!
//! Key types:
//!
//! * [`Toolchain`] (the paths of `cbmc`, `goto-cc` and `goto-instrument` and the version
//!   they report) and [`CbmcError`], for finding a usable installation;
//! * [`GotoProgram`]: one instrumented program version, compiled once by `goto-cc`; each
//!   query links a small generated harness against it and runs CBMC once;
//! * [`GotoProgram::membership`] answers a batch of membership queries in one CBMC run
//!   (Fig. 7 of Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//!   Software Errors*, JAIR 2020, with one assertion per word);
//! * from the second query at a bounds on, both are answered from one formula CBMC writes
//!   for those bounds and a SAT solver keeps (`formula`): incremental SAT under assumptions
//!   instead of a symbolic execution per query;
//! * [`GotoProgram::conjecture`] answers a conjecture query (Fig. 9, with the trap of
//!   Fig. 11 at exit points), returning [`Feedback`]; Theorem 4.1 is what it guarantees;
//! * [`Bounds`] (loop unwinding and word length, Eqn. (4)), [`CbmcCounters`] (runs and
//!   seconds, for statistics) and [`CbmcRunError`].
//! * [`CbmcTeacher`]: the learner's teacher built on these queries, with pre-checks, batches,
//!   the exactness pass and answers reused across bounds; [`cache_store`] keeps its answers
//!   on disk between runs; `learning` runs lazy L* against it once, for every command that
//!   learns a program.
//! * Every CBMC run obeys the process-wide stop request (Ctrl-C) and time budget of
//!   [`crate::stop`].
//!
//! * [`GotoProgram::cover`]: which source lines some execution within the bounds reaches
//!   ([`CoveredLines`]), for the coverage of a review's changed code.
//! * [`program_properties`]: the program's own assertions as CBMC names them, for choosing
//!   the target of error explanation; [`GotoProgram::word_trace`] gives the concrete
//!   execution behind an accepted word (Sec. 7.3's debug traces).
//!
//! The language is that of program explanation (Sec. 5): the words are the event sequences
//! of executions of the entry function, each ending with the letter `end` where it returns.
//! The instrumented program calls three hooks that each query's harness defines:
//! `__mergelens_event(letter)`, `__mergelens_end()` and `__mergelens_exit()`.
//! Error explanation (Eq. 4) uses the same queries on a program instrumented by
//! `cprog::instrument_error`: there `__mergelens_end()` is the failure of the target
//! assertion and the end letter is `assert`, so every query and harness here is unchanged.
//! CBMC's answers are read from `--json-ui` output, never from its human-readable text.

pub mod bounds_search;
pub mod cache_store;
pub mod concrete;
mod coverage;
mod error;
mod formula;
mod harness;
mod json;
mod language;
pub mod learning;
mod library;
mod locate;
pub mod product;
mod program;
mod properties;
mod reach;
mod remote_run;
mod run;
mod teacher;

pub use error::CbmcRunError;
pub use locate::{Allocations, CbmcError, MIN_VERSION, Toolchain, Version};
pub use program::{Bounds, Feedback, GotoProgram, LIBRARY_UNWIND, VERIFY_BATCH};
pub use properties::{ProgramProperty, PropertyQuery, program_properties};
pub use reach::{CutLoop, Reach};
pub use run::CbmcCounters;

/// Reads one run's `--json-ui` output as a query does: the number of properties with a
/// status, or why the output is unusable. For checking that outside input (CBMC's output)
/// is refused cleanly, never by a panic.
pub fn read_json_ui(stdout: &[u8]) -> Result<usize, CbmcRunError> {
    let report = json::parse(stdout)?;
    // The trace reader must cope with the same output.
    let _ = json::raw_trace(stdout, "");
    Ok(report.properties.len())
}
pub use teacher::{
    CbmcTeacher, CbmcTeacherError, ConcreteBuilder, DEFAULT_EXACT_LIMIT, LearnBounds,
    MEMBERSHIP_BATCH, Pac, PacResult, TeacherOptions, TeacherStats,
};
