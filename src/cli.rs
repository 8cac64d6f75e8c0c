//! The command line, parsed with clap. This module belongs to the binary: the library sees
//! only the plain option types of [`mergelens::commands`].

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// See what a git merge does to a C program's behaviour.
///
/// Exit codes: 0 success (no difference), 1 a difference was found, 2 bad input or usage,
/// 3 CBMC missing or too old, 4 another failure.
#[derive(Debug, Parser)]
#[command(name = "mergelens", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
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
        #[arg(long, default_value_t = mergelens::commands::automaton::DEFAULT_WORD_LIMIT)]
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
}

/// How `--cex` names the counterexample strategies.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CexArg {
    Rs,
    Angluin,
    Mp,
}

/// The report formats of `--format`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReportFormatArg {
    Html,
    Md,
}
