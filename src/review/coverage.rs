//! Coverage of the change: the hunks a branch (or a diff) changed in the analysed C files,
//! and whether some execution of the entry within the bounds reaches each of them.
//!
//! Key items: [`changed_hunks`] (one version's files against another's, with `similar`),
//! [`ChangeSet`] (the hunks of one side, in the lines of the version that introduced them)
//! and [`check`], which turns change sets into a [`Coverage`].
//!
//! Method: the version's instrumented program (the one its automaton was learned from, so
//! its line markers name the checkout's files and lines) is compiled once more and run
//! through CBMC with `--cover location` at the learned bounds ([`GotoProgram::cover`]); a
//! hunk is reached iff a covered basic block has one of its lines. When a hunk stays
//! unreached, the same run at `--unwind` + 1 up to `--max-unwind` (the limit of
//! `--auto-bounds`) finds the bound that would reach it, if one does. A pure deletion has no
//! lines of its own in the new version; it is given as the line before and the line after
//! it, so it counts as reached when the code around the deleted text runs.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rayon::prelude::*;
use similar::{DiffTag, TextDiff};

use super::context::LearnContext;
use super::engine::{EntryAutomata, Prepared};
use crate::cbmc::{CbmcCounters, CbmcRunError, CoveredLines, GotoProgram, LearnBounds};
use crate::config::{BoundsSetting, Settings};
use crate::document::Version;
use crate::document::coverage::{Coverage, CoveredHunk, HunkSide};

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
                let job = SideJob {
                    change,
                    bounds: learned.bounds,
                    limit,
                    timeout: settings.query_timeout,
                    counters: &counters,
                    ctx,
                };
                match program {
                    _ if change.hunks.is_empty() => (Vec::new(), None),
                    None => (job.unreached(), None),
                    Some(p) => match job.run(p) {
                        Ok(hunks) => (hunks, None),
                        Err(e) => (
                            job.unreached(),
                            Some(format!(
                                "{} ({}): the coverage of the change could not be checked: {e}",
                                change.version, learned.entry
                            )),
                        ),
                    },
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
    bounds: LearnBounds,
    /// The largest `--unwind` tried for a hunk that stays unreached.
    limit: u32,
    timeout: Option<Duration>,
    counters: &'a Arc<CbmcCounters>,
    ctx: &'a LearnContext,
}

impl SideJob<'_> {
    /// Every hunk unreached: the version cannot run (it lacks the entry) or was not checked.
    fn unreached(&self) -> Vec<CoveredHunk> {
        self.change
            .hunks
            .iter()
            .map(|h| self.hunk(h, true, false))
            .collect()
    }

    fn hunk(&self, h: &Hunk, code: bool, reached: bool) -> CoveredHunk {
        CoveredHunk {
            file: h.file.clone(),
            side: self.change.side,
            start_line: h.start,
            end_line: h.end,
            reached,
            code,
            reached_at_unwind: None,
        }
    }

    fn run(&self, p: &Prepared) -> Result<Vec<CoveredHunk>, CbmcRunError> {
        let goto = GotoProgram::compile(&self.ctx.tools, &p.program.paths, &[], &[], &p.root)?
            .with_entry(p.program.entry.clone())
            .with_recursive_functions(p.program.recursive_functions())
            .with_counters(Arc::clone(self.counters));
        let lines = relative_lines(goto.cover(self.bounds.cbmc(), self.timeout)?, &p.root);
        let mut out: Vec<CoveredHunk> = self
            .change
            .hunks
            .iter()
            .map(|h| {
                let (code, reached) = lines.any_in(&h.file, h.start..=h.end);
                self.hunk(h, code, reached)
            })
            .collect();
        let mut unwind = self.bounds.unwind;
        while out.iter().any(CoveredHunk::unreached) && unwind < self.limit {
            unwind += 1;
            let bounds = LearnBounds {
                unwind,
                ..self.bounds
            };
            let lines = relative_lines(goto.cover(bounds.cbmc(), self.timeout)?, &p.root);
            for h in out.iter_mut().filter(|h| h.unreached()) {
                if h.reached_at_unwind.is_none()
                    && lines.any_in(&h.file, h.start_line..=h.end_line).1
                {
                    h.reached_at_unwind = Some(unwind);
                }
            }
            if out
                .iter()
                .all(|h| !h.unreached() || h.reached_at_unwind.is_some())
            {
                break;
            }
        }
        Ok(out)
    }
}

/// The covered lines with the checkout's files named repository-relative (others, such as
/// system headers, keep their path and match no hunk).
fn relative_lines(lines: CoveredLines, root: &Path) -> CoveredLines {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut out = CoveredLines::default();
    for (file, known) in lines.files {
        let path = Path::new(&file);
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let name = path
            .strip_prefix(&root)
            .map_or(file, |p| p.to_string_lossy().into_owned());
        let merged = out.files.entry(name).or_insert_with(BTreeMap::new);
        for (line, reached) in known {
            *merged.entry(line).or_insert(false) |= reached;
        }
    }
    out
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
