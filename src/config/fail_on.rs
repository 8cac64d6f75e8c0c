//! `fail-on`: which verdicts fail a review (exit code 1) and so block the hook's merge.
//!
//! Key types: [`FailOnName`] (one name, as `.mergelens.toml` and `--fail-on` spell it) and
//! [`FailOn`] (the set the owner named: `fail-on = "unexpected"`, or a list such as
//! `fail-on = ["unexpected", "unfinished"]`, `--fail-on unexpected,unfinished`). A list
//! fails a review when any of its names would. The set is a bitset, so settings stay `Copy`.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};

/// One name `fail-on` may give.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailOnName {
    Never,
    /// Behaviour of the merge that neither branch's change explains.
    Unexpected,
    /// Behaviour a branch meant that the merge dropped.
    Lost,
    /// Executions on which both branches changed the same part differently (the
    /// per-execution check's overlaps), or unexpected behaviour.
    Overlapping,
    /// Any finding: unexpected, lost or overlapping.
    Any,
    /// A review that did not complete its work: stopped by the time budget or a signal, a
    /// tool past its timeout or memory limit, a tool that failed on a version's code.
    Unfinished,
    /// Any finding, an unfinished review, or a verdict `inconclusive`: the strictest.
    Inconclusive,
}

impl FailOnName {
    /// Every name, in the order [`FailOn::name`] lists them.
    const ALL: [FailOnName; 7] = [
        FailOnName::Never,
        FailOnName::Unexpected,
        FailOnName::Lost,
        FailOnName::Overlapping,
        FailOnName::Any,
        FailOnName::Unfinished,
        FailOnName::Inconclusive,
    ];

    /// As `.mergelens.toml` spells it.
    pub fn name(self) -> &'static str {
        match self {
            FailOnName::Never => "never",
            FailOnName::Unexpected => "unexpected",
            FailOnName::Lost => "lost",
            FailOnName::Overlapping => "overlapping",
            FailOnName::Any => "any",
            FailOnName::Unfinished => "unfinished",
            FailOnName::Inconclusive => "inconclusive",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    fn fails(self, unexpected: bool, lost: bool, overlapping: bool) -> bool {
        match self {
            FailOnName::Never | FailOnName::Unfinished => false,
            FailOnName::Unexpected => unexpected,
            FailOnName::Lost => lost,
            FailOnName::Overlapping => unexpected || overlapping,
            FailOnName::Any | FailOnName::Inconclusive => unexpected || lost || overlapping,
        }
    }
}

/// The names `fail-on` gave (never empty); `["unexpected", "lost"]` by default: a merge
/// that invents behaviour, or that loses a call a branch added on some input, fails.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FailOn {
    bits: u8,
}

impl FailOn {
    pub const NEVER: FailOn = FailOn::one(FailOnName::Never);

    pub const fn one(name: FailOnName) -> FailOn {
        FailOn {
            bits: 1 << (name as u8),
        }
    }

    /// The union of `names`; `None` for no name at all.
    pub fn of(names: impl IntoIterator<Item = FailOnName>) -> Option<FailOn> {
        let bits = names.into_iter().fold(0, |bits, n| bits | n.bit());
        (bits != 0).then_some(FailOn { bits })
    }

    /// The names of both.
    pub fn with(self, other: FailOn) -> FailOn {
        FailOn {
            bits: self.bits | other.bits,
        }
    }

    pub fn contains(self, name: FailOnName) -> bool {
        self.bits & name.bit() != 0
    }

    fn names(self) -> impl Iterator<Item = FailOnName> {
        FailOnName::ALL
            .into_iter()
            .filter(move |&n| self.contains(n))
    }

    /// As `.mergelens.toml` would spell it: `"unexpected"`, or
    /// `["unexpected", "unfinished"]`.
    pub fn name(self) -> String {
        let quoted: Vec<String> = self.names().map(|n| format!("\"{}\"", n.name())).collect();
        match quoted.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        }
    }

    /// Whether findings fail the review: some name flags one of them.
    pub fn fails(self, unexpected: bool, lost: bool, overlapping: bool) -> bool {
        self.names().any(|n| n.fails(unexpected, lost, overlapping))
    }

    /// Whether a review that did not complete its work fails (`unfinished`, or
    /// `inconclusive`, which includes it).
    pub fn fails_unfinished(self) -> bool {
        self.contains(FailOnName::Unfinished) || self.contains(FailOnName::Inconclusive)
    }

    /// Whether an inconclusive verdict (a completed check short of the bounds) fails.
    pub fn fails_inconclusive(self) -> bool {
        self.contains(FailOnName::Inconclusive)
    }
}

impl Default for FailOn {
    fn default() -> FailOn {
        FailOn::one(FailOnName::Unexpected).with(FailOn::one(FailOnName::Lost))
    }
}

impl fmt::Debug for FailOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FailOn({})", self.name())
    }
}

impl From<FailOnName> for FailOn {
    fn from(name: FailOnName) -> FailOn {
        FailOn::one(name)
    }
}

impl<'de> Deserialize<'de> for FailOn {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FailOn, D::Error> {
        deserializer.deserialize_any(FailOnVisitor)
    }
}

struct FailOnVisitor;

impl<'de> Visitor<'de> for FailOnVisitor {
    type Value = FailOn;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "one of never, unexpected, lost, overlapping, any, unfinished, inconclusive, or a non-empty list of them",
        )
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<FailOn, E> {
        FailOnName::deserialize(de::value::StrDeserializer::<E>::new(text)).map(FailOn::one)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FailOn, A::Error> {
        let mut names = Vec::new();
        while let Some(name) = seq.next_element::<FailOnName>()? {
            names.push(name);
        }
        FailOn::of(names).ok_or_else(|| de::Error::invalid_length(0, &self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    #[serde(rename_all = "kebab-case")]
    struct File {
        fail_on: FailOn,
    }

    fn parse(text: &str) -> Result<FailOn, toml::de::Error> {
        toml::from_str::<File>(text).map(|f| f.fail_on)
    }

    #[test]
    fn one_name_or_a_list_of_them() {
        assert_eq!(
            parse("fail-on = \"any\"").unwrap(),
            FailOn::one(FailOnName::Any)
        );
        let both = parse("fail-on = [\"unexpected\", \"unfinished\"]").unwrap();
        assert!(both.contains(FailOnName::Unexpected) && both.contains(FailOnName::Unfinished));
        assert!(!both.contains(FailOnName::Lost));
        assert_eq!(both.name(), "[\"unexpected\", \"unfinished\"]");
        assert_eq!(FailOn::default().name(), "[\"unexpected\", \"lost\"]");
        // A repeated name is the same set.
        assert_eq!(
            parse("fail-on = [\"lost\", \"lost\"]").unwrap(),
            FailOn::one(FailOnName::Lost)
        );
    }

    #[test]
    fn an_empty_list_or_an_unknown_name_is_refused() {
        let empty = parse("fail-on = []").unwrap_err().to_string();
        assert!(empty.contains("non-empty list"), "{empty}");
        let unknown = parse("fail-on = [\"unexpected\", \"slow\"]")
            .unwrap_err()
            .to_string();
        assert!(
            unknown.contains("slow") && unknown.contains("unfinished"),
            "{unknown}"
        );
        let number = parse("fail-on = 3").unwrap_err().to_string();
        assert!(number.contains("never, unexpected"), "{number}");
    }

    #[test]
    fn a_list_fails_when_any_member_would() {
        let both = FailOn::of([FailOnName::Unexpected, FailOnName::Unfinished]).unwrap();
        assert!(both.fails(true, false, false));
        assert!(!both.fails(false, true, true));
        assert!(both.fails_unfinished());
        assert!(!both.fails_inconclusive());
        let default = FailOn::default();
        assert!(!default.fails_unfinished() && !default.fails_inconclusive());
        // `unfinished` alone flags no finding.
        let unfinished = FailOn::one(FailOnName::Unfinished);
        assert!(!unfinished.fails(true, true, true) && unfinished.fails_unfinished());
        // `inconclusive` is the strictest: every finding, unfinished and inconclusive.
        let strict = FailOn::one(FailOnName::Inconclusive);
        assert!(strict.fails(false, true, false) && strict.fails_unfinished());
        assert!(strict.fails_inconclusive());
        assert!(!FailOn::NEVER.fails(true, true, true) && !FailOn::NEVER.fails_unfinished());
        // `overlapping` blocks overlaps and unexpected executions, not lost words alone.
        let overlapping = FailOn::one(FailOnName::Overlapping);
        assert!(overlapping.fails(false, false, true) && overlapping.fails(true, false, false));
        assert!(!overlapping.fails(false, true, false));
        // The default blocks a lost call, not an overlap that loses nothing.
        assert!(!default.fails(false, false, true));
        assert!(default.fails(false, true, true) && default.fails(true, false, false));
        assert!(FailOn::one(FailOnName::Any).fails(false, false, true));
    }
}
