//! A review entry's stories as a reader takes them in at a glance: each execution cut down
//! to the region where the versions' words differ, with a little context, like a diff hunk
//! ([`hunk`]), and executions of the same shape (the same hunk and verdict) told once with
//! how many there are ([`story_groups`]). A real merge has stories of fifteen or twenty
//! letters of twenty characters each that share most of their letters: whole, they fill
//! the screen sideways and say the same thing many times.

use super::{HunkCell, HunkRow, InputView, StoryGroup};
use crate::document::columns::{self, Column, Mark};
use crate::document::execution::longest_common_subsequence;
use crate::document::{Execution, ExecutionKind};

/// Letters of shared context shown on each side of the differing region.
const CONTEXT: usize = 2;

/// The executions of one entry as groups of one shape each: unexpected ones first, then
/// the groups with the most executions, otherwise in the order the check found them.
pub(super) fn story_groups(entry_id: &str, executions: &[Execution]) -> Vec<StoryGroup> {
    let mut groups: Vec<(StoryGroup, ExecutionKind)> = Vec::new();
    for e in executions {
        let rows = hunk(e);
        if let Some((group, _)) = groups
            .iter_mut()
            .find(|(g, kind)| *kind == e.kind && same_rows(&g.rows, &rows))
        {
            group.count += 1;
            continue;
        }
        let group = StoryGroup {
            kind: e.kind.name(),
            id: String::new(),
            count: 1,
            change: change(e),
            inputs: e
                .labelled_inputs()
                .into_iter()
                .map(|v| InputView {
                    read: v.read,
                    place: v.place,
                    value: v.value,
                })
                .collect(),
            input_text: e.input_text(),
            text: marked_rows(&rows),
            rows,
        };
        groups.push((group, e.kind));
    }
    // A stable sort: among equals, the order the check found them in.
    groups.sort_by_key(|(g, kind)| (*kind != ExecutionKind::Unexpected, usize::MAX - g.count));
    groups
        .into_iter()
        .enumerate()
        .map(|(k, (mut g, _))| {
            g.id = format!("{entry_id}-story{k}");
            g
        })
        .collect()
}

/// What the story is about, in words: for an unexpected execution what the merge does
/// that the expected merge does not, for an overlap what each branch and the merge changed.
pub(super) fn change(e: &Execution) -> String {
    // Calls as expected: the story is about what the entry returns or leaves.
    if e.expected.as_ref() == Some(&e.merged) {
        let differs = |r: &&crate::document::Returns| r.expected != r.merged;
        if let Some(r) = e.returns.as_ref().filter(differs) {
            return r.change();
        }
        if let Some(g) = e.globals.iter().find(|g| differs(&&g.values)) {
            return format!("`{}`: {}", g.name, g.values.change());
        }
    }
    match &e.expected {
        Some(expected) => {
            let extra = outside(&e.merged, expected);
            let missing = outside(expected, &e.merged);
            match (extra.is_empty(), missing.is_empty()) {
                (false, false) => format!(
                    "the merge calls {} where the expected merge calls {}",
                    names(&extra),
                    names(&missing)
                ),
                (true, false) => format!(
                    "the merge leaves out {}, which the expected merge calls",
                    names(&missing)
                ),
                (false, true) => format!("the merge also calls {}", names(&extra)),
                (true, true) => "the merge makes the expected calls in another order".to_string(),
            }
        }
        None => format!(
            "ours {}, theirs {}, the merge {}",
            against_base(&e.ours, &e.base),
            against_base(&e.theirs, &e.base),
            against_base(&e.merged, &e.base)
        ),
    }
}

/// What `word` changed of the base's: `calls f and drops g`.
fn against_base(word: &[String], base: &[String]) -> String {
    let added = outside(word, base);
    let dropped = outside(base, word);
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("calls {}", names(&added)));
    }
    if !dropped.is_empty() {
        parts.push(format!("drops {}", names(&dropped)));
    }
    if parts.is_empty() {
        "makes the base's calls".to_string()
    } else {
        parts.join(" and ")
    }
}

/// The letters of `word` outside a longest common subsequence with `reference`.
fn outside<'a>(word: &'a [String], reference: &[String]) -> Vec<&'a str> {
    let kept: Vec<usize> = longest_common_subsequence(word, reference, |a, b| a == b)
        .into_iter()
        .map(|(i, _)| i)
        .collect();
    word.iter()
        .enumerate()
        .filter(|(i, _)| !kept.contains(i))
        .map(|(_, l)| l.as_str())
        .collect()
}

/// `f, g and 2 more`.
fn names(letters: &[&str]) -> String {
    const SHOWN: usize = 3;
    let shown = &letters[..letters.len().min(SHOWN)];
    let mut text = match shown {
        [] => String::new(),
        [one] => one.to_string(),
        [first @ .., last] if letters.len() <= SHOWN => {
            format!("{} and {last}", first.join(", "))
        }
        all => all.join(", "),
    };
    if letters.len() > SHOWN {
        text.push_str(&format!(" and {} more", letters.len() - SHOWN));
    }
    text
}

fn same_rows(a: &[HunkRow], b: &[HunkRow]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.label == y.label
                && x.cells.len() == y.cells.len()
                && x.cells
                    .iter()
                    .zip(&y.cells)
                    .all(|(c, d)| (&c.text, c.class) == (&d.text, d.class))
        })
}

/// The story's rows in columns ([`columns::columns`]) cut to where the words differ: the
/// columns every row shares at the start and at the end are left out but for [`CONTEXT`]
/// of them on each side. A call a row makes that the reference row (the expected word, or
/// the base's for an overlap) does not is `differs`; a blank of the merged row where it
/// lacks a call the reference makes (or, in an overlap, one a branch added) is `lacks`;
/// other blanks are `blank`.
pub(super) fn hunk(e: &Execution) -> Vec<HunkRow> {
    let rows = e.rows();
    let columns = columns::columns(&rows);
    let reference = if rows.len() > 4 { 4 } else { 0 };
    let shared = |c: &&Column| c.cells.iter().all(Option::is_some);
    let prefix = columns.iter().take_while(shared).count();
    let suffix = columns[prefix..].iter().rev().take_while(shared).count();
    let left_out_before = prefix.saturating_sub(CONTEXT);
    let left_out_after = suffix.saturating_sub(CONTEXT);
    let shown = &columns[left_out_before..columns.len() - left_out_after];
    let mut rows: Vec<HunkRow> = rows
        .iter()
        .enumerate()
        .map(|(r, &(label, _))| {
            let mut cells = Vec::new();
            if left_out_before > 0 {
                cells.push(gap(left_out_before));
            }
            for c in shown {
                let has = c.cells[r].is_some();
                let (text, class, title) = match (has, label) {
                    (true, "expected") => (c.letter.clone(), "same", String::new()),
                    (true, _) if c.cells[reference].is_none() => {
                        (c.letter.clone(), "differs", String::new())
                    }
                    (true, _) => (c.letter.clone(), "same", String::new()),
                    (false, "merged") if c.mark == Mark::Lacks => (
                        String::new(),
                        "lacks",
                        format!("the merge lacks {} here", c.letter),
                    ),
                    (false, _) => (String::new(), "blank", String::new()),
                };
                cells.push(HunkCell { text, class, title });
            }
            if left_out_after > 0 {
                cells.push(gap(left_out_after));
            }
            HunkRow { label, cells }
        })
        .collect();
    // What each version returned and left in globals, one row each after the words.
    let globals = e
        .globals
        .iter()
        .map(|g| ("global", format!("{}: {}", g.name, g.values.text())));
    for (label, text) in e
        .returns
        .iter()
        .map(|r| ("returns", r.text()))
        .chain(globals)
    {
        rows.push(HunkRow {
            label,
            cells: vec![HunkCell {
                text,
                class: "same",
                title: String::new(),
            }],
        });
    }
    rows
}

fn gap(letters: usize) -> HunkCell {
    HunkCell {
        text: "…".to_string(),
        class: "gap",
        title: if letters == 1 {
            "1 call every version makes here".to_string()
        } else {
            format!("{letters} calls every version makes here")
        },
    }
}

/// The rows as text in columns, one version a line, with a `^` under each column where the
/// merged row differs from the reference (under a blank: a call the merge lacks): the story
/// for Markdown, cut to its hunk so that its lines stay short.
pub(super) fn marked_rows(rows: &[HunkRow]) -> String {
    let n = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    let width: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.cells.get(c))
                .map(|x| x.text.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let merged = rows.iter().find(|r| r.label == "merged");
    let marks: Vec<Mark> = (0..n)
        .map(
            |c| match merged.and_then(|r| r.cells.get(c)).map(|x| x.class) {
                Some("differs") => Mark::Differs,
                Some("lacks") => Mark::Lacks,
                _ => Mark::Same,
            },
        )
        .collect();
    let labels: Vec<&str> = rows.iter().map(|r| r.label).collect();
    columns::aligned(&labels, &width, &marks, |r, c| {
        rows[r].cells.get(c).map(|x| x.text.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::ExecutionInput;

    fn w(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    fn story(prefix: &str, merged_tail: &str, tape: i64) -> Execution {
        Execution {
            input: ExecutionInput {
                tape: vec![tape],
                ..ExecutionInput::default()
            },
            base: w(&format!("{prefix} b x y end")),
            ours: w(&format!("{prefix} z b x y end")),
            theirs: w(&format!("{prefix} c x y end")),
            merged: w(&format!("{prefix} z {merged_tail} x y end")),
            expected: None,
            kind: ExecutionKind::Overlapping,
            returns: None,
            globals: Vec::new(),
        }
    }

    #[test]
    fn a_story_is_cut_to_its_differing_region_with_two_letters_of_context() {
        let e = story("p1 p2 p3 p4 p5", "c", 0);
        let rows = hunk(&e);
        assert_eq!(rows[0].cells[0].title, "3 calls every version makes here");
        assert_eq!(
            rows[0].cells.last().unwrap().title,
            "1 call every version makes here"
        );
        // Every row has a cell per column; the merge drops b (a blank it lacks).
        assert!(rows.iter().all(|r| r.cells.len() == rows[0].cells.len()));
        let merged = &rows[3];
        let classes: Vec<&str> = merged.cells.iter().map(|c| c.class).collect();
        assert_eq!(
            classes,
            [
                "gap", "same", "same", "differs", "lacks", "differs", "same", "same", "gap"
            ]
        );
        assert_eq!(merged.cells[4].title, "the merge lacks b here");
        insta::assert_snapshot!(marked_rows(&rows), @r"
        base     … p4 p5   b   x y …
        ours     … p4 p5 z b   x y …
        theirs   … p4 p5     c x y …
        merged   … p4 p5 z   c x y …
                         ^ ^ ^
        ");
    }

    #[test]
    fn a_call_the_merge_lost_is_marked_in_the_hunk() {
        // Theirs adds audit; ours returns before b on this input; the merge lost audit.
        let e = Execution {
            input: ExecutionInput::default(),
            base: w("p1 p2 p3 a b end"),
            ours: w("p1 p2 p3 a end"),
            theirs: w("p1 p2 p3 a b audit end"),
            merged: w("p1 p2 p3 a end"),
            expected: Some(w("p1 p2 p3 a audit end")),
            kind: ExecutionKind::Unexpected,
            returns: None,
            globals: Vec::new(),
        };
        let rows = hunk(&e);
        insta::assert_snapshot!(marked_rows(&rows), @r"
        base     … p3 a b       end
        ours     … p3 a         end
        theirs   … p3 a b audit end
        merged   … p3 a         end
                          ^
        expected … p3 a   audit end
        ");
        assert_eq!(
            change(&e),
            "the merge leaves out audit, which the expected merge calls"
        );
    }

    #[test]
    fn executions_of_one_shape_are_one_group_and_unexpected_ones_come_first() {
        let mut unexpected = story("q", "b", 9);
        unexpected.kind = ExecutionKind::Unexpected;
        unexpected.expected = Some(w("q z c x y end"));
        let executions = vec![
            story("p1 p2 p3", "c", 0),
            // The same region after another prefix: the same shape.
            story("r1 p2 p3", "c", 1),
            story("p1 p2 p3", "b c", 2),
            unexpected,
        ];
        let groups = story_groups("e0", &executions);
        let shape: Vec<(&str, usize)> = groups.iter().map(|g| (g.kind, g.count)).collect();
        assert_eq!(
            shape,
            [("unexpected", 1), ("overlapping", 2), ("overlapping", 1)]
        );
        assert_eq!(groups[1].id, "e0-story1");
        assert_eq!(
            groups[0].change,
            "the merge calls b where the expected merge calls c"
        );
        assert_eq!(
            groups[1].change,
            "ours calls z, theirs calls c and drops b, the merge calls z and c and drops b"
        );
        // A group shows its first execution's input.
        assert_eq!(groups[1].inputs[0].value, "0");
        assert_eq!(groups[1].input_text, "nondet values [0]");
    }
}
