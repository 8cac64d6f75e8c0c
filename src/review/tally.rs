//! What the entries of a review or diff add up to ([`Tally`]): their findings, the reasons
//! the verdict is unfinished or inconclusive (the changed hunks no entry reaches first),
//! notes, and coverage's cost; and [`contained`], which turns a tool's failure on the
//! branch's code into such a reason.

use super::context::LearnContext;
use super::engine::{self, VersionInput};
use super::error::ReviewError;
use super::{budget, coverage};
use crate::config::Settings;
use crate::document::Version;
use crate::document::coverage as covered;

/// Why a review or diff learned nothing.
pub const NO_CODE_CHANGE: &str = "no version's program differs from the base's after preprocessing, token for token: only comments, layout or files outside the program changed, so every version behaves as the base does and nothing was learned";

/// Why a review that analysed no entry at all is no "clean".
pub const NO_ENTRY_REVIEWED: &str = "no entry was reviewed: no configured entry is defined and no changed function could be analysed at its own entry, so no execution was compared; name an entry with --entry";

/// `result`'s value; or, when a tool failed on code the reviewed branch controls and
/// `unfinished` collects such failures, `None` with the reason there
/// ([`budget::tool_failure`]).
pub(super) fn contained<T>(
    result: Result<T, ReviewError>,
    unfinished: Option<&mut Vec<String>>,
) -> Result<Option<T>, ReviewError> {
    match (result, unfinished) {
        (Ok(value), _) => Ok(Some(value)),
        (Err(e), Some(unfinished)) => match budget::tool_failure(&e) {
            Some(reason) => {
                unfinished.push(reason);
                Ok(None)
            }
            None => Err(e),
        },
        (Err(e), None) => Err(e),
    }
}

/// What keeps "no difference" from meaning "no difference within the bounds": a version
/// whose automaton is exact only up to a shorter length, a version without the entry (not
/// where `merge_drops`: the merge lacks a function a branch added, which is a finding).
fn shortfalls(learned: &engine::EntryAutomata, bound: usize, merge_drops: bool) -> Vec<String> {
    let entry = &learned.entry;
    let mut out: Vec<String> = learned
        .inexact
        .iter()
        .map(|(version, exact)| {
            format!(
                "{version} ({entry}): exact up to {exact} letters only, below the bound {bound}; raise --exact-limit"
            )
        })
        .collect();
    if merge_drops {
        // The merge's empty language is a fact, and the lost words say it; the versions that
        // lack the function beside it have nothing to learn.
        return out;
    }
    out.extend(learned.absent.iter().map(|version| {
        format!("{version}: the entry `{entry}` is not defined, so its behaviour was not learned")
    }));
    out
}

/// Where the merge does not define an entry one branch added, what it drops: then every
/// word of that branch at the entry is lost.
fn merge_drops(learned: &engine::EntryAutomata) -> Option<String> {
    let absent = |v: Version| learned.absent.contains(&v);
    if !absent(Version::Merged) || !absent(Version::Base) {
        return None;
    }
    let adder = match (absent(Version::Ours), absent(Version::Theirs)) {
        (true, false) => Version::Theirs,
        (false, true) => Version::Ours,
        _ => return None,
    };
    Some(format!(
        "`{}`: {adder} adds it and the merge does not define it, so what {adder} does at its entry is lost",
        learned.entry
    ))
}

/// The coverage of one entry's change, with the reasons a side could not be checked (a
/// tool failed or passed a limit: the review did not finish) added to `unfinished` and the
/// cost to `cost`.
fn entry_coverage(
    changes: &[coverage::ChangeSet],
    inputs: &[engine::VersionInput],
    learned: &engine::EntryAutomata,
    settings: &Settings,
    ctx: &LearnContext,
    unfinished: &mut Vec<String>,
    cost: &mut coverage::CoverageCost,
) -> covered::Coverage {
    let (found, problems, spent) = coverage::check(changes, inputs, learned, settings, ctx);
    ctx.progress(&format!(
        "{}: {} of {} changed hunks reached ({} CBMC runs, {:.1} s)",
        learned.entry, found.counts.reached, found.counts.hunks, spent.runs, spent.seconds
    ));
    unfinished.extend(problems);
    cost.runs += spent.runs;
    cost.seconds += spent.seconds;
    found
}

/// The coverage check's total cost, on the progress line.
fn report_cost(ctx: &LearnContext, cost: &coverage::CoverageCost) {
    ctx.progress(&format!(
        "coverage of the change: {} CBMC runs, {:.1} s",
        cost.runs, cost.seconds
    ));
}

/// Puts the changed hunks no entry reaches first among the reasons of `inconclusive`: they
/// are what a reader must know before trusting "no difference". Where allocations were
/// assumed to succeed, one more sentence says that a change on the path after a failed
/// allocation is unreached for that reason alone.
fn lead_with_unreached<'a>(
    coverages: impl IntoIterator<Item = &'a covered::Coverage>,
    unwind: u32,
    allocations: crate::cbmc::Allocations,
    inconclusive: &mut Vec<String>,
) {
    let mut lead: Vec<String> = covered::unreached(coverages)
        .into_iter()
        .map(|h| covered::unreached_sentence(h, unwind))
        .collect();
    if !lead.is_empty() && allocations == crate::cbmc::Allocations::Succeed {
        lead.push(
            "allocations were assumed to succeed (--allocations succeed): a change that runs only after a failed allocation is never reached; --allocations may-fail exercises it"
                .to_string(),
        );
    }
    inconclusive.splice(0..0, lead);
}

/// What the entries of a review add up to: their findings, the reasons the verdict is
/// unfinished or inconclusive, notes, and coverage's cost.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) unexpected: bool,
    pub(super) lost: bool,
    pub(super) overlapping: bool,
    /// The coverage of the entries judged without executions ([`super::engine::SameAs`]).
    pub(super) judged: Vec<covered::Coverage>,
    /// The same, as the document lists them.
    pub(super) judged_entries: Vec<crate::document::JudgedEntry>,
    /// Findings of the word-level comparison where the per-execution check did not run:
    /// no findings when the run was stopped (its automata may be partial).
    pub(super) word_unexpected: bool,
    pub(super) word_lost: bool,
    /// A diff's: some entry's behaviour changed.
    pub(super) changed: bool,
    /// `--time-budget` or Ctrl-C cut learning short: the verdict is unfinished.
    pub(super) stopped: bool,
    /// Why the review did not complete its work: a stop, a tool past a limit or failing.
    pub(super) unfinished: Vec<String>,
    /// Why the finished check fell short of the bounds.
    pub(super) inconclusive: Vec<String>,
    pub(super) notes: Vec<String>,
    pub(super) cost: coverage::CoverageCost,
}

impl Tally {
    /// What one entry's learning adds, whether the entry is reviewed or diffed: its
    /// shortfalls, a stop, its notes, and the coverage of the change (whose reasons and
    /// cost go to the tally too).
    pub(super) fn add_learned(
        &mut self,
        learned: &engine::EntryAutomata,
        changes: &[coverage::ChangeSet],
        inputs: &[VersionInput],
        settings: &Settings,
        ctx: &LearnContext,
    ) -> covered::Coverage {
        let drops = merge_drops(learned);
        self.inconclusive.extend(shortfalls(
            learned,
            settings.bounds.max_word_length(),
            drops.is_some(),
        ));
        self.notes.extend(drops);
        self.stopped |= !learned.stopped.is_empty();
        self.unfinished.extend(learned.stopped.iter().cloned());
        let coverage = entry_coverage(
            changes,
            inputs,
            learned,
            settings,
            ctx,
            &mut self.unfinished,
            &mut self.cost,
        );
        self.notes.extend(learned.notes.iter().cloned());
        coverage
    }

    /// The unwinding the entries were learned at, and the reasons the verdict is
    /// inconclusive, the changed hunks no entry reaches first; coverage's cost said.
    pub(super) fn close<'a>(
        &mut self,
        coverages: impl IntoIterator<Item = &'a covered::Coverage>,
        unwind: Option<u32>,
        ctx: &LearnContext,
    ) -> (u32, Vec<String>) {
        let unwind = unwind.unwrap_or(crate::bounds::DEFAULT_UNWIND);
        let mut inconclusive = std::mem::take(&mut self.inconclusive);
        self.notes.extend(ctx.take_cache_notes());
        let mut all: Vec<&covered::Coverage> = coverages.into_iter().collect();
        all.extend(&self.judged);
        lead_with_unreached(all, unwind, ctx.tools.allocations, &mut inconclusive);
        report_cost(ctx, &self.cost);
        (unwind, inconclusive)
    }
}
