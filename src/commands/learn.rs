//! `mergelens learn FILE.c...`: the automaton of a C program's behaviour.
//!
//! Key types: [`LearnArgs`] (the command's options: the [`ProgramOptions`] it shares with
//! `mergelens explain`, [`BoundsChoice`] and [`LearnFormat`]) and [`run`]. The work is
//! [`mergelens::language::learn`]: the C front end instruments the files
//! ([`mergelens::cprog::instrument`]), the CBMC teacher answers the queries of lazy L*, the
//! persistent store keeps its answers between runs, `--auto-bounds` searches the bounds as
//! Fig. 17 of the paper does.
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

use super::program::{Watch, draw_svg, print_ending, print_front_end_warnings, write_stats};
use super::sampling::label;
use super::{Outcome, concise, write_output};
use mergelens::automaton::dot;
use mergelens::cbmc::CbmcCounters;
use mergelens::cprog::{self, InstrumentedProgram};
use mergelens::language::ProgramOptions;
pub use mergelens::language::learn::BoundsChoice;
use mergelens::language::learn::{Learning, learn_program};
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

/// The options of `mergelens learn`.
#[derive(Clone, Debug)]
pub struct LearnArgs {
    pub program: ProgramOptions,
    pub bounds: BoundsChoice,
    pub format: LearnFormat,
    pub output: Option<PathBuf>,
    pub stats: Option<PathBuf>,
}

/// Learns, writes the result, the statistics and the summary line.
pub fn run(args: &LearnArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let options = &args.program;
    super::anytime::start(options.time_budget);
    let instrumented = super::remote::work_dir("mergelens-learn-", &options.files)?;
    let program = cprog::instrument(&options.front_end_config(), instrumented.path())?;
    print_front_end_warnings(&program.warnings, options.verbose);
    let tools = options.toolchain()?;
    let counters = Arc::new(CbmcCounters::new());
    let watch = Watch::new("learning");
    let learning = learn_program(options, args.bounds, &program, tools, &counters, &watch)?;
    let result = &learning.conclusion;
    print_ending(&result.ending(), "learning");
    if let Some(reason) = &learning.learned.unconverged {
        errln!("mergelens: note: --auto-bounds: {reason}");
    }
    write_output(args.output.as_deref(), &render(args, &program, &learning)?)?;

    let mut stats = learning.learned.stats.clone();
    stats.wall_seconds = started.elapsed().as_secs_f64();
    if let Some(path) = &args.stats {
        write_stats(path, &learning.stats_document(options, &stats, &counters))?;
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
        super::program::allocations_note(options.allocations),
        super::sampling::pac_note(result.pac_result()),
        concise::summary_part(result.concise.as_ref())
    );
    if let Some(partial) = learning.conclusion.partial {
        partial.finish()?;
    }
    Ok(Outcome::Success)
}

/// The output in the chosen format; drawings show the concise automaton when there is
/// one.
fn render(
    args: &LearnArgs,
    program: &InstrumentedProgram,
    learning: &Learning,
) -> anyhow::Result<String> {
    let result = &learning.conclusion;
    let drawn = mergelens::language::drawn(&result.dfa, result.concise());
    Ok(match args.format {
        LearnFormat::Json => result.json(&args.program, program, &learning.learned),
        LearnFormat::Dot => label(
            concise::label_dot(
                dot::to_dot(drawn, &program.entry, &result.marks),
                result.concise(),
            ),
            result.pac_result(),
        ),
        LearnFormat::Svg => label(
            concise::label_svg(draw_svg(drawn, &result.marks)?, result.concise()),
            result.pac_result(),
        ),
    })
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
