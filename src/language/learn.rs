//! The automaton of a C program's behaviour: what `mergelens learn` computes.
//!
//! Key items: [`BoundsChoice`], [`learn_program`] (the run: [`Learning`]) and
//! [`Conclusion`] (the result, minimal, with why an empty one is empty and the concise
//! automaton; [`Conclusion::json`] is the output document).
//!
//! The CBMC teacher ([`crate::cbmc::CbmcTeacher`]) answers the queries of lazy L*
//! ([`crate::learn`], guessing "yes" as the paper's program explanation does: Chockler,
//! Kesseli, Kroening and Strichman, *Learning the Language of Software Errors*, JAIR 2020,
//! Sec. 5-6); the persistent store ([`crate::cbmc::cache_store`]) keeps its answers between
//! runs. [`BoundsChoice::Auto`] searches the bounds as Fig. 17 does ([`search_bounds`]).
//! The result is minimal and trimmed, with the Sec. 7.2 marks (dominating letters, doomed
//! states) in the `learned` object of its JSON. A run stopped by the budget, Ctrl-C or (in
//! an anytime run) a query timeout keeps the last conjecture ([`Partial`]).

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use serde_with::skip_serializing_none;

use super::concise::{Found, drawn, find_concise};
use super::ending::{Ending, LearnedKeys, Partial, add_stats, partial_cause};
use super::error::LanguageError;
use super::options::{ProgramOptions, pac_of};
use super::options::{load_answers, object_bits_notice, save_answers};
use super::watch::{Notice, Watcher};
use crate::automaton::{Dfa, Marks, analysis, json, ops};
use crate::cbmc::bounds_search::{BoundsLimits, search_bounds, shortest_word};
use crate::cbmc::cache_store::{Exactness, StoreMode};
use crate::cbmc::{
    CbmcCounters, CbmcTeacher, CutLoop, LearnBounds, PacResult, TeacherStats, Toolchain,
};
use crate::cprog::{self, InstrumentedProgram};
use crate::document::Concise;
use crate::learn::LearnStats;

/// The bounds of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsChoice {
    Fixed(LearnBounds),
    /// Fig. 17: the unwinding from 1 to `max_unwind`, the word length from the syntax
    /// automaton's shortest word up to `max_word_length` ([`search_bounds`]).
    Auto(BoundsLimits),
}

/// One learning run at fixed bounds.
pub struct Run {
    pub bounds: LearnBounds,
    pub dfa: Dfa,
}

/// How the bounds search ended.
pub struct Learned {
    pub run: Run,
    pub stats: LearnStats,
    pub runs: Vec<LearnBounds>,
    /// For `--auto-bounds`: whether the automaton stopped changing before the maxima.
    pub converged: Option<bool>,
    /// Why the search did not converge, in one sentence.
    pub unconverged: Option<String>,
}

/// What a learning run produced, and what it cost.
pub struct Learning {
    pub learned: Learned,
    pub conclusion: Conclusion,
    pub teacher: TeacherStats,
    pub cbmc_version: String,
    /// The answer store, when there is one, how many answers it gave and whether the new
    /// ones were written.
    pub store: Option<PathBuf>,
    pub loaded_answers: usize,
    pub saved: bool,
}

/// Learns `program` (instrumented from `options`) as `bounds` say, with the answer store:
/// loads its answers first and saves the teacher's after, even when learning failed.
pub fn learn_program(
    options: &ProgramOptions,
    bounds: BoundsChoice,
    program: &InstrumentedProgram,
    (tools, work_dir): (Toolchain, PathBuf),
    counters: &Arc<CbmcCounters>,
    watcher: &dyn Watcher,
) -> Result<Learning, LanguageError> {
    let store = options.answer_store(program, StoreMode::Learn, &tools, watcher);
    let cbmc_version = tools.version.to_string();
    let first = match bounds {
        BoundsChoice::Fixed(b) => b,
        BoundsChoice::Auto(limits) => LearnBounds {
            unwind: 1,
            max_word_length: limits.max_word_length,
        },
    };
    let mut teacher = CbmcTeacher::new(program, tools, work_dir, first, options.teacher_options())
        .with_counters(Arc::clone(counters));
    options.attach_sampling(&mut teacher, program);
    let loaded_answers = load_answers(store.as_ref(), &mut teacher, watcher);
    let outcome = learn_with_progress(&mut teacher, program, options, (bounds, first), watcher);
    let (learned, partial) = match settle(outcome, &teacher, program, options) {
        Ok(settled) => settled,
        Err(error) => {
            save_answers(store.as_ref(), &teacher, watcher);
            return Err(error);
        }
    };
    let conclusion = conclude(&mut teacher, program, &learned, partial, options, watcher);
    // After the conclusion, whose unwinding check is remembered too.
    let saved = save_answers(store.as_ref(), &teacher, watcher);
    object_bits_notice(teacher.object_bits(), watcher);
    Ok(Learning {
        learned,
        conclusion,
        teacher: teacher.stats(),
        cbmc_version,
        store: store.as_ref().map(|s| s.path().to_path_buf()),
        loaded_answers,
        saved,
    })
}

/// Learns at fixed bounds or searches them, telling `watcher` the phases.
fn learn_with_progress(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    options: &ProgramOptions,
    (bounds, first): (BoundsChoice, LearnBounds),
    watcher: &dyn Watcher,
) -> Result<Learned, LanguageError> {
    watcher.phase(phase(first));
    teacher.on_progress(watcher.teacher());
    let outcome = match bounds {
        BoundsChoice::Fixed(bounds) => {
            learn_at(teacher, program, bounds, options, watcher).map(|(run, stats)| Learned {
                runs: vec![run.bounds],
                run,
                stats,
                converged: None,
                unconverged: None,
            })
        }
        BoundsChoice::Auto(limits) => auto_bounds(teacher, program, options, limits, watcher),
    };
    watcher.done();
    outcome
}

fn phase(bounds: LearnBounds) -> String {
    format!(
        "--unwind {} --max-word-length {}",
        bounds.unwind, bounds.max_word_length
    )
}

/// The learned result, or for a run stopped by the budget, Ctrl-C or a timeout the last
/// conjecture on confirmed answers (or nothing learned yet), with why it stopped.
fn settle(
    outcome: Result<Learned, LanguageError>,
    teacher: &CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    options: &ProgramOptions,
) -> Result<(Learned, Option<Partial>), LanguageError> {
    let error = match outcome {
        Ok(learned) => return Ok((learned, None)),
        Err(error) => error,
    };
    let Some(cause) = partial_cause(&error, options.time_budget.is_some()) else {
        return Err(error);
    };
    let bounds = teacher.bounds();
    let dfa = teacher
        .last_conjecture()
        .cloned()
        .unwrap_or_else(|| Dfa::new(program.alphabet.clone()));
    let exact_up_to = teacher.agrees_up_to(&dfa);
    let stats = LearnStats {
        states: dfa.num_states(),
        ..LearnStats::default()
    };
    let learned = Learned {
        run: Run { bounds, dfa },
        stats,
        runs: vec![bounds],
        converged: None,
        unconverged: None,
    };
    let partial = Partial {
        cause,
        exact_up_to,
        error,
        allocation_failures: teacher.explores_allocation_failures(),
    };
    Ok((learned, Some(partial)))
}

/// What the output says about the learned automaton.
pub struct Conclusion {
    pub dfa: Dfa,
    pub bounds: LearnBounds,
    pub partial: Option<Partial>,
    pub exactness: Option<Exactness>,
    /// For an empty language: why, and the loops the unwinding cut.
    pub empty: Option<(String, Vec<CutLoop>)>,
    pub concise: Option<Found>,
    /// The marks of the drawn automaton (the concise one when there is one).
    pub marks: Marks,
    /// A PAC result's guarantee and the length up to which known answers back it.
    pub pac: Option<(PacResult, usize)>,
}

/// Minimises the result, says why an empty one is empty, and finds the concise automaton.
fn conclude(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    learned: &Learned,
    partial: Option<Partial>,
    options: &ProgramOptions,
    watcher: &dyn Watcher,
) -> Conclusion {
    let dfa = ops::minimize(&learned.run.dfa);
    let bounds = learned.run.bounds;
    let accepts_some = dfa.states().any(|q| dfa.is_accepting(q));
    let pac = pac_of(teacher, &dfa, partial.is_none());
    // Emptiness is claimed only when proved, which a PAC result is not.
    let empty = (partial.is_none() && pac.is_none() && !accepts_some)
        .then(|| empty_reason(teacher, program, bounds, watcher));
    let exactness = teacher.exactness().cloned();
    let concise = match options.concise {
        // A stopped run's conjecture is right up to some length only, a PAC one checked on
        // samples only: no picture of either may claim to agree with every execution.
        Some(time) if accepts_some && partial.is_none() && pac.is_none() => {
            // Every other word within the bound is impossible only when the automaton was
            // checked on every word and the unwinding cut no loop. When the language is the
            // pre-check's, "no" is the same either way and the unwinding check is skipped.
            let allowed = teacher.precheck_automaton();
            let same_as_precheck = analysis::equivalence_witness(&dfa, allowed).is_none();
            // An unwinding check that fails (a timeout, a stop) leaves the run open: fewer
            // "no" words, never a wrong one.
            let closed = !same_as_precheck
                && pac.is_none()
                && exactness.as_ref().is_none_or(Exactness::is_complete)
                && teacher.cuts_a_loop().is_ok_and(|cut| !cut);
            let values = cprog::learn_values(
                &dfa,
                teacher.precheck_automaton(),
                closed,
                bounds.max_word_length,
            );
            find_concise(&values, &dfa, time, watcher)
        }
        _ => None,
    };
    Conclusion {
        marks: Marks::analyse(drawn(&dfa, concise.as_ref().map(|f| &f.concise))),
        dfa,
        bounds,
        partial,
        exactness,
        empty,
        concise,
        pac,
    }
}

/// Why no word was learned (an empty language is almost always the bounds, not the
/// program), warned about, with the loops the unwinding cut.
fn empty_reason(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    bounds: LearnBounds,
    watcher: &dyn Watcher,
) -> (String, Vec<CutLoop>) {
    let reason = match teacher.reach() {
        Ok(reach) => Some(reach),
        Err(e) => {
            watcher.notice(Notice::Warning(format!(
                "cannot tell why the language is empty: {}",
                crate::failure::text(&e)
            )));
            None
        }
    };
    let text = reason.as_ref().map_or_else(
        || {
            format!(
                "no execution returns from `{}` within the bounds; raise --unwind",
                program.entry
            )
        },
        |r| r.empty_reason(&program.entry, bounds.unwind, bounds.max_word_length),
    );
    watcher.notice(Notice::Warning(format!(
        "the learned language is empty: {text}"
    )));
    (text, reason.map(|r| r.cut).unwrap_or_default())
}

/// The `learned` object of the JSON output: how the automaton was learned, and the marks
/// of the paper's Sec. 7.2. `mergelens-dfa/1` readers ignore keys they do not know.
#[skip_serializing_none]
#[derive(Serialize)]
struct LearnedDoc<'a> {
    entry: &'a str,
    events: &'a str,
    auto_bounds: bool,
    /// `may-fail`, or `succeed` when executions in which an allocation fails were left out
    /// (`--allocations`).
    allocations: &'static str,
    /// Only for an empty language: why no word was learned, and the loops the unwinding
    /// cut (from CBMC's unwinding assertions).
    empty_reason: Option<&'a str>,
    cut_loops: Option<&'a [CutLoop]>,
    #[serde(flatten)]
    keys: LearnedKeys<'a>,
}

impl Conclusion {
    pub fn concise(&self) -> Option<&Concise> {
        self.concise.as_ref().map(|f| &f.concise)
    }

    pub fn ending(&self) -> Ending<'_> {
        Ending::of(self.bounds, &self.partial, &self.exactness, &self.pac)
    }

    /// The PAC guarantee, when the result is one.
    pub fn pac_result(&self) -> Option<&PacResult> {
        self.pac.as_ref().map(|(p, _)| p)
    }

    /// The `mergelens-dfa/1` document, one line, with its `learned` object.
    pub fn json(
        &self,
        options: &ProgramOptions,
        program: &InstrumentedProgram,
        learned: &Learned,
    ) -> String {
        // The marks of the JSON are the exact automaton's: its states are the ones listed.
        let marks = Marks::analyse(&self.dfa);
        let mut value = json::to_value(&self.dfa);
        let ending = self.ending();
        value["learned"] = serde_json::to_value(LearnedDoc {
            entry: &program.entry,
            events: options.events.as_str(),
            auto_bounds: learned.converged.is_some(),
            allocations: options.allocations.name(),
            empty_reason: self.empty.as_ref().map(|(text, _)| text.as_str()),
            cut_loops: self.empty.as_ref().map(|(_, cut)| cut.as_slice()),
            keys: LearnedKeys::new(&ending, &self.dfa, &marks, None, self.concise(), program),
        })
        .expect("plain data serialises");
        let mut text = serde_json::to_string(&value).expect("JSON values serialise");
        text.push('\n');
        text
    }
}

/// Learns at `bounds`, with the teacher's known answers in the learner's cache.
fn learn_at(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    bounds: LearnBounds,
    options: &ProgramOptions,
    watcher: &dyn Watcher,
) -> Result<(Run, LearnStats), LanguageError> {
    teacher.set_bounds(bounds);
    let doing = || {
        format!(
            "learning `{}` at --unwind {} --max-word-length {}",
            program.entry, bounds.unwind, bounds.max_word_length
        )
    };
    let run = options.learn(teacher, program, true, doing, watcher)?;
    Ok((
        Run {
            bounds,
            dfa: run.dfa,
        },
        run.stats,
    ))
}

/// `--auto-bounds` ([`search_bounds`], the one search of every command). Answers carry over
/// between bounds inside the teacher (Sec. 7.1), so each step after the first costs little
/// more than one conjecture query.
fn auto_bounds(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    options: &ProgramOptions,
    limits: BoundsLimits,
    watcher: &dyn Watcher,
) -> Result<Learned, LanguageError> {
    let mut total = LearnStats::default();
    // Both steps ask the one teacher, which keeps the answers between them.
    let teacher = std::cell::RefCell::new(teacher);
    let search = search_bounds(
        limits,
        |b| shortest_word(program, b),
        |bounds| {
            watcher.phase(phase(bounds));
            let (run, stats) =
                learn_at(&mut teacher.borrow_mut(), program, bounds, options, watcher)?;
            add_stats(&mut total, &stats);
            Ok::<_, LanguageError>(run)
        },
        |run| vec![&run.dfa],
        |bounds| {
            let mut teacher = teacher.borrow_mut();
            teacher.set_bounds(bounds);
            Ok(teacher.cut_loops()?)
        },
    )?;
    Ok(Learned {
        unconverged: search.unconverged_reason(),
        run: search.learned,
        stats: total,
        runs: search.runs,
        converged: Some(search.converged),
    })
}

impl Learning {
    /// The `--stats` document, with `stats` (the learner's, timed by the caller).
    pub fn stats_document<'a>(
        &'a self,
        options: &ProgramOptions,
        stats: &'a LearnStats,
        counters: &CbmcCounters,
    ) -> StatsDocument<'a> {
        let (result, learned, learning) = (&self.conclusion, &self.learned, self);
        StatsDocument {
            learn: stats,
            cbmc_runs: counters.runs(),
            cbmc_seconds: counters.seconds(),
            peak_memory_mib: crate::process::peak_memory() >> 20,
            remote: crate::remote::current().map(|_| crate::remote::stats()),
            cbmc_version: learning.cbmc_version.clone(),
            bounds: BoundsDoc {
                unwind: result.bounds.unwind,
                max_word_length: result.bounds.max_word_length,
                cbmc_unwind: result.bounds.cbmc().unwind,
                auto: learned.converged.is_some(),
                converged: learned.converged,
                learn_runs: learned.runs.clone(),
            },
            exactness: result.exactness.clone(),
            pac: result.pac_result().cloned(),
            teacher: learning.teacher.clone(),
            baseline: options.baseline,
            lazy: options.lazy_learning(),
            cache: CacheDoc {
                path: learning.store.clone(),
                loaded_answers: learning.loaded_answers,
                saved: learning.saved,
            },
        }
    }
}

/// The `--stats` document: the learner's statistics (summed over the runs of a bounds
/// search) and the teacher's.
#[derive(Serialize)]
pub struct StatsDocument<'a> {
    #[serde(flatten)]
    learn: &'a LearnStats,
    cbmc_runs: u64,
    cbmc_seconds: f64,
    /// The largest memory one CBMC (or gcc, goto-cc) run took, in MiB.
    peak_memory_mib: u64,
    /// With `--remote`: actions run remotely, cache hits, local fallbacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    remote: Option<crate::remote::RemoteStats>,
    cbmc_version: String,
    bounds: BoundsDoc,
    /// How far the exactness pass checked the result.
    exactness: Option<Exactness>,
    /// `--mode pac`: the guarantee instead of exactness.
    pac: Option<crate::cbmc::PacResult>,
    teacher: TeacherStats,
    baseline: bool,
    lazy: bool,
    cache: CacheDoc,
}

#[derive(Serialize)]
struct BoundsDoc {
    unwind: u32,
    max_word_length: usize,
    cbmc_unwind: u32,
    auto: bool,
    converged: Option<bool>,
    /// Every bounds pair learned at, in order.
    learn_runs: Vec<LearnBounds>,
}

#[derive(Serialize)]
struct CacheDoc {
    path: Option<PathBuf>,
    loaded_answers: usize,
    saved: bool,
}
