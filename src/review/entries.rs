//! A review's or a diff's entries, one by one: the configured entries, then (in a review)
//! the changed functions at their own entries ([`changed_functions`]), each learned
//! ([`engine`]), its coverage checked, and, in a review, its languages compared and its
//! executions checked ([`execution`]).
//!
//! Key items: [`EntryRun`] (what every entry of a review or diff is learned with) and its
//! [`EntryRun::learn_each`], the one per-entry loop, which [`review_entry`] and the diff's
//! own entry turn into documents.

use super::context::LearnContext;
use super::engine::VersionInput;
use super::error::ReviewError;
use super::tally::{NO_CODE_CHANGE, Tally, contained};
use super::{budget, changed_functions, coverage, engine, execution, source};
use crate::config::{ChangedFunctions, Settings};
use crate::document::coverage as covered;
use crate::document::languages::MergeLanguages;
use crate::document::{Automaton, Execution, ExecutionCheck, ReviewAutomata, ReviewEntry, Version};

/// What the entries are learned for: a review and a diff take a shortfall differently.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Purpose {
    /// A tool failing on code the branch controls leaves the entry unfinished and the
    /// review goes on ([`contained`]); a stop before an entry marks the review stopped, so
    /// its word-level findings are no verdict.
    Review,
    /// Any error ends the diff; a stop before an entry leaves the diff unfinished, and the
    /// differences of the entries learned before it (whole automata) stand.
    Diff,
}

/// What every entry of one review or diff is learned with.
pub(super) struct EntryRun<'a> {
    pub(super) purpose: Purpose,
    pub(super) changes: &'a [coverage::ChangeSet],
    pub(super) inputs: &'a [VersionInput],
    pub(super) settings: &'a Settings,
    pub(super) ctx: &'a LearnContext,
}

impl EntryRun<'_> {
    /// The configured entries, then (when the code changed) the changed functions, each
    /// reviewed, with the unwinding the first was learned at.
    pub(super) fn all(
        &self,
        prepared: Vec<engine::PreparedEntry>,
        code_changed: bool,
        merged_change: Option<coverage::ChangeSet>,
        outlines: Option<changed_functions::Outlines>,
        tally: &mut Tally,
    ) -> Result<(Vec<ReviewEntry>, Option<u32>), ReviewError> {
        let (mut entries, mut unwind) = self.learn_each(prepared, tally, |learned, tally| {
            review_entry(self, learned, tally)
        })?;
        if code_changed {
            let (more, at) = self.changed_functions(merged_change, outlines, &entries, tally)?;
            unwind = unwind.or(at);
            entries.extend(more);
        }
        Ok((entries, unwind))
    }

    /// Each prepared entry learned and made a document's entry by `each`, with the unwinding
    /// the last was learned at (see [`EntryRun::learn_one`]).
    pub(super) fn learn_each<E>(
        &self,
        prepared: Vec<engine::PreparedEntry>,
        tally: &mut Tally,
        mut each: impl FnMut(&engine::EntryAutomata, &mut Tally) -> Result<E, ReviewError>,
    ) -> Result<(Vec<E>, Option<u32>), ReviewError> {
        let mut entries = Vec::new();
        let mut unwind = None;
        for prepared in prepared {
            if let Some((entry, at)) = self.learn_one(prepared, tally, &mut each)? {
                unwind = Some(at);
                entries.push(entry);
            }
        }
        Ok((entries, unwind))
    }

    /// One prepared entry learned and made a document's entry by `each`, with the unwinding
    /// it was learned at; none when the run was stopped before it, when the merge runs one
    /// version's code there (judged without learning), or, in a review, when a tool failed
    /// on the branch's code (the reason is in the tally).
    fn learn_one<E>(
        &self,
        prepared: engine::PreparedEntry,
        tally: &mut Tally,
        each: impl FnOnce(&engine::EntryAutomata, &mut Tally) -> Result<E, ReviewError>,
    ) -> Result<Option<(E, u32)>, ReviewError> {
        if let Some(reason) = budget::skipped(&prepared.entry) {
            tally.unfinished.push(reason);
            tally.stopped |= self.purpose == Purpose::Review;
            return Ok(None);
        }
        if let Some(same) = prepared.same_as() {
            let judged = coverage::judged(self.changes, &prepared, &prepared.entry, same);
            let sentence = coverage::judged_sentence(&prepared.entry, same);
            self.ctx.progress(&sentence);
            tally.notes.push(format!(
                "{sentence}: it does what {} on every input and at every bound, so nothing was learned",
                match same {
                    engine::SameAs::All => "the base does".to_string(),
                    engine::SameAs::Theirs => "theirs does".to_string(),
                    engine::SameAs::Ours => "ours does".to_string(),
                }
            ));
            tally.judged_entries.push(crate::document::JudgedEntry {
                entry: prepared.entry.clone(),
                changed_function: false,
                coverage: judged.clone(),
            });
            tally.judged.push(judged);
            return Ok(None);
        }
        let learned = engine::learn_entry(prepared, self.settings, self.ctx);
        let failures = (self.purpose == Purpose::Review).then_some(&mut tally.unfinished);
        let Some(learned) = contained(learned, failures)? else {
            return Ok(None);
        };
        let entry = each(&learned, tally)?;
        Ok(Some((entry, learned.bounds.unwind)))
    }

    /// The changed functions `changed-functions` asks for, each reviewed at its own entry,
    /// most changed first, with the unwinding they were learned at. `merged_change` is the
    /// merge's own change (base → merged); `configured` the configured entries' reviews,
    /// whose coverage says which changes they reach; `outlines` the versions' functions when
    /// they were read already. A function the run is stopped before
    /// is unfinished, never clean.
    fn changed_functions(
        &self,
        merged_change: Option<coverage::ChangeSet>,
        outlines: Option<changed_functions::Outlines>,
        configured: &[ReviewEntry],
        tally: &mut Tally,
    ) -> Result<(Vec<ReviewEntry>, Option<u32>), ReviewError> {
        let mut changes = self.changes.to_vec();
        changes.extend(merged_change);
        let coverages: Vec<&covered::Coverage> = configured
            .iter()
            .map(|e| &e.coverage)
            .chain(&tally.judged)
            .collect();
        let names: Vec<String> = self.settings.entries.clone();
        let selection = contained(
            changed_functions::select(
                self.settings.changed_functions,
                &changes,
                self.inputs,
                outlines,
                self.settings,
                &coverages,
                &names,
            ),
            Some(&mut tally.unfinished),
        )?
        .unwrap_or_default();
        tally.notes.extend(selection.left_out);
        if selection.same_program && !tally.notes.iter().any(|n| n == NO_CODE_CHANGE) {
            tally.notes.push(NO_CODE_CHANGE.to_string());
        }
        if !selection.chosen.is_empty() {
            self.ctx.progress(&format!(
                "changed functions reviewed at their own entries: {}",
                selection
                    .chosen
                    .iter()
                    .map(|f| f.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let mut reviewed = (Vec::new(), None);
        // Two passes: every function is prepared first and those the merge runs exactly one
        // branch's code at are judged at once; only then is what is left of the budget shared
        // among the functions that need learning. (Shared among all of them from the start,
        // a file of many functions judged in seconds each left the one that needed CBMC a
        // sliver: utf8proc df71da4's `utf8proc_errmsg` got 17 s of 240.)
        let mut needs_learning = Vec::new();
        let count = selection.chosen.len();
        for (k, function) in selection.chosen.into_iter().enumerate() {
            if stopped_before(&function.name, tally) {
                continue;
            }
            let _share = budget_share(count - k);
            let prepared =
                engine::prepare_entry(self.inputs, &function.name, self.settings, self.ctx);
            // A signature the harness generator refuses (an opaque type it cannot build) is
            // said, and the function's changes stay unreached: no error, no clean.
            if let Err(ReviewError::FrontEnd { source, .. }) = &prepared
                && let crate::cprog::FrontEndError::Harness(why) = &**source
            {
                tally.notes.push(format!(
                    "changed function `{}`: no entry of its own: {why}",
                    function.name
                ));
                continue;
            }
            let Some(prepared) = contained(prepared, Some(&mut tally.unfinished))? else {
                continue;
            };
            if prepared.unchanged() {
                // The whole program is the base's token for token (no configured entry
                // said so: there was none).
                if !tally.notes.iter().any(|n| n == NO_CODE_CHANGE) {
                    tally.notes.push(NO_CODE_CHANGE.to_string());
                }
                break;
            }
            if prepared.same_as().is_some() {
                self.review_changed_function(prepared, tally, &mut reviewed)?;
            } else {
                needs_learning.push(prepared);
            }
        }
        let count = needs_learning.len();
        for (k, prepared) in needs_learning.into_iter().enumerate() {
            if stopped_before(&prepared.entry, tally) {
                continue;
            }
            let _share = budget_share(count - k);
            self.review_changed_function(prepared, tally, &mut reviewed)?;
        }
        Ok(reviewed)
    }

    /// One changed function's review at its own entry, into `reviewed` (the entries and the
    /// first unwinding one was learned at).
    fn review_changed_function(
        &self,
        prepared: engine::PreparedEntry,
        tally: &mut Tally,
        reviewed: &mut (Vec<ReviewEntry>, Option<u32>),
    ) -> Result<(), ReviewError> {
        let judged_before = tally.judged_entries.len();
        let entry = self.learn_one(prepared, tally, |learned, tally| {
            review_entry(self, learned, tally)
        })?;
        for judged in &mut tally.judged_entries[judged_before..] {
            judged.changed_function = true;
        }
        if let Some((mut entry, at)) = entry {
            entry.changed_function = true;
            reviewed.1 = reviewed.1.or(Some(at));
            reviewed.0.push(entry);
        }
        Ok(())
    }
}

/// Every entry's versions, instrumented; none when no version's program differs from the
/// first's (then `true`): the review's answer is known without CBMC. With `unfinished`, an
/// entry a tool failed on in the branch's code is left out with the reason there.
pub(super) fn prepare_entries(
    inputs: &[VersionInput],
    settings: &Settings,
    ctx: &LearnContext,
    mut unfinished: Option<&mut Vec<String>>,
) -> Result<(Vec<engine::PreparedEntry>, bool), ReviewError> {
    let mut prepared = Vec::new();
    let mut failed = false;
    for entry in &settings.entries {
        let result = engine::prepare_entry(inputs, entry, settings, ctx);
        if let Err(ReviewError::EntryNowhere { .. }) = &result
            && settings.default_entries
            && settings.changed_functions != ChangedFunctions::None
        {
            // A library: its changed functions are its entries.
            ctx.progress(&format!(
                "no version defines `{entry}`: reviewing the changed functions at their own entries"
            ));
            continue;
        }
        match contained(result, unfinished.as_deref_mut())? {
            Some(p) => prepared.push(p),
            None => failed = true,
        }
    }
    if !failed && !prepared.is_empty() && prepared.iter().all(engine::PreparedEntry::unchanged) {
        ctx.progress("no version's program differs from the base's: nothing to learn");
        return Ok((Vec::new(), true));
    }
    Ok((prepared, false))
}

/// Whether the run was stopped before the changed function `name`: then it is listed as
/// unfinished (never clean), and the run is marked stopped.
fn stopped_before(name: &str, tally: &mut Tally) -> bool {
    let Some(reason) = crate::stop::stop_reason() else {
        return false;
    };
    tally.stopped = true;
    tally.unfinished.push(format!(
        "changed function `{name}`: not reviewed at its own entry, the run was stopped before it ({reason})"
    ));
    true
}

/// What is left of the time budget, shared among the `left` functions still to review: one
/// that CBMC cannot finish leaves the time of the rest to them (its own review is
/// unfinished). `None` without a budget.
fn budget_share(left: usize) -> Option<crate::stop::Share> {
    crate::stop::deadline().map(|d| {
        let time = d.saturating_duration_since(std::time::Instant::now());
        crate::stop::Share::start(time / u32::try_from(left).unwrap_or(u32::MAX))
    })
}

/// One entry's review from its learned automata: coverage of the change, the word-level
/// languages (the fast first pass, and the verdict where the per-execution check cannot
/// run), the per-execution check, and the source changes its letters name.
fn review_entry(
    run: &EntryRun,
    learned: &engine::EntryAutomata,
    tally: &mut Tally,
) -> Result<ReviewEntry, ReviewError> {
    let (inputs, settings, ctx) = (run.inputs, run.settings, run.ctx);
    let bound = settings.bounds.max_word_length();
    let coverage = tally.add_learned(learned, run.changes, inputs, settings, ctx);
    let a = &learned.automata;
    let merged = a.get(&Version::Merged);
    let languages = MergeLanguages::compute(
        &a[&Version::Base],
        &a[&Version::Ours],
        &a[&Version::Theirs],
        merged,
        &learned.alphabet,
        bound,
    );
    let (executions, execution_check) = if merged.is_some() && learned.stopped.is_empty() {
        check_executions(learned, &languages, inputs, settings, ctx, tally)?
    } else {
        // An entry whose learning was cut short is unfinished already (its reasons are in
        // the list), and its partial automata judge nothing.
        (Vec::new(), None)
    };
    // Without a merge result the branches' disagreement is what a reviewer looks at.
    let (letters, from, to) = if merged.is_some() {
        let shown = [
            &languages.unexpected,
            &languages.lost,
            &languages.merge_minus_ours,
            &languages.merge_minus_theirs,
        ];
        let letters = source::letters(shown.into_iter().flatten());
        (letters, Version::Base, Version::Merged)
    } else {
        let letters = source::letters([&languages.ours_vs_theirs]);
        (letters, Version::Ours, Version::Theirs)
    };
    let source_changes = source::changes(&letters, &learned.entry, &learned.spans, from, to);
    Ok(ReviewEntry {
        entry: learned.entry.clone(),
        changed_function: false,
        alphabet: learned.alphabet.names().map(str::to_string).collect(),
        automata: ReviewAutomata {
            base: Automaton(a[&Version::Base].clone()),
            ours: Automaton(a[&Version::Ours].clone()),
            theirs: Automaton(a[&Version::Theirs].clone()),
            merged: merged.cloned().map(Automaton),
            expected: Some(Automaton(languages.expected)),
        },
        unexpected: languages.unexpected,
        lost: languages.lost,
        merge_minus_ours: languages.merge_minus_ours,
        merge_minus_theirs: languages.merge_minus_theirs,
        ours_vs_theirs: Some(languages.ours_vs_theirs),
        absent: learned.absent.clone(),
        functions: learned.functions.clone(),
        source_changes,
        stats: learned.stats.clone(),
        coverage,
        executions,
        execution_check,
    })
}

/// The per-execution check of one entry, whose verdict it is: its executions and summary,
/// its findings and premises added to the tally.
fn check_executions(
    learned: &engine::EntryAutomata,
    languages: &MergeLanguages,
    inputs: &[VersionInput],
    settings: &Settings,
    ctx: &LearnContext,
    tally: &mut Tally,
) -> Result<(Vec<Execution>, Option<ExecutionCheck>), ReviewError> {
    let entry = &learned.entry;
    // A stopped run checks nothing more, and its word-level findings are no verdict: the
    // check that would have judged them did not run.
    let outcome = match crate::stop::stop_reason() {
        Some(reason) => {
            execution::CheckOutcome::Unfinished(format!("the run was stopped ({reason})"))
        }
        None => {
            let mut failed = Vec::new();
            let checked = execution::check_entry(inputs, entry, settings, ctx, learned);
            contained(checked, Some(&mut failed))?
                .unwrap_or_else(|| execution::CheckOutcome::Unfinished(failed.concat()))
        }
    };
    Ok(match outcome {
        execution::CheckOutcome::Ran(check) => {
            // A check whose own premise failed judges nothing.
            tally
                .inconclusive
                .extend(check.disagreements.iter().cloned());
            match check.check.self_check.as_ref() {
                Some(s) if !s.identical => {
                    tally
                        .inconclusive
                        .push(execution::self_check_note(entry, s));
                }
                // Findings stand (each is a real execution), but no `clean`.
                _ if !check.check.complete => tally.inconclusive.push(execution::cap_note(entry)),
                _ => {}
            }
            tally.unexpected |= check.check.unexpected > 0;
            tally.lost |= check.check.lost > 0;
            tally.overlapping |= check.check.overlapping > 0;
            tally.notes.extend(check.notes);
            (check.executions, Some(check.check))
        }
        execution::CheckOutcome::Unfinished(reason) => {
            tally.stopped |= crate::stop::stop_reason().is_some();
            tally.unfinished.push(format!(
                "entry `{entry}`: the per-execution check did not finish: {reason}"
            ));
            (Vec::new(), None)
        }
        execution::CheckOutcome::Skipped(reason) => {
            tally.notes.push(format!(
                "{entry}: the per-execution check did not run ({reason}); the verdict compares words"
            ));
            tally.word_unexpected |= languages.has_unexpected();
            tally.word_lost |= languages.has_lost();
            (Vec::new(), None)
        }
    })
}
