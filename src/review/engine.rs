//! From checked-out versions to one automaton per version and entry, over one alphabet.
//!
//! Each version is instrumented with its own events (filtered by `--only`/`--exclude`); the
//! entry's alphabet is the union of the versions' letters, in order of first occurrence
//! through O, A, B, M. A letter a version lacks never occurs in its executions, so its
//! language over the union is the one learned over its own letters, mapped by name: no
//! query is spent on letters that cannot occur, and a version's cache key does not change
//! when another branch adds a function.
//!
//! Versions with the same fingerprint (preprocessed sources and settings) are learned once.
//! O is learned first, with the constant guess "yes" of program explanation; A, B and M then
//! in parallel (rayon), guessing what O's automaton says: a merge changes little, so O is a
//! far better guess than a constant.

use crate::git::paths::shown_relative;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use super::context::LearnContext;
use super::error::ReviewError;
use super::learn::{LearnJob, LearnedProgram, learn_program};
use super::source::FunctionSpan;
use super::store;
use crate::automaton::{Alphabet, Dfa};
use crate::cbmc::bounds_search::{BoundsLimits, search_bounds, shortest_word};
use crate::cbmc::learning::LearningError;
use crate::cbmc::{CutLoop, LearnBounds, TeacherOptions};
use crate::config::{BoundsSetting, Settings};
use crate::cprog::{
    self, FrontEndConfig, FrontEndError, FrontEndWarning, FunctionOrigin, InstrumentedProgram,
};
use crate::document::{FunctionLocation, LearningStats, Version};
use crate::learn::GuessPolicy;

/// One checked-out version.
#[derive(Clone, Debug)]
pub(crate) struct VersionInput {
    pub version: Version,
    /// How errors name the revision: `feature a5640c1`, `index`.
    pub revision: String,
    pub root: PathBuf,
    /// The selected C files, repository-relative.
    pub files: Vec<String>,
}

/// One entry's automata.
#[derive(Clone, Debug)]
pub(crate) struct EntryAutomata {
    pub entry: String,
    pub alphabet: Alphabet,
    /// Over `alphabet`; the empty language for a version without the entry.
    pub automata: BTreeMap<Version, Dfa>,
    pub absent: Vec<Version>,
    /// The versions whose automaton is exact only up to a length below the bound, with
    /// that length.
    pub inexact: Vec<(Version, usize)>,
    pub stats: BTreeMap<Version, LearningStats>,
    pub functions: Vec<FunctionLocation>,
    /// Every analysed function of every version that defines the entry, with its lines: what
    /// the source changes are cut from.
    pub spans: Vec<FunctionSpan>,
    /// The bounds the automata were learned at (with `--auto-bounds`, where they stopped
    /// changing).
    pub bounds: LearnBounds,
    /// What a reader must know: the front end's warnings, an exactness limit reached.
    pub notes: Vec<String>,
    /// The instrumented program of every version that defines the entry, kept for the
    /// coverage check of the changed lines.
    pub programs: BTreeMap<Version, Arc<Prepared>>,
    /// The versions whose learning `--time-budget` or Ctrl-C cut short, each as a reason
    /// for the verdict `unfinished`.
    pub stopped: Vec<String>,
    /// How often each learned version's queries unwound the library's loops, where they
    /// tested it ([`crate::cbmc::GotoProgram::tested_library_unwind`]).
    pub library_unwind: BTreeMap<Version, u32>,
}

/// A version instrumented for one entry.
#[derive(Debug)]
pub(crate) struct Prepared {
    pub version: Version,
    /// How errors name the revision.
    pub revision: String,
    /// The version's checkout.
    pub root: PathBuf,
    pub program: InstrumentedProgram,
    _dir: crate::remote::WorkDir,
}

/// One entry's versions, instrumented: those that define it, and those that do not.
pub(crate) struct PreparedEntry {
    pub entry: String,
    prepared: Vec<Prepared>,
    absent: Vec<Version>,
}

/// How the merge's code at one entry relates to the branches', by the slices of what the
/// entry can run ([`crate::cprog::InstrumentedProgram::slice_fingerprint`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SameAs {
    /// Every version runs the same code here.
    All,
    /// Ours runs the base's code, and the merge theirs'.
    Theirs,
    /// Theirs runs the base's code, and the merge ours'.
    Ours,
}

impl PreparedEntry {
    /// Whether the merge runs exactly one branch's code at this entry (or every version the
    /// same code): then it does what that branch does on every input and at every bound,
    /// and nothing needs learning. `None` without all four versions, or where the call
    /// graph cannot tell what the entry runs.
    pub(crate) fn same_as(&self) -> Option<SameAs> {
        let slice = |v: Version| {
            self.prepared
                .iter()
                .find(|p| p.version == v)
                .and_then(|p| p.program.slice_fingerprint())
        };
        // A function one branch added (neither the base nor the other branch has it): the
        // merge runs that branch's code here when its slice is the branch's.
        let absent = |v: Version| self.absent.contains(&v);
        if self.absent.len() == 2 && absent(Version::Base) {
            let m = slice(Version::Merged)?;
            return if absent(Version::Theirs) && slice(Version::Ours)? == m {
                Some(SameAs::Ours)
            } else if absent(Version::Ours) && slice(Version::Theirs)? == m {
                Some(SameAs::Theirs)
            } else {
                None
            };
        }
        if !self.absent.is_empty() {
            return None;
        }
        let o = slice(Version::Base)?;
        let a = slice(Version::Ours)?;
        let b = slice(Version::Theirs)?;
        let m = slice(Version::Merged)?;
        if o == a && a == b && b == m {
            Some(SameAs::All)
        } else if o == a && m == b {
            Some(SameAs::Theirs)
        } else if o == b && m == a {
            Some(SameAs::Ours)
        } else {
            None
        }
    }

    /// The prepared program of `version`, if it defines the entry.
    pub(crate) fn program(&self, version: Version) -> Option<&Prepared> {
        self.prepared.iter().find(|p| p.version == version)
    }

    /// Whether every version's program is the base's token for token after preprocessing
    /// (a merge that changed comments, layout or files outside the program): then every
    /// language is the base's, and there is nothing to learn.
    pub(crate) fn unchanged(&self) -> bool {
        let mut fingerprints = self.prepared.iter().map(|p| p.program.fingerprint());
        self.absent.is_empty()
            && fingerprints
                .next()
                .is_some_and(|first| fingerprints.all(|f| f == first))
    }
}

/// Instruments every version for `entry`, in parallel.
pub(crate) fn prepare_entry(
    inputs: &[VersionInput],
    entry: &str,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<PreparedEntry, ReviewError> {
    let instrumented: Vec<Result<Option<Prepared>, ReviewError>> = ctx.pool.install(|| {
        inputs
            .par_iter()
            .map(|input| prepare(input, entry, settings))
            .collect()
    });
    let mut prepared = Vec::new();
    let mut absent = Vec::new();
    for (input, result) in inputs.iter().zip(instrumented) {
        match result? {
            Some(p) => prepared.push(p),
            None => absent.push(input.version),
        }
    }
    if prepared.is_empty() {
        return Err(ReviewError::EntryNowhere {
            entry: entry.to_string(),
        });
    }
    Ok(PreparedEntry {
        entry: entry.to_string(),
        prepared,
        absent,
    })
}

/// Learns every version's automaton of one entry.
pub(crate) fn learn_entry(
    entry: PreparedEntry,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<EntryAutomata, ReviewError> {
    let PreparedEntry {
        entry,
        prepared,
        absent,
    } = entry;
    let entry = entry.as_str();
    let alphabet = union_alphabet(&prepared);
    let mut notes = front_end_notes(&prepared, entry);
    let (results, bounds) = match settings.bounds {
        BoundsSetting::Fixed {
            unwind,
            max_word_length,
        } => {
            let bounds = LearnBounds {
                unwind,
                max_word_length,
            };
            (learn_all(&prepared, bounds, settings, ctx)?, bounds)
        }
        BoundsSetting::Auto {
            max_unwind,
            max_word_length,
        } => {
            let limits = BoundsLimits {
                max_unwind,
                max_word_length,
            };
            let (results, bounds, unconverged) = auto_bounds(&prepared, limits, settings, ctx)?;
            if let Some(reason) = unconverged {
                notes.push(format!("{entry}: --auto-bounds: {reason}"));
            }
            (results, bounds)
        }
    };

    let mut automata = BTreeMap::new();
    let mut stats = BTreeMap::new();
    let mut library_unwind = BTreeMap::new();
    let mut inexact = Vec::new();
    let mut stopped = Vec::new();
    for (p, result) in prepared.iter().zip(results) {
        if let Some(s) = &result.stopped {
            stopped.push(s.reason_text(&format!("{} ({entry})", p.version)));
        }
        if result.stopped.is_none() && result.exact_up_to < bounds.max_word_length {
            inexact.push((p.version, result.exact_up_to));
            notes.push(format!(
                "{} ({entry}): exact up to {} letters only (raise --exact-limit)",
                p.version, result.exact_up_to
            ));
        }
        if let Some(note) = &result.precheck_note {
            notes.push(format!("{} ({entry}): {note}", p.version));
        }
        automata.insert(
            p.version,
            crate::document::languages::over(&result.dfa, &alphabet),
        );
        stats.insert(p.version, result.stats);
        library_unwind.extend(result.library_unwind.map(|k| (p.version, k)));
    }
    for &version in &absent {
        automata.insert(version, crate::document::languages::empty(&alphabet));
    }
    let (functions, spans) = function_places(&prepared, &alphabet, entry);
    Ok(EntryAutomata {
        entry: entry.to_string(),
        alphabet,
        automata,
        absent,
        inexact,
        stats,
        functions,
        spans,
        bounds,
        notes,
        programs: prepared
            .into_iter()
            .map(|p| (p.version, Arc::new(p)))
            .collect(),
        stopped,
        library_unwind,
    })
}

/// One alphabet over every version's events, `end` last.
fn union_alphabet(prepared: &[Prepared]) -> Alphabet {
    let mut names: Vec<String> = Vec::new();
    for p in prepared {
        for name in p.program.alphabet.names() {
            if name != cprog::END_LETTER && !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names.push(cprog::END_LETTER.to_string());
    Alphabet::from_names(names)
}

/// The front end's warnings of every version, each once with the versions that have it
/// (`all versions` when every one does: a real library has dozens, the same in each),
/// paths repository-relative; more than a few are led by their count by kind.
fn front_end_notes(prepared: &[Prepared], entry: &str) -> Vec<String> {
    let mut warnings: Vec<(FrontEndWarning, Vec<String>)> = Vec::new();
    for p in prepared {
        for warning in &p.program.warnings {
            let text = strip_root(&warning.message, &p.root);
            let version = p.version.to_string();
            // The same warning moves with the lines around it: one, with the first
            // version's place.
            let same = |w: &FrontEndWarning| without_place(&w.message) == without_place(&text);
            match warnings.iter_mut().find(|(w, _)| same(w)) {
                Some((_, versions)) if !versions.contains(&version) => versions.push(version),
                Some(_) => {}
                None => warnings.push((FrontEndWarning::new(warning.kind, text), vec![version])),
            }
        }
    }
    let mut notes = Vec::new();
    if warnings.len() > cprog::LISTED_WARNINGS
        && let Some(count) = cprog::count_by_kind(warnings.iter().map(|(w, _)| w))
    {
        notes.push(format!("{entry}: {count}, each below"));
    }
    notes.extend(warnings.into_iter().map(|(warning, versions)| {
        let who = if versions.len() == prepared.len() && prepared.len() > 1 {
            "all versions".to_string()
        } else {
            versions.join(", ")
        };
        format!("{who} ({entry}): {warning}")
    }));
    notes
}

/// A warning without its leading `file:line: `.
fn without_place(warning: &str) -> &str {
    match warning.split_once(": ") {
        Some((place, rest))
            if place
                .rsplit_once(':')
                .is_some_and(|(_, line)| line.chars().all(|c| c.is_ascii_digit())) =>
        {
            rest
        }
        _ => warning,
    }
}

/// Where the functions the letters name are defined in each version (for links), and the
/// line spans of every analysed function (for the source changes).
fn function_places(
    prepared: &[Prepared],
    alphabet: &Alphabet,
    entry: &str,
) -> (Vec<FunctionLocation>, Vec<FunctionSpan>) {
    let functions = prepared
        .iter()
        .flat_map(|p| {
            p.program
                .functions
                .iter()
                .filter(|f| f.origin == FunctionOrigin::Analysed)
                .filter(|f| alphabet.letter(&f.name).is_some() || f.name == entry)
                .map(|f| FunctionLocation {
                    name: f.name.clone(),
                    version: p.version,
                    file: shown_relative(&f.file, &p.root),
                    line: Some(f.line),
                })
        })
        .collect();
    let spans = prepared
        .iter()
        .flat_map(|p| {
            p.program
                .functions
                .iter()
                .filter(|f| f.origin == FunctionOrigin::Analysed)
                .map(|f| FunctionSpan {
                    name: f.name.clone(),
                    version: p.version,
                    path: f.file.clone(),
                    file: shown_relative(&f.file, &p.root),
                    line: f.line,
                    end_line: f.end_line,
                })
        })
        .collect();
    (functions, spans)
}

/// A warning's checkout path, shown repository-relative.
fn strip_root(text: &str, root: &Path) -> String {
    let mut out = text.to_string();
    for r in [root.to_path_buf(), root.canonicalize().unwrap_or_default()] {
        let prefix = format!("{}/", r.display());
        if prefix.len() > 1 {
            out = out.replace(&prefix, "");
        }
    }
    out
}

/// Instruments a version, or `None` when it does not define the entry.
fn prepare(
    input: &VersionInput,
    entry: &str,
    settings: &Settings,
) -> Result<Option<Prepared>, ReviewError> {
    if input.files.is_empty() {
        return Ok(None);
    }
    let config = front_end_config(input, entry, settings);
    // Named by the checkout (itself named by its files) and the entry with a remote engine.
    let key = [input.root.as_os_str().as_encoded_bytes(), entry.as_bytes()];
    let dir = crate::remote::work_dir("mergelens-instrumented-", &key).map_err(|source| {
        ReviewError::Io {
            path: std::env::temp_dir(),
            source,
        }
    })?;
    match cprog::instrument(&config, dir.path()) {
        Ok(program) => Ok(Some(Prepared {
            version: input.version,
            revision: input.revision.clone(),
            root: input.root.clone(),
            program,
            _dir: dir,
        })),
        Err(FrontEndError::MissingEntry { .. }) => Ok(None),
        Err(source) => Err(ReviewError::front_end(
            input.version,
            &input.revision,
            &input.root,
            entry,
            source,
        )),
    }
}

/// How a version is read for `entry`: its files, the settings' events and filters, the
/// include directories and harness files, confined to its checkout and those.
pub(crate) fn front_end_config(
    input: &VersionInput,
    entry: &str,
    settings: &Settings,
) -> FrontEndConfig {
    let sources = &settings.sources;
    let mut config = FrontEndConfig::in_tree(
        &input.root,
        &input.files,
        &sources.include_dirs,
        &sources.defines,
        entry,
    );
    config.events = settings.events;
    config.only = settings.only.as_ref().map(|o| o.iter().cloned().collect());
    config.exclude = settings.exclude.iter().cloned().collect();
    // The version may read its checkout, the include directories and the harness files the
    // user named (all trusted: the command line or the user's configuration), nothing else.
    let mut confine = vec![input.root.clone()];
    confine.extend(config.include_dirs.iter().cloned());
    confine.extend(settings.harness.iter().cloned());
    for trusted in &confine[1..] {
        crate::sandbox::allow_read(trusted);
    }
    config.confine_to = Some(confine);
    config.harness.clone_from(&settings.harness);
    config
}

/// One version's result at some bounds.
#[derive(Clone, Debug)]
struct VersionResult {
    /// Over the program's own alphabet.
    dfa: Dfa,
    stats: LearningStats,
    exact_up_to: usize,
    /// Why the pre-check was dropped, if it was.
    precheck_note: Option<String>,
    /// Learning was cut short (`--time-budget`, Ctrl-C).
    stopped: Option<super::budget::Stopped>,
    /// How often the queries unwound the library's loops, when they tested it.
    library_unwind: Option<u32>,
}

/// Learns every prepared version at `bounds`: the base first, the others in parallel with
/// the base's automaton as their guess oracle; versions sharing a fingerprint once.
fn learn_all(
    prepared: &[Prepared],
    bounds: LearnBounds,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<Vec<VersionResult>, ReviewError> {
    // The first version of each fingerprint learns; the others copy it.
    let mut leader: Vec<usize> = Vec::with_capacity(prepared.len());
    for (i, p) in prepared.iter().enumerate() {
        let fp = p.program.fingerprint();
        let first = prepared[..i]
            .iter()
            .position(|q| q.program.fingerprint() == fp)
            .unwrap_or(i);
        leader.push(first);
    }
    let base = prepared
        .iter()
        .position(|p| p.version == Version::Base || p.version == Version::Old);
    let mut results: Vec<Option<VersionResult>> = vec![None; prepared.len()];
    let mut oracle = None;
    if let Some(b) = base {
        let result = learn_one(
            &prepared[b],
            bounds,
            GuessPolicy::Constant(true),
            settings,
            ctx,
        )?;
        oracle = Some(result.dfa.clone());
        results[b] = Some(result);
    }
    let todo: Vec<usize> = (0..prepared.len())
        .filter(|&i| leader[i] == i && results[i].is_none())
        .collect();
    let guess = oracle.map_or(GuessPolicy::Constant(true), GuessPolicy::Oracle);
    let learned: Vec<Result<VersionResult, ReviewError>> = ctx.pool.install(|| {
        todo.par_iter()
            .map(|&i| learn_one(&prepared[i], bounds, guess.clone(), settings, ctx))
            .collect()
    });
    for (&i, result) in todo.iter().zip(learned) {
        results[i] = Some(result?);
    }
    Ok((0..prepared.len())
        .map(|i| {
            let mut r = results[leader[i]].clone().expect("every leader learned");
            if leader[i] != i {
                r.stats = LearningStats {
                    states: r.stats.states,
                    reused: Some(prepared[leader[i]].version.to_string()),
                    ..LearningStats::default()
                };
            }
            r
        })
        .collect())
}

/// The loops the unwinding of `bounds` cuts in any version (each program once), named by
/// repository paths.
fn cut_loops(
    prepared: &[Prepared],
    bounds: LearnBounds,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<Vec<CutLoop>, ReviewError> {
    let mut loops: Vec<CutLoop> = Vec::new();
    let mut seen = Vec::new();
    for p in prepared {
        if seen.contains(&p.program.fingerprint()) {
            continue;
        }
        seen.push(p.program.fingerprint());
        ctx.progress(&format!(
            "{} ({}): which loops --unwind {} cuts",
            p.version, p.program.entry, bounds.unwind
        ));
        let job = learn_job(p, bounds, GuessPolicy::Constant(true), settings, ctx);
        let found = super::learn::cut_loops(&job).map_err(|source| {
            ReviewError::teacher(p.version, &p.revision, &p.root, &p.program.entry, source)
        })?;
        for mut l in found {
            l.file = shown_relative(Path::new(&l.file), &p.root);
            if !loops.contains(&l) {
                loops.push(l);
            }
        }
    }
    Ok(loops)
}

fn learn_job<'a>(
    p: &'a Prepared,
    bounds: LearnBounds,
    guess: GuessPolicy,
    settings: &Settings,
    ctx: &'a LearnContext,
) -> LearnJob<'a> {
    LearnJob {
        program: &p.program,
        tools: &ctx.tools,
        work_dir: &p.root,
        bounds,
        options: TeacherOptions {
            query_timeout: settings.query_timeout,
            exact_limit: settings.exact_limit,
            ..TeacherOptions::default()
        },
        guess,
        store_dir: ctx.answers.as_deref(),
    }
}

/// The version's automaton from the cache, if it holds an authentic one (a forged entry is
/// noted, and the version learned anew).
fn from_cache(
    p: &Prepared,
    key: &store::CacheKey<'_>,
    ctx: &LearnContext,
) -> Option<VersionResult> {
    let cached = ctx.automata.as_ref().and_then(|store| {
        store
            .load(key)
            .unwrap_or_else(|forged| ctx.cache_rejected(&forged))
    })?;
    ctx.progress(&format!(
        "{} ({}): from the cache",
        p.version, p.program.entry
    ));
    let stats = LearningStats {
        states: cached.stats.states,
        reused: Some("cache".to_string()),
        ..LearningStats::default()
    };
    Some(VersionResult {
        dfa: cached.dfa.0,
        stats,
        exact_up_to: cached.exact_up_to,
        precheck_note: None,
        stopped: None,
        library_unwind: None,
    })
}

fn learn_one(
    p: &Prepared,
    bounds: LearnBounds,
    guess: GuessPolicy,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<VersionResult, ReviewError> {
    let entry = p.program.entry.clone();
    let key = store::CacheKey {
        program: &p.program,
        bounds,
        exact_limit: settings.exact_limit,
        tools: &ctx.tools,
    };
    if let Some(cached) = from_cache(p, &key, ctx) {
        return Ok(cached);
    }
    ctx.progress(&format!(
        "{} ({entry}): learning at --unwind {} --max-word-length {}",
        p.version, bounds.unwind, bounds.max_word_length
    ));
    let started = Instant::now();
    let guess_name = guess.name().to_string();
    let job = learn_job(p, bounds, guess, settings, ctx);
    let learned: LearnedProgram = learn_program(&job).map_err(|failure| match failure {
        LearningError::Teacher(source) => {
            ReviewError::teacher(p.version, &p.revision, &p.root, &entry, source)
        }
        LearningError::Learn(source) => ReviewError::Learn {
            version: p.version,
            entry: entry.clone(),
            source: Box::new(source),
        },
    })?;
    if let Some(forged) = &learned.store_rejected {
        ctx.cache_rejected::<()>(forged);
    }
    let s = &learned.stats;
    let stats = LearningStats {
        cbmc_runs: Some(learned.cbmc_runs),
        membership_queries: Some(s.membership_queries),
        from_cache: Some(s.from_cache),
        from_precheck: Some(s.from_precheck),
        from_guess: Some(s.from_guess),
        from_teacher: Some(s.from_teacher),
        equivalence_queries: Some(s.equivalence_queries),
        guess_accuracy_p: s.guess_accuracy,
        constant_guess_p: learned.constant_guess_p,
        states: Some(learned.dfa.num_states() as u64),
        wall_seconds: Some(started.elapsed().as_secs_f64()),
        guess: Some(guess_name),
        reused: None,
    };
    let exact_up_to = match &learned.stopped {
        Some(s) => s.exact_up_to,
        None => learned
            .exactness
            .as_ref()
            .map_or(bounds.max_word_length, |e| e.exact_up_to),
    };
    if let Some(s) = &learned.stopped {
        ctx.progress(&format!("{} ({entry}): stopped ({})", p.version, s.reason));
        return Ok(VersionResult {
            dfa: learned.dfa,
            stats,
            exact_up_to,
            precheck_note: None,
            stopped: learned.stopped,
            library_unwind: learned.library_unwind,
        });
    }
    if let Some(store) = &ctx.automata
        && let Err(e) = store.save(&key, &learned.dfa, &stats, exact_up_to)
    {
        ctx.warn(&format!(
            "cannot write the automaton cache in {}: {e}",
            store.dir().display()
        ));
    }
    ctx.progress(&format!(
        "{} ({entry}): learned {} states with {} CBMC runs",
        p.version,
        learned.dfa.num_states(),
        learned.cbmc_runs
    ));
    Ok(VersionResult {
        dfa: learned.dfa,
        stats,
        exact_up_to,
        precheck_note: learned.precheck_note,
        stopped: None,
        library_unwind: learned.library_unwind,
    })
}

/// `--auto-bounds` for a review ([`search_bounds`], the one search of every command): every
/// version at the same bounds, so that they stay comparable, raised until no version's
/// automaton changes any more and none has a back edge, or until the limits.
fn auto_bounds(
    prepared: &[Prepared],
    limits: BoundsLimits,
    settings: &Settings,
    ctx: &LearnContext,
) -> Result<(Vec<VersionResult>, LearnBounds, Option<String>), ReviewError> {
    let search = search_bounds(
        limits,
        |b| {
            prepared
                .iter()
                .map(|p| shortest_word(&p.program, b))
                .min()
                .unwrap_or(1)
        },
        |bounds| learn_all(prepared, bounds, settings, ctx),
        |results| results.iter().map(|r| &r.dfa).collect(),
        |bounds| cut_loops(prepared, bounds, settings, ctx),
    )?;
    let reason = search.unconverged_reason();
    Ok((search.learned, search.bounds, reason))
}
