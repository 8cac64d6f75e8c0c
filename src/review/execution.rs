//! The per-execution merge verdict of one entry: the four versions run on the same inputs,
//! each execution's call trees merged three-way, and the executions the merge does not
//! explain told as stories.
//!
//! Key items:
//!
//! * [`check_entry`]: versions → [`CheckOutcome`]: the [`EntryCheck`] (stories and what the
//!   check covered and cost), or why it could not run.
//!
//! The method: each version is instrumented again with its returns recorded and rewritten
//! into a product program ([`crate::cprog::product`]); CBMC enumerates the quadruples of
//! logs the versions produce on one shared input ([`crate::cbmc::product`]), skipping those
//! one untouched branch explains or where ours, theirs and the merge agree; each quadruple
//! becomes four call trees ([`super::diff3::CallTree`]) and is classified by their
//! three-way merge ([`super::diff3::merge3`]). The result is cached under
//! `.git/mergelens/executions/`,
//! keyed by the four versions' fingerprints, the bounds and the CBMC version.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;
use std::time::Instant;

use super::context::LearnContext;
use super::diff3::{CallTree, LogItem, merge3, merge3_resolved, merge3_twice};
use super::engine::{EntryAutomata, VersionInput, front_end_config};
use super::error::ReviewError;
use super::execution_cache::{
    CACHE_FORMAT, CachedEnumeration, LIMIT, LimitHit, PartialEnumeration, Resume, cache_key, load,
    save, unfinished,
};
use super::results::{observed, unseen_note, worse};
mod reach;
mod story_input;
use reach::{COPIES, ORDER, number_sites, reachable_only};
use story_input::{relative_sites, shown_place, story_input};

use crate::automaton::Alphabet;
use crate::cbmc::product::{
    Enumeration, Execution as RawExecution, Item, ProductProgram, TAPE_LENGTH, log_room,
};
use crate::cbmc::{CbmcCounters, CbmcRunError, LIBRARY_UNWIND};
use crate::config::Settings;
use crate::cprog::product::{INPUT_BYTES, ProductError, ProductVersion, product_version};
use crate::cprog::{self, EventKind, FrontEndError};
use crate::document::{Execution, ExecutionCheck, ExecutionKind, SelfCheck, Version};

/// The check of one entry.
#[derive(Clone, Debug)]
pub(crate) struct EntryCheck {
    pub executions: Vec<Execution>,
    pub check: ExecutionCheck,
    /// What a reader must know about what the check covered.
    pub notes: Vec<String>,
    /// Executions the check saw whose word a version's learned automaton lacks: the two
    /// disagree on the executions within the bounds, and neither can be trusted.
    pub disagreements: Vec<String>,
}

pub(crate) enum CheckOutcome {
    Ran(Box<EntryCheck>),
    /// The check cannot run on these versions; the reason, for the notes.
    Skipped(String),
    /// The check started and did not finish (stopped, or a CBMC run past a limit): the
    /// review is `unfinished` for this reason.
    Unfinished(String),
}

/// Runs the per-execution check of `entry` at the learned bounds; the trees keep the
/// review's letters (those left after `--only`/`--exclude`), and every execution the check
/// sees must be a word of its version's learned automaton.
pub(crate) fn check_entry(
    inputs: &[VersionInput],
    entry: &str,
    settings: &Settings,
    ctx: &LearnContext,
    learned: &EntryAutomata,
) -> Result<CheckOutcome, ReviewError> {
    let started = Instant::now();
    let dir = tempfile::Builder::new()
        .prefix("mergelens-product-src-")
        .tempdir()
        .map_err(|source| ReviewError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let (mut versions, mut pairs, mut fingerprints) =
        match prepare_all(inputs, entry, settings, ctx, dir.path())? {
            Ok(prepared) => prepared,
            Err(reason) => return Ok(CheckOutcome::Skipped(reason)),
        };
    let mut notes = notes(entry, &versions, learned);
    let mut numbers = number_sites(inputs, entry, &versions)?;
    let one_sided = reachable_only(
        inputs,
        entry,
        &fingerprints,
        (&mut versions, &mut pairs, &mut numbers),
    )?;
    // The review's letters decide what counts towards the bound: part of the key.
    fingerprints.push(learned.alphabet.names().collect::<Vec<_>>().join(" "));
    let key = cache_key(&fingerprints, learned.bounds, ctx);
    let cache_path = ctx
        .executions
        .as_ref()
        .map(|d| d.join(format!("{key}.json")));
    let cached: Option<CachedEnumeration> = cache_path.as_ref().and_then(|p| load(p, ctx));
    let counters = Arc::new(CbmcCounters::new());
    let from_cache = cached.is_some();
    let run = match cached {
        _ if one_sided => CachedEnumeration::nothing_to_enumerate(),
        Some(c) => {
            ctx.progress(&format!("{entry}: per-execution check from the cache"));
            c
        }
        None => {
            let fresh = FreshRun {
                inputs,
                entry,
                settings,
                ctx,
                learned,
                versions: &versions,
                pairs: &pairs,
                numbers: &numbers,
                counters: &counters,
                cache_path: cache_path.as_deref(),
                changed: changed_branches(&fingerprints),
            };
            match fresh.run(&mut notes)? {
                Ok(run) => run,
                Err(outcome) => return Ok(outcome),
            }
        }
    };
    let mut check = ExecutionCheck {
        quadruples: run.enumeration.executions.len() as u64,
        complete: run.enumeration.complete,
        cbmc_runs: counters.runs(),
        from_cache,
        self_check: run.self_check,
        library_unwind: run.library_unwind,
        ..observing(&run.enumeration)
    };
    let diverged = check.self_check.as_ref().is_some_and(|s| !s.identical);
    let (executions, disagreements) = if diverged {
        // The review says why in its inconclusive list.
        check.quadruples = 0;
        check.complete = false;
        (Vec::new(), Vec::new())
    } else {
        let opens: HashSet<&str> = versions
            .iter()
            .flat_map(|v| v.entries.iter().map(String::as_str))
            .collect();
        let trees = Trees {
            entry,
            letters: &run.enumeration.letters,
            alphabet: &learned.alphabet,
            opens: &opens,
            functions_are_letters: settings.events == EventKind::Functions,
        };
        let results = run.enumeration.results;
        notes.extend(unseen_notes(entry, inputs, &run.unseen, results));
        judge(&trees, &run.enumeration, learned, &mut check, &mut notes)?
    };
    check.wall_seconds = started.elapsed().as_secs_f64();
    Ok(CheckOutcome::Ran(Box::new(EntryCheck {
        executions,
        check,
        notes,
        disagreements,
    })))
}

/// The four versions' product parts (read in parallel, as the learning reads them), the
/// self-check's copies among them, the pairs the self-check compares, and each version's
/// fingerprint; or why the check cannot run.
#[allow(clippy::type_complexity)]
fn prepare_all(
    inputs: &[VersionInput],
    entry: &str,
    settings: &Settings,
    ctx: &LearnContext,
    dir: &Path,
) -> Result<Result<(Vec<ProductVersion>, Vec<(char, char)>, Vec<String>), String>, ReviewError> {
    let prepared: Vec<Result<Prepared, ReviewError>> = ctx.pool.install(|| {
        ORDER
            .par_iter()
            .map(|&(version, tag)| prepare(inputs, version, tag, entry, settings, dir))
            .collect()
    });
    let mut versions = Vec::new();
    let mut copies = Vec::new();
    let mut fingerprints = Vec::new();
    for p in prepared {
        match p? {
            Prepared::Ready(product, copy, fingerprint) => {
                versions.push(*product);
                copies.extend(copy.map(|c| *c));
                fingerprints.push(fingerprint);
            }
            Prepared::Skip(reason) => return Ok(Err(reason)),
        }
    }
    // M needs its own self-check only where it is not O's program.
    let mut pairs = vec![('o', 'p')];
    if fingerprints[3] != fingerprints[0] {
        pairs.push(('m', 'n'));
    }
    copies.retain(|c| pairs.iter().any(|&(_, copy)| copy == c.tag));
    versions.extend(copies);
    Ok(Ok((versions, pairs, fingerprints)))
}

/// A per-execution check that the cache does not have: compiled, run (resumed from what a
/// stopped run found), and cached.
struct FreshRun<'a> {
    inputs: &'a [VersionInput],
    entry: &'a str,
    settings: &'a Settings,
    ctx: &'a LearnContext,
    learned: &'a EntryAutomata,
    versions: &'a [ProductVersion],
    pairs: &'a [(char, char)],
    /// Per version, the number each of its call sites logs (see [`site_numbers`]).
    numbers: &'a [Vec<u32>],
    counters: &'a Arc<CbmcCounters>,
    cache_path: Option<&'a Path>,
    /// The branches' tags whose program for the entry differs from the base's.
    changed: Vec<char>,
}

impl FreshRun<'_> {
    /// The run, or the outcome that ends the check without one (a limit hit before or now,
    /// a product goto-cc cannot link).
    fn run(
        &self,
        notes: &mut Vec<String>,
    ) -> Result<Result<CachedEnumeration, CheckOutcome>, ReviewError> {
        let entry = self.entry;
        // A check that ran out of memory or time under these limits before does again: the
        // cost of finding out (minutes on real code) is not paid twice.
        let limit_hit = self.cache_path.map(|p| p.with_extension("limit.json"));
        if let Some(reason) = limit_hit
            .as_deref()
            .and_then(|p| load::<LimitHit>(p, self.ctx))
            .and_then(|hit| hit.recalled(self.settings))
        {
            return Ok(Err(CheckOutcome::Unfinished(reason)));
        }
        let failed = |source: CbmcRunError| ReviewError::Product {
            entry: entry.to_string(),
            source: Box::new(source),
        };
        let numbers = self.numbers;
        let compiled = self.ctx.pool.install(|| {
            ProductProgram::compile(
                &self.ctx.tools,
                self.versions,
                numbers,
                self.pairs.to_vec(),
                self.counters.clone(),
            )
        });
        let product = match compiled {
            Ok(p) => p,
            // A program the renaming cannot link (goto-cc rejects the product): the review
            // goes on with the word-level verdict, saying why.
            Err(e @ (CbmcRunError::Compile { .. } | CbmcRunError::GotoCc { .. })) => {
                return Ok(Err(CheckOutcome::Skipped(format!(
                    "goto-cc cannot link the four versions into one program: {e}"
                ))));
            }
            Err(e) => return Err(failed(e)),
        };
        // Executions a stopped run found are kept beside the cache entry, under its key.
        let partial = self.cache_path.map(|p| p.with_extension("partial.json"));
        let resume = Resume {
            start: partial
                .as_deref()
                .and_then(|p| load::<PartialEnumeration>(p, self.ctx))
                .map(|p| p.executions)
                .unwrap_or_default(),
            path: partial.clone(),
        };
        if !resume.start.is_empty() {
            notes.push(format!(
                "{entry}: the per-execution check resumed from the {} executions a stopped review had found",
                resume.start.len()
            ));
        }
        let (settings, ctx, learned) = (self.settings, self.ctx, self.learned);
        let mut run = match run_product(&product, entry, self.pairs, settings, ctx, learned, resume)
            .and_then(|run| unseen_changes(&product, run, &self.changed, settings, learned))
        {
            Ok(run) => run,
            Err(e) => {
                let Some(reason) = unfinished(&e, partial.is_some()) else {
                    return Err(failed(e));
                };
                // A stop (Ctrl-C, the budget) kills the run as a timeout would, but says
                // nothing of what the check needs.
                if let Some(path) = limit_hit
                    .as_ref()
                    .filter(|_| crate::stop::stop_reason().is_none())
                {
                    LimitHit::remember(path, &e, &reason, settings);
                }
                return Ok(Err(CheckOutcome::Unfinished(reason)));
            }
        };
        if let Some(p) = &partial {
            let _ = std::fs::remove_file(p);
        }
        // Temporary checkouts mean nothing to a reader, nor in the cache.
        if let Some(d) = run.self_check.as_mut().and_then(|s| s.divergence.as_mut()) {
            *d = shown_place(d, self.inputs);
        }
        relative_sites(&mut run.enumeration.executions, self.inputs);
        if let Some(path) = self.cache_path
            && let Err(err) = save(path, &run)
        {
            ctx.warn(&format!(
                "cannot write the per-execution cache {}: {err}",
                path.display()
            ));
        }
        Ok(Ok(run))
    }
}

/// Judges every execution by the three-way merge of its call trees: explained ones are
/// counted, the others become stories (one per distinct behaviour); an execution a
/// learned automaton lacks is a disagreement (at most three are named).
fn judge(
    trees_of: &Trees,
    enumeration: &Enumeration,
    learned: &EntryAutomata,
    check: &mut ExecutionCheck,
    notes: &mut Vec<String>,
) -> Result<(Vec<Execution>, Vec<String>), ReviewError> {
    let mut executions: Vec<Execution> = Vec::new();
    let mut disagreements = Vec::new();
    let entry = trees_of.entry;
    for raw in &enumeration.executions {
        let trees: Vec<CallTree> = raw
            .logs
            .iter()
            .map(|log| trees_of.tree(log))
            .collect::<Result<_, _>>()
            .map_err(|source| ReviewError::Product {
                entry: entry.to_string(),
                source: Box::new(source),
            })?;
        let [o, a, b, m] = [&trees[0], &trees[1], &trees[2], &trees[3]];
        for ((version, _), t) in ORDER.iter().zip(&trees) {
            let word = trees_of.word(t);
            let lacks = learned
                .automata
                .get(version)
                .is_some_and(|dfa| !dfa.accepts_names(&word));
            if lacks && disagreements.len() < 3 {
                disagreements.push(format!(
                    "{entry}: the per-execution check saw {version} make `{}`, a word its learned automaton lacks: the learner and the check disagree on the executions within the bounds",
                    word.join(" ")
                ));
            }
        }
        // What the entries returned and left in globals, judged beside the calls.
        let observed = observed(raw, &enumeration.globals);
        let returned = observed.kind;
        let (kind, expected) = match merge3(o, a, b, Some(m)) {
            // Both branches changed one part: the merge may keep one side's change or
            // both; anything else there is behaviour it invented.
            Err(_) if merge3_resolved(o, a, b, m).as_ref() == Some(m) => {
                (ExecutionKind::Overlapping, None)
            }
            Err(_) => (ExecutionKind::Unexpected, None),
            Ok(e) if &e == m => match returned {
                None => {
                    check.explained += 1;
                    continue;
                }
                Some(kind) => (kind, Some(trees_of.word(&e))),
            },
            // Both branches added the same calls in one place and the merge makes them
            // twice: one change, or two at different call sites? Not unexpected.
            Ok(_) if merge3_twice(o, a, b).as_ref() == Some(m) => {
                if !notes.iter().any(|n| n.contains(TWICE_NOTE)) {
                    notes.push(format!("{entry}: {TWICE_NOTE}"));
                }
                (ExecutionKind::Overlapping, None)
            }
            Ok(e) => (ExecutionKind::Unexpected, Some(trees_of.word(&e))),
        };
        let kind = worse(Some(kind), returned).unwrap_or(kind);
        match kind {
            ExecutionKind::Unexpected => check.unexpected += 1,
            ExecutionKind::Overlapping => check.overlapping += 1,
        }
        let story = Execution {
            input: story_input(raw),
            base: trees_of.word(o),
            ours: trees_of.word(a),
            theirs: trees_of.word(b),
            merged: trees_of.word(m),
            expected,
            kind,
            returns: observed.returns,
            globals: observed.globals,
        };
        if story.loses() {
            check.lost += 1;
        }
        // One story per distinct behaviour: inputs that differ only in values no letter
        // shows tell the same story.
        let same = |s: &Execution| {
            (&s.base, &s.ours, &s.theirs, &s.merged, s.kind)
                == (
                    &story.base,
                    &story.ours,
                    &story.theirs,
                    &story.merged,
                    story.kind,
                )
        };
        if !executions.iter().any(same) {
            executions.push(story);
        }
    }
    Ok((executions, disagreements))
}

/// A check that compares what `enumeration`'s logs observe beside the calls.
fn observing(enumeration: &Enumeration) -> ExecutionCheck {
    ExecutionCheck {
        results: enumeration.results,
        globals: enumeration.globals.clone(),
        ..ExecutionCheck::default()
    }
}

/// The tags of the branches (`a`, `b`) whose program for the entry is not the base's, from
/// the versions' fingerprints in [`ORDER`].
fn changed_branches(fingerprints: &[String]) -> Vec<char> {
    [(1, 'a'), (2, 'b')]
        .into_iter()
        .filter(|&(i, _)| fingerprints.get(i) != fingerprints.first())
        .map(|(_, t)| t)
        .collect()
}

/// `run` with the branches of `changed` that call and return as the base does on every
/// input within the bounds: those no enumerated execution shows differing are asked of
/// CBMC (one run each), since the enumeration skips what one branch alone explains.
fn unseen_changes(
    product: &ProductProgram,
    mut run: CachedEnumeration,
    changed: &[char],
    settings: &Settings,
    learned: &EntryAutomata,
) -> Result<CachedEnumeration, CbmcRunError> {
    if run.self_check.as_ref().is_some_and(|s| !s.identical) {
        return Ok(run);
    }
    for &tag in changed {
        let k = ORDER.iter().position(|(_, t)| *t == tag).unwrap_or(0);
        let seen = run
            .enumeration
            .executions
            .iter()
            .any(|e| e.logs.get(k) != e.logs.first());
        let counts = |l: &str| learned.alphabet.letter(l).is_some();
        if !seen
            && !product.differs_from_base(tag, counts, learned.bounds, settings.query_timeout)?
        {
            run.unseen.push(ORDER[k].0.to_string());
        }
    }
    Ok(run)
}

/// The notes for the branches `unseen` names: where each changed the code, first.
fn unseen_notes(
    entry: &str,
    inputs: &[VersionInput],
    unseen: &[String],
    results: bool,
) -> Vec<String> {
    let base = inputs.iter().find(|i| i.version == Version::Base);
    unseen
        .iter()
        .filter_map(|branch| {
            let side = inputs.iter().find(|i| i.version.to_string() == *branch)?;
            let base = base?;
            let hunks =
                super::coverage::changed_hunks(&base.root, &base.files, &side.root, &side.files);
            let first = hunks.first()?;
            let more = match hunks.len() {
                1 => String::new(),
                n => format!(" (and {} more places)", n - 1),
            };
            Some(unseen_note(
                entry,
                branch,
                &format!("{}:{}{more}", first.file, first.start),
                results,
            ))
        })
        .collect()
}

/// What a reader must know about what the check of these versions covers.
fn notes(entry: &str, versions: &[ProductVersion], learned: &EntryAutomata) -> Vec<String> {
    let mut notes = Vec::new();
    let uncounted = versions
        .iter()
        .flat_map(|v| &v.letters)
        .any(|l| learned.alphabet.letter(l).is_none());
    if uncounted {
        notes.push(format!(
            "{entry}: function entries (or letters --only leaves out) do not count towards --max-word-length but take room in the per-execution check's logs: executions logging more than {} calls, returns and events are outside the check",
            log_room(learned.bounds.max_word_length, false)
        ));
    }
    if versions.iter().any(|v| v.exits) {
        notes.push(format!(
            "{entry}: the per-execution check does not follow executions that call exit or abort (the four versions run in one program)"
        ));
    }
    if versions
        .iter()
        .any(|v| !v.nondet.is_empty() || !v.inputs.is_empty())
    {
        notes.push(format!(
            "{entry}: the per-execution check shares at most {TAPE_LENGTH} reads of each input per version, of at most {INPUT_BYTES} bytes each; executions reading more are out of its bounds"
        ));
    }
    notes
}

/// The enumeration and the self-check, side by side on the pool's threads (they share
/// the product's binary, not a CBMC run); a failed self-check discards the enumeration
/// and, when it fails first, stops it.
fn run_product(
    product: &ProductProgram,
    entry: &str,
    pairs: &[(char, char)],
    settings: &Settings,
    ctx: &LearnContext,
    learned: &EntryAutomata,
    resume: Resume,
) -> Result<CachedEnumeration, CbmcRunError> {
    let (alphabet, bounds) = (&learned.alphabet, learned.bounds);
    ctx.progress(&format!(
        "{entry}: per-execution check (with its self-check) at --unwind {} --max-word-length {}",
        bounds.unwind, bounds.max_word_length
    ));
    let library_unwind = library_unwind(product, entry, settings, ctx, learned)?;
    let failed = AtomicBool::new(false);
    let enumerate = || {
        product.enumerate(
            |l| alphabet.letter(l).is_some(),
            bounds,
            LIMIT,
            settings.query_timeout,
            resume.start.clone(),
            |so_far| keep_found(entry, ctx, resume.path.as_deref(), so_far),
            || !failed.load(Ordering::Relaxed),
        )
    };
    let self_check = || {
        let started = Instant::now();
        let found = product.self_check(bounds, settings.query_timeout);
        if found.as_ref().is_ok_and(|f| !f.identical) {
            failed.store(true, Ordering::Relaxed);
        }
        found.map(|found| SelfCheck {
            versions: pairs
                .iter()
                .filter_map(|&(tag, _)| ORDER.iter().find(|(_, t)| *t == tag))
                .map(|(v, _)| v.to_string())
                .collect(),
            identical: found.identical,
            divergence: found.divergence,
            wall_seconds: started.elapsed().as_secs_f64(),
        })
    };
    let (enumeration, self_check) = ctx.pool.install(|| rayon::join(enumerate, self_check));
    let (mut enumeration, self_check) = (enumeration?, self_check?);
    if !self_check.identical {
        enumeration = Enumeration::default();
    }
    Ok(CachedEnumeration {
        format: CACHE_FORMAT.to_string(),
        self_check: Some(self_check),
        enumeration,
        unseen: Vec::new(),
        library_unwind,
    })
}

/// How often the product unwinds the library's loops: what every version's learning
/// tested, when each did and none needed more (each copy runs a subset of its version's
/// executions within the bounds: the tapes bound its inputs, the review's letters count
/// towards the word bound); else the product's own test, unless a version's learning found
/// a loop past the candidate already.
fn library_unwind(
    product: &ProductProgram,
    entry: &str,
    settings: &Settings,
    ctx: &LearnContext,
    learned: &EntryAutomata,
) -> Result<Option<u32>, CbmcRunError> {
    let tested: Vec<Option<u32>> = learned
        .programs
        .keys()
        .map(|v| learned.library_unwind.get(v).copied())
        .collect();
    if tested
        .iter()
        .any(|k| k.is_some_and(|k| k >= LIBRARY_UNWIND))
    {
        return Ok(None);
    }
    if !tested.is_empty() && tested.iter().all(Option::is_some) {
        let k = tested.into_iter().flatten().max();
        return Ok(k.map(|k| product.use_library_unwind(k)));
    }
    let started = Instant::now();
    let counts = |l: &str| learned.alphabet.letter(l).is_some();
    let fit = product.fit_library_unwind(counts, learned.bounds, settings.query_timeout)?;
    if let Some(fit) = fit {
        ctx.progress(&format!(
            "{entry}: no execution within the bounds runs a library loop more than {fit} times ({:.1} s): the check unwinds them {fit} times",
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(fit)
}

/// Reports the executions found so far and keeps them beside the cache entry, against a
/// stop.
fn keep_found(entry: &str, ctx: &LearnContext, path: Option<&Path>, so_far: &[RawExecution]) {
    let n = so_far.len();
    ctx.progress(&format!("{entry}: per-execution check: {n} executions"));
    if let Some(path) = path {
        let partial = PartialEnumeration {
            format: CACHE_FORMAT.to_string(),
            executions: so_far.to_vec(),
        };
        if let Err(err) = save(path, &partial) {
            ctx.warn(&format!("cannot keep the executions found so far: {err}"));
        }
    }
}

const TWICE_NOTE: &str = "on some input both branches added the same calls in one place and the merge makes them twice; where a call site is not known (a call through a function pointer), one change taken once and two changes at different call sites look alike, so the execution is shown as overlapping";

/// Why a check that stopped at its cap judged only part of the executions.
pub(crate) fn cap_note(entry: &str) -> String {
    format!(
        "{entry}: the per-execution check stopped at its cap of {LIMIT} executions both branches changed; how many more there are within the bounds is not known, and none of them is judged"
    )
}

/// Why an entry whose self-check failed has no per-execution verdict.
pub(crate) fn self_check_note(entry: &str, s: &SelfCheck) -> String {
    let place = s
        .divergence
        .as_ref()
        .map_or(String::new(), |d| format!(" (they part after {d})"));
    format!(
        "{entry}: the self-check failed: {} run beside a copy of itself went different ways on one input{place}, so some input is not shared by the versions; the per-execution check cannot judge this entry (docs/inputs.md says which inputs are shared)",
        s.versions.join(" or ")
    )
}

enum Prepared {
    /// The version's share of the product, the self-check's copy of it (O's and M's),
    /// and its fingerprint.
    Ready(Box<ProductVersion>, Option<Box<ProductVersion>>, String),
    Skip(String),
}

/// Instruments one version with its returns recorded and rewrites it for the product.
fn prepare(
    inputs: &[VersionInput],
    version: Version,
    tag: char,
    entry: &str,
    settings: &Settings,
    dir: &std::path::Path,
) -> Result<Prepared, ReviewError> {
    let Some(input) = inputs.iter().find(|i| i.version == version) else {
        return Ok(Prepared::Skip(format!("no {version} version")));
    };
    let mut config = front_end_config(input, entry, settings);
    config.only = None;
    config.exclude.clear();
    config.record_returns = true;
    config.share_inputs = true;
    let out = dir.join(tag.to_string());
    std::fs::create_dir_all(&out).map_err(|source| ReviewError::Io {
        path: out.clone(),
        source,
    })?;
    let front_end = |source: FrontEndError| {
        ReviewError::front_end(input.version, &input.revision, &input.root, entry, source)
    };
    let program = match cprog::instrument(&config, &out) {
        Ok(p) => p,
        Err(FrontEndError::MissingEntry { .. }) => {
            return Ok(Prepared::Skip(format!(
                "{version} does not define `{entry}`"
            )));
        }
        Err(e) => return Err(front_end(e)),
    };
    let copy = COPIES.iter().find(|(v, _)| *v == version).map(|&(_, c)| c);
    let rewritten = product_version(&program, tag, &out).and_then(|p| {
        let copy = copy
            .map(|c| product_version(&program, c, &out).map(Box::new))
            .transpose()?;
        Ok((p, copy))
    });
    match rewritten {
        Ok((p, copy)) => Ok(Prepared::Ready(Box::new(p), copy, program.fingerprint())),
        Err(e @ ProductError::Parameter { .. }) => Ok(Prepared::Skip(e.to_string())),
        Err(ProductError::FrontEnd(e)) => Err(front_end(e)),
    }
}

/// How logs become call trees and words for one entry.
struct Trees<'a> {
    entry: &'a str,
    /// The names of the logs' letters.
    letters: &'a [String],
    /// The review's letters: a tree's word holds these only.
    alphabet: &'a Alphabet,
    /// The letters that are function entries.
    opens: &'a HashSet<&'a str>,
    /// With function events, a function outside the review's letters (`--only`) is spliced
    /// out of the tree, as the learning does not see it; with calls or branches, functions
    /// are the tree's structure, never letters.
    functions_are_letters: bool,
}

impl Trees<'_> {
    /// A version's log as a call tree.
    fn tree(&self, log: &[Item]) -> Result<CallTree, CbmcRunError> {
        let items = log
            .iter()
            .filter_map(|item| match item {
                Item::Letter(k, site) => Some(
                    self.letters
                        .get(*k as usize)
                        .map(|n| LogItem::Enter(n.as_str(), *site))
                        .ok_or_else(|| CbmcRunError::Contract {
                            message: format!("letter {k} outside the version's alphabet"),
                        }),
                ),
                Item::Return => Some(Ok(LogItem::Return)),
                Item::End => Some(Ok(LogItem::End)),
                Item::Exit | Item::Result(_) => None,
            })
            .collect::<Result<Vec<_>, _>>()?;
        let opens = |n: &str| self.opens.contains(n);
        let keep = |n: &str| self.shown(n) || (!self.functions_are_letters && opens(n));
        Ok(CallTree::from_log(self.entry, &items, keep, opens))
    }

    /// Whether a letter is one of the review's.
    fn shown(&self, name: &str) -> bool {
        self.alphabet.letter(name).is_some()
    }

    /// A tree's word over the review's letters.
    fn word(&self, tree: &CallTree) -> Vec<String> {
        tree.word(cprog::END_LETTER, |n| self.shown(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_past_a_limit_is_recalled_only_under_limits_no_larger() {
        let recalled = |path: &Path, settings: &Settings| {
            crate::cache_mac::read_json::<LimitHit>(path, "executions")
                .unwrap()?
                .recalled(settings)
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.limit.json");
        let mut settings = Settings {
            memory_limit: Some(4 << 30),
            ..Settings::default()
        };
        let oom = CbmcRunError::OutOfMemory {
            tool: "cbmc",
            limit_mib: 4096,
        };
        LimitHit::remember(&path, &oom, "cbmc ran out of memory", &settings);
        let reason = recalled(&path, &settings).unwrap();
        assert!(
            reason.starts_with("cbmc ran out of memory (remembered"),
            "{reason}"
        );
        settings.memory_limit = Some(8 << 30);
        assert_eq!(recalled(&path, &settings), None);
        settings.memory_limit = None;
        assert_eq!(recalled(&path, &settings), None);

        let timeout = CbmcRunError::Timeout {
            what: "the check".into(),
            unwind: 2,
            max_word_length: 10,
            seconds: 300.0,
        };
        settings.query_timeout = Some(std::time::Duration::from_secs(300));
        LimitHit::remember(&path, &timeout, "timed out", &settings);
        settings.query_timeout = Some(std::time::Duration::from_secs(100));
        assert!(recalled(&path, &settings).is_some());
        settings.query_timeout = Some(std::time::Duration::from_secs(600));
        assert_eq!(recalled(&path, &settings), None);
        // A stop request is no limit of the check's: nothing is remembered.
        let other = dir.path().join("other.limit.json");
        LimitHit::remember(
            &other,
            &CbmcRunError::Cbmc {
                message: "x".into(),
            },
            "x",
            &settings,
        );
        assert!(!other.exists());
    }
}
