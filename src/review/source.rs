//! The source changes a report shows next to its languages: for the functions whose letters
//! occur in the differences (and the entry itself), a unified diff of the function's text
//! from one version to another (base → merged in a review, ours → theirs in a conflict,
//! old → new in a diff).
//!
//! A function's text is cut from the checked-out source by the front end's lines
//! ([`crate::cprog::FunctionInfo`]'s `line` to `end_line`, the name to the closing brace), so
//! a return type on the line before the name is not part of it. A function absent in one
//! version (or defined by a version without the entry, which is not instrumented) diffs
//! against empty text.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

use similar::TextDiff;

use crate::automaton::analysis;
use crate::cprog;
use crate::document::{Difference, SourceChange, Version};

/// Longer functions are left out: their diff would drown the report.
const LONGEST_FUNCTION: u32 = 2_000;

/// At most this many changes per entry: a reviewer reads the first few anyway.
const MOST_CHANGES: usize = 50;

/// Where one version defines a function.
#[derive(Clone, Debug)]
pub(crate) struct FunctionSpan {
    pub name: String,
    pub version: Version,
    /// Where the front end read it (in the version's checkout).
    pub path: PathBuf,
    /// Relative to the repository root.
    pub file: String,
    pub line: u32,
    pub end_line: u32,
}

/// The letters the differences are about: those of their examples and those on some path
/// of their automata to acceptance.
pub(crate) fn letters<'a>(
    differences: impl IntoIterator<Item = &'a Difference>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for d in differences {
        out.extend(d.examples.iter().flatten().cloned());
        let dfa = &d.automaton.0;
        let useful = analysis::useful_states(dfa);
        out.extend(
            dfa.transitions()
                .filter(|&(q, _, to)| useful[q as usize] && useful[to as usize])
                .map(|(_, a, _)| dfa.alphabet().name(a).to_string()),
        );
    }
    out.remove(cprog::END_LETTER);
    out
}

/// The function a letter names: the letter itself (a function entry), or its part before
/// `@` (a call, `callee@line`) or `:` (a branch or marker inside a function).
fn candidates(letter: &str) -> impl Iterator<Item = &str> {
    [
        Some(letter),
        letter.split_once('@').map(|(f, _)| f),
        letter.split_once(':').map(|(f, _)| f),
    ]
    .into_iter()
    .flatten()
}

/// The changes from `from` to `to` of the functions `letters` name and of `entry`, in the
/// order of the functions' names.
pub(crate) fn changes(
    letters: &BTreeSet<String>,
    entry: &str,
    spans: &[FunctionSpan],
    from: Version,
    to: Version,
) -> Vec<SourceChange> {
    let defined: BTreeSet<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    let mut wanted: BTreeSet<&str> = letters
        .iter()
        .flat_map(|l| candidates(l))
        .filter(|n| defined.contains(n))
        .collect();
    wanted.insert(entry);
    // (name, file) → the spans in `from` and `to`: a `static` function may be defined in
    // several files, each its own function.
    let mut pairs: BTreeMap<(&str, &str), [Option<&FunctionSpan>; 2]> = BTreeMap::new();
    for s in spans.iter().filter(|s| wanted.contains(s.name.as_str())) {
        let side = if s.version == from {
            0
        } else if s.version == to {
            1
        } else {
            continue;
        };
        pairs.entry((&s.name, &s.file)).or_default()[side] = Some(s);
    }
    let mut files = SourceFiles::default();
    let mut out = Vec::new();
    for ((name, file), [old, new]) in pairs {
        if out.len() == MOST_CHANGES {
            break;
        }
        if [old, new]
            .iter()
            .flatten()
            .any(|s| s.end_line.saturating_sub(s.line) >= LONGEST_FUNCTION)
        {
            continue;
        }
        let old_text = old.map(|s| files.text(s)).unwrap_or_default();
        let new_text = new.map(|s| files.text(s)).unwrap_or_default();
        if old_text == new_text {
            continue;
        }
        let diff = TextDiff::from_lines(&old_text, &new_text)
            .unified_diff()
            .context_radius(3)
            .header(&format!("{file} ({from})"), &format!("{file} ({to})"))
            .to_string();
        out.push(SourceChange {
            function: name.to_string(),
            file: file.to_string(),
            from,
            to,
            diff: Some(diff),
            old: None,
            new: None,
        });
    }
    out
}

/// The checked-out sources, each read once, as lines with their endings.
#[derive(Default)]
struct SourceFiles {
    lines: HashMap<PathBuf, Vec<String>>,
}

impl SourceFiles {
    /// The span's lines; empty when the file cannot be read (it then shows as added or
    /// removed, which is better than no change at all).
    fn text(&mut self, span: &FunctionSpan) -> String {
        let lines = self.lines.entry(span.path.clone()).or_insert_with(|| {
            std::fs::read(&span.path)
                .map(|bytes| {
                    String::from_utf8_lossy(&bytes)
                        .split_inclusive('\n')
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        });
        let first = (span.line.max(1) - 1) as usize;
        let last = (span.end_line.max(span.line) as usize).min(lines.len());
        lines
            .get(first..last)
            .map(|l| l.concat())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::{Alphabet, Dfa};
    use crate::document::Automaton;

    fn span(
        dir: &std::path::Path,
        version: Version,
        text: &str,
        line: u32,
        end: u32,
    ) -> FunctionSpan {
        let path = dir.join(format!("{version}.c"));
        std::fs::write(&path, text).unwrap();
        FunctionSpan {
            name: "f".to_string(),
            version,
            path,
            file: "src/a.c".to_string(),
            line,
            end_line: end,
        }
    }

    #[test]
    fn letters_come_from_examples_and_useful_transitions() {
        let alphabet = Alphabet::from_names(["f@3", "g", "end"]);
        let d = Difference {
            automaton: Automaton(Dfa::new(alphabet)),
            examples: vec![vec!["f@3".to_string(), "end".to_string()]],
            count_up_to_bound: None,
        };
        let l = letters([&d]);
        assert_eq!(l.into_iter().collect::<Vec<_>>(), ["f@3"]);
        assert_eq!(candidates("f@3").collect::<Vec<_>>(), ["f@3", "f"]);
    }

    #[test]
    fn a_changed_function_gets_a_diff_and_an_unchanged_one_none() {
        let dir = tempfile::tempdir().unwrap();
        let old = span(
            dir.path(),
            Version::Base,
            "int x;\nvoid f(void)\n{\n}\n",
            2,
            4,
        );
        let new = span(
            dir.path(),
            Version::Merged,
            "void f(void)\n{\n  g();\n}\n",
            1,
            4,
        );
        let letters: BTreeSet<String> = ["f".to_string()].into();
        let c = changes(
            &letters,
            "main",
            &[old.clone(), new],
            Version::Base,
            Version::Merged,
        );
        assert_eq!(c.len(), 1);
        let diff = c[0].diff.as_deref().unwrap();
        assert!(
            diff.starts_with("--- src/a.c (base)\n+++ src/a.c (merged)\n"),
            "{diff}"
        );
        assert!(
            diff.contains("+  g();\n") && !diff.contains("int x"),
            "{diff}"
        );

        let same = FunctionSpan {
            version: Version::Merged,
            ..old.clone()
        };
        assert!(
            changes(
                &letters,
                "main",
                &[old.clone(), same],
                Version::Base,
                Version::Merged
            )
            .is_empty()
        );
        // Absent in `to`: removed; odd lines past the end of the file cut nothing.
        let c = changes(
            &letters,
            "main",
            std::slice::from_ref(&old),
            Version::Base,
            Version::Merged,
        );
        assert!(c[0].diff.as_deref().unwrap().contains("-void f(void)\n"));
        let odd = FunctionSpan {
            line: 0,
            end_line: 99,
            ..old
        };
        assert_eq!(
            changes(&letters, "main", &[odd], Version::Base, Version::Merged).len(),
            1
        );
    }
}
