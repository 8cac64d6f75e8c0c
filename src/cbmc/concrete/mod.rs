//! Concrete runs, the second teacher: a program version compiled once with gcc, with the
//! instrumentation the CBMC teacher uses, and run on inputs drawn from a seeded generator.
//!
//! Key types: [`ConcreteProgram`] (built by [`ConcreteProgram::build`], sampled by
//! [`ConcreteProgram::sample`]), [`Sample`] (one run's word and the smallest `--unwind` it
//! is within) and [`ConcreteError`].
//!
//! The idea is the sampling teacher of the Pac-Man tool (PAC learning of feasible decision
//! vectors, with concrete and concolic sampling): a word some run prints is the word of an
//! execution, so within the bounds it is in the language and needs no CBMC run. The
//! instrumented copy is the front end's with [`crate::cprog::FrontEndConfig::share_inputs`]
//! on, so that every input CBMC would choose (uninitialised locals, body-less functions,
//! the entry harness's arguments, `main`'s `argc`/`argv`) is a read of an input stream,
//! which the runtime (`runtime`) fills from its generator; `nondet_*` functions get bodies
//! that do the same, loops report their iterations and functions their recursion
//! ([`crate::cprog::concrete_text`]). A program gcc cannot compile or link that way (a
//! body-less `void` function, a `nondet_*` returning a pointer, a `goto`) gets no concrete
//! runs: [`ConcreteProgram::build`] says why, and learning goes on with CBMC alone.
//!
//! A run counts only if it ends where the membership harness accepts a word (the entry
//! returns, or in error mode the target assertion fails); anything else (an exit, a failed
//! assumption, a crash, a timeout, a runaway loop) is discarded. The words are yes-answers
//! only where gcc and CBMC agree on what the program does; the CBMC teacher checks every
//! word it relies on at the end (see `crate::cbmc::teacher`), so a disagreement is an error,
//! never a wrong result.

mod runtime;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use thiserror::Error;

use crate::automaton::{Letter, Word};
use crate::cprog::{ConcreteTextError, InstrumentedProgram, concrete_text};
use crate::failure::{FailureKind, HasKind};
use crate::process::{Ran, run_bounded};

/// The longest one concrete run may take.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(1);

/// Why a program gets no concrete runs.
#[derive(Debug, Error)]
pub enum ConcreteError {
    #[error("gcc or objcopy cannot be run")]
    NoCompiler(#[source] std::io::Error),
    #[error(transparent)]
    Text(#[from] ConcreteTextError),
    #[error("gcc could not compile {file} for concrete runs: {message}")]
    Compile { file: String, message: String },
    #[error("the program cannot be linked for concrete runs: {message}")]
    Link { message: String },
    #[error("the concrete instrumentation has other letters than the learned program")]
    Alphabet,
    /// The front end could not instrument the program a second time.
    #[error(transparent)]
    FrontEnd(#[from] crate::cprog::FrontEndError),
    #[error("{path}: cannot read or write")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl HasKind for ConcreteError {
    fn kind(&self) -> FailureKind {
        match self {
            ConcreteError::NoCompiler(_) => FailureKind::MissingTool,
            ConcreteError::Text(e) => e.kind(),
            ConcreteError::FrontEnd(e) => e.kind(),
            ConcreteError::Compile { .. } | ConcreteError::Link { .. } => FailureKind::BadInput,
            ConcreteError::Alphabet | ConcreteError::Io { .. } => FailureKind::Failed,
        }
    }
}

/// One accepted concrete run.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sample {
    /// The event word, `end` (or `assert`) last.
    pub word: Word,
    /// The smallest `--unwind` (the user's, not CBMC's) the run is within.
    pub unwind: u32,
}

/// What a batch of runs gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sampled {
    pub samples: Vec<Sample>,
    pub runs: u64,
    /// Runs that gave no word: an exit, a failed assumption, a crash, a timeout.
    pub discarded: u64,
}

/// A program version compiled for concrete runs.
#[derive(Debug)]
pub struct ConcreteProgram {
    binary: PathBuf,
    /// Holds the binary and the runs' output files.
    dir: tempfile::TempDir,
    letters: usize,
    end: Letter,
}

/// The compiler of concrete runs (also used to link them).
fn gcc() -> Command {
    Command::new("gcc")
}

impl ConcreteProgram {
    /// Compiles `concrete`, the front end's copy of `learned` with shared inputs, with gcc;
    /// `Err` says why the program gets no concrete runs.
    pub fn build(
        learned: &InstrumentedProgram,
        concrete: &InstrumentedProgram,
    ) -> Result<ConcreteProgram, ConcreteError> {
        let names =
            |p: &InstrumentedProgram| p.alphabet.names().map(str::to_string).collect::<Vec<_>>();
        if names(learned) != names(concrete) || learned.end != concrete.end {
            return Err(ConcreteError::Alphabet);
        }
        let dir = scratch_dir()?;
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ConcreteError::Io { path, source }
        };
        let mut given = BTreeSet::new();
        let mut keys = BTreeSet::new();
        let mut objects = Vec::new();
        let mut bool_bytes = false;
        let mut void_functions = BTreeSet::new();
        let mut declared = BTreeSet::new();
        for (i, path) in concrete.paths.iter().enumerate() {
            let text = std::fs::read_to_string(path).map_err(io(path))?;
            let ready = concrete_text(&text, &mut given)?;
            bool_bytes |= ready.text.contains("_Bool");
            keys.extend(ready.input_keys);
            void_functions.extend(ready.void_functions);
            declared.extend(ready.declared_functions);
            let source = dir.path().join(format!("unit{i}.i"));
            std::fs::write(&source, &ready.text).map_err(io(&source))?;
            let object = dir.path().join(format!("unit{i}.o"));
            let mut cmd = gcc();
            cmd.args(["-c", "-O0", "-w", "-fwrapv", "-fno-strict-aliasing"])
                .arg("-finstrument-functions")
                .args(["-x", "cpp-output"])
                .arg(&source)
                .arg("-o")
                .arg(&object);
            run_tool(cmd, || path.display().to_string())?;
            let mut rename = Command::new("objcopy");
            rename
                .arg(format!("--redefine-sym=main={}", runtime::USER_MAIN))
                .arg(&object);
            run_tool(rename, || path.display().to_string())?;
            objects.push(object);
        }
        let keys: Vec<String> = keys.into_iter().collect();
        let mut text = runtime::runtime(concrete.end, &keys, &concrete.cbmc_entry, bool_bytes);
        let source = dir.path().join("runtime.c");
        let binary = dir.path().join("program");
        let link = |text: &str| -> Result<(), ConcreteError> {
            std::fs::write(&source, text).map_err(io(&source))?;
            let mut cmd = gcc();
            cmd.args(["-O0", "-w"])
                .arg(&source)
                .args(&objects)
                .arg("-o")
                .arg(&binary)
                .arg("-lm");
            run_tool(cmd, String::new).map_err(|e| match e {
                ConcreteError::Compile { message, .. } => ConcreteError::Link { message },
                other => other,
            })
        };
        if let Err(ConcreteError::Link { message }) = link(&text) {
            // What CBMC makes of a body-less function, when such functions are all the
            // linker misses: a declared `void` one does nothing; one called without any
            // declaration (implicitly `int`) returns any `int`.
            let missing = undefined(&message);
            if missing.is_empty()
                || !missing
                    .iter()
                    .all(|f| void_functions.contains(f) || !declared.contains(f))
            {
                return Err(ConcreteError::Link { message });
            }
            for f in missing {
                if void_functions.contains(&f) {
                    text.push_str(&format!("void {f}() {{}}\n"));
                } else {
                    text.push_str(&format!(
                        "int {f}() {{ return (int)__mergelens_nondet(0, 0); }}\n"
                    ));
                }
            }
            link(&text)?;
        }
        Ok(ConcreteProgram {
            binary,
            dir,
            letters: concrete.alphabet.len(),
            end: concrete.end,
        })
    }

    /// Runs the program once per seed of `seeds`, each for at most [`RUN_TIMEOUT`], and
    /// keeps the words of the runs that ended a word, without repeats. Stops early at a
    /// stop request (Ctrl-C, the time budget) or once `deadline` has passed.
    pub fn sample(&self, seeds: std::ops::Range<u64>, deadline: Option<Instant>) -> Sampled {
        let mut out = Sampled::default();
        let mut seen = BTreeSet::new();
        let output = self.dir.path().join("word");
        for seed in seeds {
            if crate::stop::stop_reason().is_some() || deadline.is_some_and(|d| Instant::now() >= d)
            {
                break;
            }
            out.runs += 1;
            match self.run_once(seed, &output) {
                Some(sample) => {
                    if seen.insert(sample.clone()) {
                        out.samples.push(sample);
                    }
                }
                None => out.discarded += 1,
            }
        }
        out
    }

    fn run_once(&self, seed: u64, output: &Path) -> Option<Sample> {
        let _ = std::fs::remove_file(output);
        let mut cmd = Command::new(&self.binary);
        cmd.env(runtime::SEED_VAR, seed.to_string())
            .env(runtime::OUT_VAR, output)
            .current_dir(self.dir.path());
        let ran = run_bounded(cmd, Some(Instant::now() + RUN_TIMEOUT), 1 << 20).ok()?;
        match ran {
            Ran::Finished { status, .. } if status.success() => {}
            _ => return None,
        }
        let text = std::fs::read_to_string(output).ok()?;
        self.parse(&text)
    }

    /// The runtime's line `unwind letter...`; `None` for a word that breaks the hooks'
    /// contract (a letter outside the alphabet, `end` before the last).
    fn parse(&self, line: &str) -> Option<Sample> {
        let mut numbers = line.split_whitespace().map(str::parse::<u64>);
        let unwind = u32::try_from(numbers.next()?.ok()?).ok()?;
        let word: Word = numbers
            .map(|n| n.ok().and_then(|n| Letter::try_from(n).ok()))
            .collect::<Option<Word>>()?;
        let (last, events) = word.split_last()?;
        let valid = *last == self.end
            && events
                .iter()
                .all(|&a| a != self.end && (a as usize) < self.letters);
        valid.then_some(Sample { word, unwind })
    }
}

/// A new temporary directory for the files of concrete runs.
pub fn scratch_dir() -> Result<tempfile::TempDir, ConcreteError> {
    tempfile::Builder::new()
        .prefix("mergelens-concrete-")
        .tempdir()
        .map_err(|source| ConcreteError::Io {
            path: std::env::temp_dir(),
            source,
        })
}

/// The symbols a linker's message says are undefined.
fn undefined(message: &str) -> BTreeSet<String> {
    message
        .split("undefined reference to `")
        .skip(1)
        .filter_map(|rest| rest.split('\'').next())
        .map(str::to_string)
        .collect()
}

/// Runs gcc or objcopy; a failure becomes [`ConcreteError::Compile`] with its first lines.
fn run_tool(cmd: Command, file: impl FnOnce() -> String) -> Result<(), ConcreteError> {
    let ran = run_bounded(cmd, crate::process::tool_deadline(), 1 << 20)
        .map_err(ConcreteError::NoCompiler)?;
    let message = match ran {
        Ran::Finished { status, .. } if status.success() => return Ok(()),
        Ran::Finished { stderr, .. } => String::from_utf8_lossy(&stderr)
            .lines()
            .filter(|l| l.contains("error") || l.contains("undefined"))
            .take(20)
            .collect::<Vec<_>>()
            .join("; "),
        other => format!("{other:?}"),
    };
    Err(ConcreteError::Compile {
        file: file(),
        message,
    })
}

#[cfg(test)]
mod tests;
