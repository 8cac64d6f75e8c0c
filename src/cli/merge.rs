//! The flags of `review`, `diff` and `audit`, and the learning flags they share.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::values::{EventsArg, seconds};

/// The document formats of `review` and `diff`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum DocFormatArg {
    Json,
    Md,
    Html,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
}

/// One name of `fail-on` (`--fail-on unexpected,unfinished` gives several).
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FailOnArg {
    Never,
    Unexpected,
    Lost,
    Overlapping,
    Any,
    /// The review did not complete its work (time budget, timeout, memory, a tool failed).
    Unfinished,
    Inconclusive,
}

/// The `fail-on` the names give; `None` for none.
fn fail_on_set(names: &[FailOnArg]) -> Option<mergelens::config::FailOn> {
    use mergelens::config::{FailOn, FailOnName};
    FailOn::of(names.iter().map(|f| match f {
        FailOnArg::Never => FailOnName::Never,
        FailOnArg::Unexpected => FailOnName::Unexpected,
        FailOnArg::Lost => FailOnName::Lost,
        FailOnArg::Overlapping => FailOnName::Overlapping,
        FailOnArg::Any => FailOnName::Any,
        FailOnArg::Unfinished => FailOnName::Unfinished,
        FailOnArg::Inconclusive => FailOnName::Inconclusive,
    }))
}

/// `on-error`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum OnErrorArg {
    Allow,
    Block,
}

/// The learning flags of `review` and `diff` (those of `learn`); each overrides its key in
/// `.mergelens.toml`.
#[derive(Debug, Args)]
pub struct ReviewLearnFlags {
    /// A configuration file used instead of the repository's .mergelens.toml (for merges
    /// whose first parent has none): trusted as the command line is.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The C files, repository-relative paths or globs (default: every *.c file).
    #[arg(long = "files", value_delimiter = ',', value_name = "GLOB")]
    pub files: Vec<String>,
    /// A function to analyse (repeatable; default: main).
    #[arg(long, value_name = "NAME")]
    pub entry: Vec<String>,
    /// Which changed functions are also analysed at their own entries, through a generated
    /// harness (default: unreached, those with a change no entry reaches).
    #[arg(long, value_enum, value_name = "WHICH")]
    pub changed_functions: Option<super::values::ChangedFunctionsArg>,
    /// Which events become letters.
    #[arg(long, value_enum)]
    pub events: Option<EventsArg>,
    /// Keep only these letters (comma separated).
    #[arg(long, value_delimiter = ',', value_name = "L1,L2")]
    pub only: Option<Vec<String>>,
    /// Drop these letters (comma separated).
    #[arg(long, value_delimiter = ',', value_name = "L1,L2")]
    pub exclude: Vec<String>,
    /// Loop bodies run at most B times.
    #[arg(long, value_name = "B", conflicts_with = "auto_bounds")]
    pub unwind: Option<u32>,
    /// Words have at most N letters, `end` included.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_word_length: Option<u64>,
    /// Raise the unwinding from 1 until no version's automaton changes (all versions at the
    /// same bounds).
    #[arg(long)]
    pub auto_bounds: bool,
    /// The largest B --auto-bounds tries.
    #[arg(long, value_name = "B", requires = "auto_bounds")]
    pub max_unwind: Option<u32>,
    /// An include directory (repository-relative, or absolute).
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// A macro definition.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// A compile_commands.json for files, include directories and defines.
    #[arg(long, value_name = "FILE")]
    pub compile_commands: Option<PathBuf>,
    /// A harness file from outside the history, compiled with every version (repeatable):
    /// its functions are no events; it typically defines the entry.
    #[arg(long, value_name = "FILE.c")]
    pub harness: Vec<PathBuf>,
    /// The longest one CBMC query may take, in seconds; 0 for no limit.
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub query_timeout: Option<f64>,
    /// The memory one CBMC run may take (4GiB, 512MiB; 0 for no limit; default 4GiB): an
    /// run that passes it leaves the review `unfinished`, with the reason.
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<mergelens::process::MemorySize>,
    /// Check at most N accepted words against CBMC per conjecture.
    #[arg(long, value_name = "N")]
    pub exact_limit: Option<u64>,
    /// Whether an allocation (malloc, calloc, realloc) may fail (default: may-fail).
    /// `succeed` leaves out the executions in which one fails; the review says so.
    #[arg(long, value_enum)]
    pub allocations: Option<super::values::AllocationsArg>,
    /// The cbmc binary to use (default: $MERGELENS_CBMC, the private prefix, PATH).
    #[arg(long, value_name = "PATH")]
    pub cbmc: Option<PathBuf>,
    /// Versions learned at once (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub jobs: Option<usize>,
    /// Stop learning after S seconds: the document holds what was learned (the last
    /// conjectures) and the verdict `unfinished`; exit code 1 only when `fail-on` names
    /// `unfinished` (or `inconclusive`). Ctrl-C does the same.
    #[arg(long, value_name = "S", value_parser = seconds)]
    pub time_budget: Option<f64>,
    /// Neither read nor write the caches under .git/mergelens/.
    #[arg(long)]
    pub no_cache: bool,
    /// Names added to the fail-on that governs (the owner's .mergelens.toml, or
    /// --fail-on), not replacing it: a CI job's `--also-fail-on unfinished` fails a review
    /// that did not finish and keeps the owner's policy for findings.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAME,...")]
    pub also_fail_on: Vec<FailOnArg>,
    /// The document format (default: from -o's extension; without -o only a summary).
    #[arg(long, value_enum)]
    pub format: Option<DocFormatArg>,
    /// Write the document to FILE.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl ReviewLearnFlags {
    pub fn overrides(
        &self,
        fail_on: &[FailOnArg],
        on_error: Option<OnErrorArg>,
    ) -> mergelens::config::Overrides {
        use mergelens::config::{OnError, Overrides};
        use mergelens::cprog::EventKind;
        Overrides {
            config: self
                .config
                .as_ref()
                .map(|c| std::path::absolute(c).unwrap_or_else(|_| c.clone())),
            files: self.files.clone(),
            include_dirs: self.include.clone(),
            defines: self.define.clone(),
            compile_commands: self.compile_commands.clone(),
            // Named on the command line, so read where the user is, not in a checkout.
            harness: self
                .harness
                .iter()
                .map(|h| std::path::absolute(h).unwrap_or_else(|_| h.clone()))
                .collect(),
            entries: self.entry.clone(),
            changed_functions: self.changed_functions.map(Into::into),
            events: self.events.map(|e| match e {
                EventsArg::Functions => EventKind::Functions,
                EventsArg::Calls => EventKind::Calls,
                EventsArg::Branches => EventKind::Branches,
            }),
            only: self.only.clone(),
            exclude: self.exclude.clone(),
            unwind: self.unwind,
            max_word_length: self.max_word_length.map(|n| n as usize),
            auto_bounds: self.auto_bounds,
            max_unwind: self.max_unwind,
            cbmc: self.cbmc.clone(),
            query_timeout: self.query_timeout,
            memory_limit: self.memory_limit,
            exact_limit: self.exact_limit,
            allocations: self.allocations.map(Into::into),
            fail_on: fail_on_set(fail_on),
            also_fail_on: fail_on_set(&self.also_fail_on),
            on_error: on_error.map(|o| match o {
                OnErrorArg::Allow => OnError::Allow,
                OnErrorArg::Block => OnError::Block,
            }),
            jobs: self.jobs,
        }
    }

    /// `--time-budget` (0: stop at once, before any CBMC run).
    pub fn budget(&self) -> Option<std::time::Duration> {
        self.time_budget.map(std::time::Duration::from_secs_f64)
    }

    pub fn doc_format(&self) -> Option<crate::commands::review::DocFormat> {
        use crate::commands::review::DocFormat;
        self.format.map(|f| match f {
            DocFormatArg::Json => DocFormat::Json,
            DocFormatArg::Md => DocFormat::Markdown,
            DocFormatArg::Html => DocFormat::Html,
            DocFormatArg::Sarif => DocFormat::Sarif,
        })
    }
}

/// `mergelens review`.
#[derive(Debug, Args)]
pub struct ReviewCli {
    /// With THEIRS: the first parent (default HEAD). Alone: the branch to merge into HEAD.
    /// Neither: the merge in progress (MERGE_HEAD).
    #[arg(value_name = "OURS")]
    pub ours: Option<String>,
    /// The branch (or any revision) to merge.
    #[arg(value_name = "THEIRS")]
    pub theirs: Option<String>,
    /// Review the merge git is committing, as a pre-merge-commit or pre-commit hook sees it.
    #[arg(long, conflicts_with_all = ["ours", "theirs"])]
    pub hook: bool,
    /// Review the merge commit REV as it was committed (conflicts resolved by hand
    /// included): its first parent is ours, its second theirs. In CI: --commit HEAD.
    #[arg(long, value_name = "REV", conflicts_with_all = ["ours", "theirs", "hook"])]
    pub commit: Option<String>,
    /// When findings make the exit code 1 (and block the hook's merge); a comma-separated
    /// list fails when any of its names would: `--fail-on unexpected,unfinished`.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAME,...")]
    pub fail_on: Vec<FailOnArg>,
    /// In --hook mode, whether a failure of mergelens itself blocks the merge.
    #[arg(long, value_enum)]
    pub on_error: Option<OnErrorArg>,
    #[command(flatten)]
    pub learn: ReviewLearnFlags,
}

impl ReviewCli {
    pub fn into_args(self) -> crate::commands::review::ReviewArgs {
        let (ours, theirs) = match (self.ours, self.theirs) {
            (Some(one), None) => (None, Some(one)),
            other => other,
        };
        crate::commands::review::ReviewArgs {
            ours,
            theirs,
            hook: self.hook,
            commit: self.commit,
            flags: self.learn.overrides(&self.fail_on, self.on_error),
            format: self.learn.doc_format(),
            output: self.learn.output.clone(),
            no_cache: self.learn.no_cache,
            time_budget: self.learn.budget(),
        }
    }
}

/// `mergelens diff`.
#[derive(Debug, Args)]
pub struct DiffCli {
    /// Two revisions (commits or tags), earlier first; more than two make a behaviour
    /// changelog, one step per consecutive pair.
    #[arg(
        value_name = "REV",
        required_unless_present = "tags",
        conflicts_with = "tags"
    )]
    pub revisions: Vec<String>,
    /// The tags matching GLOB, in version order (v1.9 before v1.10), as the revisions.
    #[arg(long, value_name = "GLOB")]
    pub tags: Option<String>,
    /// `inconclusive`: exit code 1 also when no behaviour changed but the check fell short
    /// of the bounds (changed code no execution reaches, say). Other values change nothing:
    /// a difference always gives 1.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAME,...")]
    pub fail_on: Vec<FailOnArg>,
    #[command(flatten)]
    pub learn: ReviewLearnFlags,
}

impl DiffCli {
    pub fn into_args(self) -> crate::commands::diff::DiffArgs {
        crate::commands::diff::DiffArgs {
            flags: self.learn.overrides(&self.fail_on, None),
            format: self.learn.doc_format(),
            output: self.learn.output.clone(),
            no_cache: self.learn.no_cache,
            time_budget: self.learn.budget(),
            revisions: self.revisions,
            tags: self.tags,
        }
    }
}

/// `mergelens audit`.
#[derive(Debug, Args)]
pub struct AuditCli {
    /// The merges to review: `v1.0..v2.0`, or one revision (every merge in its history).
    #[arg(value_name = "RANGE")]
    pub range: String,
    /// Only the merges into the mainline (following first parents).
    #[arg(long)]
    pub first_parent: bool,
    /// Only merges committed on or after this day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub since: Option<String>,
    /// When findings make the exit code 1 (any merge's); a comma-separated list fails when
    /// any of its names would.
    #[arg(long, value_enum, value_delimiter = ',', value_name = "NAME,...")]
    pub fail_on: Vec<FailOnArg>,
    #[command(flatten)]
    pub learn: ReviewLearnFlags,
}

impl AuditCli {
    pub fn into_args(self) -> crate::commands::audit::AuditArgs {
        crate::commands::audit::AuditArgs {
            flags: self.learn.overrides(&self.fail_on, None),
            format: self.learn.doc_format(),
            output: self.learn.output.clone(),
            no_cache: self.learn.no_cache,
            time_budget: self.learn.budget(),
            range: self.range,
            first_parent: self.first_parent,
            since: self.since,
        }
    }
}
