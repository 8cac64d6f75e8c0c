//! A merge's review ([`review_merge`]): the checkouts of O, A, B and M, the entries
//! prepared and learned ([`super::entries`]), and the tally closed into a verdict.

use super::context::LearnContext;
use super::entries::{EntryRun, Purpose, prepare_entries};
use super::error::ReviewError;
use super::tally::{NO_CODE_CHANGE, NO_ENTRY_REVIEWED, Tally};
use super::versions::{
    Checkout, change_set, checkout, commit_checkouts, common_notes, inputs, revision, tool,
};
use super::{changed_functions, coverage, engine, merged_lines};
use crate::config::Settings;
use crate::document::coverage::{self as covered, HunkSide};
use crate::document::{
    Bounds, Findings, REVIEW_FORMAT, Review, ReviewVersions, Revision, Verdict, Version,
};
use crate::git::{GitRepo, MergeVersions, Merged};
use engine::VersionInput;

/// A finished review.
#[derive(Clone, Debug)]
pub struct ReviewReport {
    pub document: Review,
    /// Some entry's merge has behaviour neither branch's change explains.
    pub unexpected: bool,
    /// Some entry's merge dropped behaviour a branch meant.
    pub lost: bool,
    /// Some entry has an execution both branches changed in the same place differently.
    pub overlapping: bool,
    /// The review was stopped (`--time-budget`, Ctrl-C) before it finished: its verdict is
    /// `unfinished`. A stop that came after the last check leaves a finished review.
    pub stopped: bool,
}

impl ReviewReport {
    pub fn verdict(&self) -> Verdict {
        self.document.verdict
    }
}

/// Reviews a merge; see the module documentation.
pub fn review_merge(
    repo: &GitRepo,
    versions: &MergeVersions,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<ReviewReport, ReviewError> {
    let MergeCheckouts {
        checkouts,
        conflicts,
        merged_name,
    } = merge_checkouts(repo, versions, settings)?;
    let inputs = inputs(&checkouts, settings)?;
    let changes = [
        change_set(&checkouts[0], &checkouts[1], HunkSide::Ours, None),
        change_set(&checkouts[0], &checkouts[2], HunkSide::Theirs, None),
    ];
    let mut tally = Tally {
        notes: common_notes(repo, &checkouts, settings),
        ..Tally::default()
    };
    let (prepared, no_code_change, outlines) = merge_entries(&inputs, settings, ctx, &mut tally)?;
    let run = EntryRun {
        purpose: Purpose::Review,
        changes: &changes,
        inputs: &inputs,
        settings,
        ctx,
    };
    let merged_change = (!no_code_change)
        .then(|| checkouts.get(3))
        .flatten()
        .map(|merged| change_set(&checkouts[0], merged, HunkSide::To, None));
    let (mut entries, unwind) = run.all(
        prepared,
        !no_code_change,
        merged_change,
        outlines,
        &mut tally,
    )?;
    say_what_no_entry_examined(&entries, &changes, no_code_change, &mut tally);
    if let [_, ours, theirs, merged, ..] = checkouts.as_slice() {
        for entry in &mut entries {
            merged_lines::locate(
                &mut entry.coverage.hunks,
                ours.dir.path(),
                theirs.dir.path(),
                merged.dir.path(),
            );
        }
    }
    let (unwind, inconclusive) = tally.close(entries.iter().map(|e| &e.coverage), unwind, ctx);
    // A stop that cut the preparation or a tool's run short is a stop too.
    tally.stopped |= crate::stop::stop_reason().is_some() && !tally.unfinished.is_empty();
    if !tally.stopped {
        // Languages of partial automata are shown, but they are no findings. The executions
        // a per-execution check found are real whatever stopped later, and stand.
        tally.unexpected |= tally.word_unexpected;
        tally.lost |= tally.word_lost;
    }
    let unfinished = std::mem::take(&mut tally.unfinished);
    let verdict = Verdict::of(Findings {
        conflict: !conflicts.is_empty(),
        unexpected: tally.unexpected,
        lost: tally.lost,
        overlapping: tally.overlapping,
        unfinished: !unfinished.is_empty(),
        inconclusive: !inconclusive.is_empty(),
    });
    let merged_is_index = merged_name.as_deref() == Some("index");
    let document = Review {
        format: REVIEW_FORMAT.to_string(),
        verdict,
        repository: Some(repo.root().display().to_string()),
        versions: ReviewVersions {
            base: revision(&versions.base),
            ours: revision(&versions.ours),
            theirs: revision(&versions.theirs),
            merged: merged_name.map(|name| merged_revision(versions, name)),
        },
        bounds: Bounds {
            unwind,
            max_word_length: settings.bounds.max_word_length() as u32,
            notes: tally.notes,
        },
        conflicts,
        entries,
        tool: tool(),
        unfinished,
        inconclusive,
        judged: std::mem::take(&mut tally.judged_entries),
        unreviewed: if merged_is_index {
            repo.unstaged_paths()
        } else {
            Vec::new()
        },
        peak_memory_mib: Some(crate::process::peak_memory() >> 20),
        memory_limit_mib: settings.memory_limit.map(|b| b >> 20),
        // The command that ran the review knows which of the engine's actions were its own.
        remote: None,
    };
    Ok(ReviewReport {
        document,
        unexpected: tally.unexpected,
        lost: tally.lost,
        overlapping: tally.overlapping,
        stopped: tally.stopped,
    })
}

/// The checkouts of a merge's versions.
struct MergeCheckouts {
    /// O, A, B and, when git merged the files, M.
    checkouts: Vec<Checkout>,
    /// The files git could not merge.
    conflicts: Vec<String>,
    /// How the document names M, when there is one.
    merged_name: Option<String>,
}

/// The checkouts of O, A, B and (when git merged the files) M.
fn merge_checkouts(
    repo: &GitRepo,
    versions: &MergeVersions,
    settings: &Settings,
) -> Result<MergeCheckouts, ReviewError> {
    let mut checkouts = commit_checkouts(
        repo,
        &[
            (Version::Base, &versions.base),
            (Version::Ours, &versions.ours),
            (Version::Theirs, &versions.theirs),
        ],
        settings,
    )?;
    Ok(match &versions.merged {
        Merged::Files { snapshot, name } => {
            let merged = checkout(repo, Version::Merged, name.clone(), snapshot, settings)?;
            checkouts.push(merged);
            MergeCheckouts {
                checkouts,
                conflicts: Vec::new(),
                merged_name: Some(name.clone()),
            }
        }
        Merged::Conflict(paths) => MergeCheckouts {
            checkouts,
            conflicts: paths.clone(),
            merged_name: None,
        },
    })
}

/// How the document names M: the merge commit as committed, the staged merge of a hook, or
/// git's merge computed in memory.
fn merged_revision(versions: &MergeVersions, name: String) -> Revision {
    let summary = match &versions.commit {
        Some(commit) => format!(
            "the merge commit {} as committed{}",
            commit.label,
            commit
                .summary
                .as_ref()
                .map_or_else(String::new, |s| format!(": {s}"))
        ),
        None if name == "index" => "the merge git staged (index)".to_string(),
        None => "git's merge, computed in memory (the id is its tree's)".to_string(),
    };
    Revision {
        label: Some(format!(
            "{} into {}",
            versions.theirs.label, versions.ours.label
        )),
        summary: Some(summary),
        rev: name,
    }
}

/// A merge's prepared entries, none when no version's program differs from the base's or
/// the merge is one branch's program (the note that says which goes to the tally; then
/// `true`).
fn merge_entries(
    inputs: &[VersionInput],
    settings: &Settings,
    ctx: &LearnContext,
    tally: &mut Tally,
) -> Result<MergeEntries, ReviewError> {
    let failed_before = tally.unfinished.len();
    let (prepared, no_code_change) =
        prepare_entries(inputs, settings, ctx, Some(&mut tally.unfinished))?;
    if no_code_change {
        tally.notes.push(NO_CODE_CHANGE.to_string());
        return Ok((prepared, true, None));
    }
    // Only once every entry could be read: an entry defined twice, say, is said as such. A
    // version whose functions cannot be read is met where the changed functions are chosen.
    if tally.unfinished.len() != failed_before {
        return Ok((prepared, false, None));
    }
    ctx.progress("reading every version's functions (preprocessed and parsed)");
    let outlines = changed_functions::Outlines::read(inputs, settings).ok();
    if let Some(note) = outlines
        .as_ref()
        .and_then(changed_functions::Outlines::one_sided)
    {
        ctx.progress(&note);
        tally.notes.push(note);
        return Ok((Vec::new(), true, None));
    }
    Ok((prepared, false, outlines))
}

/// [`merge_entries`]'s answer: the prepared entries, whether nothing is left to learn, and
/// the versions' outlines when they were read (for choosing the changed functions).
type MergeEntries = (
    Vec<engine::PreparedEntry>,
    bool,
    Option<changed_functions::Outlines>,
);

/// Why a review whose entries examined nothing, or left a change unexamined, is no clean:
/// said among the reasons it is inconclusive (unless it did not finish, which says why).
fn say_what_no_entry_examined(
    entries: &[crate::document::ReviewEntry],
    changes: &[coverage::ChangeSet],
    no_code_change: bool,
    tally: &mut Tally,
) {
    if entries.is_empty()
        && tally.judged.is_empty()
        && tally.unfinished.is_empty()
        && !no_code_change
        && !tally.notes.iter().any(|n| n == NO_CODE_CHANGE)
    {
        tally.inconclusive.push(NO_ENTRY_REVIEWED.to_string());
    }
    let same_program = no_code_change || tally.notes.iter().any(|n| n == NO_CODE_CHANGE);
    if tally.unfinished.is_empty() && !same_program {
        // A change no entry examined (its function judged by none, learned by none) is no
        // change found clean.
        let seen: Vec<&covered::Coverage> = entries
            .iter()
            .map(|e| &e.coverage)
            .chain(&tally.judged)
            .collect();
        tally
            .inconclusive
            .extend(changed_functions::unexamined(changes, &seen));
    }
}
