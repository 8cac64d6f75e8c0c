//! The per-execution merge check in a document: [`Execution`] (one story: an input, the
//! four versions' words on it and the expected word) and [`ExecutionCheck`] (what the check
//! covered and cost).

use serde::{Deserialize, Serialize};

/// Why an execution is a story.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionKind {
    /// The merged program's call tree is not the expected one (the three-way merge of the
    /// base's, ours' and theirs' trees on the same input).
    Unexpected,
    /// Both branches changed the same part of this execution differently: there is no
    /// expected tree, only what the merge did.
    Overlapping,
}

impl ExecutionKind {
    pub fn name(self) -> &'static str {
        match self {
            ExecutionKind::Unexpected => "unexpected",
            ExecutionKind::Overlapping => "overlapping",
        }
    }
}

/// The input of one execution: the values of the shared nondet tape that some version read,
/// in order (the k-th nondet value any version reads is `tape[k]` in all four), and the
/// entry function's arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutionInput {
    #[serde(default)]
    pub tape: Vec<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<i64>,
}

/// One execution the merge does not explain: the words are the preorder of each version's
/// call tree on `input`, each ending with `end`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    pub input: ExecutionInput,
    pub base: Vec<String>,
    pub ours: Vec<String>,
    pub theirs: Vec<String>,
    pub merged: Vec<String>,
    /// The word of the expected tree; absent for an overlap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Vec<String>>,
    pub kind: ExecutionKind,
}

/// What the per-execution check of one entry covered and cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecutionCheck {
    /// Quadruples of call trees CBMC enumerated (those that one branch leaving the base
    /// alone explains are not enumerated: they are explained whatever they hold).
    pub quadruples: u64,
    pub explained: u64,
    pub unexpected: u64,
    pub overlapping: u64,
    /// CBMC proved there is no other quadruple within the bounds; `false`: the check stopped
    /// at its limit and says nothing about the rest.
    pub complete: bool,
    #[serde(default)]
    pub cbmc_runs: u64,
    #[serde(default)]
    pub wall_seconds: f64,
    /// Answered from `.git/mergelens/executions/`.
    #[serde(default)]
    pub from_cache: bool,
}
