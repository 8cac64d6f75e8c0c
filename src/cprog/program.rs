//! What the front end takes and gives: its settings ([`FrontEndConfig`], [`EventKind`]), the
//! assertion to explain ([`AssertionTarget`]), and the [`InstrumentedProgram`] with its
//! alphabet, events, functions and assertions. The types only; [`super::instrument`] and
//! [`super::instrument_error`] make them.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;

use super::cfg::{ProgramModel, SiteKind};
use super::warning::FrontEndWarning;
use crate::automaton::{Alphabet, Letter};
use crate::failure::{FailureKind, HasKind};

/// The letter that ends every word: the entry function returned.
pub const END_LETTER: &str = "end";

/// The letter that ends every word in error mode: the target assertion failed.
pub const ASSERT_LETTER: &str = "assert";

/// The assertion [`super::instrument_error`] explains: the one at this line of this file (as the
/// user or CBMC names it; compared as written and, failing that, canonically). When several
/// assertions share the line, `index` picks one in source order (`None`: all of them).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AssertionTarget {
    pub file: PathBuf,
    pub line: u32,
    pub index: Option<usize>,
}

/// How a program states an assertion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AssertionKind {
    /// `assert(c)` from `<assert.h>` (its failure branch, `__assert_fail`) or CBMC's
    /// built-in `assert(c)`.
    Assert,
    /// `__CPROVER_assert(c, "description")`.
    CproverAssert,
    /// `__VERIFIER_error()` or `reach_error()` (SV-COMP): an assertion whose condition is
    /// false.
    ReachError,
}

/// One assertion of the analysed files, in source order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AssertionSite {
    pub file: PathBuf,
    pub line: u32,
    pub function: String,
    pub kind: AssertionKind,
    /// The call as written (after preprocessing), on one line.
    pub text: String,
    /// Whether this is (one of) the target(s).
    pub target: bool,
}

/// Which events become letters (markers written with `MERGELENS_EVENT` always do).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// Entering each function defined in the analysed files, except the entry function;
    /// the letter is the function's name.
    #[default]
    Functions,
    /// Each call site, in the analysed files, of a function defined in them; the letter is
    /// `callee@line`. The event comes before the arguments are evaluated.
    Calls,
    /// Each arm of each `if` (an `if` without `else` gets an else event too), each `case`
    /// and `default` label (also reached by falling through), and each iteration of a loop
    /// body; the letter is `function:line:then|else|case|loop`.
    Branches,
}

impl EventKind {
    pub const ALL: [EventKind; 3] = [EventKind::Functions, EventKind::Calls, EventKind::Branches];

    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Functions => "functions",
            EventKind::Calls => "calls",
            EventKind::Branches => "branches",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an [`EventKind`].
#[derive(Debug, thiserror::Error)]
#[error("unknown event kind `{0}`: expected functions, calls or branches")]
pub struct UnknownEventKind(pub String);

impl HasKind for UnknownEventKind {
    fn kind(&self) -> FailureKind {
        FailureKind::BadInput
    }
}

impl FromStr for EventKind {
    type Err = UnknownEventKind;

    fn from_str(s: &str) -> Result<EventKind, UnknownEventKind> {
        EventKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownEventKind(s.to_string()))
    }
}

/// What to analyse and how it builds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontEndConfig {
    /// The C files of the program (each one a translation unit).
    pub files: Vec<PathBuf>,
    /// The function whose executions are learned; its return is the letter `end`.
    pub entry: String,
    pub events: EventKind,
    /// Keep only these letters (before `end`), if given.
    pub only: Option<BTreeSet<String>>,
    /// Drop these letters.
    pub exclude: BTreeSet<String>,
    /// `-I` directories.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` definitions, `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    /// When set, every file the preprocessor reads outside the system headers must be inside
    /// one of these directories: a version under review may include its own files (and those
    /// of the trusted include directories), never `#include "/home/you/.ssh/id_rsa"`.
    pub confine_to: Option<Vec<PathBuf>>,
    /// Harness files (`--harness`): compiled and linked with `files`, but their functions
    /// are no events (their text counts as a header's), so the entry, typically a `main`
    /// calling the library on nondeterministic input, can live outside the history.
    pub harness: Vec<PathBuf>,
    /// Also call `__mergelens_return()` where each analysed function other than the entry
    /// returns, so that an execution's call tree can be rebuilt from its hook calls (the
    /// per-execution merge check's product program). Off for learning: the automata's
    /// letters are the entries only. Each call of an analysed function also names its
    /// call site first (see [`CallSite`]), and with calls or branches as events, function
    /// entries are letters too, so that the product's logs are call trees.
    pub record_returns: bool,
    /// Read every input CBMC would choose (uninitialised locals, body-less functions, the
    /// generated harness's arguments, `main`'s `argc`/`argv`) from named streams that the
    /// per-execution check's product program shares among the versions (see
    /// `frontend::inputs`). Off for learning, whose inputs stay CBMC's.
    pub share_inputs: bool,
    /// Mark where each statement running a line of these hunks starts, or, for a hunk with
    /// calls of analysed functions, each of those calls (`__mergelens_hit(k)` for hunk `k`,
    /// see `frontend::hunks`): the coverage of a change.
    pub mark_hunks: Vec<LineRange>,
}

/// Lines `start..=end` (1-based) of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineRange {
    pub file: PathBuf,
    pub start: u32,
    pub end: u32,
}

/// What the lines of a hunk hold, as [`FrontEndConfig::mark_hunks`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HunkCode {
    /// No statement, no initialiser: a comment, a declaration, a directive.
    None,
    /// A file-scope variable's initialiser: run before the entry, always.
    Initialiser,
    /// Statements (or, for a hunk with calls, its calls), each marked with the hunk's hit.
    Statement,
}

impl FrontEndConfig {
    /// These files with the defaults: entry `main`, function-entry events, all letters.
    pub fn new(files: Vec<PathBuf>) -> FrontEndConfig {
        FrontEndConfig {
            files,
            entry: "main".to_string(),
            events: EventKind::default(),
            only: None,
            exclude: BTreeSet::new(),
            include_dirs: Vec::new(),
            defines: Vec::new(),
            confine_to: None,
            harness: Vec::new(),
            record_returns: false,
            share_inputs: false,
            mark_hunks: Vec::new(),
        }
    }

    /// A program in the tree at `root`: its `files` and `include_dirs` relative to it (an
    /// absolute include directory stays as it is), with `entry` and `defines`; the rest as
    /// [`FrontEndConfig::new`] has it.
    pub fn in_tree(
        root: &Path,
        files: &[String],
        include_dirs: &[PathBuf],
        defines: &[String],
        entry: &str,
    ) -> FrontEndConfig {
        let mut config = FrontEndConfig::new(files.iter().map(|f| root.join(f)).collect());
        config.entry = entry.to_string();
        // `join` keeps an absolute path as it is.
        config.include_dirs = include_dirs.iter().map(|d| root.join(d)).collect();
        config.defines = defines.to_vec();
        config
    }
}

/// One place in the program that emits a letter (several places may share a letter).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Event {
    pub letter: Letter,
    pub kind: SiteKind,
    /// The user's file and line (the function's name line for a function entry).
    pub file: PathBuf,
    pub line: u32,
    /// The function the site is in (the function entered, for a function entry).
    pub function: String,
}

/// A call of an analysed function that [`FrontEndConfig::record_returns`] marks: before the
/// call, `__mergelens_site(k)` names the call site (`k` is the index in
/// [`InstrumentedProgram::call_sites`] plus one), so that a product program can log where
/// each function entry was called from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The user's file, as the preprocessor names it, and the call's line.
    pub file: PathBuf,
    pub line: u32,
    /// The function called.
    pub callee: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FunctionOrigin {
    /// Defined in one of the analysed files: its events are observed.
    Analysed,
    /// Defined in another file the program includes (not a system header).
    Header,
    SystemHeader,
}

/// A function definition, for the report's links.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FunctionInfo {
    pub name: String,
    pub file: PathBuf,
    /// The line of the function's name.
    pub line: u32,
    /// The line of the body's closing brace: with `line`, what to cut to show the
    /// function's text.
    pub end_line: u32,
    /// The parameter declarations as written, e.g. `int x`.
    pub parameters: Vec<String>,
    pub origin: FunctionOrigin,
}

/// The result of [`super::instrument`].
#[derive(Clone, Debug)]
pub struct InstrumentedProgram {
    /// The instrumented file that defines the entry function.
    pub path: PathBuf,
    /// Every instrumented file, one per input file in input order (`path` among them); they
    /// are preprocessed C (`.i`), compiled and linked together.
    pub paths: Vec<PathBuf>,
    /// The events in order of first occurrence in the program, then `end`.
    pub alphabet: Alphabet,
    pub end: Letter,
    pub entry: String,
    /// The function CBMC starts from: `entry`, or for an entry with parameters (other than
    /// `main`) a generated harness calling it on nondeterministic arguments (pointers to
    /// small nondeterministic buffers, character buffers NUL-terminated).
    pub cbmc_entry: String,
    pub events: Vec<Event>,
    /// Every function definition, system headers' included.
    pub functions: Vec<FunctionInfo>,
    /// What the front end could not see through (function pointers, `goto`, `setjmp`), and
    /// `only`/`exclude` names that match no event; `file:line: message` where there is a place.
    pub warnings: Vec<FrontEndWarning>,
    /// In error mode, every assertion of the analysed files; empty otherwise.
    pub assertions: Vec<AssertionSite>,
    /// The file-scope variables the analysed files and their own headers declare (not the
    /// system headers'): with the functions, the names a product program renames per
    /// version.
    pub globals: Vec<String>,
    /// With [`FrontEndConfig::share_inputs`], the body-less functions given a body that
    /// reads their results from a shared stream (renamed per version like `functions`).
    pub input_functions: Vec<String>,
    /// With [`FrontEndConfig::mark_hunks`], what each hunk holds.
    pub hunk_code: Vec<HunkCode>,
    /// With [`FrontEndConfig::mark_hunks`], the functions each hunk's own calls call (calls
    /// of analysed functions on its lines, each once, in source order): a hunk with calls is
    /// marked on them alone, so it runs when one of them does. Empty for a hunk without.
    pub hunk_calls: Vec<Vec<String>>,
    /// With [`FrontEndConfig::record_returns`], the marked call sites.
    pub call_sites: Vec<CallSite>,
    pub(crate) fingerprint: String,
    /// The fingerprint of what the entry can run: the program's code without the functions
    /// the entry cannot call (by the call graph); `None` when the graph cannot tell.
    pub(crate) slice_fingerprint: Option<String>,
    pub(crate) model: ProgramModel,
    pub(crate) error_mode: bool,
}
