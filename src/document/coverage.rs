//! The coverage of the change in a document: which changed hunks of the analysed C files
//! some execution within the bounds reaches ([`Coverage`], one per entry of a review or
//! diff). A difference of languages says nothing about code no execution runs, so an
//! unreached hunk keeps "no difference" from meaning "the change was checked".
//!
//! A hunk with code is in one of three states, and every output uses these three words:
//! `reached` (some execution within the bounds runs it), `unreached` (the check ran and no
//! execution does: the only state that gets a hint, the bound or input that would reach it),
//! and `unchecked` (the budget, a timeout, the memory limit or a failure stopped the check
//! before it could tell: [`CoveredHunk::unchecked`] says which).

use serde::{Deserialize, Serialize};
use serde_with::skip_serializing_none;

/// Which change a hunk belongs to, named by the version that introduced it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HunkSide {
    /// base → ours, in ours' lines.
    Ours,
    /// base → theirs, in theirs' lines.
    Theirs,
    /// The earlier revision of a diff (reserved: hunks of a diff are given in `to`'s lines).
    From,
    /// from → to, in to's lines.
    To,
}

impl HunkSide {
    pub fn as_str(self) -> &'static str {
        match self {
            HunkSide::Ours => "ours",
            HunkSide::Theirs => "theirs",
            HunkSide::From => "from",
            HunkSide::To => "to",
        }
    }
}

/// One changed region of one file, in the lines of the version that introduced it. A pure
/// deletion is given as the lines around it in that version (the line before and the line
/// after the deleted text).
#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoveredHunk {
    /// Relative to the repository root.
    pub file: String,
    pub side: HunkSide,
    pub start_line: u32,
    pub end_line: u32,
    /// Where the hunk stands in the merge result, when the review had one: the lines a
    /// reader of the reviewed commit opens (SARIF's regions use them).
    pub merged_start_line: Option<u32>,
    pub merged_end_line: Option<u32>,
    /// Some execution of the entry within the bounds runs one of its calls (`calls`), or,
    /// for a hunk without calls, a statement on one of its lines.
    pub reached: bool,
    /// The analysed functions its own calls call (the calls on its lines), when it has
    /// any: such a hunk is reached only when one of these calls runs, not when a condition
    /// beside them does (`if (i == 2) c();`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
    /// Whether one of its lines holds a statement at all; a hunk without code (comments,
    /// declarations, blank lines) is neither reached nor unreached.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub code: bool,
    /// The smallest `--unwind` (up to `--max-unwind`) at which some execution reaches it,
    /// when it is unreached at the document's bounds and a larger one does.
    pub reached_at_unwind: Option<u32>,
    /// The smallest `--max-word-length` tried (at the document's `--unwind`) at which some
    /// execution reaches it, when it is unreached at the document's bounds: executions
    /// with more calls than the word bound are cut, and a larger unwinding does not help.
    pub reached_at_word_length: Option<u32>,
    /// Unreached, and no `--max-word-length` up to this one reaches it either.
    pub word_length_searched_up_to: Option<u32>,
    /// Unreached, and the search for a longer word bound ran out of its time at this one.
    pub word_length_cut_at: Option<u32>,
    /// Unreached, and no `--unwind` up to this one (the search's cap) reaches it either.
    pub searched_up_to: Option<u32>,
    /// Unreached, and the search for a larger bound ran out of its time at this `--unwind`.
    pub search_cut_at: Option<u32>,
    /// The coverage check of its side stopped before it could tell whether the hunk is
    /// reached: why (the time budget, a timeout, the memory limit, a failure).
    pub unchecked: Option<String>,
    /// Unreached because it is in this function, which the entry never calls (by the call
    /// graph): no bound reaches it, a harness that calls the function would.
    pub uncalled: Option<String>,
    /// Judged without executions: at this entry the merge runs exactly one branch's code
    /// (or every version the same code), so it does what that branch does on every input
    /// and at every bound; the sentence says where.
    pub judged: Option<String>,
    /// The revision whose change it is, as the user named it (a diff's `to`), when the
    /// side's name alone would not tell.
    pub owner: Option<String>,
}

impl CoveredHunk {
    /// Code that no execution within the bounds runs (the check ran to its end).
    pub fn unreached(&self) -> bool {
        self.code && !self.reached && self.unchecked.is_none() && self.judged.is_none()
    }

    /// A hunk whose coverage check stopped before it could tell.
    pub fn is_unchecked(&self) -> bool {
        !self.reached && self.unchecked.is_some() && self.judged.is_none()
    }

    /// Reached by an execution, or judged without one.
    pub fn settled(&self) -> bool {
        self.reached || self.judged.is_some()
    }

    /// `parser.c:41-47` (or `parser.c:41`).
    pub fn place(&self) -> String {
        if self.start_line == self.end_line {
            format!("{}:{}", self.file, self.start_line)
        } else {
            format!("{}:{}-{}", self.file, self.start_line, self.end_line)
        }
    }
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// The counts of a [`Coverage`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoverageCounts {
    pub hunks: usize,
    pub reached: usize,
    /// Hunks judged without executions (see [`CoveredHunk::judged`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub judged: usize,
    /// Hunks with code that no execution within the bounds runs.
    pub unreached: usize,
    /// Hunks whose check stopped before it could tell.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unchecked: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What checking the coverage cost: CBMC runs (one per version with changed hunks, and
/// one per larger `--unwind` tried for an unreached hunk) and their wall-clock seconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoverageCost {
    pub cbmc_runs: u64,
    pub seconds: f64,
}

/// The changed hunks of an entry and whether its executions reach them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Coverage {
    #[serde(default)]
    pub hunks: Vec<CoveredHunk>,
    #[serde(default)]
    pub counts: CoverageCounts,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CoverageCost>,
}

impl Coverage {
    pub fn new(hunks: Vec<CoveredHunk>) -> Coverage {
        let counts = CoverageCounts {
            hunks: hunks.len(),
            reached: hunks.iter().filter(|h| h.reached).count(),
            judged: hunks.iter().filter(|h| h.judged.is_some()).count(),
            unreached: hunks.iter().filter(|h| h.unreached()).count(),
            unchecked: hunks.iter().filter(|h| h.is_unchecked()).count(),
        };
        Coverage {
            hunks,
            counts,
            cost: None,
        }
    }
}

/// The hunks of code that no entry's executions reach (a hunk one entry runs is checked),
/// each once, in document order.
pub fn unreached<'a>(coverages: impl IntoIterator<Item = &'a Coverage>) -> Vec<&'a CoveredHunk> {
    let all: Vec<&CoveredHunk> = coverages.into_iter().flat_map(|c| &c.hunks).collect();
    let same = |a: &CoveredHunk, b: &CoveredHunk| a.same_hunk(b);
    let mut out: Vec<&CoveredHunk> = Vec::new();
    for h in &all {
        // A check that found no code in the hunk (where another only assumed some) wins.
        if h.unreached()
            && !all.iter().any(|o| same(o, h) && (o.settled() || !o.code))
            && !out.iter().any(|o| same(o, h))
        {
            // "No entry calls it" only when none does: an entry that calls the function
            // (and whose bound search says what it found) speaks for the hunk.
            let called = all
                .iter()
                .find(|o| same(o, h) && o.uncalled.is_none())
                .copied();
            out.push(called.unwrap_or(h));
        }
    }
    out
}

/// The hunks whose check stopped before it could tell and that no entry reaches, each once,
/// in document order.
pub fn unchecked<'a>(coverages: impl IntoIterator<Item = &'a Coverage>) -> Vec<&'a CoveredHunk> {
    let all: Vec<&CoveredHunk> = coverages.into_iter().flat_map(|c| &c.hunks).collect();
    let mut out: Vec<&CoveredHunk> = Vec::new();
    for h in &all {
        if h.is_unchecked()
            && !all
                .iter()
                .any(|o| o.same_hunk(h) && (o.settled() || o.unreached()))
            && !out.iter().any(|o| o.same_hunk(h))
        {
            out.push(h);
        }
    }
    out
}

/// "theirs' change at parser.c:41-47 is never reached within --unwind 2", with the call
/// that never runs when the hunk has calls, and the bound that would reach it when one is
/// known.
pub fn unreached_sentence(hunk: &CoveredHunk, unwind: u32) -> String {
    let mut s = format!(
        "{} change at {} is never reached within --unwind {unwind}",
        hunk.owner(),
        hunk.place()
    );
    if let Some(calls) = calls_not_run(hunk) {
        s.push_str(&format!(": {calls}"));
    }
    if let Some(reason) = unreached_reason(hunk) {
        s.push_str(&format!(" ({reason})"));
    }
    s
}

/// Which calls of an unreached hunk never run: "its call of `c` never runs", "none of its
/// calls of `c`, `d` runs"; nothing for a hunk without calls.
pub fn calls_not_run(hunk: &CoveredHunk) -> Option<String> {
    let named: Vec<String> = hunk.calls.iter().map(|f| format!("`{f}`")).collect();
    match named.as_slice() {
        [] => None,
        [one] => Some(format!("its call of {one} never runs")),
        many => Some(format!("none of its calls of {} runs", many.join(", "))),
    }
}

/// What is known of why an unreached hunk is unreached, or which bound reaches it:
/// `--unwind 4 reaches it`, `nor does any --unwind up to 5`, ...
pub fn unreached_reason(hunk: &CoveredHunk) -> Option<String> {
    if let Some(k) = hunk.reached_at_unwind {
        return Some(format!("--unwind {k} reaches it"));
    }
    if let Some(n) = hunk.reached_at_word_length {
        return Some(format!(
            "--max-word-length {n} reaches it: its executions make more calls than the word bound"
        ));
    }
    if let Some(f) = &hunk.uncalled {
        return Some(format!(
            "it is in `{f}`, which no entry calls: no bound reaches it; an entry or harness that calls `{f}` would"
        ));
    }
    match (hunk.searched_up_to, hunk.search_cut_at) {
        (Some(k), Some(cut)) => Some(format!(
            "nor does any --unwind up to {k}; the search ran out of time at --unwind {cut}"
        )),
        (Some(k), None) => Some(format!("nor does any --unwind up to {k}")),
        (None, Some(cut)) => Some(format!(
            "the search for a larger bound ran out of time at --unwind {cut}"
        )),
        (None, None) => None,
    }
    .map(|unwind| match word_length_reason(hunk) {
        Some(words) => format!("{unwind}; {words}"),
        None => unwind,
    })
    .or_else(|| word_length_reason(hunk))
}

/// What the search for a longer word bound found of an unreached hunk: the longest tried,
/// where it ran out of time.
fn word_length_reason(hunk: &CoveredHunk) -> Option<String> {
    match (hunk.word_length_searched_up_to, hunk.word_length_cut_at) {
        (Some(n), Some(cut)) => Some(format!(
            "nor does any --max-word-length up to {n}; that search ran out of time at --max-word-length {cut}"
        )),
        (Some(n), None) => Some(format!("nor does any --max-word-length up to {n}")),
        (None, Some(cut)) => Some(format!(
            "the search for a longer word bound ran out of time at --max-word-length {cut}"
        )),
        (None, None) => None,
    }
}

impl CoveredHunk {
    /// Whose change it is: `theirs`, or the revision's name (`v1.7.18`).
    pub fn whose(&self) -> String {
        match &self.owner {
            Some(name) => name.clone(),
            None => self.side.as_str().to_string(),
        }
    }

    /// The same as a possessive: `theirs'`, `v1.7.18's`.
    pub fn owner(&self) -> String {
        match &self.owner {
            Some(name) => format!("{name}'s"),
            // `ours'`, `theirs'`, but `to's`.
            None if self.side.as_str().ends_with('s') => format!("{}'", self.side.as_str()),
            None => format!("{}'s", self.side.as_str()),
        }
    }

    /// Whether `other` is the same hunk (of another entry's coverage, say).
    pub fn same_hunk(&self, other: &CoveredHunk) -> bool {
        (
            self.file.as_str(),
            self.side,
            self.start_line,
            self.end_line,
        ) == (
            other.file.as_str(),
            other.side,
            other.start_line,
            other.end_line,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(side: HunkSide, start: u32, reached: bool) -> CoveredHunk {
        CoveredHunk {
            file: "p.c".into(),
            side,
            start_line: start,
            end_line: start + 2,
            reached,
            calls: Vec::new(),
            code: true,
            reached_at_unwind: None,
            reached_at_word_length: None,
            merged_start_line: None,
            merged_end_line: None,
            word_length_searched_up_to: None,
            word_length_cut_at: None,
            searched_up_to: None,
            search_cut_at: None,
            uncalled: None,
            judged: None,
            owner: None,
            unchecked: None,
        }
    }

    #[test]
    fn the_hint_says_what_each_search_tried() {
        let mut h = hunk(HunkSide::Theirs, 3, false);
        h.search_cut_at = Some(2);
        h.word_length_cut_at = Some(9);
        assert_eq!(
            unreached_reason(&h).unwrap(),
            "the search for a larger bound ran out of time at --unwind 2; the search for a longer word bound ran out of time at --max-word-length 9"
        );
        let mut h = hunk(HunkSide::Theirs, 3, false);
        h.searched_up_to = Some(4);
        h.word_length_searched_up_to = Some(40);
        assert_eq!(
            unreached_reason(&h).unwrap(),
            "nor does any --unwind up to 4; nor does any --max-word-length up to 40"
        );
        h.reached_at_word_length = Some(15);
        assert!(
            unreached_reason(&h)
                .unwrap()
                .starts_with("--max-word-length 15 reaches it")
        );
    }

    #[test]
    fn an_unreached_hunk_with_calls_names_the_call_that_never_runs() {
        let mut h = hunk(HunkSide::Theirs, 12, false);
        h.end_line = 12;
        h.calls = vec!["c".into()];
        h.reached_at_unwind = Some(3);
        assert_eq!(
            unreached_sentence(&h, 2),
            "theirs' change at p.c:12 is never reached within --unwind 2: its call of `c` never runs (--unwind 3 reaches it)"
        );
        h.calls.push("d".into());
        assert_eq!(
            calls_not_run(&h).unwrap(),
            "none of its calls of `c`, `d` runs"
        );
        // The field is written only when there are calls, and read back.
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(json["calls"], serde_json::json!(["c", "d"]));
        assert_eq!(serde_json::from_value::<CoveredHunk>(json).unwrap(), h);
        h.calls.clear();
        assert!(calls_not_run(&h).is_none());
        assert!(serde_json::to_value(&h).unwrap().get("calls").is_none());
    }

    #[test]
    fn unchecked_is_neither_reached_nor_unreached() {
        let mut h = hunk(HunkSide::Theirs, 3, false);
        h.unchecked = Some("the time budget ran out first".into());
        let c = Coverage::new(vec![h, hunk(HunkSide::Ours, 9, false)]);
        assert_eq!((c.counts.unreached, c.counts.unchecked), (1, 1));
        assert_eq!(unchecked([&c]).len(), 1);
        assert_eq!(unreached([&c]).len(), 1);
        // Another entry that reaches it, or finds it unreached, speaks for it.
        let other = Coverage::new(vec![hunk(HunkSide::Theirs, 3, true)]);
        assert!(unchecked([&c, &other]).is_empty());
    }

    #[test]
    fn a_hunk_one_entry_reaches_is_checked() {
        let a = Coverage::new(vec![
            hunk(HunkSide::Ours, 3, false),
            hunk(HunkSide::Theirs, 9, false),
        ]);
        let b = Coverage::new(vec![hunk(HunkSide::Ours, 3, true)]);
        let left = unreached([&a, &b]);
        assert_eq!(left.len(), 1);
        assert_eq!(
            unreached_sentence(left[0], 2),
            "theirs' change at p.c:9-11 is never reached within --unwind 2"
        );
        let uncalled = CoveredHunk {
            uncalled: Some("parse".into()),
            ..left[0].clone()
        };
        assert!(unreached_sentence(&uncalled, 2).ends_with(
            "(it is in `parse`, which no entry calls: no bound reaches it; an entry or harness that calls `parse` would)"
        ));
        let searched = CoveredHunk {
            searched_up_to: Some(5),
            ..left[0].clone()
        };
        assert!(unreached_sentence(&searched, 2).ends_with("(nor does any --unwind up to 5)"));
        let named = CoveredHunk {
            side: HunkSide::To,
            owner: Some("v1.7.18".into()),
            ..left[0].clone()
        };
        assert!(unreached_sentence(&named, 2).starts_with("v1.7.18's change at p.c:9-11"));
        assert_eq!(a.counts.unreached, 2);
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(json["counts"]["hunks"], 2);
        assert_eq!(json["hunks"][1]["side"], "theirs");
        assert!(json["hunks"][0].get("code").is_none());
        let back: Coverage = serde_json::from_value(json).unwrap();
        assert_eq!(back, a);
    }
}
