//! `mergelens automaton learn TARGET.json`: learn a known automaton with the simulated
//! teacher, to test and measure the learner without CBMC.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use anyhow::Context;

use mergelens::automaton::json;
use mergelens::learn::{CexProcessing, DfaTeacher, GuessPolicy, LearnConfig, Learner, QueryCache};

use super::review::UsageError;
use super::write_output;

/// `--lazy`: lazy learning's guess, or none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LazyMode {
    /// Every membership query goes to the teacher.
    #[default]
    Off,
    /// Guess "yes" (program explanation).
    Yes,
    /// Guess "no" (error explanation).
    No,
}

impl LazyMode {
    pub fn policy(self) -> GuessPolicy {
        match self {
            LazyMode::Off => GuessPolicy::Off,
            LazyMode::Yes => GuessPolicy::Constant(true),
            LazyMode::No => GuessPolicy::Constant(false),
        }
    }
}

impl fmt::Display for LazyMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.policy().name())
    }
}

impl FromStr for LazyMode {
    type Err = mergelens::learn::ParseError;

    fn from_str(s: &str) -> Result<LazyMode, Self::Err> {
        Ok(match s.parse::<GuessPolicy>()? {
            GuessPolicy::Constant(true) => LazyMode::Yes,
            GuessPolicy::Constant(false) => LazyMode::No,
            _ => LazyMode::Off,
        })
    }
}

/// The arguments of `mergelens automaton learn`.
#[derive(Clone, Debug)]
pub struct LearnTargetArgs {
    /// The target automaton (`mergelens-dfa/1`), `-` for standard input.
    pub target: PathBuf,
    pub lazy: LazyMode,
    pub cex: CexProcessing,
    /// Also write the statistics (pretty JSON) here.
    pub stats: Option<PathBuf>,
    /// Share of guesses to spoil, in `[0, 1]`; needs `--lazy yes` or `--lazy no`.
    pub wrong_guess_rate: f64,
    pub seed: u64,
    /// Suggested default: [`mergelens::learn::DEFAULT_MAX_STATES`].
    pub max_states: usize,
    /// Suggested default: [`mergelens::learn::DEFAULT_MAX_EQUIVALENCE_QUERIES`].
    pub max_equivalence_queries: usize,
    /// Where the learned automaton goes; standard output when `None`.
    pub output: Option<PathBuf>,
}

/// Learns the target, writes the learned automaton and prints the statistics to standard
/// error as one JSON line (also when learning fails, since they say how far it got).
pub fn run(args: &LearnTargetArgs) -> anyhow::Result<()> {
    // Usage errors, said before the run (whose statistics line a failed run prints too).
    let rate = args.wrong_guess_rate;
    if !(0.0..=1.0).contains(&rate) {
        anyhow::bail!(UsageError(format!(
            "--wrong-guess-rate {rate}: a share of the guesses, between 0 and 1"
        )));
    }
    if rate != 0.0 && args.lazy == LazyMode::Off {
        anyhow::bail!(UsageError(
            "--wrong-guess-rate spoils guesses, so it needs --lazy yes or --lazy no".to_string()
        ));
    }
    let target = json::read(&args.target)?;
    let config = LearnConfig {
        cex: args.cex,
        guess: args.lazy.policy(),
        wrong_guess_rate: args.wrong_guess_rate,
        seed: args.seed,
        max_states: args.max_states,
        max_equivalence_queries: args.max_equivalence_queries,
        ..LearnConfig::default()
    };
    let alphabet = target.alphabet().clone();
    let mut cache = QueryCache::new(alphabet.clone());
    let mut learner = Learner::new(alphabet, config);
    let result = learner.run(&mut DfaTeacher::new(target), &mut cache);
    let stats = learner.stats();
    errln!("{}", stats.to_json());
    if let Some(path) = &args.stats {
        let mut text = serde_json::to_string_pretty(stats).expect("statistics always serialise");
        text.push('\n');
        std::fs::write(path, text)
            .with_context(|| format!("cannot write the statistics to {}", path.display()))?;
    }
    let learned = result.with_context(|| format!("learning {} failed", args.target.display()))?;
    let mut text = json::to_string(&learned);
    text.push('\n');
    write_output(args.output.as_deref(), &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mergelens::automaton::{Alphabet, Dfa};

    fn args(dir: &std::path::Path, target: &Dfa) -> LearnTargetArgs {
        let path = dir.join("target.json");
        std::fs::write(&path, json::to_string(target)).unwrap();
        LearnTargetArgs {
            target: path,
            lazy: LazyMode::No,
            cex: CexProcessing::RivestSchapire,
            stats: Some(dir.join("stats.json")),
            wrong_guess_rate: 0.2,
            seed: 1,
            max_states: 100,
            max_equivalence_queries: 100,
            output: Some(dir.join("learned.json")),
        }
    }

    fn b_then_a() -> Dfa {
        let mut d = Dfa::with_states(Alphabet::from_names(["a", "b"]), 3);
        d.set_transition(0, 1, 1);
        d.set_transition(1, 0, 2);
        d.set_accepting(2, true);
        d
    }

    #[test]
    fn writes_the_learned_automaton_and_the_statistics() {
        let dir = tempfile::tempdir().unwrap();
        let args = args(dir.path(), &b_then_a());
        run(&args).unwrap();
        let learned = json::read(args.output.as_ref().unwrap()).unwrap();
        assert_eq!(learned, mergelens::automaton::ops::minimize(&b_then_a()));
        let stats: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(args.stats.as_ref().unwrap()).unwrap())
                .unwrap();
        for key in [
            "membership_queries",
            "from_cache",
            "from_precheck",
            "from_guess",
            "from_teacher",
            "teacher_batches",
            "guesses_confirmed",
            "guesses_wrong",
            "equivalence_queries",
            "restarts",
            "states",
            "wall_seconds",
            "guess_accuracy",
        ] {
            assert!(stats.get(key).is_some(), "no {key} in {stats}");
        }
        assert_eq!(stats["states"], 3);
    }

    #[test]
    fn refuses_bad_arguments_and_reports_limits() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = args(dir.path(), &b_then_a());
        a.lazy = LazyMode::Off;
        let err = run(&a).unwrap_err().to_string();
        assert!(err.contains("needs --lazy"), "{err}");
        a.wrong_guess_rate = 0.0;
        a.max_states = 1;
        let err = format!("{:#}", run(&a).unwrap_err());
        assert!(err.contains("more than 1 states"), "{err}");
        assert!(dir.path().join("stats.json").exists());
        std::fs::write(&a.target, "{}").unwrap();
        assert!(run(&a).is_err());
    }

    #[test]
    fn lazy_names_parse() {
        assert_eq!("no".parse::<LazyMode>().unwrap(), LazyMode::No);
        assert_eq!("off".parse::<LazyMode>().unwrap().to_string(), "off");
        assert!("maybe".parse::<LazyMode>().is_err());
    }
}
