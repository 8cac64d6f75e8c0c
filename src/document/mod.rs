//! The documents a report is made from, as serde types: `mergelens-review/1` with `"kind":
//! "review"` (a merge, [`Review`]) or `"kind": "diff"` (two revisions, e.g. release tags,
//! [`DiffDocument`]), and the optional report keys of a `mergelens-dfa/1` automaton (a learned
//! or explained automaton). `docs/formats.md` is their reference; the doc comments here say
//! the same in fewer words.
//!
//! The wire form is what `mergelens review` and `mergelens diff` write (issue 6 of the
//! project: `revisions` as SHAs, languages as `{"dfa", "examples", "count_up_to_bound"}`);
//! the Rust types keep the shape the renderer reads ([`ReviewVersions`] with labels and
//! summaries), and convert through private wire types. Labels and summaries travel in the
//! extra key `versions` (revision objects), which wins over `revisions` when present. Older
//! spellings are still read: `automaton` for `dfa`, `old`/`new` for `from`/`to`, the verdict
//! `lost`, and the format tag `mergelens-diff/1`.
//!
//! Readers ignore keys they do not know (no `deny_unknown_fields`), so later versions can add
//! information; a change old readers would misunderstand gets a new format tag. Automata are
//! `mergelens-dfa/1` objects ([`Automaton`]), validated while the document is read.
//!
//! [`languages`] computes the languages a document carries (the expected merge, the
//! differences, example words): one definition for the review that writes a document and the
//! report that fills in what a document left out. This module is a leaf over
//! [`crate::automaton`]: rendering a document needs neither CBMC nor git.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_with::skip_serializing_none;

use crate::automaton::{Dfa, json};

pub mod audit;
pub(crate) mod columns;
pub mod coverage;
pub(crate) mod execution;
mod input_value;
pub mod languages;
pub mod series;
mod version;

pub use coverage::Coverage;
pub use execution::{
    Execution, ExecutionCheck, ExecutionInput, ExecutionKind, GlobalValues, InputReads, InputSite,
    LabelledValue, RealType, Returns, SelfCheck,
};
pub use version::Version;

pub const REVIEW_FORMAT: &str = "mergelens-review/1";
/// The format tag diffs had before they shared `mergelens-review/1` (with `"kind": "diff"`);
/// still read.
pub const DIFF_FORMAT: &str = "mergelens-diff/1";
/// The `kind` of a review document.
pub const REVIEW_KIND: &str = "review";
/// The `kind` of a diff document.
pub const DIFF_KIND: &str = "diff";

/// An automaton embedded in a document as a `mergelens-dfa/1` object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Automaton(pub Dfa);

impl Serialize for Automaton {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json::to_value(&self.0).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Automaton {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        json::from_value(value, "embedded automaton")
            .map(Automaton)
            .map_err(D::Error::custom)
    }
}

/// What a review concluded, in order of severity: a conflict hides everything else, then
/// behaviour the merge added, overlaps, behaviour it lost, a review that did not finish,
/// and a finished check that fell short.
///
/// `unfinished` ranks below every finding: a finding is a real execution, which says more
/// than "not done", and the reasons the review did not finish are listed beside it all the
/// same. It ranks above `inconclusive`: an inconclusive review did all its work and names
/// exactly what lies beyond its bounds (a changed hunk no execution reaches), while an
/// unfinished one cannot even say that: its gap is unknown, and a branch can make its own
/// review slow, or make a tool fail on it, on purpose. So the two are separate words, and
/// `fail-on` can name `unfinished` alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The merge does exactly what the branches' changes mean, within the bounds.
    Clean,
    /// The merge has behaviour neither branch's change explains (lost behaviour may come too).
    Unexpected,
    /// The merge lacks behaviour a branch meant, and adds nothing unexpected. Written as
    /// `unexpected` (the document's verdicts are clean, unexpected and conflict); a reader
    /// tells it apart again by the entries' languages (see [`Review`]).
    #[serde(rename(serialize = "unexpected", deserialize = "lost"))]
    Lost,
    /// Some execution on which both branches changed the same part differently (the
    /// per-execution check), and none the merge leaves unexplained otherwise.
    Overlapping,
    /// git could not merge (or the merge result does not build): see `conflicts`.
    Conflict,
    /// No finding, and the review did not complete its work: stopped by `--time-budget` or
    /// a signal, a CBMC, goto-cc or gcc run past its timeout or memory limit, or a tool that
    /// failed on a version's code (see `unfinished`). Documents before it said
    /// `inconclusive` for these.
    Unfinished,
    /// No finding, and the review finished, but the check fell short of the bounds: changed
    /// code no execution reaches, an automaton exact only up to a shorter length, a version
    /// without the entry (see `inconclusive`).
    Inconclusive,
}

impl Verdict {
    /// The verdict of a review's findings, in order of severity: one rule for the review
    /// that writes a document, the reader that tells `lost` apart again, and the report
    /// that checks a document's verdict against its automata or its stories.
    pub fn of(f: Findings) -> Verdict {
        if f.conflict {
            Verdict::Conflict
        } else if f.unexpected {
            Verdict::Unexpected
        } else if f.overlapping {
            Verdict::Overlapping
        } else if f.lost {
            Verdict::Lost
        } else if f.unfinished {
            Verdict::Unfinished
        } else if f.inconclusive {
            Verdict::Inconclusive
        } else {
            Verdict::Clean
        }
    }

    /// The verdict as people read it (`lost` included, which documents write as
    /// `unexpected`).
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Clean => "clean",
            Verdict::Unexpected => "unexpected",
            Verdict::Lost => "lost",
            Verdict::Overlapping => "overlapping",
            Verdict::Conflict => "conflict",
            Verdict::Unfinished => "unfinished",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// What a review found, for [`Verdict::of`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// git could not merge the files textually.
    pub conflict: bool,
    /// Behaviour nobody's change explains: executions the merge does not explain (the
    /// per-execution check), or words of L(M) \ E (word level, without it).
    pub unexpected: bool,
    /// Behaviour a branch meant that the merge dropped (word level only: with the
    /// per-execution check, the lost words are part of the unexpected executions' stories).
    pub lost: bool,
    /// Executions on which both branches changed the same part differently.
    pub overlapping: bool,
    /// The review did not complete its work (see [`Review::unfinished`]).
    pub unfinished: bool,
    /// Something was not checked within the bounds (see [`Review::inconclusive`]).
    pub inconclusive: bool,
}

/// A commit.
#[skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Revision {
    /// The commit id (full or abbreviated).
    pub rev: String,
    /// How the user named it: a branch, a tag, `HEAD`, `MERGE_HEAD`.
    pub label: Option<String>,
    /// The first line of its commit message.
    pub summary: Option<String>,
}

/// The bounds the automata were learned with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// CBMC's loop unwinding bound b: executions with at most b iterations of each loop.
    pub unwind: u32,
    /// The length n up to which every word was checked (the letter `end` counts).
    pub max_word_length: u32,
    /// Anything else a reader must know about how exact the result is (a timeout, a query
    /// answered by a guess that could not be checked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Where a function is defined in one version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionLocation {
    pub name: String,
    pub version: Version,
    /// Relative to the repository root.
    pub file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// How one function's source changed between two versions. Either `diff` (a unified diff)
/// or `old` and `new` (the function's text in both; an absent side is an empty function,
/// for a function added or removed): the report computes the diff.
#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SourceChange {
    pub function: String,
    pub file: String,
    pub from: Version,
    pub to: Version,
    pub diff: Option<String>,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// A language that matters to the reader (say, what the merge added unexpectedly).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    #[serde(rename = "dfa", alias = "automaton")]
    pub automaton: Automaton,
    /// Some accepted words, shortest first, each a list of letters (always written, empty
    /// for an empty language); the report finds its own when this is empty.
    #[serde(default)]
    pub examples: Vec<Vec<String>>,
    /// How many words of length at most `bounds.max_word_length` the automaton accepts;
    /// absent when not counted or beyond 2^64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count_up_to_bound: Option<u64>,
}

/// What one learning run cost. Every field is optional: a reader shows what is there.
#[skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LearningStats {
    /// Runs of CBMC (a batch of words checked together counts once).
    pub cbmc_runs: Option<u64>,
    /// Membership queries the learner asked, repeats included; the next four split them by
    /// who answered.
    pub membership_queries: Option<u64>,
    pub from_cache: Option<u64>,
    pub from_precheck: Option<u64>,
    pub from_guess: Option<u64>,
    pub from_teacher: Option<u64>,
    pub equivalence_queries: Option<u64>,
    /// The share of checked guesses that were right (the paper's p, Table 1).
    pub guess_accuracy_p: Option<f64>,
    /// The share of the same words the constant guess "yes" (what `mergelens learn` guesses)
    /// would have got right: the baseline p is measured against.
    pub constant_guess_p: Option<f64>,
    /// States of the learned automaton.
    pub states: Option<u64>,
    pub wall_seconds: Option<f64>,
    /// Where lazy learning's guesses came from: `yes` (a constant) or `oracle` (the merge
    /// base's automaton).
    pub guess: Option<String>,
    /// How the automaton was obtained when it was not learned now: `cache` (an earlier
    /// run's), or the name of the version with the same sources.
    pub reused: Option<String>,
}

/// A `mergelens-review/1` document of kind `review`: what one merge does to the behaviour of
/// a program.
///
/// On the wire the verdict is `clean`, `unexpected` or `conflict`; `unexpected` covers lost
/// behaviour too. Reading it back, a verdict `unexpected` whose entries give `unexpected`
/// languages that are all empty and a `lost` language that is not becomes [`Verdict::Lost`],
/// so that the report can say which.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "ReviewWire", into = "ReviewWire")]
pub struct Review {
    /// Always [`REVIEW_FORMAT`].
    pub format: String,
    pub verdict: Verdict,
    /// The repository's path or name, as the user gave it.
    pub repository: Option<String>,
    /// Written as `revisions` (the SHAs; `merged` may be `index`) and, with labels and
    /// summaries, as the extra key `versions`.
    pub versions: ReviewVersions,
    /// Absent on the wire: the defaults of `mergelens learn`.
    pub bounds: Bounds,
    /// Files git could not merge.
    pub conflicts: Vec<String>,
    /// One per entry function analysed.
    pub entries: Vec<ReviewEntry>,
    /// The program that wrote the document, e.g. `mergelens 0.1.0`.
    pub tool: Option<String>,
    /// Why the verdict is [`Verdict::Unfinished`] (or would be, under a finding): which
    /// stop, timeout, limit or tool failure kept the review from completing, one sentence
    /// each, naming the version and entry.
    pub unfinished: Vec<String>,
    /// Why the verdict is [`Verdict::Inconclusive`] (or would be, under a finding): what
    /// the check left short of the bounds, one sentence each.
    pub inconclusive: Vec<String>,
    /// Files with edits the review did not read: a merge in progress whose work tree
    /// differs from what is staged (the hook reviews the index).
    pub unreviewed: Vec<String>,
    /// Entries judged without executions: at each the merge runs exactly one branch's code
    /// (or every version the same), by the slices of what the entry can run.
    pub judged: Vec<JudgedEntry>,
    /// The largest memory one CBMC run (or gcc, goto-cc run) took, in MiB, and the limit
    /// each ran under; absent in documents that did not measure it.
    pub peak_memory_mib: Option<u64>,
    pub memory_limit_mib: Option<u64>,
    /// With a remote engine: its actions for this review (executed, cached, run here).
    pub remote: Option<crate::remote::RemoteStats>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewVersions {
    pub base: Revision,
    pub ours: Revision,
    pub theirs: Revision,
    /// Absent when there is no merge result (a conflict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged: Option<Revision>,
}

/// What a changed function's own entry is, said beside it in every report.
pub const OWN_ENTRY: &str = "a function the merge changed, analysed at its own entry: its arguments are any the generated harness allows, which may be more than its callers pass";

/// The review of one entry function.
#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewEntry {
    /// The entry function whose calls the letters are.
    pub entry: String,
    /// A function the merge changed, analysed at its own entry (`changed-functions`): its
    /// arguments are any the generated harness allows, which may be more than its callers
    /// pass.
    #[serde(default, skip_serializing_if = "is_false")]
    pub changed_function: bool,
    /// Every letter of the entry's automata (the union of the versions' events), in the order
    /// the automata use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alphabet: Vec<String>,
    pub automata: ReviewAutomata,
    /// L(M) \ L(E): what the merge does that neither branch's change explains.
    pub unexpected: Option<Difference>,
    /// L(E) \ L(M): what a branch meant that the merge does not do.
    pub lost: Option<Difference>,
    /// L(M) \ L(A) (the paper's Fig. 13).
    pub merge_minus_ours: Option<Difference>,
    /// L(M) \ L(B) (the paper's Fig. 14).
    pub merge_minus_theirs: Option<Difference>,
    /// L(A) △ L(B): what the branches disagree on (with a conflict, what to look at instead
    /// of conflict markers).
    pub ours_vs_theirs: Option<Difference>,
    /// Versions whose sources do not define the entry function (learned as the empty
    /// language).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<Version>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<FunctionLocation>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_changes: Vec<SourceChange>,
    /// Learning statistics by version.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stats: BTreeMap<Version, LearningStats>,
    /// The changed hunks (base → ours, base → theirs) and whether this entry's executions
    /// within the bounds reach them.
    #[serde(default)]
    pub coverage: Coverage,
    /// The per-execution check's stories: executions the merge does not explain or both
    /// branches changed in the same place.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub executions: Vec<Execution>,
    /// What the per-execution check covered; absent when it did not run (a conflict).
    pub execution_check: Option<ExecutionCheck>,
}

#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReviewAutomata {
    pub base: Automaton,
    pub ours: Automaton,
    pub theirs: Automaton,
    pub merged: Option<Automaton>,
    /// The expected merge E: each branch's change to O and nothing else. The report computes
    /// it from O, A and B when it is absent.
    pub expected: Option<Automaton>,
}

/// A `mergelens-review/1` document of kind `diff`: how behaviour changed from one revision
/// to another. Written with `revisions: {from, to}`; `mergelens-diff/1` documents (with
/// `versions: {old, new}`) are still read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "DiffWire", into = "DiffWire")]
pub struct DiffDocument {
    /// [`REVIEW_FORMAT`] (or the older [`DIFF_FORMAT`]).
    pub format: String,
    pub repository: Option<String>,
    pub versions: DiffVersions,
    pub bounds: Bounds,
    pub entries: Vec<DiffEntry>,
    pub tool: Option<String>,
    /// Why "unchanged" does not mean "unchanged within the bounds" (as
    /// [`Review::inconclusive`]): an unreached changed hunk, an automaton exact only up to a
    /// shorter length, a version without the entry.
    pub inconclusive: Vec<String>,
    /// With a remote engine: its actions for this diff (executed, cached, run here).
    pub remote: Option<crate::remote::RemoteStats>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffVersions {
    /// REV1.
    #[serde(rename = "from", alias = "old")]
    pub old: Revision,
    /// REV2.
    #[serde(rename = "to", alias = "new")]
    pub new: Revision,
}

#[skip_serializing_none]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffEntry {
    pub entry: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alphabet: Vec<String>,
    pub automata: DiffAutomata,
    /// L(to) \ L(from); computed when absent.
    pub added: Option<Difference>,
    /// L(from) \ L(to); computed when absent.
    pub removed: Option<Difference>,
    /// L(from) △ L(to); computed when absent.
    pub symdiff: Option<Difference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<Version>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub functions: Vec<FunctionLocation>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_changes: Vec<SourceChange>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stats: BTreeMap<Version, LearningStats>,
    /// The changed hunks (from → to, in to's lines) and whether this entry's executions
    /// within the bounds reach them.
    #[serde(default)]
    pub coverage: Coverage,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiffAutomata {
    #[serde(rename = "from", alias = "old")]
    pub old: Automaton,
    #[serde(rename = "to", alias = "new")]
    pub new: Automaton,
}

fn review_kind() -> String {
    REVIEW_KIND.to_string()
}

fn diff_kind() -> String {
    DIFF_KIND.to_string()
}

impl Default for Bounds {
    /// The defaults of `mergelens learn`, for documents that do not say.
    fn default() -> Bounds {
        Bounds {
            unwind: crate::bounds::DEFAULT_UNWIND,
            max_word_length: crate::bounds::DEFAULT_MAX_WORD_LENGTH as u32,
            notes: Vec::new(),
        }
    }
}

impl Review {
    /// The coverage of every entry, learned and judged: what tells which changed hunks
    /// some entry reached, judged or left unreached.
    pub fn coverages(&self) -> impl Iterator<Item = &Coverage> + Clone + '_ {
        self.entries
            .iter()
            .map(|e| &e.coverage)
            .chain(self.judged.iter().map(|j| &j.coverage))
    }
}

/// An entry judged without executions (see [`Review::judged`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JudgedEntry {
    pub entry: String,
    /// A function the merge changed, at its own entry.
    #[serde(default, skip_serializing_if = "is_false")]
    pub changed_function: bool,
    /// The changed hunks, each judged there or left to other entries (`uncalled`).
    pub coverage: coverage::Coverage,
}

#[derive(Serialize, Deserialize)]
struct ReviewRevisions {
    base: String,
    ours: String,
    theirs: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    merged: Option<String>,
}

#[skip_serializing_none]
#[derive(Serialize, Deserialize)]
struct ReviewWire {
    format: String,
    #[serde(default = "review_kind")]
    kind: String,
    revisions: ReviewRevisions,
    verdict: Verdict,
    #[serde(default)]
    entries: Vec<ReviewEntry>,
    #[serde(default)]
    conflicts: Vec<String>,
    /// The extra key with labels and summaries; it wins over `revisions` when present.
    versions: Option<ReviewVersions>,
    #[serde(default)]
    bounds: Bounds,
    repository: Option<String>,
    tool: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unfinished: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    inconclusive: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    unreviewed: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    judged: Vec<JudgedEntry>,
    peak_memory_mib: Option<u64>,
    memory_limit_mib: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    remote: Option<crate::remote::RemoteStats>,
}

impl From<ReviewWire> for Review {
    fn from(w: ReviewWire) -> Review {
        let revisions = w.revisions;
        let sha = |rev: String| Revision {
            rev,
            ..Revision::default()
        };
        let versions = w.versions.unwrap_or_else(|| ReviewVersions {
            base: sha(revisions.base),
            ours: sha(revisions.ours),
            theirs: sha(revisions.theirs),
            merged: revisions.merged.map(sha),
        });
        // `lost` is written as `unexpected`: the entries' languages tell them apart, in a
        // document whose verdict is the word-level one (no per-execution check).
        let per_execution = w.entries.iter().any(|e| e.execution_check.is_some());
        let verdict = match w.verdict {
            Verdict::Unexpected if !per_execution => {
                let given = |d: &Option<Difference>| {
                    d.as_ref()
                        .map(|d| !crate::automaton::analysis::is_empty(&d.automaton.0))
                };
                let unexpected = w
                    .entries
                    .iter()
                    .any(|e| given(&e.unexpected) != Some(false));
                let lost = w.entries.iter().any(|e| given(&e.lost) == Some(true));
                match Verdict::of(Findings {
                    unexpected,
                    lost,
                    ..Findings::default()
                }) {
                    Verdict::Lost => Verdict::Lost,
                    _ => Verdict::Unexpected,
                }
            }
            v => v,
        };
        Review {
            format: w.format,
            verdict,
            repository: w.repository,
            versions,
            bounds: w.bounds,
            conflicts: w.conflicts,
            entries: w.entries,
            tool: w.tool,
            unfinished: w.unfinished,
            inconclusive: w.inconclusive,
            unreviewed: w.unreviewed,
            judged: w.judged,
            peak_memory_mib: w.peak_memory_mib,
            memory_limit_mib: w.memory_limit_mib,
            remote: w.remote,
        }
    }
}

impl From<Review> for ReviewWire {
    fn from(r: Review) -> ReviewWire {
        let v = &r.versions;
        ReviewWire {
            format: r.format,
            kind: review_kind(),
            revisions: ReviewRevisions {
                base: v.base.rev.clone(),
                ours: v.ours.rev.clone(),
                theirs: v.theirs.rev.clone(),
                merged: v.merged.as_ref().map(|m| m.rev.clone()),
            },
            verdict: r.verdict,
            entries: r.entries,
            conflicts: r.conflicts,
            versions: Some(r.versions),
            bounds: r.bounds,
            repository: r.repository,
            tool: r.tool,
            unfinished: r.unfinished,
            inconclusive: r.inconclusive,
            unreviewed: r.unreviewed,
            judged: r.judged,
            peak_memory_mib: r.peak_memory_mib,
            memory_limit_mib: r.memory_limit_mib,
            remote: r.remote,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct DiffRevisions {
    #[serde(alias = "old")]
    from: String,
    #[serde(alias = "new")]
    to: String,
}

#[skip_serializing_none]
#[derive(Serialize, Deserialize)]
struct DiffWire {
    format: String,
    #[serde(default = "diff_kind")]
    kind: String,
    revisions: Option<DiffRevisions>,
    /// The extra key with labels and summaries (the only one of `mergelens-diff/1`); it
    /// wins over `revisions` when present.
    versions: Option<DiffVersions>,
    #[serde(default)]
    entries: Vec<DiffEntry>,
    #[serde(default)]
    bounds: Bounds,
    repository: Option<String>,
    tool: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    inconclusive: Vec<String>,
    remote: Option<crate::remote::RemoteStats>,
}

impl From<DiffWire> for DiffDocument {
    fn from(w: DiffWire) -> DiffDocument {
        let sha = |rev: String| Revision {
            rev,
            ..Revision::default()
        };
        let versions = match (w.versions, w.revisions) {
            (Some(v), _) => v,
            (None, Some(r)) => DiffVersions {
                old: sha(r.from),
                new: sha(r.to),
            },
            (None, None) => DiffVersions {
                old: Revision::default(),
                new: Revision::default(),
            },
        };
        DiffDocument {
            format: w.format,
            repository: w.repository,
            versions,
            bounds: w.bounds,
            entries: w.entries,
            tool: w.tool,
            inconclusive: w.inconclusive,
            remote: w.remote,
        }
    }
}

impl From<DiffDocument> for DiffWire {
    fn from(d: DiffDocument) -> DiffWire {
        DiffWire {
            // What the document says: `mergelens diff` writes REVIEW_FORMAT; an older
            // document read and written again keeps its tag.
            kind: diff_kind(),
            format: d.format,
            revisions: Some(DiffRevisions {
                from: d.versions.old.rev.clone(),
                to: d.versions.new.rev.clone(),
            }),
            versions: Some(d.versions),
            entries: d.entries,
            bounds: d.bounds,
            repository: d.repository,
            tool: d.tool,
            inconclusive: d.inconclusive,
            remote: d.remote,
        }
    }
}

/// What a learned automaton is the language of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutomatonKind {
    /// The behaviour of a program: the call sequences its executions make.
    #[default]
    Learn,
    /// The ways an assertion can fail: every accepted word is a failing execution.
    Explain,
}

/// The optional keys a `mergelens-dfa/1` document may carry for a report, next to the
/// automaton's own (`mergelens-dfa/1` readers ignore them).
#[skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AutomatonMeta {
    #[serde(default)]
    pub kind: AutomatonKind,
    pub title: Option<String>,
    /// The C file (or directory) learned from.
    pub program: Option<String>,
    pub entry: Option<String>,
    /// For `explain`: the assertion, e.g. `queue.c:42: count >= 0`.
    pub assertion: Option<String>,
    pub bounds: Option<Bounds>,
    pub stats: Option<LearningStats>,
    /// Stored counterexample traces, by word (letters separated by one space) to a relative
    /// path.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub traces: BTreeMap<String, String>,
    /// How `learn` and `explain` ran (their own keys); only whether the run was partial is
    /// read here.
    pub learned: Option<RunFacts>,
    pub explained: Option<RunFacts>,
}

/// What a report needs of the `learned` / `explained` object of `learn` and `explain`.
#[skip_serializing_none]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFacts {
    /// The run stopped before learning finished: the automaton is its last conjecture.
    #[serde(default)]
    pub partial: bool,
    pub exact_up_to: Option<usize>,
    /// The concise automaton: the smallest (or, past the solver's budget, a small) DFA that
    /// accepts every "yes" word and rejects every "no" word, free on the "don't care" ones.
    pub concise: Option<Concise>,
    /// `--mode pac`: the automaton passed sampled equivalence checks only.
    pub pac: Option<PacFacts>,
    /// `"succeed"` when the executions in which an allocation fails were left out
    /// (`--allocations succeed`); `learn` writes `"may-fail"` otherwise.
    pub allocations: Option<String>,
}

/// What a report needs of a PAC result (`--mode pac`): probably approximately correct,
/// never exact.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PacFacts {
    pub epsilon: f64,
    pub delta: f64,
    /// The guarantee in one sentence.
    pub guarantee: String,
}

/// What a concise automaton is, in the words of every drawing of one.
pub const CONCISE_MEANING: &str =
    "agrees with every execution within the bounds; beyond them it generalises";

/// How a concise automaton was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConciseMethod {
    /// The exact minimum, by a SAT encoding (no consistent DFA has fewer states).
    Sat,
    /// State merging (RPNI / EDSM style, blue-fringe), checked consistent, when the SAT
    /// search ran out of its time; minimal only when the solver had refuted every smaller
    /// size (`minimal` says).
    Merge,
}

/// The `concise` object inside `learned` / `explained`: a `mergelens-dfa/1` automaton that
/// agrees with every execution within the bounds and generalises beyond them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Concise {
    /// Its keys are flattened in (a `mergelens-dfa/1` reader ignores the others).
    #[serde(flatten)]
    pub automaton: Automaton,
    /// Whether no DFA with fewer states separates the same "yes" and "no" words.
    pub minimal: bool,
    pub method: ConciseMethod,
    /// States of the exact (minimal) automaton.
    pub exact_states: usize,
    /// `exact_states` minus the concise automaton's states (never negative: the exact
    /// automaton itself is always a candidate).
    pub states_saved: usize,
    /// What "yes", "no" and "don't care" meant for this run, in one sentence.
    pub rule: String,
}

impl AutomatonMeta {
    /// Whether the automaton is a stopped run's last conjecture, right up to some length
    /// only: an empty one then proves nothing.
    pub fn partial(&self) -> bool {
        [&self.learned, &self.explained]
            .into_iter()
            .flatten()
            .any(|f| f.partial)
    }

    /// The guarantee of a PAC result, when the automaton is one.
    pub fn pac(&self) -> Option<&PacFacts> {
        [&self.learned, &self.explained]
            .into_iter()
            .flatten()
            .find_map(|f| f.pac.as_ref())
    }
}

/// A `mergelens-dfa/1` automaton and the report keys it carries.
#[derive(Clone, Debug, PartialEq)]
pub struct AutomatonDocument {
    pub dfa: Dfa,
    pub meta: AutomatonMeta,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::Alphabet;

    #[test]
    fn a_concise_object_round_trips_with_its_automaton_keys_flattened() {
        let mut dfa = Dfa::new(Alphabet::from_names(["f", "end"]));
        let done = dfa.add_state(true);
        dfa.set_transition(dfa.initial(), 1, done);
        dfa.set_transition(dfa.initial(), 0, dfa.initial());
        let facts = RunFacts {
            partial: false,
            exact_up_to: Some(4),
            concise: Some(Concise {
                automaton: Automaton(dfa.clone()),
                minimal: true,
                method: ConciseMethod::Sat,
                exact_states: 5,
                states_saved: 3,
                rule: "yes: executions".into(),
            }),
            pac: None,
            allocations: None,
        };
        let text = serde_json::to_string(&facts).unwrap();
        assert!(text.contains(r#""format":"mergelens-dfa/1""#), "{text}");
        assert!(text.contains(r#""method":"sat""#), "{text}");
        let back: RunFacts = serde_json::from_str(&text).unwrap();
        assert_eq!(back, facts);
    }
}
