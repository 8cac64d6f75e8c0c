//! The errors of the C front end: each names what went wrong, where, and what to do.

use std::path::PathBuf;

use crate::failure::{FailureKind, HasKind};

/// Why [`super::instrument`] could not produce an instrumented program.
#[derive(Debug, thiserror::Error)]
pub enum FrontEndError {
    /// The program is not valid C (reported at the user's file and line, not the
    /// preprocessed text's).
    #[error("{}:{line}:{column}: C syntax error: {message}; fix the program and run again", file.display())]
    SyntaxError {
        file: PathBuf,
        line: u32,
        column: u32,
        message: String,
    },
    /// `gcc -E` failed: a missing include, a bad `-D`, or no gcc at all.
    #[error("{}: the C preprocessor (gcc -E) failed: {message}; check the file and its -I and -D options", file.display())]
    Preprocess { file: PathBuf, message: String },
    /// The run was asked to stop (Ctrl-C, `--time-budget`) while gcc preprocessed the file
    /// or the front end read it: no fault of the program's.
    #[error("{}: stopped while reading it: {reason}", file.display())]
    Stopped {
        file: PathBuf,
        reason: crate::stop::StopReason,
    },
    /// The syntax tree nests deeper than the front end's recursive walks may go
    /// ([`crate::cprog::syntax::MAX_NESTING`]): refused before any walk, so deep input is an error
    /// and never a stack overflow.
    #[error(
        "{}:{line}: the code nests more than {limit} levels deep (expressions or statements inside one another, such as a macro that expands to a long chain); mergelens refuses it rather than overflow its stack: split it up, or leave the file out of `files`",
        file.display()
    )]
    TooDeep {
        file: PathBuf,
        line: u32,
        limit: usize,
    },
    /// The entry function is not defined in the analysed files.
    #[error(
        "the entry function `{entry}` is not defined in the analysed files (they define: {}); name one of them with --entry",
        list_or_none(defined)
    )]
    MissingEntry { entry: String, defined: Vec<String> },
    /// The entry function is defined in more than one place among the analysed files (a
    /// test or benchmark program's `main` beside the program's): which one would run is the
    /// linker's choice, and no review may guess it.
    #[error(
        "the entry function `{entry}` is defined twice, at {first} and at {second}; leave one of the files out (`files` or `exclude` in .mergelens.toml) or name another entry with --entry"
    )]
    DuplicateEntry {
        entry: String,
        first: String,
        second: String,
    },
    /// The entry takes parameters no generated harness can build (an opaque type).
    #[error(transparent)]
    Harness(#[from] HarnessError),
    /// The selected events leave no letter besides `end`.
    #[error(
        "no events to learn: the event kind and --only/--exclude leave no letter besides `end`; choose another event kind, relax --only/--exclude, or add MERGELENS_EVENT(\"name\") markers"
    )]
    EmptyAlphabet,
    /// An event would be named `end`, the letter reserved for the entry function's return.
    #[error("{}:{line}: the event `{name}` would be the letter `end`, which marks the return of the entry function; rename it or leave it out with --exclude {name}", file.display())]
    ReservedLetter {
        name: String,
        file: PathBuf,
        line: u32,
    },
    /// The program names an identifier of mergelens's instrumentation: calling a hook
    /// itself would forge events, coverage or inputs.
    #[error("{}:{line}: the program names `{name}`, which mergelens reserves for its instrumentation (names beginning `__mergelens_` or `__ml`, but the `__mergelens_marker` of MERGELENS_EVENT); rename it", file.display())]
    ReservedName {
        name: String,
        file: PathBuf,
        line: u32,
    },
    /// Error mode: the analysed files contain no assertion to explain.
    #[error(
        "the program has no assertion to explain (looked for assert, __CPROVER_assert, __VERIFIER_error and reach_error in the analysed files); add one, or use `mergelens learn`"
    )]
    NoAssertion,
    /// Error mode: no assertion at the target line; `existing` lists `file:line: text`.
    #[error(
        "no assertion at {target}; the assertions are: {}",
        existing.join("; ")
    )]
    UnknownAssertion {
        target: String,
        existing: Vec<String>,
    },
    /// Reading a source file or writing the instrumented copy failed.
    #[error("{}: cannot read or write it (check that an input exists and is readable, and that the output directory is writable)", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl FrontEndError {
    /// The same error with the paths under `root` made relative to it (a review's checkout
    /// of a version, whose location means nothing to the user).
    pub fn relative_to(mut self, root: &std::path::Path) -> FrontEndError {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        // gcc's own messages name the files it read, by the paths it was given.
        let prefix = format!("{}/", root.display());
        if let FrontEndError::SyntaxError { message, .. }
        | FrontEndError::Preprocess { message, .. }
        | FrontEndError::DuplicateEntry { first: message, .. } = &mut self
        {
            *message = message.replace(&prefix, "");
        }
        if let FrontEndError::DuplicateEntry { second, .. } = &mut self {
            *second = second.replace(&prefix, "");
        }
        match &mut self {
            FrontEndError::SyntaxError { file, .. }
            | FrontEndError::Preprocess { file, .. }
            | FrontEndError::Stopped { file, .. }
            | FrontEndError::TooDeep { file, .. }
            | FrontEndError::ReservedLetter { file, .. }
            | FrontEndError::ReservedName { file, .. }
            | FrontEndError::Io { path: file, .. } => {
                let absolute = file.canonicalize().unwrap_or_else(|_| file.clone());
                if let Ok(inside) = absolute.strip_prefix(&root) {
                    *file = inside.to_path_buf();
                }
            }
            _ => {}
        }
        self
    }
}

impl HasKind for FrontEndError {
    /// The program (or the flags that select its parts) is to blame for all but a stop.
    fn kind(&self) -> FailureKind {
        match self {
            FrontEndError::Stopped { .. } => FailureKind::Failed,
            FrontEndError::Harness(e) => e.kind(),
            FrontEndError::SyntaxError { .. }
            | FrontEndError::Preprocess { .. }
            | FrontEndError::TooDeep { .. }
            | FrontEndError::MissingEntry { .. }
            | FrontEndError::DuplicateEntry { .. }
            | FrontEndError::EmptyAlphabet
            | FrontEndError::ReservedLetter { .. }
            | FrontEndError::ReservedName { .. }
            | FrontEndError::NoAssertion
            | FrontEndError::UnknownAssertion { .. }
            | FrontEndError::Io { .. } => FailureKind::BadInput,
        }
    }
}

fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "no functions".to_string()
    } else {
        names.join(", ")
    }
}

/// Why no harness can call an entry on nondeterministic arguments.
#[derive(Debug, thiserror::Error)]
pub enum HarnessError {
    /// A parameter points to a struct or union no analysed file defines (an opaque handle):
    /// the harness cannot make one.
    #[error(
        "no harness for `{function}`: {needed_by} needs the type `{ty}`, which {why}; write a harness that makes one with the library's own constructor (`harness` in .mergelens.toml)"
    )]
    Incomplete {
        function: String,
        /// `its parameter `p``, or what else needs it.
        needed_by: String,
        ty: String,
        why: String,
    },
    /// A parameter of a type the generator cannot declare.
    #[error(
        "no harness for `{function}`: its parameter `{parameter}` is {reason}, which the generated harness cannot build; write a harness (`harness` in .mergelens.toml)"
    )]
    Unsupported {
        function: String,
        parameter: String,
        reason: String,
    },
}

impl HasKind for HarnessError {
    fn kind(&self) -> FailureKind {
        match self {
            HarnessError::Incomplete { .. } | HarnessError::Unsupported { .. } => {
                FailureKind::BadInput
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_a_checkout_are_shown_relative_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        let e = FrontEndError::Preprocess {
            file: root.join("src/a.c"),
            message: format!(
                "{}/src/a.c:1:10: fatal error: b.h: No such file",
                root.display()
            ),
        }
        .relative_to(&root);
        assert_eq!(
            e.to_string(),
            "src/a.c: the C preprocessor (gcc -E) failed: src/a.c:1:10: fatal error: b.h: No such file; check the file and its -I and -D options"
        );
        let outside = FrontEndError::EmptyAlphabet.relative_to(&root);
        assert!(matches!(outside, FrontEndError::EmptyAlphabet));
    }

    #[test]
    fn messages_are_one_line_with_location_and_advice() {
        let e = FrontEndError::SyntaxError {
            file: "a.c".into(),
            line: 7,
            column: 18,
            message: "expected expression before ')' token".into(),
        };
        assert_eq!(
            e.to_string(),
            "a.c:7:18: C syntax error: expected expression before ')' token; fix the program and run again"
        );
        let e = FrontEndError::MissingEntry {
            entry: "start".into(),
            defined: vec!["main".into(), "f".into()],
        };
        assert!(e.to_string().contains("`start`") && e.to_string().contains("main, f"));
        for e in [e, FrontEndError::EmptyAlphabet] {
            assert!(!e.to_string().contains('\n'));
        }
    }
}
