//! The harness skeleton `mergelens init --harness-for F` writes: `main` calls F on
//! nondeterministic arguments, as the generated entry harness does, in a file the user
//! edits and commits.
//!
//! Key item: [`skeleton`], a thin wrapper: the harness itself comes from the library's one
//! generator ([`cprog::harness_skeleton`], the review's generated entry harness with
//! readable names), so what the user edits is what a review would use. This file adds the
//! comments, the local includes of the function's file and `main`.

use std::path::{Path, PathBuf};

use super::error::SetupError;
use crate::cprog::{self, FrontEndConfig};
use crate::git::paths::shown_relative;

/// The harness skeleton `--harness-for` writes, at the repository root.
pub const HARNESS_FILE: &str = "mergelens-harness.c";

/// Elements of each buffer the harness passes, as the generated entry harness.
const BUFFER: usize = cprog::HARNESS_BUFFER;
/// How deep the harness builds pointed-to objects, as the generated entry harness.
const DEPTH: usize = cprog::HARNESS_DEPTH;

/// A function that could be an entry.
pub struct Candidate {
    pub name: String,
    pub parameters: Vec<String>,
    pub file: PathBuf,
    pub line: u32,
    /// How many other functions of the program it calls, directly or not (by the call
    /// graph): a parser reaches much of a library, a getter little.
    pub reaches: usize,
}

/// The text before a function's name, from the start of the line before it.
pub fn head(file: &Path, line: u32, name: &str) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let lines: Vec<&str> = text.lines().collect();
    let at = (line as usize).checked_sub(1)?;
    let this = lines.get(at)?;
    let before = &this[..this.find(name).unwrap_or(0)];
    let previous = if before.trim().is_empty() && at > 0 {
        lines[at - 1]
    } else {
        ""
    };
    Some(format!("{previous} {before}"))
}

/// The harness skeleton: `entry` calls `c` exactly as the review's generated entry harness
/// would (the one generator, [`cprog::harness_skeleton`]), with readable names, after the
/// local includes of `c`'s file.
pub fn skeleton(
    config: &FrontEndConfig,
    c: &Candidate,
    entry: &str,
    root: &Path,
) -> Result<String, SetupError> {
    let file = std::fs::read_to_string(&c.file).map_err(|source| SetupError::Read {
        path: c.file.clone(),
        source,
    })?;
    // The function's own file's local includes declare what its parameters use: `"x.h"`,
    // and `<x.h>` where an include directory of the program holds it (a library including
    // its own header by angle brackets), not the system's.
    let own_header = |l: &str| {
        let l = l.trim_start();
        l.starts_with("#include \"")
            || l.strip_prefix("#include <")
                .and_then(|rest| rest.split_once('>'))
                .is_some_and(|(name, _)| config.include_dirs.iter().any(|d| d.join(name).is_file()))
    };
    let includes: Vec<&str> = file.lines().filter(|l| own_header(l)).collect();
    let dir = tempfile::tempdir().map_err(SetupError::TempDir)?;
    let mut config = config.clone();
    config.entry.clone_from(&c.name);
    let h = cprog::harness_skeleton(&config, dir.path())?;
    let definitions = if h.definitions.is_empty() {
        String::new()
    } else {
        format!(
            "\n/* Defined in {} itself, repeated here. */\n{}",
            shown_relative(&c.file, root),
            h.definitions
        )
    };
    let kept = if h.kept.is_empty() {
        String::new()
    } else {
        format!(
            "/* Globals {} reads that keep their initial value:\n{} */\n",
            c.name,
            h.kept
                .iter()
                .map(|k| format!(" *   {k}\n"))
                .collect::<String>()
        )
    };
    Ok(format!(
        "/* {HARNESS_FILE}: written by `mergelens init --harness-for {name}`.\n * The harness a review generates for {name}, in a file of its own: `{entry}` calls {name} on\n * nondeterministic input. An uninitialised local is any value to CBMC; a string holds at\n * most {last} characters; a buffer beside a length parameter holds {BUFFER} elements and the\n * length is at most {BUFFER}; any other pointer is NULL or points to a nondeterministic\n * object, whose own pointers are built the same way {DEPTH} levels deep; a callback is a\n * stub that counts its calls. Its own functions are no events. Bound the input as {name}\n * expects, then commit this file: a review reads it from HEAD and compiles it with every\n * version. */\n{includes}\n{definitions}\n{prototype}\n{stubs}\nint {entry}(void)\n{{\n{body}    {call};\n    return 0;\n}}\n/* {name} is defined in {file_name}:{line}. */\n{kept}",
        name = c.name,
        last = BUFFER - 1,
        includes = includes.join("\n"),
        prototype = h.prototype,
        stubs = h.stubs,
        body = h.body,
        call = h.call,
        file_name = shown_relative(&c.file, root),
        line = c.line,
    ))
}
