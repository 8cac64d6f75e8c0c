//! The merge review page ([`review_page`], `mergelens-review/1`): a summary that states the
//! verdict in a few lines (counts, the worst finding, a link to the coverage table), then
//! per entry the stories of the per-execution check grouped by shape, the unexpected and
//! lost behaviour (the paper's L(M) \ L(E) and L(E) \ L(M)), the comparisons with each
//! branch, the five versions' figures and the source changes. Apart from the other pages
//! because only a review has a verdict to check and explain.

use std::collections::BTreeSet;

use super::coverage::coverage_table;
use super::parts::{
    LOST, LOST_FIRST_PASS, Labels, Links, MERGE_MINUS_OURS, MERGE_MINUS_THEIRS, OURS_VS_THEIRS,
    UNEXPECTED, UNEXPECTED_FIRST_PASS, entry_alphabet, figure, finding, split_changes,
    version_caption,
};
use super::stories::story_groups;
use super::{
    Banner, Count, CoverageTable, Draw, EXAMPLES, EntryView, Figure, Finding, Page, ReviewPage,
    add_count, bounds_view, counted, default_tool, display_rev, names_list, revision_view,
    stats_table, words_total,
};
use crate::automaton::{Alphabet, Dfa, Marks, ops};
use crate::document::coverage::{unreached, unreached_sentence};
use crate::document::{
    Difference, ExecutionCheck, ExecutionKind, Findings, Review, ReviewEntry, Revision, Verdict,
    Version,
};
use crate::report::compute::{self, Language};

/// The review report's view.
pub(crate) fn review_page(review: &Review, draw: Draw) -> ReviewPage {
    let mut totals = WordTotals::default();
    let entries: Vec<EntryView> = review
        .entries
        .iter()
        .enumerate()
        .map(|(e, entry)| entry_view(review, format!("e{e}"), entry, draw, &mut totals))
        .collect();
    let coverage = coverage_table(review.coverages());
    let banner = review_summary(review, &entries, &totals, &coverage);
    let v = &review.versions;
    let mut revisions = vec![
        revision_view("base O", &v.base),
        revision_view("ours A", &v.ours),
        revision_view("theirs B", &v.theirs),
    ];
    if let Some(m) = &v.merged {
        revisions.push(revision_view("merged M", m));
    }
    let page = Page {
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
        warnings: verdict_warning(review, &totals).into_iter().collect(),
        entries,
        bounds: bounds_view(&review.bounds, true),
        tool: review.tool.clone().unwrap_or_else(default_tool),
        remote: review.remote.map(|r| r.sentence()),
    };
    ReviewPage {
        page,
        unfinished: review.unfinished.clone(),
        reasons: shortfalls(review),
        coverage,
    }
}

/// The word-level languages' totals over the entries (`None` once some count is
/// unknown), and the entries that have words.
struct WordTotals {
    unexpected: Option<u128>,
    lost: Option<u128>,
    with_unexpected: Vec<String>,
    with_lost: Vec<String>,
}

impl Default for WordTotals {
    fn default() -> WordTotals {
        WordTotals {
            unexpected: Some(0),
            lost: Some(0),
            with_unexpected: Vec::new(),
            with_lost: Vec::new(),
        }
    }
}

impl WordTotals {
    fn add(&mut self, entry: &str, unexpected: Option<&Language>, lost: Option<&Language>) {
        if let Some(l) = unexpected {
            if !l.is_empty() {
                self.with_unexpected.push(entry.to_string());
            }
            self.unexpected = add_count(self.unexpected, l);
        }
        if let Some(l) = lost {
            if !l.is_empty() {
                self.with_lost.push(entry.to_string());
            }
            self.lost = add_count(self.lost, l);
        }
    }
}

/// The languages one entry shows: the expected merge E, the findings (L(M) \ L(E) and
/// L(E) \ L(M)) and the comparisons; those that need the merge are absent without one,
/// unless the document gives them.
struct EntryLanguages {
    expected: Dfa,
    unexpected: Option<Language>,
    lost: Option<Language>,
    merge_minus_ours: Option<Language>,
    merge_minus_theirs: Option<Language>,
    ours_vs_theirs: Language,
}

fn entry_languages(entry: &ReviewEntry, n: usize) -> EntryLanguages {
    let a = &entry.automata;
    let (ours, theirs) = (&a.ours.0, &a.theirs.0);
    let merged = a.merged.as_ref().map(|m| &m.0);
    let expected = match &a.expected {
        Some(x) => ops::minimize(&x.0),
        None => compute::expected_merge(&a.base.0, ours, theirs),
    };
    let lang = |given: &Option<Difference>, op: &dyn Fn(&Dfa) -> Dfa| match (given, merged) {
        (None, None) => None,
        (given, merged) => Some(Language::new(
            given.as_ref(),
            || merged.map_or_else(|| Dfa::new(Alphabet::new()), op),
            n,
            EXAMPLES,
        )),
    };
    EntryLanguages {
        unexpected: lang(&entry.unexpected, &|m| ops::difference(m, &expected)),
        lost: lang(&entry.lost, &|m| ops::difference(&expected, m)),
        merge_minus_ours: lang(&entry.merge_minus_ours, &|m| ops::difference(m, ours)),
        merge_minus_theirs: lang(&entry.merge_minus_theirs, &|m| ops::difference(m, theirs)),
        ours_vs_theirs: Language::new(
            entry.ours_vs_theirs.as_ref(),
            || ops::symmetric_difference(ours, theirs),
            n,
            EXAMPLES,
        ),
        expected,
    }
}

/// One drawn version: its role, name, revision and minimised automaton.
type Drawn<'a> = (&'static str, Version, Option<&'a Revision>, Dfa);

/// The five versions an entry draws (O, A, B, M when there is a merge, and E).
fn drawn_versions<'a>(review: &'a Review, entry: &ReviewEntry, expected: &Dfa) -> Vec<Drawn<'a>> {
    let a = &entry.automata;
    let v = &review.versions;
    [
        ("Base O", Version::Base, Some(&v.base), Some(&a.base.0)),
        ("Ours A", Version::Ours, Some(&v.ours), Some(&a.ours.0)),
        (
            "Theirs B",
            Version::Theirs,
            Some(&v.theirs),
            Some(&a.theirs.0),
        ),
        (
            "Merged M",
            Version::Merged,
            v.merged.as_ref(),
            a.merged.as_ref().map(|m| &m.0),
        ),
        ("Expected E", Version::Expected, None, Some(expected)),
    ]
    .into_iter()
    .filter_map(|(role, version, rev, dfa)| dfa.map(|d| (role, version, rev, ops::minimize(d))))
    .collect()
}

const COLUMNS: [Version; 4] = [
    Version::Base,
    Version::Ours,
    Version::Theirs,
    Version::Merged,
];

fn entry_view(
    review: &Review,
    id: String,
    entry: &ReviewEntry,
    draw: Draw,
    totals: &mut WordTotals,
) -> EntryView {
    let bound = review.bounds.max_word_length;
    let languages = entry_languages(entry, bound as usize);
    let drawn = drawn_versions(review, entry, &languages.expected);
    let automata: Vec<&Dfa> = drawn.iter().map(|(_, _, _, d)| d).collect();
    let alphabet = entry_alphabet(&entry.alphabet, &automata);
    let links = Links::new(
        &id,
        &alphabet,
        &COLUMNS,
        &entry.functions,
        &entry.source_changes,
    );
    let l = &languages;
    totals.add(&entry.entry, l.unexpected.as_ref(), l.lost.as_ref());
    let (findings, comparisons) = entry_findings(&id, entry, l, &links, bound, draw);
    let mut relevant = BTreeSet::from([entry.entry.clone()]);
    let mut shown: Vec<Vec<String>> = Vec::new();
    for l in l.unexpected.iter().chain(&l.lost) {
        relevant.extend(compute::useful_letters(&l.dfa));
        shown.extend(l.examples.iter().cloned());
    }
    let compared = l.merge_minus_ours.iter().chain(&l.merge_minus_theirs);
    for l in compared.chain([&l.ours_vs_theirs]) {
        relevant.extend(compute::useful_letters(&l.dfa));
    }
    let versions = version_figures(&id, &drawn, &shown, &links, bound, draw);
    let (changes, other_changes) = split_changes(&id, &entry.source_changes, &relevant);
    EntryView {
        name: entry.entry.clone(),
        own_entry: entry.changed_function.then_some(crate::document::OWN_ENTRY),
        findings,
        comparisons,
        versions,
        columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
        functions: links.rows,
        changes,
        other_changes,
        stats: stats_table(&entry.stats),
        execution_summary: entry.execution_check.as_ref().map(execution_summary),
        stories: story_groups(&id, &entry.executions),
        id,
    }
}

/// The entry's findings (unexpected and lost behaviour) and the comparisons behind them.
fn entry_findings(
    id: &str,
    entry: &ReviewEntry,
    l: &EntryLanguages,
    links: &Links,
    bound: u32,
    draw: Draw,
) -> (Vec<Finding>, Vec<Finding>) {
    let (ours, theirs) = (&entry.automata.ours.0, &entry.automata.theirs.0);
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
    // With the per-execution verdict, the word-level languages are its first pass.
    let (unexpected_text, lost_text) = if entry.execution_check.is_some() {
        (&UNEXPECTED_FIRST_PASS, &LOST_FIRST_PASS)
    } else {
        (&UNEXPECTED, &LOST)
    };
    let mut findings = Vec::new();
    if let Some(u) = &l.unexpected {
        findings.push(finding(id, unexpected_text, u, bound, draw, in_merged));
    }
    if let Some(lost) = &l.lost {
        findings.push(finding(id, lost_text, lost, bound, draw, in_branch));
    }
    let mut comparisons = Vec::new();
    if let Some(m) = &l.merge_minus_ours {
        comparisons.push(finding(id, &MERGE_MINUS_OURS, m, bound, draw, in_merged));
    }
    if let Some(m) = &l.merge_minus_theirs {
        comparisons.push(finding(id, &MERGE_MINUS_THEIRS, m, bound, draw, in_merged));
    }
    let ovt = &l.ours_vs_theirs;
    comparisons.push(finding(id, &OURS_VS_THEIRS, ovt, bound, draw, in_branch));
    (findings, comparisons)
}

/// The five versions' figures, with the runs of the example words `shown` in red.
fn version_figures(
    id: &str,
    drawn: &[Drawn],
    shown: &[Vec<String>],
    links: &Links,
    bound: u32,
    draw: Draw,
) -> Vec<Figure> {
    drawn
        .iter()
        .map(|(role, version, rev, dfa)| {
            let marks = Marks {
                highlighted: compute::runs_through(dfa, shown),
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
                bound as usize,
                draw,
                |w| links.word(w, *version),
            )
        })
        .collect()
}

/// What the per-execution check of an entry covered and cost, in one paragraph.
fn execution_summary(c: &ExecutionCheck) -> String {
    let self_check = match &c.self_check {
        Some(s) if !s.identical => format!(
            " The self-check failed: a version beside a copy of itself went different ways{}, so some input is not shared and nothing was judged.",
            s.divergence
                .as_ref()
                .map_or(String::new(), |d| format!(" after {d}"))
        ),
        Some(s) => format!(
            " The self-check held: each version beside a copy of itself behaves alike on every input ({:.2} s).",
            s.wall_seconds
        ),
        None => String::new(),
    };
    format!(
        "Per execution: {} execution(s) one branch alone does not explain (the others are one branch's change): {} composed, {} unexpected, {} overlapping{}; {} CBMC run(s), {:.2} s{}.{self_check}",
        c.quadruples,
        c.explained,
        c.unexpected,
        c.overlapping,
        if c.complete {
            ""
        } else {
            ", partial: the check stopped at its limit"
        },
        c.cbmc_runs,
        c.wall_seconds,
        if c.from_cache {
            " (from the cache)"
        } else {
            ""
        }
    )
}

/// A warning when the document's verdict is not the one its stories (with the
/// per-execution check) or its automata say.
fn verdict_warning(review: &Review, totals: &WordTotals) -> Option<String> {
    let checked = review.entries.iter().any(|e| e.execution_check.is_some());
    let story = |kind: ExecutionKind| !with_stories(review, kind).is_empty();
    let derived = Verdict::of(Findings {
        conflict: !review.conflicts.is_empty(),
        unexpected: if checked {
            story(ExecutionKind::Unexpected)
        } else {
            !totals.with_unexpected.is_empty()
        },
        lost: !checked && !totals.with_lost.is_empty(),
        overlapping: checked && story(ExecutionKind::Overlapping),
        unfinished: !review.unfinished.is_empty(),
        inconclusive: !review.inconclusive.is_empty(),
    });
    // An unfinished review's partial automata are no findings: nothing to contradict.
    let judged = !matches!(review.verdict, Verdict::Conflict | Verdict::Unfinished);
    (derived != review.verdict && judged).then(|| {
        format!(
            "The document's verdict is \"{}\", but its automata say \"{}\"; the banner shows the document's verdict.",
            review.verdict.name(),
            derived.name()
        )
    })
}

/// The entries with a story of this kind.
fn with_stories(review: &Review, kind: ExecutionKind) -> Vec<String> {
    review
        .entries
        .iter()
        .filter(|e| e.executions.iter().any(|x| x.kind == kind))
        .map(|e| e.entry.clone())
        .collect()
}

/// Why the check fell short, but the unreached changes (the coverage table has those).
fn shortfalls(review: &Review) -> Vec<String> {
    let unwind = review.bounds.unwind;
    let unreached: Vec<String> = unreached(review.coverages())
        .into_iter()
        .map(|h| unreached_sentence(h, unwind).to_lowercase())
        .collect();
    review
        .inconclusive
        .iter()
        .filter(|r| !unreached.contains(&r.to_lowercase()))
        .cloned()
        .collect()
}

/// The summary that heads the page: the verdict, one sentence on the worst finding, and
/// the counts (executions by verdict or words, changed hunks reached). Kept to a few lines
/// however large the review: lists go to the coverage table and the entries.
fn review_summary(
    review: &Review,
    entries: &[EntryView],
    totals: &WordTotals,
    coverage: &CoverageTable,
) -> Banner {
    let (kind, headline, mut detail) = verdict_text(review, entries, totals, coverage);
    if review.verdict != Verdict::Inconclusive {
        detail = lead_with_unreached(review, coverage, detail);
    }
    let mut counts = Vec::new();
    if review.entries.len() > 1 {
        counts.push(counted(review.entries.len(), "entry", "entries"));
    }
    let checks: Vec<&ExecutionCheck> = review
        .entries
        .iter()
        .filter_map(|e| e.execution_check.as_ref())
        .collect();
    if checks.is_empty() {
        let n = review.bounds.max_word_length;
        counts.push(words_total(totals.unexpected, "unexpected", n));
        counts.push(words_total(totals.lost, "lost", n));
    } else {
        let sum = |f: fn(&ExecutionCheck) -> u64| checks.iter().map(|c| f(c)).sum::<u64>();
        // One count: the executions by verdict.
        let checked = sum(|c| c.quadruples);
        counts.push(Count {
            value: checked.to_string(),
            label: format!(
                "{}: {} unexpected, {} overlapping, {} composed",
                if checked == 1 {
                    "execution"
                } else {
                    "executions"
                },
                sum(|c| c.unexpected),
                sum(|c| c.overlapping),
                sum(|c| c.explained)
            ),
        });
    }
    if !review.conflicts.is_empty() {
        counts.push(counted(
            review.conflicts.len(),
            "conflicting file",
            "conflicting files",
        ));
    }
    // The changed hunks reached are counted where the coverage table is linked (the HTML
    // summary, the Markdown list of unreached hunks).
    Banner {
        kind,
        headline,
        detail,
        counts,
    }
}

/// The verdict's CSS class, headline and one sentence.
fn verdict_text(
    review: &Review,
    entries: &[EntryView],
    totals: &WordTotals,
    coverage: &CoverageTable,
) -> (&'static str, String, String) {
    let n = review.bounds.max_word_length;
    let worst = worst_story(entries);
    let (kind, headline, detail) = match review.verdict {
        Verdict::Clean => (
            "clean",
            "Clean merge",
            format!(
                "Up to {n} calls, on every input the merge does what both branches' changes do together, and nothing else."
            ),
        ),
        Verdict::Overlapping => (
            "overlapping",
            "Overlapping changes",
            format!(
                "On some inputs both branches changed the same part of the execution differently (in {}): decide what the merge should do.{worst}",
                names_list(&with_stories(review, ExecutionKind::Overlapping))
            ),
        ),
        Verdict::Unexpected => ("unexpected", "Unexpected behaviour", {
            let with = with_stories(review, ExecutionKind::Unexpected);
            let mut detail = if with.is_empty() {
                format!(
                    "The merge makes call sequences that neither branch's change explains (in {}).",
                    names_list(&totals.with_unexpected)
                )
            } else {
                format!(
                    "On some inputs the merge does what neither branch's change, nor both together, do (in {}).{worst}",
                    names_list(&with)
                )
            };
            if !totals.with_lost.is_empty() {
                detail.push_str(&format!(
                    " It also loses behaviour a branch meant (in {}).",
                    names_list(&totals.with_lost)
                ));
            }
            detail
        }),
        Verdict::Lost => (
            "lost",
            "Lost behaviour",
            format!(
                "The merge does not make call sequences a branch meant it to make (in {}).",
                names_list(&totals.with_lost)
            ),
        ),
        Verdict::Unfinished => ("unfinished", "Unfinished review", unfinished_text(review)),
        Verdict::Inconclusive => ("inconclusive", "Inconclusive", {
            inconclusive_text(review, totals, coverage)
        }),
        Verdict::Conflict => (
            "conflict",
            "Merge conflict",
            format!(
                "git could not merge {} file(s); resolve the conflict, then review the result.",
                review.conflicts.len()
            ),
        ),
    };
    (kind, headline.to_string(), detail)
}

/// "The review did not finish, so it found nothing it could vouch for: ours (main): learning
/// stopped early (the time budget ran out) ..." with the first reason, and how many more.
fn unfinished_text(review: &Review) -> String {
    let mut text =
        "The review did not finish its work, so no finding does not mean no difference".to_string();
    if let Some(first) = review.unfinished.first() {
        text.push_str(&format!(": {first}"));
    }
    if review.unfinished.len() > 1 {
        text.push_str(&format!(
            "; and {} more (listed below)",
            review.unfinished.len() - 1
        ));
    }
    text.push('.');
    text
}

/// "No difference up to 10 calls, but the check fell short of the bounds: 35 changed hunks
/// are never reached (the coverage table lists them); a version ... and 2 more reasons."
///
/// The opening never contradicts what the page lists: when word-level differences are
/// shown below (which the per-execution check explained), it says so instead of "no
/// difference". One rule for every format, since Markdown renders this banner too.
fn inconclusive_text(review: &Review, totals: &WordTotals, coverage: &CoverageTable) -> String {
    const REASONS: usize = 2;
    let n = review.bounds.max_word_length;
    let nonzero = |c: Option<u128>| c != Some(0);
    let opening = if nonzero(totals.unexpected) || nonzero(totals.lost) {
        format!(
            "No unexpected execution up to {n} calls (the word-level differences listed below are each explained by the branches' changes), but the check fell short of the bounds"
        )
    } else {
        format!("No difference up to {n} calls, but the check fell short of the bounds")
    };
    let mut parts = Vec::new();
    if coverage.unreached > LISTED_UNREACHED {
        parts.push(format!(
            "{} never reached within --unwind {} (the coverage table lists them)",
            counted_text(coverage.unreached, "changed hunk is", "changed hunks are"),
            review.bounds.unwind,
        ));
    } else {
        parts.extend(unreached_sentences(review));
    }
    let reasons = shortfalls(review);
    parts.extend(reasons.iter().take(REASONS).cloned());
    let mut text = format!("{opening}: {}", parts.join("; "));
    if reasons.len() > REASONS {
        text.push_str(&format!(
            "; and {} more (listed below)",
            reasons.len() - REASONS
        ));
    }
    text.push('.');
    text
}

/// Up to this many unreached changes are named in the summary; more are counted, and the
/// coverage table names them.
const LISTED_UNREACHED: usize = 3;

/// "theirs' change at parser.c:41-47 is never reached within --unwind 2", one per changed
/// hunk no entry's executions reach.
fn unreached_sentences(review: &Review) -> Vec<String> {
    unreached(review.coverages())
        .into_iter()
        .map(|h| unreached_sentence(h, review.bounds.unwind))
        .collect()
}

/// `detail` led by the unreached changes when there are few: no difference says nothing
/// about code no execution runs. More are counted by the summary's link to the table.
fn lead_with_unreached(review: &Review, coverage: &CoverageTable, detail: String) -> String {
    if coverage.unreached == 0 || coverage.unreached > LISTED_UNREACHED {
        return detail;
    }
    let lead = unreached_sentences(review).join("; ");
    let mut letters = lead.chars();
    let capitalised: String = letters
        .next()
        .map(|c| c.to_uppercase().chain(letters).collect())
        .unwrap_or_default();
    format!("{capitalised}. {detail}")
}

fn counted_text(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// " The worst (in main, 2 executions): the merge leaves out f, which the expected merge
/// calls.": the first story group of the first entry that has one (groups come worst
/// first: unexpected ones, then the most frequent). A single story is told as it is.
fn worst_story(entries: &[EntryView]) -> String {
    let Some((entry, group)) = entries
        .iter()
        .flat_map(|e| e.stories.first().map(|g| (e, g)))
        .min_by_key(|(_, g)| g.kind != "unexpected")
    else {
        return String::new();
    };
    let groups: usize = entries.iter().map(|e| e.stories.len()).sum();
    if groups == 1 && group.count == 1 {
        let mut change = group.change.chars();
        let capitalised: String = change
            .next()
            .map(|c| c.to_uppercase().chain(change).collect())
            .unwrap_or_default();
        return format!(" {capitalised}.");
    }
    let which = if group.kind == "unexpected" {
        "The worst"
    } else {
        "The most frequent"
    };
    let place = if entries.len() > 1 {
        format!("in {}, ", entry.name)
    } else {
        String::new()
    };
    let how_many = match group.count {
        1 => "1 execution".to_string(),
        k => format!("{k} executions"),
    };
    format!(" {which} ({place}{how_many}): {}.", group.change)
}
