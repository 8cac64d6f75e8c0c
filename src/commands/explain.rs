//! `mergelens explain FILE.c... [--assertion ID | --line FILE:LINE]`: the language of an
//! assertion failure, learned as one small DFA over the events the user chose.
//!
//! This is the error explanation of Chockler, Kesseli, Kroening and Strichman, *Learning the
//! Language of Software Errors* (JAIR 2020): Sec. 3, Eq. 4, the words of the events of the
//! executions within the bounds that violate the target assertion, each ending with the
//! letter `assert`; Theorem 4.1 for what the conjecture queries guarantee; Sec. 6, lazy
//! learning that guesses "no" (most paths do not fail) and reports p, the share of checked
//! guesses that were right (Table 1); Sec. 7.2, dominating letters and doomed states; Sec.
//! 7.3, concrete debug traces behind the example words.
//!
//! Nothing here is a second learner: `cprog::instrument_error` instruments the program so
//! that the failure of the target is the end of a word and the entry's returns are exit
//! points, and the teacher, harnesses and learner of `mergelens learn` do the rest.
//!
//! Target selection: `--assertion` takes CBMC's property id (CBMC's `--show-properties` on
//! the user's own sources gives its line); `--line` names the line directly. Without either,
//! a program with one assertion of its own (CBMC's library models have some too) explains
//! it; with several, one CBMC run lists those that
//! fail within the bounds, and the only one is taken; none or several are an
//! [`ExplainError::Choose`] (exit code 2) listing them, one per line. The
//! front end's checks (preprocessing, syntax, the entry, the alphabet) run before that CBMC
//! run, so bad input fails in a second, not after the bounds' worth of CBMC.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context;
use serde::Serialize;

use super::anytime::{self, Partial};
use super::concise;
use super::learn::{Ending, LearnedKeys, add_stats};
use super::program::{
    ProgramArgs, draw_svg, learn, load_answers, print_front_end_warnings, save_answers, write_stats,
};
use super::progress::Progress;
use super::{Outcome, write_output};
use mergelens::automaton::{Dfa, Marks, Word, analysis, dot, json, ops};
use mergelens::cbmc::bounds_search::{BoundsLimits, search_bounds, shortest_word};
use mergelens::cbmc::cache_store::{Exactness, StoreMode};
use mergelens::cbmc::{
    Bounds, CbmcCounters, CbmcTeacher, GotoProgram, LearnBounds, ProgramProperty, PropertyQuery,
    TeacherStats, Toolchain, program_properties,
};
use mergelens::cprog::{self, AssertionTarget, InstrumentedProgram};
use mergelens::document::Concise;
use mergelens::learn::LearnStats;
use mergelens::report::{self, Format, Options};

/// How many shortest failing words the outputs name (and `--traces` replays).
pub const EXAMPLE_WORDS: usize = 5;

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

/// Which assertion to explain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum TargetChoice {
    /// The only assertion that fails within the bounds.
    #[default]
    Failing,
    /// CBMC's property id, e.g. `main.assertion.1`.
    Property(String),
    /// The assertion(s) at this line.
    Line { file: PathBuf, line: u32 },
}

/// The options of `mergelens explain`.
#[derive(Clone, Debug)]
pub struct ExplainArgs {
    pub program: ProgramArgs,
    pub target: TargetChoice,
    /// The bounds; with `auto_bounds`, the largest ones the search tries (the target is
    /// chosen at these).
    pub bounds: LearnBounds,
    /// `--auto-bounds`: search the bounds as `mergelens learn` does ([`search_bounds`]).
    pub auto_bounds: bool,
    pub format: ExplainFormat,
    pub output: Option<PathBuf>,
    pub stats: Option<PathBuf>,
    /// Where the concrete traces of the example words go.
    pub traces: Option<PathBuf>,
}

/// Why no target could be chosen; all are bad input (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    /// Several assertions fail within the bounds: the user names one. One line per
    /// assertion after the message.
    #[error(
        "{} assertions can fail within the bounds; name one with --assertion ID or --line FILE:LINE:\n{}",
        .failing.len(),
        .failing.join("\n")
    )]
    Choose { failing: Vec<String> },
    /// `--assertion ID` names no assertion of the program.
    #[error(
        "the program has no assertion `{id}`; its assertions are:\n{}",
        list_or_none(.existing)
    )]
    UnknownProperty { id: String, existing: Vec<String> },
    /// A malformed option, e.g. `--line` without a line number.
    #[error("{message}")]
    Usage { message: String },
    /// The program has no assertion at all.
    #[error(
        "the program has no assertion to explain (CBMC finds none); add one, or use `mergelens learn`"
    )]
    NoAssertion,
}

fn list_or_none(lines: &[String]) -> String {
    if lines.is_empty() {
        "(none)".to_string()
    } else {
        lines.join("\n")
    }
}

fn describe(p: &ProgramProperty) -> String {
    format!(
        "{}  {}:{}  {}",
        p.id,
        p.file.display(),
        p.line,
        p.description
    )
}

/// The `explain` metadata of the JSON output (docs/formats.md, "Report keys").
#[derive(Serialize)]
struct ExplainedDoc<'a> {
    assertion_id: Option<&'a str>,
    /// The language is empty: the assertion cannot fail within the bounds.
    empty: bool,
    shortest: Vec<String>,
    guess_accuracy_p: Option<f64>,
    #[serde(flatten)]
    keys: LearnedKeys<'a>,
}

#[derive(Serialize)]
struct StatsDoc<'a> {
    learn: &'a LearnStats,
    pac: Option<&'a mergelens::cbmc::PacResult>,
    teacher: TeacherStats,
    /// The runs that answered the learner's queries (and replayed `--traces`).
    cbmc_runs: u64,
    cbmc_seconds: f64,
    /// The largest memory one CBMC (or gcc, goto-cc) run took, in MiB.
    peak_memory_mib: u64,
    /// The runs that listed the program's assertions to find the target.
    selection_cbmc_runs: u64,
    baseline: bool,
    lazy: bool,
}

pub fn run(args: &ExplainArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    anytime::start(args.program.time_budget);
    let config = args.program.front_end_config();
    let instrumented = tempfile::Builder::new()
        .prefix("mergelens-explain-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    // Fail fast: the front end's checks (preprocessing, syntax, the entry, the alphabet)
    // need no CBMC, so they come before finding the target, which runs CBMC for as long as
    // the bounds take. Error mode instruments again once the target is known (with `--line`
    // it is known already, and error mode's own checks come first anyway).
    if !matches!(args.target, TargetChoice::Line { .. }) {
        cprog::instrument(&config, instrumented.path())?;
    }
    let (tools, work_dir) = args.program.toolchain()?;
    // Finding the target costs the same with or without the learner's optimisations, so
    // its runs are counted apart from the queries'.
    let selection = CbmcCounters::new();
    let chosen = choose_target(args, &tools, &work_dir, &selection)?;
    let counters = Arc::new(CbmcCounters::new());

    let program = cprog::instrument_error(&config, &chosen.target, instrumented.path())?;
    print_front_end_warnings(&program.warnings, args.program.verbose);
    let assertion = target_text(&program);
    let mut explained = learn_language(args, &tools, &work_dir, &program, &counters)?;
    explained.dfa = ops::minimize(&explained.dfa);
    explained.notes();
    let bounds = explained.bounds;
    let examples = analysis::shortest_words(&explained.dfa, bounds.max_word_length, EXAMPLE_WORDS);
    // A stopped run runs no more CBMC: the traces would not come either.
    let traces = if explained.partial.is_some() {
        TraceLinks::new()
    } else {
        write_traces(
            args, bounds, &tools, &work_dir, &program, &examples, &counters,
        )?
    };
    // A stopped run's conjecture is right up to some length only, a PAC one checked on
    // samples only: no picture of either may claim to agree with every execution.
    let concise = args
        .program
        .concise
        .zip(explained.precheck.as_ref())
        .filter(|_| explained.partial.is_none() && explained.pac.is_none() && !examples.is_empty())
        .and_then(|(time, precheck)| {
            let values = cprog::explain_values(
                &program,
                &explained.dfa,
                precheck,
                bounds.unwind,
                bounds.max_word_length,
            );
            concise::find(&values, &explained.dfa, time)
        });
    let explanation = Explanation {
        explained: &explained,
        program: &program,
        assertion: &assertion,
        assertion_id: chosen.assertion_id.as_deref(),
        examples: &examples,
        traces: &traces,
        concise: concise.as_ref().map(|f| &f.concise),
        cbmc_runs: counters.runs(),
    };
    write_output(args.output.as_deref(), &explanation.render(args)?)?;

    let mut stats = explained.stats.clone();
    stats.wall_seconds = started.elapsed().as_secs_f64();
    if let Some(path) = &args.stats {
        let doc = StatsDoc {
            learn: &stats,
            pac: explained.pac.as_ref().map(|(p, _)| p),
            teacher: explained.teacher.clone(),
            cbmc_runs: counters.runs(),
            cbmc_seconds: counters.seconds(),
            peak_memory_mib: mergelens::process::peak_memory() >> 20,
            selection_cbmc_runs: selection.runs(),
            baseline: args.program.baseline,
            lazy: args.program.lazy_learning(),
        };
        write_stats(path, &doc)?;
    }
    let line = summary(
        &assertion,
        &explained.dfa,
        &examples,
        &stats,
        (counters.runs(), selection.runs()),
        explained.partial.as_ref().map(|p| p.exact_up_to),
    );
    let pac = explained.pac.as_ref().map(|(p, _)| p);
    let concise_part = concise::summary_part(concise.as_ref());
    let kept = super::learn::formula_note(&counters);
    let allocations = super::program::allocations_note(args.program.allocations);
    errln!(
        "{}{kept}{allocations}{concise_part}",
        super::sampling::pac_line(pac, line)
    );
    if let Some(partial) = explained.partial {
        partial.finish()?;
    }
    Ok(Outcome::Success)
}

/// The target assertion as the outputs name it: `queue.c:42: count >= 0` (several when
/// one line holds several).
fn target_text(program: &InstrumentedProgram) -> String {
    program
        .assertions
        .iter()
        .filter(|a| a.target)
        .map(|a| format!("{}:{}: {}", a.file.display(), a.line, a.text))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What the output of `explain` is made of.
struct Explanation<'a> {
    explained: &'a Explained,
    program: &'a InstrumentedProgram,
    assertion: &'a str,
    assertion_id: Option<&'a str>,
    examples: &'a [Word],
    traces: &'a TraceLinks,
    concise: Option<&'a Concise>,
    cbmc_runs: u64,
}

impl Explanation<'_> {
    /// The output in the chosen format; drawings show the concise automaton when there is
    /// one, the JSON both.
    fn render(&self, args: &ExplainArgs) -> anyhow::Result<String> {
        let drawn = concise::drawn(&self.explained.dfa, self.concise);
        let marks = Marks::analyse(drawn);
        Ok(match args.format {
            ExplainFormat::Json => self.json(args),
            ExplainFormat::Dot => super::sampling::label(
                concise::label_dot(
                    dot::to_dot(drawn, &self.program.entry, &marks),
                    self.concise,
                ),
                self.explained.pac.as_ref().map(|(p, _)| p),
            ),
            ExplainFormat::Svg => super::sampling::label(
                concise::label_svg(draw_svg(drawn, &marks)?, self.concise),
                self.explained.pac.as_ref().map(|(p, _)| p),
            ),
            ExplainFormat::Html => {
                let document = report::parse(&self.json(args), "mergelens explain")?;
                report::render(&document, Format::Html, &Options::default())?
            }
        })
    }

    fn json(&self, args: &ExplainArgs) -> String {
        let Explained {
            dfa, stats, bounds, ..
        } = self.explained;
        let marks = Marks::analyse(dfa);
        let word_text = |w: &Word| dfa.alphabet().word_names(w).join(" ");
        let mut value = json::to_value(dfa);
        value["kind"] = "explain".into();
        value["program"] = args
            .program
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
            .into();
        value["entry"] = self.program.entry.clone().into();
        value["assertion"] = self.assertion.into();
        value["bounds"] = serde_json::json!({
            "unwind": bounds.unwind,
            "max_word_length": bounds.max_word_length,
            "allocations": args.program.allocations.name(),
        });
        if let Some(note) = args.program.allocations.note() {
            value["bounds"]["notes"] = serde_json::json!([note]);
        }
        value["stats"] = serde_json::json!({
            "cbmc_runs": self.cbmc_runs,
            "membership_queries": stats.membership_queries,
            "from_cache": stats.from_cache,
            "from_precheck": stats.from_precheck,
            "from_guess": stats.from_guess,
            "from_teacher": stats.from_teacher,
            "equivalence_queries": stats.equivalence_queries,
            "guess_accuracy_p": stats.guess_accuracy,
            "guess": "no",
            "states": dfa.num_states(),
        });
        if !self.traces.is_empty() {
            value["traces"] = serde_json::to_value(self.traces).expect("strings serialise");
        }
        let ending = self.explained.ending();
        value["explained"] = serde_json::to_value(ExplainedDoc {
            assertion_id: self.assertion_id,
            empty: self.examples.is_empty(),
            shortest: self.examples.iter().map(word_text).collect(),
            guess_accuracy_p: stats.guess_accuracy,
            keys: LearnedKeys::new(
                &ending,
                dfa,
                &marks,
                Some(self.program.end),
                self.concise,
                self.program,
            ),
        })
        .expect("plain data serialises");
        let mut text = serde_json::to_string(&value).expect("JSON values serialise");
        text.push('\n');
        text
    }
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

/// The target line (and which assertion on it) and, when known, its CBMC property id.
/// Learns the error language of `program` with lazy L* guessing "no", reusing and updating
/// the answer store.
/// What learning the failure language produced.
struct Explained {
    dfa: Dfa,
    stats: LearnStats,
    teacher: TeacherStats,
    exactness: Option<Exactness>,
    /// Where the automaton was learned (with `--auto-bounds`, where the search stopped).
    bounds: LearnBounds,
    /// With `--auto-bounds`: why the search did not converge, in one sentence.
    unconverged: Option<String>,
    /// Learning stopped early; `dfa` is the last conjecture.
    partial: Option<Partial>,
    /// The teacher's pre-check at `bounds`, for the concise automaton's values; `None` when
    /// nothing was learned.
    precheck: Option<Dfa>,
    /// `--mode pac`: the guarantee, and the length up to which known answers back the result.
    pac: Option<(mergelens::cbmc::PacResult, usize)>,
}

impl Explained {
    /// The notes of a finished run: bounds that did not converge, partial, exact only up
    /// to some length.
    fn notes(&self) {
        if let Some(reason) = &self.unconverged {
            errln!("mergelens: note: --auto-bounds: {reason}");
        }
        self.ending().notes("explaining");
    }

    fn ending(&self) -> Ending<'_> {
        Ending::of(self.bounds, &self.partial, &self.exactness, &self.pac)
    }
}

fn learn_language(
    args: &ExplainArgs,
    tools: &Toolchain,
    work_dir: &Path,
    program: &InstrumentedProgram,
    counters: &Arc<CbmcCounters>,
) -> anyhow::Result<Explained> {
    let store = args
        .program
        .answer_store(program, StoreMode::Explain, tools);
    let mut teacher = CbmcTeacher::new(
        program,
        tools.clone(),
        work_dir.to_path_buf(),
        args.bounds,
        args.program.teacher_options(),
    )
    .with_counters(Arc::clone(counters));
    args.program.attach_sampling(&mut teacher, program);
    load_answers(store.as_ref(), &mut teacher);
    let mut progress = Progress::new("explaining");
    progress.set_phase(format!(
        "--unwind {} --max-word-length {}",
        args.bounds.unwind, args.bounds.max_word_length
    ));
    teacher.on_progress(progress.observer());
    // Sec. 6: most paths do not fail the assertion, so "no" is the likely answer.
    let learn_at = |teacher: &mut CbmcTeacher<'_>, bounds: LearnBounds| {
        teacher.set_bounds(bounds);
        progress.set_phase(format!(
            "--unwind {} --max-word-length {}",
            bounds.unwind, bounds.max_word_length
        ));
        learn(teacher, program, args.program.guess(false), || {
            format!(
                "explaining the assertion at --unwind {} --max-word-length {}",
                bounds.unwind, bounds.max_word_length
            )
        })
    };
    let learned = if args.auto_bounds {
        let limits = BoundsLimits {
            max_unwind: args.bounds.unwind,
            max_word_length: args.bounds.max_word_length,
        };
        let mut total = LearnStats::default();
        // Both steps ask the one teacher, which keeps the answers between them.
        let shared = std::cell::RefCell::new(&mut teacher);
        search_bounds(
            limits,
            |b| shortest_word(program, b),
            |bounds| {
                let run = learn_at(&mut shared.borrow_mut(), bounds)?;
                add_stats(&mut total, &run.stats);
                Ok::<_, anyhow::Error>(run.dfa)
            },
            |dfa| vec![dfa],
            |bounds| {
                let mut teacher = shared.borrow_mut();
                teacher.set_bounds(bounds);
                Ok(teacher.cut_loops()?)
            },
        )
        .map(|search| {
            let reason = search.unconverged_reason();
            (search.learned, total, search.bounds, reason)
        })
    } else {
        learn_at(&mut teacher, args.bounds).map(|run| (run.dfa, run.stats, args.bounds, None))
    };
    progress.finish();
    save_answers(store.as_ref(), &teacher);
    let (dfa, stats, bounds, unconverged, partial) = match learned {
        Ok((dfa, stats, bounds, reason)) => (dfa, stats, bounds, reason, None),
        Err(error) => {
            let Some(cause) = anytime::partial_cause(&error, args.program.time_budget.is_some())
            else {
                return Err(error);
            };
            let dfa = teacher
                .last_conjecture()
                .cloned()
                .unwrap_or_else(|| Dfa::new(program.alphabet.clone()));
            let partial = Partial {
                cause,
                exact_up_to: teacher.agrees_up_to(&dfa),
                error,
                allocation_failures: teacher.explores_allocation_failures(),
            };
            let stats = LearnStats {
                states: dfa.num_states(),
                ..LearnStats::default()
            };
            (dfa, stats, teacher.bounds(), None, Some(partial))
        }
    };
    super::program::object_bits_note(teacher.object_bits());
    let pac = super::sampling::pac_of(&teacher, &dfa, partial.is_none());
    Ok(Explained {
        dfa,
        stats,
        teacher: teacher.stats(),
        exactness: teacher.exactness().cloned(),
        bounds,
        unconverged,
        partial,
        precheck: Some(teacher.precheck_automaton().clone()),
        pac,
    })
}

/// The assertion to explain, as [`choose_target`] found it.
struct Chosen {
    target: AssertionTarget,
    /// CBMC's property id, when CBMC named the target.
    assertion_id: Option<String>,
}

fn choose_target(
    args: &ExplainArgs,
    tools: &Toolchain,
    work_dir: &Path,
    counters: &CbmcCounters,
) -> anyhow::Result<Chosen> {
    // The harness files are part of the program CBMC runs (they may define the entry).
    let files: Vec<PathBuf> = args
        .program
        .files
        .iter()
        .chain(&args.program.harness)
        .cloned()
        .collect();
    let properties = |query| {
        program_properties(
            tools,
            &files,
            &args.program.include_dirs,
            &args.program.defines,
            &args.program.entry,
            query,
            work_dir,
            Some(counters),
        )
    };
    let chosen = match &args.target {
        TargetChoice::Line { file, line } => {
            return Ok(Chosen {
                target: AssertionTarget {
                    file: file.clone(),
                    line: *line,
                    index: None,
                },
                assertion_id: None,
            });
        }
        TargetChoice::Property(id) => {
            let all = properties(PropertyQuery::All)?;
            match all.iter().find(|p| &p.id == id) {
                Some(p) => (p.clone(), all),
                None => {
                    return Err(ExplainError::UnknownProperty {
                        id: id.clone(),
                        existing: all.iter().map(describe).collect(),
                    }
                    .into());
                }
            }
        }
        TargetChoice::Failing => {
            // With one assertion there is nothing to choose: learning finds whether and how
            // it fails. The run that finds the failing ones checks the whole program at the
            // bounds without the word-length cut, which costs more than learning itself
            // (`schedule` of the paper's benchmarks: 81 s at --unwind 2, learning 13 s).
            let all = properties(PropertyQuery::All)?;
            let own: Vec<&ProgramProperty> = all.iter().filter(|p| !p.in_library()).collect();
            if let [one] = own.as_slice() {
                return Ok(chosen(one, &all));
            }
            if own.is_empty() {
                return Err(ExplainError::NoAssertion.into());
            }
            let cbmc_unwind = args.bounds.cbmc().unwind;
            let failing = properties(PropertyQuery::Failing { cbmc_unwind })?;
            match failing.as_slice() {
                [one] => (one.clone(), all),
                // Nothing fails, or several do: the user says which language to learn.
                [] => {
                    return Err(ExplainError::Choose {
                        failing: all.iter().map(describe).collect(),
                    }
                    .into());
                }
                _ => {
                    return Err(ExplainError::Choose {
                        failing: failing.iter().map(describe).collect(),
                    }
                    .into());
                }
            }
        }
    };
    let (property, all) = chosen;
    Ok(self::chosen(&property, &all))
}

/// `property`, one of the program's assertions `all`, as the target.
fn chosen(property: &ProgramProperty, all: &[ProgramProperty]) -> Chosen {
    // CBMC numbers a function's assertions in source order, so the rank of the id among
    // those of its line is the rank of the call among the assertion calls on that line.
    let index = all
        .iter()
        .filter(|p| p.file == property.file && p.line == property.line)
        .position(|p| p.id == property.id);
    Chosen {
        target: AssertionTarget {
            file: property.file.clone(),
            line: property.line,
            index,
        },
        assertion_id: Some(property.id.clone()),
    }
}

/// Example words (letters separated by spaces) to the files of their traces.
type TraceLinks = BTreeMap<String, String>;

/// Stores one concrete trace per example word in `--traces DIR` (none without it) and maps
/// each word (letters separated by spaces) to its file, relative to the output's directory
/// when there is one.
fn write_traces(
    args: &ExplainArgs,
    bounds: LearnBounds,
    tools: &Toolchain,
    work_dir: &Path,
    program: &InstrumentedProgram,
    examples: &[Word],
    counters: &Arc<CbmcCounters>,
) -> anyhow::Result<TraceLinks> {
    let mut links = BTreeMap::new();
    let Some(dir) = &args.traces else {
        return Ok(links);
    };
    if examples.is_empty() {
        return Ok(links);
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the trace directory {}", dir.display()))?;
    let goto = GotoProgram::compile(
        tools,
        &program.paths,
        &args.program.include_dirs,
        &args.program.defines,
        work_dir,
    )?
    .with_entry(program.cbmc_entry.clone())
    .with_recursive_functions(program.recursive_functions())
    .with_library_unwind(args.program.library_unwind)
    .with_counters(Arc::clone(counters));
    let bounds: Bounds = bounds.cbmc();
    let base = args
        .output
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    for (i, word) in examples.iter().enumerate() {
        let Some(steps) = goto.word_trace(word, bounds, program.end, args.program.query_timeout)?
        else {
            continue;
        };
        let names: Vec<&str> = word.iter().map(|&a| program.alphabet.name(a)).collect();
        let key = names.join(" ");
        let path = dir.join(format!("trace-{}.json", i + 1));
        let doc = serde_json::json!({
            "format": "mergelens-trace/1",
            "word": names,
            "entry": program.entry,
            "steps": steps,
        });
        let mut text = serde_json::to_string_pretty(&doc).expect("JSON values serialise");
        text.push('\n');
        std::fs::write(&path, text)
            .with_context(|| format!("cannot write the trace {}", path.display()))?;
        let link = match &base {
            Some(base) => relative(&path, base),
            None => path.display().to_string(),
        };
        links.insert(key, link);
    }
    Ok(links)
}

/// `path` relative to `base` when both resolve and `base` is a prefix; else `path` as is.
fn relative(path: &Path, base: &Path) -> String {
    let resolve = |p: &Path| {
        std::path::absolute(p)
            .ok()
            .map(|p| p.components().collect::<PathBuf>())
    };
    match (resolve(path), resolve(base)) {
        (Some(p), Some(b)) => p
            .strip_prefix(&b)
            .map_or_else(|_| path.display().to_string(), |r| r.display().to_string()),
        _ => path.display().to_string(),
    }
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

    #[test]
    fn choosing_lists_one_property_per_line() {
        let e = ExplainError::Choose {
            failing: vec![
                "main.assertion.1  a.c:4  x".into(),
                "f.assertion.1  a.c:3  y".into(),
            ],
        };
        let text = e.to_string();
        assert_eq!(text.lines().count(), 3);
        assert!(text.lines().next().unwrap().contains("--assertion"));
    }
}
