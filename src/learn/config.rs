use std::fmt;
use std::str::FromStr;

use crate::automaton::Dfa;
use crate::failure::{FailureKind, HasKind};

/// How a counterexample refines the observation table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CexProcessing {
    /// Angluin 1987: every prefix of the counterexample becomes a row of `S`; the table
    /// then needs consistency checks, whose fixes add columns.
    Angluin,
    /// Maler and Pnueli 1995: every suffix of the counterexample becomes a column; the rows
    /// of `S` stay distinct, so the table is always consistent.
    MalerPnueli,
    /// Rivest and Schapire 1993: a binary search over the counterexample's decompositions
    /// finds one suffix that tells a new state apart; that suffix alone becomes a column.
    /// Fewest membership queries, hence the default.
    #[default]
    RivestSchapire,
}

impl CexProcessing {
    /// The short name, as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            CexProcessing::Angluin => "angluin",
            CexProcessing::MalerPnueli => "mp",
            CexProcessing::RivestSchapire => "rs",
        }
    }

    pub const ALL: [CexProcessing; 3] = [
        CexProcessing::RivestSchapire,
        CexProcessing::Angluin,
        CexProcessing::MalerPnueli,
    ];
}

impl fmt::Display for CexProcessing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown name of a [`CexProcessing`] or [`GuessPolicy`].
#[derive(Debug, thiserror::Error)]
#[error("unknown {what} {found:?}; expected one of: {expected}")]
pub struct ParseError {
    what: &'static str,
    found: String,
    expected: &'static str,
}

impl HasKind for ParseError {
    fn kind(&self) -> FailureKind {
        FailureKind::BadInput
    }
}

impl FromStr for CexProcessing {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<CexProcessing, ParseError> {
        match s {
            "rs" | "rivest-schapire" => Ok(CexProcessing::RivestSchapire),
            "angluin" => Ok(CexProcessing::Angluin),
            "mp" | "maler-pnueli" => Ok(CexProcessing::MalerPnueli),
            _ => Err(ParseError {
                what: "counterexample processing",
                found: s.to_string(),
                expected: "rs, angluin, mp",
            }),
        }
    }
}

/// Lazy learning (the paper's Sec. 6): who answers a membership query the cache cannot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum GuessPolicy {
    /// The teacher, at once: no lazy learning.
    #[default]
    Off,
    /// Always this guess: yes for program explanation (every path fails `assert(false)`),
    /// no for error explanation (most paths do not fail the assertion).
    Constant(bool),
    /// What this automaton says, for instance the one learned for another version of the
    /// program. Letters are matched by name; a word with a letter the oracle lacks is
    /// guessed "no", as its run falls into the implicit sink.
    Oracle(Dfa),
}

impl GuessPolicy {
    /// The short name: off, yes, no or oracle.
    pub fn name(&self) -> &'static str {
        match self {
            GuessPolicy::Off => "off",
            GuessPolicy::Constant(true) => "yes",
            GuessPolicy::Constant(false) => "no",
            GuessPolicy::Oracle(_) => "oracle",
        }
    }
}

impl FromStr for GuessPolicy {
    type Err = ParseError;

    /// The constant policies and `off`; an oracle needs an automaton, so it has no name.
    fn from_str(s: &str) -> Result<GuessPolicy, ParseError> {
        match s {
            "off" => Ok(GuessPolicy::Off),
            "yes" => Ok(GuessPolicy::Constant(true)),
            "no" => Ok(GuessPolicy::Constant(false)),
            _ => Err(ParseError {
                what: "guess policy",
                found: s.to_string(),
                expected: "off, yes, no",
            }),
        }
    }
}

/// The settings of one learning run.
#[derive(Clone, Debug, PartialEq)]
pub struct LearnConfig {
    pub cex: CexProcessing,
    pub guess: GuessPolicy,
    /// The share of guesses deliberately flipped, to exercise the repair of wrong guesses;
    /// in `[0, 1]`. Which guesses flip depends only on the seed and the word, so a run is
    /// reproducible whatever order the words come in.
    pub wrong_guess_rate: f64,
    pub seed: u64,
    /// The largest conjecture allowed (states of the trimmed automaton, without the sink).
    pub max_states: usize,
    /// The most equivalence queries allowed.
    pub max_equivalence_queries: usize,
    /// How many words each step of the Rivest-Schapire search asks at once. 1 is a binary
    /// search: fewest words, but one teacher batch per step. `p` words per step split the
    /// remaining range into `p + 1` parts, so `log_{p+1} m` batches for a counterexample of
    /// length `m`; `usize::MAX` asks every decomposition in a single batch.
    pub rs_words_per_step: usize,
    /// Lazy learning pays only when guesses are mostly right (the paper measured 97.9 %):
    /// each wrong one sends the learner back to its last conjecture, and a policy that fits
    /// the language badly makes it explore a language of its own invention, every word of
    /// which the teacher checks in the end. Once at least [`MIN_CHECKED_GUESSES`] guesses
    /// have been checked and fewer than this share were right, the run stops guessing and
    /// asks the teacher. 0 never stops. The default, 0.9, is where random targets showed
    /// lazy learning to cost more words than it saves batches.
    pub min_guess_accuracy: f64,
    /// Words asked ahead: when a table fill sends a batch to the teacher anyway, the cells
    /// the extensions of its fresh rows would need if a closing round promoted them ride
    /// along, up to this many words in the batch (0: none). For a teacher whose batch
    /// costs about what one word costs (one CBMC run), a closing round then often finds
    /// its answers in the cache. Never while guessing: guesses are what lazy learning
    /// asks instead.
    pub lookahead: usize,
}

/// The sample of checked guesses [`LearnConfig::min_guess_accuracy`] needs.
pub const MIN_CHECKED_GUESSES: u64 = 64;

impl Default for LearnConfig {
    fn default() -> LearnConfig {
        LearnConfig {
            cex: CexProcessing::default(),
            guess: GuessPolicy::default(),
            wrong_guess_rate: 0.0,
            seed: 0,
            max_states: DEFAULT_MAX_STATES,
            max_equivalence_queries: DEFAULT_MAX_EQUIVALENCE_QUERIES,
            rs_words_per_step: 1,
            min_guess_accuracy: 0.9,
            lookahead: 0,
        }
    }
}

/// Far above what a program's behaviour needs; it stops a teacher that never agrees.
pub const DEFAULT_MAX_STATES: usize = 100_000;
/// L* needs at most one equivalence query per state of the result.
pub const DEFAULT_MAX_EQUIVALENCE_QUERIES: usize = 100_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for cex in CexProcessing::ALL {
            assert_eq!(cex.name().parse::<CexProcessing>().unwrap(), cex);
        }
        for name in ["off", "yes", "no"] {
            assert_eq!(name.parse::<GuessPolicy>().unwrap().name(), name);
        }
        let err = "fast".parse::<CexProcessing>().unwrap_err().to_string();
        assert!(err.contains("rs, angluin, mp"), "{err}");
    }
}
