//! The commented `.mergelens.toml` `mergelens init` writes ([`config_text`]).

use std::collections::BTreeSet;

use super::discover::Program;
use super::skeleton::HARNESS_FILE;

/// The `include-dirs` line: the directories `init` found the program's own headers in
/// (see [`not_preprocessed`]), else a commented example.
fn include_dirs_line(program: &Program) -> String {
    if program.include_dirs.is_empty() {
        return "# include-dirs = [\"include\"]\n# defines = [\"NDEBUG\"]\n".to_string();
    }
    let dirs: Vec<String> = program
        .include_dirs
        .iter()
        .map(|d| toml_string(&d.display().to_string()))
        .collect();
    format!(
        "# Where the files' own headers are (the directories gcc needed).\ninclude-dirs = [{}]\n# defines = [\"NDEBUG\"]\n",
        dirs.join(", ")
    )
}

/// `s` as a TOML basic string: a committed path is data, whatever characters it holds.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The commented `.mergelens.toml`.
pub fn config_text(program: &Program, entry: &str, harness: bool) -> String {
    let mut dirs: BTreeSet<String> = BTreeSet::new();
    for f in &program.files {
        dirs.insert(match f.rsplit_once('/') {
            Some((d, _)) => format!("{d}/*.c"),
            None => "*.c".to_string(),
        });
    }
    let quoted = |items: &mut dyn Iterator<Item = String>| {
        items
            .map(|i| toml_string(&i))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut t = "# mergelens configuration, written by `mergelens init`; every key is in docs/formats.md.\n# A review reads this file as committed on the branch merged into (ours): commit it.\n\n".to_string();
    match &program.compile_commands {
        Some(db) => t.push_str(&format!(
            "# The C files, include directories and defines of this compilation database.\ncompile-commands = \"{db}\"\n"
        )),
        None if !program.left_out.is_empty() => {
            t.push_str(&format!(
                "# The C files, one by one: `mergelens init` left out {} (test, example or fuzzing\n# code, or files gcc cannot preprocess alone).\nfiles = [{}]\n",
                program.left_out.len(),
                quoted(&mut program.files.iter().cloned())
            ));
            t.push_str(&include_dirs_line(program));
        }
        None => {
            t.push_str(&format!(
                "# The C files (repository-relative globs). Found: {}.\nfiles = [{}]\n",
                program.files.join(", "),
                quoted(&mut dirs.into_iter())
            ));
            t.push_str(&include_dirs_line(program));
        }
    }
    t.push_str("\n# The functions whose behaviour is learned. Candidates found:\n");
    for c in &program.candidates {
        t.push_str(&format!("#   {}({})\n", c.name, c.parameters.join(", ")));
    }
    t.push_str(
        "# A function with parameters is called on nondeterministic arguments (a generated harness).\n",
    );
    t.push_str(&format!("entries = [\"{entry}\"]\n"));
    if harness {
        t.push_str(&format!(
            "\n# Compiled with every version, read from the committed HEAD (so it serves old tags and\n# merge bases alike); its functions are no events.\nharness = [\"{HARNESS_FILE}\"]\n"
        ));
    } else {
        t.push_str(
            "\n# A harness file calling the code on bounded nondeterministic input, read from HEAD:\n# harness = [\"tests/harness.c\"]\n",
        );
    }
    t.push_str(
        "\n# Bounds: loop bodies run at most `unwind` times; words have at most `max-word-length`\n# letters. `mergelens init` suggests values; auto-bounds raises unwind until nothing changes.\n# unwind = 2\n# max-word-length = 10\n# auto-bounds = true\n\n# When a review fails (exit code 1): \"never\", \"unexpected\", \"lost\", \"overlapping\", \"any\",\n# \"unfinished\", \"inconclusive\", or a list such as [\"unexpected\", \"lost\", \"unfinished\"].\nfail-on = [\"unexpected\", \"lost\"]\n",
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_written_as_a_toml_string() {
        let written = toml_string("a\"b\\c\nd");
        assert_eq!(written, "\"a\\\"b\\\\c\\u000Ad\"");
        let read: toml::Value = toml::from_str(&format!("k = {written}")).unwrap();
        assert_eq!(read["k"].as_str(), Some("a\"b\\c\nd"));
    }
}
