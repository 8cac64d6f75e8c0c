//! The options `learn` and `explain` share (the program, its front end, CBMC, lazy learning,
//! the sampling teachers and the answer store) and the setup both derive from them.
//!
//! Key items: [`ProgramOptions`] with [`CacheChoice`] and [`SamplingOptions`]; from them the
//! front end's [`FrontEndConfig`], the toolchain, the teacher's [`TeacherOptions`], the
//! guess policy and the [`AnswerStore`]; [`ProgramOptions::learn`], one learning run with
//! its error context.

use std::path::PathBuf;
use std::time::Duration;

use super::error::LanguageError;
use super::watch::{Notice, Watcher};
use crate::automaton::Dfa;
use crate::cbmc::cache_store::{AnswerStore, StoreMode};
use crate::cbmc::concrete::{self, ConcreteError, ConcreteProgram};
use crate::cbmc::learning::{LearnedRun, LearningError, learn_with_teacher};
use crate::cbmc::{
    Allocations, CbmcTeacher, LIBRARY_UNWIND, Pac, PacResult, TeacherOptions, Toolchain,
};
use crate::cprog::{self, AssertionTarget, EventKind, FrontEndConfig, InstrumentedProgram};
use crate::learn::{GuessPolicy, LearnError};

/// `--query-timeout` unless given, in seconds: the one default of every command.
pub use crate::config::DEFAULT_QUERY_TIMEOUT_SECS;

/// `--concrete-runs` unless given: none. They save CBMC runs on programs whose learning
/// needs conjecture rounds (benches/concrete.md: 113 to 69 on ten cases), not wall time
/// (building and running the program costs what the runs save), and on the paper's
/// `schedule` their counterexample led to a longer path (24 to 33 runs): opt in.
pub const DEFAULT_CONCRETE_RUNS: u64 = 0;

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

/// Concrete runs as a second teacher ([`crate::cbmc::concrete`]) and PAC equivalence
/// ([`Pac`]): `--concrete-runs`, `--mode pac --epsilon E --delta D`.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplingOptions {
    pub concrete_runs: u64,
    pub pac: Option<Pac>,
}

impl Default for SamplingOptions {
    fn default() -> SamplingOptions {
        SamplingOptions {
            concrete_runs: DEFAULT_CONCRETE_RUNS,
            pac: None,
        }
    }
}

/// The program to learn and how CBMC answers about it.
#[derive(Clone, Debug)]
pub struct ProgramOptions {
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
    /// `--verbose`: the caller shows every front-end warning, not their count.
    pub verbose: bool,
    pub sampling: SamplingOptions,
}

impl ProgramOptions {
    pub fn front_end_config(&self) -> FrontEndConfig {
        let mut config = FrontEndConfig::new(self.files.clone());
        config.entry = self.entry.clone();
        config.events = self.events;
        config.only = self.only.as_ref().map(|o| o.iter().cloned().collect());
        config.exclude = self.exclude.iter().cloned().collect();
        config.include_dirs = self.include_dirs.clone();
        config.defines = self.defines.clone();
        // gcc and goto-cc run under the query timeout as CBMC does.
        crate::process::set_tool_timeout(self.query_timeout);
        crate::process::set_memory_limit(self.memory_limit);
        config.harness = self.harness.clone();
        config
    }

    /// The CBMC installation and the directory its tools run in.
    pub fn toolchain(&self) -> Result<(Toolchain, PathBuf), LanguageError> {
        let user = crate::trust::UserConfig::load()?;
        let (cbmc, _) = crate::trust::cbmc_path(self.cbmc.as_deref(), None, &user);
        let mut tools = Toolchain::locate(cbmc.as_deref())?;
        tools.allocations = self.allocations;
        let work_dir = std::env::current_dir().map_err(LanguageError::CurrentDir)?;
        Ok((tools, work_dir))
    }

    pub fn teacher_options(&self) -> TeacherOptions {
        TeacherOptions {
            query_timeout: self.query_timeout,
            exact_limit: self.exact_limit,
            baseline: self.baseline,
            paper_lazy: self.paper_lazy,
            library_unwind: self.library_unwind,
            ..TeacherOptions::default()
        }
    }

    /// Gives `teacher` the mode and, unless the run is the baseline or asks for none, the
    /// concrete runs of `program` (instrumented again with shared inputs, as the concrete
    /// runtime reads them). They are built when first needed; a program gcc cannot build
    /// that way learns without, and the reason goes to the statistics
    /// (`teacher.concrete_note`), not to the user's screen, since it changes nothing but the
    /// time.
    pub fn attach_sampling<'p>(
        &self,
        teacher: &mut CbmcTeacher<'p>,
        program: &'p InstrumentedProgram,
    ) {
        if let Some(pac) = self.sampling.pac {
            teacher.set_pac(pac);
        }
        if self.sampling.concrete_runs == 0 || self.baseline {
            return;
        }
        let mut config = self.front_end_config();
        config.share_inputs = true;
        teacher.set_concrete(
            Box::new(move || build_concrete(program, &config)),
            self.sampling.concrete_runs,
        );
    }

    /// Whether the learner guesses: the baseline never does.
    pub fn lazy_learning(&self) -> bool {
        self.lazy && !self.baseline
    }

    /// The guess policy of lazy learning, guessing `likely` (Sec. 6 of the paper).
    pub fn guess(&self, likely: bool) -> GuessPolicy {
        if self.lazy_learning() {
            GuessPolicy::Constant(likely)
        } else {
            GuessPolicy::Off
        }
    }

    /// The answer store of `program` in `mode`, unless the store is off or the run is the
    /// baseline.
    pub fn answer_store(
        &self,
        program: &InstrumentedProgram,
        mode: StoreMode,
        tools: &Toolchain,
        watcher: &dyn Watcher,
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
        cache_dir(&self.cache, watcher)
            .map(|dir| AnswerStore::for_program(&dir, program, &mode, tools))
    }

    /// One learning run at the teacher's bounds. CBMC's errors name the query and the
    /// bounds already; the learner's get `doing` (e.g. "learning `main` at --unwind 2 ...").
    pub fn learn(
        &self,
        teacher: &mut CbmcTeacher<'_>,
        program: &InstrumentedProgram,
        likely: bool,
        doing: impl FnOnce() -> String,
        watcher: &dyn Watcher,
    ) -> Result<LearnedRun, LanguageError> {
        let learned =
            learn_with_teacher(teacher, program, self.guess(likely)).map_err(|e| match e {
                LearningError::Teacher(e) => LanguageError::Teacher(e),
                LearningError::Learn(LearnError::Teacher(other)) => {
                    LanguageError::OtherTeacher(other)
                }
                LearningError::Learn(source) => LanguageError::Learn {
                    doing: doing(),
                    source,
                },
            })?;
        if let Some(note) = teacher.precheck_note() {
            watcher.notice(Notice::Warning(note.to_string()));
        }
        Ok(learned)
    }
}

/// Gives the teacher the store's answers; returns how many. A store that cannot be read
/// only costs time, so it is a warning.
pub fn load_answers(
    store: Option<&AnswerStore>,
    teacher: &mut CbmcTeacher<'_>,
    watcher: &dyn Watcher,
) -> usize {
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
            watcher.notice(Notice::Warning(crate::failure::text(&e)));
            0
        }
    }
}

/// Saves the teacher's confirmed answers; returns whether they were written. Called even
/// when learning failed half way: those answers are worth keeping.
pub fn save_answers(
    store: Option<&AnswerStore>,
    teacher: &CbmcTeacher<'_>,
    watcher: &dyn Watcher,
) -> bool {
    let Some(store) = store else {
        return false;
    };
    match store.save(&teacher.known()) {
        Ok(()) => true,
        Err(e) => {
            watcher.notice(Notice::Warning(crate::failure::text(&e)));
            false
        }
    }
}

/// Says when CBMC needed more object bits than its default, which the run raised by itself.
pub fn object_bits_notice(bits: Option<u32>, watcher: &dyn Watcher) {
    if let Some(bits) = bits {
        watcher.notice(Notice::Note(format!(
            "the program has more addressed objects than CBMC's default of 256; its runs used --object-bits {bits}"
        )));
    }
}

/// The guarantee of a finished PAC run and the length up to which known answers back
/// `dfa` (what its `exact_up_to` may claim); `None` for an exact or a stopped run.
pub fn pac_of(teacher: &CbmcTeacher<'_>, dfa: &Dfa, finished: bool) -> Option<(PacResult, usize)> {
    let result = teacher.pac_result().filter(|_| finished)?.clone();
    Some((result, teacher.agrees_up_to(dfa)))
}

/// The program compiled for concrete runs, or why it cannot be.
fn build_concrete(
    program: &InstrumentedProgram,
    config: &FrontEndConfig,
) -> Result<ConcreteProgram, ConcreteError> {
    let dir = concrete::scratch_dir()?;
    let concrete = match error_target(program) {
        Some(target) => cprog::instrument_error(config, &target, dir.path()),
        None => cprog::instrument(config, dir.path()),
    }?;
    ConcreteProgram::build(program, &concrete)
}

/// In error mode, the assertion `program` explains, as the front end was given it: the
/// target's line, and its place among the line's assertions when others share the line.
fn error_target(program: &InstrumentedProgram) -> Option<AssertionTarget> {
    let target = program.assertions.iter().find(|a| a.target)?;
    let same_line: Vec<_> = program
        .assertions
        .iter()
        .filter(|a| a.file == target.file && a.line == target.line)
        .collect();
    let index = if same_line.iter().all(|a| a.target) {
        None
    } else {
        same_line.iter().position(|a| a.target)
    };
    Some(AssertionTarget {
        file: target.file.clone(),
        line: target.line,
        index,
    })
}

/// The store directory, if any: none without a cache key (with one warning), since no
/// entry could be checked.
fn cache_dir(choice: &CacheChoice, watcher: &dyn Watcher) -> Option<PathBuf> {
    if matches!(choice, CacheChoice::Off)
        || !crate::cache_mac::key_ready(|note| watcher.notice(Notice::Warning(note)))
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
