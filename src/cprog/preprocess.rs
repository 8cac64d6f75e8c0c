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
use super::system_headers::Places;

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
    /// Text from a system header: a file in one of gcc's system include directories
    /// ([`Places::is_system`]), or the tokens of a system macro such as `assert` expanded in
    /// the user's code, which gcc flags as a region of their own under the user's file name
    /// and line (see [`map_lines`]). Never what a file says of itself.
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
    /// Whether the file really lies in a system include directory.
    pub system: bool,
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
    /// Where a file of the program made itself a system header (`#pragma GCC
    /// system_header`, also through `_Pragma`): its name and line. The front end ignored it.
    pub self_declared_system: Vec<(String, u32)>,
    /// Whether the unit's own file is a harness's ([`Preprocessed::demote_main_file`]).
    harness: bool,
}

impl Preprocessed {
    /// Makes the unit's own file a header's text rather than an analysed file's: for a
    /// harness, which is compiled with the program but whose functions are no events.
    pub(crate) fn demote_main_file(&mut self) {
        if let Some(main) = self.files.first_mut() {
            main.analysed = false;
        }
        self.harness = true;
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

    /// [`Preprocessed::origin`] for the name of a file-scope item (a function, a variable):
    /// a system macro's expansion in the user's code makes no such item a system header's.
    /// (`unsigned major(unsigned long d) { ... }` defines `gnu_dev_major`, a name from
    /// `<sys/sysmacros.h>`'s macro; the function and its body are the program's.)
    pub(crate) fn item_origin(&self, row: usize) -> (usize, u32, FileOrigin) {
        let (file, line, origin) = self.origin(row);
        let source = self.files.get(file);
        if origin != FileOrigin::System || source.is_some_and(|f| f.system) {
            return (file, line, origin);
        }
        let own = match source {
            Some(f) if f.analysed => FileOrigin::Analysed,
            _ if file == 0 && self.harness => FileOrigin::Harness,
            _ => FileOrigin::Header,
        };
        (file, line, own)
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
/// An error of gcc's quotes only files the run may read (`places`).
pub(crate) fn preprocess(
    file: &Path,
    flags: &[OsString],
    analysed: &[PathBuf],
    places: &Places,
) -> Result<Preprocessed, FrontEndError> {
    let mut cmd = Command::new("gcc");
    cmd.arg("-E").args(flags).arg(file);
    let (stdout, _) = bounded_gcc(cmd, file, false, places)?;
    Ok(map_lines(decode(&stdout), file, analysed, places))
}

/// Runs gcc under the query timeout and the output cap of [`crate::limits`]: the program
/// under review decides what its preprocessor does (`#include` of a device, macros that
/// expand without end). Standard output and error of a successful run, or (with
/// `failure_ok`) of a failed one.
fn bounded_gcc(
    cmd: Command,
    file: &Path,
    failure_ok: bool,
    places: &Places,
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
                Err(error(first_errors(
                    &String::from_utf8_lossy(&stderr),
                    places,
                )))
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

/// Refuses a unit of a version under review that read a file it may not read
/// ([`Places::may_read`]: its checkout, the trusted include directories and harness files,
/// gcc's system include directories, mergelens's own header): the path is named, never its
/// contents.
pub(crate) fn check_confined(
    pre: &Preprocessed,
    file: &Path,
    places: &Places,
) -> Result<(), FrontEndError> {
    let mut read = vec![false; pre.files.len()];
    for &(index, _, _) in &pre.rows {
        read[index as usize] = true;
    }
    for (source, _) in pre.files.iter().zip(read).filter(|(_, r)| *r) {
        if !places.may_read(&source.name) {
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

/// The first error lines of a gcc run, joined into one line. For a version under review, a
/// message located in a file the run may not read (`#include "/etc/..."` before
/// [`check_confined`] could refuse it) gives its place only: gcc quotes source text, and
/// none of a host's files may reach a report.
fn first_errors(stderr: &str, places: &Places) -> String {
    let shown = |line: &str| -> Option<String> {
        if !places.confined() {
            return Some(line.to_string());
        }
        let (file, at) = diagnostic_place(line)?;
        Some(if places.may_read(file) {
            line.to_string()
        } else {
            format!(
                "{file}:{at}: an error in a file outside the checkout (gcc's message is withheld: it may quote the file)"
            )
        })
    };
    let errors: Vec<String> = stderr
        .lines()
        .filter(|l| l.contains("error"))
        .filter_map(shown)
        .take(2)
        .collect();
    let chosen = if errors.is_empty() {
        stderr.lines().filter_map(shown).take(2).collect()
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

/// The file and line (`12` or `12:5`) of a gcc diagnostic `file:12:5: error: ...`; `None` for
/// lines that are no located diagnostic (a quoted source line, `compilation terminated.`).
fn diagnostic_place(line: &str) -> Option<(&str, &str)> {
    let location = [": error: ", ": fatal error: ", ": warning: ", ": note: "]
        .iter()
        .filter_map(|kind| line.find(kind))
        .min()
        .map(|end| &line[..end])?;
    let mut numbers = 0;
    let mut split = location.len();
    for (i, _) in location.rmatch_indices(':').take(2) {
        let tail = &location[i + 1..split];
        if tail.is_empty() || !tail.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        numbers += 1;
        split = i;
    }
    (numbers > 0).then(|| (&location[..split], &location[split + 1..]))
}

/// Reads gcc's output back to files and lines. A region gcc flags as a system header's is
/// one if its file is in a system include directory ([`Places::is_system`]). Anywhere else
/// the flag has two sources: the tokens of a system macro expanded in the user's code, a
/// region that gcc closes again with a marker of the same file without the flag (`# 3 "m.c"
/// 3 4` ... `# 3 "m.c"`), and a file that declared itself a system header (`#pragma GCC
/// system_header`), whose region runs to the file's end. The first is the system's text;
/// the second is the file's own and recorded in [`Preprocessed::self_declared_system`].
/// (Line directives that could forge either are blanked in a version under review before
/// gcc runs: [`super::line_directives`].)
pub(crate) fn map_lines(
    text: String,
    main_file: &Path,
    analysed: &[PathBuf],
    places: &Places,
) -> Preprocessed {
    let main_name = main_file.to_string_lossy().into_owned();
    let mut map = LineMap {
        files: vec![SourceFile {
            system: places.is_system(&main_name),
            name: main_name.clone(),
            analysed: true,
        }],
        index: HashMap::from([(main_name, 0)]),
        rows: Vec::new(),
        self_declared_system: Vec::new(),
    };
    let mut parse_text = String::with_capacity(text.len());
    let (mut file, mut line, mut system) = (0u32, 1u32, false);
    // The first row of an open flagged region in a file outside the system directories.
    let mut pending: Option<usize> = None;
    for raw in text.split_inclusive('\n') {
        let content = raw.trim_end_matches(['\n', '\r']);
        let directive = content.trim_start().starts_with('#');
        blank_or_copy(raw, directive, &mut parse_text);
        let origin = map.origin(file, system);
        map.rows.push((file, line, origin));
        let Some(marker) = directive.then(|| parse_marker(content)).flatten() else {
            line += 1;
            continue;
        };
        let next = map.file_index(&marker.file, analysed, places);
        if let Some(first) = pending.take() {
            let same_file = next == file && !marker.enter && !marker.leave;
            if same_file && marker.system {
                pending = Some(first);
            } else if !same_file {
                map.self_declared(first);
            }
        }
        (file, line, system) = (next, marker.line, marker.system);
        if system && !map.files[file as usize].system && pending.is_none() {
            pending = Some(map.rows.len());
        }
    }
    if let Some(first) = pending {
        map.self_declared(first);
    }
    Preprocessed {
        text,
        parse_text,
        files: map.files,
        rows: map.rows,
        self_declared_system: map.self_declared_system,
        harness: false,
    }
}

/// Copies a line of gcc's output into the parser's text, a directive as spaces: one per
/// byte, not per character, since the parse tree's byte offsets index the output, where the
/// edits are applied, and a line marker may name a file `größe.h`.
fn blank_or_copy(raw: &str, directive: bool, parse_text: &mut String) {
    if !directive {
        parse_text.push_str(raw);
        return;
    }
    for c in raw.chars() {
        match c {
            '\n' => parse_text.push('\n'),
            c => parse_text.extend(std::iter::repeat_n(' ', c.len_utf8())),
        }
    }
}

/// The files and rows of [`map_lines`] while it reads.
struct LineMap {
    files: Vec<SourceFile>,
    index: HashMap<String, u32>,
    rows: Vec<(u32, u32, FileOrigin)>,
    self_declared_system: Vec<(String, u32)>,
}

impl LineMap {
    fn origin(&self, file: u32, system: bool) -> FileOrigin {
        let source = &self.files[file as usize];
        if system {
            FileOrigin::System
        } else if source.analysed {
            FileOrigin::Analysed
        } else {
            FileOrigin::Header
        }
    }

    fn file_index(&mut self, name: &str, analysed: &[PathBuf], places: &Places) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.files.push(SourceFile {
            name: name.to_string(),
            analysed: is_analysed(name, analysed),
            system: places.is_system(name),
        });
        let i = (self.files.len() - 1) as u32;
        self.index.insert(name.to_string(), i);
        i
    }

    /// The flagged region from row `first` on was a file's own claim to be a system
    /// header: its rows are the file's again.
    fn self_declared(&mut self, first: usize) {
        let Some(&(file, line, _)) = self.rows.get(first) else {
            return;
        };
        for row in first..self.rows.len() {
            let (f, _, origin) = self.rows[row];
            if origin == FileOrigin::System {
                self.rows[row].2 = self.origin(f, false);
            }
        }
        let name = self.files[file as usize].name.clone();
        self.self_declared_system.push((name, line));
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
    /// Flag 1: entering an included file.
    enter: bool,
    /// Flag 2: returning to the includer.
    leave: bool,
    /// Flag 3: what follows is flagged as a system header's.
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
        enter: flags.contains(&"1"),
        leave: flags.contains(&"2"),
        system: flags.contains(&"3"),
    })
}

/// Undoes gcc's escaping of file names: `\\`, `\"`, `\n` for a line break in the name, and
/// octal escapes of other bytes.
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
            Some(b'n') => out.push(b'\n'),
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
    places: &Places,
) -> Option<(PathBuf, u32, u32, String)> {
    let mut cmd = Command::new("gcc");
    cmd.arg("-fsyntax-only").arg("-w").args(flags).arg(file);
    let (_, stderr) = bounded_gcc(cmd, file, true, places).ok()?;
    let stderr = String::from_utf8_lossy(&stderr);
    stderr
        .lines()
        .filter_map(parse_gcc_error)
        .find(|(at, ..)| places.may_read(&at.to_string_lossy()))
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
    use proptest::prelude::*;

    fn places() -> Places {
        Places::with_system(vec![PathBuf::from("/usr/include")])
    }

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
        let text = "# 0 \"main.c\"\n# 1 \"/usr/include/stdio.h\" 1 3\nint s;\n# 5 \"main.c\" 2\nint x;\n\nint y;\n#pragma weak y\nint z;\n".to_string();
        let p = map_lines(text.clone(), Path::new("main.c"), &[], &places());
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
        let p = map_lines(text.clone(), Path::new("main.c"), &[], &places());
        assert_eq!(p.parse_text.len(), text.len());
        assert_eq!(p.parse_text.find("int b;"), text.find("int b;"));
        assert_eq!(p.files[p.origin(2).0].name, "größe.h");
    }

    #[test]
    fn system_regions_inside_a_header_do_not_make_it_a_system_header() {
        let text =
            "# 1 \"main.c\"\n# 1 \"lib.h\" 1\nint a =\n# 3 \"lib.h\" 3 4\n0\n# 3 \"lib.h\"\n;\n"
                .to_string();
        let p = map_lines(text, Path::new("main.c"), &[], &places());
        assert_eq!(p.origin(2), (1, 1, FileOrigin::Header));
        assert_eq!(p.origin(4), (1, 3, FileOrigin::System));
        assert_eq!(p.origin(6), (1, 3, FileOrigin::Header));
        let text = "# 1 \"main.c\"\nx =\n# 1 \"main.c\" 3 4\n0\n# 1 \"main.c\"\n;\n".to_string();
        let p = map_lines(text, Path::new("main.c"), &[], &places());
        assert_eq!(p.origin(1), (0, 1, FileOrigin::Analysed));
        assert_eq!(p.origin(3), (0, 1, FileOrigin::System));
        assert!(p.self_declared_system.is_empty());
    }

    /// What `#pragma GCC system_header` (or `_Pragma` through a macro) makes of a header of
    /// the checkout: a flagged region that runs to the file's end. Its text stays the
    /// file's, and the claim is recorded.
    #[test]
    fn a_header_that_calls_itself_a_system_header_is_not_one() {
        let text = "# 1 \"main.c\"\n# 1 \"h.h\" 1\nint a;\n# 3 \"h.h\" 3\nint after(void) { return 1; }\n# 5 \"h.h\" 3\nint more;\n# 2 \"main.c\" 2\nint b;\n".to_string();
        let p = map_lines(text, Path::new("main.c"), &[], &places());
        assert_eq!(p.origin(4), (1, 3, FileOrigin::Header));
        assert_eq!(p.origin(6), (1, 5, FileOrigin::Header));
        assert_eq!(p.origin(8), (0, 2, FileOrigin::Analysed));
        assert_eq!(p.self_declared_system, vec![("h.h".to_string(), 3)]);
        // Up to the end of the text, too; and in the main file.
        let text =
            "# 1 \"main.c\"\nint a;\n# 2 \"main.c\" 3\nint f(void) { return 0; }\n".to_string();
        let p = map_lines(text, Path::new("main.c"), &[], &places());
        assert_eq!(p.origin(3), (0, 2, FileOrigin::Analysed));
        assert_eq!(p.self_declared_system.len(), 1);
    }

    /// A marker that names a real system header makes its text the system's; a name that
    /// only claims the flag does not (the marker itself cannot come from a version under
    /// review: its line directives are blanked before gcc runs).
    #[test]
    fn only_files_in_the_system_directories_are_system_headers() {
        let text =
            "# 1 \"main.c\"\n# 1 \"/etc/hostname\" 1 3 4\nint h;\n# 2 \"main.c\" 2\nint b;\n"
                .to_string();
        let p = map_lines(text, Path::new("main.c"), &[], &places());
        assert_eq!(p.origin(2).2, FileOrigin::Header);
        assert!(!p.files[1].system);
    }

    #[test]
    fn gcc_messages_about_files_outside_the_checkout_are_withheld() {
        let checkout = tempfile::tempdir().unwrap();
        let inside = checkout.path().join("a.c");
        std::fs::write(&inside, "int x;\n").unwrap();
        let places = Places::confined_for_test(
            vec![PathBuf::from("/usr/include")],
            vec![checkout.path().canonicalize().unwrap()],
        );
        let stderr = format!(
            "In file included from {0}:1:\n/etc/passwd:1:5: error: root:x:0:0 is no C\n    1 | root:x:0:0\n{0}:2:1: error: expected ';'\n",
            inside.display()
        );
        let said = first_errors(&stderr, &places);
        assert!(!said.contains("root:x"), "{said}");
        assert!(
            said.contains("/etc/passwd:1:5: an error in a file outside the checkout"),
            "{said}"
        );
        assert!(said.contains("a.c:2:1: error: expected ';'"), "{said}");
        // Unconfined (the user's own files): gcc's words as they are.
        let open = Places::with_system(vec![PathBuf::from("/usr/include")]);
        assert!(first_errors(&stderr, &open).contains("root:x"));
        assert_eq!(diagnostic_place("f.c:12: warning: w"), Some(("f.c", "12")));
        assert_eq!(diagnostic_place("    1 | int x"), None);
    }

    #[test]
    fn names_with_line_breaks_are_read_back() {
        let m = parse_marker(r#"# 1 "new\nl\"i\\ne.c""#).unwrap();
        assert_eq!(m.file, "new\nl\"i\\ne.c");
    }

    /// gcc's escaping of a file name in a marker, as it writes it.
    fn gcc_quote(name: &str) -> String {
        let mut out = String::new();
        for c in name.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                '\n' => out.push_str("\\n"),
                c => out.push(c),
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(10_000))]

        /// Any file name and flags gcc could write come back as they were; any line at all
        /// reads without a panic.
        #[test]
        fn the_marker_reader_reads_back_what_gcc_writes(
            name in "[^\\x00\\r]{0,24}",
            line in 0u32..1_000_000,
            flags in proptest::sample::subsequence(vec!["1", "2", "3", "4"], 0..=4),
            junk in ".{0,40}",
        ) {
            let written = format!("# {line} \"{}\" {}", gcc_quote(&name), flags.join(" "));
            let m = parse_marker(&written).unwrap();
            prop_assert_eq!(&m.file, &name);
            prop_assert_eq!(m.line, line);
            prop_assert_eq!(m.system, flags.contains(&"3"));
            prop_assert_eq!((m.enter, m.leave), (flags.contains(&"1"), flags.contains(&"2")));
            let _ = parse_marker(&junk);
            let _ = parse_marker(&format!("# {junk}"));
        }
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
