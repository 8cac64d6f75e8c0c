//! The C front end: from C files to an instrumented program whose executions announce their
//! events, and to the syntax-directed automaton the learner uses as a pre-check.
//!
//! Key types:
//!
//! * [`FrontEndConfig`]: the files, the entry function, which events to observe
//!   ([`EventKind`], `only`/`exclude`), and the `-I`/`-D` options the program builds with.
//! * [`instrument`] → [`InstrumentedProgram`]: one instrumented copy per input file, the
//!   [`crate::automaton::Alphabet`] (the events, then `end`), every [`Event`] site and [`FunctionInfo`] with the
//!   user's file and line, and warnings about what the front end cannot see through.
//! * [`syntax_automaton`]: a [`Dfa`] accepting a superset of the entry function's event
//!   words, so that the words it rejects need no CBMC run.
//! * [`FrontEndError`]: syntax errors at the user's file:line, preprocessor failures, a
//!   missing entry function, an empty alphabet, I/O.
//!
//! The method is Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//! Software Errors* (JAIR 2020). Sec. 3 defines the language: the words of events an
//! execution emits. Sec. 4 and Fig. 8 instrument the program with a call at each event;
//! here that call is `__mergelens_event(K)`, with `K` the letter's index in the alphabet,
//! and `__mergelens_end()` marks the return of the entry function (the letter `end`, which
//! ends every word) and `__mergelens_exit()` each call of `exit`/`_Exit`/`abort` (the exit
//! points where Fig. 11 puts its trap). The query harnesses define these three hooks.
//! Sec. 4, "Optimisations", answers words the control-flow graph cannot produce without
//! CBMC; [`syntax_automaton`] is that pre-check.
//!
//! How a program is read: each file goes through `gcc -E` with the user's `-I`/`-D`, so
//! macros and includes are what the compiler sees; `MERGELENS_EVENT(x)` is defined for that
//! run as a call of `__mergelens_marker(x)`, so markers survive preprocessing. tree-sitter-c
//! parses the result, and gcc's line markers map every node back to the user's file and line.
//! The instrumented copy is the preprocessed text with insertions only (plus the marker
//! calls and `return` keywords replaced on their line), line markers kept, so gcc, goto-cc
//! and CBMC report the user's lines. The sources are never modified.
//!
//! Error mode ([`instrument_error`], the paper's error explanation, Sec. 3, Eq. 4 and Fig. 8's
//! `Learn_Assert`): the letter `assert` replaces `end`. The target assertion calls
//! `__mergelens_end()` exactly when its condition is false (a failing assertion ends the
//! word), the entry function's returns call `__mergelens_exit()` (a run that returns without
//! failing is an exit point for the trap of Fig. 11), and every other assertion is rewritten
//! to evaluate its condition and do nothing: it neither stops nor counts, and CBMC has no
//! property of the program's own to check. The harnesses stay those of program explanation,
//! with `assert` as their end letter.
//!
//! Several input files give several instrumented files (`paths`), one translation unit each,
//! all declaring the hooks: concatenating translation units would clash on `static` names
//! and repeated type definitions. The files are compiled and linked together.

mod cfg;
mod concrete;
mod dialect;
mod edit;
mod error;
mod frontend;
pub(crate) mod line_directives;
mod precheck;
mod preprocess;
pub mod product;
mod program;
mod syntax;
mod system_headers;
mod three_valued;
mod warning;

use std::path::{Path, PathBuf};

use crate::automaton::Dfa;

pub use cfg::SiteKind;
pub use concrete::ConcreteTextError;
pub(crate) use concrete::concrete_text;
pub use error::FrontEndError;
pub use frontend::{HARNESS_BUFFER, HARNESS_DEPTH, HarnessError, HarnessSkeleton};
pub use program::{
    ASSERT_LETTER, AssertionKind, AssertionSite, AssertionTarget, CallSite, END_LETTER, Event,
    EventKind, FrontEndConfig, FunctionInfo, FunctionOrigin, HunkCode, InstrumentedProgram,
    LineRange, UnknownEventKind,
};
pub use three_valued::{ThreeValued, explain_values, learn_values};
pub use warning::{FrontEndWarning, LISTED_WARNINGS, WarningKind, count_by_kind};

/// Everything the front end adds to a program, as text: the hook declarations, the
/// `mergelens.h` header, the exit calls it hooks and the flags of every `gcc -E` run. A
/// cache key includes it, so that answers learned under other instrumentation are not
/// served.
pub(crate) fn instrumentation_text() -> String {
    let mut text = String::new();
    text.push_str(frontend::HOOKS);
    text.push_str(frontend::HEADER);
    text.push_str(&cfg::EXITS.join(" "));
    text.push('\n');
    text.push_str(&preprocess::LIBRARY_FLAGS.join(" "));
    text.push('\n');
    text.push_str(preprocess::MARKER_FN);
    text
}

impl InstrumentedProgram {
    /// A hex digest of the preprocessed program's tokens (not its layout, nor the file
    /// names, which differ between checkouts of one version) and of the settings that change
    /// what is learned: equal fingerprints, equal languages.
    pub fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }

    /// The fingerprint of the code the entry can run: the program token for token after
    /// preprocessing, less the functions its executions cannot call (by the call graph,
    /// every address-taken function counted once a call through a pointer is reachable).
    /// Two versions with one slice fingerprint behave alike at this entry, on every input
    /// and at every bound. `None` when the graph cannot tell (`goto` into the unknown).
    pub fn slice_fingerprint(&self) -> Option<&str> {
        self.slice_fingerprint.as_deref()
    }

    /// The names of the functions an execution of the entry may call (by the call graph;
    /// see [`precheck::callable_functions`]), or `None` when the graph cannot tell.
    pub fn callable_functions(&self) -> Option<Vec<String>> {
        let callable = precheck::callable_functions(&self.model)?;
        Some(
            callable
                .into_iter()
                .filter_map(|f| self.functions.get(f).map(|i| i.name.clone()))
                .collect(),
        )
    }

    /// The functions reachable from the entry that can call themselves (by the call graph),
    /// for bounding their recursion as loops are bounded. A name defined more than once (a
    /// `static` function in several files, which goto-cc renames) is left out: CBMC would
    /// not know it.
    pub fn recursive_functions(&self) -> Vec<String> {
        let defined = |name: &str| self.functions.iter().filter(|f| f.name == name).count();
        precheck::recursive_functions(&self.model)
            .into_iter()
            .map(|f| self.functions[f].name.clone())
            .filter(|name| defined(name) == 1)
            .collect()
    }
}

/// The stack of the front end's thread, sized for [`syntax::MAX_NESTING`].
const FRONT_END_STACK: usize = 256 << 20;

/// Preprocesses, parses and instruments `config.files`, writing the instrumented copies
/// (and a copy of `mergelens.h` under `include/`, found by `#include "mergelens.h"`) into
/// `out_dir`, which must exist.
pub fn instrument(
    config: &FrontEndConfig,
    out_dir: &Path,
) -> Result<InstrumentedProgram, FrontEndError> {
    on_large_stack(out_dir, || frontend::run(config, None, out_dir))
}

/// `work()` on a thread of its own with a [`FRONT_END_STACK`] stack: syntax trees of
/// generated code can nest deeply and every walk of the front end recurses over them.
fn on_large_stack<T: Send>(
    out_dir: &Path,
    work: impl FnOnce() -> Result<T, FrontEndError> + Send,
) -> Result<T, FrontEndError> {
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("mergelens-cprog".into())
            .stack_size(FRONT_END_STACK)
            .spawn_scoped(scope, work)
            .map_err(|source| FrontEndError::Io {
                path: out_dir.to_path_buf(),
                source,
            })?
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Every function the files of `config` define, with its lines, without instrumenting them
/// for an entry (`config.entry` is not looked up), and the fingerprint of the program's
/// code after preprocessing, token by token: two versions with one fingerprint are one
/// program.
pub fn functions(
    config: &FrontEndConfig,
    out_dir: &Path,
) -> Result<(Vec<FunctionInfo>, String), FrontEndError> {
    on_large_stack(out_dir, || frontend::functions(config, out_dir))
}

/// The harness `init --harness-for` writes for `config.entry`: what the review's generated
/// entry harness does, with readable names, for a file of its own (see
/// [`HarnessSkeleton`]).
pub fn harness_skeleton(
    config: &FrontEndConfig,
    out_dir: &Path,
) -> Result<HarnessSkeleton, FrontEndError> {
    on_large_stack(out_dir, || frontend::harness_skeleton(config, out_dir))
}

/// Whether `file` preprocesses with gcc under `include_dirs` and `defines` as the front end
/// runs it (the reason when it does not): what `mergelens init` leaves a file out for.
pub fn preprocess_check(
    file: &Path,
    include_dirs: &[PathBuf],
    defines: &[String],
) -> Result<(), FrontEndError> {
    let dir = tempfile::tempdir().map_err(|source| FrontEndError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    let header = dir.path().join("mergelens.h");
    std::fs::write(&header, frontend::HEADER).map_err(|source| FrontEndError::Io {
        path: header.clone(),
        source,
    })?;
    let flags = preprocess::compiler_flags(include_dirs, defines, dir.path());
    let places = system_headers::Places::new(dir.path(), None)?;
    preprocess::preprocess(file, &flags, &[], &places).map(drop)
}

/// [`instrument`] in error mode for `target` (see the module documentation): the alphabet
/// ends with [`ASSERT_LETTER`] instead of `end`, and `end` (the field) is that letter.
/// [`FrontEndError::NoAssertion`] if the analysed files have no assertion,
/// [`FrontEndError::UnknownAssertion`] (listing them) if none is at the target.
pub fn instrument_error(
    config: &FrontEndConfig,
    target: &AssertionTarget,
    out_dir: &Path,
) -> Result<InstrumentedProgram, FrontEndError> {
    on_large_stack(out_dir, || frontend::run(config, Some(target), out_dir))
}

/// The pre-check automaton of Sec. 4, "Optimisations": a minimal DFA over
/// `program.alphabet` that accepts every event word (ending in `end`) of at most
/// `max_word_length` letters, `end` included, of every execution of the entry function, and
/// usually more. A word it rejects can be answered "no" without CBMC: the teacher never
/// accepts a longer word either (Eqn. (4) of the paper); pass `usize::MAX` for no length
/// bound.
///
/// `unwind` sets how many times recursive functions are inlined into themselves (deeper
/// recursion is over-approximated by "any events"). Loops are stars whatever the bound, so
/// the automaton stays an over-approximation however the teacher counts iterations (with
/// `cbmc --unwind 3` a loop body runs at most twice and a `do`/`while` body three times).
///
/// In error mode (Eq. 4: the words of the runs that violate the target assertion, `end`
/// being the letter `assert`) the automaton accepts the words of the path prefixes that
/// lead from the entry function's start to the target's failure point, followed by
/// `assert`. A failing run stops there and never returns from the calls pending at that
/// moment, so this language is regular with no approximation beyond the callee summaries':
/// each call may complete (its summary) or be the one the failure happens in (a descent
/// into the callee's graph, shared by all callers). The events of the assertion's own
/// condition come before `assert`, as the instrumentation emits them; other assertions
/// are ordinary code; the entry's return and `exit`/`abort` end a path without accepting.
/// Where control can go anywhere (non-local jumps, threads, a recursive entry or one used
/// as a value) or the automaton grows too large, it is only the shape of the words,
/// `(events)* assert`. The construction is documented in `src/cprog/precheck/` (error mode in `error_mode.rs`).
pub fn syntax_automaton(program: &InstrumentedProgram, unwind: u32, max_word_length: usize) -> Dfa {
    let d = if program.error_mode {
        precheck::error_mode::build_error(&program.model, &program.alphabet, program.end, unwind)
    } else {
        precheck::build(&program.model, &program.alphabet, program.end, unwind)
    };
    precheck::bound_length(&d, max_word_length)
}
