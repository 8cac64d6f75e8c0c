//! The audit page ([`audit_page`]): one row per merge commit of a range, its verdict and
//! counts, linked to the merge's full report.

use super::{AuditPage, AuditRow, Banner, Count, default_tool, safe_local_href};
use crate::document::Verdict;
use crate::document::audit::AuditDocument;

/// The audit report's view.
pub(crate) fn audit_page(doc: &AuditDocument) -> AuditPage {
    let rows: Vec<AuditRow> = doc
        .merges
        .iter()
        .map(|m| AuditRow {
            short: m.commit.chars().take(10).collect(),
            commit: m.commit.clone(),
            subject: m.subject.clone(),
            verdict: m.verdict_word(),
            kind: kind(m.verdict),
            unexpected: m.unexpected,
            lost: m.lost,
            overlapping: m.overlapping,
            seconds: format!("{:.1}", m.seconds),
            report: m.report.clone().filter(|r| safe_local_href(r)),
            notes: m.notes.clone(),
        })
        .collect();
    let count = |k: &str| rows.iter().filter(|r| r.kind == k).count();
    let attention = rows.len() - count("clean");
    let banner = Banner {
        kind: if attention == 0 && !doc.partial {
            "clean"
        } else if count("unexpected") > 0 || count("lost") > 0 {
            "unexpected"
        } else {
            "info"
        },
        headline: if doc.partial {
            format!("Partial audit of {}: stopped before every merge was reviewed", doc.range)
        } else if attention == 0 {
            format!("Every merge of {} is clean", doc.range)
        } else {
            format!("{attention} of {} merges of {} need a look", rows.len(), doc.range)
        },
        detail: "Each merge commit reviewed as committed: the merge base of its parents, its first parent, its second, and its own tree.".to_string(),
        counts: [
            "clean",
            "unexpected",
            "overlapping",
            "unfinished",
            "inconclusive",
            "conflict",
            "unreviewed",
        ]
            .iter()
            .map(|k| Count {
                label: (*k).to_string(),
                value: count(k).to_string(),
            })
            .filter(|c| c.value != "0")
            .collect(),
    };
    AuditPage {
        title: format!("mergelens audit of {}", doc.range),
        banner,
        rows,
        tool: doc.tool.clone().unwrap_or_else(default_tool),
        remote: doc.remote.map(|r| r.sentence()),
    }
}

/// The row's CSS class: the verdict, with `lost` shown as the `unexpected` it is written as.
fn kind(verdict: Option<Verdict>) -> &'static str {
    match verdict {
        None => "unreviewed",
        Some(Verdict::Clean) => "clean",
        Some(Verdict::Unexpected | Verdict::Lost) => "unexpected",
        Some(Verdict::Overlapping) => "overlapping",
        Some(Verdict::Conflict) => "conflict",
        Some(Verdict::Unfinished) => "unfinished",
        Some(Verdict::Inconclusive) => "inconclusive",
    }
}
