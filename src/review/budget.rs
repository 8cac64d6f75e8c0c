//! A review or diff stopped by `--time-budget` or Ctrl-C ([`crate::stop`]), one version's
//! learning cut by a CBMC run past its query timeout or memory limit, or a tool that failed
//! on the reviewed branch's code: what a version whose learning was cut short contributes,
//! and the reasons that make a review's verdict `unfinished`.
//!
//! Key items: [`Stopped`] (one version's learning, cut short) and [`partial`], which keeps
//! the teacher's last conjecture built on confirmed answers (as `mergelens learn` does), or
//! the empty language, marked unlearned, when the learner had not conjectured yet. Either
//! way the automaton is right only up to [`Stopped::exact_up_to`] letters, so the languages
//! computed from it are shown but are no findings: the verdict is `unfinished`.
//! [`tool_failure`] tells a tool failing on the branch's code (a reason, the review goes
//! on) from a failure of the setup (an error).

use crate::automaton::{Dfa, ops};
use crate::cbmc::CbmcTeacher;
use crate::cbmc::learning::LearningError;
use crate::cbmc::{CbmcRunError, CbmcTeacherError};
use crate::cprog::{FrontEndError, InstrumentedProgram};
use crate::document::Version;

use super::error::ReviewError;

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
    /// Why the verdict is unfinished, naming the version and entry.
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

/// Why an entry's review did not finish, when `error` is a tool failing or stopping on code
/// the reviewed branch controls: gcc -E or the front end rejecting it, goto-cc rejecting
/// it, CBMC crashing or passing a limit on it, in theirs or the merge result (or in the
/// product of the four versions). A branch can cause each on purpose, so it is recorded as
/// `unfinished` (which `fail-on` can name) and the review goes on, where an error would let
/// the hook's `on-error = "allow"` pass the merge unreviewed. The same failure on the base
/// or ours, the owner's own code, and failures of the setup (a missing tool, a file that
/// cannot be written) stay errors: they say the setup is broken, whatever the branch is.
pub(crate) fn tool_failure(error: &ReviewError) -> Option<String> {
    let branch = |v: &Version| matches!(v, Version::Theirs | Version::Merged);
    let contained = match error {
        ReviewError::FrontEnd {
            version, source, ..
        } => {
            branch(version)
                && matches!(
                    **source,
                    FrontEndError::SyntaxError { .. }
                        | FrontEndError::Preprocess { .. }
                        | FrontEndError::Stopped { .. }
                )
        }
        ReviewError::Teacher {
            version, source, ..
        } => {
            branch(version)
                && match &**source {
                    CbmcTeacherError::Compile(e) | CbmcTeacherError::Query { source: e, .. } => {
                        tool_run(e)
                    }
                    CbmcTeacherError::Timeout { .. }
                    | CbmcTeacherError::Stopped { .. }
                    | CbmcTeacherError::ConcreteDisagrees { .. } => true,
                }
        }
        ReviewError::Product { source, .. } => tool_run(source),
        _ => false,
    };
    contained.then(|| format!("{error}; this entry's review did not finish"))
}

/// Whether a tool's run failed on the program it was given (not for want of the tool or a
/// file).
fn tool_run(error: &CbmcRunError) -> bool {
    !matches!(error, CbmcRunError::Io { .. })
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
