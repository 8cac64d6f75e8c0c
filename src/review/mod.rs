//! Merge review and behavioural diff: from git revisions to learned automata, the languages
//! a reviewer must look at, and a verdict.
//!
//! Key types and functions:
//!
//! * [`review_merge`]: the versions of a merge ([`crate::git::MergeVersions`]: the base O,
//!   ours A, theirs B and the merge result M) → a [`ReviewReport`] holding the
//!   `mergelens-review/1` document ([`crate::document::Review`]): per entry function,
//!   the four automata over one alphabet, `merge_minus_ours` = L(M) \ L(A) and
//!   `merge_minus_theirs` = L(M) \ L(B) (the paper's Fig. 13-14), the expected merge E
//!   ([`crate::document::languages::expected_merge`]), `unexpected` = L(M) \ E and `lost` = E \ L(M)
//!   (the word-level first pass), and the verdict of the per-execution check (`execution`,
//!   with the call-tree three-way merge of `diff3`): clean, unexpected, overlapping, or
//!   conflict when git could not merge the files (then O, A and B are learned and A △ B
//!   shown instead of conflict markers).
//!   Each entry also carries the source changes (`source`) of the functions its
//!   differences are about: base → merged, or ours → theirs in a conflict.
//! * [`diff_revisions`]: two commits → the behaviour added, removed and changed per entry,
//!   with the source changes of the functions in it.
//! * [`LearnContext`]: CBMC, the rayon pool (`--jobs`), the caches under `.git/mergelens/`
//!   and progress reporting, shared by all versions and entries.
//! * [`ReviewError`]: why a review could not be made, naming the version and entry.
//!
//! This is the third use case of Chockler, Kesseli, Kroening and Strichman, *Learning the
//! Language of Software Errors* (JAIR 2020), Sec. 5 and Fig. 12-14: the merged program and
//! both branches are learned as automata, and their differences show behaviour the merge
//! introduced that neither developer meant. The expected merge E turns the paper's two
//! differences into one answer: what the merge does beyond each branch's own change.

mod budget;
mod call_sites;
mod changed_functions;
mod context;
mod coverage;
mod diff3;
mod engine;
mod entries;
mod error;
mod execution;
mod execution_cache;
pub mod fig12;
mod learn;
mod merged_lines;
mod results;
mod source;
mod store;
mod tally;

use crate::automaton::analysis;
use crate::config::{ChangedFunctions, Settings, SourceSpec};
use crate::document::coverage::{self as covered, HunkSide};
use crate::document::languages as compare;
use crate::document::{
    Automaton, Bounds, DiffAutomata, DiffDocument, DiffEntry, DiffVersions, Findings,
    REVIEW_FORMAT, Review, ReviewVersions, Revision, Verdict, Version,
};
use crate::git::{CommitInfo, GitRepo, MergeVersions, Merged, Snapshot};
pub use context::LearnContext;
pub(crate) use coverage::CoverageError;
use engine::VersionInput;
use entries::EntryRun;
pub use error::ReviewError;
pub use results::{UNSEEN_CALLS, UNSEEN_CHANGE};
pub use tally::{NO_CODE_CHANGE, NO_ENTRY_REVIEWED};
use tally::{Tally, contained};

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

/// A checkout of one version in a temporary directory, deleted on drop.
struct Checkout {
    version: Version,
    /// How errors name the revision: `feature a5640c1`, `index`.
    revision: String,
    dir: crate::remote::WorkDir,
    files: Vec<String>,
    skipped: Vec<String>,
    line_directives: Vec<(String, Vec<u32>)>,
}

fn checkout(
    repo: &GitRepo,
    version: Version,
    revision: String,
    snapshot: &Snapshot,
    settings: &Settings,
) -> Result<Checkout, ReviewError> {
    // Named by the version's files with a remote engine, whatever its role, so that another
    // review of the same trees (a fresh clone, another CI job) sends the same actions.
    let key = snapshot.content_key();
    let dir =
        crate::remote::work_dir("mergelens-tree-", &[&key]).map_err(|source| ReviewError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let written = repo.materialise(snapshot, dir.path())?;
    let mut files = settings.sources.select(snapshot.paths())?;
    // A link that was not written (it leaves the tree) is no source either.
    files.retain(|f| dir.path().join(f).exists());
    Ok(Checkout {
        version,
        revision,
        dir,
        files,
        skipped: written.skipped,
        line_directives: written.line_directives,
    })
}

/// What a version's line directives became: the review reads each line as the file it is
/// in, whatever a directive says (docs/trust.md).
fn line_directives_note(version: Version, path: &str, lines: &[u32]) -> String {
    let shown: Vec<String> = lines.iter().take(3).map(u32::to_string).collect();
    let more = if lines.len() > 3 { ", ..." } else { "" };
    format!(
        "{version}: {path}: {} line directive(s) (`#line` or `# N \"file\"`, line {}{more}) ignored: every line is read as the file and line it is in, and only files in the compiler's system directories are system headers",
        lines.len(),
        shown.join(", ")
    )
}

/// Every entry's versions, instrumented; none when no version's program differs from the
/// first's (then `true`): the review's answer is known without CBMC. With `unfinished`, an
/// entry a tool failed on in the branch's code is left out with the reason there.
fn prepare_entries(
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

/// A commit as errors name it: its label and short id (`feature a5640c1`).
fn named(commit: &CommitInfo) -> String {
    let sha = commit.sha();
    let short = &sha[..sha.len().min(7)];
    if commit.label.starts_with(short) {
        short.to_string()
    } else {
        format!("{} {short}", commit.label)
    }
}

fn inputs(checkouts: &[Checkout], settings: &Settings) -> Result<Vec<VersionInput>, ReviewError> {
    if checkouts.iter().all(|c| c.files.is_empty()) {
        return Err(ReviewError::NoSources {
            what: if settings.sources.files.is_empty() {
                "*.c".to_string()
            } else {
                settings.sources.files.join(", ")
            },
        });
    }
    // A named file that is in no version is a typo or a path outside the repository: it
    // would silently drop part of the program.
    let unmatched: Vec<String> = settings
        .sources
        .files
        .iter()
        .filter(|pattern| {
            let one = SourceSpec {
                files: vec![(*pattern).clone()],
                ..SourceSpec::default()
            };
            checkouts.iter().all(|c| {
                one.select(c.files.iter().map(String::as_str))
                    .is_ok_and(|selected| selected.is_empty())
            })
        })
        .cloned()
        .collect();
    if !unmatched.is_empty() {
        return Err(ReviewError::UnmatchedFiles { files: unmatched });
    }
    Ok(checkouts
        .iter()
        .map(|c| VersionInput {
            version: c.version,
            revision: c.revision.clone(),
            root: c.dir.path().to_path_buf(),
            files: c.files.clone(),
        })
        .collect())
}

/// The hunks `new` changed against `old`, which `new`'s executions must reach.
fn change_set(
    old: &Checkout,
    new: &Checkout,
    side: HunkSide,
    owner: Option<&str>,
) -> coverage::ChangeSet {
    coverage::ChangeSet {
        side,
        owner: owner.map(str::to_string),
        version: new.version,
        hunks: coverage::changed_hunks(old.dir.path(), &old.files, new.dir.path(), &new.files),
    }
}

fn revision(commit: &CommitInfo) -> Revision {
    Revision {
        rev: commit.sha(),
        label: Some(commit.label.clone()),
        summary: commit.summary.clone(),
    }
}

fn common_notes(repo: &GitRepo, checkouts: &[Checkout], settings: &Settings) -> Vec<String> {
    let mut notes: Vec<String> = settings.unconfigured.iter().cloned().collect();
    notes.extend(settings.warnings.iter().cloned());
    notes.extend(settings.allocations.note().map(str::to_string));
    if repo.is_dirty() {
        notes.push(
            "The work tree has uncommitted changes; they are not part of this review, which reads committed (and, in a hook, staged) content only."
                .to_string(),
        );
    }
    for c in checkouts {
        for s in &c.skipped {
            notes.push(format!("{}: not written: {s}", c.version));
        }
        for (path, lines) in &c.line_directives {
            notes.push(line_directives_note(c.version, path, lines));
        }
        if c.files.is_empty() {
            notes.push(format!("{}: no C files", c.version));
        }
    }
    notes
}

fn tool() -> Option<String> {
    Some(format!("mergelens {}", env!("CARGO_PKG_VERSION")))
}

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
    let mut checkouts = Vec::new();
    for (version, commit) in [
        (Version::Base, &versions.base),
        (Version::Ours, &versions.ours),
        (Version::Theirs, &versions.theirs),
    ] {
        let snapshot = repo.commit_snapshot(commit)?;
        checkouts.push(checkout(repo, version, named(commit), &snapshot, settings)?);
    }
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
    let mut checkouts = Vec::new();
    for (version, commit) in [(Version::Old, from), (Version::New, to)] {
        let snapshot = repo.commit_snapshot(commit)?;
        checkouts.push(checkout(repo, version, named(commit), &snapshot, settings)?);
    }
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
    let mut entries = Vec::new();
    let mut unwind = None;
    for prepared in prepared {
        if let Some(reason) = budget::skipped(&prepared.entry) {
            tally.unfinished.push(reason);
            continue;
        }
        let learned = engine::learn_entry(prepared, settings, ctx)?;
        unwind = Some(learned.bounds.unwind);
        entries.push(diff_entry(
            &learned, &changes, &inputs, settings, ctx, &mut tally,
        ));
    }
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
        },
        // Differences of partial automata are shown, but they are no findings.
        changed: tally.changed && !tally.stopped,
        unfinished: did_not_finish,
    })
}

/// One entry's diff from its learned automata: coverage of the change, the added, removed
/// and changed languages, and the source changes their letters name.
fn diff_entry(
    learned: &engine::EntryAutomata,
    changes: &[coverage::ChangeSet],
    inputs: &[VersionInput],
    settings: &Settings,
    ctx: &LearnContext,
    tally: &mut Tally,
) -> DiffEntry {
    let bound = settings.bounds.max_word_length();
    let coverage = tally.add_learned(learned, changes, inputs, settings, ctx);
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
