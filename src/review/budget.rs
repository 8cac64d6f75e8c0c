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

/// Why an entry's review did not finish, when `error` says it did not: a stop (the budget,
/// a signal) or a tool past its timeout or memory limit, in any version; or a tool failing
/// on code the reviewed branch controls: gcc -E or the front end rejecting it, goto-cc
/// rejecting it, CBMC crashing on it, in theirs or the merge result (or in the product of
/// the four versions). A branch can cause each on purpose, so it is recorded as
/// `unfinished` (which `fail-on` can name) and the review goes on, where an error would let
/// the hook's `on-error = "allow"` pass the merge unreviewed. The same rejection of the
/// base or ours, the owner's own code, and failures of the setup (a missing tool, a file
/// that cannot be written) stay errors: they say the setup is broken, whatever the branch.
pub(crate) fn tool_failure(error: &ReviewError) -> Option<String> {
    let branch = |v: &Version| matches!(v, Version::Theirs | Version::Merged);
    let contained = match error {
        ReviewError::FrontEnd {
            version, source, ..
        } => match **source {
            FrontEndError::Stopped { .. } => true,
            FrontEndError::SyntaxError { .. }
            | FrontEndError::Preprocess { .. }
            | FrontEndError::TooDeep { .. }
            | FrontEndError::DuplicateEntry { .. } => branch(version),
            _ => false,
        },
        ReviewError::Teacher {
            version, source, ..
        } => match &**source {
            CbmcTeacherError::Timeout { .. } | CbmcTeacherError::Stopped { .. } => true,
            CbmcTeacherError::Compile(e) | CbmcTeacherError::Query { source: e, .. } => {
                limit(e) || (branch(version) && tool_run(e))
            }
            CbmcTeacherError::ConcreteDisagrees { .. } => branch(version),
        },
        ReviewError::Product { source, .. } => tool_run(source),
        _ => false,
    };
    contained.then(|| {
        format!(
            "{}; this entry's review did not finish",
            crate::failure::text(error)
        )
    })
}

/// Whether a run was stopped or passed a limit (no fault of the program's or the setup's).
fn limit(error: &CbmcRunError) -> bool {
    matches!(
        error,
        CbmcRunError::Timeout { .. }
            | CbmcRunError::Limit { .. }
            | CbmcRunError::OutOfMemory { .. }
            | CbmcRunError::Stopped { .. }
    )
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

    fn front_end(version: Version, source: FrontEndError) -> ReviewError {
        ReviewError::FrontEnd {
            version,
            revision: "feature a5640c1".into(),
            entry: "main".into(),
            source: Box::new(source),
        }
    }

    fn teacher(version: Version, source: CbmcTeacherError) -> ReviewError {
        ReviewError::Teacher {
            version,
            revision: "feature a5640c1".into(),
            entry: "main".into(),
            source: Box::new(source),
        }
    }

    fn goto_cc() -> CbmcRunError {
        CbmcRunError::GotoCc {
            status: "exit status: 1".into(),
            message: "failed to find symbol 'x'".into(),
        }
    }

    #[test]
    fn the_branchs_code_failing_is_unfinished_and_the_owners_or_the_setups_an_error() {
        let syntax = || FrontEndError::SyntaxError {
            file: "prog.c".into(),
            line: 3,
            column: 1,
            message: "expected ;".into(),
        };
        let reason = tool_failure(&front_end(Version::Theirs, syntax())).unwrap();
        assert!(
            reason.starts_with("theirs (feature a5640c1), entry `main`: prog.c:3:1")
                && reason.ends_with("this entry's review did not finish"),
            "{reason}"
        );
        assert!(tool_failure(&front_end(Version::Base, syntax())).is_none());
        assert!(
            tool_failure(&teacher(
                Version::Merged,
                CbmcTeacherError::Compile(goto_cc())
            ))
            .is_some()
        );
        assert!(
            tool_failure(&teacher(
                Version::Ours,
                CbmcTeacherError::Compile(goto_cc())
            ))
            .is_none()
        );
        // A missing tool or file is the setup's.
        let io = CbmcRunError::Io {
            path: "/nonexistent/goto-cc".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert!(tool_failure(&teacher(Version::Theirs, CbmcTeacherError::Compile(io))).is_none());
        // A stop or a limit is unfinished in any version.
        let stopped = FrontEndError::Stopped {
            file: "prog.c".into(),
            reason: crate::stop::StopReason::TimeBudget,
        };
        assert!(tool_failure(&front_end(Version::Base, stopped)).is_some());
        let memory = CbmcTeacherError::Query {
            query: "membership".into(),
            unwind: 2,
            max_word_length: 10,
            source: CbmcRunError::OutOfMemory {
                tool: "CBMC",
                limit_mib: 300,
            },
        };
        assert!(tool_failure(&teacher(Version::Ours, memory)).is_some());
        let product = ReviewError::Product {
            entry: "main".into(),
            source: Box::new(goto_cc()),
        };
        assert!(tool_failure(&product).is_some());
        let config = ReviewError::EntryNowhere {
            entry: "main".into(),
        };
        assert!(tool_failure(&config).is_none());
    }

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
