//! What a page shows, worked out once for both renderings (HTML and Markdown), so that the
//! two always agree and the templates stay free of logic.
//!
//! * [`Page`]: a review (`mergelens-review/1`) or a diff (`mergelens-diff/1`): a [`Banner`],
//!   the revisions, and per entry an [`EntryView`] with [`Finding`]s (the differences that
//!   matter, with example words), the versions' [`Figure`]s, the functions and their source
//!   changes, and learning statistics.
//! * [`AutomatonPage`]: one learned or explained automaton with its analyses.
//!
//! Every letter of a word is a [`LetterView`] that links to where the function is defined in
//! the version the word comes from.
//!
//! The work is split by page: [`review_page`], [`diff_page`] and [`automaton_page`] each
//! build one kind of page from its document; `parts` holds what they share (letter links,
//! figures, findings, source changes). This module keeps the view types the templates read
//! and the small helpers every page uses.

pub(super) mod audit_page;
pub(super) mod automaton_page;
mod coverage;
pub(super) mod diff_page;
mod parts;
pub(super) mod review_page;
pub(super) mod series_page;
mod stories;

use std::collections::BTreeMap;

use super::compute::Language;
use crate::automaton::Dfa;
use crate::document::{Bounds, LearningStats, Revision, Version};

/// Example words shown per language.
pub(crate) const EXAMPLES: usize = 5;
/// Words listed instead of a drawing too large to draw.
pub(crate) const FALLBACK_WORDS: usize = 20;

/// One letter of a word, linked to the function's definition when the document says where.
#[derive(Clone, Debug)]
pub(crate) struct LetterView {
    pub name: String,
    pub href: Option<String>,
    pub title: String,
    /// The `end` marker, which is not a function.
    pub end: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct WordView {
    pub letters: Vec<LetterView>,
    /// A stored trace of this word, as a safe relative link.
    pub trace: Option<String>,
}

impl WordView {
    /// The word as a call sequence: `funcA → funcZ → end`; the empty word is `ε`.
    pub fn calls(&self) -> String {
        if self.letters.is_empty() {
            return "ε (the empty word)".to_string();
        }
        let names: Vec<&str> = self.letters.iter().map(|l| l.name.as_str()).collect();
        names.join(" → ")
    }
}

/// A drawing of an automaton, or the word list that replaces one too large to draw.
#[derive(Clone, Debug)]
pub(crate) struct Figure {
    pub id: String,
    pub caption: String,
    pub legend: String,
    /// The SVG, with ids made unique in the page; `None` when too large (see `words`).
    pub svg: Option<String>,
    /// The drawing is too wide to sit beside another: it takes the whole width of its row.
    pub wide: bool,
    pub dfa: Dfa,
    pub empty: bool,
    pub words: Vec<WordView>,
    pub note: String,
}

impl Figure {
    pub fn states(&self) -> usize {
        self.dfa.num_states()
    }

    pub fn transitions(&self) -> usize {
        self.dfa.num_transitions()
    }
}

/// A language the reader must look at: what the merge added unexpectedly, lost, ...
#[derive(Clone, Debug)]
pub(crate) struct Finding {
    pub id: String,
    /// Its kind, also a CSS class: `unexpected`, `lost`, `added`, `removed`, `compare`.
    pub key: &'static str,
    pub title: String,
    /// The set, in symbols: `L(M) \ L(E)`.
    pub formula: String,
    pub meaning: String,
    /// How many words up to the bound, in words.
    pub count: String,
    pub empty: bool,
    pub examples: Vec<WordView>,
    pub figure: Figure,
    /// Set when the document left this language out and the report computed it.
    pub computed: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct FunctionCell {
    pub id: String,
    pub location: String,
    pub change: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct FunctionRow {
    pub name: String,
    pub cells: Vec<FunctionCell>,
}

#[derive(Clone, Debug)]
pub(crate) struct DiffLine {
    /// `add`, `del`, `hunk`, `head` or `ctx`.
    pub class: &'static str,
    pub text: String,
}

#[derive(Clone, Debug)]
pub(crate) struct ChangeView {
    pub id: String,
    pub function: String,
    pub file: String,
    pub from: String,
    pub to: String,
    pub lines: Vec<DiffLine>,
}

impl ChangeView {
    pub fn unified(&self) -> String {
        let mut text = String::new();
        for line in &self.lines {
            text.push_str(&line.text);
            text.push('\n');
        }
        text
    }
}

#[derive(Clone, Debug)]
pub(crate) struct StatsTable {
    pub columns: Vec<&'static str>,
    pub rows: Vec<StatsRow>,
}

#[derive(Clone, Debug)]
pub(crate) struct StatsRow {
    pub version: String,
    pub cells: Vec<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct EntryView {
    pub id: String,
    pub name: String,
    /// For a changed function analysed at its own entry, what that entry is.
    pub own_entry: Option<&'static str>,
    pub findings: Vec<Finding>,
    /// The comparisons behind the findings (the paper's Fig. 13-14).
    pub comparisons: Vec<Finding>,
    pub versions: Vec<Figure>,
    pub columns: Vec<String>,
    pub functions: Vec<FunctionRow>,
    /// Changes of the functions the differences are about (and of the entry itself).
    pub changes: Vec<ChangeView>,
    pub other_changes: Vec<ChangeView>,
    pub stats: Option<StatsTable>,
    /// The per-execution check: what it covered, and its stories (a review only).
    pub execution_summary: Option<String>,
    /// The stories grouped by shape, the worst first; the first [`SHOWN_STORIES`] are open,
    /// the rest collapsed.
    pub stories: Vec<StoryGroup>,
}

/// Story groups shown open; the rest of an entry's are behind one `<details>`.
pub(crate) const SHOWN_STORIES: usize = 5;

/// The executions the merge does not explain that have one shape: the same differing
/// region in every version and the same verdict, told once with how many there are.
#[derive(Clone, Debug)]
pub(crate) struct StoryGroup {
    /// `unexpected` or `overlapping` (also a CSS class).
    pub kind: &'static str,
    /// Unique in the page.
    pub id: String,
    /// How many executions have this shape.
    pub count: usize,
    /// What it is about, in words: `the merge leaves out f, which the expected merge calls`.
    pub change: String,
    /// The first execution's input, value by value; empty when it reads none.
    pub inputs: Vec<InputView>,
    /// The same in one line, for Markdown.
    pub input_text: String,
    /// Each version's word around where they differ, like a diff hunk.
    pub rows: Vec<HunkRow>,
    /// The rows as text, the letters that differ `[marked]`, for Markdown.
    pub text: String,
}

impl EntryView {
    /// The story groups shown open.
    pub fn shown_stories(&self) -> &[StoryGroup] {
        &self.stories[..self.stories.len().min(SHOWN_STORIES)]
    }

    /// The story groups behind a `<details>`.
    pub fn more_stories(&self) -> &[StoryGroup] {
        &self.stories[self.stories.len().min(SHOWN_STORIES)..]
    }

    /// How many executions the collapsed groups hold.
    pub fn more_executions(&self) -> usize {
        self.more_stories().iter().map(|s| s.count).sum()
    }
}

/// One input value of a story: what read it, where, and the value.
#[derive(Clone, Debug)]
pub(crate) struct InputView {
    pub read: String,
    pub place: String,
    pub value: String,
}

/// One version's word in a story's hunk.
#[derive(Clone, Debug)]
pub(crate) struct HunkRow {
    pub label: &'static str,
    pub cells: Vec<HunkCell>,
}

/// A letter of a hunk, or the letters left out around it.
#[derive(Clone, Debug)]
pub(crate) struct HunkCell {
    pub text: String,
    /// `same` (context every version shares), `differs` (a letter the change brought in)
    /// or `gap` (letters every version shares, left out): also a CSS class.
    pub class: &'static str,
    /// What the cell stands for, for a tooltip: `12 calls every version makes`.
    pub title: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Count {
    pub label: String,
    pub value: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Banner {
    /// Also a CSS class: `clean`, `unexpected`, `lost`, `conflict`, `changed`, `info`.
    pub kind: &'static str,
    pub headline: String,
    pub detail: String,
    pub counts: Vec<Count>,
}

impl Banner {
    /// A symbol that carries the verdict where colour does not (Markdown, grey print).
    pub fn icon(&self) -> &'static str {
        match self.kind {
            "clean" => "✅",
            "conflict" => "⛔",
            "info" => "ℹ️",
            _ => "⚠️",
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct RevisionView {
    pub role: String,
    pub rev: String,
    pub short: String,
    pub label: String,
    pub summary: String,
}

#[derive(Clone, Debug)]
pub(crate) struct BoundsView {
    pub unwind: u32,
    pub max_word_length: u32,
    pub guarantee: String,
    pub notes: Vec<String>,
}

/// Up to this many notes are listed; more are collapsed (a real program's review has dozens
/// of front-end warnings among them).
pub(crate) const LISTED_NOTES: usize = 5;

impl BoundsView {
    pub fn collapsed_notes(&self) -> bool {
        self.notes.len() > LISTED_NOTES
    }
}

/// A review or diff report.
#[derive(Clone, Debug)]
pub(crate) struct Page {
    /// `review` or `diff`.
    pub kind: &'static str,
    pub title: String,
    pub repository: Option<String>,
    pub banner: Banner,
    pub revisions: Vec<RevisionView>,
    pub conflicts: Vec<String>,
    /// Where the document contradicts itself (its verdict and its automata disagree).
    pub warnings: Vec<String>,
    pub entries: Vec<EntryView>,
    pub bounds: BoundsView,
    pub tool: String,
    /// What the remote engine did for the review, in words (`None`: no engine).
    pub remote: Option<String>,
}

/// A review report: the page it shares with a diff, headed by a summary (its banner), the
/// reasons an inconclusive check gives, and the coverage table the summary links to.
#[derive(Clone, Debug)]
pub(crate) struct ReviewPage {
    pub page: Page,
    /// Why the review did not finish, one sentence each: shown open under the summary.
    pub unfinished: Vec<String>,
    /// Why the check fell short, one sentence each, but the unreached changes (the coverage
    /// table lists those): shown collapsed under the summary.
    pub reasons: Vec<String>,
    pub coverage: CoverageTable,
}

/// Every changed hunk and whether some execution reaches it.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoverageTable {
    /// Unreached hunks first.
    pub rows: Vec<CoverageRow>,
    pub unreached: usize,
    /// Hunks whose check stopped before it could tell (counted among `with_code`).
    pub unchecked: usize,
    /// Hunks with code (those that can be reached at all).
    pub with_code: usize,
}

impl CoverageTable {
    pub fn reached(&self) -> usize {
        self.with_code - self.unreached - self.unchecked
    }
}

#[derive(Clone, Debug)]
pub(crate) struct CoverageRow {
    /// Whose change: `ours`, `theirs`, or the revision's name.
    pub change: String,
    /// `cJSON.c:41-47`.
    pub place: String,
    /// `reached`, `unreached`, `unchecked` or `no-code` (also a CSS class).
    pub status: &'static str,
    /// For an unreached hunk, what is known of why (the bound that reaches it, ...).
    pub note: String,
}

/// An audit report: one row per merge commit.
#[derive(Clone, Debug)]
pub(crate) struct AuditPage {
    pub title: String,
    pub banner: Banner,
    pub rows: Vec<AuditRow>,
    pub tool: String,
    /// What the remote engine did for the audit, in words (`None`: no engine).
    pub remote: Option<String>,
}

/// A series report: one step after the other.
#[derive(Clone, Debug)]
pub(crate) struct SeriesPage {
    pub title: String,
    pub banner: Banner,
    pub steps: Vec<SeriesStepView>,
    pub tool: String,
    /// What the remote engine did for the series, in words (`None`: no engine).
    pub remote: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct SeriesStepView {
    pub from: String,
    pub to: String,
    /// Also a CSS class.
    pub kind: &'static str,
    pub headline: &'static str,
    /// `entry: added WORD`, `entry: removed WORD`.
    pub lines: Vec<String>,
    pub notes: Vec<String>,
    pub report: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct AuditRow {
    pub short: String,
    pub commit: String,
    pub subject: String,
    pub verdict: &'static str,
    /// Also a CSS class.
    pub kind: &'static str,
    pub unexpected: u64,
    pub lost: u64,
    pub overlapping: u64,
    pub seconds: String,
    /// A local link to the merge's report.
    pub report: Option<String>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct TraceView {
    pub word: WordView,
    pub href: Option<String>,
    pub path: String,
}

/// A learn or explain report of one automaton.
#[derive(Clone, Debug)]
pub(crate) struct AutomatonPage {
    pub title: String,
    pub banner: Banner,
    pub facts: Vec<Count>,
    /// The exact automaton: drawn first, or one click away behind a concise one.
    pub figure: Figure,
    /// The concise automaton of `learn` or `explain`, drawn first when there is one.
    pub concise: Option<ConciseView>,
    pub dominating: Vec<String>,
    pub doomed: Vec<String>,
    pub shortest_title: String,
    pub shortest: Vec<WordView>,
    pub traces: Vec<TraceView>,
    pub stats: Option<StatsTable>,
    pub bounds: Option<BoundsView>,
    pub explain: bool,
    pub tool: String,
}

/// The concise automaton of an automaton page, and what it is.
#[derive(Clone, Debug)]
pub(crate) struct ConciseView {
    /// "Concise automaton: agrees with every execution within the bounds; beyond them it
    /// generalises."
    pub meaning: String,
    /// "4 states instead of 7".
    pub size: String,
    /// Minimal (and how that is known) or found by state merging.
    pub how: String,
    /// What "yes", "no" and "don't care" meant for the run.
    pub rule: String,
    pub figure: Figure,
}

fn default_tool() -> String {
    format!("mergelens {}", env!("CARGO_PKG_VERSION"))
}

/// Theorem 4.1 of the paper in plain words; `comparing` adds what it means for differences.
fn bounds_view(bounds: &Bounds, comparing: bool) -> BoundsView {
    let (b, n) = (bounds.unwind, bounds.max_word_length);
    let mut guarantee = format!(
        "Every call sequence of at most {n} letters (counting end), over executions in which \
         every loop runs at most {b} iterations, is classified exactly: an automaton accepts \
         such a sequence if and only if its program can make it."
    );
    if comparing {
        guarantee.push_str(
            " So every difference shown here up to that length is a real difference between \
             the programs within the loop bound.",
        );
    }
    guarantee.push_str(
        " Longer sequences, and executions that need more loop iterations, are the learner's \
         generalisation and were not checked.",
    );
    BoundsView {
        unwind: b,
        max_word_length: n,
        guarantee,
        notes: bounds.notes.clone(),
    }
}

fn count_text(count: Option<u128>, bound: u32) -> String {
    match count {
        Some(0) => format!("no words up to length {bound}"),
        Some(1) => format!("1 word up to length {bound}"),
        Some(c) => format!("{c} words up to length {bound}"),
        None => format!("more words up to length {bound} than can be counted"),
    }
}

fn short_rev(rev: &str) -> String {
    rev.chars().take(12).collect()
}

fn revision_view(role: &str, rev: &Revision) -> RevisionView {
    RevisionView {
        role: role.to_string(),
        rev: rev.rev.clone(),
        short: short_rev(&rev.rev),
        label: rev.label.clone().unwrap_or_default(),
        summary: rev.summary.clone().unwrap_or_default(),
    }
}

/// Whether `href` can only name a local file: no scheme but `file:`, no network path.
/// Everything else (`javascript:`, `https:`, `//host`) is shown as text, never linked.
pub(crate) fn safe_local_href(href: &str) -> bool {
    if href.is_empty() || href.starts_with("//") || href.starts_with("\\\\") {
        return false;
    }
    let end = href.find(['/', '?', '#']).unwrap_or(href.len());
    match href[..end].find(':') {
        None => true,
        Some(colon) => {
            href[..colon].eq_ignore_ascii_case("file") && !href[colon + 1..].starts_with("////")
        }
    }
}

/// Makes the ids of one SVG unique in the page (layout-rs names its markers and paths the
/// same in every drawing, and a reference resolves to the first id in the document, which may
/// sit in a collapsed section), and drops the XML prolog, which HTML does not allow there.
/// Every id and local reference is prefixed in one pass: the drawing only refers to itself.
pub(crate) fn embed_svg(svg: &str, prefix: &str) -> String {
    const MARKS: [&str; 3] = [" id=\"", "url(#", "href=\"#"];
    let mut rest = &svg[svg.find("<svg").unwrap_or(0)..];
    let mut out = String::with_capacity(rest.len() + rest.len() / 8);
    while let Some((at, mark)) = MARKS
        .iter()
        .filter_map(|m| rest.find(m).map(|at| (at, *m)))
        .min_by_key(|&(at, _)| at)
    {
        out.push_str(&rest[..at + mark.len()]);
        out.push_str(prefix);
        out.push('-');
        rest = &rest[at + mark.len()..];
    }
    out.push_str(rest);
    out.replacen("<svg", "<svg class=\"graph\" role=\"img\"", 1)
}

/// Whether figures are drawn: Markdown lists transitions instead, and laying out a large
/// automaton costs time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Draw {
    Yes,
    No,
}

fn stats_table(stats: &BTreeMap<Version, LearningStats>) -> Option<StatsTable> {
    if stats.is_empty() {
        return None;
    }
    let int = |v: Option<u64>| v.map_or_else(|| "–".to_string(), |v| v.to_string());
    let ratio = |v: Option<f64>| v.map_or_else(|| "–".to_string(), |v| format!("{v:.2}"));
    let rows = stats
        .iter()
        .map(|(version, s)| StatsRow {
            version: version.to_string(),
            cells: vec![
                int(s.cbmc_runs),
                int(s.membership_queries),
                int(s.from_cache),
                int(s.from_precheck),
                int(s.from_guess),
                int(s.from_teacher),
                int(s.equivalence_queries),
                ratio(s.guess_accuracy_p),
                ratio(s.constant_guess_p),
                int(s.states),
                s.wall_seconds
                    .map_or_else(|| "–".to_string(), |t| format!("{t:.1} s")),
            ],
        })
        .collect();
    Some(StatsTable {
        columns: vec![
            "CBMC runs",
            "queries",
            "from cache",
            "from pre-check",
            "from guess",
            "from teacher",
            "equivalence queries",
            "guess accuracy p",
            "constant guess p",
            "states",
            "time",
        ],
        rows,
    })
}

fn add_count(total: Option<u128>, language: &Language) -> Option<u128> {
    total.and_then(|t| language.count.and_then(|c| t.checked_add(c)))
}

/// `1 entry`, `2 entries`: the label of a count.
fn counted(count: usize, one: &str, many: &str) -> Count {
    Count {
        label: if count == 1 { one } else { many }.to_string(),
        value: count.to_string(),
    }
}

/// A total of words up to the bound, `None` when some count was unknown.
fn words_total(total: Option<u128>, what: &str, bound: u32) -> Count {
    let noun = if total == Some(1) { "word" } else { "words" };
    Count {
        label: format!("{what} {noun} ≤ {bound} letters"),
        value: total.map_or_else(|| "uncounted".to_string(), |t| t.to_string()),
    }
}

fn display_rev(rev: &Revision) -> String {
    match &rev.label {
        Some(label) => label.clone(),
        None => short_rev(&rev.rev),
    }
}
fn names_list(names: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = names
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(" and {} more", names.len() - SHOWN));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_links_are_safe() {
        for good in [
            "traces/1.json",
            "./t.json",
            "../x/y.json",
            "file:///tmp/t.json",
            "a b.json",
        ] {
            assert!(safe_local_href(good), "{good}");
        }
        for bad in [
            "javascript:alert(1)",
            "https://example.org/t.json",
            "//host/t.json",
            "\\\\host\\share",
            "JavaScript:x",
            "data:text/html,x",
            "file:////host/share",
            "",
        ] {
            assert!(!safe_local_href(bad), "{bad}");
        }
    }

    #[test]
    fn embedded_svgs_get_unique_ids_and_no_prolog() {
        let svg = r##"<?xml version="1.0"?><svg width="1"><defs><marker id="endarrow"/></defs><path id="arrow1" marker-end="url(#endarrow)"/><path id="arrow10"/><textPath href="#arrow1"/></svg>"##;
        let out = embed_svg(svg, "f0");
        assert!(out.starts_with("<svg class=\"graph\""));
        assert!(out.contains("id=\"f0-endarrow\"") && out.contains("url(#f0-endarrow)"));
        assert!(out.contains("id=\"f0-arrow1\"") && out.contains("href=\"#f0-arrow1\""));
        assert!(out.contains("id=\"f0-arrow10\""));
        assert!(!out.contains("f0-f0"));
    }
}
