//! What `mergelens learn` and `mergelens explain` print the same way: the front end's
//! warnings, the notices and progress of a run ([`Watch`], the binary's
//! [`mergelens::language::Watcher`]), SVG drawings and the `--stats` document. Their options
//! are [`mergelens::language::ProgramOptions`].

use std::cell::RefCell;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use super::progress::Progress;
use mergelens::automaton::{Dfa, Marks, svg};
use mergelens::cbmc::{Allocations, TeacherStats};
use mergelens::cprog::{FrontEndWarning, LISTED_WARNINGS, count_by_kind};
use mergelens::language::{Ending, Notice, Watcher};

/// A run's progress (a spinner on a terminal, else a plain line every few seconds) and its
/// warnings and notes, on standard error. The progress starts with a phase and ends when
/// learning is done; a later phase starts it again (`init`'s ladder learns several times).
pub(crate) struct Watch {
    what: &'static str,
    progress: RefCell<Option<Progress>>,
}

impl Watch {
    /// `what` names the run in plain progress lines, e.g. `learning`.
    pub(crate) fn new(what: &'static str) -> Watch {
        Watch {
            what,
            progress: RefCell::new(None),
        }
    }

    /// Runs `f` on the progress, started if it is not running.
    fn with<T>(&self, f: impl FnOnce(&Progress) -> T) -> T {
        let mut progress = self.progress.borrow_mut();
        f(progress.get_or_insert_with(|| Progress::new(self.what)))
    }
}

impl Watcher for Watch {
    fn phase(&self, phase: String) {
        self.with(|p| p.set_phase(phase));
    }

    fn teacher(&self) -> Box<dyn FnMut(&TeacherStats)> {
        self.with(|p| Box::new(p.observer()) as Box<dyn FnMut(&TeacherStats)>)
    }

    fn done(&self) {
        if let Some(mut progress) = self.progress.borrow_mut().take() {
            progress.finish();
        }
    }

    fn notice(&self, notice: Notice) {
        print_notice(&notice);
    }
}

/// `mergelens: warning: ...` or `mergelens: note: ...`.
pub(crate) fn print_notice(notice: &Notice) {
    match notice {
        Notice::Warning(text) => errln!("mergelens: warning: {text}"),
        Notice::Note(text) => errln!("mergelens: note: {text}"),
    }
}

/// The warning of a partial result, or the note of a PAC one or of one exact only up to
/// some length; `what` names the run (`learning`).
pub(crate) fn print_ending(ending: &Ending<'_>, what: &str) {
    if let Some(partial) = ending.partial {
        super::anytime::warn(partial, what);
    } else if let Some((pac, _)) = ending.pac {
        errln!("mergelens: note: {}", pac.guarantee);
    } else if let Some(e) = ending.exactness.filter(|e| !e.is_complete()) {
        errln!(
            "mergelens: note: exact up to length {} only: {} accepted words of {} to {} letters were not checked against CBMC (raise --exact-limit to check them)",
            e.exact_up_to,
            e.unchecked_words,
            e.exact_up_to + 1,
            e.max_word_length
        );
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
