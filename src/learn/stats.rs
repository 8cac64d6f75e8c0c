use serde::Serialize;

/// What a learning run cost, written as one JSON object.
///
/// The membership counts add up: `membership_queries = from_cache + from_precheck +
/// from_guess + (from_teacher - guesses_checked)`, where `guesses_checked =
/// guesses_confirmed + guesses_wrong` are the teacher's answers to the lazy learner's
/// checks of its guesses before each equivalence query.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LearnStats {
    /// The counterexample processing (`rs`, `angluin`, `mp`).
    pub cex: String,
    /// The guess policy (`off`, `yes`, `no`, `oracle`).
    pub guess: String,
    pub letters: usize,
    /// Words the learner asked for, repeats included.
    pub membership_queries: u64,
    /// ... of which the query cache knew the answer.
    pub from_cache: u64,
    /// ... of which the teacher's pre-check answered.
    pub from_precheck: u64,
    /// ... of which the guess policy answered (lazy learning).
    pub from_guess: u64,
    /// Distinct words the teacher answered, checks of guesses included: what a model
    /// checker is asked.
    pub from_teacher: u64,
    /// ... of which concrete runs answered without a model checker (set by a teacher that
    /// has them, e.g. `crate::cbmc::CbmcTeacher` with concrete runs; part of `from_teacher`).
    pub from_concrete: u64,
    /// Calls of the teacher's batch membership query.
    pub teacher_batches: u64,
    pub guesses_confirmed: u64,
    pub guesses_wrong: u64,
    /// The paper's Table 1 `p`: `guesses_confirmed / (guesses_confirmed + guesses_wrong)`;
    /// `null` when nothing was guessed.
    pub guess_accuracy: Option<f64>,
    /// Whether the guesses proved so poor that the run stopped guessing
    /// ([`super::LearnConfig::min_guess_accuracy`]).
    pub guessing_stopped: bool,
    pub equivalence_queries: u64,
    /// Counterexamples the learner found without an equivalence query: words the cache
    /// knows and the conjecture gets wrong (including a reused counterexample).
    pub free_counterexamples: u64,
    /// Returns to the last conjecture after the teacher refuted a guess.
    pub restarts: u64,
    /// States of the result (trimmed: without the rejecting sink).
    pub states: usize,
    /// Columns (distinguishing suffixes) of the final observation table.
    pub columns: usize,
    /// Rows of the final observation table (`S` and `S·Σ`).
    pub rows: usize,
    pub wall_seconds: f64,
    /// The part of `wall_seconds` spent inside the teacher.
    pub teacher_seconds: f64,
}

impl LearnStats {
    /// One line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("statistics always serialise")
    }

    pub fn finish_accuracy(&mut self) {
        let checked = self.guesses_confirmed + self.guesses_wrong;
        self.guess_accuracy = (checked > 0).then(|| self.guesses_confirmed as f64 / checked as f64);
    }
}
