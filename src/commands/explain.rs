//! `mergelens explain FILE.c... [--assertion ID | --line FILE:LINE]`: the language of an
//! assertion failure, learned as one small DFA over the events the user chose. The work is
//! [`mergelens::language::explain`] (the paper's error explanation, the choice of the
//! target, traces); this command calls it, writes the output in the chosen format and the
//! statistics, and prints the warnings and the summary line.
//!
//! Target selection: `--assertion` takes CBMC's property id (CBMC's `--show-properties` on
//! the user's own sources gives its line); `--line` names the line directly. Without either,
//! the only assertion of the program, or the only one that fails within the bounds; none or
//! several are an [`ExplainError::Choose`] (exit code 2) listing them, one per line.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use super::program::{Watch, draw_svg, print_ending, print_front_end_warnings, write_stats};
use super::{Outcome, concise, write_output};
use mergelens::automaton::{Dfa, Marks, Word, dot};
use mergelens::cbmc::{CbmcCounters, LearnBounds};
use mergelens::language::explain::{ExplainBounds, Explanation, Prepared, prepare};
pub use mergelens::language::explain::{ExplainError, TargetChoice};
use mergelens::language::{LanguageError, ProgramOptions, drawn};
use mergelens::learn::LearnStats;
use mergelens::report::{self, Format, Options};

/// The output formats of `mergelens explain`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExplainFormat {
    #[default]
    Json,
    Dot,
    Svg,
    /// The report of `src/report`, as `mergelens report` draws the JSON.
    Html,
}

/// The options of `mergelens explain`.
#[derive(Clone, Debug)]
pub struct ExplainArgs {
    pub program: ProgramOptions,
    pub target: TargetChoice,
    /// The bounds; with `auto_bounds`, the largest ones the search tries (the target is
    /// chosen at these).
    pub bounds: LearnBounds,
    /// `--auto-bounds`: search the bounds as `mergelens learn` does.
    pub auto_bounds: bool,
    pub format: ExplainFormat,
    pub output: Option<PathBuf>,
    pub stats: Option<PathBuf>,
    /// Where the concrete traces of the example words go.
    pub traces: Option<PathBuf>,
}

pub fn run(args: &ExplainArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    super::anytime::start(args.program.time_budget);
    let options = &args.program;
    let prepared = prepare(options, &args.target, args.bounds).map_err(plain)?;
    print_front_end_warnings(&prepared.program.warnings, options.verbose);
    let counters = Arc::new(CbmcCounters::new());
    let how = ExplainBounds {
        bounds: args.bounds,
        auto_bounds: args.auto_bounds,
    };
    let watch = Watch::new("explaining");
    let explained = prepared.learn(options, how, &counters, &watch)?;
    if let Some(reason) = &explained.unconverged {
        errln!("mergelens: note: --auto-bounds: {reason}");
    }
    print_ending(&explained.ending(), "explaining");
    let places = (args.traces.as_deref(), args.output.as_deref());
    let explanation = prepared.conclude(options, explained, places, &counters, &watch)?;
    write_output(
        args.output.as_deref(),
        &render(&explanation, &prepared, args, counters.runs())?,
    )?;

    let explained = &explanation.explained;
    let mut stats = explained.stats.clone();
    stats.wall_seconds = started.elapsed().as_secs_f64();
    if let Some(path) = &args.stats {
        let doc = explanation.stats_document(&prepared, options, &stats, &counters);
        write_stats(path, &doc)?;
    }
    let line = summary(
        &prepared.assertion,
        &explained.dfa,
        &explanation.examples,
        &stats,
        (counters.runs(), prepared.selection.runs()),
        explained.partial.as_ref().map(|p| p.exact_up_to),
    );
    let concise_part = concise::summary_part(explanation.concise.as_ref());
    let kept = super::learn::formula_note(&counters);
    let allocations = super::program::allocations_note(options.allocations);
    errln!(
        "{}{kept}{allocations}{concise_part}",
        super::sampling::pac_line(explained.pac_result(), line)
    );
    if let Some(partial) = explanation.explained.partial {
        partial.finish()?;
    }
    Ok(Outcome::Success)
}

/// `error`, with a failed choice of the target as itself: the binary prints its list one
/// assertion per line.
fn plain(error: LanguageError) -> anyhow::Error {
    match error {
        LanguageError::Explain(e) => e.into(),
        other => other.into(),
    }
}

/// The output in the chosen format; drawings show the concise automaton when there is one,
/// the JSON both.
fn render(
    explanation: &Explanation,
    prepared: &Prepared,
    args: &ExplainArgs,
    cbmc_runs: u64,
) -> anyhow::Result<String> {
    let json = || explanation.json(prepared, &args.program, cbmc_runs);
    let drawn = drawn(&explanation.explained.dfa, explanation.concise());
    let marks = Marks::analyse(drawn);
    let pac = explanation.explained.pac_result();
    Ok(match args.format {
        ExplainFormat::Json => json(),
        ExplainFormat::Dot => super::sampling::label(
            concise::label_dot(
                dot::to_dot(drawn, &prepared.program.entry, &marks),
                explanation.concise(),
            ),
            pac,
        ),
        ExplainFormat::Svg => super::sampling::label(
            concise::label_svg(draw_svg(drawn, &marks)?, explanation.concise()),
            pac,
        ),
        ExplainFormat::Html => {
            let document = report::parse(&json(), "mergelens explain")?;
            report::render(&document, Format::Html, &Options::default())?
        }
    })
}

/// The one summary line; `partial`: the run stopped, its automaton right up to that length
/// only, so an empty one proves nothing.
fn summary(
    assertion: &str,
    dfa: &Dfa,
    examples: &[Word],
    stats: &LearnStats,
    (cbmc_runs, selection_runs): (u64, u64),
    partial: Option<usize>,
) -> String {
    let language = match partial {
        Some(n) if examples.is_empty() => format!(
            "PARTIAL, no failing word found yet: learning stopped before it finished, so whether the assertion can fail is not known (no failing word of at most {n} letters)"
        ),
        Some(n) => format!(
            "PARTIAL: {} states, right up to {n} letters only",
            dfa.num_states()
        ),
        None if examples.is_empty() => {
            "empty language: the assertion cannot fail within the bounds".to_string()
        }
        None => format!("{} states", dfa.num_states()),
    };
    let p = stats
        .guess_accuracy
        .map_or_else(|| "no guesses".to_string(), |p| format!("p = {p:.2}"));
    let by_teacher = stats
        .membership_queries
        .saturating_sub(stats.from_cache + stats.from_precheck + stats.from_guess);
    format!(
        "explained {assertion}: {language} · {cbmc_runs} CBMC runs (+{selection_runs} to find the assertion) · {} membership queries ({} pre-check, {} cache, {} guessed \"no\", {} CBMC) · {p} · {:.1} s",
        stats.membership_queries,
        stats.from_precheck,
        stats.from_cache,
        stats.from_guess,
        by_teacher,
        stats.wall_seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use mergelens::automaton::Alphabet;

    #[test]
    fn a_stopped_run_never_claims_the_assertion_cannot_fail() {
        let empty = Dfa::new(Alphabet::from_names(["f", "assert"]));
        let stats = LearnStats::default();
        let line = |partial| summary("a.c:3: x", &empty, &[], &stats, (1, 0), partial);
        assert!(line(None).contains("cannot fail within the bounds"));
        let stopped = line(Some(1));
        assert!(!stopped.contains("cannot fail"), "{stopped}");
        assert!(
            stopped.contains("PARTIAL") && stopped.contains("not known"),
            "{stopped}"
        );
    }
}
