//! The orchestration behind each command of the binary: read inputs, call the library,
//! write outputs. Errors are `anyhow` with context here, and only here; `crate::exit`
//! turns them into exit codes.
//!
//! Everything the commands print goes through [`outln!`] and [`errln!`], which print one
//! line with every control character (line breaks too) shown escaped
//! ([`mergelens::report::escape::terminal`]), or [`out!`] and [`err!`], which print a block
//! of lines with every control character but the line break escaped
//! ([`mergelens::report::escape::terminal_lines`]); a block's repository fields are escaped
//! with [`term`] where it is built. So no text a repository wrote (a file name, a subject,
//! a tool's message) can move the cursor, erase or recolour a line, or forge one.

/// `println!` for the terminal: one line, see the module documentation.
macro_rules! outln {
    () => { println!() };
    ($($arg:tt)*) => {
        println!("{}", mergelens::report::escape::terminal(&format!($($arg)*)))
    };
}

/// `print!` for the terminal: a block of lines.
macro_rules! out {
    ($($arg:tt)*) => {
        print!("{}", mergelens::report::escape::terminal_lines(&format!($($arg)*)))
    };
}

/// `eprintln!` for the terminal: one line.
macro_rules! errln {
    () => { eprintln!() };
    ($($arg:tt)*) => {
        eprintln!("{}", mergelens::report::escape::terminal(&format!($($arg)*)))
    };
}

/// `eprint!` for the terminal: a block of lines.
macro_rules! err {
    ($($arg:tt)*) => {
        eprint!("{}", mergelens::report::escape::terminal_lines(&format!($($arg)*)))
    };
}

pub mod anytime;
pub mod audit;
pub mod automaton;
pub mod concise;
pub mod demo;
pub mod diff;
pub mod doctor;
pub mod explain;
pub mod hook;
pub mod init;
pub mod learn;
pub mod learn_target;
pub mod program;
mod progress;
pub mod remote;
pub mod report;
pub mod review;
pub mod sampling;
mod signals;

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use mergelens::automaton::AutomatonError;

/// How a command that compares things ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Done, and nothing differs.
    Success,
    /// Done, and a difference was found (exit code 1).
    Different,
    /// git could not merge the files textually (exit code 3, `exit::CONFLICT`).
    Conflict,
}

/// One field of a terminal line: repository text with every control character, line
/// breaks included, shown escaped ([`mergelens::report::escape::terminal`]).
pub(crate) fn term(s: &str) -> String {
    mergelens::report::escape::terminal(s)
}

/// Names (files, branches) as one field each, joined with `, `.
pub(crate) fn terms(names: &[String]) -> String {
    names.iter().map(|n| term(n)).collect::<Vec<_>>().join(", ")
}

/// Writes text meant for people (lists of words, a summary) to `output`, or to the terminal
/// with its control characters but line breaks escaped when there is none.
pub(crate) fn write_text(output: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match output {
        Some(_) => write_output(output, text),
        None => write_output(None, &mergelens::report::escape::terminal_lines(text)),
    }
}

/// Writes `text` to `output`, or to standard output when there is none.
pub(crate) fn write_output(output: Option<&Path>, text: &str) -> anyhow::Result<()> {
    match output {
        Some(path) => std::fs::write(path, text).map_err(|source| AutomatonError::Write {
            path: path.display().to_string(),
            source,
        })?,
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .context("cannot write to standard output")?;
        }
    }
    Ok(())
}
