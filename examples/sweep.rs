//! A sweep of real C code through the front end, run by hand (not a test: it needs sources
//! from outside the repository): which files of a library mergelens reads, and where its
//! parser stops where gcc does not.
//!
//! `cargo run --example sweep MANIFEST`, where the manifest has one file a line:
//! `path<TAB>-Idir -DNAME ...`. Each file is instrumented with an entry no file defines, so
//! a file the front end reads ends in "entry not defined", which comes after the syntax
//! check; its first function is then the entry of an instrumentation for calls and one for
//! branches, whose copies gcc must compile. Each line printed is
//! `path<TAB>verdict<TAB>message`: the verdict is `ok`, `gcc-E` (the preprocessor failed),
//! `parser` (mergelens's parser refused what gcc accepts), `gcc` (gcc rejects the file) or
//! `other`; the message says why, or for a file that was read what failed in instrumenting
//! or compiling it (empty: nothing).

use std::path::{Path, PathBuf};
use std::process::Command;

use mergelens::cprog::{EventKind, FrontEndConfig, FrontEndError, instrument};

const ABSENT: &str = "__mergelens_sweep_absent__";

fn main() {
    let Some(manifest) = std::env::args().nth(1) else {
        eprintln!("usage: cargo run --example sweep MANIFEST");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|e| {
        eprintln!("{manifest}: {e}");
        std::process::exit(2)
    });
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (file, options) = line.split_once('\t').unwrap_or((line, ""));
        let mut config = FrontEndConfig::new(vec![PathBuf::from(file)]);
        for option in options.split_whitespace() {
            match option.strip_prefix("-I") {
                Some(dir) => config.include_dirs.push(PathBuf::from(dir)),
                None => config
                    .defines
                    .push(option.trim_start_matches("-D").to_string()),
            }
        }
        let (verdict, message) = verdict(config, options);
        println!("{file}\t{verdict}\t{}", message.replace(['\n', '\t'], " "));
    }
}

fn verdict(mut config: FrontEndConfig, options: &str) -> (&'static str, String) {
    config.entry = ABSENT.to_string();
    let file = config.files[0].clone();
    match run(&config) {
        Err(FrontEndError::MissingEntry { defined, .. }) => match defined.first() {
            Some(entry) => {
                config.entry = entry.clone();
                // A file gcc itself does not compile with these options says nothing of
                // the instrumentation.
                match gcc_rejects(&file, options.split_whitespace()) {
                    Some(error) => ("ok", format!("gcc: {error}")),
                    None => ("ok", compiles(&config)),
                }
            }
            None => ("ok", String::new()),
        },
        Ok(_) => ("ok", String::new()),
        Err(FrontEndError::Preprocess { message, .. }) => ("gcc-E", message),
        Err(FrontEndError::SyntaxError { message, .. }) if message.contains("tree-sitter") => {
            ("parser", message)
        }
        Err(e @ FrontEndError::SyntaxError { .. }) => ("gcc", e.to_string()),
        Err(e) => ("other", e.to_string()),
    }
}

fn run(config: &FrontEndConfig) -> Result<mergelens::cprog::InstrumentedProgram, FrontEndError> {
    let out = tempfile::tempdir().map_err(|source| FrontEndError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    instrument(config, out.path())
}

/// gcc's first error on `path` (compiled as is, with `options`), if it has one.
fn gcc_rejects<'a>(path: &Path, options: impl Iterator<Item = &'a str>) -> Option<String> {
    let run = Command::new("gcc")
        .args(["-fsyntax-only", "-w"])
        .args(options)
        .arg(path)
        .output()
        .ok()?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    (!run.status.success()).then(|| {
        stderr
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or("")
            .to_string()
    })
}

/// Whether the instrumented copies, for calls and for branches, compile: the events the
/// parser's copy placed are at the right offsets of the compiler's. Empty when they do.
fn compiles(config: &FrontEndConfig) -> String {
    let mut problems = Vec::new();
    for events in [EventKind::Calls, EventKind::Branches] {
        let config = FrontEndConfig {
            events,
            ..config.clone()
        };
        let out = match tempfile::tempdir() {
            Ok(out) => out,
            Err(e) => return e.to_string(),
        };
        let program = match instrument(&config, out.path()) {
            Ok(program) => program,
            Err(FrontEndError::EmptyAlphabet) => continue,
            Err(e) => {
                problems.push(format!("{events}: {e}"));
                continue;
            }
        };
        for path in &program.paths {
            if let Some(error) = gcc_rejects(path, std::iter::empty()) {
                problems.push(format!("{events}: gcc on the instrumented copy: {error}"));
            }
        }
    }
    problems.join("; ")
}
