//! Running `gcc -E` and reading its line markers back to the user's files and lines.
//!
//! The program is analysed as the compiler sees it, after macros and includes; the markers
//! `# N "file" flags` that `gcc -E` writes say where each line came from. The parser gets a
//! copy with every directive line blanked to spaces, so byte offsets agree between the two
//! texts while the parser never sees a marker (they may sit in the middle of a statement).

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::error::FrontEndError;

/// What the user's `MERGELENS_EVENT(x)` becomes in the preprocessed text: a call that
/// survives preprocessing, so that the parser sees each marker where it was written.
pub(crate) const MARKER_FN: &str = "__mergelens_marker";

/// Where a line of the preprocessed text comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileOrigin {
    /// One of the files the user asked to analyse.
    Analysed,
    /// Any other file, outside system headers: the user's own headers, `<built-in>`. Their
    /// functions are the program's own: they emit events like the analysed files' do.
    Header,
    /// A harness file (`--harness`, or the main file of a generated harness): compiled with
    /// the program, but its functions are no events.
    Harness,
    /// Text from a system header (flag 3 of the line marker). The flag belongs to a region,
    /// not a file: the tokens of a system macro such as `assert` expanded in the user's code
    /// get regions of their own, under the user's file name and line.
    System,
}

impl FileOrigin {
    /// Whether the functions defined here emit events: those of the analysed files and of
    /// the user's own headers (a `static inline` helper is the program's behaviour too), not
    /// those of system headers or harnesses.
    pub(crate) fn has_events(self) -> bool {
        matches!(self, FileOrigin::Analysed | FileOrigin::Header)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct SourceFile {
    /// The name as gcc wrote it, which is the path the user gave for the analysed files.
    pub name: String,
    pub analysed: bool,
}

/// One preprocessed translation unit.
pub(crate) struct Preprocessed {
    /// The output of `gcc -E`, line markers included.
    pub text: String,
    /// `text` with every directive line blanked: same length, same line breaks.
    pub parse_text: String,
    pub files: Vec<SourceFile>,
    /// For each line of `text` (0-based): the file (index into `files`), the 1-based line
    /// and the origin.
    rows: Vec<(u32, u32, FileOrigin)>,
}

impl Preprocessed {
    /// Makes the unit's own file a header's text rather than an analysed file's: for a
    /// harness, which is compiled with the program but whose functions are no events.
    pub(crate) fn demote_main_file(&mut self) {
        if let Some(main) = self.files.first_mut() {
            main.analysed = false;
        }
        for row in &mut self.rows {
            if row.0 == 0 && row.2 == FileOrigin::Analysed {
                row.2 = FileOrigin::Harness;
            }
        }
    }

    /// The file index, original line and origin of a (0-based) row of the preprocessed text.
    pub(crate) fn origin(&self, row: usize) -> (usize, u32, FileOrigin) {
        let (file, line, origin) =
            self.rows
                .get(row)
                .copied()
                .unwrap_or((0, 0, FileOrigin::Header));
        (file as usize, line, origin)
    }
}

/// What makes the C library's headers declare plain functions, which CBMC's own models of
/// the C library then define, rather than what they give an optimising compiler: without
/// `__NO_CTYPE`, glibc's `isspace(c)` is a lookup in the table `__ctype_b_loc()` returns, a
/// table CBMC knows nothing of, so `isspace` returns anything; with `__OPTIMIZE__` (never set
/// by `gcc -E`, but a user's `-D` could) `<string.h>` and `<bits/string_fortified.h>` give
/// inline or builtin variants of the string functions. These come before the user's `-D`,
/// so a user may still override them.
pub(crate) const LIBRARY_FLAGS: [&str; 5] = [
    "-D__NO_CTYPE",
    "-D__NO_STRING_INLINES",
    "-D__NO_MATH_INLINES",
    "-U__OPTIMIZE__",
    "-U_FORTIFY_SOURCE",
];

/// The arguments every gcc run of this analysis shares: [`LIBRARY_FLAGS`], the user's `-I`
/// and `-D`, the marker definition, and the directory holding `mergelens.h` (searched last,
/// so that a user's own copy wins).
pub(crate) fn compiler_flags(
    include_dirs: &[PathBuf],
    defines: &[String],
    header_dir: &Path,
) -> Vec<OsString> {
    let mut flags: Vec<OsString> = LIBRARY_FLAGS.iter().map(OsString::from).collect();
    for dir in include_dirs {
        let mut arg = OsString::from("-I");
        arg.push(dir);
        flags.push(arg);
    }
    for define in defines {
        let define = define.strip_prefix("-D").unwrap_or(define);
        flags.push(format!("-D{define}").into());
    }
    flags.push(format!("-DMERGELENS_EVENT(name)={MARKER_FN}(name)").into());
    flags.push("-idirafter".into());
    flags.push(header_dir.into());
    flags
}

/// Runs `gcc -E` on `file` and maps its lines back. `analysed` holds the canonical paths of
/// every analysed file, so that one analysed file included by another is still recognised.
pub(crate) fn preprocess(
    file: &Path,
    flags: &[OsString],
    analysed: &[PathBuf],
) -> Result<Preprocessed, FrontEndError> {
    let mut cmd = Command::new("gcc");
    cmd.arg("-E").args(flags).arg(file);
    let (stdout, _) = bounded_gcc(cmd, file, false)?;
    Ok(map_lines(decode(&stdout), file, analysed))
}

/// Runs gcc under the query timeout and the output cap of [`crate::limits`]: the program
/// under review decides what its preprocessor does (`#include` of a device, macros that
/// expand without end). Standard output and error of a successful run, or (with
/// `failure_ok`) of a failed one.
fn bounded_gcc(
    cmd: Command,
    file: &Path,
    failure_ok: bool,
) -> Result<(Vec<u8>, Vec<u8>), FrontEndError> {
    use crate::process::{self, Ran};
    let error = |message: String| FrontEndError::Preprocess {
        file: file.to_path_buf(),
        message,
    };
    let ran = process::run_bounded(cmd, process::tool_deadline(), process::MAX_TOOL_OUTPUT)
        .map_err(|e| error(format!("cannot run gcc ({e}); install gcc")))?;
    match ran {
        Ran::Finished {
            status,
            stdout,
            stderr,
            ..
        } => {
            if status.success() || failure_ok {
                Ok((stdout, stderr))
            } else {
                Err(error(first_errors(&String::from_utf8_lossy(&stderr))))
            }
        }
        Ran::TimedOut => Err(error(format!(
            "the preprocessor ran longer than the query timeout ({:.0} s) and was stopped",
            process::tool_timeout().unwrap_or_default().as_secs_f64()
        ))),
        Ran::Stopped => Err(FrontEndError::Stopped {
            file: file.to_path_buf(),
            reason: crate::stop::stop_reason().unwrap_or(crate::stop::StopReason::Interrupted),
        }),
        Ran::TooMuchOutput => Err(error(format!(
            "the preprocessor wrote more than {} MiB and was stopped",
            process::MAX_TOOL_OUTPUT >> 20
        ))),
    }
}

/// Refuses a unit that read a file outside `confine_to` (and mergelens's own header in
/// `header_dir`) other than a system header: the path is named, never its contents.
pub(crate) fn check_confined(
    pre: &Preprocessed,
    file: &Path,
    confine_to: Option<&[PathBuf]>,
    header_dir: &Path,
) -> Result<(), FrontEndError> {
    let Some(confine_to) = confine_to else {
        return Ok(());
    };
    let roots: Vec<PathBuf> = confine_to
        .iter()
        .chain(std::iter::once(&header_dir.to_path_buf()))
        .filter_map(|d| d.canonicalize().ok())
        .collect();
    let mut read = vec![false; pre.files.len()];
    for &(index, _, origin) in &pre.rows {
        if origin != FileOrigin::System {
            read[index as usize] = true;
        }
    }
    for (source, _) in pre.files.iter().zip(read).filter(|(_, r)| *r) {
        if source.name.starts_with('<') {
            continue;
        }
        let inside = Path::new(&source.name)
            .canonicalize()
            .is_ok_and(|p| roots.iter().any(|r| p.starts_with(r)));
        if !inside {
            return Err(FrontEndError::Preprocess {
                file: file.to_path_buf(),
                message: format!(
                    "includes {}, which is outside the checkout; a version under review may include only its own files and system headers (docs/trust.md)",
                    source.name
                ),
            });
        }
    }
    Ok(())
}

/// Source files are not always UTF-8: a Latin-1 string literal survives preprocessing. Each
/// byte that is not part of valid UTF-8 becomes a character of Unicode's last private-use
/// plane (U+10FF80 + byte - 0x80), which [`encode`] turns back into the byte, so the
/// instrumented program keeps the user's exact bytes.
pub(crate) fn decode(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for &b in chunk.invalid() {
            text.push(
                char::from_u32(RAW_BYTE_BASE + u32::from(b)).expect("a private-use character"),
            );
        }
    }
    text
}

const RAW_BYTE_BASE: u32 = 0x10FF00;

/// The bytes [`decode`] read.
pub(crate) fn encode(text: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(text.len());
    for c in text.chars() {
        match u32::from(c).checked_sub(RAW_BYTE_BASE) {
            Some(b @ 0x80..=0xFF) => bytes.push(b as u8),
            _ => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    bytes
}

/// The first error lines of a gcc run, joined into one line.
fn first_errors(stderr: &str) -> String {
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("error"))
        .take(2)
        .collect();
    let chosen = if errors.is_empty() {
        stderr.lines().take(2).collect::<Vec<_>>()
    } else {
        errors
    };
    let mut joined = chosen.join("; ");
    if joined.contains("Permission denied") && crate::sandbox::confining() {
        joined.push_str(
            " (the sandbox lets a version under review read only its checkout, the trusted include directories and the system headers; this file is outside the checkout: docs/trust.md)",
        );
    }
    if joined.is_empty() {
        "gcc failed without a message".to_string()
    } else {
        joined
    }
}

pub(crate) fn map_lines(text: String, main_file: &Path, analysed: &[PathBuf]) -> Preprocessed {
    let mut parse_text = String::with_capacity(text.len());
    let main_name = main_file.to_string_lossy().into_owned();
    let mut files = vec![SourceFile {
        name: main_name.clone(),
        analysed: true,
    }];
    let mut index: HashMap<String, u32> = HashMap::from([(main_name.clone(), 0)]);
    let mut rows = Vec::new();
    let (mut file, mut line, mut system) = (0u32, 1u32, false);
    let origin = |files: &[SourceFile], file: u32, system: bool| {
        if system {
            FileOrigin::System
        } else if files[file as usize].analysed {
            FileOrigin::Analysed
        } else {
            FileOrigin::Header
        }
    };
    for raw in text.split_inclusive('\n') {
        let content = raw.trim_end_matches(['\n', '\r']);
        let directive = content.trim_start().starts_with('#');
        if directive {
            // One space per byte, not per character: the parse tree's byte offsets index
            // `text`, where the edits are applied, and a line marker may name a file
            // `größe.h`.
            for c in raw.chars() {
                match c {
                    '\n' => parse_text.push('\n'),
                    c => parse_text.extend(std::iter::repeat_n(' ', c.len_utf8())),
                }
            }
        } else {
            parse_text.push_str(raw);
        }
        rows.push((file, line, origin(&files, file, system)));
        match directive.then(|| parse_marker(content)).flatten() {
            Some(marker) => {
                file = *index.entry(marker.file.clone()).or_insert_with(|| {
                    let analysed = marker.file == main_name || is_analysed(&marker.file, analysed);
                    files.push(SourceFile {
                        name: marker.file.clone(),
                        analysed,
                    });
                    (files.len() - 1) as u32
                });
                line = marker.line;
                system = marker.system;
            }
            None => line += 1,
        }
    }
    Preprocessed {
        text,
        parse_text,
        files,
        rows,
    }
}

fn is_analysed(name: &str, analysed: &[PathBuf]) -> bool {
    if name.starts_with('<') {
        return false;
    }
    Path::new(name)
        .canonicalize()
        .is_ok_and(|p| analysed.contains(&p))
}

struct Marker {
    line: u32,
    file: String,
    system: bool,
}

/// Reads `# 12 "dir/file.h" 1 3` (also `#line 12 "file"`).
fn parse_marker(line: &str) -> Option<Marker> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let number: u32 = rest[..digits].parse().ok()?;
    let quoted = rest[digits..].trim_start().strip_prefix('"')?;
    let mut escaped = false;
    let close = quoted.char_indices().find_map(|(i, c)| match c {
        '\\' if !escaped => {
            escaped = true;
            None
        }
        '"' if !escaped => Some(i),
        _ => {
            escaped = false;
            None
        }
    })?;
    let flags: Vec<&str> = quoted[close + 1..].split_whitespace().collect();
    Some(Marker {
        line: number,
        file: unescape(&quoted[..close]),
        system: flags.contains(&"3"),
    })
}

/// Undoes gcc's escaping of file names: `\\`, `\"` and octal escapes of other bytes.
fn unescape(name: &str) -> String {
    let mut out = Vec::with_capacity(name.len());
    let mut bytes = name.bytes().peekable();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(d @ b'0'..=b'7') => {
                let mut value = u32::from(d - b'0');
                for _ in 0..2 {
                    match bytes.peek() {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            bytes.next();
                        }
                        _ => break,
                    }
                }
                out.push(value as u8);
            }
            Some(c) => out.push(c),
            None => out.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// gcc's own first error for a file that tree-sitter could not parse: its message and
/// location are what the user knows from compiling. `None` if gcc accepts the file.
pub(crate) fn gcc_syntax_error(
    file: &Path,
    flags: &[OsString],
) -> Option<(PathBuf, u32, u32, String)> {
    let mut cmd = Command::new("gcc");
    cmd.arg("-fsyntax-only").arg("-w").args(flags).arg(file);
    let (_, stderr) = bounded_gcc(cmd, file, true).ok()?;
    let stderr = String::from_utf8_lossy(&stderr);
    stderr.lines().find_map(parse_gcc_error)
}

/// Reads `file:line:column: error: message`.
fn parse_gcc_error(line: &str) -> Option<(PathBuf, u32, u32, String)> {
    let (location, message) = line
        .split_once(": error: ")
        .or_else(|| line.split_once(": fatal error: "))?;
    let mut parts = location.rsplitn(3, ':');
    let column: u32 = parts.next()?.trim().parse().ok()?;
    let line_no: u32 = parts.next()?.trim().parse().ok()?;
    let file = parts.next()?;
    Some((file.into(), line_no, column, message.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_read_with_flags_and_escapes() {
        let m = parse_marker(r#"# 12 "dir/a\"b.h" 1 3"#).unwrap();
        assert_eq!(
            (m.line, m.file.as_str(), m.system),
            (12, "dir/a\"b.h", true)
        );
        let m = parse_marker(r#"# 1 "x.c""#).unwrap();
        assert_eq!((m.line, m.file.as_str(), m.system), (1, "x.c", false));
        let m = parse_marker(r#"#line 40 "y\\z.c""#).unwrap();
        assert_eq!((m.line, m.file.as_str()), (40, "y\\z.c"));
        assert!(parse_marker("#pragma once").is_none());
    }

    #[test]
    fn lines_map_back_and_directives_are_blanked() {
        let text = "# 0 \"main.c\"\n# 1 \"/usr/include/s.h\" 1 3\nint s;\n# 5 \"main.c\" 2\nint x;\n\nint y;\n#pragma weak y\nint z;\n".to_string();
        let p = map_lines(text.clone(), Path::new("main.c"), &[]);
        assert_eq!(p.parse_text.len(), text.len());
        assert!(!p.parse_text.contains('#'));
        assert_eq!(p.origin(2).1, 1);
        assert_eq!(p.origin(2).2, FileOrigin::System);
        assert_eq!(p.files[p.origin(4).0].name, "main.c");
        assert_eq!(p.origin(4).1, 5);
        assert_eq!(p.origin(6).1, 7);
        assert_eq!(p.origin(8).1, 9);
        assert_eq!(p.origin(4).2, FileOrigin::Analysed);
    }

    #[test]
    fn directives_with_non_ascii_names_are_blanked_byte_for_byte() {
        let text =
            "# 1 \"main.c\"\n# 1 \"größe.h\" 1\nint a;\n# 2 \"main.c\" 2\nint b;\n".to_string();
        let p = map_lines(text.clone(), Path::new("main.c"), &[]);
        assert_eq!(p.parse_text.len(), text.len());
        assert_eq!(p.parse_text.find("int b;"), text.find("int b;"));
        assert_eq!(p.files[p.origin(2).0].name, "größe.h");
    }

    #[test]
    fn system_regions_inside_a_header_do_not_make_it_a_system_header() {
        let text =
            "# 1 \"main.c\"\n# 1 \"lib.h\" 1\nint a =\n# 3 \"lib.h\" 3 4\n0\n# 3 \"lib.h\"\n;\n"
                .to_string();
        let p = map_lines(text, Path::new("main.c"), &[]);
        assert_eq!(p.origin(2), (1, 1, FileOrigin::Header));
        assert_eq!(p.origin(4), (1, 3, FileOrigin::System));
        assert_eq!(p.origin(6), (1, 3, FileOrigin::Header));
        let text = "# 1 \"main.c\"\nx =\n# 1 \"main.c\" 3 4\n0\n".to_string();
        let p = map_lines(text, Path::new("main.c"), &[]);
        assert_eq!(p.origin(1), (0, 1, FileOrigin::Analysed));
        assert_eq!(p.origin(3), (0, 1, FileOrigin::System));
    }

    #[test]
    fn non_utf8_bytes_survive() {
        let bytes = b"char *s = \"caf\xe9 \xc3\xa9\";\n";
        let text = decode(bytes);
        assert_eq!(text.lines().count(), 1);
        assert_eq!(encode(&text), bytes);
    }

    #[test]
    fn gcc_errors_are_parsed() {
        let e = parse_gcc_error("t/a.c:7:18: error: expected expression before ')' token").unwrap();
        assert_eq!(
            e,
            (
                "t/a.c".into(),
                7,
                18,
                "expected expression before ')' token".into()
            )
        );
        assert!(parse_gcc_error("t/a.c:3:1: warning: unused").is_none());
    }
}
