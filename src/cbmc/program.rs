//! A program version compiled once to a goto binary, and the queries CBMC answers on it.

pub(crate) mod keep_queries;
mod kept;
pub(super) mod library_loops;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tempfile::TempDir;

use super::error::CbmcRunError;
use super::formula::Slot;
use super::harness::{self, Table};
use super::json::{self, Report, Status};
use super::language::{complete, first_words, is_explanation_word, misshapen_accepted_word};
use super::library;
use super::locate::{Allocations, Toolchain};
use super::run::{self, CbmcCounters, Outcome};
use crate::automaton::{Dfa, Letter, Word, ops};

/// The bounds of a query (Eqn. (4) of the paper): loops and recursion are unwound `unwind`
/// times, and a word has at most `max_word_length` letters, `end` included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Bounds {
    pub unwind: u32,
    pub max_word_length: usize,
}

/// A counterexample to a conjecture: `positive` if `word` is in the program's language but
/// the hypothesis rejects it, negative if the hypothesis accepts it but it is not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Feedback {
    pub word: Word,
    pub positive: bool,
}

/// A conjecture query's feedback, and the membership of the words asked with it.
type Answers = (Option<Feedback>, Vec<bool>);

/// How many words one membership run checks when a trap candidate is confirmed: a batch
/// this size costs about as much as a single word (on Fig. 12, 40 ms of CBMC CPU time for
/// 500 words against 10 ms for one).
pub const VERIFY_BATCH: usize = 256;

/// CBMC's unwinding options for CBMC bound `unwind` (a user's `--unwind b` is `b + 1`, see
/// [`crate::cbmc::LearnBounds::cbmc`]): every loop `--unwind`, every recursive function
/// `unwind - 1` (so that it calls itself as often as a loop body runs) and every loop of
/// CBMC's library models `library_unwind`. The one definition of the bounds every kind of
/// run (learning, the per-execution check, coverage) explores.
pub(crate) fn unwinding(
    unwind: u32,
    recursive: &[String],
    library_loops: &[String],
    library_unwind: u32,
) -> Vec<String> {
    let mut args = vec!["--unwind".to_string(), unwind.to_string()];
    let recursion = unwind.saturating_sub(1);
    for name in recursive {
        args.push("--unwindset".to_string());
        args.push(format!("{name}:{recursion}"));
    }
    for id in library_loops {
        args.push("--unwindset".to_string());
        args.push(format!("{id}:{library_unwind}"));
    }
    args
}

/// The entry function CBMC starts from unless told otherwise.
const DEFAULT_ENTRY: &str = "main";

/// How many times a loop inside one of CBMC's models of the C library (`strncpy`, `strlen`,
/// `memcpy`, ...) may iterate, whatever the program's `--unwind`: these loops walk whole
/// buffers, so the program's small bound would cut every path through `strncpy(d, s, 50)`.
/// 64 covers the buffers of the inputs mergelens is meant for (a few characters into
/// fixed-size buffers of up to 63 bytes); a longer walk is cut, as a program loop is.
pub const LIBRARY_UNWIND: u32 = 64;

/// One instrumented program version, compiled by `goto-cc` into a goto binary that every
/// query links its generated harness against.
#[derive(Debug)]
pub struct GotoProgram {
    tools: Toolchain,
    /// Holds `program.gb` and one subdirectory per query; removed on drop.
    dir: TempDir,
    binary: PathBuf,
    entry: String,
    /// Functions that may call themselves, directly or through others: their recursion is
    /// bounded apart from loops (see [`GotoProgram::with_recursive_functions`]).
    recursive: Vec<String>,
    /// The loops of CBMC's library models that the program calls (`strncpy.0`), each run
    /// with [`LIBRARY_UNWIND`]; found on the first query.
    library_loops: std::sync::OnceLock<Vec<String>>,
    pub(super) library_unwind: u32,
    /// The library unwinding tested at each bounds asked ([`library_loops`]).
    pub(super) library_fits: Mutex<Vec<(Bounds, u32)>>,
    counters: Arc<CbmcCounters>,
    /// `--object-bits` once CBMC found the default too small (0: the default).
    object_bits: AtomicU32,
    /// The alphabet's size, when known: membership queries may then be answered from a
    /// formula kept per bounds ([`super::formula`]).
    letters: Option<usize>,
    formulas: Mutex<HashMap<Bounds, Slot>>,
}

impl GotoProgram {
    /// Compiles `sources` once with `goto-cc`, run in `work_dir` (relative paths in
    /// `sources`, `include_dirs` and `#line` markers are relative to it; nothing is written
    /// there). `defines` are `NAME` or `NAME=VALUE`, as after `-D`. The binary goes into a
    /// temporary directory owned by the returned value.
    pub fn compile(
        tools: &Toolchain,
        sources: &[PathBuf],
        include_dirs: &[PathBuf],
        defines: &[String],
        work_dir: &Path,
    ) -> Result<GotoProgram, CbmcRunError> {
        if !work_dir.is_dir() {
            return Err(CbmcRunError::Io {
                path: work_dir.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "not a directory"),
            });
        }
        let dir = tempfile::Builder::new()
            .prefix("mergelens-cbmc-")
            .tempdir()
            .map_err(CbmcRunError::io(std::env::temp_dir()))?;
        let binary = dir.path().join("program.gb");
        let mut cmd = Command::new(&tools.goto_cc);
        cmd.current_dir(work_dir);
        for d in include_dirs {
            cmd.arg("-I").arg(d);
        }
        for d in defines {
            cmd.arg(format!("-D{d}"));
        }
        cmd.args(sources).arg("-o").arg(&binary);
        goto_cc(cmd, None)?;
        // A source that cannot be read may call anything.
        let texts: Option<Vec<String>> = sources
            .iter()
            .map(|s| std::fs::read_to_string(work_dir.join(s)).ok())
            .collect();
        if texts.is_none_or(|texts| library::may_call_modelled(&texts))
            && let Some(undefined) = library::undefined_functions(tools, &binary)?
            && let Some((link, _source)) = library::supplement_command(tools, &binary, &undefined)?
        {
            goto_cc(link, None)?;
        }
        Ok(GotoProgram {
            tools: tools.clone(),
            dir,
            binary,
            entry: DEFAULT_ENTRY.to_string(),
            recursive: Vec::new(),
            library_loops: std::sync::OnceLock::new(),
            library_unwind: LIBRARY_UNWIND,
            library_fits: Mutex::new(Vec::new()),
            counters: Arc::new(CbmcCounters::new()),
            object_bits: AtomicU32::new(0),
            letters: None,
            formulas: Mutex::new(HashMap::new()),
        })
    }

    /// Bounds the recursion of these functions as the paper's `Depth(π) ≤ b` does (Eqn. (3)):
    /// at `cbmc --unwind k`, with `k = b + 1` so that loop bodies run `b` times, CBMC lets a
    /// function call itself `k` times, one more than `b`; `--unwindset f:b` takes it back to
    /// `b`. Every name must be a function of the program (CBMC rejects unknown ones).
    pub fn with_recursive_functions(mut self, names: Vec<String>) -> GotoProgram {
        self.recursive = names;
        self
    }

    /// Runs the program from `entry` instead of `main`: CBMC calls it with nondeterministic
    /// arguments (`cbmc --function`). A name the program lacks fails every query with
    /// [`CbmcRunError::Cbmc`].
    pub fn with_entry(mut self, entry: impl Into<String>) -> GotoProgram {
        self.entry = entry.into();
        self
    }

    /// Lets loops of CBMC's C library models iterate `k` times instead of
    /// [`LIBRARY_UNWIND`] (`--library-unwind`).
    pub fn with_library_unwind(mut self, k: u32) -> GotoProgram {
        self.library_unwind = k;
        self
    }

    /// Lets membership queries be answered from one formula per bounds, kept in a SAT
    /// solver ([`super::formula`]), for words over an alphabet of `letters` letters.
    pub fn with_kept_formulas(mut self, letters: usize) -> GotoProgram {
        self.letters = Some(letters);
        self
    }

    /// Counts this program's CBMC runs into `counters`, e.g. one shared by all versions.
    pub fn with_counters(mut self, counters: Arc<CbmcCounters>) -> GotoProgram {
        self.counters = counters;
        self
    }

    pub fn entry(&self) -> &str {
        &self.entry
    }

    pub fn counters(&self) -> &Arc<CbmcCounters> {
        &self.counters
    }

    /// Whether each word is the event word of an execution within `bounds` (Fig. 7 of the
    /// paper, batched): one CBMC run answers all words that need one. Words that do not
    /// end with `end`, contain it elsewhere, or are longer than the bound are answered
    /// "no" without CBMC (the paper's pre-checks; Eqn. (4)).
    pub fn membership(
        &self,
        words: &[Word],
        bounds: Bounds,
        end: Letter,
        timeout: Option<Duration>,
    ) -> Result<Vec<bool>, CbmcRunError> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut answers = vec![false; words.len()];
        // Distinct candidate words, and for each the positions of the batch it answers.
        let mut asked: Vec<&[Letter]> = Vec::new();
        let mut positions: Vec<Vec<usize>> = Vec::new();
        let mut seen = HashMap::new();
        for (i, w) in words.iter().enumerate() {
            if !is_explanation_word(w, end) || w.len() > bounds.max_word_length {
                continue;
            }
            let j = *seen.entry(w.as_slice()).or_insert_with(|| {
                asked.push(w);
                positions.push(Vec::new());
                asked.len() - 1
            });
            positions[j].push(i);
        }
        if asked.is_empty() {
            return Ok(answers);
        }
        let replies = match self.answers_from_formula(&asked, bounds, end, deadline, timeout)? {
            Some(replies) => replies,
            None => {
                let source = harness::membership(&asked, end, bounds.max_word_length);
                let what = || describe_words(&asked);
                // Membership reads no trace, so the formula may drop every assignment the
                // assertions do not depend on (about 10% less CPU on batches of 50-500
                // words).
                let started = Instant::now();
                let report = self.check(
                    &source,
                    &["--slice-formula"],
                    bounds,
                    deadline,
                    timeout,
                    what,
                )?;
                self.note_cbmc_query(bounds, started.elapsed());
                word_answers(&report, positions.len())?
            }
        };
        for (at, fails) in positions.iter().zip(replies) {
            for &i in at {
                answers[i] = fails;
            }
        }
        Ok(answers)
    }

    /// Whether `hypothesis` (over the program's alphabet, whose letter `end` ends every
    /// word) agrees with the program within `bounds` (Fig. 9 and Fig. 11 of the paper); if
    /// not, a word on which they differ. `known_words` are words known to be in the
    /// language; the trap of Fig. 11 never reports them.
    ///
    /// Positive feedback is the word of a real execution, so it is exact. Negative feedback
    /// from the trap is a word the hypothesis accepts and that is not known; such a word
    /// could still be the word of an execution the trap did not take, so it is confirmed by
    /// a membership query before it is returned, together with the first
    /// [`VERIFY_BATCH`]` - 1` other accepted words not known (in length-lexicographic
    /// order), which costs the same single CBMC run. Any of them that is not in the
    /// language is the feedback; if all are, they join the known words for another round.
    /// An accepted word with `end` misplaced or missing is negative feedback without CBMC.
    ///
    /// `None` means: no difference within the bounds that these harnesses can see. Per
    /// Theorem 4.1 that covers every word of an execution; an accepted word that no
    /// execution has is only caught if a prefix of it reaches an exit point, or if it is
    /// among the words checked with a trap candidate (see `harness::conjecture`).
    pub fn conjecture(
        &self,
        hypothesis: &Dfa,
        bounds: Bounds,
        end: Letter,
        known_words: &[Word],
        timeout: Option<Duration>,
    ) -> Result<Option<Feedback>, CbmcRunError> {
        self.conjecture_and_membership(hypothesis, bounds, end, known_words, &[], timeout)
            .map(|(feedback, _)| feedback)
    }

    /// [`GotoProgram::conjecture`], and the membership query of `words` in the same CBMC
    /// run (the harness of the conjecture query holds one assertion per word, as
    /// [`GotoProgram::membership`]'s does): lazy learning's check of its guesses and the
    /// conjecture they support cost one run instead of two. Every word must end with `end`,
    /// contain it nowhere else and be within the length bound.
    pub fn conjecture_and_membership(
        &self,
        hypothesis: &Dfa,
        bounds: Bounds,
        end: Letter,
        known_words: &[Word],
        words: &[Word],
        timeout: Option<Duration>,
    ) -> Result<Answers, CbmcRunError> {
        let alphabet = hypothesis.alphabet();
        assert!(
            (end as usize) < alphabet.len(),
            "end is a letter of the hypothesis"
        );
        let max_len = bounds.max_word_length;
        debug_assert!(
            words
                .iter()
                .all(|w| is_explanation_word(w, end) && w.len() <= max_len)
        );
        let early = match misshapen_accepted_word(hypothesis, end, max_len) {
            Some(word) => Some(Some(Feedback {
                word,
                positive: false,
            })),
            None if max_len == 0 => Some(None),
            None => None,
        };
        if let Some(feedback) = early {
            return Ok((feedback, self.membership(words, bounds, end, timeout)?));
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        let asked: Vec<&[Letter]> = words.iter().map(Vec::as_slice).collect();
        if let Some(answers) =
            self.conjecture_from_formula(hypothesis, &asked, bounds, end, deadline, timeout)?
        {
            return Ok(answers);
        }
        let what = || format!("a conjecture with {} states", hypothesis.num_states());
        let hypothesis_table = Table::new(hypothesis);
        let mut known = known_words.to_vec();
        let mut answers: Option<Vec<bool>> = None;
        loop {
            // The known words as a minimal automaton rather than a list: the harness
            // tracks its state at every event, and CBMC's cost grows with table sizes.
            let unknown = ops::difference(
                hypothesis,
                &crate::automaton::ops::from_words(alphabet, &known),
            );
            // The words ride along on the first run only.
            let batch = if answers.is_none() { &asked[..] } else { &[] };
            let source = harness::conjecture(
                &hypothesis_table,
                &Table::new(&unknown),
                end,
                max_len,
                batch,
            );
            // No --slice-formula here: it drops the copy of the feedback word from the trace.
            // A harness whose properties name the copy keeps it in the slice, and each query
            // then costs a third less CPU, but CBMC returns other counterexamples and the
            // learner needs more rounds (the paper's merge_sort 8 -> 12 runs, Docking 5 -> 8,
            // more CPU on every program measured: benches/paper.md), so it was dropped.
            let started = Instant::now();
            let report = self.check(&source, &["--trace"], bounds, deadline, timeout, what)?;
            self.note_cbmc_query(bounds, started.elapsed());
            check_contract(&report, end, alphabet.len())?;
            if answers.is_none() {
                answers = Some(word_answers(&report, batch.len())?);
            }
            let done = |feedback| Ok((feedback, answers.clone().unwrap_or_default()));
            let positive = report.property(harness::POSITIVE_PROPERTY)?;
            if positive.status == Status::Fails {
                return done(Some(Feedback {
                    word: witness(positive, max_len)?,
                    positive: true,
                }));
            }
            let negative = report.property(harness::NEGATIVE_PROPERTY)?;
            if negative.status == Status::Holds {
                return done(None);
            }
            let exit_prefix = witness(negative, max_len)?;
            let candidate =
                complete(&unknown, &exit_prefix, end, max_len).ok_or_else(|| CbmcRunError::Json {
                    reason: format!(
                        "the trap fired after {exit_prefix:?}, which no unknown accepted word extends"
                    ),
                })?;
            let mut batch = vec![candidate.clone()];
            batch.extend(
                first_words(&unknown, max_len, VERIFY_BATCH)
                    .into_iter()
                    .filter(|w| *w != candidate)
                    .take(VERIFY_BATCH - 1),
            );
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            let members = self.membership(&batch, bounds, end, left)?;
            if let Some(i) = members.iter().position(|&m| !m) {
                return done(Some(Feedback {
                    word: batch.swap_remove(i),
                    positive: false,
                }));
            }
            known.extend(batch);
        }
    }

    /// [`GotoProgram::membership`] of `words` and, in the same run, the positive half of a
    /// conjecture query (Fig. 9) for `over`, an automaton meant to over-approximate the
    /// language (the pre-check's): the word of an execution within the bounds that `over`
    /// rejects, if there is one. Every word must end with `end`, contain it nowhere else
    /// and be within the length bound.
    pub fn membership_within(
        &self,
        words: &[Word],
        over: &Dfa,
        bounds: Bounds,
        end: Letter,
        timeout: Option<Duration>,
    ) -> Result<(Vec<bool>, Option<Word>), CbmcRunError> {
        let max_len = bounds.max_word_length;
        debug_assert!(
            words
                .iter()
                .all(|w| is_explanation_word(w, end) && w.len() <= max_len)
        );
        if max_len == 0 {
            return Ok((vec![false; words.len()], None));
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        let asked: Vec<&[Letter]> = words.iter().map(Vec::as_slice).collect();
        // No unknown words: the trap of Fig. 11 stays shut.
        let nothing = Dfa::new(over.alphabet().clone());
        let source = harness::conjecture(
            &Table::new(over),
            &Table::new(&nothing),
            end,
            max_len,
            &asked,
        );
        let what = || describe_words(&asked);
        // Without a trace and with a sliced formula, as membership queries run: a trace
        // makes CBMC keep every assignment (three times the run on a 2,000-line program).
        // The rare run whose check fails is repeated with a trace, for the witness.
        let report = self.check(
            &source,
            &["--slice-formula"],
            bounds,
            deadline,
            timeout,
            what,
        )?;
        check_contract(&report, end, over.alphabet().len())?;
        let answers = word_answers(&report, asked.len())?;
        if report.property(harness::POSITIVE_PROPERTY)?.status == Status::Holds {
            return Ok((answers, None));
        }
        let traced = self.check(&source, &["--trace"], bounds, deadline, timeout, what)?;
        let positive = traced.property(harness::POSITIVE_PROPERTY)?;
        Ok((answers, Some(witness(positive, max_len)?)))
    }

    /// Links `source` with the program and runs CBMC on it.
    fn check(
        &self,
        source: &str,
        options: &[&str],
        bounds: Bounds,
        deadline: Option<Instant>,
        timeout: Option<Duration>,
        what: impl FnOnce() -> String,
    ) -> Result<Report, CbmcRunError> {
        self.check_output(source, options, bounds, deadline, timeout, what)
            .map(|(report, _)| report)
    }

    /// A concrete execution with the event word `word` (ending with the end letter) within
    /// `bounds`, as CBMC's `--json-ui` trace of the failed property: `None` if there is none.
    /// Sec. 7.3 of the paper: the debug trace a user replays.
    pub fn word_trace(
        &self,
        word: &[Letter],
        bounds: Bounds,
        end: Letter,
        timeout: Option<Duration>,
    ) -> Result<Option<serde_json::Value>, CbmcRunError> {
        if !is_explanation_word(word, end) || word.len() > bounds.max_word_length {
            return Ok(None);
        }
        let deadline = timeout.map(|t| Instant::now() + t);
        let source = harness::membership(&[word], end, bounds.max_word_length);
        let (_, stdout) =
            self.check_output(&source, &["--trace"], bounds, deadline, timeout, || {
                describe_words(&[word])
            })?;
        let property = harness::word_property(0);
        Ok(json::raw_trace(&stdout, &property))
    }

    pub(super) fn check_output(
        &self,
        source: &str,
        options: &[&str],
        bounds: Bounds,
        deadline: Option<Instant>,
        timeout: Option<Duration>,
        what: impl FnOnce() -> String,
    ) -> Result<(Report, Vec<u8>), CbmcRunError> {
        // A run of unwinding assertions reports the loops the usual bound cuts.
        let library_unwind = if options.contains(&"--unwinding-assertions") {
            self.library_unwind
        } else {
            self.fitted_library_unwind(bounds, deadline, timeout)?
        };
        let at = (bounds, library_unwind);
        self.check_output_at(source, options, at, (deadline, timeout), what)
    }

    /// [`GotoProgram::check_output`] with the library's loops unwound `library_unwind`
    /// times.
    pub(super) fn check_output_at(
        &self,
        source: &str,
        options: &[&str],
        (bounds, library_unwind): (Bounds, u32),
        (deadline, timeout): (Option<Instant>, Option<Duration>),
        what: impl FnOnce() -> String,
    ) -> Result<(Report, Vec<u8>), CbmcRunError> {
        let timed_out = || {
            run::unanswered(CbmcRunError::Timeout {
                what: what(),
                unwind: bounds.unwind,
                max_word_length: bounds.max_word_length,
                seconds: timeout.unwrap_or_default().as_secs_f64(),
            })
        };
        let (query, harness_c) = write_harness(self.dir.path(), source)?;
        // With a remote engine, a harness path that is the same in every run (see
        // `remote_run::stable_harness`), so that its action can come from the cache.
        let stable = crate::remote::current()
            .and_then(|_| super::remote_run::stable_harness(source, HARNESS_FILE));
        let harness_c = stable.as_ref().map_or(harness_c, |(_, path)| path.clone());
        let linked = query.path().join("query.gb");
        let mut link = Command::new(&self.tools.goto_cc);
        link.arg(&harness_c)
            .arg(&self.binary)
            .arg("-o")
            .arg(&linked);
        // goto-cc records its working directory too: the stable one, not this process's.
        if let Some(dir) = stable.as_ref().and_then(|(_, path)| path.parent()) {
            link.current_dir(dir);
        }
        if !goto_cc(link, deadline)? {
            return Err(timed_out());
        }
        drop(stable); // only the link reads it: another query of the same text may go on

        let library_loops = self.library_loops(deadline)?;
        // A run that asks for unwinding assertions (see `reach`) keeps them.
        let keep_unwinding = options.contains(&"--unwinding-assertions");
        loop {
            let mut cmd = Command::new(&self.tools.cbmc);
            cmd.arg(&linked).arg("--json-ui").args(options);
            if self.entry != DEFAULT_ENTRY {
                cmd.arg("--function").arg(&self.entry);
            }
            cmd.args(unwinding(
                bounds.unwind,
                &self.recursive,
                library_loops,
                library_unwind,
            ));
            cmd.args(
                common_options(&self.tools)
                    .into_iter()
                    .filter(|o| !(keep_unwinding && *o == "--no-unwinding-assertions")),
            );
            // Every property a query reads is the harness's (or an unwinding assertion);
            // the library models' own (`free`'s preconditions at each call through a
            // pointer, "no body for callee") only make the formula bigger. On parson's
            // parser they were 4,350 of 4,374 goals, and the run took 35 s instead of more
            // than 300.
            cmd.arg("--no-built-in-assertions");
            // Arrays as arrays, not element by element (CBMC's field sensitivity): a third
            // less CPU on a membership batch of `schedule`. Only where no trace is read (a
            // sliced run): on a conjecture query it changes which counterexample CBMC
            // gives, which cost `merge_sort` five more runs than it saved.
            if self.tools.version.major >= 6 && options.contains(&"--slice-formula") {
                cmd.arg("--no-array-field-sensitivity");
            }
            let bits = self.object_bits();
            if let Some(bits) = bits {
                cmd.arg("--object-bits").arg(bits.to_string());
            }
            keep_queries::keep(&[&linked], &cmd);
            let finished = match run::run_declared(cmd, &[&linked], deadline, Some(&self.counters))?
            {
                Outcome::Finished(f) => f,
                Outcome::TimedOut => return Err(timed_out()),
            };
            // 0: every property holds; 10: some fails. Anything else is an error, which
            // CBMC explains in its JSON if it got that far.
            let code = finished.status.code();
            return match (code, json::parse(&finished.stdout)) {
                (Some(0 | 10), Ok(report)) if report.errors.is_empty() => {
                    Ok((report, finished.stdout))
                }
                (_, Ok(report)) if !report.errors.is_empty() => {
                    // A limit of CBMC's own with a known remedy: raise it and ask again.
                    if let Some(more) = more_object_bits(&report.errors, bits) {
                        self.object_bits.store(more, Ordering::Relaxed);
                        continue;
                    }
                    Err(CbmcRunError::Cbmc {
                        message: report.errors.join("; "),
                    })
                }
                (Some(0 | 10), Err(e)) => Err(e),
                _ => Err(CbmcRunError::Crashed {
                    tool: "cbmc",
                    status: describe_status(finished.status),
                    stderr_tail: run::tail(&finished.stderr, 3),
                }),
            };
        }
    }

    /// The `--object-bits` every run of this program needs, when CBMC's default (8: 256
    /// objects whose address is taken) was too few.
    pub fn object_bits(&self) -> Option<u32> {
        match self.object_bits.load(Ordering::Relaxed) {
            0 => None,
            bits => Some(bits),
        }
    }
}

/// The object bits to retry with when CBMC says the program has "too many addressed
/// objects" (it names the `n` it used); `None` for any other error, or past the most a
/// 64-bit pointer leaves for offsets that still fit the programs mergelens learns.
pub(super) fn more_object_bits(errors: &[String], current: Option<u32>) -> Option<u32> {
    const MAX_OBJECT_BITS: u32 = 24;
    let error = errors
        .iter()
        .find(|e| e.contains("too many addressed objects"))?;
    let used = error
        .split("with n=")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse::<u32>().ok())
        .or(current)
        .unwrap_or(8);
    let more = used + 4;
    (more <= MAX_OBJECT_BITS).then_some(more)
}

/// The event hook's contract (a letter of the alphabet, never `end`), as the harness of a
/// conjecture query checks it.
fn check_contract(report: &Report, end: Letter, letters: usize) -> Result<(), CbmcRunError> {
    if report.property(harness::CONTRACT_PROPERTY)?.status == Status::Fails {
        return Err(CbmcRunError::Contract {
            message: format!(
                "an event letter is end ({end}) or not below {letters} (the alphabet's size)"
            ),
        });
    }
    Ok(())
}

/// The answers to the first `n` words of a harness: word `i` is the word of an execution
/// iff its assertion ([`harness::word_property`]) fails.
fn word_answers(report: &Report, n: usize) -> Result<Vec<bool>, CbmcRunError> {
    (0..n)
        .map(|i| Ok(report.property(&harness::word_property(i))?.status == Status::Fails))
        .collect()
}

/// The options every CBMC run on a program takes. CBMC 6 turned these checks on by default.
/// Unwinding assertions would report the bound itself; the checks only add assertions that
/// no query reads (CBMC does not assume an assertion after checking it, so dropping them
/// blocks no path). Malloc failure stays on unless the user turned it off
/// ([`Allocations::Succeed`]): it is a behaviour of the program.
pub(crate) fn common_options(tools: &Toolchain) -> Vec<&'static str> {
    if tools.version.major < 6 {
        return Vec::new();
    }
    let mut options = vec![
        "--no-unwinding-assertions",
        "--no-bounds-check",
        "--no-pointer-check",
        "--no-pointer-primitive-check",
        "--no-div-by-zero-check",
        "--no-signed-overflow-check",
        "--no-undefined-shift-check",
    ];
    if tools.allocations == Allocations::Succeed {
        options.push("--no-malloc-may-fail");
    }
    // MiniSat's simplifier (variable elimination before the search) costs more than it
    // saves on the formulas of a library's fixed-size buffers, which CBMC flattens into
    // bits: on inih's 200-byte line it took the solver from 3 s to 11 s of a 2M-clause
    // query (benches/libraries.md). The formula and its satisfiability are the same, so
    // every answer is; only which counterexample the solver finds may differ.
    options.push("--no-sat-preprocessor");
    options
}

/// The name of a query's harness in its directory ([`write_harness`]).
pub(crate) const HARNESS_FILE: &str = "harness.c";

/// Writes a query's harness `source` as `harness.c` in a directory of its own under
/// `parent`, which the returned guard removes.
pub(crate) fn write_harness(
    parent: &Path,
    source: &str,
) -> Result<(TempDir, PathBuf), CbmcRunError> {
    let query = tempfile::Builder::new()
        .prefix("query-")
        .tempdir_in(parent)
        .map_err(CbmcRunError::io(parent))?;
    let harness_c = query.path().join(HARNESS_FILE);
    std::fs::write(&harness_c, source).map_err(CbmcRunError::io(&harness_c))?;
    Ok((query, harness_c))
}

/// Runs goto-cc; `Ok(false)` if it timed out.
pub(super) fn goto_cc(cmd: Command, deadline: Option<Instant>) -> Result<bool, CbmcRunError> {
    let finished = match run::run(cmd, "goto-cc", deadline, None)? {
        Outcome::Finished(f) => f,
        Outcome::TimedOut => return Ok(false),
    };
    if finished.status.success() {
        return Ok(true);
    }
    let mut output = finished.stderr;
    output.extend_from_slice(&finished.stdout);
    let text = String::from_utf8_lossy(&output);
    if let Some(error) = text.lines().find_map(located_error) {
        return Err(error);
    }
    Err(CbmcRunError::GotoCc {
        status: describe_status(finished.status),
        message: run::tail(&output, 3),
    })
}

/// A diagnostic line `file:line[:column]: error: message`, as goto-cc prints them.
fn located_error(line: &str) -> Option<CbmcRunError> {
    let (position, message) = line.split_once(": error: ")?;
    let mut parts = position.rsplitn(3, ':');
    let last = parts.next()?;
    let (file, line_no) = match (parts.next(), parts.next()) {
        (Some(l), Some(f)) if l.parse::<u32>().is_ok() && last.parse::<u32>().is_ok() => (f, l),
        (Some(f), _) if last.parse::<u32>().is_ok() => (f, last),
        _ => return None,
    };
    Some(CbmcRunError::Compile {
        file: file.to_string(),
        line: line_no.parse().ok()?,
        message: message.trim().to_string(),
    })
}

pub(super) fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        (None, None) => status.to_string(),
    }
}

/// The word a failed conjecture property copied into the witness array.
fn witness(property: &json::PropertyResult, max_len: usize) -> Result<Word, CbmcRunError> {
    let missing = |what: &str| CbmcRunError::Json {
        reason: format!(
            "the trace of \"{}\" lacks the {what} of the feedback word",
            property.description
        ),
    };
    let len = property
        .last_value(harness::WITNESS_LEN)
        .and_then(|n| usize::try_from(n).ok())
        .filter(|&n| n <= max_len)
        .ok_or_else(|| missing("length"))?;
    let letters = property
        .last_array(harness::WITNESS, len)
        .ok_or_else(|| missing("letters"))?;
    letters
        .into_iter()
        .map(|a| Letter::try_from(a).map_err(|_| missing("letters")))
        .collect()
}

/// A short description of a batch for a timeout message: its size and first words.
fn describe_words(words: &[&[Letter]]) -> String {
    const SHOWN: usize = 3;
    let shown: Vec<String> = words
        .iter()
        .take(SHOWN)
        .map(|w| {
            let letters: Vec<String> = w.iter().map(Letter::to_string).collect();
            format!("[{}]", letters.join(" "))
        })
        .collect();
    let more = if words.len() > SHOWN { ", ..." } else { "" };
    format!(
        "a membership query of {} word(s) {}{more}",
        words.len(),
        shown.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_addressed_objects_raise_the_object_bits_up_to_a_limit() {
        let said = |n: u32| {
            vec![format!(
                "too many addressed objects: maximum number of objects is set to 2^n={} (with n={n}); use the `--object-bits n` option to increase the maximum number",
                1u64 << n
            )]
        };
        assert_eq!(more_object_bits(&said(8), None), Some(12));
        assert_eq!(more_object_bits(&said(12), Some(12)), Some(16));
        assert_eq!(more_object_bits(&said(24), Some(24)), None);
        assert_eq!(more_object_bits(&["another error".to_string()], None), None);
    }

    #[test]
    fn reads_goto_cc_positions() {
        let e = located_error("src/orig.c:13:1: error: syntax error before '{'").unwrap();
        assert_eq!(e.to_string(), "src/orig.c:13: syntax error before '{'");
        let e = located_error("a b.c:7: error: failed to find symbol 'x'").unwrap();
        assert!(matches!(e, CbmcRunError::Compile { line: 7, .. }), "{e}");
        assert!(located_error("PARSING ERROR").is_none());
        assert!(located_error("w2.c:1:1: warning: something").is_none());
    }
}
