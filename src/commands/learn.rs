//! `mergelens learn FILE.c...`: the automaton of a C program's behaviour.
//!
//! Key types: [`LearnArgs`] (the command's options: the [`ProgramArgs`] it shares with
//! `mergelens explain`, [`BoundsChoice`] and [`LearnFormat`]) and [`run`].
//!
//! The pipeline: the C front end instruments the files ([`mergelens::cprog::instrument`]); the
//! CBMC teacher ([`mergelens::cbmc::CbmcTeacher`]) answers the queries of lazy L*
//! ([`mergelens::learn`], guessing "yes" as the paper's program explanation does: Chockler,
//! Kesseli, Kroening and Strichman, *Learning the Language of Software Errors*, JAIR 2020,
//! Sec. 5-6); the persistent store ([`mergelens::cbmc::cache_store`]) keeps its answers between
//! runs. `--auto-bounds` searches the bounds as Fig. 17 does, with one change (see
//! `auto_bounds`). The result is minimal and trimmed, with the Sec. 7.2 marks (dominating
//! letters, doomed states) in its drawings and in the `learned` object of its JSON.
//!
//! Standard error gets the front end's warnings, progress (a spinner on a terminal, else a
//! plain line every few seconds: `anytime`), a note when the result is exact only up to
//! some length, and one summary line at the end. `--time-budget`, Ctrl-C and a query
//! timeout keep the last conjecture, marked `partial` (`anytime`).
//! Nothing is left behind but the store: the instrumented copies and goto binaries live in
//! temporary directories.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use serde_with::skip_serializing_none;

use super::anytime::{self, Partial};
use super::concise;
use super::program::{
    ProgramArgs, draw_svg, learn, load_answers, print_front_end_warnings, save_answers, write_stats,
};
use super::progress::Progress;
use super::sampling::label;
use super::{Outcome, write_output};
use mergelens::automaton::{Dfa, Letter, Marks, analysis, dot, json, ops};
use mergelens::cbmc::bounds_search::{BoundsLimits, search_bounds, shortest_word};
use mergelens::cbmc::cache_store::{Exactness, StoreMode};
use mergelens::cbmc::{CbmcCounters, CbmcTeacher, LearnBounds, TeacherStats};
use mergelens::cprog::{self, InstrumentedProgram};
use mergelens::document::Concise;
use mergelens::learn::LearnStats;

/// The output format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LearnFormat {
    /// `mergelens-dfa/1`, with a `learned` object (bounds, exactness, marks).
    #[default]
    Json,
    Dot,
    Svg,
}

/// The bounds of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsChoice {
    Fixed(LearnBounds),
    /// Fig. 17: the unwinding from 1 to `max_unwind`, the word length from the syntax
    /// automaton's shortest word up to `max_word_length` ([`search_bounds`]).
    Auto(BoundsLimits),
}

/// The options of `mergelens learn`.
#[derive(Clone, Debug)]
pub struct LearnArgs {
    pub program: ProgramArgs,
    pub bounds: BoundsChoice,
    pub format: LearnFormat,
    pub output: Option<PathBuf>,
    pub stats: Option<PathBuf>,
}

/// One learning run at fixed bounds.
struct Run {
    bounds: LearnBounds,
    dfa: Dfa,
}

/// How the bounds search ended.
struct Learned {
    run: Run,
    stats: LearnStats,
    runs: Vec<LearnBounds>,
    /// For `--auto-bounds`: whether the automaton stopped changing before the maxima.
    converged: Option<bool>,
    /// Why the search did not converge, in one sentence.
    unconverged: Option<String>,
}

/// Learns, writes the result, the statistics and the summary line.
pub fn run(args: &LearnArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    anytime::start(args.program.time_budget);
    let instrumented = super::remote::work_dir("mergelens-learn-", &args.program.files)?;
    let program = cprog::instrument(&args.program.front_end_config(), instrumented.path())?;
    print_front_end_warnings(&program.warnings, args.program.verbose);
    let (tools, work_dir) = args.program.toolchain()?;
    let store = args
        .program
        .answer_store(&program, StoreMode::Learn, &tools);
    let cbmc_version = tools.version.to_string();
    let first = match args.bounds {
        BoundsChoice::Fixed(b) => b,
        BoundsChoice::Auto(limits) => LearnBounds {
            unwind: 1,
            max_word_length: limits.max_word_length,
        },
    };
    let counters = Arc::new(CbmcCounters::new());
    let mut teacher = CbmcTeacher::new(
        &program,
        tools,
        work_dir,
        first,
        args.program.teacher_options(),
    )
    .with_counters(Arc::clone(&counters));
    args.program.attach_sampling(&mut teacher, &program);
    let loaded = load_answers(store.as_ref(), &mut teacher);
    let outcome = learn_with_progress(&mut teacher, &program, args, first);
    let (learned, partial) = match settle(outcome, &teacher, &program, args) {
        Ok(settled) => settled,
        Err(error) => {
            save_answers(store.as_ref(), &teacher);
            return Err(error);
        }
    };
    let result = conclude(&mut teacher, &program, &learned, partial, args);
    // After the conclusion, whose unwinding check is remembered too.
    let saved = save_answers(store.as_ref(), &teacher);
    let teacher_stats = teacher.stats();
    super::program::object_bits_note(teacher.object_bits());
    drop(teacher);
    result.notes(&learned);
    write_output(
        args.output.as_deref(),
        &result.render(args, &program, &learned)?,
    )?;

    let mut stats = learned.stats.clone();
    stats.wall_seconds = started.elapsed().as_secs_f64();
    if let Some(path) = &args.stats {
        let doc = StatsDoc {
            learn: &stats,
            cbmc_runs: counters.runs(),
            cbmc_seconds: counters.seconds(),
            peak_memory_mib: mergelens::process::peak_memory() >> 20,
            remote: mergelens::remote::current().map(|_| mergelens::remote::stats()),
            cbmc_version,
            bounds: BoundsDoc {
                unwind: result.bounds.unwind,
                max_word_length: result.bounds.max_word_length,
                cbmc_unwind: result.bounds.cbmc().unwind,
                auto: learned.converged.is_some(),
                converged: learned.converged,
                learn_runs: learned.runs.clone(),
            },
            exactness: result.exactness.clone(),
            pac: result.pac.as_ref().map(|(p, _)| p.clone()),
            teacher: teacher_stats,
            baseline: args.program.baseline,
            lazy: args.program.lazy_learning(),
            cache: CacheDoc {
                path: store.as_ref().map(|s| s.path().to_path_buf()),
                loaded_answers: loaded,
                saved,
            },
        };
        write_stats(path, &doc)?;
    }
    let partial_note = result.partial.as_ref().map_or_else(String::new, |p| {
        format!(
            " (PARTIAL: learning stopped before it finished; right up to {} letters only)",
            p.exact_up_to
        )
    });
    errln!(
        "{}{}{}{}{}{partial_note}",
        summary(&stats, counters.runs()),
        formula_note(&counters),
        super::program::allocations_note(args.program.allocations),
        super::sampling::pac_note(result.pac.as_ref().map(|(p, _)| p)),
        concise::summary_part(result.concise.as_ref())
    );
    if let Some(partial) = result.partial {
        partial.finish()?;
    }
    Ok(Outcome::Success)
}

/// Learns at fixed bounds or searches them, with progress on standard error.
fn learn_with_progress(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    args: &LearnArgs,
    first: LearnBounds,
) -> anyhow::Result<Learned> {
    let mut progress = Progress::new("learning");
    progress.set_phase(format!(
        "--unwind {} --max-word-length {}",
        first.unwind, first.max_word_length
    ));
    teacher.on_progress(progress.observer());
    let outcome = match args.bounds {
        BoundsChoice::Fixed(bounds) => {
            learn_at(teacher, program, bounds, args).map(|(run, stats)| Learned {
                runs: vec![run.bounds],
                run,
                stats,
                converged: None,
                unconverged: None,
            })
        }
        BoundsChoice::Auto(limits) => auto_bounds(teacher, program, args, limits, &progress),
    };
    progress.finish();
    outcome
}

/// The learned result, or for a run stopped by the budget, Ctrl-C or a timeout the last
/// conjecture on confirmed answers (or nothing learned yet), with why it stopped.
fn settle(
    outcome: anyhow::Result<Learned>,
    teacher: &CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    args: &LearnArgs,
) -> anyhow::Result<(Learned, Option<Partial>)> {
    let error = match outcome {
        Ok(learned) => return Ok((learned, None)),
        Err(error) => error,
    };
    let Some(cause) = anytime::partial_cause(&error, args.program.time_budget.is_some()) else {
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
struct Conclusion {
    dfa: Dfa,
    bounds: LearnBounds,
    partial: Option<Partial>,
    exactness: Option<Exactness>,
    /// For an empty language: why, and the loops the unwinding cut.
    empty: Option<(String, Vec<mergelens::cbmc::CutLoop>)>,
    concise: Option<concise::Found>,
    marks: Marks,
    /// A PAC result's guarantee and the length up to which known answers back it.
    pac: Option<(mergelens::cbmc::PacResult, usize)>,
}

/// Minimises the result, says why an empty one is empty, and finds the concise automaton.
fn conclude(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    learned: &Learned,
    partial: Option<Partial>,
    args: &LearnArgs,
) -> Conclusion {
    let dfa = ops::minimize(&learned.run.dfa);
    let bounds = learned.run.bounds;
    let accepts_some = dfa.states().any(|q| dfa.is_accepting(q));
    let pac = super::sampling::pac_of(teacher, &dfa, partial.is_none());
    // Emptiness is claimed only when proved, which a PAC result is not.
    let empty = (partial.is_none() && pac.is_none() && !accepts_some)
        .then(|| empty_reason(teacher, program, bounds));
    let exactness = teacher.exactness().cloned();
    let concise = match args.program.concise {
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
            concise::find(&values, &dfa, time)
        }
        _ => None,
    };
    Conclusion {
        marks: Marks::analyse(concise::drawn(&dfa, concise.as_ref().map(|f| &f.concise))),
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
) -> (String, Vec<mergelens::cbmc::CutLoop>) {
    let reason = match teacher.reach() {
        Ok(reach) => Some(reach),
        Err(e) => {
            errln!(
                "mergelens: warning: cannot tell why the language is empty: {}",
                mergelens::failure::text(&e)
            );
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
    errln!("mergelens: warning: the learned language is empty: {text}");
    (text, reason.map(|r| r.cut).unwrap_or_default())
}

impl Conclusion {
    fn concise(&self) -> Option<&Concise> {
        self.concise.as_ref().map(|f| &f.concise)
    }

    fn ending(&self) -> Ending<'_> {
        Ending::of(self.bounds, &self.partial, &self.exactness, &self.pac)
    }

    /// The warnings and notes of a finished run: partial, exact only up to some length,
    /// bounds that did not converge.
    fn notes(&self, learned: &Learned) {
        self.ending().notes("learning");
        if let Some(reason) = &learned.unconverged {
            errln!("mergelens: note: --auto-bounds: {reason}");
        }
    }

    /// The output in the chosen format; drawings show the concise automaton when there is
    /// one.
    fn render(
        &self,
        args: &LearnArgs,
        program: &InstrumentedProgram,
        learned: &Learned,
    ) -> anyhow::Result<String> {
        let drawn = concise::drawn(&self.dfa, self.concise());
        Ok(match args.format {
            LearnFormat::Json => self.json(args, program, learned),
            LearnFormat::Dot => label(
                concise::label_dot(
                    dot::to_dot(drawn, &program.entry, &self.marks),
                    self.concise(),
                ),
                self.pac.as_ref().map(|(p, _)| p),
            ),
            LearnFormat::Svg => label(
                concise::label_svg(draw_svg(drawn, &self.marks)?, self.concise()),
                self.pac.as_ref().map(|(p, _)| p),
            ),
        })
    }

    fn json(&self, args: &LearnArgs, program: &InstrumentedProgram, learned: &Learned) -> String {
        // The marks of the JSON are the exact automaton's: its states are the ones listed.
        let marks = Marks::analyse(&self.dfa);
        let mut value = json::to_value(&self.dfa);
        let ending = self.ending();
        value["learned"] = serde_json::to_value(LearnedDoc {
            entry: &program.entry,
            events: args.program.events.as_str(),
            auto_bounds: learned.converged.is_some(),
            allocations: args.program.allocations.name(),
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
    args: &LearnArgs,
) -> anyhow::Result<(Run, LearnStats)> {
    teacher.set_bounds(bounds);
    let run = learn(teacher, program, args.program.guess(true), || {
        format!(
            "learning `{}` at --unwind {} --max-word-length {}",
            program.entry, bounds.unwind, bounds.max_word_length
        )
    })?;
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
    args: &LearnArgs,
    limits: BoundsLimits,
    progress: &Progress,
) -> anyhow::Result<Learned> {
    let mut total = LearnStats::default();
    // Both steps ask the one teacher, which keeps the answers between them.
    let teacher = std::cell::RefCell::new(teacher);
    let search = search_bounds(
        limits,
        |b| shortest_word(program, b),
        |bounds| {
            progress.set_phase(format!(
                "--unwind {} --max-word-length {}",
                bounds.unwind, bounds.max_word_length
            ));
            let (run, stats) = learn_at(&mut teacher.borrow_mut(), program, bounds, args)?;
            add_stats(&mut total, &stats);
            Ok::<_, anyhow::Error>(run)
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

/// Adds a run's statistics to the total of a bounds search; sizes are the last run's.
pub(crate) fn add_stats(total: &mut LearnStats, run: &LearnStats) {
    total.cex.clone_from(&run.cex);
    total.guess.clone_from(&run.guess);
    total.letters = run.letters;
    total.membership_queries += run.membership_queries;
    total.from_cache += run.from_cache;
    total.from_precheck += run.from_precheck;
    total.from_guess += run.from_guess;
    total.from_teacher += run.from_teacher;
    total.from_concrete += run.from_concrete;
    total.teacher_batches += run.teacher_batches;
    total.guesses_confirmed += run.guesses_confirmed;
    total.guesses_wrong += run.guesses_wrong;
    total.guessing_stopped |= run.guessing_stopped;
    total.equivalence_queries += run.equivalence_queries;
    total.free_counterexamples += run.free_counterexamples;
    total.restarts += run.restarts;
    total.states = run.states;
    total.columns = run.columns;
    total.rows = run.rows;
    total.wall_seconds += run.wall_seconds;
    total.teacher_seconds += run.teacher_seconds;
    total.finish_accuracy();
}

/// ` · N answers from kept CBMC formulas` when some answers came from a formula CBMC wrote once
/// per bounds (a SAT solver on CBMC's formula: CBMC's answers, without a run each).
pub(super) fn formula_note(counters: &mergelens::cbmc::CbmcCounters) -> String {
    match counters.formula_answers() {
        0 => String::new(),
        n => format!(" · {n} answers from kept CBMC formulas"),
    }
}

/// `learned 5 states · 7 CBMC runs · 42 membership queries (30 pre-check, 8 cache, 0
/// guessed, 4 CBMC) · 1.9 s`. The learner's words the teacher answered count as CBMC's:
/// the teacher's own known answers are mostly in the learner's cache already.
fn summary(stats: &LearnStats, cbmc_runs: u64) -> String {
    let by_teacher = stats
        .membership_queries
        .saturating_sub(stats.from_cache + stats.from_precheck + stats.from_guess);
    format!(
        "learned {} states · {} CBMC runs · {} membership queries ({} pre-check, {} cache, {} guessed, {} CBMC) · {:.1} s",
        stats.states,
        cbmc_runs,
        stats.membership_queries,
        stats.from_precheck,
        stats.from_cache,
        stats.from_guess,
        by_teacher,
        stats.wall_seconds
    )
}

/// How a learning run ended, as `learn` and `explain` both hold it.
pub(super) struct Ending<'a> {
    pub(super) bounds: LearnBounds,
    pub(super) partial: Option<&'a Partial>,
    pub(super) exactness: Option<&'a Exactness>,
    /// A PAC result's guarantee and the length up to which known answers back it.
    pub(super) pac: Option<&'a (mergelens::cbmc::PacResult, usize)>,
}

/// The keys the `learned` object of `learn` and the `explained` object of `explain` share
/// (docs/formats.md): the bounds, how far the automaton is exact, the marks of the paper's
/// Sec. 7.2, and what else was found.
#[derive(Serialize)]
pub(super) struct LearnedKeys<'a> {
    unwind: u32,
    max_word_length: usize,
    cbmc_unwind: u32,
    /// Every accepted word of at most this many letters is the word of an execution.
    exact_up_to: usize,
    /// Learning stopped before it finished (`stopped` says why): the automaton is the last
    /// conjecture, right on the words up to `exact_up_to` letters.
    partial: bool,
    stopped: Option<&'static str>,
    dominating: Vec<&'a str>,
    doomed: &'a [mergelens::automaton::StateId],
    /// The concise automaton (`--exact` leaves it out): see `commands::concise`.
    #[serde(skip_serializing_if = "Option::is_none")]
    concise: Option<&'a Concise>,
    /// `--mode pac`: the result is probably approximately correct, not exact; the guarantee.
    #[serde(skip_serializing_if = "Option::is_none")]
    pac: Option<&'a mergelens::cbmc::PacResult>,
    /// What the front end could not see through, each with its kind: the terminal counts
    /// them unless `--verbose`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    front_end_warnings: &'a [mergelens::cprog::FrontEndWarning],
}

impl<'a> Ending<'a> {
    /// How a run at `bounds` ended, from the parts a command keeps.
    pub(super) fn of(
        bounds: LearnBounds,
        partial: &'a Option<Partial>,
        exactness: &'a Option<Exactness>,
        pac: &'a Option<(mergelens::cbmc::PacResult, usize)>,
    ) -> Self {
        Ending {
            bounds,
            partial: partial.as_ref(),
            exactness: exactness.as_ref(),
            pac: pac.as_ref(),
        }
    }

    /// The warning of a partial result, or the note of a PAC one or of one exact only up to
    /// some length; `what` names the run (`learning`).
    pub(super) fn notes(&self, what: &str) {
        if let Some(partial) = self.partial {
            partial.warn(what);
        } else if let Some((pac, _)) = self.pac {
            errln!("mergelens: note: {}", pac.guarantee);
        } else if let Some(e) = self.exactness.filter(|e| !e.is_complete()) {
            errln!(
                "mergelens: note: exact up to length {} only: {} accepted words of {} to {} letters were not checked against CBMC (raise --exact-limit to check them)",
                e.exact_up_to,
                e.unchecked_words,
                e.exact_up_to + 1,
                e.max_word_length
            );
        }
    }
}

impl<'a> LearnedKeys<'a> {
    /// The keys of `dfa`, learned as `ending` says, with its `marks`; a dominating letter in
    /// `unsaid` is left out (for `explain`, `assert` ends every failing word: naming it
    /// would say nothing).
    pub(super) fn new(
        ending: &Ending<'a>,
        dfa: &'a Dfa,
        marks: &'a Marks,
        unsaid: Option<Letter>,
        concise: Option<&'a Concise>,
        program: &'a InstrumentedProgram,
    ) -> Self {
        let bounds = ending.bounds;
        LearnedKeys {
            unwind: bounds.unwind,
            max_word_length: bounds.max_word_length,
            cbmc_unwind: bounds.cbmc().unwind,
            exact_up_to: match (ending.partial, ending.pac) {
                (Some(p), _) => p.exact_up_to,
                (None, Some((_, known))) => *known,
                (None, None) => ending
                    .exactness
                    .map_or(bounds.max_word_length, |e| e.exact_up_to),
            },
            partial: ending.partial.is_some(),
            stopped: ending.partial.map(|p| p.cause.key()),
            dominating: marks
                .dominating
                .iter()
                .filter(|&&a| Some(a) != unsaid)
                .map(|&a| dfa.alphabet().name(a))
                .collect(),
            doomed: &marks.doomed,
            concise,
            pac: ending.pac.map(|(p, _)| p),
            front_end_warnings: &program.warnings,
        }
    }
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
    cut_loops: Option<&'a [mergelens::cbmc::CutLoop]>,
    #[serde(flatten)]
    keys: LearnedKeys<'a>,
}

/// The `--stats` document: the learner's statistics (summed over the runs of a bounds
/// search) and the teacher's.
#[derive(Serialize)]
struct StatsDoc<'a> {
    #[serde(flatten)]
    learn: &'a LearnStats,
    cbmc_runs: u64,
    cbmc_seconds: f64,
    /// The largest memory one CBMC (or gcc, goto-cc) run took, in MiB.
    peak_memory_mib: u64,
    /// With `--remote`: actions run remotely, cache hits, local fallbacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    remote: Option<mergelens::remote::RemoteStats>,
    cbmc_version: String,
    bounds: BoundsDoc,
    /// How far the exactness pass checked the result.
    exactness: Option<Exactness>,
    /// `--mode pac`: the guarantee instead of exactness.
    pac: Option<mergelens::cbmc::PacResult>,
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
