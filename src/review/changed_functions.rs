//! Changed functions as entries of their own: the functions a merge changed that a review
//! also analyses from their own first line, each through the generated entry harness
//! (any arguments the harness allows), judged per execution like a configured entry.
//!
//! Key items: [`select`], which finds the functions the change sets touch in each version
//! ([`crate::cprog::functions`]) and keeps those `changed-functions` asks for
//! ([`ChangedFunctions`]), most changed first, and [`Selection`], what it chose and why it
//! left the others out.
//!
//! Why: a review compares the executions of its entries, and on real history one harness
//! reaches few of the functions a merge changes; a change no execution reaches is judged by
//! nothing. DiffKemp compares every changed function of two kernel versions, and SafeMerge
//! (Sousa, Dillig and Lahiri, OOPSLA 2018) checks every edited method of a merge on its
//! own; this is the same idea for the call languages of Chockler, Kesseli, Kroening and
//! Strichman (JAIR 2020, Sec. 5). What an own entry adds is an over-approximation of the
//! function's callers: an execution found there may need arguments no caller passes, which
//! the report says beside each such entry.

use std::collections::BTreeMap;

use super::coverage::{ChangeSet, Hunk};
use super::engine::{VersionInput, front_end_config};
use super::error::ReviewError;
use crate::config::{ChangedFunctions, Settings};
use crate::cprog::{FunctionInfo, FunctionOrigin};
use crate::document::Version;
use crate::document::coverage::{Coverage, HunkSide};

/// One changed function chosen for an entry of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChangedFunction {
    pub name: String,
    /// Changed lines inside it, over every side's hunks: what "most changed" orders by.
    pub changed_lines: u32,
}

/// What [`select`] chose, and the sentences for the functions it left out.
#[derive(Debug, Default)]
pub(crate) struct Selection {
    /// Most changed first.
    pub chosen: Vec<ChangedFunction>,
    /// Why a changed function gets no entry of its own (not defined in every version,
    /// defined twice), for the notes.
    pub left_out: Vec<String>,
    /// Every version's program is the first's, token for token after preprocessing: no
    /// function's behaviour changed, whatever the text did.
    pub same_program: bool,
}

/// The changed functions `mode` asks for. `changes` are the sides' change sets (hunks in
/// the lines of the version that made them, base → merged included), `inputs` the versions,
/// `coverages` the configured entries' coverage of the ours and theirs hunks, `configured`
/// the configured entries (never chosen again). A version whose functions cannot be read
/// is an error, as its entries' would be.
pub(crate) fn select(
    mode: ChangedFunctions,
    changes: &[ChangeSet],
    inputs: &[VersionInput],
    outlines: Option<Outlines>,
    settings: &Settings,
    coverages: &[&Coverage],
    configured: &[String],
) -> Result<Selection, ReviewError> {
    if mode == ChangedFunctions::None {
        return Ok(Selection::default());
    }
    let outlines = match outlines {
        Some(outlines) => outlines,
        None => Outlines::read(inputs, settings)?,
    };
    if outlines.same_program() {
        return Ok(Selection {
            same_program: true,
            ..Selection::default()
        });
    }
    let defined: BTreeMap<Version, Vec<FunctionInfo>> = outlines
        .0
        .into_iter()
        .map(|(version, (functions, _))| (version, functions))
        .collect();
    let mut lines: BTreeMap<String, u32> = BTreeMap::new();
    let mut reached: BTreeMap<String, bool> = BTreeMap::new();
    for change in changes {
        let Some(functions) = defined.get(&change.version) else {
            continue;
        };
        let root = inputs
            .iter()
            .find(|i| i.version == change.version)
            .map(|i| i.root.as_path());
        for hunk in &change.hunks {
            for f in functions
                .iter()
                .filter(|f| inside(f, hunk, root))
                .filter(|f| !configured.contains(&f.name))
            {
                *lines.entry(f.name.clone()).or_default() += overlap(f, hunk);
                if matches!(change.side, HunkSide::Ours | HunkSide::Theirs) {
                    let all = reached.entry(f.name.clone()).or_insert(true);
                    *all &= hunk_reached(coverages, change.side, hunk);
                }
            }
        }
    }
    let mut selection = Selection::default();
    for (name, changed_lines) in lines {
        // A function changed only by the merge itself has no branch's hunk to be reached
        // through: it is reviewed whatever the entries did.
        if mode == ChangedFunctions::Unreached && reached.get(&name) == Some(&true) {
            continue;
        }
        match no_own_entry(&name, &defined) {
            None => selection.chosen.push(ChangedFunction {
                name,
                changed_lines,
            }),
            Some(reason) => selection.left_out.push(reason),
        }
    }
    selection.chosen.sort_by(|a, b| {
        b.changed_lines
            .cmp(&a.changed_lines)
            .then(a.name.cmp(&b.name))
    });
    Ok(selection)
}

/// The sentences for the hunks with code that no entry's coverage lists (learned or
/// judged): a change no entry examined, which no verdict may count as clean.
pub(crate) fn unexamined(changes: &[ChangeSet], coverages: &[&Coverage]) -> Vec<String> {
    let mut out = Vec::new();
    for change in changes {
        for hunk in &change.hunks {
            let listed = coverages.iter().flat_map(|c| &c.hunks).any(|h| {
                h.side == change.side
                    && h.file == hunk.file
                    && h.start_line == hunk.start
                    && h.end_line == hunk.end
            });
            if !listed {
                let place = if hunk.start == hunk.end {
                    format!("{}:{}", hunk.file, hunk.start)
                } else {
                    format!("{}:{}-{}", hunk.file, hunk.start, hunk.end)
                };
                out.push(format!(
                    "{}' change at {place} was examined by no entry (no entry reaches its code, and it got no entry of its own: see changed-functions)",
                    change.side.as_str()
                ));
            }
        }
    }
    out
}

/// Each version's analysed functions and program fingerprint ([`crate::cprog::functions`]),
/// read once per review: what the one-branch shortcut and the selection both stand on.
pub(crate) struct Outlines(BTreeMap<Version, (Vec<FunctionInfo>, String)>);

impl Outlines {
    pub(crate) fn read(
        inputs: &[VersionInput],
        settings: &Settings,
    ) -> Result<Outlines, ReviewError> {
        // One thread a version: each is a gcc run and a parse of the whole program, which
        // for a library with a large table (utf8proc's 2 MB of data) takes seconds.
        let read: Vec<Result<_, ReviewError>> = std::thread::scope(|scope| {
            let reading: Vec<_> = inputs
                .iter()
                .map(|input| {
                    scope.spawn(move || {
                        analysed_functions(input, settings).map(|read| (input.version, read))
                    })
                })
                .collect();
            reading
                .into_iter()
                .map(|r| {
                    r.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        Ok(Outlines(
            read.into_iter().collect::<Result<BTreeMap<_, _>, _>>()?,
        ))
    }

    fn program(&self, version: Version) -> Option<&str> {
        self.0.get(&version).map(|(_, program)| program.as_str())
    }

    /// Every version's program is the first's, token for token.
    fn same_program(&self) -> bool {
        let programs: Vec<&String> = self.0.values().map(|(_, p)| p).collect();
        programs.windows(2).all(|w| w[0] == w[1])
    }

    /// When one branch's program is the base's and the merge result's is the other
    /// branch's, token for token after preprocessing: the sentence that says the merge does
    /// exactly that branch's change. Then every execution of the merge is that branch's on
    /// the same input, at every bound, so there is nothing to learn or check (the expected
    /// merge is that branch). The same when both branches' programs and the merge
    /// result's are one ([`SAME_CHANGE`]). `None` when neither holds, or without a merge
    /// result.
    pub(crate) fn one_sided(&self) -> Option<String> {
        let o = self.program(Version::Base)?;
        let a = self.program(Version::Ours)?;
        let b = self.program(Version::Theirs)?;
        let m = self.program(Version::Merged)?;
        let side = if o == a && a == b && b == m {
            return None; // no change at all, said as such
        } else if o == a && m == b {
            "theirs"
        } else if o == b && m == a {
            "ours"
        } else if a == b && b == m {
            // diff3 of a change both branches made is that change, and the merge is it.
            return Some(SAME_CHANGE.to_string());
        } else {
            return None;
        };
        Some(format!(
            "the merge result's program is {side}' token for token after preprocessing, and the other branch's is the base's: the merge does exactly {side}' change, on every input and at every bound, so nothing was learned"
        ))
    }
}

/// The note of a merge whose branches made one change, which the merge result keeps.
const SAME_CHANGE: &str = "ours', theirs' and the merge result's programs are one, token for token after preprocessing: both branches made the same change and the merge keeps it, on every input and at every bound, so nothing was learned";

/// The functions of the version's analysed files (not its headers' or the system's), and
/// its program's fingerprint.
fn analysed_functions(
    input: &VersionInput,
    settings: &Settings,
) -> Result<(Vec<FunctionInfo>, String), ReviewError> {
    if input.files.is_empty() {
        return Ok((Vec::new(), String::new()));
    }
    let config = front_end_config(input, "", settings);
    let dir = tempfile::Builder::new()
        .prefix("mergelens-functions-")
        .tempdir()
        .map_err(|source| ReviewError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let (functions, program) = crate::cprog::functions(&config, dir.path()).map_err(|source| {
        ReviewError::front_end(input.version, &input.revision, &input.root, "", source)
    })?;
    let analysed = functions
        .into_iter()
        .filter(|f| f.origin == FunctionOrigin::Analysed)
        .collect();
    Ok((analysed, program))
}

/// Whether `hunk` (its file repository-relative) touches `f`'s lines.
fn inside(f: &FunctionInfo, hunk: &Hunk, root: Option<&std::path::Path>) -> bool {
    let same_file = match root {
        Some(root) => f.file == root.join(&hunk.file) || f.file.ends_with(&hunk.file),
        None => f.file.ends_with(&hunk.file),
    };
    same_file && f.line <= hunk.end && hunk.start <= f.end_line
}

/// The lines `hunk` and `f` share.
fn overlap(f: &FunctionInfo, hunk: &Hunk) -> u32 {
    hunk.end.min(f.end_line) + 1 - hunk.start.max(f.line)
}

/// Whether some configured entry's executions reach `hunk` of `side`, or it holds no code.
fn hunk_reached(coverages: &[&Coverage], side: HunkSide, hunk: &Hunk) -> bool {
    coverages.iter().flat_map(|c| &c.hunks).any(|h| {
        h.side == side
            && h.file == hunk.file
            && h.start_line == hunk.start
            && h.end_line == hunk.end
            && (h.settled() || !h.code)
    })
}

/// Why `name` cannot be an entry of its own, if it cannot. It can when defined once in
/// every version, or when added by one branch (defined once in it and in the merge, in neither the base nor the other
/// branch: its entry is judged when the merge runs that branch's code there). A function a
/// branch removes has no merge to look at, and is judged through its callers; two
/// definitions (`static` ones in two files) are two functions no single entry names.
fn no_own_entry(name: &str, defined: &BTreeMap<Version, Vec<FunctionInfo>>) -> Option<String> {
    let count = |v: Version| {
        defined
            .get(&v)
            .map_or(0, |fs| fs.iter().filter(|f| f.name == name).count())
    };
    let (o, a, b, m) = (
        count(Version::Base),
        count(Version::Ours),
        count(Version::Theirs),
        count(Version::Merged),
    );
    // A function one branch added gets its own entry, also where the merge drops it: there
    // the merge has no execution of what that branch added, which its languages show as
    // lost (jsmn 07af5df drops the `jsmn_count_tokens` theirs added).
    if o == 0 && m <= 1 && ((a == 1 && b == 0) || (a == 0 && b == 1)) {
        return None;
    }
    for (version, functions) in defined {
        match functions.iter().filter(|f| f.name == name).count() {
            1 => {}
            0 => {
                return Some(format!(
                    "`{name}` changed but is not defined in {version}: it gets no entry of its own and is judged through its callers only"
                ));
            }
            _ => {
                return Some(format!(
                    "`{name}` changed but is defined more than once in {version}: it gets no entry of its own"
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn function(name: &str, line: u32, end_line: u32) -> FunctionInfo {
        FunctionInfo {
            name: name.to_string(),
            file: PathBuf::from("/tmp/x/lib.c"),
            line,
            end_line,
            parameters: Vec::new(),
            origin: FunctionOrigin::Analysed,
        }
    }

    fn hunk(start: u32, end: u32) -> Hunk {
        Hunk {
            file: "lib.c".to_string(),
            start,
            end,
        }
    }

    #[test]
    fn a_hunk_belongs_to_the_functions_whose_lines_it_touches() {
        let f = function("parse", 10, 20);
        let root = std::path::Path::new("/tmp/x");
        assert!(inside(&f, &hunk(18, 25), Some(root)));
        assert!(inside(&f, &hunk(5, 10), Some(root)));
        assert!(!inside(&f, &hunk(21, 22), Some(root)));
        assert_eq!(overlap(&f, &hunk(18, 25)), 3);
        assert_eq!(overlap(&f, &hunk(12, 12)), 1);
    }

    #[test]
    fn a_function_missing_or_doubled_in_a_version_gets_no_entry() {
        let mut defined = BTreeMap::new();
        defined.insert(Version::Base, vec![function("f", 1, 3)]);
        let with_g = vec![function("f", 1, 3), function("g", 5, 9)];
        defined.insert(Version::Ours, with_g.clone());
        assert!(no_own_entry("f", &defined).is_none());
        // One branch added `g` (whether the merge keeps it or drops it): an entry of its own.
        assert!(no_own_entry("g", &defined).is_none());
        // Both added it: neither branch's alone, so the base's absence says no.
        defined.insert(Version::Theirs, with_g);
        let missing = no_own_entry("g", &defined).unwrap();
        assert!(missing.contains("not defined in base"), "{missing}");
        defined.insert(
            Version::Merged,
            vec![function("f", 1, 3), function("f", 5, 9)],
        );
        let twice = no_own_entry("f", &defined).unwrap();
        assert!(twice.contains("more than once in merged"), "{twice}");
    }
}
