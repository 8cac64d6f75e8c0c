//! `mergelens-audit/1`: the reviews of every merge commit of a range of history
//! (`mergelens audit`), one row each, pointing to each merge's full report.
//!
//! Key types: [`AuditDocument`] and [`AuditedMerge`], built from a [`Review`] by
//! [`AuditedMerge::reviewed`]. `docs/formats.md` documents the keys.

use serde::{Deserialize, Serialize};

use super::{Review, Verdict};

pub const AUDIT_FORMAT: &str = "mergelens-audit/1";

/// The audit of a range of history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditDocument {
    /// Always [`AUDIT_FORMAT`].
    pub format: String,
    /// The range as the user gave it (`v1.0..v2.0`).
    pub range: String,
    /// Oldest first.
    pub merges: Vec<AuditedMerge>,
    /// The program that wrote the document, e.g. `mergelens 0.1.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The audit was stopped (Ctrl-C, SIGTERM) before it reviewed every merge: those left
    /// have no verdict.
    #[serde(default)]
    pub partial: bool,
    /// With a remote engine: its actions for the whole audit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<crate::remote::RemoteStats>,
}

/// One merge commit of the range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditedMerge {
    /// The merge commit's full SHA.
    pub commit: String,
    /// The first line of its message.
    pub subject: String,
    /// `None`: not reviewed (an octopus merge, a failure, or an audit stopped first); `note`
    /// says why.
    pub verdict: Option<Verdict>,
    /// Executions (or, where the per-execution check did not run, entries) on which the
    /// merge does what neither branch explains, and on which it loses a call a branch added.
    pub unexpected: u64,
    pub lost: u64,
    pub overlapping: u64,
    /// CBMC runs the review made (0 when everything came from the caches).
    pub cbmc_runs: u64,
    pub seconds: f64,
    /// The merge's full report, relative to the audit document's directory when it can be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// Why there is no verdict, or what the verdict rests on (`unfinished`, then
    /// `inconclusive` reasons).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl AuditedMerge {
    /// The row of a merge that was reviewed.
    pub fn reviewed(
        commit: String,
        subject: String,
        review: &Review,
        seconds: f64,
        report: Option<String>,
    ) -> AuditedMerge {
        let (mut unexpected, mut lost, mut overlapping, mut runs) = (0, 0, 0, 0);
        for entry in &review.entries {
            match &entry.execution_check {
                Some(check) => {
                    unexpected += check.unexpected;
                    lost += check.lost;
                    overlapping += check.overlapping;
                    runs += check.cbmc_runs;
                }
                // Word-level languages are findings only where they are the verdict: not
                // those of a run stopped short (partial automata), nor of an inconclusive one.
                None if matches!(review.verdict, Verdict::Unexpected | Verdict::Lost) => {
                    let some = |d: &Option<super::Difference>| {
                        d.as_ref().is_some_and(|d| !d.examples.is_empty())
                    };
                    unexpected += u64::from(some(&entry.unexpected));
                    lost += u64::from(some(&entry.lost));
                }
                None => {}
            }
            runs += entry
                .stats
                .values()
                .filter_map(|s| s.cbmc_runs)
                .sum::<u64>();
            runs += entry.coverage.cost.as_ref().map_or(0, |c| c.cbmc_runs);
        }
        AuditedMerge {
            commit,
            subject,
            verdict: Some(review.verdict),
            unexpected,
            lost,
            overlapping,
            cbmc_runs: runs,
            seconds,
            report,
            notes: review
                .unfinished
                .iter()
                .chain(&review.inconclusive)
                .cloned()
                .collect(),
        }
    }

    /// The row of a merge that has no verdict, and why.
    pub fn unreviewed(commit: String, subject: String, why: String) -> AuditedMerge {
        AuditedMerge {
            commit,
            subject,
            verdict: None,
            unexpected: 0,
            lost: 0,
            overlapping: 0,
            cbmc_runs: 0,
            seconds: 0.0,
            report: None,
            notes: vec![why],
        }
    }

    /// The verdict as one word (`not reviewed` without one).
    pub fn verdict_word(&self) -> &'static str {
        match self.verdict {
            None => "not reviewed",
            Some(Verdict::Clean) => "clean",
            Some(Verdict::Unexpected) => "unexpected",
            Some(Verdict::Lost) => "lost",
            Some(Verdict::Overlapping) => "overlapping",
            Some(Verdict::Conflict) => "conflict",
            Some(Verdict::Unfinished) => "unfinished",
            Some(Verdict::Inconclusive) => "inconclusive",
        }
    }
}
