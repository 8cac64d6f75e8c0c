//! `mergelens-series/1`: what each step of a series of revisions (release tags, say) added
//! to and removed from the program's behaviour: a behaviour changelog (`mergelens diff` with
//! more than two revisions, or `--tags`).
//!
//! Key type: [`SeriesDocument`], one [`DiffDocument`] per step. `docs/formats.md` documents
//! the keys.

use serde::{Deserialize, Serialize};

use super::DiffDocument;

pub const SERIES_FORMAT: &str = "mergelens-series/1";

/// The diffs of consecutive revisions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesDocument {
    /// Always [`SERIES_FORMAT`].
    pub format: String,
    /// The revisions as the user named them, in order.
    pub revisions: Vec<String>,
    /// `steps[k]` compares `revisions[k]` with `revisions[k + 1]`.
    pub steps: Vec<SeriesStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// With a remote engine: its actions for the whole series (executed, cached, run here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<crate::remote::RemoteStats>,
}

/// One step of the series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeriesStep {
    pub from: String,
    pub to: String,
    /// Whether some entry's behaviour changed.
    pub changed: bool,
    /// No behaviour changed, but the check fell short (the reasons are the diff's
    /// `inconclusive`).
    #[serde(default)]
    pub inconclusive: bool,
    /// The step's full report, when it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    pub diff: DiffDocument,
}
