//! The series page ([`series_page`]): a behaviour changelog, one step of a series of
//! revisions after the other, each with the words it added and removed, linked to its full
//! diff report.

use super::{Banner, Count, SeriesPage, SeriesStepView, default_tool, safe_local_href};
use crate::document::series::SeriesDocument;
use crate::report::compute::added_removed;

/// Words listed per entry and direction.
const WORDS: usize = 3;

/// The series report's view.
pub(crate) fn series_page(doc: &SeriesDocument) -> SeriesPage {
    let steps: Vec<SeriesStepView> = doc
        .steps
        .iter()
        .map(|step| {
            let mut lines = Vec::new();
            let bound = step.diff.bounds.max_word_length as usize;
            for entry in &step.diff.entries {
                let (added, removed) = added_removed(entry, bound, WORDS);
                for (what, language) in [("added", added), ("removed", removed)] {
                    for word in language.examples.iter().take(WORDS) {
                        lines.push(format!("{}: {what} {}", entry.entry, word.join(" ")));
                    }
                }
            }
            let inconclusive = !step.changed && !step.diff.inconclusive.is_empty();
            SeriesStepView {
                from: step.from.clone(),
                to: step.to.clone(),
                kind: if step.changed {
                    "changed"
                } else if inconclusive {
                    "info"
                } else {
                    "clean"
                },
                headline: if step.changed {
                    "behaviour changed"
                } else if inconclusive {
                    "inconclusive: unchanged within the bounds, but the check fell short"
                } else {
                    "behaviour unchanged"
                },
                lines,
                notes: step.diff.inconclusive.clone(),
                report: step.report.clone().filter(|r| safe_local_href(r)),
            }
        })
        .collect();
    let changed = steps.iter().filter(|s| s.kind == "changed").count();
    let range = match (doc.revisions.first(), doc.revisions.last()) {
        (Some(a), Some(b)) => format!("{a} to {b}"),
        _ => String::new(),
    };
    SeriesPage {
        title: format!("mergelens behaviour changelog, {range}"),
        banner: Banner {
            kind: if changed > 0 { "changed" } else { "clean" },
            headline: format!("{changed} of {} steps changed behaviour", steps.len()),
            detail: "Each step compares a revision with the next: the call sequences one has and the other has not, within the bounds.".to_string(),
            counts: vec![Count {
                label: "revisions".to_string(),
                value: doc.revisions.len().to_string(),
            }],
        },
        steps,
        tool: doc.tool.clone().unwrap_or_else(default_tool),
        remote: doc.remote.map(|r| r.sentence()),
    }
}
