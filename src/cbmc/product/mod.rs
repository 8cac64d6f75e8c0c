//! The per-execution merge check's CBMC side: a product program of the four versions of a
//! merge and the enumeration of their executions on shared inputs.
//!
//! Key types:
//!
//! * [`ProductProgram`]: the versions rewritten by [`crate::cprog::product`] (each with its
//!   own hooks), compiled once by goto-cc; [`ProductProgram::enumerate`] links a generated
//!   harness against it per CBMC run.
//! * [`Execution`]: one input (tape values and arguments) and each version's [`Item`] log:
//!   the preorder of its call tree, with returns.
//!
//! The harness (see `harness`) shares one input tape: the k-th nondet value a version reads
//! is `tape[k]` in every version, and the entry's arguments are the same. It runs O, A, B
//! and M one after the other, each recording its log, and asks for a run that reaches the
//! end with a quadruple of logs not yet found, skipping quadruples that are explained
//! whatever they hold (M equal to A while B equals O, or M equal to B while A equals O: one
//! branch changed nothing there; or A, B and M equal: both branches did one thing there and
//! the merge does it). The enumeration ends when none is left (within the
//! bounds: exact as the learning's queries are) or at `limit` quadruples. Every log is
//! bounded like the learning's words: at most `max_word_length` letters, `end` included;
//! longer executions are out of the bounds and are not enumerated.
//!
//! The quadruples come from one formula (see `formula`): CBMC writes the search's formula
//! once, a SAT solver finds each quadruple and blocks it, and the last solve proves there
//! is no other; each find is then replayed by CBMC (unsliced, its tape pinned) for its input
//! values and the places of its reads, two at a time. So a merge with k unexplained
//! executions costs 1 + k CBMC runs in 1 + k/2 rounds, where one search a find cost 2k + 1
//! runs in k + 1 rounds. When the formula is no use (CBMC wrote none, or the solver ran out
//! of time), each CBMC run searches for one new quadruple, which becomes a blocking clause
//! of the next run's harness, and the replay of one find goes beside the search for the
//! next.
//!
//! Two CBMC runs go side by side where they can (two goto binaries, so that neither loads
//! the other's versions): the self-check ([`ProductProgram::self_check`], O and M beside
//! copies of themselves) beside the enumeration's first run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use tempfile::TempDir;

use super::error::CbmcRunError;
use super::json;
use super::library;
use super::locate::Toolchain;
use super::program::library_loops::library_loop_ids;
use super::program::{
    LIBRARY_UNWIND, common_options, describe_status, goto_cc, more_object_bits, unwinding,
    write_harness,
};
use super::run::{self, CbmcCounters, Outcome};
use super::teacher::LearnBounds;
use crate::cprog::product::{ProductVersion, product_names};

mod formula;
mod harness;
mod library_fit;
mod log;
mod shapes;
mod sites;
mod trace;

use formula::{Model, QuadrupleFormula};
pub use harness::TAPE_LENGTH;
pub(crate) use harness::log_room;
pub(crate) use harness::{Goal, Layout, harness};
use harness::{MAX_ARGUMENTS, PROPERTY};
pub use log::{Execution, Item};
pub use shapes::ReadShape;
pub use sites::ReadSite;
use sites::SiteContext;
use trace::{Pin, divergence, pinned, pinned_inputs, read_execution, read_logs};

/// The loops of the library code `binary` calls, each bounded by the library's bound: the
/// models CBMC adds for every function the binary declares and does not define (listing
/// those is a quarter of the cost of listing the loops, and often shows none), and the
/// definitions of [`library::MODELLED_HERE`] linked in here for the ones CBMC lacks.
fn library_loops(
    tools: &Toolchain,
    binary: &Path,
    entry: &str,
) -> Result<Vec<String>, CbmcRunError> {
    let undefined = library::undefined_functions(tools, binary)?;
    if let Some(undefined) = &undefined {
        // CBMC's built-ins and the product's own hooks (which the harness defines) are no
        // library code.
        let library = |name: &&String| !name.starts_with("__CPROVER_") && !name.starts_with("__ml");
        if !undefined.iter().any(|name| library(&name)) {
            return Ok(Vec::new());
        }
        if let Some((link, _source)) = library::supplement_command(tools, binary, undefined)? {
            goto_cc(link, None)?;
        }
    }
    let mut show = Command::new(&tools.cbmc);
    show.arg(binary)
        .arg("--show-loops")
        .arg("--function")
        .arg(entry);
    match run::run_declared(show, &[binary], None, None)? {
        Outcome::Finished(f) if f.status.success() => {
            Ok(library_loop_ids(&String::from_utf8_lossy(&f.stdout)))
        }
        _ => Ok(Vec::new()),
    }
}

/// One goto binary of the product, with what its runs bound on their own: the functions
/// of its versions that may call themselves and the loops of the library models it calls
/// (CBMC refuses a bound for a loop or function the binary lacks).
#[derive(Debug)]
struct Binary {
    path: PathBuf,
    recursive: Vec<String>,
    library_loops: Vec<String>,
}

impl Binary {
    /// Links the rewritten units of the versions `tags` into `path`.
    fn build(
        tools: &Toolchain,
        versions: &[ProductVersion],
        tags: &[char],
        path: &Path,
    ) -> Result<Binary, CbmcRunError> {
        let mut cmd = Command::new(&tools.goto_cc);
        let chosen = || versions.iter().filter(|v| tags.contains(&v.tag));
        for v in chosen() {
            cmd.args(&v.files);
        }
        cmd.arg("-o").arg(path);
        goto_cc(cmd, None)?;
        let entry = product_names(tags[0]).call;
        Ok(Binary {
            path: path.to_path_buf(),
            recursive: chosen().flat_map(|v| v.recursive.iter().cloned()).collect(),
            library_loops: library_loops(tools, path, &entry)?,
        })
    }
}

/// One CBMC run of the product: which binary, which harness, and how the formula is made.
struct Query<'a> {
    binary: &'a Binary,
    source: &'a str,
    /// Sliced: only what the harness's assertion depends on.
    slice: bool,
}

/// What one search found.
enum Found {
    /// The quadruple of logs a sliced trace showed, and the input values it gave: replayed
    /// beside the next search.
    Logs {
        logs: Vec<Vec<Item>>,
        pins: Vec<Pin>,
    },
    /// An execution read from an unsliced trace.
    Execution(Execution),
}

/// What [`ProductProgram::enumerate`] found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Enumeration {
    /// The names of [`Item::Letter`]s.
    pub letters: Vec<String>,
    pub executions: Vec<Execution>,
    /// Whether CBMC proved no other quadruple exists (false: stopped at the limit, or
    /// because the self-check failed).
    pub complete: bool,
    /// Whether the logs carry the entry's results ([`Item::Result`]).
    #[serde(default)]
    pub results: bool,
    /// The globals whose values the logs carry after the result ([`Execution::globals`]):
    /// the integer globals of the entry's unit that every version has.
    #[serde(default)]
    pub globals: Vec<String>,
}

/// The four versions linked into one program.
#[derive(Debug)]
pub struct ProductProgram {
    tools: Toolchain,
    dir: TempDir,
    /// O, A, B and M: what the enumeration runs.
    binary: Binary,
    /// O, M and their copies: what the self-check runs.
    copies_binary: Binary,
    tags: Vec<char>,
    /// Per version, each of its letters' index in `letters`.
    maps: Vec<Vec<u32>>,
    /// Per version, each call site's callee (its letter index in the version) and number.
    sites: Vec<Vec<(u32, u32)>>,
    letters: Vec<String>,
    arguments: usize,
    /// The keys of every input stream some version reads.
    inputs: Vec<String>,
    /// The generated functions that read an input, every version's (see
    /// [`ProductVersion::readers`]).
    readers: HashSet<String>,
    /// The copies the self-check compares: each version's tag and its copy's.
    pairs: Vec<(char, char)>,
    /// Whether every version's entry returns an integer on every path: the logs then carry
    /// the results (a version whose result is not observed would seem to change it).
    results: bool,
    /// The observed globals (those every version's entry unit has), and per version the
    /// observed index of each global its wrapper hands over.
    globals: (Vec<String>, Vec<Vec<u32>>),
    counters: Arc<CbmcCounters>,
    /// `--object-bits` once CBMC found its default too small (0: the default).
    object_bits: AtomicU32,
    /// Whether CBMC runs with array field sensitivity: off (faster) until a run without it
    /// ran out of memory.
    field_sensitive: AtomicBool,
    /// How often the loops of CBMC's library models may iterate: [`LIBRARY_UNWIND`] until a
    /// test proved a smaller bound cuts no execution (the versions' own, given by
    /// [`ProductProgram::use_library_unwind`], or [`ProductProgram::fit_library_unwind`]).
    library_unwind: AtomicU32,
}

/// What [`ProductProgram::self_check`] found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SelfCheck {
    /// Every pair of copies gave identical logs on every input within the bounds.
    pub identical: bool,
    /// Where two copies of one version first went different ways (`file:line (function)`),
    /// when they did.
    pub divergence: Option<String>,
}

impl ProductProgram {
    /// Compiles the versions' rewritten units into one goto binary: O, A, B and M first,
    /// then the copies the self-check compares, `pairs` of (version, copy) tags.
    /// `site_numbers` gives, per version, the number each of its call sites logs (see
    /// [`Item::Letter`]; missing ones log 0).
    pub fn compile(
        tools: &Toolchain,
        versions: &[ProductVersion],
        site_numbers: &[Vec<u32>],
        pairs: Vec<(char, char)>,
        counters: Arc<CbmcCounters>,
    ) -> Result<ProductProgram, CbmcRunError> {
        let dir = tempfile::Builder::new()
            .prefix("mergelens-product-")
            .tempdir()
            .map_err(CbmcRunError::io(std::env::temp_dir()))?;
        // Two binaries, built side by side: O, A, B and M for the enumeration, and O, M and
        // the copies for the self-check, so that neither run loads the other's versions.
        let quadruple: Vec<char> = versions.iter().take(4).map(|v| v.tag).collect();
        let copies: Vec<char> = pairs.iter().flat_map(|&(x, y)| [x, y]).collect();
        let (binary, copies_binary) = rayon::join(
            || Binary::build(tools, versions, &quadruple, &dir.path().join("product.gb")),
            || Binary::build(tools, versions, &copies, &dir.path().join("self-check.gb")),
        );
        let (binary, copies_binary) = (binary?, copies_binary?);
        let arguments = versions.iter().map(|v| v.arguments).max().unwrap_or(0);
        if arguments > MAX_ARGUMENTS {
            return Err(CbmcRunError::Contract {
                message: format!(
                    "the entry takes {arguments} arguments; the per-execution check shares at most {MAX_ARGUMENTS}"
                ),
            });
        }
        let mut letters: Vec<String> = Vec::new();
        let maps = versions
            .iter()
            .map(|v| {
                v.letters
                    .iter()
                    .map(|name| {
                        let i = letters.iter().position(|l| l == name).unwrap_or_else(|| {
                            letters.push(name.clone());
                            letters.len() - 1
                        });
                        i as u32
                    })
                    .collect()
            })
            .collect();
        let sites = versions
            .iter()
            .zip(
                site_numbers
                    .iter()
                    .map(Vec::as_slice)
                    .chain(std::iter::repeat(&[][..])),
            )
            .map(|(v, numbers)| {
                v.call_sites
                    .iter()
                    .enumerate()
                    .map(|(i, site)| {
                        let callee = v.letters.iter().position(|l| *l == site.callee);
                        let callee = callee.map_or(u32::MAX, |k| k as u32);
                        (callee, numbers.get(i).copied().unwrap_or(0))
                    })
                    .collect()
            })
            .collect();
        Ok(ProductProgram {
            tools: tools.clone(),
            dir,
            binary,
            copies_binary,
            tags: versions.iter().map(|v| v.tag).collect(),
            maps,
            sites,
            letters,
            arguments,
            inputs: versions
                .iter()
                .flat_map(|v| v.inputs.iter().cloned())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect(),
            readers: versions
                .iter()
                .flat_map(|v| v.readers.iter().cloned())
                .collect(),
            pairs,
            results: versions.iter().all(|v| v.returns),
            globals: harness::observed_globals(versions),
            counters,
            object_bits: AtomicU32::new(0),
            field_sensitive: AtomicBool::new(false),
            library_unwind: AtomicU32::new(LIBRARY_UNWIND),
        })
    }

    /// Every quadruple of logs not trivially explained, within the learning's `bounds`
    /// (the word length counting the letters `counts` accepts), up to `limit` of them,
    /// starting from the executions in `start`; `found` hears of all found so far after
    /// each new one (so a caller can keep them against a stop), and the search ends,
    /// incomplete, before a run when `go_on` says no more.
    #[allow(clippy::too_many_arguments)]
    pub fn enumerate(
        &self,
        counts: impl Fn(&str) -> bool,
        bounds: LearnBounds,
        limit: usize,
        timeout: Option<Duration>,
        start: Vec<Execution>,
        mut found: impl FnMut(&[Execution]),
        go_on: impl Fn() -> bool + Sync,
    ) -> Result<Enumeration, CbmcRunError> {
        let counted: Vec<bool> = self.letters.iter().map(|l| counts(l)).collect();
        // The learning's bounds exactly: the same CBMC unwinding for loops and recursion.
        let layout = self.layout(bounds.max_word_length, &counted);
        let bounds = (bounds.cbmc().unwind, bounds.max_word_length, timeout);
        // Executions an earlier, stopped run found: blocked from the first search on.
        let mut blocked: Vec<Vec<Vec<Item>>> = start.iter().map(|e| e.logs.clone()).collect();
        let mut result = Enumeration {
            letters: self.letters.clone(),
            executions: start,
            results: self.results,
            globals: self.globals.0.clone(),
            ..Enumeration::default()
        };
        if let FormulaOutcome::Done = self.by_formula(
            &layout,
            &mut blocked,
            &mut result,
            (bounds, limit),
            &mut found,
            &go_on,
        )? {
            return Ok(result);
        }
        // Without the formula, one CBMC run a find. A search's find is blocked in the next
        // search at once, while its replay runs beside that search: the two CBMC runs share
        // the cores.
        let mut pending: Option<(Vec<Vec<Item>>, Vec<Pin>)> = None;
        loop {
            let searching = blocked.len() < limit && go_on();
            let replay = pending.take();
            let (replayed, searched) = rayon::join(
                || {
                    replay
                        .map(|(logs, pins)| {
                            self.replay(&layout, (&logs, &pins), bounds, blocked.len())
                        })
                        .transpose()
                },
                || {
                    searching
                        .then(|| self.search(&layout, &blocked, bounds))
                        .transpose()
                },
            );
            if let Some(execution) = replayed? {
                result.executions.push(execution);
                found(&result.executions);
            }
            let logs = match searched? {
                None => return Ok(result),
                Some(None) => {
                    result.complete = true;
                    return Ok(result);
                }
                Some(Some(Found::Logs { logs, pins })) => {
                    pending = Some((logs.clone(), pins));
                    logs
                }
                Some(Some(Found::Execution(execution))) => {
                    let logs = execution.logs.clone();
                    result.executions.push(execution);
                    found(&result.executions);
                    logs
                }
            };
            if blocked.contains(&logs) {
                return Err(CbmcRunError::Contract {
                    message: "CBMC returned a blocked execution again".to_string(),
                });
            }
            blocked.push(logs);
        }
    }

    /// One search for a quadruple none of `blocked`. It runs on a sliced formula (only what
    /// the logs depend on: 16 times faster on a product of four 2,000-line versions), whose
    /// trace lacks the input values the logs do not depend on, and may lack the logs too
    /// (CBMC folds logs that are constants on the path into the assertion): then the
    /// search runs again unsliced with the input values pinned, which leaves the solver
    /// little to search.
    fn search(
        &self,
        layout: &Layout,
        blocked: &[Vec<Vec<Item>>],
        bounds: (u32, usize, Option<Duration>),
    ) -> Result<Option<Found>, CbmcRunError> {
        let source = harness(layout, &Goal::NewQuadruple { blocked });
        let sliced = Query {
            binary: &self.binary,
            source: &source,
            slice: true,
        };
        let report = self.check(&sliced, bounds, blocked.len())?;
        let property = report.property(PROPERTY)?;
        if property.status == json::Status::Holds {
            return Ok(None);
        }
        let quadruple = &self.tags[..self.tags.len().min(4)];
        let pins = pinned_inputs(property);
        if let Some(logs) = read_logs(property, quadruple) {
            return Ok(Some(Found::Logs { logs, pins }));
        }
        let with_pins = pinned(source.clone(), &pins);
        let property = self.unsliced(&with_pins, &source, bounds, blocked.len())?;
        self.execution(&property).map(|e| Some(Found::Execution(e)))
    }

    /// The execution of O, A, B and M an unsliced trace shows.
    fn execution(&self, property: &json::PropertyResult) -> Result<Execution, CbmcRunError> {
        let context = SiteContext {
            tags: &self.tags[..self.tags.len().min(4)],
            inputs: &self.inputs,
            readers: &self.readers,
        };
        let observed = (self.results, self.globals.0.len());
        read_execution(property, &context, self.arguments, observed)
    }

    /// The trace of `pinned` (a harness with input values pinned) run unsliced, or, when
    /// the pinned values did not give it (a value the slice left out mattered after all),
    /// of `free`, the same harness without the pins.
    fn unsliced(
        &self,
        pinned: &str,
        free: &str,
        bounds: (u32, usize, Option<Duration>),
        count: usize,
    ) -> Result<json::PropertyResult, CbmcRunError> {
        let mut query = Query {
            binary: &self.binary,
            source: pinned,
            slice: false,
        };
        let report = self.check(&query, bounds, count)?;
        let property = report.property(PROPERTY)?;
        if property.status == json::Status::Fails {
            return Ok(property.clone());
        }
        query.source = free;
        let report = self.check(&query, bounds, count)?;
        let property = report.property(PROPERTY)?;
        if property.status == json::Status::Holds {
            return Err(CbmcRunError::Contract {
                message: "the sliced and the unsliced product disagree".to_string(),
            });
        }
        Ok(property.clone())
    }

    /// The execution whose logs a sliced search found, run unsliced with its input values
    /// pinned, for the values and places of its reads.
    fn replay(
        &self,
        layout: &Layout,
        (logs, pins): (&[Vec<Item>], &[Pin]),
        bounds: (u32, usize, Option<Duration>),
        count: usize,
    ) -> Result<Execution, CbmcRunError> {
        let source = harness(layout, &Goal::Replay { logs });
        let property = self.unsliced(&pinned(source.clone(), pins), &source, bounds, count)?;
        self.execution(&property)
    }

    /// Whether the self-check's copies of one version behave alike on every input within
    /// the bounds: if not, some source of input is not shared, and the enumeration would
    /// compare executions on different inputs. It runs O, M and their copies only, so it
    /// can run beside the enumeration, on another core.
    pub fn self_check(
        &self,
        bounds: LearnBounds,
        timeout: Option<Duration>,
    ) -> Result<SelfCheck, CbmcRunError> {
        let (unwind, max_word_length) = (bounds.cbmc().unwind, bounds.max_word_length);
        let counted = vec![true; self.letters.len()];
        let source = harness(
            &self.layout(max_word_length, &counted),
            &Goal::Divergence(&self.pairs),
        );
        // Sliced, as the enumeration's search is; only a failure is run again unsliced,
        // for the places its trace passes.
        let bounds = (unwind, max_word_length, timeout);
        let mut query = Query {
            binary: &self.copies_binary,
            source: &source,
            slice: true,
        };
        let report = self.check(&query, bounds, 0)?;
        if report.property(PROPERTY)?.status == json::Status::Holds {
            return Ok(SelfCheck {
                identical: true,
                divergence: None,
            });
        }
        query.slice = false;
        let report = self.check(&query, bounds, 0)?;
        let property = report.property(PROPERTY)?;
        let divergence = self
            .pairs
            .iter()
            .find_map(|&(x, y)| divergence(&property.steps, x, y));
        Ok(SelfCheck {
            identical: false,
            divergence,
        })
    }

    /// Whether the version `tag` (of O, A, B, M) calls or returns other than O does on
    /// some input within `bounds` (the word length counting the letters `counts` accepts,
    /// as [`ProductProgram::enumerate`]'s): one CBMC run, asking for an input on which
    /// the two logs differ.
    pub fn differs_from_base(
        &self,
        tag: char,
        counts: impl Fn(&str) -> bool,
        bounds: LearnBounds,
        timeout: Option<Duration>,
    ) -> Result<bool, CbmcRunError> {
        let counted: Vec<bool> = self.letters.iter().map(|l| counts(l)).collect();
        let layout = self.layout(bounds.max_word_length, &counted);
        let pair = [('o', tag)];
        let source = harness(&layout, &Goal::Divergence(&pair));
        let query = Query {
            binary: &self.binary,
            source: &source,
            slice: true,
        };
        let bounds = (bounds.cbmc().unwind, bounds.max_word_length, timeout);
        let report = self.check(&query, bounds, 0)?;
        Ok(report.property(PROPERTY)?.status != json::Status::Holds)
    }

    fn layout<'a>(&'a self, max_word_length: usize, counted: &'a [bool]) -> Layout<'a> {
        Layout {
            tags: &self.tags,
            maps: &self.maps,
            sites: &self.sites,
            counted,
            arguments: self.arguments,
            max_word_length,
            inputs: &self.inputs,
            results: self.results,
            globals: (self.globals.0.len(), &self.globals.1),
        }
    }

    /// `--object-bits` once CBMC found its default too small.
    fn object_bits(&self) -> Option<u32> {
        match self.object_bits.load(Ordering::Relaxed) {
            0 => None,
            b => Some(b),
        }
    }

    /// The CBMC command checking the property of harness `source` (written to a directory
    /// of its own, which the returned guard keeps) linked with `binary` at `unwind`. CBMC
    /// links the harness with the product itself: no goto-cc run per query. With `fit`, it
    /// checks the unwinding assertions instead, the library's loops unwound `fit` times.
    fn command(
        &self,
        binary: &Binary,
        source: &str,
        (unwind, object_bits): (u32, Option<u32>),
        fit: Option<u32>,
    ) -> Result<(TempDir, Command), CbmcRunError> {
        let (query_dir, harness_c) = write_harness(self.dir.path(), source)?;
        let library_unwind = fit.unwrap_or_else(|| self.library_unwind.load(Ordering::Relaxed));
        let mut cmd = Command::new(&self.tools.cbmc);
        cmd.arg(&harness_c).arg(&binary.path).args(unwinding(
            unwind,
            &binary.recursive,
            &binary.library_loops,
            library_unwind,
        ));
        if fit.is_some() {
            cmd.arg("--unwinding-assertions");
        } else {
            cmd.args(["--property", "main.assertion.1"]);
        }
        // Arrays as arrays, not element by element: on http-parser's
        // `http_parser_execute` one copy's symbolic execution took 314 s with CBMC's
        // field sensitivity and 32 s without it (its small arrays became one variable per
        // element, each merged at every join). On cJSON's parser it needed more memory
        // (3.7 GB against 2.3 GB), so a run out of memory turns it back on.
        if self.tools.version.major >= 6 && !self.field_sensitive.load(Ordering::Relaxed) {
            cmd.arg("--no-array-field-sensitivity");
        }
        if let Some(bits) = object_bits {
            cmd.arg("--object-bits").arg(bits.to_string());
        }
        cmd.args(
            common_options(&self.tools)
                .into_iter()
                .filter(|o| fit.is_none() || *o != "--no-unwinding-assertions"),
        );
        Ok((query_dir, cmd))
    }

    /// Links `source` and runs CBMC on it with a trace of the product's property.
    fn check(
        &self,
        query: &Query,
        bounds: (u32, usize, Option<Duration>),
        found: usize,
    ) -> Result<json::Report, CbmcRunError> {
        // Four versions have four times the objects: CBMC's default may be too few.
        loop {
            let bits = self.object_bits();
            match self.check_once(query, bounds, found, bits) {
                Err(CbmcRunError::Cbmc { message }) => {
                    match more_object_bits(std::slice::from_ref(&message), bits) {
                        Some(more) => self.object_bits.store(more, Ordering::Relaxed),
                        None => return Err(CbmcRunError::Cbmc { message }),
                    }
                }
                Err(CbmcRunError::OutOfMemory { .. }) if self.turn_field_sensitivity_on() => {}
                other => return other,
            }
        }
    }

    /// Turns array field sensitivity back on after a run without it ran out of memory:
    /// whether there was anything to turn on.
    fn turn_field_sensitivity_on(&self) -> bool {
        self.tools.version.major >= 6 && !self.field_sensitive.swap(true, Ordering::Relaxed)
    }

    fn check_once(
        &self,
        query: &Query,
        (unwind, max_word_length, timeout): (u32, usize, Option<Duration>),
        found: usize,
        object_bits: Option<u32>,
    ) -> Result<json::Report, CbmcRunError> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let (dir, mut cmd) =
            self.command(query.binary, query.source, (unwind, object_bits), None)?;
        cmd.arg("--json-ui").arg("--trace");
        if query.slice {
            cmd.arg("--slice-formula");
        }
        let harness = dir.path().join(super::program::HARNESS_FILE);
        super::program::keep_queries::keep(&[&harness, &query.binary.path], &cmd);
        let finished = match run::run(cmd, "cbmc", deadline, Some(&self.counters))? {
            Outcome::Finished(f) => f,
            Outcome::TimedOut => {
                return Err(run::unanswered(CbmcRunError::Timeout {
                    what: format!("the per-execution merge check ({found} executions found)"),
                    unwind,
                    max_word_length,
                    seconds: timeout.unwrap_or_default().as_secs_f64(),
                }));
            }
        };
        match (finished.status.code(), json::parse(&finished.stdout)) {
            (_, Ok(r)) if !r.errors.is_empty() => Err(CbmcRunError::Cbmc {
                message: r.errors.join("; "),
            }),
            (Some(0 | 10), Ok(r)) => Ok(r),
            (Some(0 | 10), Err(e)) => Err(e),
            _ => Err(CbmcRunError::Crashed {
                tool: "cbmc",
                status: describe_status(finished.status),
                stderr_tail: run::tail(&finished.stderr, 3),
            }),
        }
    }
}

/// What [`ProductProgram::by_formula`] did.
enum FormulaOutcome {
    /// The enumeration ended there: complete, at the limit, or asked to stop.
    Done,
    /// The formula was no use (or its solver ran out of time): CBMC's runs go on from the
    /// quadruples found so far.
    GoOn,
}

impl ProductProgram {
    /// The enumeration on one formula: one CBMC run writes it, the solver finds every
    /// quadruple and proves there is no other, and each find is replayed (two at a time)
    /// for its input values and the places of its reads. Found executions join `result`
    /// and `blocked`, and `found` hears of them.
    #[allow(clippy::too_many_arguments)]
    fn by_formula(
        &self,
        layout: &Layout,
        blocked: &mut Vec<Vec<Vec<Item>>>,
        result: &mut Enumeration,
        (bounds, limit): ((u32, usize, Option<Duration>), usize),
        found: &mut impl FnMut(&[Execution]),
        go_on: &(impl Fn() -> bool + Sync),
    ) -> Result<FormulaOutcome, CbmcRunError> {
        if blocked.len() >= limit || !go_on() {
            return Ok(FormulaOutcome::GoOn);
        }
        let quadruple = &self.tags[..self.tags.len().min(4)];
        let source = harness(layout, &Goal::Formula { blocked });
        let Some(mut formula) = self.dimacs(&source, bounds, quadruple, layout.log_room())? else {
            return Ok(FormulaOutcome::GoOn);
        };
        let deadline = bounds.2.map(|t| Instant::now() + t);
        let mut finds: Vec<Model> = Vec::new();
        let outcome = loop {
            if blocked.len() + finds.len() >= limit || !go_on() {
                break FormulaOutcome::Done;
            }
            match formula.next(deadline) {
                None => break FormulaOutcome::GoOn,
                Some(None) => {
                    result.complete = true;
                    break FormulaOutcome::Done;
                }
                Some(Some((logs, _)))
                    if blocked.contains(&logs) || finds.iter().any(|f| f.0 == logs) =>
                {
                    return Err(CbmcRunError::Contract {
                        message: "the product's formula gave a blocked execution again".to_string(),
                    });
                }
                Some(Some(model)) => finds.push(model),
            }
        };
        for pair in finds.chunks(2) {
            if !go_on() {
                result.complete = false;
                return Ok(FormulaOutcome::Done);
            }
            let count = blocked.len();
            let replayed: Vec<Result<Execution, CbmcRunError>> = pair
                .par_iter()
                .map(|(logs, pins)| self.replay(layout, (logs, pins), bounds, count))
                .collect();
            for ((logs, _), execution) in pair.iter().zip(replayed) {
                result.executions.push(execution?);
                blocked.push(logs.clone());
            }
            found(&result.executions);
        }
        Ok(outcome)
    }

    /// CBMC's formula of the search harness `source` (sliced, as the searches are), loaded
    /// in a solver; `None` when CBMC wrote none it could use (it decided the property
    /// itself, failed, or the formula is too large to keep).
    fn dimacs(
        &self,
        source: &str,
        (unwind, max_word_length, timeout): (u32, usize, Option<Duration>),
        tags: &[char],
        room: usize,
    ) -> Result<Option<QuadrupleFormula>, CbmcRunError> {
        let (dir, mut cmd) =
            self.command(&self.binary, source, (unwind, self.object_bits()), None)?;
        let cnf = dir.path().join("search.cnf");
        cmd.args(["--slice-formula", "--dimacs", "--outfile"])
            .arg(&cnf);
        let deadline = timeout.map(|t| Instant::now() + t);
        let outcome = match run::run(cmd, "cbmc", deadline, Some(&self.counters)) {
            Err(CbmcRunError::OutOfMemory { .. }) if self.turn_field_sensitivity_on() => {
                return self.dimacs(source, (unwind, max_word_length, timeout), tags, room);
            }
            other => other?,
        };
        match outcome {
            Outcome::Finished(f) if f.status.success() => {}
            Outcome::Finished(_) => return Ok(None),
            Outcome::TimedOut => {
                return Err(run::unanswered(CbmcRunError::Timeout {
                    what: "the formula of the per-execution merge check".to_string(),
                    unwind,
                    max_word_length,
                    seconds: timeout.unwrap_or_default().as_secs_f64(),
                }));
            }
        }
        let size = std::fs::metadata(&cnf).map_or(u64::MAX, |m| m.len());
        let text = (size <= MAX_FORMULA_BYTES)
            .then(|| std::fs::read_to_string(&cnf).ok())
            .flatten();
        Ok(text.and_then(|text| QuadrupleFormula::read(&text, tags, room)))
    }
}

/// The largest formula kept, as for the learning's kept formulas (`program/kept.rs`): a
/// larger one is left to CBMC's own runs, which need no copy of it in this process.
const MAX_FORMULA_BYTES: u64 = 128 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_round_trip_through_their_codes() {
        for item in [
            Item::End,
            Item::Return,
            Item::Exit,
            Item::Letter(0, 0),
            Item::Letter(7, 0),
            Item::Letter(7, 12),
            Item::Letter(7, log::MAX_SITE),
            Item::Result(0),
            Item::Result(3),
        ] {
            assert_eq!(Item::decode(u64::from(item.code())), Some(item));
        }
    }

    #[test]
    fn the_harness_blocks_found_quadruples_and_trivial_ones() {
        let e = Execution {
            tape: vec![],
            arguments: vec![],
            reads: vec![],
            logs: vec![vec![Item::End]; 4],
            tape_sites: vec![],
            read_sites: vec![],
            read_shapes: vec![],
            results: vec![],
            globals: vec![],
        };
        let maps = vec![vec![0, 1]; 4];
        let layout = Layout {
            tags: &['o', 'a', 'b', 'm'],
            maps: &maps,
            sites: &[],
            counted: &[true, false],
            arguments: 0,
            max_word_length: 3,
            inputs: &["local_main_x".to_string()],
            results: false,
            globals: (0, &[]),
        };
        let h = harness(&layout, &Goal::NewQuadruple { blocked: &[e.logs] });
        assert!(!h.contains("__mlcall_p();"));
        assert!(h.contains(
            "struct __ml_row __ml_r = __ml_in_local_main_x[__ml_ic_m_local_main_x]; __ml_copy(p, &__ml_r, n);"
        ));
        assert!(h.contains("struct __ml_row __ml_data_local_main_x[65];"));
        assert!(h.contains("const unsigned int __ml_count_o[2] = { 1u, 0u };"));
        assert!(h.contains("const unsigned int __ml_map_b[2] = { 3u, 4u };"));
        assert!(h.contains("__ml_new = __ml_new && !((__ml_len_o == 1u && __ml_log_o[0] == 0u)"));
        assert!(h.contains("__ml_len_m == __ml_len_a"));
        // Ours, theirs and the merge alike: both branches did one thing, explained.
        assert!(h.contains("__ml_len_a == __ml_len_b"));
        assert!(h.contains("__mlcall_m();"));
        assert!(!h.contains("__ml_res_m =="));
    }
}
