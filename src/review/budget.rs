//! A review or diff stopped by `--time-budget` or Ctrl-C ([`crate::stop`]), or one version's
//! learning cut by a CBMC run past its query timeout or memory limit: what a version whose
//! learning was cut short contributes, and the reasons that make the verdict `inconclusive`.
//!
//! Key items: [`Stopped`] (one version's learning, cut short) and [`partial`], which keeps
//! the teacher's last conjecture built on confirmed answers (as `mergelens learn` does), or
//! the empty language, marked unlearned, when the learner had not conjectured yet. Either
//! way the automaton is right only up to [`Stopped::exact_up_to`] letters, so the languages
//! computed from it are shown but are no findings: the verdict is `inconclusive`.

use crate::automaton::{Dfa, ops};
use crate::cbmc::CbmcTeacher;
use crate::cbmc::learning::LearningError;
use crate::cbmc::{CbmcRunError, CbmcTeacherError};
use crate::cprog::InstrumentedProgram;

/// One version's learning, cut short.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Stopped {
    /// Why, in words: the stop request, or the limit a CBMC run passed.
    pub reason: String,
    /// Every word of at most this many letters is classified as the known answers say.
    pub exact_up_to: usize,
    /// Whether the learner had conjectured; otherwise the automaton is the empty language.
    pub conjecture: bool,
}

impl Stopped {
    /// Why the verdict is inconclusive, naming the version and entry.
    pub(crate) fn reason_text(&self, what: &str) -> String {
        if self.conjecture {
            format!(
                "{what}: learning stopped early ({}); its automaton is the last conjecture, right up to {} letters only",
                self.reason, self.exact_up_to
            )
        } else {
            format!(
                "{what}: learning stopped early ({}) before a first conjecture; its automaton is the empty language, unlearned",
                self.reason
            )
        }
    }
}

/// When the run has been stopped already: the reason `entry` is not learned at all.
pub(crate) fn skipped(entry: &str) -> Option<String> {
    crate::stop::stop_reason().map(|reason| {
        format!("entry `{entry}`: not learned, the run was stopped before it ({reason})")
    })
}

/// Why learning was cut short, if a stop request or a limit of one CBMC run ended it: the
/// run stops there for this version, which keeps what it learned, and the review goes on.
pub(crate) fn cut_of(error: &LearningError) -> Option<String> {
    match error {
        LearningError::Teacher(CbmcTeacherError::Stopped { reason }) => Some(reason.to_string()),
        LearningError::Teacher(e @ CbmcTeacherError::Timeout { .. }) => Some(e.to_string()),
        LearningError::Teacher(CbmcTeacherError::Query {
            source: e @ CbmcRunError::OutOfMemory { .. },
            ..
        }) => Some(e.to_string()),
        _ => None,
    }
}

/// What a stopped run keeps: the last conjecture on confirmed answers (minimal), or the
/// empty language when there was none.
pub(crate) fn partial(
    teacher: &CbmcTeacher<'_>,
    program: &InstrumentedProgram,
    reason: String,
) -> (Dfa, Stopped) {
    let conjecture = teacher.last_conjecture().cloned();
    let stopped = Stopped {
        reason,
        exact_up_to: conjecture
            .as_ref()
            .map_or(0, |dfa| teacher.agrees_up_to(dfa)),
        conjecture: conjecture.is_some(),
    };
    let dfa = ops::minimize(&conjecture.unwrap_or_else(|| Dfa::new(program.alphabet.clone())));
    (dfa, stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_says_what_the_automaton_is() {
        let s = Stopped {
            reason: crate::stop::StopReason::TimeBudget.to_string(),
            exact_up_to: 3,
            conjecture: true,
        };
        let text = s.reason_text("ours (main)");
        assert!(text.starts_with("ours (main): learning stopped early (the time budget ran out)"));
        assert!(text.ends_with("right up to 3 letters only"), "{text}");
        let none = Stopped {
            conjecture: false,
            ..s.clone()
        };
        assert!(
            none.reason_text("base (main)")
                .contains("empty language, unlearned")
        );
    }
}
