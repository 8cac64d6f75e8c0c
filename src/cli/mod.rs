//! The command line, parsed with clap. This module belongs to the binary: the library sees
//! only the plain option types of `crate::commands`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod merge;
mod sampling;
mod values;
pub(crate) use values::{NotAShare, NotSeconds};

pub use merge::{AuditCli, DiffCli, ReviewCli};
use values::{AllocationsArg, EventsArg, seconds};

/// See what a git merge does to a C program's behaviour.
///
/// Exit codes: 0 success (no difference), 1 a difference was found, 2 bad input or usage,
/// 3 a textual merge conflict, 4 another failure, 5 CBMC missing or too old.
#[derive(Debug, Parser)]
#[command(name = "mergelens", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub remote: RemoteCli,
}

/// Remote execution of CBMC runs (docs/remote.md): on every command that runs CBMC.
#[derive(Debug, Args)]
pub struct RemoteCli {
    /// A Remote Execution API v2 server (grpc://HOST:PORT) that runs CBMC queries and caches
    /// their results; default: `remote` of the user configuration, else every run is local.
    #[arg(long, global = true, value_name = "URL")]
    pub remote: Option<String>,
    /// The server's instance name (default: `remote-instance` of the user configuration, else
    /// the server's default).
    #[arg(long, global = true, value_name = "NAME")]
    pub remote_instance: Option<String>,
    /// Whether this run's results may enter the server's action cache: read-only for a job
    /// that reviews untrusted code (default: read-write).
    #[arg(long, global = true, value_name = "MODE")]
    pub remote_cache: Option<String>,
    /// With a remote engine: how many merges `audit` reviews at once, each sending its own
    /// actions (default: `remote-jobs` of the user configuration, else 1).
    #[arg(long, global = true, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub remote_jobs: Option<u16>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Work with automata stored as mergelens-dfa/1 JSON files.
    #[command(subcommand)]
    Automaton(AutomatonCommand),
    /// A report people read, from a mergelens-review/1, mergelens-diff/1 or mergelens-dfa/1 document.
    Report {
        /// The document; - reads standard input.
        input: PathBuf,
        #[arg(long, value_enum, default_value_t = ReportFormatArg::Html)]
        format: ReportFormatArg,
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Where the HTML report is published (URL or path), for the Markdown to point to.
        #[arg(long, value_name = "LINK")]
        html_report: Option<String>,
    },
    /// Learn the automaton of a C program's behaviour: the event words of its executions.
    Learn(Box<LearnCli>),
    /// Explain an assertion failure: the automaton of every way it fails within the bounds
    /// (the event words of failing runs, each ending with `assert`).
    ///
    /// Exit codes: 0 explained (an empty language included), 2 bad input or several
    /// assertions to choose from (listed one per line), 4 failure, 5 CBMC missing.
    Explain(Box<ExplainCli>),
    /// Review what merging THEIRS into OURS does to the program's behaviour (O, A, B and the
    /// merge M learned as automata; unexpected and lost behaviour; verdict).
    ///
    /// Exit codes: 0 clean (or findings `fail-on` lets pass), 1 a finding per `fail-on`,
    /// 2 usage or input error, 3 textual conflict, 4 internal failure.
    Review(Box<ReviewCli>),
    /// The behaviour added and removed between two commits or tags, per entry function.
    Diff(Box<DiffCli>),
    /// Review every merge commit of a range of history as it was committed, one line each,
    /// with an index of their reports (`--time-budget` is per merge).
    ///
    /// Exit codes: 0 nothing `fail-on` flags, 1 some merge's finding per `fail-on`, 2 usage
    /// or input error, 4 internal failure.
    Audit(Box<AuditCli>),
    /// Set up a repository: find the C files and candidate entry functions, write a
    /// commented .mergelens.toml (and, with --harness-for, a harness skeleton), then learn
    /// once at small bounds and suggest a bound.
    Init(InitCli),
    /// Install or remove the pre-merge-commit hook that runs `mergelens review --hook`.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Review the merge of the paper's Fig. 12 in a throwaway repository (`make demo`).
    Demo {
        /// Where the reports go.
        #[arg(long, value_name = "DIR", default_value = "target/demo")]
        out: PathBuf,
        /// The cbmc binary to use (default: $MERGELENS_CBMC, the private prefix, PATH).
        #[arg(long, value_name = "PATH")]
        cbmc: Option<PathBuf>,
        /// Keep the throwaway repository and print its path.
        #[arg(long)]
        keep: bool,
    },
    /// Show which CBMC mergelens uses, and check that it runs.
    Doctor {
        /// The cbmc binary to use (default: $MERGELENS_CBMC, the private prefix, PATH).
        #[arg(long, value_name = "PATH")]
        cbmc: Option<PathBuf>,
    },
}

#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Write the result to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Keep the result as constructed: neither minimised nor trimmed.
    #[arg(long)]
    pub raw: bool,
}

#[derive(Debug, Subcommand)]
pub enum AutomatonCommand {
    /// Sizes, alphabet, dominating letters, doomed states and the shortest accepted words.
    Show {
        file: PathBuf,
        /// How many shortest words to list.
        #[arg(long, default_value_t = 5)]
        words: usize,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// The minimal trimmed automaton of the same language.
    Minimize {
        file: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// The words over the alphabet that the automaton rejects.
    Complement {
        file: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// L(A) ∩ L(B), over the union of both alphabets.
    Intersect {
        a: PathBuf,
        b: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// L(A) ∪ L(B).
    Union {
        a: PathBuf,
        b: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// L(A) \ L(B): the words A accepts and B does not.
    Difference {
        a: PathBuf,
        b: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// The words exactly one of A and B accepts.
    Symdiff {
        a: PathBuf,
        b: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Exit 0 if A and B accept the same words; else exit 1 with a shortest word only one accepts.
    Equiv {
        a: PathBuf,
        b: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// The accepted words up to a length, one a line, letters separated by one space.
    Words {
        file: PathBuf,
        #[arg(long, value_name = "N")]
        max_length: usize,
        /// Refuse (and say how many there are) when more words than this would be printed.
        #[arg(long, default_value_t = crate::commands::automaton::DEFAULT_WORD_LIMIT)]
        limit: u64,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Graphviz DOT, with accepting, doomed and dominating marks.
    Dot {
        file: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// An SVG drawing, laid out without Graphviz.
    Svg {
        file: PathBuf,
        #[command(flatten)]
        out: OutputArgs,
    },
    /// Learn TARGET with L* from a simulated teacher; print the learner's statistics.
    Learn(Box<LearnTargetCli>),
    /// The smallest automaton that accepts every word of YES and rejects every word of NO
    /// (the other words are free): exact by a SAT solver within the time budget, else by
    /// state merging. The mergelens-dfa/1 result also says `minimal`, `method` (sat or
    /// merge), `lower_bound`, `exact_states` (YES minimised) and `states_saved`.
    Separate {
        yes: PathBuf,
        no: PathBuf,
        /// Insist on the proved minimum: no size limit, a budget of an hour unless
        /// --time-budget says otherwise, and exit 4 when the minimum is not proved in time.
        #[arg(long)]
        minimal: bool,
        /// Only the words of YES and NO with at most N letters count.
        #[arg(long, value_name = "N")]
        max_length: Option<usize>,
        /// Seconds for the whole search; 0 for no limit (default 5, 3600 with --minimal).
        #[arg(long, value_name = "S", value_parser = seconds)]
        time_budget: Option<f64>,
        /// Write the result to FILE instead of standard output.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
}

/// How `--cex` names the counterexample strategies.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CexArg {
    /// Rivest-Schapire: binary search for one distinguishing suffix.
    Rs,
    /// Angluin: every prefix of the counterexample becomes a row.
    Angluin,
    /// Maler-Pnueli: every suffix of the counterexample becomes a column.
    Mp,
}

/// How `automaton learn --lazy` names the guess policies.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LazyTargetArg {
    /// Guess "yes" for unknown words, check the guesses before each conjecture.
    Yes,
    /// Guess "no".
    No,
    /// No guessing: ask the teacher at once.
    Off,
}

/// `mergelens automaton learn`: L* against a simulated teacher that knows TARGET.
#[derive(Debug, Args)]
pub struct LearnTargetCli {
    /// The target automaton (mergelens-dfa/1); - reads standard input.
    pub target: PathBuf,
    #[arg(long, value_enum, default_value_t = LazyTargetArg::Off)]
    pub lazy: LazyTargetArg,
    #[arg(long, value_enum, default_value_t = CexArg::Rs)]
    pub cex: CexArg,
    /// Also write the statistics (JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// Spoil this share of the guesses (0 to 1), to exercise the repair path; needs --lazy yes|no.
    #[arg(long, value_name = "R", default_value_t = 0.0)]
    pub wrong_guess_rate: f64,
    /// The seed of the spoiled guesses.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Stop with an error when a conjecture would have more states.
    #[arg(long, value_name = "N", default_value_t = mergelens::learn::DEFAULT_MAX_STATES)]
    pub max_states: usize,
    /// Stop with an error after this many equivalence queries.
    #[arg(long, value_name = "N", default_value_t = mergelens::learn::DEFAULT_MAX_EQUIVALENCE_QUERIES)]
    pub max_equivalence_queries: usize,
    /// Write the learned automaton to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

impl LearnTargetCli {
    pub fn into_args(self) -> crate::commands::learn_target::LearnTargetArgs {
        use crate::commands::learn_target::{LazyMode, LearnTargetArgs};
        use mergelens::learn::CexProcessing;
        LearnTargetArgs {
            target: self.target,
            lazy: match self.lazy {
                LazyTargetArg::Yes => LazyMode::Yes,
                LazyTargetArg::No => LazyMode::No,
                LazyTargetArg::Off => LazyMode::Off,
            },
            cex: match self.cex {
                CexArg::Rs => CexProcessing::RivestSchapire,
                CexArg::Angluin => CexProcessing::Angluin,
                CexArg::Mp => CexProcessing::MalerPnueli,
            },
            stats: self.stats,
            wrong_guess_rate: self.wrong_guess_rate,
            seed: self.seed,
            max_states: self.max_states,
            max_equivalence_queries: self.max_equivalence_queries,
            output: self.output,
        }
    }
}

/// The report formats of `--format`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReportFormatArg {
    Html,
    Md,
    /// SARIF 2.1.0 (reviews, diffs and audits).
    Sarif,
}

/// The program options `learn` and `explain` share: the program, its front end, CBMC, lazy
/// learning and the answer cache.
#[derive(Debug, Args)]
pub struct ProgramCli {
    /// The C files of the program (compiled and linked together).
    #[arg(required = true, value_name = "FILE.c")]
    pub files: Vec<PathBuf>,
    /// The function whose executions are learned; its return is the letter `end` (`learn`)
    /// or an exit point (`explain`).
    #[arg(long, default_value = "main", value_name = "NAME")]
    pub entry: String,
    /// Which events become letters (MERGELENS_EVENT markers always do).
    #[arg(long, value_enum, default_value_t = EventsArg::Functions)]
    pub events: EventsArg,
    /// Keep only these letters (comma separated).
    #[arg(long, value_delimiter = ',', value_name = "L1,L2")]
    pub only: Option<Vec<String>>,
    /// Drop these letters (comma separated).
    #[arg(long, value_delimiter = ',', value_name = "L1,L2")]
    pub exclude: Vec<String>,
    /// An include directory, as for the compiler.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// A macro definition, as for the compiler.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// A harness file compiled with the program (repeatable): its functions are no events;
    /// it typically defines the entry, calling the code on nondeterministic input.
    #[arg(long, value_name = "FILE.c")]
    pub harness: Vec<PathBuf>,
    /// The longest one CBMC query may take, in seconds; 0 for no limit.
    #[arg(long, value_name = "S", default_value_t = mergelens::language::DEFAULT_QUERY_TIMEOUT_SECS, value_parser = seconds)]
    pub query_timeout: f64,
    /// The memory one CBMC run may take (4GiB, 512MiB; 0 for no limit): a run past it is
    /// an error naming the query, never a machine out of memory.
    #[arg(long, value_name = "SIZE", default_value = "4GiB")]
    pub memory_limit: mergelens::process::MemorySize,
    /// Stop learning after S seconds and write the last conjecture, marked `partial` (exit
    /// code 0, with a warning). Ctrl-C does the same.
    #[arg(long, value_name = "S")]
    pub time_budget: Option<f64>,
    /// The cbmc binary to use (default: $MERGELENS_CBMC, the private prefix, PATH).
    #[arg(long, value_name = "PATH")]
    pub cbmc: Option<PathBuf>,
    /// Check at most N accepted words against CBMC per conjecture; beyond, the result says
    /// up to which length it is exact.
    #[arg(long, value_name = "N", default_value_t = mergelens::cbmc::DEFAULT_EXACT_LIMIT)]
    pub exact_limit: u64,
    /// How often a loop inside CBMC's models of the C library (strncpy, strlen, ...) may
    /// iterate, whatever --unwind says.
    #[arg(long, value_name = "K", default_value_t = mergelens::cbmc::LIBRARY_UNWIND)]
    pub library_unwind: u32,
    /// Whether an allocation (malloc, calloc, realloc) may fail. `succeed` leaves out the
    /// executions in which one fails, which on code that frees what it built on every
    /// failure can make CBMC's formula many times smaller; the result says so.
    #[arg(long, value_enum, default_value_t)]
    pub allocations: AllocationsArg,
    /// Lazy learning: guess the likely answer (`learn`: "yes", `explain`: "no") and check the
    /// guesses in batches, or ask CBMC at once.
    #[arg(long, value_enum, default_value_t = LazyArg::Yes)]
    pub lazy: LazyArg,
    /// Keep CBMC's answers in DIR (default: .git/mergelens/cache, else ~/.cache/mergelens).
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the answer cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Leave out the concise automaton: the JSON has no `concise` object, and DOT and SVG
    /// draw the exact automaton.
    #[arg(long)]
    pub exact: bool,
    /// The longest the SAT search for the smallest concise automaton may take, in seconds;
    /// past it, state merging gives a small one (not proved minimal).
    #[arg(long, value_name = "S", default_value_t = mergelens::language::DEFAULT_CONCISE_SECONDS, value_parser = seconds)]
    pub concise_time: f64,
    /// The paper's baseline, for benchmarks: one CBMC run per membership query, no
    /// pre-checks, no lazy learning, no cache.
    #[arg(long, hide = true)]
    pub baseline: bool,
    /// Lazy learning as the paper describes it, for benchmarks: pre-checks and guesses,
    /// but no prefetch, no guesses in the conjecture query's run, no cache.
    #[arg(long, hide = true, conflicts_with = "baseline")]
    pub paper_lazy: bool,
    /// List every front-end warning (calls through function pointers, `goto`, ...); by
    /// default more than a few are counted in one line.
    #[arg(short, long)]
    pub verbose: bool,
    #[command(flatten)]
    pub sampling: sampling::SamplingCli,
}

impl ProgramCli {
    pub fn into_args(self) -> mergelens::language::ProgramOptions {
        use mergelens::cprog::EventKind;
        use mergelens::language::{CacheChoice, ProgramOptions};
        ProgramOptions {
            files: self.files,
            entry: self.entry,
            events: match self.events {
                EventsArg::Functions => EventKind::Functions,
                EventsArg::Calls => EventKind::Calls,
                EventsArg::Branches => EventKind::Branches,
            },
            only: self.only,
            exclude: self.exclude,
            include_dirs: self.include,
            defines: self.define,
            harness: self.harness,
            query_timeout: (self.query_timeout > 0.0)
                .then(|| std::time::Duration::from_secs_f64(self.query_timeout)),
            memory_limit: self.memory_limit.0,
            time_budget: self
                .time_budget
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(std::time::Duration::from_secs_f64),
            cbmc: self.cbmc,
            exact_limit: self.exact_limit,
            library_unwind: self.library_unwind,
            allocations: self.allocations.into(),
            lazy: matches!(self.lazy, LazyArg::Yes),
            cache: match (self.no_cache, self.cache_dir) {
                (true, _) => CacheChoice::Off,
                (false, Some(dir)) => CacheChoice::Dir(dir),
                (false, None) => CacheChoice::Default,
            },
            concise: (!self.exact).then(|| std::time::Duration::from_secs_f64(self.concise_time)),
            baseline: self.baseline,
            paper_lazy: self.paper_lazy,
            verbose: self.verbose,
            sampling: self.sampling.into_args(),
        }
    }
}

/// The bounds of `learn` and `explain`, declared once. A review's are optional overrides
/// of its configuration, with its other flags in `merge.rs`.
#[derive(Debug, Args)]
pub struct BoundsCli {
    /// Loop bodies run at most B times (CBMC gets --unwind B+1; see docs/cli.md).
    #[arg(long, value_name = "B", default_value_t = mergelens::bounds::DEFAULT_UNWIND, conflicts_with = "auto_bounds")]
    pub unwind: u32,
    /// Words have at most N letters, the last one (`end`, or `assert` in explain) included
    /// (with --auto-bounds: the largest N tried).
    #[arg(long, value_name = "N", default_value_t = mergelens::bounds::DEFAULT_MAX_WORD_LENGTH as u64, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub max_word_length: u64,
    /// Search the bounds (Fig. 17 of the paper): B from 1 to --max-unwind, N up to
    /// --max-word-length.
    #[arg(long)]
    pub auto_bounds: bool,
    /// The largest B --auto-bounds tries.
    #[arg(long, value_name = "B", default_value_t = mergelens::bounds::DEFAULT_MAX_UNWIND, requires = "auto_bounds")]
    pub max_unwind: u32,
}

/// `mergelens learn`: the event words of the entry function's executions within the bounds,
/// each ending with `end`, learned with CBMC answering the queries.
#[derive(Debug, Args)]
pub struct LearnCli {
    #[command(flatten)]
    pub program: ProgramCli,
    #[command(flatten)]
    pub bounds: BoundsCli,
    #[arg(long, value_enum, default_value_t = LearnFormatArg::Json)]
    pub format: LearnFormatArg,
    /// Write the automaton to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write the statistics (JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

impl LearnCli {
    pub fn into_args(self) -> crate::commands::learn::LearnArgs {
        use crate::commands::learn::{BoundsChoice, LearnArgs, LearnFormat};
        use mergelens::cbmc::LearnBounds;
        let max_word_length = self.bounds.max_word_length as usize;
        LearnArgs {
            program: self.program.into_args(),
            bounds: if self.bounds.auto_bounds {
                BoundsChoice::Auto(mergelens::cbmc::bounds_search::BoundsLimits {
                    max_unwind: self.bounds.max_unwind,
                    max_word_length,
                })
            } else {
                BoundsChoice::Fixed(LearnBounds {
                    unwind: self.bounds.unwind,
                    max_word_length,
                })
            },
            format: match self.format {
                LearnFormatArg::Json => LearnFormat::Json,
                LearnFormatArg::Dot => LearnFormat::Dot,
                LearnFormatArg::Svg => LearnFormat::Svg,
            },
            output: self.output,
            stats: self.stats,
        }
    }
}

/// `mergelens explain`.
#[derive(Debug, Args)]
pub struct ExplainCli {
    #[command(flatten)]
    pub program: ProgramCli,
    /// The assertion to explain, by CBMC's property id (e.g. main.assertion.1).
    #[arg(long, value_name = "ID", conflicts_with = "line")]
    pub assertion: Option<String>,
    /// The assertion to explain, by its source line.
    #[arg(long, value_name = "FILE:LINE")]
    pub line: Option<String>,
    #[command(flatten)]
    pub bounds: BoundsCli,
    #[arg(long, value_enum, default_value_t = ExplainFormatArg::Json)]
    pub format: ExplainFormatArg,
    /// Write the automaton to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Write the statistics (JSON) to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
    /// Store a concrete CBMC trace for each example failing word in DIR, linked from the output.
    #[arg(long, value_name = "DIR")]
    pub traces: Option<PathBuf>,
}

/// `mergelens explain --format`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ExplainFormatArg {
    Json,
    Dot,
    Svg,
    Html,
}

impl ExplainCli {
    pub fn into_args(
        self,
    ) -> Result<crate::commands::explain::ExplainArgs, crate::commands::explain::ExplainError> {
        use crate::commands::explain::{ExplainArgs, ExplainFormat, TargetChoice};
        use mergelens::cbmc::LearnBounds;
        let target = match (self.assertion, self.line) {
            (Some(id), _) => TargetChoice::Property(id),
            (None, Some(spec)) => {
                let (file, line) = spec
                    .rsplit_once(':')
                    .and_then(|(f, l)| Some((f, l.parse::<u32>().ok()?)))
                    .filter(|(f, _)| !f.is_empty())
                    .ok_or_else(|| crate::commands::explain::ExplainError::Usage {
                        message: format!("--line {spec}: expected FILE:LINE, e.g. queue.c:42"),
                    })?;
                TargetChoice::Line {
                    file: PathBuf::from(file),
                    line,
                }
            }
            (None, None) => TargetChoice::Failing,
        };
        Ok(ExplainArgs {
            program: self.program.into_args(),
            target,
            bounds: LearnBounds {
                unwind: if self.bounds.auto_bounds {
                    self.bounds.max_unwind
                } else {
                    self.bounds.unwind
                },
                max_word_length: self.bounds.max_word_length as usize,
            },
            auto_bounds: self.bounds.auto_bounds,
            format: match self.format {
                ExplainFormatArg::Json => ExplainFormat::Json,
                ExplainFormatArg::Dot => ExplainFormat::Dot,
                ExplainFormatArg::Svg => ExplainFormat::Svg,
                ExplainFormatArg::Html => ExplainFormat::Html,
            },
            output: self.output,
            stats: self.stats,
            traces: self.traces,
        })
    }
}

/// `mergelens learn --format`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LearnFormatArg {
    Json,
    Dot,
    Svg,
}

/// `mergelens learn --lazy`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LazyArg {
    Yes,
    Off,
}

/// `mergelens hook`.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Install the hook (honouring core.hooksPath; an existing hook is kept and run first).
    Install,
    /// Remove the hook and restore the one it replaced.
    Uninstall,
}

/// `mergelens init`.
#[derive(Debug, Args)]
pub struct InitCli {
    /// Overwrite an existing .mergelens.toml (and mergelens-harness.c).
    #[arg(long)]
    pub force: bool,
    /// Write mergelens-harness.c, a harness calling F on nondeterministic input, and make
    /// its function the entry.
    #[arg(long, value_name = "F")]
    pub harness_for: Option<String>,
    /// The entry function to configure and learn (default: main, else the first candidate).
    #[arg(long, value_name = "F", conflicts_with = "harness_for")]
    pub entry: Option<String>,
    /// The first learning run stops after S seconds.
    #[arg(long, value_name = "S", default_value_t = 60.0, value_parser = seconds)]
    pub time_budget: f64,
    /// Write the files only; do not learn.
    #[arg(long)]
    pub no_learn: bool,
    /// The C files to analyse (repository-relative globs, repeatable; default: those
    /// committed on HEAD but test, example and fuzzing code, or a compilation database's).
    #[arg(long = "files", value_delimiter = ',', value_name = "GLOB")]
    pub files: Vec<String>,
    /// The cbmc binary to use (default: $MERGELENS_CBMC, the private prefix, PATH).
    #[arg(long, value_name = "PATH")]
    pub cbmc: Option<PathBuf>,
    /// List every front-end warning of the first learning run; by default more than a few
    /// are counted in one line.
    #[arg(short, long)]
    pub verbose: bool,
}

impl InitCli {
    pub fn into_args(self) -> crate::commands::init::InitArgs {
        crate::commands::init::InitArgs {
            force: self.force,
            harness_for: self.harness_for,
            entry: self.entry,
            time_budget: std::time::Duration::from_secs_f64(self.time_budget),
            no_learn: self.no_learn,
            cbmc: self.cbmc,
            files: self.files,
            verbose: self.verbose,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        // clap's own checks: every flag's name, conflict and requirement resolves.
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
