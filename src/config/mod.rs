//! The configuration of `mergelens review`, `diff` and the hook: `.mergelens.toml` at the
//! repository root, overridden key by key by the command line.
//!
//! Key types:
//!
//! * [`FileConfig`]: the file as written (kebab-case keys; an unknown key is an error that
//!   names it). `docs/formats.md` lists every key.
//! * [`Settings`]: what a review uses, from [`FileConfig`] and the flags ([`Overrides`]),
//!   with the defaults of `mergelens learn`; [`SourceSpec`] selects each version's C files.
//! * [`CompileCommands`]: files, include directories and defines from a
//!   `compile_commands.json` (as CMake and Bear write it).
//! * [`FailOn`] (one name or a list of [`FailOnName`]s) and [`OnError`]: when the hook
//!   blocks a merge.
//! * [`ConfigError`].
//!
//! Sources are selected per version (a branch may add a file), as Sec. 5 of Chockler,
//! Kesseli, Kroening and Strichman, *Learning the Language of Software Errors* (JAIR 2020)
//! compares whole program versions (Fig. 12-14).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::bounds::{DEFAULT_MAX_UNWIND, DEFAULT_MAX_WORD_LENGTH, DEFAULT_UNWIND};
use crate::cbmc::Allocations;
use crate::cprog::EventKind;
use crate::process::MemorySize;

mod compile_commands;
mod error;
mod fail_on;

pub use compile_commands::CompileCommands;
pub use error::ConfigError;
pub use fail_on::{FailOn, FailOnName};

/// The configuration file's name, at the repository root.
pub const FILE_NAME: &str = ".mergelens.toml";

/// `hook-time-budget` unless configured, in seconds: `git merge` waits this long at most.
pub const DEFAULT_HOOK_TIME_BUDGET_SECS: f64 = 60.0;

/// `--query-timeout` unless configured, in seconds.
pub const DEFAULT_QUERY_TIMEOUT_SECS: f64 = 300.0;

/// What the hook does when mergelens itself fails (CBMC missing, a timeout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OnError {
    /// Let the merge through with a warning.
    #[default]
    Allow,
    Block,
}

/// `.mergelens.toml` as written.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileConfig {
    /// Source files or globs, relative to the repository root (`src/*.c`, `lib/**/*.c`).
    pub files: Option<Vec<String>>,
    pub include_dirs: Option<Vec<String>>,
    pub defines: Option<Vec<String>>,
    /// A `compile_commands.json`, relative to the repository root.
    pub compile_commands: Option<String>,
    /// Harness files, repository-relative, read from the committed `HEAD` of the work tree
    /// (not from each version) and compiled with every version; never sources themselves.
    pub harness: Option<Vec<String>>,
    /// The functions to analyse.
    pub entries: Option<Vec<String>>,
    /// Which changed functions a review also analyses at their own entries.
    pub changed_functions: Option<ChangedFunctions>,
    pub events: Option<String>,
    pub only: Option<Vec<String>>,
    pub exclude: Option<Vec<String>>,
    pub unwind: Option<u32>,
    pub max_word_length: Option<usize>,
    pub auto_bounds: Option<bool>,
    pub max_unwind: Option<u32>,
    pub cbmc: Option<String>,
    /// Seconds; 0 for no limit.
    pub query_timeout: Option<f64>,
    /// `4GiB`, `512MiB`, or a number of MiB; 0 for no limit.
    pub memory_limit: Option<MemoryText>,
    /// Seconds the merge hook may review before the verdict is `unfinished`; 0: no limit.
    pub hook_time_budget: Option<f64>,
    pub exact_limit: Option<u64>,
    /// `may-fail` or `succeed` (`--allocations`).
    pub allocations: Option<String>,
    pub fail_on: Option<FailOn>,
    pub on_error: Option<OnError>,
    pub jobs: Option<usize>,
}

/// Which functions a merge changed a review analyses at their own entries, each through a
/// generated harness (`changed-functions`, `--changed-functions`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangedFunctions {
    /// Those with a changed hunk that no configured entry's executions reach.
    #[default]
    Unreached,
    /// Every changed function, reached or not.
    All,
    /// None: only the configured entries.
    None,
}

impl ChangedFunctions {
    /// The name as written in the file and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangedFunctions::Unreached => "unreached",
            ChangedFunctions::All => "all",
            ChangedFunctions::None => "none",
        }
    }
}

/// `memory-limit` as written: a string with a unit or a number of MiB.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum MemoryText {
    Text(String),
    Mib(u64),
}

impl FileConfig {
    pub fn parse(text: &str, path: &Path) -> Result<FileConfig, ConfigError> {
        let file: FileConfig =
            toml::from_str(text).map_err(|e| ConfigError::toml(path, text, &e))?;
        if file.cbmc.is_some() {
            let line = text
                .lines()
                .position(|l| {
                    let l = l.trim_start().trim_start_matches(['"', '\'']);
                    l.strip_prefix("cbmc").is_some_and(|r| {
                        r.trim_start_matches(['"', '\''])
                            .trim_start()
                            .starts_with('=')
                    })
                })
                .map_or(1, |i| i + 1);
            return Err(ConfigError::ToolInRepository {
                path: path.to_path_buf(),
                line,
                key: "cbmc",
            });
        }
        Ok(file)
    }

    /// Refuses every path of this (repository) file that is absolute or has a `..`: after
    /// the checkout's links such a path can lead anywhere. `origin` names the file.
    pub fn check_paths(&self, origin: &str) -> Result<(), ConfigError> {
        let mut all: Vec<(&'static str, &str)> = Vec::new();
        for f in self.files.iter().flatten() {
            all.push(("files", f));
        }
        for d in self.include_dirs.iter().flatten() {
            all.push(("include-dirs", d));
        }
        if let Some(c) = &self.compile_commands {
            all.push(("compile-commands", c));
        }
        for h in self.harness.iter().flatten() {
            all.push(("harness", h));
        }
        for (key, value) in all {
            crate::git::paths::repo_relative(value).map_err(|why| ConfigError::Outside {
                origin: origin.to_string(),
                key,
                value: value.to_string(),
                why,
            })?;
        }
        Ok(())
    }

    /// `.mergelens.toml` in `root`, or the defaults when there is none.
    pub fn load(root: &Path) -> Result<FileConfig, ConfigError> {
        let path = root.join(FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => FileConfig::parse(&text, &path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileConfig::default()),
            Err(source) => Err(ConfigError::Read { path, source }),
        }
    }
}

/// The flags of `review` and `diff`; each one given wins over the file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// `--config FILE`: a trusted configuration file used instead of the repository's
    /// `.mergelens.toml` (absolute, read where the user is).
    pub config: Option<PathBuf>,
    pub files: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    pub compile_commands: Option<PathBuf>,
    /// `--harness`: absolute paths of files from outside the history.
    pub harness: Vec<PathBuf>,
    pub entries: Vec<String>,
    pub changed_functions: Option<ChangedFunctions>,
    pub events: Option<EventKind>,
    pub only: Option<Vec<String>>,
    pub exclude: Vec<String>,
    pub unwind: Option<u32>,
    pub max_word_length: Option<usize>,
    pub auto_bounds: bool,
    pub max_unwind: Option<u32>,
    pub cbmc: Option<PathBuf>,
    pub query_timeout: Option<f64>,
    pub memory_limit: Option<MemorySize>,
    pub exact_limit: Option<u64>,
    pub allocations: Option<Allocations>,
    pub fail_on: Option<FailOn>,
    /// `--also-fail-on`: names added to the `fail-on` that governs (the owner's, or
    /// `--fail-on`), so that a CI job can fail on `unfinished` and keep the owner's policy.
    pub also_fail_on: Option<FailOn>,
    pub on_error: Option<OnError>,
    pub jobs: Option<usize>,
}

/// Which files of a version are the program, and how they build.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceSpec {
    /// Globs or paths, repository-relative; empty: every `*.c` file.
    pub files: Vec<String>,
    /// Repository-relative (looked up in each version's checkout) or absolute.
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// Repository-relative paths that are never sources, whatever `files` says: the
    /// repository's harness files, which come from `HEAD`, not from each version.
    pub not_sources: Vec<String>,
}

impl SourceSpec {
    /// The paths of `paths` (a version's files) that are sources, sorted.
    pub fn select<'a>(
        &self,
        paths: impl Iterator<Item = &'a str>,
    ) -> Result<Vec<String>, ConfigError> {
        let patterns = self
            .files
            .iter()
            .map(|f| {
                glob::Pattern::new(f.trim_start_matches("./")).map_err(|e| ConfigError::Invalid {
                    key: "files",
                    message: format!("`{f}` is not a valid glob: {e}"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let options = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        let mut selected: Vec<String> = paths
            .filter(|p| {
                !self
                    .not_sources
                    .iter()
                    .any(|n| n.trim_start_matches("./") == *p)
            })
            .filter(|p| {
                if patterns.is_empty() {
                    p.ends_with(".c")
                } else {
                    patterns.iter().any(|g| g.matches_with(p, options))
                }
            })
            .map(str::to_string)
            .collect();
        selected.sort();
        Ok(selected)
    }
}

/// How automata are bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsSetting {
    Fixed {
        unwind: u32,
        max_word_length: usize,
    },
    Auto {
        max_unwind: u32,
        max_word_length: usize,
    },
}

impl BoundsSetting {
    pub fn max_word_length(self) -> usize {
        match self {
            BoundsSetting::Fixed {
                max_word_length, ..
            }
            | BoundsSetting::Auto {
                max_word_length, ..
            } => max_word_length,
        }
    }
}

/// Everything a review uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub sources: SourceSpec,
    /// Harness files the user named (absolute), compiled with every version; their
    /// functions are no events.
    pub harness: Vec<PathBuf>,
    pub entries: Vec<String>,
    /// Whether `entries` is the default (`main`), named neither in the file nor by a flag:
    /// a library without `main` is then reviewed at its changed functions alone.
    pub default_entries: bool,
    /// Which changed functions are also analysed at their own entries.
    pub changed_functions: ChangedFunctions,
    pub events: EventKind,
    pub only: Option<Vec<String>>,
    pub exclude: Vec<String>,
    pub bounds: BoundsSetting,
    pub cbmc: Option<PathBuf>,
    pub query_timeout: Option<Duration>,
    /// The address space of each CBMC run, in bytes ([`crate::process::set_memory_limit`]).
    pub memory_limit: Option<u64>,
    /// How long the merge hook reviews before it stops with what it has.
    pub hook_time_budget: Option<Duration>,
    pub exact_limit: u64,
    /// Whether allocations may fail in the executions learned (`--allocations`).
    pub allocations: Allocations,
    pub fail_on: FailOn,
    pub on_error: OnError,
    /// Versions learned at once (rayon threads).
    pub jobs: usize,
    /// Warnings about the configuration (files of a compilation database outside the
    /// repository, say).
    pub warnings: Vec<String>,
    /// Set when no owner's `.mergelens.toml` was read: what the review used instead, said
    /// on the terminal and among the document's notes.
    pub unconfigured: Option<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            sources: SourceSpec::default(),
            harness: Vec::new(),
            entries: vec!["main".to_string()],
            default_entries: true,
            changed_functions: ChangedFunctions::default(),
            events: EventKind::default(),
            only: None,
            exclude: Vec::new(),
            bounds: BoundsSetting::Fixed {
                unwind: DEFAULT_UNWIND,
                max_word_length: DEFAULT_MAX_WORD_LENGTH,
            },
            cbmc: None,
            query_timeout: Some(Duration::from_secs_f64(DEFAULT_QUERY_TIMEOUT_SECS)),
            memory_limit: Some(crate::process::DEFAULT_MEMORY_LIMIT),
            hook_time_budget: Some(Duration::from_secs_f64(DEFAULT_HOOK_TIME_BUDGET_SECS)),
            exact_limit: crate::cbmc::DEFAULT_EXACT_LIMIT,
            allocations: Allocations::default(),
            fail_on: FailOn::default(),
            on_error: OnError::default(),
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            warnings: Vec::new(),
            unconfigured: None,
        }
    }
}

impl Settings {
    /// The file's settings under the flags'. `root` is the repository's work tree, where a
    /// compilation database is read and against which its absolute paths are made relative.
    pub fn resolve(
        file: &FileConfig,
        flags: &Overrides,
        root: &Path,
    ) -> Result<Settings, ConfigError> {
        let work_tree = |rel: &str| -> Result<Option<String>, ConfigError> {
            let path = root.join(rel);
            // The file must really be inside the work tree, links followed.
            let real = path.canonicalize().map_err(|source| ConfigError::Read {
                path: path.clone(),
                source,
            })?;
            let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
            if !real.starts_with(&real_root) {
                return Err(ConfigError::Outside {
                    origin: FILE_NAME.to_string(),
                    key: "compile-commands",
                    value: rel.to_string(),
                    why: "it leads out of the repository through a symbolic link",
                });
            }
            std::fs::read_to_string(&real)
                .map(Some)
                .map_err(|source| ConfigError::Read { path, source })
        };
        Settings::resolve_with(file, flags, root, FILE_NAME, &work_tree)
    }

    /// [`Settings::resolve`] for a repository file named `origin` in messages, whose paths
    /// must stay inside the repository, and whose compilation database `read_repo_file`
    /// reads (from the owner's commit, in a review). `root` is the repository's work tree,
    /// which the database's absolute paths point into.
    pub fn resolve_with(
        file: &FileConfig,
        flags: &Overrides,
        root: &Path,
        origin: &str,
        read_repo_file: &dyn Fn(&str) -> Result<Option<String>, ConfigError>,
    ) -> Result<Settings, ConfigError> {
        file.check_paths(origin)?;
        let mut s = Settings::default();
        s.read_compile_commands(file, flags, root, origin, read_repo_file)?;
        s.set_sources(file, flags)?;
        s.bounds = bounds_of(file, flags)?;
        // Never from the file: see `docs/trust.md`.
        s.cbmc = flags.cbmc.clone();
        s.query_timeout = query_timeout_of(file, flags)?;
        s.memory_limit = match (flags.memory_limit, &file.memory_limit) {
            (Some(size), _) => size.0,
            // A plain number is MiB, as the flag's plain number is: one reading of both.
            (None, Some(written)) => {
                let text = match written {
                    MemoryText::Text(text) => text.clone(),
                    MemoryText::Mib(mib) => mib.to_string(),
                };
                text.parse::<MemorySize>()
                    .map_err(|e| ConfigError::Invalid {
                        key: "memory-limit",
                        message: e.to_string(),
                    })?
                    .0
            }
            (None, None) => s.memory_limit,
        };
        if let Some(secs) = file.hook_time_budget {
            s.hook_time_budget = (secs > 0.0)
                .then(|| Duration::try_from_secs_f64(secs))
                .transpose()
                .map_err(|_| ConfigError::Invalid {
                    key: "hook-time-budget",
                    message: format!("{secs} is not a number of seconds; use 0 for no limit"),
                })?;
        }
        if let Some(limit) = flags.exact_limit.or(file.exact_limit) {
            s.exact_limit = limit;
        }
        if let Some(text) = &file.allocations {
            s.allocations = Allocations::from_name(text).ok_or_else(|| ConfigError::Invalid {
                key: "allocations",
                message: format!("{text:?} is neither \"may-fail\" nor \"succeed\""),
            })?;
        }
        if let Some(allocations) = flags.allocations {
            s.allocations = allocations;
        }
        s.fail_on = flags.fail_on.or(file.fail_on).unwrap_or_default();
        if let Some(also) = flags.also_fail_on {
            s.fail_on = s.fail_on.with(also);
        }
        s.on_error = flags.on_error.or(file.on_error).unwrap_or_default();
        if let Some(jobs) = flags.jobs.or(file.jobs) {
            s.jobs = jobs.max(1);
        }
        s.harness.clone_from(&flags.harness);
        // The repository's harness files come from HEAD (see `crate::trust::attach_harness`),
        // so a version's copy of one is no source of that version.
        s.sources.not_sources = file.harness.clone().unwrap_or_default();
        Ok(s)
    }

    /// The sources of a compilation database, `--compile-commands` before the file's.
    fn read_compile_commands(
        &mut self,
        file: &FileConfig,
        flags: &Overrides,
        root: &Path,
        origin: &str,
        read_repo_file: &dyn Fn(&str) -> Result<Option<String>, ConfigError>,
    ) -> Result<(), ConfigError> {
        let db = if let Some(path) = &flags.compile_commands {
            let path = if path.is_absolute() {
                path.clone()
            } else {
                root.join(path)
            };
            CompileCommands::read(&path, root)?
        } else if let Some(rel) = &file.compile_commands {
            let where_ = format!("{rel} (named by {origin})");
            let text = read_repo_file(rel)?.ok_or_else(|| ConfigError::Invalid {
                key: "compile-commands",
                message: format!(
                    "{where_} does not exist where the configuration is read from (a review reads the files committed on ours); pass --compile-commands FILE to use another"
                ),
            })?;
            CompileCommands::parse(&text, Path::new(&where_), root, false)?
        } else {
            return Ok(());
        };
        self.sources.files = db.files;
        self.sources.include_dirs = db.include_dirs;
        self.sources.defines = db.defines;
        self.warnings.extend(db.warnings);
        Ok(())
    }

    /// Files, include directories, defines, entries and events: a flag replaces (files,
    /// entries, events) or extends (directories, defines, exclusions) the file's value.
    fn set_sources(&mut self, file: &FileConfig, flags: &Overrides) -> Result<(), ConfigError> {
        if let Some(files) = &file.files {
            self.sources.files.clone_from(files);
        }
        if !flags.files.is_empty() {
            self.sources.files.clone_from(&flags.files);
        }
        if let Some(dirs) = &file.include_dirs {
            self.sources
                .include_dirs
                .extend(dirs.iter().map(PathBuf::from));
        }
        self.sources
            .include_dirs
            .extend(flags.include_dirs.iter().cloned());
        if let Some(defines) = &file.defines {
            self.sources.defines.extend(defines.iter().cloned());
        }
        self.sources.defines.extend(flags.defines.iter().cloned());
        if let Some(entries) = &file.entries {
            self.entries.clone_from(entries);
            self.default_entries = false;
        }
        if !flags.entries.is_empty() {
            self.entries.clone_from(&flags.entries);
            self.default_entries = false;
        }
        self.changed_functions = flags
            .changed_functions
            .or(file.changed_functions)
            .unwrap_or_default();
        // No entry at all is a review of the changed functions alone, which needs them.
        if self.entries.is_empty() && self.changed_functions == ChangedFunctions::None {
            return Err(ConfigError::Invalid {
                key: "entries",
                message: "name at least one function, or review the changed functions (changed-functions = \"unreached\" or \"all\")".into(),
            });
        }
        if let Some(events) = &file.events {
            self.events = events
                .parse()
                .map_err(|e: crate::cprog::UnknownEventKind| ConfigError::Invalid {
                    key: "events",
                    message: e.to_string(),
                })?;
        }
        if let Some(events) = flags.events {
            self.events = events;
        }
        self.only = flags.only.clone().or_else(|| file.only.clone());
        self.exclude = file.exclude.clone().unwrap_or_default();
        self.exclude.extend(flags.exclude.iter().cloned());
        Ok(())
    }
}

/// The bounds, flags before the file before the defaults.
fn bounds_of(file: &FileConfig, flags: &Overrides) -> Result<BoundsSetting, ConfigError> {
    let max_word_length = flags
        .max_word_length
        .or(file.max_word_length)
        .unwrap_or(DEFAULT_MAX_WORD_LENGTH);
    if max_word_length == 0 {
        return Err(ConfigError::Invalid {
            key: "max-word-length",
            message: "must be at least 1 (the letter `end`)".into(),
        });
    }
    Ok(if flags.auto_bounds || file.auto_bounds.unwrap_or(false) {
        BoundsSetting::Auto {
            max_unwind: flags
                .max_unwind
                .or(file.max_unwind)
                .unwrap_or(DEFAULT_MAX_UNWIND),
            max_word_length,
        }
    } else {
        BoundsSetting::Fixed {
            unwind: flags.unwind.or(file.unwind).unwrap_or(DEFAULT_UNWIND),
            max_word_length,
        }
    })
}

/// The query timeout; `None` for 0 (no limit).
fn query_timeout_of(file: &FileConfig, flags: &Overrides) -> Result<Option<Duration>, ConfigError> {
    let timeout = flags
        .query_timeout
        .or(file.query_timeout)
        .unwrap_or(DEFAULT_QUERY_TIMEOUT_SECS);
    if !timeout.is_finite() || timeout < 0.0 {
        return Err(ConfigError::Invalid {
            key: "query-timeout",
            message: format!("{timeout} is not a number of seconds"),
        });
    }
    if timeout == 0.0 {
        return Ok(None);
    }
    // `1e308` is finite but no Duration: refused, not a panic (found by fuzzing).
    Duration::try_from_secs_f64(timeout)
        .map(Some)
        .map_err(|_| ConfigError::Invalid {
            key: "query-timeout",
            message: format!("{timeout} seconds is too long; use 0 for no limit"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_functions_comes_from_the_file_or_the_flag_and_no_entry_needs_them() {
        let settings = |text: &str, flag: Option<ChangedFunctions>| {
            let file = FileConfig::parse(text, Path::new(".mergelens.toml")).unwrap();
            let flags = Overrides {
                changed_functions: flag,
                ..Overrides::default()
            };
            Settings::resolve_with(&file, &flags, Path::new("/r"), FILE_NAME, &|_| Ok(None))
        };
        let s = settings("", None).unwrap();
        assert_eq!(s.changed_functions, ChangedFunctions::Unreached);
        assert!(s.default_entries);
        let s = settings("entries = []\nchanged-functions = \"all\"\n", None).unwrap();
        assert_eq!(s.changed_functions, ChangedFunctions::All);
        assert!(s.entries.is_empty() && !s.default_entries);
        let s = settings(
            "changed-functions = \"all\"\n",
            Some(ChangedFunctions::None),
        )
        .unwrap();
        assert_eq!(s.changed_functions, ChangedFunctions::None);
        let e = settings("entries = []\nchanged-functions = \"none\"\n", None).unwrap_err();
        assert!(e.to_string().contains("name at least one function"), "{e}");
    }

    #[test]
    fn unknown_keys_are_errors_that_name_the_key() {
        let err = FileConfig::parse(
            "entries = [\"main\"]\nfial-on = \"any\"\n",
            Path::new(".mergelens.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("fial-on"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn allocations_come_from_the_file_unless_a_flag_says_otherwise() {
        let parse = |text: &str| FileConfig::parse(text, Path::new("x")).unwrap();
        let resolve = |file: &FileConfig, flags: &Overrides| {
            Settings::resolve(file, flags, Path::new("/r")).map(|s| s.allocations)
        };
        let plain = parse("entries = [\"main\"]\n");
        let succeed = parse("allocations = \"succeed\"\n");
        let none = Overrides::default();
        assert_eq!(resolve(&plain, &none).unwrap(), Allocations::MayFail);
        assert_eq!(resolve(&succeed, &none).unwrap(), Allocations::Succeed);
        let flags = Overrides {
            allocations: Some(Allocations::MayFail),
            ..Overrides::default()
        };
        assert_eq!(resolve(&succeed, &flags).unwrap(), Allocations::MayFail);
        let err = resolve(&parse("allocations = \"never\"\n"), &none)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("allocations") && err.contains("\"never\""),
            "{err}"
        );
    }

    #[test]
    fn flags_override_the_file() {
        let file = FileConfig::parse(
            "files = [\"src/*.c\"]\nentries = [\"run\"]\nunwind = 3\nfail-on = \"any\"\non-error = \"block\"\nquery-timeout = 0\nevents = \"calls\"\n",
            Path::new("x"),
        )
        .unwrap();
        let s = Settings::resolve(&file, &Overrides::default(), Path::new("/r")).unwrap();
        assert_eq!(s.sources.files, ["src/*.c"]);
        assert_eq!(s.entries, ["run"]);
        assert_eq!(
            s.bounds,
            BoundsSetting::Fixed {
                unwind: 3,
                max_word_length: DEFAULT_MAX_WORD_LENGTH
            }
        );
        assert_eq!(
            (s.fail_on, s.on_error),
            (FailOn::one(FailOnName::Any), OnError::Block)
        );
        assert_eq!(s.query_timeout, None);
        assert_eq!(s.events, EventKind::Calls);
        let flags = Overrides {
            entries: vec!["main".into()],
            unwind: Some(1),
            fail_on: Some(FailOn::NEVER),
            ..Overrides::default()
        };
        let s = Settings::resolve(&file, &flags, Path::new("/r")).unwrap();
        assert_eq!(s.entries, ["main"]);
        assert_eq!(
            s.bounds,
            BoundsSetting::Fixed {
                unwind: 1,
                max_word_length: DEFAULT_MAX_WORD_LENGTH
            }
        );
        assert_eq!(s.fail_on, FailOn::NEVER);
        let listed = FileConfig::parse(
            "fail-on = [\"unexpected\", \"unfinished\"]\n",
            Path::new("x"),
        )
        .unwrap();
        let s = Settings::resolve(&listed, &Overrides::default(), Path::new("/r")).unwrap();
        assert!(s.fail_on.fails_unfinished() && s.fail_on.fails(true, false, false));
        // `--also-fail-on` adds to the file's policy instead of replacing it.
        let owner = FileConfig::parse("fail-on = \"overlapping\"\n", Path::new("x")).unwrap();
        let ci = Overrides {
            also_fail_on: Some(FailOn::one(FailOnName::Unfinished)),
            ..Overrides::default()
        };
        let s = Settings::resolve(&owner, &ci, Path::new("/r")).unwrap();
        assert!(s.fail_on.fails(false, false, true) && s.fail_on.fails_unfinished());
        assert_eq!(s.fail_on.name(), "[\"overlapping\", \"unfinished\"]");
        let bad = FileConfig::parse("events = \"lines\"\n", Path::new("x")).unwrap();
        assert!(Settings::resolve(&bad, &Overrides::default(), Path::new("/r")).is_err());
    }

    #[test]
    fn globs_select_files_per_version() {
        let paths = ["README.md", "main.c", "src/a.c", "src/deep/b.c", "src/a.h"];
        let all = SourceSpec::default();
        assert_eq!(
            all.select(paths.into_iter()).unwrap(),
            ["main.c", "src/a.c", "src/deep/b.c"]
        );
        let spec = SourceSpec {
            files: vec!["src/*.c".into()],
            ..SourceSpec::default()
        };
        assert_eq!(spec.select(paths.into_iter()).unwrap(), ["src/a.c"]);
        let spec = SourceSpec {
            files: vec!["src/**/*.c".into(), "main.c".into()],
            ..SourceSpec::default()
        };
        assert_eq!(
            spec.select(paths.into_iter()).unwrap(),
            ["main.c", "src/a.c", "src/deep/b.c"]
        );
    }

    #[test]
    fn a_repository_file_names_no_program_and_no_path_outside() {
        let err = FileConfig::parse(
            "entries = [\"main\"]\n  cbmc = \"tools/cbmc\"\n",
            Path::new(".mergelens.toml"),
        )
        .unwrap_err();
        assert!(matches!(err, ConfigError::ToolInRepository { line: 2, .. }));
        let msg = err.to_string();
        assert!(msg.contains(".mergelens.toml:2:"), "{msg}");
        assert!(msg.contains("~/.config/mergelens/config.toml"), "{msg}");
        for (text, key) in [
            ("include-dirs = [\"/usr/include\"]", "include-dirs"),
            ("files = [\"../x/*.c\"]", "files"),
            ("compile-commands = \"a/../../cc.json\"", "compile-commands"),
        ] {
            let file = FileConfig::parse(text, Path::new("x")).unwrap();
            let err = Settings::resolve(&file, &Overrides::default(), Path::new("/r"))
                .unwrap_err()
                .to_string();
            assert!(err.contains(key) && err.contains("is refused"), "{err}");
        }
        // The same directory from the command line is the user's choice.
        let flags = Overrides {
            include_dirs: vec![PathBuf::from("/usr/include")],
            ..Overrides::default()
        };
        let s = Settings::resolve(&FileConfig::default(), &flags, Path::new("/r")).unwrap();
        assert_eq!(s.sources.include_dirs, [PathBuf::from("/usr/include")]);
        let huge = FileConfig::parse("query-timeout = 1e308", Path::new("x")).unwrap();
        assert!(Settings::resolve(&huge, &Overrides::default(), Path::new("/r")).is_err());
    }
}
