//! The language of an assertion failure, learned as one small DFA over the events the user
//! chose: what `mergelens explain` computes.
//!
//! This is the error explanation of Chockler, Kesseli, Kroening and Strichman, *Learning the
//! Language of Software Errors* (JAIR 2020): Sec. 3, Eq. 4, the words of the events of the
//! executions within the bounds that violate the target assertion, each ending with the
//! letter `assert`; Theorem 4.1 for what the conjecture queries guarantee; Sec. 6, lazy
//! learning that guesses "no" (most paths do not fail) and reports p, the share of checked
//! guesses that were right (Table 1); Sec. 7.2, dominating letters and doomed states; Sec.
//! 7.3, concrete debug traces behind the example words.
//!
//! Key items, in the order a caller runs them: [`prepare`] (the front end's checks, the
//! toolchain, the target: [`Prepared`]), [`Prepared::learn`] (the failure language:
//! [`Explained`]), [`Prepared::conclude`] (example words, their traces, the concise
//! automaton: [`Explanation`], whose [`Explanation::json`] is the output document).
//!
//! Nothing here is a second learner: `cprog::instrument_error` instruments the program so
//! that the failure of the target is the end of a word and the entry's returns are exit
//! points, and the teacher, harnesses and learner of `learn` do the rest.
//!
//! Target selection: [`TargetChoice::Property`] takes CBMC's property id;
//! [`TargetChoice::Line`] names the line directly. Without either, a program with one
//! assertion of its own (CBMC's library models have some too) explains it; with several,
//! one CBMC run lists those that fail within the bounds, and the only one is taken; none or
//! several are an [`ExplainError::Choose`] listing them, one per line. The front end's
//! checks (preprocessing, syntax, the entry, the alphabet) run before that CBMC run, so bad
//! input fails in a second, not after the bounds' worth of CBMC.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::concise::{Found, find_concise};
use super::ending::{Ending, LearnedKeys, Partial, add_stats, partial_cause};
pub use super::error::ExplainError;
use super::error::LanguageError;
use super::options::{ProgramOptions, pac_of};
use super::watch::Watcher;
use crate::automaton::{Dfa, Marks, Word, analysis, json, ops};
use crate::cbmc::bounds_search::{BoundsLimits, search_bounds, shortest_word};
use crate::cbmc::cache_store::{Exactness, StoreMode};
use crate::cbmc::{
    Bounds, CbmcCounters, CbmcTeacher, GotoProgram, LearnBounds, PacResult, ProgramProperty,
    PropertyQuery, TeacherStats, Toolchain, program_properties,
};
use crate::cprog::{self, AssertionTarget, InstrumentedProgram};
use crate::learn::LearnStats;

use super::options::{load_answers, object_bits_notice, save_answers};

/// How many shortest failing words the outputs name (and the traces replay).
pub const EXAMPLE_WORDS: usize = 5;

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

fn describe(p: &ProgramProperty) -> String {
    format!(
        "{}  {}:{}  {}",
        p.id,
        p.file.display(),
        p.line,
        p.description
    )
}

/// The program instrumented for its target, ready to learn.
pub struct Prepared {
    pub program: InstrumentedProgram,
    pub tools: Toolchain,
    pub work_dir: PathBuf,
    /// CBMC's property id, when CBMC named the target.
    pub assertion_id: Option<String>,
    /// The target assertion as the outputs name it: `queue.c:42: count >= 0` (several when
    /// one line holds several).
    pub assertion: String,
    /// The runs that listed the program's assertions to find the target: finding it costs
    /// the same with or without the learner's optimisations, so they are counted apart.
    pub selection: CbmcCounters,
    /// Where the instrumented copies live, as long as the program is used.
    _instrumented: tempfile::TempDir,
}

/// Checks the program, finds CBMC and the target, and instruments the program so that the
/// target's failure ends a word. `bounds` are those the target is chosen at.
pub fn prepare(
    options: &ProgramOptions,
    target: &TargetChoice,
    bounds: LearnBounds,
) -> Result<Prepared, LanguageError> {
    let config = options.front_end_config();
    let instrumented = tempfile::Builder::new()
        .prefix("mergelens-explain-")
        .tempdir()
        .map_err(LanguageError::TempDir)?;
    // Fail fast: the front end's checks (preprocessing, syntax, the entry, the alphabet)
    // need no CBMC, so they come before finding the target, which runs CBMC for as long as
    // the bounds take. Error mode instruments again once the target is known (with `--line`
    // it is known already, and error mode's own checks come first anyway).
    if !matches!(target, TargetChoice::Line { .. }) {
        cprog::instrument(&config, instrumented.path())?;
    }
    let (tools, work_dir) = options.toolchain()?;
    let selection = CbmcCounters::new();
    let chosen = choose_target(options, target, bounds, (&tools, &work_dir), &selection)?;
    let program = cprog::instrument_error(&config, &chosen.target, instrumented.path())?;
    Ok(Prepared {
        assertion: target_text(&program),
        program,
        tools,
        work_dir,
        assertion_id: chosen.assertion_id,
        selection,
        _instrumented: instrumented,
    })
}

/// The target assertion as the outputs name it.
fn target_text(program: &InstrumentedProgram) -> String {
    program
        .assertions
        .iter()
        .filter(|a| a.target)
        .map(|a| format!("{}:{}: {}", a.file.display(), a.line, a.text))
        .collect::<Vec<_>>()
        .join("; ")
}

/// What learning the failure language produced.
pub struct Explained {
    /// Minimal.
    pub dfa: Dfa,
    pub stats: LearnStats,
    pub teacher: TeacherStats,
    pub exactness: Option<Exactness>,
    /// Where the automaton was learned (with `--auto-bounds`, where the search stopped).
    pub bounds: LearnBounds,
    /// With `--auto-bounds`: why the search did not converge, in one sentence.
    pub unconverged: Option<String>,
    /// Learning stopped early; `dfa` is the last conjecture.
    pub partial: Option<Partial>,
    /// The teacher's pre-check at `bounds`, for the concise automaton's values.
    pub precheck: Dfa,
    /// `--mode pac`: the guarantee, and the length up to which known answers back the result.
    pub pac: Option<(PacResult, usize)>,
}

impl Explained {
    pub fn ending(&self) -> Ending<'_> {
        Ending::of(self.bounds, &self.partial, &self.exactness, &self.pac)
    }

    /// The PAC guarantee, when the result is one.
    pub fn pac_result(&self) -> Option<&PacResult> {
        self.pac.as_ref().map(|(p, _)| p)
    }
}

/// How the failure language is learned: at `bounds`, or with `auto_bounds` searching up to
/// them.
#[derive(Clone, Copy, Debug)]
pub struct ExplainBounds {
    pub bounds: LearnBounds,
    pub auto_bounds: bool,
}

impl Prepared {
    /// Learns the error language with lazy L* guessing "no" (Sec. 6: most paths do not fail
    /// the assertion), reusing and updating the answer store; the result is minimal.
    pub fn learn(
        &self,
        options: &ProgramOptions,
        how: ExplainBounds,
        counters: &Arc<CbmcCounters>,
        watcher: &dyn Watcher,
    ) -> Result<Explained, LanguageError> {
        let program = &self.program;
        let store = options.answer_store(program, StoreMode::Explain, &self.tools, watcher);
        let mut teacher = CbmcTeacher::new(
            program,
            self.tools.clone(),
            self.work_dir.clone(),
            how.bounds,
            options.teacher_options(),
        )
        .with_counters(Arc::clone(counters));
        options.attach_sampling(&mut teacher, program);
        load_answers(store.as_ref(), &mut teacher, watcher);
        watcher.phase(phase(how.bounds));
        teacher.on_progress(watcher.teacher());
        let learned = learn_or_search(&mut teacher, program, options, how, watcher);
        watcher.done();
        save_answers(store.as_ref(), &teacher, watcher);
        let (dfa, stats, bounds, unconverged, partial) = match learned {
            Ok((dfa, stats, bounds, reason)) => (dfa, stats, bounds, reason, None),
            Err(error) => {
                let Some(cause) = partial_cause(&error, options.time_budget.is_some()) else {
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
        object_bits_notice(teacher.object_bits(), watcher);
        let pac = pac_of(&teacher, &dfa, partial.is_none());
        Ok(Explained {
            dfa: ops::minimize(&dfa),
            stats,
            teacher: teacher.stats(),
            exactness: teacher.exactness().cloned(),
            bounds,
            unconverged,
            partial,
            precheck: teacher.precheck_automaton().clone(),
            pac,
        })
    }

    /// The example words of `explained`, their traces in `traces_dir` (none without one, or
    /// for a stopped run, which runs no more CBMC; linked relative to `output`'s directory
    /// when there is one) and the concise automaton (with `options.concise`).
    pub fn conclude(
        &self,
        options: &ProgramOptions,
        explained: Explained,
        (traces_dir, output): (Option<&Path>, Option<&Path>),
        counters: &Arc<CbmcCounters>,
        watcher: &dyn Watcher,
    ) -> Result<Explanation, LanguageError> {
        let bounds = explained.bounds;
        let examples =
            analysis::shortest_words(&explained.dfa, bounds.max_word_length, EXAMPLE_WORDS);
        let traces = match traces_dir {
            Some(dir) if explained.partial.is_none() && !examples.is_empty() => {
                self.write_traces(options, bounds, (dir, output), &examples, counters)?
            }
            _ => TraceLinks::new(),
        };
        // A stopped run's conjecture is right up to some length only, a PAC one checked on
        // samples only: no picture of either may claim to agree with every execution.
        let concise = options
            .concise
            .filter(|_| {
                explained.partial.is_none() && explained.pac.is_none() && !examples.is_empty()
            })
            .and_then(|time| {
                let values = cprog::explain_values(
                    &self.program,
                    &explained.dfa,
                    &explained.precheck,
                    bounds.unwind,
                    bounds.max_word_length,
                );
                find_concise(&values, &explained.dfa, time, watcher)
            });
        Ok(Explanation {
            explained,
            examples,
            traces,
            concise,
        })
    }

    /// Stores one concrete trace per example word in `dir` and maps each word (letters
    /// separated by spaces) to its file, relative to `output`'s directory when there is one.
    fn write_traces(
        &self,
        options: &ProgramOptions,
        bounds: LearnBounds,
        (dir, output): (&Path, Option<&Path>),
        examples: &[Word],
        counters: &Arc<CbmcCounters>,
    ) -> Result<TraceLinks, LanguageError> {
        let program = &self.program;
        let mut links = BTreeMap::new();
        std::fs::create_dir_all(dir).map_err(|source| LanguageError::TraceDir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let goto = GotoProgram::compile(
            &self.tools,
            &program.paths,
            &options.include_dirs,
            &options.defines,
            &self.work_dir,
        )?
        .with_entry(program.cbmc_entry.clone())
        .with_recursive_functions(program.recursive_functions())
        .with_library_unwind(options.library_unwind)
        .with_counters(Arc::clone(counters));
        let bounds: Bounds = bounds.cbmc();
        let base = output.and_then(Path::parent).map(Path::to_path_buf);
        for (i, word) in examples.iter().enumerate() {
            let Some(steps) = goto.word_trace(word, bounds, program.end, options.query_timeout)?
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
            std::fs::write(&path, text).map_err(|source| LanguageError::WriteTrace {
                path: path.clone(),
                source,
            })?;
            let link = match &base {
                Some(base) => relative(&path, base),
                None => path.display().to_string(),
            };
            links.insert(key, link);
        }
        Ok(links)
    }
}

fn phase(bounds: LearnBounds) -> String {
    format!(
        "--unwind {} --max-word-length {}",
        bounds.unwind, bounds.max_word_length
    )
}

/// The learned automaton, the summed statistics, the bounds and, for a search that did not
/// converge, why.
type Learned = (Dfa, LearnStats, LearnBounds, Option<String>);

/// Learns at the fixed bounds, or searches them as `learn --auto-bounds` does.
fn learn_or_search(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    options: &ProgramOptions,
    how: ExplainBounds,
    watcher: &dyn Watcher,
) -> Result<Learned, LanguageError> {
    let learn_at = |teacher: &mut CbmcTeacher<'_>, bounds: LearnBounds| {
        teacher.set_bounds(bounds);
        watcher.phase(phase(bounds));
        options.learn(
            teacher,
            program,
            false,
            || {
                format!(
                    "explaining the assertion at --unwind {} --max-word-length {}",
                    bounds.unwind, bounds.max_word_length
                )
            },
            watcher,
        )
    };
    if !how.auto_bounds {
        return learn_at(teacher, how.bounds).map(|run| (run.dfa, run.stats, how.bounds, None));
    }
    let limits = BoundsLimits {
        max_unwind: how.bounds.unwind,
        max_word_length: how.bounds.max_word_length,
    };
    let mut total = LearnStats::default();
    // Both steps ask the one teacher, which keeps the answers between them.
    let shared = std::cell::RefCell::new(teacher);
    let search = search_bounds(
        limits,
        |b| shortest_word(program, b),
        |bounds| {
            let run = learn_at(&mut shared.borrow_mut(), bounds)?;
            add_stats(&mut total, &run.stats);
            Ok::<_, LanguageError>(run.dfa)
        },
        |dfa| vec![dfa],
        |bounds| {
            let mut teacher = shared.borrow_mut();
            teacher.set_bounds(bounds);
            Ok(teacher.cut_loops()?)
        },
    )?;
    let reason = search.unconverged_reason();
    Ok((search.learned, total, search.bounds, reason))
}

/// The assertion to explain, as [`choose_target`] found it.
struct Chosen {
    target: AssertionTarget,
    /// CBMC's property id, when CBMC named the target.
    assertion_id: Option<String>,
}

fn choose_target(
    options: &ProgramOptions,
    target: &TargetChoice,
    bounds: LearnBounds,
    (tools, work_dir): (&Toolchain, &Path),
    counters: &CbmcCounters,
) -> Result<Chosen, LanguageError> {
    // The harness files are part of the program CBMC runs (they may define the entry).
    let files: Vec<PathBuf> = options
        .files
        .iter()
        .chain(&options.harness)
        .cloned()
        .collect();
    let properties = |query| {
        program_properties(
            tools,
            &files,
            &options.include_dirs,
            &options.defines,
            &options.entry,
            query,
            work_dir,
            Some(counters),
        )
    };
    let (property, all) = match target {
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
            let cbmc_unwind = bounds.cbmc().unwind;
            let failing = properties(PropertyQuery::Failing { cbmc_unwind })?;
            match failing.as_slice() {
                [one] => (one.clone(), all),
                // Nothing fails, or several do: the user says which language to learn.
                [] => {
                    let failing = all.iter().map(describe).collect();
                    return Err(ExplainError::Choose { failing }.into());
                }
                _ => {
                    let failing = failing.iter().map(describe).collect();
                    return Err(ExplainError::Choose { failing }.into());
                }
            }
        }
    };
    Ok(chosen(&property, &all))
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
pub type TraceLinks = BTreeMap<String, String>;

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

/// What the output of `explain` is made of.
pub struct Explanation {
    pub explained: Explained,
    /// The shortest failing words, at most [`EXAMPLE_WORDS`].
    pub examples: Vec<Word>,
    pub traces: TraceLinks,
    pub concise: Option<Found>,
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

impl Explanation {
    /// The concise automaton, when one was found.
    pub fn concise(&self) -> Option<&crate::document::Concise> {
        self.concise.as_ref().map(|f| &f.concise)
    }

    /// The `mergelens-dfa/1` document of the explanation, one line: the exact automaton,
    /// with the `explain` keys (the concise automaton among them).
    pub fn json(&self, prepared: &Prepared, options: &ProgramOptions, cbmc_runs: u64) -> String {
        let Explained {
            dfa, stats, bounds, ..
        } = &self.explained;
        let program = &prepared.program;
        let marks = Marks::analyse(dfa);
        let word_text = |w: &Word| dfa.alphabet().word_names(w).join(" ");
        let mut value = json::to_value(dfa);
        value["kind"] = "explain".into();
        value["program"] = options
            .files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
            .into();
        value["entry"] = program.entry.clone().into();
        value["assertion"] = prepared.assertion.clone().into();
        value["bounds"] = serde_json::json!({
            "unwind": bounds.unwind,
            "max_word_length": bounds.max_word_length,
            "allocations": options.allocations.name(),
        });
        if let Some(note) = options.allocations.note() {
            value["bounds"]["notes"] = serde_json::json!([note]);
        }
        value["stats"] = serde_json::json!({
            "cbmc_runs": cbmc_runs,
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
            value["traces"] = serde_json::to_value(&self.traces).expect("strings serialise");
        }
        let ending = self.explained.ending();
        value["explained"] = serde_json::to_value(ExplainedDoc {
            assertion_id: prepared.assertion_id.as_deref(),
            empty: self.examples.is_empty(),
            shortest: self.examples.iter().map(word_text).collect(),
            guess_accuracy_p: stats.guess_accuracy,
            keys: LearnedKeys::new(
                &ending,
                dfa,
                &marks,
                Some(program.end),
                self.concise(),
                program,
            ),
        })
        .expect("plain data serialises");
        let mut text = serde_json::to_string(&value).expect("JSON values serialise");
        text.push('\n');
        text
    }
}

/// The `--stats` document of an explanation: the learner's statistics, the teacher's, and
/// the CBMC runs of the choice of the target apart.
#[derive(Serialize)]
pub struct StatsDocument<'a> {
    learn: &'a LearnStats,
    pac: Option<&'a crate::cbmc::PacResult>,
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

impl Explanation {
    /// The `--stats` document, with `stats` (the learner's, timed by the caller).
    pub fn stats_document<'a>(
        &'a self,
        prepared: &Prepared,
        options: &ProgramOptions,
        stats: &'a LearnStats,
        counters: &CbmcCounters,
    ) -> StatsDocument<'a> {
        let explained = &self.explained;
        StatsDocument {
            learn: stats,
            pac: explained.pac_result(),
            teacher: explained.teacher.clone(),
            cbmc_runs: counters.runs(),
            cbmc_seconds: counters.seconds(),
            peak_memory_mib: crate::process::peak_memory() >> 20,
            selection_cbmc_runs: prepared.selection.runs(),
            baseline: options.baseline,
            lazy: options.lazy_learning(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
