//! The pieces the review, diff and automaton pages share: [`Links`] (where each letter of a
//! word links to: the function's definition in the word's own version, else its source
//! change), [`figure`] (an automaton drawn, or listed when too large to draw), [`finding`]
//! (a difference language in the reader's words, with its [`FindingText`]) and the source
//! changes of an entry, relevant ones first. Kept apart from the page builders so that the
//! pages only decide what to show, and show it the same way.

use std::collections::{BTreeSet, HashMap, HashSet};

use similar::TextDiff;

use super::{
    ChangeView, DiffLine, Draw, FALLBACK_WORDS, Figure, Finding, FunctionCell, FunctionRow,
    LetterView, WordView, count_text, embed_svg, short_rev,
};
use crate::automaton::{Dfa, Marks, analysis, svg};
use crate::document::{FunctionLocation, Revision, SourceChange, Version};
use crate::report::compute::{self, Language};

/// Where each function of one entry is defined, by version; the anchors letters link to.
pub(super) struct Links {
    columns: Vec<Version>,
    pub(super) rows: Vec<FunctionRow>,
    row_of: HashMap<String, usize>,
    located: HashMap<(String, Version), String>,
    change_of: HashMap<String, String>,
}

impl Links {
    pub(super) fn new(
        entry_id: &str,
        alphabet: &[String],
        columns: &[Version],
        functions: &[FunctionLocation],
        changes: &[SourceChange],
    ) -> Links {
        let mut located = HashMap::new();
        for f in functions {
            let at = match f.line {
                Some(line) => format!("{}:{line}", f.file),
                None => f.file.clone(),
            };
            located.entry((f.name.clone(), f.version)).or_insert(at);
        }
        // Rows in the alphabet's order (the order the reader sees in the automata), then the
        // functions only the locations or changes know of, by name.
        let mut order: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        let mut rest = BTreeSet::new();
        for f in functions {
            rest.insert(f.name.clone());
        }
        for c in changes {
            rest.insert(c.function.clone());
        }
        for name in alphabet {
            if rest.remove(name) && seen.insert(name.clone()) {
                order.push(name.clone());
            }
        }
        order.extend(rest.into_iter().filter(|n| seen.insert(n.clone())));

        let change_id = |k: usize| format!("{entry_id}-chg{k}");
        let mut change_of = HashMap::new();
        for (k, c) in changes.iter().enumerate() {
            change_of
                .entry(c.function.clone())
                .or_insert_with(|| change_id(k));
        }
        let rows: Vec<FunctionRow> = order
            .iter()
            .enumerate()
            .map(|(r, name)| FunctionRow {
                name: name.clone(),
                cells: columns
                    .iter()
                    .map(|&v| FunctionCell {
                        id: format!("{entry_id}-fn{r}-{v}"),
                        location: located.get(&(name.clone(), v)).cloned().unwrap_or_default(),
                        change: changes
                            .iter()
                            .position(|c| c.function == *name && (c.to == v || c.from == v))
                            .map(|k| format!("#{}", change_id(k))),
                    })
                    .collect(),
            })
            .collect();
        let row_of = order.into_iter().enumerate().map(|(r, n)| (n, r)).collect();
        Links {
            columns: columns.to_vec(),
            rows,
            row_of,
            located,
            change_of,
        }
    }

    pub(super) fn none() -> Links {
        Links::new("page", &[], &[], &[], &[])
    }

    /// `name` as a letter of a word that `version` makes.
    fn letter(&self, name: &str, version: Version) -> LetterView {
        if name == "end" {
            return LetterView {
                name: name.to_string(),
                href: None,
                title: "end: the execution ends here".to_string(),
                end: true,
            };
        }
        let mut href = None;
        let mut title = format!("{name}: no definition recorded");
        if let Some(&row) = self.row_of.get(name) {
            // The definition in the word's own version first, else any version that has one.
            let order = std::iter::once(version).chain(self.columns.iter().copied());
            for v in order {
                let Some(at) = self.located.get(&(name.to_string(), v)) else {
                    continue;
                };
                if let Some(column) = self.columns.iter().position(|&c| c == v) {
                    href = Some(format!("#{}", self.rows[row].cells[column].id));
                }
                title = format!("{name}: defined at {at} ({v})");
                break;
            }
        }
        if href.is_none()
            && let Some(change) = self.change_of.get(name)
        {
            href = Some(format!("#{change}"));
            title = format!("{name}: changed (see its source changes)");
        }
        LetterView {
            name: name.to_string(),
            href,
            title,
            end: false,
        }
    }

    pub(super) fn word(&self, word: &[String], version: Version) -> WordView {
        WordView {
            letters: word.iter().map(|l| self.letter(l, version)).collect(),
            trace: None,
        }
    }
}

/// What a figure is called and how to read it.
pub(super) struct Labels {
    pub(super) id: String,
    pub(super) caption: String,
    pub(super) legend: String,
}

/// The width a drawing may have without scrolling sideways, in CSS pixels: the column of a
/// page on a screen wide enough for it (`main` is at most 1320 pixels wide; less its padding
/// and a finding's and a figure's borders and padding, 1187 are left).
const COLUMN_PX: f64 = 1180.0;
/// A drawing at most this wide fits beside another one (two versions side by side, or a
/// finding's example words beside its drawing); a wider one takes its row to itself.
const HALF_COLUMN_PX: f64 = 560.0;

/// The drawing of `dfa`, or its first words when it is too large to draw.
pub(super) fn figure(
    labels: Labels,
    dfa: &Dfa,
    marks: &Marks,
    bound: usize,
    draw: Draw,
    word: impl Fn(&[String]) -> WordView,
) -> Figure {
    let empty = analysis::is_empty(dfa);
    let mut wide = false;
    let (svg, words, note) = if empty {
        (None, Vec::new(), "It accepts no word.".to_string())
    } else if draw == Draw::No {
        (None, Vec::new(), String::new())
    } else if let Some(drawing) = svg::draw_to_fit(dfa, marks, COLUMN_PX) {
        wide = drawing.width > HALF_COLUMN_PX;
        (
            Some(embed_svg(&drawing.svg, &labels.id)),
            Vec::new(),
            String::new(),
        )
    } else {
        let words: Vec<WordView> = compute::example_words(dfa, bound, FALLBACK_WORDS)
            .iter()
            .map(|w| word(&compute::names(dfa, w)))
            .collect();
        let note = format!(
            "{} states and {} transitions are too many to draw (at most {} states and {} \
             edges are drawn); here are its {} shortest accepted words instead.",
            dfa.num_states(),
            dfa.num_transitions(),
            svg::MAX_DRAWN_STATES,
            svg::MAX_DRAWN_EDGES,
            words.len()
        );
        (None, words, note)
    };
    Figure {
        id: labels.id,
        caption: labels.caption,
        legend: labels.legend,
        svg,
        wide,
        dfa: dfa.clone(),
        empty,
        words,
        note,
    }
}

/// What a finding is, in the reader's words.
pub(super) struct FindingText {
    key: &'static str,
    slug: &'static str,
    title: &'static str,
    formula: &'static str,
    meaning: &'static str,
}

pub(super) const UNEXPECTED: FindingText = FindingText {
    key: "unexpected",
    slug: "unexpected",
    title: "Unexpected behaviour",
    formula: "L(M) \\ L(E)",
    meaning: "Call sequences the merge makes that neither branch's change explains.",
};
/// [`UNEXPECTED`] where the per-execution check gave the verdict: a first pass, no finding.
pub(super) const UNEXPECTED_FIRST_PASS: FindingText = FindingText {
    key: "compare",
    slug: "unexpected",
    title: "Word by word: unexpected words (first pass)",
    formula: "L(M) \\ L(E)",
    meaning: "Call sequences the merge makes that neither branch's change explains word by word. The verdict judges executions instead: two changes on one path make such words and still compose, so these words are no finding by themselves.",
};
/// [`LOST`] where the per-execution check gave the verdict.
pub(super) const LOST_FIRST_PASS: FindingText = FindingText {
    key: "compare",
    slug: "lost",
    title: "Word by word: lost words (first pass)",
    formula: "L(E) \\ L(M)",
    meaning: "Call sequences a branch's change makes word by word that the merge does not make. The verdict judges executions instead, so these words are no finding by themselves.",
};
pub(super) const LOST: FindingText = FindingText {
    key: "lost",
    slug: "lost",
    title: "Lost behaviour",
    formula: "L(E) \\ L(M)",
    meaning: "Call sequences a branch meant the program to make that the merge does not make.",
};
pub(super) const MERGE_MINUS_OURS: FindingText = FindingText {
    key: "compare",
    slug: "merge-minus-ours",
    title: "Merge minus ours",
    formula: "L(M) \\ L(A)",
    meaning: "What the merge does that ours does not (the paper's Fig. 13).",
};
pub(super) const MERGE_MINUS_THEIRS: FindingText = FindingText {
    key: "compare",
    slug: "merge-minus-theirs",
    title: "Merge minus theirs",
    formula: "L(M) \\ L(B)",
    meaning: "What the merge does that theirs does not (the paper's Fig. 14).",
};
pub(super) const OURS_VS_THEIRS: FindingText = FindingText {
    key: "compare",
    slug: "ours-vs-theirs",
    title: "Ours against theirs",
    formula: "L(A) △ L(B)",
    meaning: "The call sequences exactly one of the two branches makes.",
};
pub(super) const ADDED: FindingText = FindingText {
    key: "added",
    slug: "added",
    title: "Added behaviour",
    formula: "L(new) \\ L(old)",
    meaning: "Call sequences the new revision makes and the old one did not.",
};
pub(super) const REMOVED: FindingText = FindingText {
    key: "removed",
    slug: "removed",
    title: "Removed behaviour",
    formula: "L(old) \\ L(new)",
    meaning: "Call sequences the old revision made and the new one does not.",
};
pub(super) const SYMDIFF: FindingText = FindingText {
    key: "compare",
    slug: "symdiff",
    title: "Symmetric difference",
    formula: "L(old) △ L(new)",
    meaning: "The call sequences exactly one of the two revisions makes.",
};

pub(super) fn finding(
    entry_id: &str,
    text: &FindingText,
    language: &Language,
    bound: u32,
    draw: Draw,
    word: impl Fn(&[String]) -> WordView,
) -> Finding {
    let id = format!("{entry_id}-{}", text.slug);
    let marks = Marks {
        // Doomed states say nothing about a language of whole executions (nearly every
        // state is doomed), so only the letters every word contains are marked.
        dominating: analysis::dominating_letters(&language.dfa),
        ..Marks::default()
    };
    let empty = language.is_empty();
    let figure = figure(
        Labels {
            id: format!("{id}-fig"),
            caption: format!("{} {}", text.title, text.formula),
            legend: "Thick edges: letters every word of this language contains.".to_string(),
        },
        &language.dfa,
        &marks,
        bound as usize,
        draw,
        &word,
    );
    Finding {
        id,
        key: text.key,
        title: text.title.to_string(),
        formula: text.formula.to_string(),
        meaning: text.meaning.to_string(),
        count: if empty {
            "none".to_string()
        } else {
            count_text(language.count, bound)
        },
        empty,
        examples: language.examples.iter().map(|w| word(w)).collect(),
        figure,
        computed: language.computed,
    }
}

fn diff_lines(text: &str) -> Vec<DiffLine> {
    text.lines()
        .map(|line| {
            let class = if line.starts_with("+++") || line.starts_with("---") {
                "head"
            } else if line.starts_with('+') {
                "add"
            } else if line.starts_with('-') {
                "del"
            } else if line.starts_with("@@") {
                "hunk"
            } else {
                "ctx"
            };
            DiffLine {
                class,
                text: line.to_string(),
            }
        })
        .collect()
}

fn change_view(entry_id: &str, k: usize, change: &SourceChange) -> ChangeView {
    let text = match &change.diff {
        Some(diff) => diff.clone(),
        None => {
            let old = change.old.as_deref().unwrap_or("");
            let new = change.new.as_deref().unwrap_or("");
            TextDiff::from_lines(old, new)
                .unified_diff()
                .context_radius(3)
                .header(
                    &format!("{} ({})", change.file, change.from),
                    &format!("{} ({})", change.file, change.to),
                )
                .to_string()
        }
    };
    ChangeView {
        id: format!("{entry_id}-chg{k}"),
        function: change.function.clone(),
        file: change.file.clone(),
        from: change.from.to_string(),
        to: change.to.to_string(),
        lines: diff_lines(&text),
    }
}

/// The changes of the functions `relevant` names first, the others apart.
pub(super) fn split_changes(
    entry_id: &str,
    changes: &[SourceChange],
    relevant: &BTreeSet<String>,
) -> (Vec<ChangeView>, Vec<ChangeView>) {
    let mut first = Vec::new();
    let mut other = Vec::new();
    for (k, c) in changes.iter().enumerate() {
        let view = change_view(entry_id, k, c);
        if relevant.contains(&c.function) {
            first.push(view);
        } else {
            other.push(view);
        }
    }
    (first, other)
}

pub(super) fn entry_alphabet(given: &[String], automata: &[&Dfa]) -> Vec<String> {
    let mut names: Vec<String> = given.to_vec();
    for dfa in automata {
        for name in dfa.alphabet().names() {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }
    names
}

pub(super) fn version_caption(role: &str, rev: Option<&Revision>) -> String {
    match rev {
        Some(r) => match &r.label {
            Some(label) => format!("{role} · {} ({label})", short_rev(&r.rev)),
            None => format!("{role} · {}", short_rev(&r.rev)),
        },
        None => role.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unified_diffs_are_classified_by_line() {
        let lines = diff_lines("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n z");
        let classes: Vec<&str> = lines.iter().map(|l| l.class).collect();
        assert_eq!(classes, ["head", "head", "hunk", "del", "add", "ctx"]);
    }
}
