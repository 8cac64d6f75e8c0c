//! What `mergelens init` finds in a repository: the program's C files (a compilation
//! database, the files committed on `HEAD`, or the user's globs), the include directories
//! gcc needs, the files left out with the reason, and the candidate entry functions.
//!
//! Key items: [`Program`] and [`find_program`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::error::SetupError;
use super::skeleton::{Candidate, HARNESS_FILE, head};
use crate::config::CompileCommands;
use crate::cprog::{
    self, EventKind, FrontEndConfig, FrontEndError, FunctionOrigin, InstrumentedProgram, SiteKind,
};
use crate::git::GitRepo;
use crate::git::paths::shown_relative;

/// A C file not analysed, and why.
pub type LeftOut = (String, String);

/// What `init` found.
pub struct Program {
    /// Repository-relative C files.
    pub files: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    pub defines: Vec<String>,
    /// The compilation database used, repository-relative.
    pub compile_commands: Option<String>,
    /// C files not analysed, each with the reason; then `.mergelens.toml` lists the files
    /// one by one, so that no glob takes them back in.
    pub left_out: Vec<LeftOut>,
    pub candidates: Vec<Candidate>,
    /// Every analysed function that is not `static`: what `--harness-for` may call.
    pub callable: Vec<Candidate>,
}

/// The program's files and candidate entries.
pub fn find_program(
    repo: &GitRepo,
    globs: &[String],
    warn: &mut dyn FnMut(String),
) -> Result<Program, SetupError> {
    let root = repo.root();
    let mut program = Program {
        files: Vec::new(),
        include_dirs: Vec::new(),
        defines: Vec::new(),
        compile_commands: None,
        left_out: Vec::new(),
        candidates: Vec::new(),
        callable: Vec::new(),
    };
    let database = ["compile_commands.json", "build/compile_commands.json"]
        .into_iter()
        .find(|p| root.join(p).is_file());
    match database {
        Some(db) if globs.is_empty() => {
            let read = CompileCommands::read(&root.join(db), root)?;
            for w in &read.warnings {
                warn(w.to_string());
            }
            program.files = read.files;
            program.include_dirs = read.include_dirs;
            program.defines = read.defines;
            program.compile_commands = Some(db.to_string());
        }
        _ => {
            let committed: Vec<String> = match repo.resolve("HEAD") {
                Ok(head) => repo
                    .commit_snapshot(&head)?
                    .paths()
                    .filter(|p| p.ends_with(".c") || p.ends_with(".h"))
                    .map(str::to_string)
                    .collect(),
                Err(_) => work_tree_c_files(root),
            };
            let (all, headers): (Vec<String>, Vec<String>) =
                committed.into_iter().partition(|p| p.ends_with(".c"));
            (program.files, program.left_out) = select(all, globs)?;
            let mut include_dirs = Vec::new();
            program.files.retain(|f| {
                match not_preprocessed(root, f, &headers, &mut include_dirs) {
                    None => true,
                    Some(first) => {
                        program
                            .left_out
                            .push((f.clone(), format!("gcc cannot preprocess it: {first}")));
                        false
                    }
                }
            });
            program.include_dirs = include_dirs;
        }
    }
    program.files.retain(|f| f != HARNESS_FILE);
    leave_out_programs_of_their_own(&mut program, root);
    program.files.sort();
    program.left_out.sort();
    if program.files.is_empty() {
        return Err(SetupError::Usage(format!(
            "no C files to analyse in {} (committed on HEAD, or in a compile_commands.json at the root or in build/){}",
            root.display(),
            match program.left_out.as_slice() {
                [] => String::new(),
                [(file, why), ..] => format!(
                    "; {} left out, the first {file}: {why} (name files with --files)",
                    program.left_out.len()
                ),
            }
        )));
    }
    (program.candidates, program.callable) = candidates(&program, root)?;
    Ok(program)
}

/// Why gcc cannot preprocess `file` (the first line of its complaint), `None` when it can,
/// after adding to `include_dirs` (repository-relative) the directory of each header it
/// cannot find that the repository holds under one path (a library's
/// `#include <http_parser.h>` of its own header at the root): what `init` writes as
/// `include-dirs`.
fn not_preprocessed(
    root: &Path,
    file: &str,
    headers: &[String],
    include_dirs: &mut Vec<PathBuf>,
) -> Option<String> {
    loop {
        let dirs: Vec<PathBuf> = include_dirs.iter().map(|d| root.join(d)).collect();
        let e = cprog::preprocess_check(&root.join(file), &dirs, &[]).err()?;
        let why = crate::failure::text(&e);
        let first = why.lines().next().unwrap_or_default().to_string();
        let Some(missing) = missing_header(&why) else {
            return Some(first);
        };
        let mut holders = headers
            .iter()
            .filter(|h| *h == missing || h.ends_with(&format!("/{missing}")));
        let (Some(header), None) = (holders.next(), holders.next()) else {
            return Some(first);
        };
        let dir = Path::new(header[..header.len() - missing.len()].trim_end_matches('/'));
        let dir = if dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            dir.to_path_buf()
        };
        if include_dirs.contains(&dir) {
            return Some(first);
        }
        include_dirs.push(dir);
    }
}

/// The header gcc reports missing (`fatal error: x/y.h: No such file or directory`).
fn missing_header(gcc: &str) -> Option<&str> {
    gcc.lines().find_map(|l| {
        let rest = l.split("fatal error: ").nth(1)?;
        let (name, _) = rest.split_once(": No such file or directory")?;
        (!name.is_empty() && !name.contains("..")).then_some(name)
    })
}

/// The files to analyse and those left out with the reason: `globs` when given, else all
/// but test, example, benchmark and fuzzing code (a second `main`, inputs of their own).
fn select(all: Vec<String>, globs: &[String]) -> Result<(Vec<String>, Vec<LeftOut>), SetupError> {
    if !globs.is_empty() {
        let patterns = globs
            .iter()
            .map(|g| {
                glob::Pattern::new(g)
                    .map_err(|e| SetupError::Usage(format!("--files {g}: not a glob ({e})")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (keep, _): (Vec<String>, Vec<String>) = all
            .into_iter()
            .partition(|f| patterns.iter().any(|p| p.matches(f)));
        if keep.is_empty() {
            return Err(SetupError::Usage(format!(
                "--files {}: matches no C file committed on HEAD",
                globs.join(", ")
            )));
        }
        return Ok((keep, Vec::new()));
    }
    let (mut keep, mut left_out) = (Vec::new(), Vec::new());
    for f in all {
        if is_auxiliary(&f) {
            left_out.push((f, "test, example, benchmark or fuzzing code".to_string()));
        } else {
            keep.push(f);
        }
    }
    Ok((keep, left_out))
}

/// Whether a path is test, example, benchmark or fuzzing code by its directories or name.
fn is_auxiliary(path: &str) -> bool {
    const WORDS: [&str; 16] = [
        "test",
        "tests",
        "testing",
        "unittest",
        "example",
        "examples",
        "sample",
        "samples",
        "bench",
        "benchmark",
        "benchmarks",
        "fuzz",
        "fuzzing",
        "demo",
        "demos",
        "repl",
    ];
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    let stem = file.strip_suffix(".c").unwrap_or(file).to_ascii_lowercase();
    let named = [
        "test", "fuzz", "example", "bench", "smoke", "demo", "sample",
    ]
    .iter()
    .any(|w| stem.starts_with(w))
        || [
            "_test",
            "_tests",
            "_fuzzer",
            "_bench",
            "_benchmark",
            "_repl",
        ]
        .iter()
        .any(|w| stem.ends_with(w))
        || stem == "repl";
    named
        || parts
            .iter()
            .any(|d| WORDS.contains(&d.to_ascii_lowercase().as_str()) || d.ends_with("_test"))
}

/// Leaves out the files that define `main` when more than one does: each is a program of
/// its own beside the library (a test, benchmark, REPL or demo whose name did not say so),
/// and the review of one program cannot link two `main`s.
fn leave_out_programs_of_their_own(program: &mut Program, root: &Path) {
    let with_main: Vec<String> = program
        .files
        .iter()
        .filter(|f| std::fs::read(root.join(f)).is_ok_and(|text| defines_main(&text)))
        .cloned()
        .collect();
    if with_main.len() < 2 {
        return;
    }
    program.files.retain(|f| !with_main.contains(f));
    for f in with_main {
        program.left_out.push((
            f,
            "defines `main` as other files do: a program of its own beside the library (name it with --files to analyse it)".to_string(),
        ));
    }
}

/// Whether C text defines `main` at the start of a line (`int main(`, `int\nmain (`,
/// `static int main(`); a textual look, enough to tell programs from a library.
fn defines_main(text: &[u8]) -> bool {
    String::from_utf8_lossy(text).lines().any(|line| {
        let mut t = line.trim_start();
        for prefix in ["static ", "int ", "void ", "signed ", "extern "] {
            t = t.strip_prefix(prefix).unwrap_or(t).trim_start();
        }
        t.strip_prefix("main")
            .is_some_and(|rest| rest.trim_start().starts_with('('))
    })
}

/// The `.c` files under `root`, outside hidden directories, repository-relative.
fn work_tree_c_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let hidden = e.file_name().to_string_lossy().starts_with('.');
            match e.file_type() {
                Ok(t) if t.is_dir() && !hidden => todo.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|x| x == "c") => {
                    out.push(shown_relative(&path, root));
                }
                _ => {}
            }
        }
    }
    out
}

pub fn front_end(program: &Program, root: &Path, entry: &str, events: EventKind) -> FrontEndConfig {
    let mut config = FrontEndConfig::in_tree(
        root,
        &program.files,
        &program.include_dirs,
        &program.defines,
        entry,
    );
    config.events = events;
    config
}

/// `main`, then the analysed functions that are not `static` and that no other analysed
/// function calls, in the order of their files and lines; and every function that is not
/// `static`.
fn candidates(
    program: &Program,
    root: &Path,
) -> Result<(Vec<Candidate>, Vec<Candidate>), SetupError> {
    let dir = tempfile::tempdir().map_err(SetupError::TempDir)?;
    // The front end reads the whole program for any entry: `main`, or the first function
    // defined when there is none. Calls as events give the call graph; a program with no
    // call at all has no call events, so function events stand in.
    let mut entry = "main".to_string();
    let mut calls = true;
    let instrumented = loop {
        let events = if calls {
            EventKind::Calls
        } else {
            EventKind::Functions
        };
        match cprog::instrument(&front_end(program, root, &entry, events), dir.path()) {
            Ok(p) => break p,
            Err(FrontEndError::MissingEntry { defined, .. })
                if entry == "main" && !defined.is_empty() =>
            {
                entry.clone_from(&defined[0]);
            }
            Err(FrontEndError::EmptyAlphabet) if calls => {
                calls = false;
            }
            Err(e) => return Err(e.into()),
        }
    };
    Ok((
        uncalled(&instrumented, calls, true),
        uncalled(&instrumented, calls, false),
    ))
}

/// The analysed functions that are not `static` (and, if `only_uncalled`, that no other
/// analysed function calls), `main` first.
fn uncalled(p: &InstrumentedProgram, calls: bool, only_uncalled: bool) -> Vec<Candidate> {
    let graph = call_graph(p);
    let called: BTreeSet<&str> = if calls && only_uncalled {
        p.events
            .iter()
            .filter(|e| e.kind == SiteKind::Call)
            .filter_map(|e| {
                let name = p.alphabet.name(e.letter);
                let callee = name.split_once('@').map_or(name, |(f, _)| f);
                (callee != e.function).then_some(callee)
            })
            .collect()
    } else {
        BTreeSet::new()
    };
    let mut out: Vec<Candidate> = p
        .functions
        .iter()
        .filter(|f| f.origin == FunctionOrigin::Analysed)
        .filter(|f| f.name == "main" || (!called.contains(f.name.as_str()) && !is_static(f)))
        .map(|f| Candidate {
            name: f.name.clone(),
            parameters: f.parameters.clone(),
            file: f.file.clone(),
            line: f.line,
            reaches: reach(&graph, &f.name),
        })
        .collect();
    // `main` first, then the entries that reach most of the program.
    out.sort_by_key(|c| {
        (
            c.name != "main",
            std::cmp::Reverse(c.reaches),
            c.file.clone(),
            c.line,
        )
    });
    out.dedup_by(|a, b| a.name == b.name);
    out
}

/// Caller → callees, from the program's call events (empty without them).
fn call_graph(p: &InstrumentedProgram) -> std::collections::BTreeMap<&str, BTreeSet<&str>> {
    let mut graph: std::collections::BTreeMap<&str, BTreeSet<&str>> = Default::default();
    for e in p.events.iter().filter(|e| e.kind == SiteKind::Call) {
        let name = p.alphabet.name(e.letter);
        let callee = name.split_once('@').map_or(name, |(f, _)| f);
        if callee != e.function {
            graph.entry(e.function.as_str()).or_default().insert(callee);
        }
    }
    graph
}

/// How many other functions `from` calls, directly or not.
fn reach(graph: &std::collections::BTreeMap<&str, BTreeSet<&str>>, from: &str) -> usize {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut todo = vec![from];
    while let Some(f) = todo.pop() {
        for &g in graph.get(f).into_iter().flatten() {
            if g != from && seen.insert(g) {
                todo.push(g);
            }
        }
    }
    seen.len()
}

fn is_static(f: &cprog::FunctionInfo) -> bool {
    head(&f.file, f.line, &f.name).is_some_and(|h| {
        h.split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == "static")
    })
}

/// The program instrumented for `entry` (with the harness skeleton when `harness`), and the
/// temporary directory that holds it as long as it is used.
pub fn first_program(
    program: &Program,
    root: &Path,
    entry: &str,
    harness: bool,
) -> Result<(InstrumentedProgram, tempfile::TempDir), SetupError> {
    let mut config = front_end(program, root, entry, EventKind::default());
    if harness {
        config.harness = vec![root.join(HARNESS_FILE)];
    }
    let dir = tempfile::tempdir().map_err(SetupError::TempDir)?;
    let instrumented = cprog::instrument(&config, dir.path())?;
    Ok((instrumented, dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_missing_header_is_read_from_gcc() {
        let gcc = "p.c: the C preprocessor (gcc -E) failed: p.c:24:10: fatal error: sub/x.h: No such file or directory; check the file";
        assert_eq!(missing_header(gcc), Some("sub/x.h"));
        assert_eq!(
            missing_header("fatal error: ../x.h: No such file or directory"),
            None
        );
        assert_eq!(missing_header("p.c:3: error: expected ';'"), None);
    }

    #[test]
    fn test_example_and_fuzzing_code_is_told_apart_from_the_library() {
        for aux in [
            "tests/unity/unity.c",
            "test/main.c",
            "tests.c",
            "test_parse.c",
            "parse_test.c",
            "examples/demo.c",
            "fuzzing/cjson_read_fuzzer.c",
            "src/fuzz_main.c",
            "bench/run.c",
            "bench.c",
            "benchmark.c",
            "repl.c",
            "smoke_main.c",
            "demo/calc.c",
        ] {
            assert!(is_auxiliary(aux), "{aux}");
        }
        for lib in [
            "cJSON.c",
            "src/parser.c",
            "lib/contest.c",
            "attest.c",
            "replace.c",
        ] {
            assert!(!is_auxiliary(lib), "{lib}");
        }
    }

    #[test]
    fn a_definition_of_main_is_seen_in_the_text() {
        for text in [
            "int main(void) {}",
            "int\nmain (int argc, char **argv)\n{",
            "static int main(void)",
            "  main()",
        ] {
            assert!(defines_main(text.as_bytes()), "{text:?}");
        }
        for text in [
            "int mainly(void);",
            "x = main;",
            "int domain(void)",
            "// main(",
        ] {
            assert!(!defines_main(text.as_bytes()), "{text:?}");
        }
    }
}
