//! The bounds `mergelens init` learns a new configuration's entry at, and the bound it
//! suggests from what it measured.
//!
//! Key items: `LADDER`, [`climb`] (one learning per step, each measured: [`Step`]) and
//! `suggestion` (the largest bounds that finished with executions in their language, and
//! what the suggestion rests on; or no bound, and why).

use std::path::Path;
use std::time::{Duration, Instant};

use super::error::SetupError;
use crate::automaton::{Dfa, ops};
use crate::cbmc::learning::{LearningError, learn_with_teacher};
use crate::cbmc::{CbmcTeacher, CbmcTeacherError, LearnBounds, TeacherOptions, Toolchain};
use crate::config::FILE_NAME;
use crate::cprog::InstrumentedProgram;
use crate::git::GitRepo;
use crate::language::Watcher;
use crate::learn::GuessPolicy;
use crate::trust::{self, UserConfig};

/// The bounds `init` learns at, smallest first: each step is tried while the one before
/// finished in at most a quarter of the budget, and the suggestion is the largest that
/// finished with executions in its language.
const LADDER: [LearnBounds; 3] = [
    LearnBounds {
        unwind: 1,
        max_word_length: 6,
    },
    LearnBounds {
        unwind: 2,
        max_word_length: 10,
    },
    LearnBounds {
        unwind: 3,
        max_word_length: 12,
    },
];

/// One learning of `init`'s ladder, as measured.
pub struct Step {
    pub bounds: LearnBounds,
    pub took: Duration,
    pub stopped: bool,
    /// The language is empty (only said of a learning that finished).
    pub empty: bool,
    /// The minimal automaton's states, and the CBMC runs the learning took.
    pub states: usize,
    pub cbmc_runs: u64,
}

/// Learns `entry` at each bound of `LADDER` in turn while the one before finished within a
/// quarter of `budget`, giving each step to `on_step`; what the measurements suggest.
pub fn climb(
    (instrumented, tools): (&InstrumentedProgram, &Toolchain),
    root: &Path,
    (entry, budget): (&str, Duration),
    watcher: &dyn Watcher,
    on_step: &mut dyn FnMut(&Step),
) -> Result<String, SetupError> {
    let mut steps: Vec<Step> = Vec::new();
    for bounds in LADDER {
        let step = learn_step((instrumented, tools), root, entry, bounds, watcher)?;
        on_step(&step);
        let go_on = !step.stopped && step.took * 4 <= budget;
        steps.push(step);
        if !go_on {
            break;
        }
    }
    Ok(suggestion(&steps, entry, budget))
}

/// Learns `entry` at `bounds` (what is left of the budget) and returns the measurement.
fn learn_step(
    (instrumented, tools): (&InstrumentedProgram, &Toolchain),
    root: &Path,
    entry: &str,
    bounds: LearnBounds,
    watcher: &dyn Watcher,
) -> Result<Step, SetupError> {
    let started = Instant::now();
    let mut teacher = CbmcTeacher::new(
        instrumented,
        tools.clone(),
        root.to_path_buf(),
        bounds,
        TeacherOptions::default(),
    );
    watcher.phase(format!(
        "`{entry}` at --unwind {} --max-word-length {}",
        bounds.unwind, bounds.max_word_length
    ));
    teacher.on_progress(watcher.teacher());
    let result = learn_with_teacher(&mut teacher, instrumented, GuessPolicy::Constant(true));
    watcher.done();
    let took = started.elapsed();
    let cbmc_runs = teacher.stats().cbmc_runs;
    let (dfa, stopped) = match result {
        Ok(run) => (ops::minimize(&run.dfa), false),
        Err(LearningError::Teacher(CbmcTeacherError::Stopped { .. })) => (
            teacher
                .last_conjecture()
                .map(ops::minimize)
                .unwrap_or_else(|| Dfa::new(instrumented.alphabet.clone())),
            true,
        ),
        Err(source) => {
            return Err(SetupError::Learning {
                entry: entry.to_string(),
                source: Box::new(source),
            });
        }
    };
    let empty = !stopped && !dfa.states().any(|q| dfa.is_accepting(q));
    Ok(Step {
        bounds,
        took,
        stopped,
        empty,
        states: dfa.num_states(),
        cbmc_runs,
    })
}

/// The CBMC of the repository around the current directory: `cbmc`, else as the trust
/// rules find it (the user's configuration, the `PATH`).
pub fn toolchain(cbmc: Option<&Path>) -> Result<Toolchain, SetupError> {
    let user = UserConfig::load()?;
    let (cbmc, _) = trust::cbmc_path(cbmc, Some(&GitRepo::from_env()?), &user);
    Ok(Toolchain::locate(cbmc.as_deref())?)
}

/// What the ladder's measurements suggest: the largest bounds that finished with executions
/// in their language, and why no larger one; or no bound, and why.
fn suggestion(steps: &[Step], entry: &str, budget: Duration) -> String {
    let best = steps.iter().rev().find(|s| !s.stopped && !s.empty);
    let Some(best) = best else {
        let largest_finished = steps.iter().rev().find(|s| !s.stopped);
        return match largest_finished {
            Some(s) => format!(
                "no bound suggested: no execution of `{entry}` returns within --unwind {} --max-word-length {}, the largest bounds learned; its loops may need more iterations than that, or a harness that bounds them",
                s.bounds.unwind, s.bounds.max_word_length
            ),
            None => format!(
                "no bound suggested: learning did not finish at the smallest bounds within {:.0} s; give init a larger --time-budget, give reviews a --time-budget, or narrow the alphabet with `only`/`exclude`",
                budget.as_secs_f64()
            ),
        };
    };
    let next = steps.iter().find(|s| s.bounds.unwind > best.bounds.unwind);
    let why = match next {
        Some(n) if n.stopped => format!(
            "--unwind {} --max-word-length {} did not finish within the {:.0} s budget",
            n.bounds.unwind,
            n.bounds.max_word_length,
            budget.as_secs_f64()
        ),
        _ if best.bounds.unwind == LADDER[LADDER.len() - 1].unwind => {
            "the largest bounds init tries".to_string()
        }
        _ => format!(
            "learning there took {:.1} s, over a quarter of the {:.0} s budget, so larger bounds were not tried",
            best.took.as_secs_f64(),
            budget.as_secs_f64()
        ),
    };
    format!(
        "suggested bound: unwind = {}, max-word-length = {} (add them to {FILE_NAME}; measured: learned in {:.1} s; {why})",
        best.bounds.unwind,
        best.bounds.max_word_length,
        best.took.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(k: usize, secs: u64, stopped: bool, empty: bool) -> Step {
        Step {
            bounds: LADDER[k],
            took: Duration::from_secs(secs),
            stopped,
            empty,
            states: 1,
            cbmc_runs: 1,
        }
    }

    #[test]
    fn the_suggestion_is_what_was_measured() {
        let budget = Duration::from_secs(60);
        let said = suggestion(
            &[
                step(0, 1, false, false),
                step(1, 2, false, false),
                step(2, 5, false, false),
            ],
            "main",
            budget,
        );
        assert!(
            said.starts_with("suggested bound: unwind = 3, max-word-length = 12"),
            "{said}"
        );
        assert!(
            said.contains("learned in 5.0 s; the largest bounds init tries"),
            "{said}"
        );
        let said = suggestion(
            &[step(0, 1, false, false), step(1, 59, true, false)],
            "main",
            budget,
        );
        assert!(
            said.starts_with("suggested bound: unwind = 1, max-word-length = 6"),
            "{said}"
        );
        assert!(
            said.contains("--unwind 2 --max-word-length 10 did not finish within the 60 s budget"),
            "{said}"
        );
        let said = suggestion(&[step(0, 20, false, false)], "main", budget);
        assert!(said.contains("over a quarter of the 60 s budget"), "{said}");
        // Empty everywhere: no bound, and why.
        let said = suggestion(
            &[
                step(0, 1, false, true),
                step(1, 1, false, true),
                step(2, 1, false, true),
            ],
            "main",
            budget,
        );
        assert!(
            said.starts_with(
                "no bound suggested: no execution of `main` returns within --unwind 3"
            ),
            "{said}"
        );
        // Empty at the first step only: the next one is suggested.
        let said = suggestion(
            &[step(0, 1, false, true), step(1, 16, false, false)],
            "main",
            budget,
        );
        assert!(said.starts_with("suggested bound: unwind = 2"), "{said}");
        let said = suggestion(&[step(0, 60, true, false)], "main", budget);
        assert!(
            said.starts_with("no bound suggested: learning did not finish"),
            "{said}"
        );
    }
}
