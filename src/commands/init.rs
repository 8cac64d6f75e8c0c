//! `mergelens init`: from zero to a first review in one command.
//!
//! Key types: [`InitArgs`] and [`run`]. In the repository of the current directory it
//!
//! 1. finds the program: the files `--files` names, else a `compile_commands.json` at the
//!    root or in `build/`, else the C files committed on `HEAD` (the work tree's when there
//!    is no commit yet) outside test, example, benchmark and fuzzing code; a file gcc cannot
//!    preprocess is left out, and every file left out is listed with the reason;
//! 2. lists candidate entry functions: `main`, and the functions that are not `static` and
//!    that no other analysed function calls (each with its parameters);
//! 3. writes a commented `.mergelens.toml` (never over an existing one without `--force`)
//!    and, with `--harness-for F`, a harness `mergelens-harness.c` that calls F on
//!    nondeterministic input: the generated entry harness a review would use, from the same
//!    generator, with readable names;
//! 4. learns the chosen entry once at small bounds (`--unwind 1 --max-word-length 6`, within
//!    `--time-budget`) and prints the alphabet, the time taken and a suggested bound.
//!
//! It writes those two files and nothing else: not the index, not a ref, no commit. The
//! work is [`mergelens::setup`]; this command checks its arguments, prints what was found
//! and writes the files.

use std::path::Path;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use super::Outcome;
use super::program::Watch;
use super::review::UsageError;
use mergelens::config::FILE_NAME;
use mergelens::cprog::EventKind;
use mergelens::git::GitRepo;
use mergelens::git::paths::shown_relative;
use mergelens::setup::ladder::{Step, climb, toolchain};
use mergelens::setup::{
    HARNESS_FILE, LeftOut, Program, SetupError, config_text, find_program, first_program,
    front_end, skeleton,
};

/// Files left out listed at most.
const LISTED: usize = 10;

/// The options of `mergelens init`.
#[derive(Clone, Debug, Default)]
pub struct InitArgs {
    /// Overwrite an existing `.mergelens.toml` (and harness skeleton).
    pub force: bool,
    /// Write a harness skeleton calling this function, and make it the entry.
    pub harness_for: Option<String>,
    /// The entry to learn and configure (default: `main`, else the first candidate).
    pub entry: Option<String>,
    /// The first learning run's budget.
    pub time_budget: Duration,
    /// Write the files only; do not learn.
    pub no_learn: bool,
    pub cbmc: Option<PathBuf>,
    /// `--files`: repository-relative globs of the C files to analyse.
    pub files: Vec<String>,
    /// `--verbose`: every front-end warning, not their count.
    pub verbose: bool,
}

/// Writes the configuration (and harness), then learns once; see the module documentation.
pub fn run(args: &InitArgs) -> anyhow::Result<Outcome> {
    let repo = GitRepo::from_env()?;
    let root = repo.root().to_path_buf();
    let config_path = root.join(FILE_NAME);
    let harness_path = root.join(HARNESS_FILE);
    for (path, wanted) in [
        (&config_path, true),
        (&harness_path, args.harness_for.is_some()),
    ] {
        if wanted && path.exists() && !args.force {
            anyhow::bail!(UsageError(format!(
                "{} exists; mergelens init does not overwrite it (pass --force to replace it)",
                path.display()
            )));
        }
    }
    let program = find_program(&repo, &args.files, &mut |w| {
        errln!("mergelens: warning: {w}")
    })
    .map_err(plain)?;
    outln!(
        "mergelens init: {} C file{}{}",
        program.files.len(),
        if program.files.len() == 1 { "" } else { "s" },
        program
            .compile_commands
            .as_ref()
            .map_or(String::new(), |c| format!(" (from {c})"))
    );
    print_left_out(&program.left_out);
    outln!("candidate entry functions (most of the program reached first):");
    for c in &program.candidates {
        outln!(
            "  {}({})    {}:{}    reaches {} function(s)",
            c.name,
            c.parameters.join(", "),
            shown_relative(&c.file, &root),
            c.line,
            c.reaches
        );
    }
    let harness = match &args.harness_for {
        Some(f) => {
            let c = program
                .callable
                .iter()
                .find(|c| &c.name == f)
                .ok_or_else(|| {
                    UsageError(format!(
                        "--harness-for {f}: no analysed function `{f}` that is not static"
                    ))
                })?;
            let defines_main = program.callable.iter().any(|c| c.name == "main");
            let entry = if defines_main {
                "mergelens_harness"
            } else {
                "main"
            };
            let config = front_end(&program, &root, &c.name, EventKind::default());
            Some((
                skeleton::skeleton(&config, c, entry, &root)?,
                entry.to_string(),
            ))
        }
        None => None,
    };
    let entry = match (&harness, &args.entry) {
        (Some((_, e)), _) | (None, Some(e)) => e.clone(),
        (None, None) => program
            .candidates
            .first()
            .map(|c| c.name.clone())
            .ok_or_else(|| UsageError("no function to analyse: no C file defines one".into()))?,
    };
    std::fs::write(
        &config_path,
        config_text(&program, &entry, harness.is_some()),
    )
    .with_context(|| format!("cannot write {}", config_path.display()))?;
    outln!("wrote {FILE_NAME} (entry `{entry}`)");
    if let Some((text, _)) = &harness {
        std::fs::write(&harness_path, text)
            .with_context(|| format!("cannot write {}", harness_path.display()))?;
        outln!(
            "wrote {HARNESS_FILE}: a skeleton calling {} on nondeterministic input; edit it to bound the input as the library expects",
            args.harness_for.as_deref().unwrap_or_default()
        );
    }
    let commit = if harness.is_some() {
        format!("{FILE_NAME} {HARNESS_FILE}")
    } else {
        FILE_NAME.to_string()
    };
    if !args.no_learn {
        first_learning(args, &program, &root, &entry, harness.is_some())?;
    }
    outln!(
        "next: commit the configuration (git add {commit} && git commit), then: mergelens review BRANCH"
    );
    Ok(Outcome::Success)
}

/// The C files left out, each with the reason, at most [`LISTED`] of them.
fn print_left_out(left_out: &[LeftOut]) {
    if left_out.is_empty() {
        return;
    }
    outln!(
        "left out {} C file{} (name them with --files to analyse them):",
        left_out.len(),
        if left_out.len() == 1 { "" } else { "s" }
    );
    for (file, why) in left_out.iter().take(LISTED) {
        outln!("  {file}: {why}");
    }
    if left_out.len() > LISTED {
        outln!("  ... and {} more", left_out.len() - LISTED);
    }
}

/// `error`, with a usage error as the binary's own (exit code 2, its message as is).
fn plain(error: SetupError) -> anyhow::Error {
    match error {
        SetupError::Usage(message) => UsageError(message).into(),
        other => other.into(),
    }
}

/// Learns `entry` at the bounds of `init`'s ladder within the budget, and prints what it
/// found and the bound its measurements suggest.
fn first_learning(
    args: &InitArgs,
    program: &Program,
    root: &Path,
    entry: &str,
    harness: bool,
) -> anyhow::Result<()> {
    let (instrumented, _dir) = first_program(program, root, entry, harness)?;
    super::program::print_front_end_warnings(&instrumented.warnings, args.verbose);
    outln!(
        "alphabet of `{entry}` ({} letters): {}",
        instrumented.alphabet.len(),
        instrumented.alphabet.names().collect::<Vec<_>>().join(" ")
    );
    let tools = toolchain(args.cbmc.as_deref())?;
    super::anytime::start(Some(args.time_budget));
    let watch = Watch::new("init: learning");
    let budget = args.time_budget;
    let mut print = |step: &Step| print_step(step, entry, budget);
    let suggested = climb(
        (&instrumented, &tools),
        root,
        (entry, budget),
        &watch,
        &mut print,
    )?;
    outln!("{suggested}");
    Ok(())
}

/// The line that says how one learning of the ladder went.
fn print_step(step: &Step, entry: &str, budget: Duration) {
    outln!(
        "learned `{entry}` at --unwind {} --max-word-length {} in {:.1} s: {} states, {} CBMC runs{}",
        step.bounds.unwind,
        step.bounds.max_word_length,
        step.took.as_secs_f64(),
        step.states,
        step.cbmc_runs,
        if step.stopped {
            format!(
                " (PARTIAL: stopped by the time budget of {:.0} s, so its automaton is a conjecture)",
                budget.as_secs_f64()
            )
        } else if step.empty {
            " (empty: no execution returns within these bounds)".to_string()
        } else {
            String::new()
        }
    );
}
