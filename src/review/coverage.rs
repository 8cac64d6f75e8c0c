//! Coverage of the change: the hunks a branch (or a diff) changed in the analysed C files,
//! and whether some execution of the entry within the bounds reaches each of them.
//!
//! Key items: [`changed_hunks`] (one version's files against another's, with `similar`),
//! [`ChangeSet`] (the hunks of one side, in the lines of the version that introduced them)
//! and [`check`], which turns change sets into a [`Coverage`].
//!
//! Method: the version is instrumented again as its automaton was learned, with each hunk's
//! calls of analysed functions marked, or its statements for a hunk without such calls
//! ([`crate::cprog::FrontEndConfig::mark_hunks`]; the calls go to [`CoveredHunk::calls`]:
//! on `if (i == 2) c();` the change is the call, reached only when `c` runs, not when
//! the condition does), and one CBMC run at the learned bounds
//! ([`GotoProgram::reach_hunks`]) tells which hunks some *complete* execution runs: one
//! that returns from the entry within the bounds, exactly the
//! executions the learned automaton and the per-execution check see (a path the unwinding
//! or the word bound cuts reaches nothing). A hunk with no statement (a comment, a
//! declaration, a directive) holds no code and needs no run; a file-scope initialiser always
//! runs. When a hunk stays unreached, the same run at `--unwind` + 1 up to `--max-unwind`
//! (the limit of `--auto-bounds`) finds the bound that would reach it, if one does. A pure
//! deletion has no lines of its own in the new version; it is given as the line before and
//! the line after it, so it counts as reached when the code around the deleted text runs.
//! Results are cached in `.git/mergelens/coverage/`, keyed by the marked program.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;
use similar::{DiffTag, TextDiff};

use super::context::LearnContext;
use super::engine::{EntryAutomata, Prepared, SameAs, VersionInput, front_end_config};
use crate::cbmc::{CbmcCounters, CbmcRunError, GotoProgram, LearnBounds};
use crate::config::{BoundsSetting, Settings};
use crate::cprog::{self, FrontEndError, HunkCode, LineRange};
use crate::document::Version;
use crate::document::coverage::{Coverage, CoveredHunk, HunkSide};
use crate::failure::{FailureKind, HasKind};
use crate::fingerprint::Fingerprint;

/// One changed region, in the lines (1-based, inclusive) of the version that introduced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hunk {
    pub file: String,
    pub start: u32,
    pub end: u32,
}

/// The hunks of one side of a review or diff, and the version whose executions must reach
/// them.
#[derive(Clone, Debug)]
pub(crate) struct ChangeSet {
    pub side: HunkSide,
    /// The revision the change is in, when sentences should name it (a diff's `to`).
    pub owner: Option<String>,
    pub version: Version,
    pub hunks: Vec<Hunk>,
}

/// The hunks from `old` to `new`, each a version's checkout and its analysed files
/// (repository-relative): a file only `new` has is one hunk; a file only `old` has leaves
/// nothing in `new` to reach.
pub(crate) fn changed_hunks(
    old_root: &Path,
    old_files: &[String],
    new_root: &Path,
    new_files: &[String],
) -> Vec<Hunk> {
    let mut out = Vec::new();
    for file in new_files {
        let Ok(new) = std::fs::read_to_string(new_root.join(file)) else {
            continue;
        };
        let old = if old_files.contains(file) {
            std::fs::read_to_string(old_root.join(file)).unwrap_or_default()
        } else {
            String::new()
        };
        out.extend(text_hunks(&old, &new).into_iter().map(|(start, end)| Hunk {
            file: file.clone(),
            start,
            end,
        }));
    }
    out
}

/// The changed line ranges of `new` against `old` (1-based, inclusive); a pure deletion
/// becomes the line before and the line after it.
fn text_hunks(old: &str, new: &str) -> Vec<(u32, u32)> {
    let lines = new.lines().count();
    if lines == 0 {
        return Vec::new();
    }
    let last = u32::try_from(lines).unwrap_or(u32::MAX);
    let diff = TextDiff::from_lines(old, new);
    let mut out = Vec::new();
    for group in diff.grouped_ops(0) {
        let mut range: Option<(usize, usize)> = None;
        let mut at = None;
        for op in group.iter().filter(|op| op.tag() != DiffTag::Equal) {
            let r = op.new_range();
            at.get_or_insert(r.start);
            if !r.is_empty() {
                range = Some(match range {
                    Some((s, e)) => (s.min(r.start), e.max(r.end)),
                    None => (r.start, r.end),
                });
            }
        }
        let to_line = |i: usize| u32::try_from(i).unwrap_or(u32::MAX);
        match (range, at) {
            // 0-based half-open to 1-based inclusive.
            (Some((s, e)), _) => out.push((to_line(s + 1), to_line(e))),
            // Deleted before 0-based line `k`: lines `k` and `k + 1`, 1-based, kept inside
            // the file.
            (None, Some(k)) => {
                let k = to_line(k);
                out.push((k.clamp(1, last), (k + 1).clamp(1, last)));
            }
            (None, None) => {}
        }
    }
    out
}

/// What a coverage check cost: CBMC runs and their seconds.
#[derive(Clone, Debug, Default)]
pub(crate) struct CoverageCost {
    pub runs: u64,
    pub seconds: f64,
}

/// Whether the executions of `learned`'s entry within its bounds reach the hunks of
/// `changes`; also why a side could not be checked (each such side's hunks count as
/// unreached).
pub(crate) fn check(
    changes: &[ChangeSet],
    inputs: &[VersionInput],
    learned: &EntryAutomata,
    settings: &Settings,
    ctx: &LearnContext,
) -> (Coverage, Vec<String>, CoverageCost) {
    let counters = Arc::new(CbmcCounters::new());
    let limit = match settings.bounds {
        BoundsSetting::Auto { max_unwind, .. } => max_unwind,
        BoundsSetting::Fixed { .. } => crate::bounds::DEFAULT_MAX_UNWIND,
    };
    let checked: Vec<(Vec<CoveredHunk>, Option<String>)> = ctx.pool.install(|| {
        changes
            .par_iter()
            .map(|change| {
                let program = learned.programs.get(&change.version);
                let input = inputs.iter().find(|i| i.version == change.version);
                let (Some(input), Some(program)) = (input, program) else {
                    return (Unrunnable { change }.unreached(), None);
                };
                let job = SideJob {
                    change,
                    input,
                    settings,
                    bounds: learned.bounds,
                    limit,
                    timeout: settings.query_timeout,
                    counters: &counters,
                    ctx,
                };
                if change.hunks.is_empty() {
                    return (Vec::new(), None);
                }
                match job.run(program) {
                    Ok(hunks) => (hunks, None),
                    Err(e) => (
                        job.unchecked(&e),
                        Some(format!(
                            "{} ({}): the coverage of the change could not be checked: {}",
                            change.version,
                            learned.entry,
                            crate::failure::text(&e)
                        )),
                    ),
                }
            })
            .collect()
    });
    let mut hunks = Vec::new();
    let mut problems = Vec::new();
    for (h, problem) in checked {
        hunks.extend(h);
        problems.extend(problem);
    }
    let cost = CoverageCost {
        runs: counters.runs(),
        seconds: counters.seconds(),
    };
    let mut coverage = Coverage::new(hunks);
    coverage.cost = Some(crate::document::coverage::CoverageCost {
        cbmc_runs: cost.runs,
        seconds: (cost.seconds * 1000.0).round() / 1000.0,
    });
    (coverage, problems, cost)
}

/// The coverage check of one side.
struct SideJob<'a> {
    change: &'a ChangeSet,
    input: &'a VersionInput,
    settings: &'a Settings,
    bounds: LearnBounds,
    /// The largest `--unwind` tried for a hunk that stays unreached.
    limit: u32,
    timeout: Option<Duration>,
    counters: &'a Arc<CbmcCounters>,
    ctx: &'a LearnContext,
}

/// The hunks of a side no version can run (it lacks the entry): every one unreached.
struct Unrunnable<'a> {
    change: &'a ChangeSet,
}

impl Unrunnable<'_> {
    fn unreached(&self) -> Vec<CoveredHunk> {
        self.change
            .hunks
            .iter()
            .map(|h| hunk(self.change, h, true, false))
            .collect()
    }
}

fn hunk(change: &ChangeSet, h: &Hunk, code: bool, reached: bool) -> CoveredHunk {
    CoveredHunk {
        unchecked: None,
        file: h.file.clone(),
        side: change.side,
        owner: change.owner.clone(),
        start_line: h.start,
        end_line: h.end,
        reached,
        calls: Vec::new(),
        code,
        reached_at_unwind: None,
        reached_at_word_length: None,
        merged_start_line: None,
        merged_end_line: None,
        word_length_searched_up_to: None,
        word_length_cut_at: None,
        searched_up_to: None,
        search_cut_at: None,
        uncalled: None,
        judged: None,
    }
}

/// Why an entry was judged without executions: which code the merge runs there.
pub(crate) fn judged_sentence(entry: &str, same: SameAs) -> String {
    match same {
        SameAs::All => {
            format!("judged at `{entry}`'s entry: every version runs the same code there")
        }
        SameAs::Theirs => {
            format!("judged at `{entry}`'s entry: the merge runs exactly theirs' code there")
        }
        SameAs::Ours => {
            format!("judged at `{entry}`'s entry: the merge runs exactly ours' code there")
        }
    }
}

/// The coverage of a change at an entry judged without executions ([`SameAs`]): a hunk
/// is judged when it lies in a function the entry can call, or outside every function (a
/// declaration, a type, a global: the slices compared hold those), in the version whose
/// lines it is in; a hunk in a function the entry cannot call is left out, to the other
/// entries.
pub(crate) fn judged(
    changes: &[ChangeSet],
    prepared: &super::engine::PreparedEntry,
    entry: &str,
    same: SameAs,
) -> Coverage {
    let why = judged_sentence(entry, same);
    let mut hunks = Vec::new();
    for change in changes {
        let Some(p) = prepared.program(change.version) else {
            continue;
        };
        let callable = p.program.callable_functions().unwrap_or_default();
        for h in &change.hunks {
            let place = p.root.join(&h.file);
            let mut covered = hunk(change, h, true, false);
            let outside_slice = p.program.functions.iter().any(|f| {
                same_file(&f.file, &place)
                    && f.line <= h.end
                    && h.start <= f.end_line
                    && !callable.contains(&f.name)
            });
            // A hunk this entry cannot run is no claim of its: other entries (learned,
            // judged, or unfinished with a reason) speak for it.
            if outside_slice {
                continue;
            }
            covered.judged = Some(why.clone());
            hunks.push(covered);
        }
    }
    Coverage::new(hunks)
}

impl SideJob<'_> {
    /// Every hunk unchecked, for `why`: the check stopped or failed before it could tell
    /// (whether a hunk even holds code is not known then).
    fn unchecked(&self, why: &CoverageError) -> Vec<CoveredHunk> {
        let why = why.unchecked_reason();
        let mut hunks = Unrunnable {
            change: self.change,
        }
        .unreached();
        for h in &mut hunks {
            h.unchecked = Some(why.clone());
        }
        hunks
    }

    fn hunk(&self, h: &Hunk, code: bool, reached: bool) -> CoveredHunk {
        hunk(self.change, h, code, reached)
    }

    /// Instruments the version again with the hunks marked, and asks which of them complete
    /// executions run at the learned bounds, then, for those none runs, at each larger
    /// `--unwind` up to the limit.
    fn run(&self, p: &Prepared) -> Result<Vec<CoveredHunk>, CoverageError> {
        let key = self.cache_key(p);
        if let Some(mut cached) = self.cached(&key) {
            // Which branch made a change is this merge's fact, not the cached result's: the
            // same hunks of the same program can be ours in one merge and theirs in another.
            for h in &mut cached {
                h.side = self.change.side;
                h.owner.clone_from(&self.change.owner);
            }
            return Ok(cached);
        }
        let mut config = front_end_config(self.input, &p.program.entry, self.settings);
        config.mark_hunks = self
            .change
            .hunks
            .iter()
            .map(|h| LineRange {
                file: p.root.join(&h.file),
                start: h.start,
                end: h.end,
            })
            .collect();
        // Named by the checkout, the entry and the hunks with a remote engine (whose cache
        // keys on the paths the coverage queries' binaries record).
        let hunks = format!("{:?}", config.mark_hunks);
        let name = [
            p.root.as_os_str().as_encoded_bytes(),
            p.program.entry.as_bytes(),
            hunks.as_bytes(),
        ];
        let dir = crate::remote::work_dir("mergelens-coverage-", &name).map_err(|source| {
            FrontEndError::Io {
                path: std::env::temp_dir(),
                source,
            }
        })?;
        let program = cprog::instrument(&config, dir.path())?;
        let code = &program.hunk_code;
        let mut out: Vec<CoveredHunk> = self
            .change
            .hunks
            .iter()
            .zip(code)
            .map(|(h, &c)| self.hunk(h, c != HunkCode::None, c == HunkCode::Initialiser))
            .collect();
        for (h, calls) in out.iter_mut().zip(&program.hunk_calls) {
            h.calls.clone_from(calls);
        }
        if !code.contains(&HunkCode::Statement) {
            return Ok(out);
        }
        let goto = GotoProgram::compile(&self.ctx.tools, &program.paths, &[], &[], &p.root)?
            .with_entry(program.cbmc_entry.clone())
            .with_recursive_functions(program.recursive_functions())
            .with_counters(Arc::clone(self.counters));
        self.ctx.progress(&format!(
            "{}: coverage of the change: which of {} hunks complete executions run",
            self.change.version,
            out.len()
        ));
        let started = std::time::Instant::now();
        let reached = goto.reach_hunks(self.bounds.cbmc(), out.len(), self.timeout)?;
        for (h, r) in out.iter_mut().zip(reached) {
            h.reached |= r;
        }
        // The search for a larger bound is a hint, not the check: each of its runs may take
        // a few times what the check's took, and the first one over that ends it.
        let budget = (started.elapsed() * SEARCH_FACTOR).max(SEARCH_MINIMUM);
        let search_timeout = Some(self.timeout.map_or(budget, |t| t.min(budget)));
        mark_uncalled(&mut out, &program, &p.root);
        self.search_word_length(&goto, &mut out, search_timeout);
        self.search_unwind(&goto, &mut out, search_timeout);
        self.save(&key, &out);
        Ok(out)
    }

    /// For the unreached hunks of a called function that no larger word bound reaches: the
    /// smallest `--unwind` up to the limit at which some execution reaches them; a search
    /// run that takes longer than `search_timeout` ends the search.
    fn search_unwind(
        &self,
        goto: &GotoProgram,
        out: &mut [CoveredHunk],
        search_timeout: Option<Duration>,
    ) {
        let searched = |h: &CoveredHunk| {
            h.unreached() && h.uncalled.is_none() && h.reached_at_word_length.is_none()
        };
        let mut unwind = self.bounds.unwind;
        while out
            .iter()
            .any(|h| searched(h) && h.reached_at_unwind.is_none())
            && unwind < self.limit
        {
            unwind += 1;
            self.ctx.progress(&format!(
                "{}: coverage of the change: looking for the bound that reaches {} hunks, --unwind {unwind}",
                self.change.version,
                out.iter().filter(|h| searched(h) && h.reached_at_unwind.is_none()).count()
            ));
            let bounds = LearnBounds {
                unwind,
                ..self.bounds
            };
            // A search that runs out of time keeps what the learned bounds showed.
            let Ok(reached) = goto.reach_hunks(bounds.cbmc(), out.len(), search_timeout) else {
                for h in out
                    .iter_mut()
                    .filter(|h| searched(h) && h.reached_at_unwind.is_none())
                {
                    h.search_cut_at = Some(unwind);
                }
                unwind -= 1;
                break;
            };
            for (h, r) in out.iter_mut().zip(reached) {
                if h.unreached() && h.reached_at_unwind.is_none() && r {
                    h.reached_at_unwind = Some(unwind);
                }
            }
        }
        if unwind > self.bounds.unwind {
            for h in out
                .iter_mut()
                .filter(|h| searched(h) && h.reached_at_unwind.is_none())
            {
                h.searched_up_to = Some(unwind);
            }
        }
    }

    /// For the unreached hunks of a called function: the smallest of a few larger word
    /// bounds, at the learned unwinding, at which some execution reaches them. A hunk on a
    /// path with more calls than `--max-word-length` is cut by the word bound, which no
    /// larger `--unwind` lifts, so this runs before the unwinding search.
    fn search_word_length(
        &self,
        goto: &GotoProgram,
        out: &mut [CoveredHunk],
        timeout: Option<Duration>,
    ) {
        let open = |h: &CoveredHunk| {
            h.unreached() && h.uncalled.is_none() && h.reached_at_word_length.is_none()
        };
        let base = self.bounds.max_word_length;
        let mut tried = None;
        for length in larger_word_lengths(base) {
            if !out.iter().any(open) {
                break;
            }
            self.ctx.progress(&format!(
                "{}: coverage of the change: looking for the word bound that reaches {} hunks, --max-word-length {length}",
                self.change.version,
                out.iter().filter(|h| open(h)).count()
            ));
            let bounds = LearnBounds {
                max_word_length: length,
                ..self.bounds
            };
            let Ok(reached) = goto.reach_hunks(bounds.cbmc(), out.len(), timeout) else {
                for h in out.iter_mut().filter(|h| open(h)) {
                    h.word_length_cut_at = Some(length as u32);
                }
                break;
            };
            tried = Some(length);
            for (h, r) in out.iter_mut().zip(reached) {
                if open(h) && r {
                    h.reached_at_word_length = Some(length as u32);
                }
            }
        }
        if let Some(length) = tried {
            for h in out.iter_mut().filter(|h| open(h)) {
                h.word_length_searched_up_to = Some(length as u32);
            }
        }
    }

    /// What a side's coverage depends on, known before anything is instrumented: the
    /// learned program (its tokens, harness and settings), the lines of the files the hunks
    /// are in, the hunks, mergelens's query semantics, the bounds and the search limit, the
    /// CBMC version.
    fn cache_key(&self, p: &Prepared) -> String {
        let mut h = Fingerprint::new();
        h.field(CACHE_FORMAT);
        h.field(&crate::cbmc::cache_store::semantics_digest());
        h.field(&p.program.fingerprint());
        let mut files: Vec<&str> = self.change.hunks.iter().map(|h| h.file.as_str()).collect();
        files.dedup();
        for file in files {
            h.field(file);
            h.field(&std::fs::read_to_string(p.root.join(file)).unwrap_or_default());
        }
        for hunk in &self.change.hunks {
            h.field(&format!("{}:{}-{}", hunk.file, hunk.start, hunk.end));
        }
        h.field(&format!(
            "unwind={};max-word-length={};limit={}",
            self.bounds.unwind, self.bounds.max_word_length, self.limit
        ));
        let v = self.ctx.tools.version;
        let allocations = self.ctx.tools.allocations.key();
        h.field(&format!("{}.{}.{}{allocations}", v.major, v.minor, v.patch));
        h.hex()
    }

    fn cache_path(&self, key: &str) -> Option<PathBuf> {
        let dir = self.ctx.executions.as_ref()?.parent()?.join("coverage");
        Some(dir.join(format!("{key}.json")))
    }

    /// The authentic entry of `key` ([`crate::cache_mac`]); a forged one is noted and
    /// computed anew.
    fn cached(&self, key: &str) -> Option<Vec<CoveredHunk>> {
        let cached: CachedCoverage = crate::cache_mac::read_json(&self.cache_path(key)?, KIND)
            .unwrap_or_else(|forged| self.ctx.cache_rejected(&forged))?;
        (cached.format == CACHE_FORMAT && cached.hunks.len() == self.change.hunks.len())
            .then_some(cached.hunks)
    }

    fn save(&self, key: &str, hunks: &[CoveredHunk]) {
        let Some(path) = self.cache_path(key) else {
            return;
        };
        let cached = CachedCoverage {
            format: CACHE_FORMAT.to_string(),
            hunks: hunks.to_vec(),
        };
        if let Err(err) = crate::cache_mac::write_json(&path, KIND, &cached) {
            self.ctx.warn(&format!(
                "cannot write the coverage cache {}: {err}",
                path.display()
            ));
        }
    }
}

/// The kind of entry the coverage cache's MACs name.
const KIND: &str = "coverage";
const CACHE_FORMAT: &str = "mergelens-coverage/3";

/// The word bounds the search tries beyond `base`: half as long again, twice, three and
/// four times, at most [`MAX_SEARCHED_WORD_LENGTH`].
fn larger_word_lengths(base: usize) -> Vec<usize> {
    let mut lengths: Vec<usize> = [base + base.div_ceil(2), base * 2, base * 3, base * 4]
        .into_iter()
        .map(|n| n.min(MAX_SEARCHED_WORD_LENGTH))
        .filter(|&n| n > base)
        .collect();
    lengths.dedup();
    lengths
}

/// The longest word bound the coverage search tries: beyond it the hint would name a
/// bound too slow to learn at anyway.
const MAX_SEARCHED_WORD_LENGTH: usize = 64;

/// A search run may take this many times the check's run...
const SEARCH_FACTOR: u32 = 2;
/// ... and at least this long.
const SEARCH_MINIMUM: Duration = Duration::from_secs(5);

/// Names the function of each unreached hunk that the entry never calls (by the call
/// graph): no bound reaches those, so the bound search skips them.
fn mark_uncalled(out: &mut [CoveredHunk], program: &cprog::InstrumentedProgram, root: &Path) {
    if let Some(callable) = program.callable_functions() {
        for h in out.iter_mut().filter(|h| h.unreached()) {
            let place = root.join(&h.file);
            let functions: Vec<&str> = program
                .functions
                .iter()
                .filter(|f| {
                    same_file(&f.file, &place) && f.line <= h.end_line && h.start_line <= f.end_line
                })
                .map(|f| f.name.as_str())
                .collect();
            if !functions.iter().any(|f| callable.iter().any(|c| c == f)) {
                h.uncalled = functions.first().map(|f| f.to_string());
            }
        }
    }
}

/// Whether two paths name one file (the line markers' names are the checkout's, maybe
/// not canonical).
fn same_file(a: &Path, b: &Path) -> bool {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    a == b || canonical(a) == canonical(b)
}

#[derive(serde::Serialize, serde::Deserialize)]
struct CachedCoverage {
    format: String,
    hunks: Vec<CoveredHunk>,
}

/// Why a side's coverage could not be checked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CoverageError {
    #[error(transparent)]
    FrontEnd(#[from] FrontEndError),
    #[error(transparent)]
    Cbmc(#[from] CbmcRunError),
}

impl HasKind for CoverageError {
    fn kind(&self) -> FailureKind {
        match self {
            CoverageError::FrontEnd(e) => e.kind(),
            CoverageError::Cbmc(e) => e.kind(),
        }
    }
}

impl CoverageError {
    /// What stopped the check, in the words of an `unchecked` hunk.
    fn unchecked_reason(&self) -> String {
        let stopped = |reason: &crate::stop::StopReason| match reason {
            crate::stop::StopReason::TimeBudget => "the time budget ran out first".to_string(),
            crate::stop::StopReason::ShareSpent => {
                "its entry's share of the time budget ran out first".to_string()
            }
            crate::stop::StopReason::Interrupted => "the review was interrupted first".to_string(),
        };
        match self {
            CoverageError::FrontEnd(FrontEndError::Stopped { reason, .. })
            | CoverageError::Cbmc(CbmcRunError::Stopped { reason }) => stopped(reason),
            CoverageError::Cbmc(CbmcRunError::Timeout { .. }) => {
                "a CBMC run of the check passed the query timeout".to_string()
            }
            CoverageError::Cbmc(CbmcRunError::OutOfMemory { .. }) => {
                "a CBMC run of the check passed the memory limit".to_string()
            }
            _ => "the check failed (see the reasons)".to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_in_the_new_lines_and_deletions_keep_their_neighbours() {
        let old = "a\nb\nc\nd\ne\n";
        assert_eq!(text_hunks(old, "a\nB\nc\nd\ne\n"), [(2, 2)]);
        assert_eq!(text_hunks(old, "a\nb\nx\ny\nc\nd\ne\n"), [(3, 4)]);
        // `c` deleted: between new lines 2 and 3.
        assert_eq!(text_hunks(old, "a\nb\nd\ne\n"), [(2, 3)]);
        // At the start and the end: clamped to the file.
        assert_eq!(text_hunks(old, "b\nc\nd\ne\n"), [(1, 1)]);
        assert_eq!(text_hunks(old, "a\nb\nc\nd\n"), [(4, 4)]);
        assert_eq!(text_hunks(old, "a\nX\nc\nd\nY\n"), [(2, 2), (5, 5)]);
        assert_eq!(text_hunks("", "a\nb\n"), [(1, 2)]);
        assert!(text_hunks(old, old).is_empty());
        assert!(text_hunks(old, "").is_empty());
    }
}
