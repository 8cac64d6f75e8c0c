//! A diff of two commits ([`diff_revisions`]): each entry learned at both ([`super::entries`])
//! and the behaviour added, removed and changed.

use super::context::LearnContext;
use super::entries::{EntryRun, Purpose, prepare_entries};
use super::error::ReviewError;
use super::tally::{NO_CODE_CHANGE, Tally};
use super::versions::{change_set, commit_checkouts, common_notes, inputs, revision, tool};
use super::{engine, source};
use crate::automaton::analysis;
use crate::config::Settings;
use crate::document::coverage::HunkSide;
use crate::document::languages as compare;
use crate::document::{
    Automaton, Bounds, DiffAutomata, DiffDocument, DiffEntry, DiffVersions, REVIEW_FORMAT, Version,
};
use crate::git::{CommitInfo, GitRepo};

/// A finished diff.
#[derive(Clone, Debug)]
pub struct DiffReport {
    pub document: DiffDocument,
    /// Whether some entry's behaviour changed.
    pub changed: bool,
    /// Whether the diff did not complete its work (a stop, a CBMC run past a limit, an
    /// entry not learned): its reasons are among the document's `inconclusive` ones.
    pub unfinished: bool,
}

impl DiffReport {
    /// No behaviour changed, but the check fell short: a changed hunk no execution within
    /// the bounds reaches, an inexact automaton, a version without the entry, learning cut
    /// short by `--time-budget` or Ctrl-C (then `changed` is false: differences of partial
    /// automata are no findings; see [`DiffDocument::inconclusive`]).
    pub fn inconclusive(&self) -> bool {
        !self.changed && !self.document.inconclusive.is_empty()
    }
}

/// The behaviour added and removed from `from` to `to`, per entry.
pub fn diff_revisions(
    repo: &GitRepo,
    from: &CommitInfo,
    to: &CommitInfo,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<DiffReport, ReviewError> {
    let checkouts = commit_checkouts(repo, &[(Version::Old, from), (Version::New, to)], settings)?;
    let inputs = inputs(&checkouts, settings)?;
    let changes = [change_set(
        &checkouts[0],
        &checkouts[1],
        HunkSide::To,
        Some(&to.label),
    )];
    let mut tally = Tally {
        notes: common_notes(repo, &checkouts, settings),
        ..Tally::default()
    };
    let (prepared, no_code_change) = prepare_entries(&inputs, settings, ctx, None)?;
    if no_code_change {
        tally.notes.push(NO_CODE_CHANGE.to_string());
    }
    let run = EntryRun {
        purpose: Purpose::Diff,
        changes: &changes,
        inputs: &inputs,
        settings,
        ctx,
    };
    let (entries, unwind) = run.learn_each(prepared, &mut tally, |learned, tally| {
        Ok(diff_entry(&run, learned, tally))
    })?;
    // A diff has no verdict: what did not finish is among the reasons it fell short.
    let unfinished = std::mem::take(&mut tally.unfinished);
    let did_not_finish = !unfinished.is_empty();
    tally.inconclusive.extend(unfinished);
    let (unwind, inconclusive) = tally.close(entries.iter().map(|e| &e.coverage), unwind, ctx);
    Ok(DiffReport {
        document: DiffDocument {
            format: REVIEW_FORMAT.to_string(),
            repository: Some(repo.root().display().to_string()),
            versions: DiffVersions {
                old: revision(from),
                new: revision(to),
            },
            bounds: Bounds {
                unwind,
                max_word_length: settings.bounds.max_word_length() as u32,
                notes: tally.notes,
            },
            entries,
            tool: tool(),
            inconclusive,
            remote: None,
        },
        // Differences of partial automata are shown, but they are no findings.
        changed: tally.changed && !tally.stopped,
        unfinished: did_not_finish,
    })
}

/// One entry's diff from its learned automata: coverage of the change, the added, removed
/// and changed languages, and the source changes their letters name.
fn diff_entry(run: &EntryRun, learned: &engine::EntryAutomata, tally: &mut Tally) -> DiffEntry {
    let bound = run.settings.bounds.max_word_length();
    let coverage = tally.add_learned(learned, run.changes, run.inputs, run.settings, run.ctx);
    let (old, new) = (
        &learned.automata[&Version::Old],
        &learned.automata[&Version::New],
    );
    let [added, removed, symdiff] = compare::diff_languages(old, new, &learned.alphabet, bound);
    tally.changed |= !analysis::is_empty(&symdiff.automaton.0);
    let letters = source::letters([&symdiff]);
    let source_changes = source::changes(
        &letters,
        &learned.entry,
        &learned.spans,
        Version::Old,
        Version::New,
    );
    DiffEntry {
        entry: learned.entry.clone(),
        alphabet: learned.alphabet.names().map(str::to_string).collect(),
        automata: DiffAutomata {
            old: Automaton(old.clone()),
            new: Automaton(new.clone()),
        },
        added: Some(added),
        removed: Some(removed),
        symdiff: Some(symdiff),
        absent: learned.absent.clone(),
        functions: learned.functions.clone(),
        source_changes,
        stats: learned.stats.clone(),
        coverage,
    }
}
