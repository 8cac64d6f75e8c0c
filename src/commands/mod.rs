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
mod ladder;
pub mod learn;
pub mod learn_target;
pub mod program;
pub mod report;
pub mod review;
pub mod sampling;
mod skeleton;

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

/// An error and its causes in one line, each said once: a level whose message ends with its
/// cause's (`"{context}: {source}"`) contributes only its own words.
pub(crate) fn one_line(error: &anyhow::Error) -> String {
    let chain: Vec<String> = error.chain().map(ToString::to_string).collect();
    let mut parts: Vec<&str> = Vec::new();
    for (i, message) in chain.iter().enumerate() {
        let own = match chain.get(i + 1) {
            Some(cause) => message
                .strip_suffix(cause.as_str())
                .map_or(message.as_str(), |rest| rest.trim_end_matches([':', ' '])),
            None => message.as_str(),
        };
        if !own.is_empty() && !parts.contains(&own) {
            parts.push(own);
        }
    }
    parts.join(": ")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("goto-cc failed (exit code 1): no such file")]
    struct Leaf;

    #[derive(Debug, thiserror::Error)]
    #[error("{0}")]
    struct Transparentish(#[source] Leaf);

    #[derive(Debug, thiserror::Error)]
    #[error("base (main): {source}")]
    struct Outer {
        #[source]
        source: Transparentish,
    }

    #[test]
    fn each_cause_is_said_once() {
        let error = anyhow::Error::new(Outer {
            source: Transparentish(Leaf),
        });
        assert_eq!(
            one_line(&error),
            "base (main): goto-cc failed (exit code 1): no such file"
        );
        let context = anyhow::Error::new(Leaf).context("learning `main` at small bounds");
        assert_eq!(
            one_line(&context),
            "learning `main` at small bounds: goto-cc failed (exit code 1): no such file"
        );
    }
}
