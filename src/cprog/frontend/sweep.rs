//! A sweep of real C code through the front end, run by hand: which files of a library it
//! reads, and where tree-sitter-c stops where gcc does not. Ignored by default because it
//! needs sources from outside the repository.
//!
//! `MERGELENS_SWEEP=manifest cargo test --lib cprog::frontend::sweep -- --ignored --nocapture`,
//! where the manifest has one file a line: `path<TAB>-Idir -DNAME ...`. Each file
//! goes through [`super::run`] with an entry no file defines, so a file the front end reads
//! ends in `MissingEntry`, which comes after the syntax check; its first function is then
//! the entry of an instrumentation for calls and one for branches, whose copies gcc must
//! compile. The lines printed are `path<TAB>verdict<TAB>errors in the file<TAB>errors in
//! its headers<TAB>first error<TAB>message`, where the error counts are the tree-sitter
//! errors outside system headers, which the verdict alone does not show (errors in the
//! user's headers are tolerated), and the message says why the file was refused or, for
//! one that was read, what failed in instrumenting or compiling it (empty: nothing).

use std::path::{Path, PathBuf};

use super::{collect_errors, parse};
use crate::cprog::error::FrontEndError;
use crate::cprog::frontend::index::Unit;
use crate::cprog::preprocess::{self, FileOrigin};
use crate::cprog::program::{EventKind, FrontEndConfig};

const ABSENT: &str = "__mergelens_sweep_absent__";

fn verdict(file: &Path, include_dirs: &[PathBuf], defines: &[String]) -> (String, String) {
    let mut config = FrontEndConfig::new(vec![file.to_path_buf()]);
    config.entry = ABSENT.to_string();
    config.include_dirs = include_dirs.to_vec();
    config.defines = defines.to_vec();
    let out = tempfile::tempdir().unwrap();
    match super::run(&config, None, out.path()) {
        Err(FrontEndError::MissingEntry { defined, .. }) => match defined.first() {
            Some(entry) => {
                config.entry = entry.clone();
                // A file gcc itself does not compile with these options says nothing of
                // the instrumentation.
                let header_dir = tempfile::tempdir().unwrap();
                let flags = preprocess::compiler_flags(include_dirs, defines, header_dir.path());
                match preprocess::gcc_syntax_error(file, &flags) {
                    Some((_, _, _, error)) => ("ok".into(), format!("gcc: {error}")),
                    None => ("ok".into(), compiles(&config)),
                }
            }
            None => ("ok".into(), String::new()),
        },
        Ok(_) => ("ok".into(), String::new()),
        Err(FrontEndError::Preprocess { message, .. }) => ("gcc-E".into(), message),
        Err(FrontEndError::SyntaxError { message, .. }) if message.contains("tree-sitter") => {
            ("parser".into(), message)
        }
        Err(e @ FrontEndError::SyntaxError { .. }) => ("gcc".into(), e.to_string()),
        Err(e) => ("other".into(), e.to_string()),
    }
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
        let out = tempfile::tempdir().unwrap();
        let program = match super::run(&config, None, out.path()) {
            Ok(program) => program,
            Err(FrontEndError::EmptyAlphabet) => continue,
            Err(e) => {
                problems.push(format!("{events}: {e}"));
                continue;
            }
        };
        for path in &program.paths {
            let run = std::process::Command::new("gcc")
                .args(["-fsyntax-only", "-w"])
                .arg(path)
                .output()
                .unwrap();
            if !run.status.success() {
                let stderr = String::from_utf8_lossy(&run.stderr);
                let first = stderr.lines().find(|l| l.contains("error")).unwrap_or("");
                problems.push(format!("{events}: gcc on the instrumented copy: {first}"));
            }
        }
    }
    problems.join("; ")
}

#[test]
#[ignore = "needs MERGELENS_SWEEP, a manifest of C files from outside the repository"]
fn sweep() {
    let manifest = std::env::var("MERGELENS_SWEEP").expect("MERGELENS_SWEEP names a manifest");
    let header_dir = tempfile::tempdir().unwrap();
    std::fs::write(header_dir.path().join("mergelens.h"), super::HEADER).unwrap();
    for line in std::fs::read_to_string(manifest).unwrap().lines() {
        let (file, options) = line.split_once('\t').unwrap_or((line, ""));
        let file = PathBuf::from(file);
        let mut include_dirs = Vec::new();
        let mut defines = Vec::new();
        for option in options.split_whitespace() {
            match option.strip_prefix("-I") {
                Some(dir) => include_dirs.push(PathBuf::from(dir)),
                None => defines.push(option.trim_start_matches("-D").to_string()),
            }
        }
        let (verdict, message) = verdict(&file, &include_dirs, &defines);
        let flags = preprocess::compiler_flags(&include_dirs, &defines, header_dir.path());
        let (mut own, mut headers, mut first) = (0, 0, String::new());
        if let Ok(mut pre) = preprocess::preprocess(&file, &flags, &[]) {
            let tree = parse(&mut pre);
            let unit = Unit {
                input: file.clone(),
                pre,
                tree,
            };
            let mut errors = Vec::new();
            collect_errors(unit.tree.root_node(), &unit, &mut errors);
            for node in &errors {
                let (name, at, origin) = unit.locate(*node);
                if origin == FileOrigin::Analysed {
                    own += 1;
                } else {
                    headers += 1;
                }
                if first.is_empty() {
                    let row = node.start_position().row;
                    let text: String = unit
                        .src()
                        .lines()
                        .nth(row)
                        .unwrap_or("")
                        .trim()
                        .chars()
                        .take(100)
                        .collect();
                    first = format!("{name}:{at}: {text}");
                }
            }
        }
        println!(
            "{}\t{verdict}\t{own}\t{headers}\t{first}\t{}",
            file.display(),
            message.replace(['\n', '\t'], " ")
        );
    }
}
