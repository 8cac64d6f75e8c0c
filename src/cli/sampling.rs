//! The options of the sampling teachers `learn` and `explain` share: concrete runs as a
//! second teacher, and PAC equivalence (`--mode pac --epsilon E --delta D`).

use clap::{Args, ValueEnum};

/// How conjectures are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// CBMC decides every conjecture: the result is exact within the bounds.
    Exact,
    /// Conjectures are checked on samples (Angluin's PAC equivalence): the result is
    /// probably approximately correct, and says so everywhere.
    Pac,
}

#[derive(Debug, Args)]
pub struct SamplingCli {
    /// Concrete runs (gcc, inputs from a seeded generator) before learning: their words are
    /// "yes" answers without CBMC and the guesses of lazy learning; 200 is a good number, 0
    /// (the default) for none. A program gcc cannot build that way gets none.
    #[arg(long, value_name = "N", default_value_t = mergelens::language::DEFAULT_CONCRETE_RUNS)]
    pub concrete_runs: u64,
    /// `exact`, or `pac`: conjectures are checked on samples, not by CBMC's conjecture query
    /// (membership queries still go to CBMC).
    #[arg(long, value_enum, default_value_t = ModeArg::Exact)]
    pub mode: ModeArg,
    /// With --mode pac: the largest share of sampled words the result may get wrong.
    #[arg(long, value_name = "E", default_value_t = 0.05, requires = "mode", value_parser = super::values::share)]
    pub epsilon: f64,
    /// With --mode pac: the largest probability that the result errs on more than E.
    #[arg(long, value_name = "D", default_value_t = 0.05, requires = "mode", value_parser = super::values::share)]
    pub delta: f64,
}

impl SamplingCli {
    pub fn into_args(self) -> mergelens::language::SamplingOptions {
        mergelens::language::SamplingOptions {
            concrete_runs: self.concrete_runs,
            pac: (self.mode == ModeArg::Pac).then_some(mergelens::cbmc::Pac {
                epsilon: self.epsilon,
                delta: self.delta,
            }),
        }
    }
}
