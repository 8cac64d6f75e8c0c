//! The diff page ([`diff_page`], `mergelens-diff/1`): what changed in behaviour between two
//! revisions (release tags), per entry the added and removed call sequences, both versions'
//! figures and the source changes. Apart from the review page because two versions and no
//! verdict make a simpler page.

use std::collections::BTreeSet;

use super::coverage::lead_banner;
use super::parts::{
    ADDED, Labels, Links, REMOVED, SYMDIFF, entry_alphabet, figure, finding, split_changes,
    version_caption,
};
use super::{
    Banner, Draw, EXAMPLES, EntryView, Page, add_count, bounds_view, counted, default_tool,
    display_rev, names_list, revision_view, stats_table, words_total,
};
use crate::automaton::{Marks, ops};
use crate::document::{DiffDocument, DiffEntry, Version};
use crate::report::compute::{self, Language};

/// The diff (release tags) report's view.
pub(crate) fn diff_page(doc: &DiffDocument, draw: Draw) -> Page {
    let n = doc.bounds.max_word_length as usize;
    let mut entries = Vec::new();
    let (mut added_total, mut removed_total) = (Some(0u128), Some(0u128));
    let mut changed = Vec::new();
    for (e, entry) in doc.entries.iter().enumerate() {
        let (added, removed) = compute::added_removed(entry, n, EXAMPLES);
        if !added.is_empty() || !removed.is_empty() {
            changed.push(entry.entry.clone());
        }
        added_total = add_count(added_total, &added);
        removed_total = add_count(removed_total, &removed);
        entries.push(entry_view(
            doc,
            format!("e{e}"),
            entry,
            [added, removed],
            draw,
        ));
    }
    let (old, new) = (&doc.versions.old, &doc.versions.new);
    Page {
        kind: "diff",
        title: format!(
            "Behaviour from {} to {}",
            display_rev(old),
            display_rev(new)
        ),
        repository: doc.repository.clone(),
        banner: banner(doc, &changed, added_total, removed_total),
        revisions: vec![revision_view("old", old), revision_view("new", new)],
        conflicts: Vec::new(),
        warnings: Vec::new(),
        entries,
        bounds: {
            let mut bounds = bounds_view(&doc.bounds, true);
            // Past the banner's first few, the reasons are read with the notes.
            let listed = doc.inconclusive.iter().skip(SUMMARISED_REASONS);
            bounds.notes.splice(0..0, listed.cloned());
            bounds
        },
        tool: doc.tool.clone().unwrap_or_else(default_tool),
        remote: doc.remote.map(|r| r.sentence()),
    }
}

/// The banner names this many reasons an inconclusive diff gives; the others lead the notes.
const SUMMARISED_REASONS: usize = 3;

/// "theirs' change at a.c:3 is never reached; ...; and 32 more (in the notes below)": a
/// banner of a few lines however many hunks a real diff leaves unreached.
fn shortfall_summary(reasons: &[String]) -> String {
    let mut text = reasons
        .iter()
        .take(SUMMARISED_REASONS)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if reasons.len() > SUMMARISED_REASONS {
        text.push_str(&format!(
            "; and {} more (in the notes below)",
            reasons.len() - SUMMARISED_REASONS
        ));
    }
    text
}

/// One entry: what it added and removed, both revisions' figures and the source changes,
/// the relevant ones first.
fn entry_view(
    doc: &DiffDocument,
    id: String,
    entry: &DiffEntry,
    [added, removed]: [Language; 2],
    draw: Draw,
) -> EntryView {
    let bound = doc.bounds.max_word_length;
    let n = bound as usize;
    let old = ops::minimize(&entry.automata.old.0);
    let new = ops::minimize(&entry.automata.new.0);
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
    // A word of the symmetric difference links to the revision that makes it.
    let side = |w: &[String]| {
        let v = if new.accepts_names(w) {
            Version::New
        } else {
            Version::Old
        };
        links.word(w, v)
    };
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
    let revisions = [
        ("Old", Version::Old, &doc.versions.old, &old),
        ("New", Version::New, &doc.versions.new, &new),
    ];
    let versions = revisions
        .into_iter()
        .map(|(role, version, rev, dfa)| {
            let marks = Marks {
                highlighted: compute::runs_through(dfa, &shown),
                ..Marks::default()
            };
            let labels = Labels {
                id: format!("{id}-{version}"),
                caption: version_caption(role, Some(rev)),
                legend: "Red: the runs of the added and removed examples it makes.".to_string(),
            };
            figure(labels, dfa, &marks, n, draw, |w| links.word(w, version))
        })
        .collect();
    let (changes, other_changes) = split_changes(&id, &entry.source_changes, &relevant);
    EntryView {
        id,
        name: entry.entry.clone(),
        own_entry: None,
        findings,
        comparisons,
        versions,
        columns: columns.iter().map(|c| c.to_string()).collect(),
        functions: links.rows,
        changes,
        other_changes,
        stats: stats_table(&entry.stats),
        execution_summary: None,
        stories: Vec::new(),
    }
}

/// The verdict of a diff: inconclusive, the same behaviour, or which entries changed; with
/// the words added and removed in all.
fn banner(
    doc: &DiffDocument,
    changed: &[String],
    added_total: Option<u128>,
    removed_total: Option<u128>,
) -> Banner {
    let bound = doc.bounds.max_word_length;
    let (old, new) = (&doc.versions.old, &doc.versions.new);
    let (kind, headline, detail) = if changed.is_empty() && !doc.inconclusive.is_empty() {
        (
            "inconclusive",
            "Inconclusive",
            format!(
                "No difference up to {bound} calls, but the check fell short of the bounds: {}",
                shortfall_summary(&doc.inconclusive)
            ),
        )
    } else if changed.is_empty() {
        (
            "clean",
            "Same behaviour",
            format!(
                "Up to {bound} calls, {} makes exactly the call sequences {} made.",
                display_rev(new),
                display_rev(old)
            ),
        )
    } else {
        (
            "changed",
            "Behaviour changed",
            format!(
                "{} differs from {} in {}.",
                display_rev(new),
                display_rev(old),
                names_list(changed)
            ),
        )
    };
    let mut banner = Banner {
        kind,
        headline: headline.to_string(),
        detail,
        counts: vec![
            counted(doc.entries.len(), "entry", "entries"),
            words_total(added_total, "added", bound),
            words_total(removed_total, "removed", bound),
        ],
    };
    lead_banner(
        &mut banner,
        doc.entries.iter().map(|e| &e.coverage),
        doc.bounds.unwind,
    );
    banner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inconclusive_banner_names_three_reasons_and_counts_the_rest() {
        let reasons: Vec<String> = (1..=35)
            .map(|k| format!("hunk {k} is never reached"))
            .collect();
        let text = shortfall_summary(&reasons);
        assert!(
            text.starts_with("hunk 1 is never reached; hunk 2"),
            "{text}"
        );
        assert!(
            text.ends_with("; and 32 more (in the notes below)"),
            "{text}"
        );
        assert_eq!(
            shortfall_summary(&reasons[..2]),
            "hunk 1 is never reached; hunk 2 is never reached"
        );
    }
}
