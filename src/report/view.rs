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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use similar::TextDiff;

use crate::automaton::{Alphabet, Dfa, Marks, analysis, ops, svg};

use super::compute::{self, Language};
use crate::document::{
    AutomatonDocument, AutomatonKind, Bounds, DiffDocument, Difference, FunctionLocation,
    LearningStats, Review, Revision, SourceChange, Verdict, Version,
};

/// Example words shown per language.
pub(crate) const EXAMPLES: usize = 5;
/// Words listed instead of a drawing too large to draw.
pub(crate) const FALLBACK_WORDS: usize = 20;
/// Shortest words listed on an automaton page.
const SHORTEST_WORDS: usize = 10;

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
    pub figure: Figure,
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

/// Where each function of one entry is defined, by version; the anchors letters link to.
struct Links {
    columns: Vec<Version>,
    rows: Vec<FunctionRow>,
    row_of: HashMap<String, usize>,
    located: HashMap<(String, Version), String>,
    change_of: HashMap<String, String>,
}

impl Links {
    fn new(
        entry_id: &str,
        alphabet: &[String],
        columns: &[Version],
        functions: &[FunctionLocation],
        changes: &[SourceChange],
    ) -> Links {
        let mut located = HashMap::new();
        for f in functions {
            let at = match f.line {
                Some(line) => format!("{}:{line}", f.file),
                None => f.file.clone(),
            };
            located.entry((f.name.clone(), f.version)).or_insert(at);
        }
        // Rows in the alphabet's order (the order the reader sees in the automata), then the
        // functions only the locations or changes know of, by name.
        let mut order: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        let mut rest = BTreeSet::new();
        for f in functions {
            rest.insert(f.name.clone());
        }
        for c in changes {
            rest.insert(c.function.clone());
        }
        for name in alphabet {
            if rest.remove(name) && seen.insert(name.clone()) {
                order.push(name.clone());
            }
        }
        order.extend(rest.into_iter().filter(|n| seen.insert(n.clone())));

        let change_id = |k: usize| format!("{entry_id}-chg{k}");
        let mut change_of = HashMap::new();
        for (k, c) in changes.iter().enumerate() {
            change_of
                .entry(c.function.clone())
                .or_insert_with(|| change_id(k));
        }
        let rows: Vec<FunctionRow> = order
            .iter()
            .enumerate()
            .map(|(r, name)| FunctionRow {
                name: name.clone(),
                cells: columns
                    .iter()
                    .map(|&v| FunctionCell {
                        id: format!("{entry_id}-fn{r}-{v}"),
                        location: located.get(&(name.clone(), v)).cloned().unwrap_or_default(),
                        change: changes
                            .iter()
                            .position(|c| c.function == *name && (c.to == v || c.from == v))
                            .map(|k| format!("#{}", change_id(k))),
                    })
                    .collect(),
            })
            .collect();
        let row_of = order.into_iter().enumerate().map(|(r, n)| (n, r)).collect();
        Links {
            columns: columns.to_vec(),
            rows,
            row_of,
            located,
            change_of,
        }
    }

    fn none() -> Links {
        Links::new("page", &[], &[], &[], &[])
    }

    /// `name` as a letter of a word that `version` makes.
    fn letter(&self, name: &str, version: Version) -> LetterView {
        if name == "end" {
            return LetterView {
                name: name.to_string(),
                href: None,
                title: "end: the execution ends here".to_string(),
                end: true,
            };
        }
        let mut href = None;
        let mut title = format!("{name}: no definition recorded");
        if let Some(&row) = self.row_of.get(name) {
            // The definition in the word's own version first, else any version that has one.
            let order = std::iter::once(version).chain(self.columns.iter().copied());
            for v in order {
                let Some(at) = self.located.get(&(name.to_string(), v)) else {
                    continue;
                };
                if let Some(column) = self.columns.iter().position(|&c| c == v) {
                    href = Some(format!("#{}", self.rows[row].cells[column].id));
                }
                title = format!("{name}: defined at {at} ({v})");
                break;
            }
        }
        if href.is_none()
            && let Some(change) = self.change_of.get(name)
        {
            href = Some(format!("#{change}"));
            title = format!("{name}: changed (see its source changes)");
        }
        LetterView {
            name: name.to_string(),
            href,
            title,
            end: false,
        }
    }

    fn word(&self, word: &[String], version: Version) -> WordView {
        WordView {
            letters: word.iter().map(|l| self.letter(l, version)).collect(),
            trace: None,
        }
    }
}

/// Whether figures are drawn: Markdown lists transitions instead, and laying out a large
/// automaton costs time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Draw {
    Yes,
    No,
}

/// What a figure is called and how to read it.
struct Labels {
    id: String,
    caption: String,
    legend: String,
}

/// The drawing of `dfa`, or its first words when it is too large to draw.
fn figure(
    labels: Labels,
    dfa: &Dfa,
    marks: &Marks,
    bound: usize,
    draw: Draw,
    word: impl Fn(&[String]) -> WordView,
) -> Figure {
    let empty = analysis::is_empty(dfa);
    let (svg, words, note) = if empty {
        (None, Vec::new(), "It accepts no word.".to_string())
    } else if draw == Draw::No {
        (None, Vec::new(), String::new())
    } else if let Some(svg) = svg::to_svg(dfa, marks) {
        (Some(embed_svg(&svg, &labels.id)), Vec::new(), String::new())
    } else {
        let words: Vec<WordView> = compute::example_words(dfa, bound, FALLBACK_WORDS)
            .iter()
            .map(|w| word(&compute::names(dfa, w)))
            .collect();
        let note = format!(
            "{} states and {} transitions are too many to draw (at most {} states and {} \
             edges are drawn); here are its {} shortest accepted words instead.",
            dfa.num_states(),
            dfa.num_transitions(),
            svg::MAX_DRAWN_STATES,
            svg::MAX_DRAWN_EDGES,
            words.len()
        );
        (None, words, note)
    };
    Figure {
        id: labels.id,
        caption: labels.caption,
        legend: labels.legend,
        svg,
        dfa: dfa.clone(),
        empty,
        words,
        note,
    }
}

/// What a finding is, in the reader's words.
struct FindingText {
    key: &'static str,
    slug: &'static str,
    title: &'static str,
    formula: &'static str,
    meaning: &'static str,
}

const UNEXPECTED: FindingText = FindingText {
    key: "unexpected",
    slug: "unexpected",
    title: "Unexpected behaviour",
    formula: "L(M) \\ L(E)",
    meaning: "Call sequences the merge makes that neither branch's change explains.",
};
const LOST: FindingText = FindingText {
    key: "lost",
    slug: "lost",
    title: "Lost behaviour",
    formula: "L(E) \\ L(M)",
    meaning: "Call sequences a branch meant the program to make that the merge does not make.",
};
const MERGE_MINUS_OURS: FindingText = FindingText {
    key: "compare",
    slug: "merge-minus-ours",
    title: "Merge minus ours",
    formula: "L(M) \\ L(A)",
    meaning: "What the merge does that ours does not (the paper's Fig. 13).",
};
const MERGE_MINUS_THEIRS: FindingText = FindingText {
    key: "compare",
    slug: "merge-minus-theirs",
    title: "Merge minus theirs",
    formula: "L(M) \\ L(B)",
    meaning: "What the merge does that theirs does not (the paper's Fig. 14).",
};
const OURS_VS_THEIRS: FindingText = FindingText {
    key: "compare",
    slug: "ours-vs-theirs",
    title: "Ours against theirs",
    formula: "L(A) △ L(B)",
    meaning: "The call sequences exactly one of the two branches makes.",
};
const ADDED: FindingText = FindingText {
    key: "added",
    slug: "added",
    title: "Added behaviour",
    formula: "L(new) \\ L(old)",
    meaning: "Call sequences the new revision makes and the old one did not.",
};
const REMOVED: FindingText = FindingText {
    key: "removed",
    slug: "removed",
    title: "Removed behaviour",
    formula: "L(old) \\ L(new)",
    meaning: "Call sequences the old revision made and the new one does not.",
};
const SYMDIFF: FindingText = FindingText {
    key: "compare",
    slug: "symdiff",
    title: "Symmetric difference",
    formula: "L(old) △ L(new)",
    meaning: "The call sequences exactly one of the two revisions makes.",
};

fn finding(
    entry_id: &str,
    text: &FindingText,
    language: &Language,
    bound: u32,
    draw: Draw,
    word: impl Fn(&[String]) -> WordView,
) -> Finding {
    let id = format!("{entry_id}-{}", text.slug);
    let marks = Marks {
        // Doomed states say nothing about a language of whole executions (nearly every
        // state is doomed), so only the letters every word contains are marked.
        dominating: analysis::dominating_letters(&language.dfa),
        ..Marks::default()
    };
    let empty = language.is_empty();
    let figure = figure(
        Labels {
            id: format!("{id}-fig"),
            caption: format!("{} {}", text.title, text.formula),
            legend: "Thick edges: letters every word of this language contains.".to_string(),
        },
        &language.dfa,
        &marks,
        bound as usize,
        draw,
        &word,
    );
    Finding {
        id,
        key: text.key,
        title: text.title.to_string(),
        formula: text.formula.to_string(),
        meaning: text.meaning.to_string(),
        count: if empty {
            "none".to_string()
        } else {
            count_text(language.count, bound)
        },
        empty,
        examples: language.examples.iter().map(|w| word(w)).collect(),
        figure,
        computed: language.computed,
    }
}

fn diff_lines(text: &str) -> Vec<DiffLine> {
    text.lines()
        .map(|line| {
            let class = if line.starts_with("+++") || line.starts_with("---") {
                "head"
            } else if line.starts_with('+') {
                "add"
            } else if line.starts_with('-') {
                "del"
            } else if line.starts_with("@@") {
                "hunk"
            } else {
                "ctx"
            };
            DiffLine {
                class,
                text: line.to_string(),
            }
        })
        .collect()
}

fn change_view(entry_id: &str, k: usize, change: &SourceChange) -> ChangeView {
    let text = match &change.diff {
        Some(diff) => diff.clone(),
        None => {
            let old = change.old.as_deref().unwrap_or("");
            let new = change.new.as_deref().unwrap_or("");
            TextDiff::from_lines(old, new)
                .unified_diff()
                .context_radius(3)
                .header(
                    &format!("{} ({})", change.file, change.from),
                    &format!("{} ({})", change.file, change.to),
                )
                .to_string()
        }
    };
    ChangeView {
        id: format!("{entry_id}-chg{k}"),
        function: change.function.clone(),
        file: change.file.clone(),
        from: change.from.to_string(),
        to: change.to.to_string(),
        lines: diff_lines(&text),
    }
}

/// The changes of the functions `relevant` names first, the others apart.
fn split_changes(
    entry_id: &str,
    changes: &[SourceChange],
    relevant: &BTreeSet<String>,
) -> (Vec<ChangeView>, Vec<ChangeView>) {
    let mut first = Vec::new();
    let mut other = Vec::new();
    for (k, c) in changes.iter().enumerate() {
        let view = change_view(entry_id, k, c);
        if relevant.contains(&c.function) {
            first.push(view);
        } else {
            other.push(view);
        }
    }
    (first, other)
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

fn entry_alphabet(given: &[String], automata: &[&Dfa]) -> Vec<String> {
    let mut names: Vec<String> = given.to_vec();
    for dfa in automata {
        for name in dfa.alphabet().names() {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

fn version_caption(role: &str, rev: Option<&Revision>) -> String {
    match rev {
        Some(r) => match &r.label {
            Some(label) => format!("{role} · {} ({label})", short_rev(&r.rev)),
            None => format!("{role} · {}", short_rev(&r.rev)),
        },
        None => role.to_string(),
    }
}

/// The review report's view.
pub(crate) fn review_page(review: &Review, draw: Draw) -> Page {
    let bound = review.bounds.max_word_length;
    let n = bound as usize;
    let mut entries = Vec::new();
    let mut unexpected_total = Some(0u128);
    let mut lost_total = Some(0u128);
    let mut with_unexpected = Vec::new();
    let mut with_lost = Vec::new();
    for (e, entry) in review.entries.iter().enumerate() {
        let id = format!("e{e}");
        let a = &entry.automata;
        let (base, ours, theirs) = (&a.base.0, &a.ours.0, &a.theirs.0);
        let merged = a.merged.as_ref().map(|m| &m.0);
        let expected = match &a.expected {
            Some(x) => ops::minimize(&x.0),
            None => compute::expected_merge(base, ours, theirs),
        };
        // Without a merge result only the languages the document gives can be shown.
        let lang = |given: &Option<Difference>, op: &dyn Fn(&Dfa) -> Dfa| match (given, merged) {
            (None, None) => None,
            (given, merged) => Some(Language::new(
                given.as_ref(),
                || merged.map_or_else(|| Dfa::new(Alphabet::new()), op),
                n,
                EXAMPLES,
            )),
        };
        let unexpected = lang(&entry.unexpected, &|m| ops::difference(m, &expected));
        let lost = lang(&entry.lost, &|m| ops::difference(&expected, m));
        let mmo = lang(&entry.merge_minus_ours, &|m| ops::difference(m, ours));
        let mmt = lang(&entry.merge_minus_theirs, &|m| ops::difference(m, theirs));
        let ovt = Language::new(
            entry.ours_vs_theirs.as_ref(),
            || ops::symmetric_difference(ours, theirs),
            n,
            EXAMPLES,
        );

        let drawn: Vec<(&str, Version, Option<&Revision>, Dfa)> = [
            (
                "Base O",
                Version::Base,
                Some(&review.versions.base),
                Some(base),
            ),
            (
                "Ours A",
                Version::Ours,
                Some(&review.versions.ours),
                Some(ours),
            ),
            (
                "Theirs B",
                Version::Theirs,
                Some(&review.versions.theirs),
                Some(theirs),
            ),
            (
                "Merged M",
                Version::Merged,
                review.versions.merged.as_ref(),
                merged,
            ),
            ("Expected E", Version::Expected, None, Some(&expected)),
        ]
        .into_iter()
        .filter_map(|(role, v, rev, dfa)| dfa.map(|d| (role, v, rev, ops::minimize(d))))
        .collect();
        let automata: Vec<&Dfa> = drawn.iter().map(|(_, _, _, d)| d).collect();
        let alphabet = entry_alphabet(&entry.alphabet, &automata);
        let columns = [
            Version::Base,
            Version::Ours,
            Version::Theirs,
            Version::Merged,
        ];
        let links = Links::new(
            &id,
            &alphabet,
            &columns,
            &entry.functions,
            &entry.source_changes,
        );
        // A lost or compared word links to the branch that makes it.
        let branch_of = |w: &[String]| {
            if ours.accepts_names(w) {
                Version::Ours
            } else if theirs.accepts_names(w) {
                Version::Theirs
            } else {
                Version::Base
            }
        };
        let in_merged = |w: &[String]| links.word(w, Version::Merged);
        let in_branch = |w: &[String]| links.word(w, branch_of(w));

        let mut findings = Vec::new();
        let mut relevant = BTreeSet::from([entry.entry.clone()]);
        let mut shown: Vec<Vec<String>> = Vec::new();
        if let Some(l) = &unexpected {
            findings.push(finding(&id, &UNEXPECTED, l, bound, draw, in_merged));
            if !l.is_empty() {
                with_unexpected.push(entry.entry.clone());
            }
            unexpected_total = add_count(unexpected_total, l);
        }
        if let Some(l) = &lost {
            findings.push(finding(&id, &LOST, l, bound, draw, in_branch));
            if !l.is_empty() {
                with_lost.push(entry.entry.clone());
            }
            lost_total = add_count(lost_total, l);
        }
        for l in unexpected.iter().chain(&lost) {
            relevant.extend(compute::useful_letters(&l.dfa));
            shown.extend(l.examples.iter().cloned());
        }
        let mut comparisons = Vec::new();
        if let Some(l) = &mmo {
            comparisons.push(finding(&id, &MERGE_MINUS_OURS, l, bound, draw, in_merged));
        }
        if let Some(l) = &mmt {
            comparisons.push(finding(&id, &MERGE_MINUS_THEIRS, l, bound, draw, in_merged));
        }
        comparisons.push(finding(&id, &OURS_VS_THEIRS, &ovt, bound, draw, in_branch));
        for l in mmo.iter().chain(&mmt).chain([&ovt]) {
            relevant.extend(compute::useful_letters(&l.dfa));
        }

        let versions = drawn
            .iter()
            .map(|(role, version, rev, dfa)| {
                let marks = Marks {
                    highlighted: compute::runs_through(dfa, &shown),
                    ..Marks::default()
                };
                figure(
                    Labels {
                        id: format!("{id}-{version}"),
                        caption: version_caption(role, *rev),
                        legend: "Red: the runs of the unexpected and lost examples it makes."
                            .to_string(),
                    },
                    dfa,
                    &marks,
                    n,
                    draw,
                    |w| links.word(w, *version),
                )
            })
            .collect();
        let (changes, other_changes) = split_changes(&id, &entry.source_changes, &relevant);
        entries.push(EntryView {
            id,
            name: entry.entry.clone(),
            findings,
            comparisons,
            versions,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            functions: links.rows,
            changes,
            other_changes,
            stats: stats_table(&entry.stats),
        });
    }

    let derived = if !review.conflicts.is_empty() {
        Verdict::Conflict
    } else if !with_unexpected.is_empty() {
        Verdict::Unexpected
    } else if !with_lost.is_empty() {
        Verdict::Lost
    } else {
        Verdict::Clean
    };
    let mut warnings = Vec::new();
    if derived != review.verdict && review.verdict != Verdict::Conflict {
        warnings.push(format!(
            "The document's verdict is \"{}\", but its automata say \"{}\"; the banner shows the document's verdict.",
            verdict_name(review.verdict),
            verdict_name(derived)
        ));
    }
    let banner = review_banner(
        review,
        &with_unexpected,
        &with_lost,
        unexpected_total,
        lost_total,
    );
    let v = &review.versions;
    let mut revisions = vec![
        revision_view("base O", &v.base),
        revision_view("ours A", &v.ours),
        revision_view("theirs B", &v.theirs),
    ];
    if let Some(m) = &v.merged {
        revisions.push(revision_view("merged M", m));
    }
    Page {
        kind: "review",
        title: match &v.merged {
            Some(m) => format!("Merge review of {}", display_rev(m)),
            None => format!(
                "Merge review of {} and {}",
                display_rev(&v.ours),
                display_rev(&v.theirs)
            ),
        },
        repository: review.repository.clone(),
        banner,
        revisions,
        conflicts: review.conflicts.clone(),
        warnings,
        entries,
        bounds: bounds_view(&review.bounds, true),
        tool: review.tool.clone().unwrap_or_else(default_tool),
    }
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

fn verdict_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Clean => "clean",
        Verdict::Unexpected => "unexpected",
        Verdict::Lost => "lost",
        Verdict::Conflict => "conflict",
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

fn review_banner(
    review: &Review,
    with_unexpected: &[String],
    with_lost: &[String],
    unexpected_total: Option<u128>,
    lost_total: Option<u128>,
) -> Banner {
    let n = review.bounds.max_word_length;
    let (kind, headline, detail) = match review.verdict {
        Verdict::Clean => (
            "clean",
            "Clean merge".to_string(),
            format!(
                "Up to {n} calls, the merge does what the branches' changes mean, and nothing else."
            ),
        ),
        Verdict::Unexpected => {
            let mut detail = format!(
                "The merge makes call sequences that neither branch's change explains (in {}).",
                names_list(with_unexpected)
            );
            if !with_lost.is_empty() {
                detail.push_str(&format!(
                    " It also loses behaviour a branch meant (in {}).",
                    names_list(with_lost)
                ));
            }
            ("unexpected", "Unexpected behaviour".to_string(), detail)
        }
        Verdict::Lost => (
            "lost",
            "Lost behaviour".to_string(),
            format!(
                "The merge does not make call sequences a branch meant it to make (in {}).",
                names_list(with_lost)
            ),
        ),
        Verdict::Conflict => (
            "conflict",
            "Merge conflict".to_string(),
            format!(
                "git could not merge {} file(s); resolve the conflict, then review the result.",
                review.conflicts.len()
            ),
        ),
    };
    let mut counts = vec![
        counted(review.entries.len(), "entry", "entries"),
        words_total(unexpected_total, "unexpected", n),
        words_total(lost_total, "lost", n),
    ];
    if !review.conflicts.is_empty() {
        counts.push(counted(
            review.conflicts.len(),
            "conflicting file",
            "conflicting files",
        ));
    }
    Banner {
        kind,
        headline,
        detail,
        counts,
    }
}

/// The diff (release tags) report's view.
pub(crate) fn diff_page(doc: &DiffDocument, draw: Draw) -> Page {
    let bound = doc.bounds.max_word_length;
    let n = bound as usize;
    let mut entries = Vec::new();
    let (mut added_total, mut removed_total) = (Some(0u128), Some(0u128));
    let mut changed = Vec::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        let id = format!("e{e}");
        let old = ops::minimize(&entry.automata.old.0);
        let new = ops::minimize(&entry.automata.new.0);
        let added = Language::new(
            entry.added.as_ref(),
            || ops::difference(&new, &old),
            n,
            EXAMPLES,
        );
        let removed = Language::new(
            entry.removed.as_ref(),
            || ops::difference(&old, &new),
            n,
            EXAMPLES,
        );
        let symdiff = Language::new(
            entry.symdiff.as_ref(),
            || ops::symmetric_difference(&old, &new),
            n,
            EXAMPLES,
        );
        let alphabet = entry_alphabet(&entry.alphabet, &[&old, &new]);
        let columns = [Version::Old, Version::New];
        let links = Links::new(
            &id,
            &alphabet,
            &columns,
            &entry.functions,
            &entry.source_changes,
        );
        let side = |w: &[String]| {
            let v = if new.accepts_names(w) {
                Version::New
            } else {
                Version::Old
            };
            links.word(w, v)
        };
        if !added.is_empty() || !removed.is_empty() {
            changed.push(entry.entry.clone());
        }
        added_total = add_count(added_total, &added);
        removed_total = add_count(removed_total, &removed);
        let findings = vec![
            finding(&id, &ADDED, &added, bound, draw, |w| {
                links.word(w, Version::New)
            }),
            finding(&id, &REMOVED, &removed, bound, draw, |w| {
                links.word(w, Version::Old)
            }),
        ];
        let comparisons = vec![finding(&id, &SYMDIFF, &symdiff, bound, draw, side)];
        let mut relevant = BTreeSet::from([entry.entry.clone()]);
        relevant.extend(compute::useful_letters(&symdiff.dfa));
        let shown: Vec<Vec<String>> = added
            .examples
            .iter()
            .chain(&removed.examples)
            .cloned()
            .collect();
        let versions = [
            ("Old", Version::Old, &doc.versions.old, &old),
            ("New", Version::New, &doc.versions.new, &new),
        ]
        .into_iter()
        .map(|(role, version, rev, dfa)| {
            let marks = Marks {
                highlighted: compute::runs_through(dfa, &shown),
                ..Marks::default()
            };
            figure(
                Labels {
                    id: format!("{id}-{version}"),
                    caption: version_caption(role, Some(rev)),
                    legend: "Red: the runs of the added and removed examples it makes.".to_string(),
                },
                dfa,
                &marks,
                n,
                draw,
                |w| links.word(w, version),
            )
        })
        .collect();
        let (changes, other_changes) = split_changes(&id, &entry.source_changes, &relevant);
        entries.push(EntryView {
            id,
            name: entry.entry.clone(),
            findings,
            comparisons,
            versions,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            functions: links.rows,
            changes,
            other_changes,
            stats: stats_table(&entry.stats),
        });
    }
    let (old, new) = (&doc.versions.old, &doc.versions.new);
    let banner = if changed.is_empty() {
        Banner {
            kind: "clean",
            headline: "Same behaviour".to_string(),
            detail: format!(
                "Up to {bound} calls, {} makes exactly the call sequences {} made.",
                display_rev(new),
                display_rev(old)
            ),
            counts: Vec::new(),
        }
    } else {
        Banner {
            kind: "changed",
            headline: "Behaviour changed".to_string(),
            detail: format!(
                "{} differs from {} in {}.",
                display_rev(new),
                display_rev(old),
                names_list(&changed)
            ),
            counts: Vec::new(),
        }
    };
    let banner = Banner {
        counts: vec![
            counted(doc.entries.len(), "entry", "entries"),
            words_total(added_total, "added", bound),
            words_total(removed_total, "removed", bound),
        ],
        ..banner
    };
    Page {
        kind: "diff",
        title: format!(
            "Behaviour from {} to {}",
            display_rev(old),
            display_rev(new)
        ),
        repository: doc.repository.clone(),
        banner,
        revisions: vec![revision_view("old", old), revision_view("new", new)],
        conflicts: Vec::new(),
        warnings: Vec::new(),
        entries,
        bounds: bounds_view(&doc.bounds, true),
        tool: doc.tool.clone().unwrap_or_else(default_tool),
    }
}

/// The learn or explain report's view.
pub(crate) fn automaton_page(doc: &AutomatonDocument, draw: Draw) -> AutomatonPage {
    let meta = &doc.meta;
    let explain = meta.kind == AutomatonKind::Explain;
    let dfa = ops::minimize(&doc.dfa);
    let bound = meta
        .bounds
        .as_ref()
        .map_or(2 * dfa.num_states(), |b| b.max_word_length as usize);
    let links = Links::none();
    let plain = |w: &[String]| links.word(w, Version::Base);
    let analysed = Marks::analyse(&dfa);
    let marks = if explain {
        analysed.clone()
    } else {
        // For behaviour nearly every state is doomed, which says nothing.
        Marks {
            dominating: analysed.dominating.clone(),
            ..Marks::default()
        }
    };
    let empty = analysis::is_empty(&dfa);
    let legend = if explain {
        "Double circles: the assertion has failed. Filled states: doomed (from here every \
         continuation fails). Thick edges: letters every failing execution contains."
    } else {
        "Double circles: accepting states. Thick edges: letters every accepted word contains."
    };
    let figure = figure(
        Labels {
            id: "automaton".to_string(),
            caption: if explain {
                "Failing executions".to_string()
            } else {
                "Learned automaton".to_string()
            },
            legend: legend.to_string(),
        },
        &dfa,
        &marks,
        bound,
        draw,
        plain,
    );
    let trace_of = |w: &[String]| meta.traces.get(&w.join(" "));
    let shortest: Vec<WordView> = compute::example_words(&dfa, bound, SHORTEST_WORDS)
        .iter()
        .map(|w| {
            let names = compute::names(&dfa, w);
            let mut view = plain(&names);
            view.trace = trace_of(&names).filter(|h| safe_local_href(h)).cloned();
            view
        })
        .collect();
    let traces = meta
        .traces
        .iter()
        .map(|(word, path)| {
            let names: Vec<String> = word.split_whitespace().map(str::to_string).collect();
            TraceView {
                word: plain(&names),
                href: safe_local_href(path).then(|| path.clone()),
                path: path.clone(),
            }
        })
        .collect();
    let count = meta
        .bounds
        .as_ref()
        .map(|b| count_text(analysis::count_up_to(&dfa, bound), b.max_word_length));
    let banner = match (explain, empty) {
        (true, true) => Banner {
            kind: "clean",
            headline: "The assertion cannot fail".to_string(),
            detail: "No execution within the bounds violates it.".to_string(),
            counts: Vec::new(),
        },
        (true, false) => Banner {
            kind: "unexpected",
            headline: "The assertion can fail".to_string(),
            detail: format!(
                "The shortest failing execution makes {} calls{}.",
                shortest.first().map_or(0, |w| w.letters.len()),
                count
                    .as_ref()
                    .map_or(String::new(), |c| format!("; {c} fail"))
            ),
            counts: Vec::new(),
        },
        (false, _) => Banner {
            kind: "info",
            headline: "Learned behaviour".to_string(),
            detail: match &count {
                Some(c) => format!("The program makes {c}."),
                None => "The call sequences the program can make.".to_string(),
            },
            counts: Vec::new(),
        },
    };
    let banner = Banner {
        counts: vec![
            counted(dfa.num_states(), "state", "states"),
            counted(dfa.num_transitions(), "transition", "transitions"),
            counted(dfa.alphabet().len(), "letter", "letters"),
        ],
        ..banner
    };
    let mut facts = Vec::new();
    for (label, value) in [
        ("program", &meta.program),
        ("entry", &meta.entry),
        ("assertion", &meta.assertion),
    ] {
        if let Some(value) = value {
            facts.push(Count {
                label: label.to_string(),
                value: value.clone(),
            });
        }
    }
    facts.push(Count {
        label: "alphabet".to_string(),
        value: dfa.alphabet().names().collect::<Vec<_>>().join(" "),
    });
    let stats = meta.stats.as_ref().and_then(|s| {
        stats_table(&BTreeMap::from([(Version::Base, s.clone())])).map(|mut t| {
            t.rows[0].version = "learning".to_string();
            t
        })
    });
    AutomatonPage {
        title: meta.title.clone().unwrap_or_else(|| {
            if explain {
                "How the assertion can fail".to_string()
            } else {
                "Learned behaviour".to_string()
            }
        }),
        banner,
        facts,
        dominating: analysed
            .dominating
            .iter()
            .map(|&a| dfa.alphabet().name(a).to_string())
            .collect(),
        doomed: if explain {
            analysed.doomed.iter().map(u32::to_string).collect()
        } else {
            Vec::new()
        },
        shortest_title: if explain {
            "Shortest failing executions".to_string()
        } else {
            "Shortest accepted words".to_string()
        },
        figure,
        shortest,
        traces,
        stats,
        bounds: meta.bounds.as_ref().map(|b| bounds_view(b, false)),
        explain,
        tool: default_tool(),
    }
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

    #[test]
    fn unified_diffs_are_classified_by_line() {
        let lines = diff_lines("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z");
        let classes: Vec<&str> = lines.iter().map(|l| l.class).collect();
        assert_eq!(classes, ["head", "head", "hunk", "del", "add", "ctx"]);
    }
}
