//! The options `mergelens learn` and `mergelens explain` share (the program, its front end,
//! CBMC, lazy learning and the answer store) and the setup both derive from them.
//!
//! Key items: [`ProgramArgs`] with [`CacheChoice`]; from them the front end's
//! [`FrontEndConfig`], the teacher's [`TeacherOptions`], the guess policy and the
//! [`AnswerStore`]; `learn`, one learning run with the commands' error context; and the
//! outputs both write the same way (`draw_svg`, `write_stats`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

use mergelens::automaton::{Dfa, Marks, svg};
use mergelens::cbmc::cache_store::{AnswerStore, StoreMode};
use mergelens::cbmc::learning::{LearnedRun, LearningError, learn_with_teacher};
use mergelens::cbmc::{Allocations, CbmcTeacher, LIBRARY_UNWIND, TeacherOptions, Toolchain};
use mergelens::cprog::{
    EventKind, FrontEndConfig, FrontEndWarning, InstrumentedProgram, LISTED_WARNINGS, count_by_kind,
};
use mergelens::learn::{GuessPolicy, LearnError};

/// `--query-timeout` unless given, in seconds: the one default of every command.
pub use mergelens::config::DEFAULT_QUERY_TIMEOUT_SECS;

/// Where the persistent answer store lives.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CacheChoice {
    /// `.git/mergelens/cache/` of the repository around the current directory, else
    /// `$XDG_CACHE_HOME/mergelens` or `~/.cache/mergelens`.
    #[default]
    Default,
    Dir(PathBuf),
    Off,
}

/// The program to learn and how CBMC answers about it.
#[derive(Clone, Debug)]
pub struct ProgramArgs {
    pub files: Vec<PathBuf>,
    pub entry: String,
    pub events: EventKind,
    pub only: Option<Vec<String>>,
    pub exclude: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// `--harness`: compiled with the files, its functions no events.
    pub harness: Vec<PathBuf>,
    pub query_timeout: Option<Duration>,
    /// `--memory-limit` in bytes: the address space of each CBMC run.
    pub memory_limit: Option<u64>,
    /// `--time-budget`: stop learning after this long and keep the last conjecture.
    pub time_budget: Option<Duration>,
    /// The cbmc binary (`--cbmc`); else found as [`Toolchain::locate`] does.
    pub cbmc: Option<PathBuf>,
    pub exact_limit: u64,
    /// `--library-unwind`.
    pub library_unwind: u32,
    /// `--allocations`: set on the toolchain, so every CBMC run takes it.
    pub allocations: Allocations,
    /// Lazy learning guessing the likely answer (`--lazy yes`), or none (`--lazy off`).
    pub lazy: bool,
    pub cache: CacheChoice,
    /// The SAT time for the concise automaton; `None` (`--exact`) for none.
    pub concise: Option<Duration>,
    /// The paper's baseline, for benchmarks: one CBMC run per membership query, no
    /// pre-checks, no lazy learning, no store.
    pub baseline: bool,
    /// `--paper-lazy`: lazy learning as the paper describes it (no prefetch, guesses and
    /// conjecture in separate runs, no store), for benchmarks.
    pub paper_lazy: bool,
    /// `--verbose`: every front-end warning, not their count.
    pub verbose: bool,
    /// Concrete runs and PAC equivalence (`super::sampling`).
    pub sampling: super::sampling::SamplingArgs,
}

impl ProgramArgs {
    pub(crate) fn front_end_config(&self) -> FrontEndConfig {
        let mut config = FrontEndConfig::new(self.files.clone());
        config.entry = self.entry.clone();
        config.events = self.events;
        config.only = self.only.as_ref().map(|o| o.iter().cloned().collect());
        config.exclude = self.exclude.iter().cloned().collect();
        config.include_dirs = self.include_dirs.clone();
        config.defines = self.defines.clone();
        // gcc and goto-cc run under the query timeout as CBMC does.
        mergelens::process::set_tool_timeout(self.query_timeout);
        mergelens::process::set_memory_limit(self.memory_limit);
        config.harness = self.harness.clone();
        config
    }

    /// The CBMC installation and the directory its tools run in.
    pub(crate) fn toolchain(&self) -> anyhow::Result<(Toolchain, PathBuf)> {
        let user = mergelens::trust::UserConfig::load()?;
        let (cbmc, _) = mergelens::trust::cbmc_path(self.cbmc.as_deref(), None, &user);
        let mut tools = Toolchain::locate(cbmc.as_deref())?;
        tools.allocations = self.allocations;
        let work_dir = std::env::current_dir().context("cannot read the current directory")?;
        Ok((tools, work_dir))
    }

    pub(crate) fn teacher_options(&self) -> TeacherOptions {
        TeacherOptions {
            query_timeout: self.query_timeout,
            exact_limit: self.exact_limit,
            baseline: self.baseline,
            paper_lazy: self.paper_lazy,
            library_unwind: self.library_unwind,
            ..TeacherOptions::default()
        }
    }

    /// Gives `teacher` the sampling teachers these options ask for
    /// ([`super::sampling::attach`]).
    pub(crate) fn attach_sampling<'p>(
        &self,
        teacher: &mut CbmcTeacher<'p>,
        program: &'p InstrumentedProgram,
    ) {
        let config = self.front_end_config();
        super::sampling::attach(teacher, program, &self.sampling, self.baseline, config);
    }

    /// Whether the learner guesses: the baseline never does.
    pub(crate) fn lazy_learning(&self) -> bool {
        self.lazy && !self.baseline
    }

    /// The guess policy of lazy learning, guessing `likely` (Sec. 6 of the paper).
    pub(crate) fn guess(&self, likely: bool) -> GuessPolicy {
        if self.lazy_learning() {
            GuessPolicy::Constant(likely)
        } else {
            GuessPolicy::Off
        }
    }

    /// The answer store of `program` in `mode`, unless the store is off or the run is the
    /// baseline.
    pub(crate) fn answer_store(
        &self,
        program: &InstrumentedProgram,
        mode: StoreMode,
        tools: &Toolchain,
    ) -> Option<AnswerStore> {
        if self.baseline || self.paper_lazy {
            return None;
        }
        // Another library bound is another language; the default keeps the plain mode.
        let mode = if self.library_unwind == LIBRARY_UNWIND {
            mode.key().to_string()
        } else {
            format!("{};library-unwind={}", mode.key(), self.library_unwind)
        };
        cache_dir(&self.cache).map(|dir| AnswerStore::for_program(&dir, program, &mode, tools))
    }
}

/// ` · allocations assumed to succeed` when `--allocations succeed` left out the executions
/// in which one fails: the summary line must not read as the whole language.
pub(crate) fn allocations_note(allocations: Allocations) -> &'static str {
    match allocations {
        Allocations::MayFail => "",
        Allocations::Succeed => {
            " · allocations assumed to succeed (executions in which one fails left out)"
        }
    }
}

/// Prints the front end's warnings: one by one when there are few or with `--verbose`,
/// else one line counting them by kind (a real library has dozens, the same on every run).
/// A warning about the user's own options (`--only` naming no event) is always printed.
pub(crate) fn print_front_end_warnings(warnings: &[FrontEndWarning], verbose: bool) {
    let (options, program): (Vec<&FrontEndWarning>, Vec<&FrontEndWarning>) =
        warnings.iter().partition(|w| w.kind.about_options());
    for w in options {
        errln!("mergelens: warning: {w}");
    }
    if verbose || program.len() <= LISTED_WARNINGS {
        for w in program {
            errln!("mergelens: warning: {w}");
        }
    } else if let Some(count) = count_by_kind(program) {
        errln!("mergelens: note: {count}; --verbose lists them");
    }
}

/// Gives the teacher the store's answers; returns how many. A store that cannot be read
/// only costs time, so it is a warning.
pub(crate) fn load_answers(store: Option<&AnswerStore>, teacher: &mut CbmcTeacher<'_>) -> usize {
    let Some(store) = store else {
        return 0;
    };
    match store.load() {
        Ok(stored) => {
            let loaded = stored.answers.len();
            teacher.add_known(stored);
            loaded
        }
        Err(e) => {
            errln!("mergelens: warning: {}", mergelens::failure::text(&e));
            0
        }
    }
}

/// Saves the teacher's confirmed answers; returns whether they were written. Called even
/// when learning failed half way: those answers are worth keeping.
pub(crate) fn save_answers(store: Option<&AnswerStore>, teacher: &CbmcTeacher<'_>) -> bool {
    let Some(store) = store else {
        return false;
    };
    match store.save(&teacher.known()) {
        Ok(()) => true,
        Err(e) => {
            errln!("mergelens: warning: {}", mergelens::failure::text(&e));
            false
        }
    }
}

/// One learning run at the teacher's bounds. CBMC's errors name the query and the bounds
/// already; the learner's get `doing` (e.g. "learning `main` at --unwind 2 ...") as context.
pub(crate) fn learn(
    teacher: &mut CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    guess: GuessPolicy,
    doing: impl FnOnce() -> String,
) -> anyhow::Result<LearnedRun> {
    let learned = learn_with_teacher(teacher, program, guess).map_err(|e| match e {
        LearningError::Teacher(e) => anyhow::Error::new(e),
        LearningError::Learn(LearnError::Teacher(other)) => anyhow::Error::from_boxed(other),
        LearningError::Learn(other) => anyhow::Error::new(other).context(doing()),
    })?;
    if let Some(note) = teacher.precheck_note() {
        errln!("mergelens: warning: {note}");
    }
    Ok(learned)
}

/// The `--format svg` output; an automaton too large to draw is an error that names the
/// other formats.
pub(crate) fn draw_svg(dfa: &Dfa, marks: &Marks) -> anyhow::Result<String> {
    svg::to_svg(dfa, marks).ok_or_else(|| {
        anyhow::anyhow!(
            "the automaton has {} states, too many to draw as SVG; use --format dot or json",
            dfa.num_states()
        )
    })
}

/// Writes the `--stats` document, pretty-printed.
pub(crate) fn write_stats(path: &Path, doc: &impl Serialize) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(doc).expect("statistics serialise");
    text.push('\n');
    std::fs::write(path, text)
        .with_context(|| format!("cannot write the statistics to {}", path.display()))
}

/// The store directory, if any: none without a cache key (with one note), since no entry
/// could be checked.
fn cache_dir(choice: &CacheChoice) -> Option<PathBuf> {
    if matches!(choice, CacheChoice::Off)
        || !mergelens::cache_mac::key_ready(|note| errln!("mergelens: warning: {note}"))
    {
        return None;
    }
    match choice {
        CacheChoice::Off => None,
        CacheChoice::Dir(dir) => Some(dir.clone()),
        CacheChoice::Default => {
            let cwd = std::env::current_dir().ok()?;
            // The common directory, so that all worktrees of a repository share the store.
            if let Ok(repo) = git2::Repository::discover(&cwd) {
                return Some(repo.commondir().join("mergelens").join("cache"));
            }
            let var = |name: &str| {
                std::env::var_os(name)
                    .filter(|v| !v.is_empty())
                    .map(PathBuf::from)
            };
            var("XDG_CACHE_HOME")
                .map(|d| d.join("mergelens"))
                .or_else(|| var("HOME").map(|h| h.join(".cache").join("mergelens")))
        }
    }
}

/// Says when CBMC needed more object bits than its default, which the run raised by itself.
pub(crate) fn object_bits_note(bits: Option<u32>) {
    if let Some(bits) = bits {
        errln!(
            "mergelens: note: the program has more addressed objects than CBMC's default of 256; its runs used --object-bits {bits}"
        );
    }
}
