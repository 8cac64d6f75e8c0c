//! Edits of the preprocessed text: insertions and small replacements, applied in one pass.
//!
//! Several edits may fall on one offset (an arm that starts with a call, a call that ends a
//! `return`). Each edit belongs to a syntax node and opens or closes around it; at one offset
//! closes come before opens, outer opens before inner ones and inner closes before outer ones,
//! so the inserted brackets nest like the nodes they belong to. Of two edits of one rank, the
//! one given first is the outer: it opens first and closes last.

#[derive(Clone, Debug)]
pub(crate) struct Edit {
    pub start: usize,
    /// `start` for an insertion; a replacement removes `start..end`.
    pub end: usize,
    pub text: String,
    pub side: Side,
    /// Nesting rank: 4 × the node's depth + the layer of the edit around that node.
    pub rank: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Side {
    Close,
    Open,
}

impl Edit {
    pub(crate) fn insert(at: usize, text: impl Into<String>, side: Side, rank: u32) -> Edit {
        Edit {
            start: at,
            end: at,
            text: text.into(),
            side,
            rank,
        }
    }

    pub(crate) fn replace(start: usize, end: usize, text: impl Into<String>, rank: u32) -> Edit {
        Edit {
            start,
            end,
            text: text.into(),
            side: Side::Open,
            rank,
        }
    }
}

/// The text with the edits applied. A replaced range keeps its line breaks (appended after
/// the new text), so every later line keeps its number and its line marker.
pub(crate) fn apply(text: &str, edits: Vec<Edit>) -> String {
    let mut edits: Vec<(usize, Edit)> = edits.into_iter().enumerate().collect();
    edits.sort_by_key(|(i, e)| {
        let order = match e.side {
            Side::Close => (u32::MAX - e.rank, usize::MAX - i),
            Side::Open => (e.rank, *i),
        };
        (e.start, e.side, order)
    });
    let edits: Vec<Edit> = edits.into_iter().map(|(_, e)| e).collect();
    let extra: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = String::with_capacity(text.len() + extra);
    let mut cursor = 0;
    for edit in edits {
        // Replacements never overlap other edits by construction; an overlap would be a bug
        // in the event finder, and skipping it keeps the output well formed.
        debug_assert!(edit.start >= cursor, "overlapping edits at {}", edit.start);
        if edit.start < cursor {
            continue;
        }
        out.push_str(&text[cursor..edit.start]);
        out.push_str(&edit.text);
        let removed = &text[edit.start..edit.end];
        out.extend(std::iter::repeat_n('\n', removed.matches('\n').count()));
        cursor = edit.end;
    }
    out.push_str(&text[cursor..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_edits_at_one_offset_nest() {
        // "if (c) f();" with the arm wrapped (depth 1) and the call wrapped (depth 2).
        let text = "if (c) f();";
        let edits = vec![
            Edit::insert(7, "(e2, ", Side::Open, 9),
            Edit::insert(7, "{ e1; ", Side::Open, 4),
            Edit::insert(10, ")", Side::Close, 9),
            Edit::insert(11, " }", Side::Close, 4),
        ];
        assert_eq!(apply(text, edits), "if (c) { e1; (e2, f()); }");
    }

    #[test]
    fn closes_come_before_opens_and_replacements_keep_lines() {
        let text = "a;b(\n);";
        let edits = vec![
            Edit::insert(2, "[", Side::Open, 0),
            Edit::insert(2, "]", Side::Close, 0),
            Edit::replace(2, 6, "B()", 0),
        ];
        assert_eq!(apply(text, edits), "a;][B()\n;");
    }
}
