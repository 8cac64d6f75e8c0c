//! The merge review page ([`review_page`], `mergelens-review/1`): per entry the unexpected
//! and lost behaviour (the paper's L(M) \ L(E) and L(E) \ L(M)), the comparisons with
//! each branch, the five versions' figures and the source changes, under a banner that
//! states the verdict. Apart from the other pages because only a review has a verdict to
//! check and explain.

use std::collections::BTreeSet;

use super::coverage::lead_banner;
use super::parts::{
    LOST, LOST_FIRST_PASS, Labels, Links, MERGE_MINUS_OURS, MERGE_MINUS_THEIRS, OURS_VS_THEIRS,
    UNEXPECTED, UNEXPECTED_FIRST_PASS, entry_alphabet, figure, finding, split_changes,
    version_caption,
};
use super::{
    Banner, Draw, EXAMPLES, EntryView, Page, StoryRow, StoryView, add_count, bounds_view, counted,
    default_tool, display_rev, names_list, revision_view, stats_table, words_total,
};
use crate::automaton::{Alphabet, Dfa, Marks, ops};
use crate::document::{Difference, ExecutionKind, Findings, Review, Revision, Verdict, Version};
use crate::report::compute::{self, Language};

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
        // With the per-execution verdict, the word-level languages are its first pass.
        let (unexpected_text, lost_text) = if entry.execution_check.is_some() {
            (&UNEXPECTED_FIRST_PASS, &LOST_FIRST_PASS)
        } else {
            (&UNEXPECTED, &LOST)
        };
        if let Some(l) = &unexpected {
            findings.push(finding(&id, unexpected_text, l, bound, draw, in_merged));
            if !l.is_empty() {
                with_unexpected.push(entry.entry.clone());
            }
            unexpected_total = add_count(unexpected_total, l);
        }
        if let Some(l) = &lost {
            findings.push(finding(&id, lost_text, l, bound, draw, in_branch));
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
            execution_summary: entry.execution_check.as_ref().map(|c| {
                let self_check = match &c.self_check {
                    Some(s) if !s.identical => format!(
                        " The self-check failed: a version beside a copy of itself went different ways{}, so some input is not shared and nothing was judged.",
                        s.divergence.as_ref().map_or(String::new(), |d| format!(" after {d}"))
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
                    if c.complete { "" } else { ", partial: the check stopped at its limit" },
                    c.cbmc_runs,
                    c.wall_seconds,
                    if c.from_cache { " (from the cache)" } else { "" }
                )
            }),
            stories: entry.executions.iter().map(story_view).collect(),
        });
    }

    // With the per-execution check the verdict is its stories'; else the automata's.
    let checked = review.entries.iter().any(|e| e.execution_check.is_some());
    let story = |kind: ExecutionKind| {
        review
            .entries
            .iter()
            .any(|e| e.executions.iter().any(|x| x.kind == kind))
    };
    let derived = Verdict::of(Findings {
        conflict: !review.conflicts.is_empty(),
        unexpected: if checked {
            story(ExecutionKind::Unexpected)
        } else {
            !with_unexpected.is_empty()
        },
        lost: !checked && !with_lost.is_empty(),
        overlapping: checked && story(ExecutionKind::Overlapping),
        inconclusive: !review.inconclusive.is_empty(),
    });
    let mut warnings = Vec::new();
    if derived != review.verdict && review.verdict != Verdict::Conflict {
        warnings.push(format!(
            "The document's verdict is \"{}\", but its automata say \"{}\"; the banner shows the document's verdict.",
            review.verdict.name(),
            derived.name()
        ));
    }
    let mut banner = review_banner(
        review,
        &with_unexpected,
        &with_lost,
        unexpected_total,
        lost_total,
    );
    lead_banner(
        &mut banner,
        review.entries.iter().map(|e| &e.coverage),
        review.bounds.unwind,
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

fn story_view(e: &crate::document::Execution) -> StoryView {
    StoryView {
        kind: e.kind.name(),
        input: e.input_text(),
        rows: e
            .rows()
            .into_iter()
            .map(|(label, word)| StoryRow {
                label,
                cells: word
                    .iter()
                    .enumerate()
                    .map(|(i, l)| (l.clone(), label != "expected" && e.differs(word, i)))
                    .collect(),
            })
            .collect(),
        text: e.aligned_text(),
    }
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
                "Up to {n} calls, on every input the merge does what both branches' changes do together, and nothing else."
            ),
        ),
        Verdict::Overlapping => (
            "overlapping",
            "Overlapping changes".to_string(),
            format!(
                "On some inputs both branches changed the same part of the execution differently (in {}): see the executions, and decide what the merge should do.",
                names_list(&with_stories(review, ExecutionKind::Overlapping))
            ),
        ),
        Verdict::Unexpected => {
            let with = with_stories(review, ExecutionKind::Unexpected);
            let mut detail = if with.is_empty() {
                format!(
                    "The merge makes call sequences that neither branch's change explains (in {}).",
                    names_list(with_unexpected)
                )
            } else {
                format!(
                    "On some inputs the merge does what neither branch's change, nor both together, do (in {}): see the executions.",
                    names_list(&with)
                )
            };
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
        Verdict::Inconclusive => (
            "inconclusive",
            "Inconclusive".to_string(),
            format!(
                "No difference up to {n} calls, but the check fell short of the bounds: {}",
                review.inconclusive.join("; ")
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
