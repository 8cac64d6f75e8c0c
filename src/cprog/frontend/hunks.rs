//! Marks for the coverage of a change ([`FrontEndConfig::mark_hunks`]): a call of
//! `__mergelens_hit(k)` where each statement that runs a line of hunk `k` starts, so that a
//! CBMC run can ask whether some *complete* execution (one that returns from the entry
//! within the bounds) ran hunk `k` — a question `--cover location`, which counts a line on a
//! path the unwinding or the word bound cuts later, does not answer.
//!
//! Key items: [`hunk_edits`] → the edits and a [`HunkCode`] per hunk.
//!
//! A statement runs a hunk's line when its own lines (a simple statement's whole text; a
//! compound statement's header, such as `if (c)` or `for (...)`, up to its first inner
//! statement) meet the hunk. Such a statement is wrapped as `{ __mergelens_hit(k); S }`;
//! a declaration with an initialiser is followed by the call instead (a block would end its
//! scope). A hunk that meets a function's header is marked at the start of its body. A
//! hunk at file scope that meets an initialised variable is code that always runs (static
//! initialisation); a hunk that meets none of these holds no code (a comment, a
//! declaration, a directive).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::index::{Index, Unit};
use crate::cprog::edit::{Edit, Side};
use crate::cprog::preprocess::FileOrigin;
use crate::cprog::program::{HunkCode, LineRange};
use crate::cprog::syntax::named_children;

/// The coverage hook.
pub(crate) const HIT_HOOK: &str = "void __mergelens_hit(unsigned int hunk);\n";

/// The edits of every unit, and what each hunk holds.
pub(super) fn hunk_edits(
    units: &[Unit],
    index: &Index,
    hunks: &[LineRange],
) -> (Vec<Vec<Edit>>, Vec<HunkCode>) {
    let hunks: Vec<(PathBuf, u32, u32)> = hunks
        .iter()
        .map(|h| (canonical(&h.file), h.start, h.end))
        .collect();
    let mut code = vec![HunkCode::None; hunks.len()];
    let mut edits = vec![Vec::new(); units.len()];
    for (u, unit) in units.iter().enumerate() {
        let mut marker = Marker {
            unit,
            hunks: &hunks,
            files: BTreeMap::new(),
            marks: BTreeMap::new(),
        };
        for def in index.defs.iter().filter(|d| d.unit == u) {
            if def.origin == FileOrigin::System {
                continue;
            }
            // The header: from the definition's start to its body's brace.
            let header = marker.meets(def.node.start_position().row, def.body.start_position().row);
            if !header.is_empty() {
                marker.mark(def.body.start_byte() + 1, Mark::After, header, 1);
            }
            marker.statements(def.body, 1);
        }
        for top in named_children(unit.tree.root_node()) {
            let initialised = top.kind() == "declaration"
                && named_children(top)
                    .iter()
                    .any(|c| c.kind() == "init_declarator");
            if initialised && unit.locate_item(top).2 != FileOrigin::System {
                for k in marker.meets(top.start_position().row, top.end_position().row) {
                    code[k] = code[k].max(HunkCode::Initialiser);
                }
            }
        }
        for ((at, mark), (ids, depth)) in marker.marks {
            for &k in &ids {
                code[k] = HunkCode::Statement;
            }
            let hits: String = ids
                .iter()
                .map(|k| format!(" __mergelens_hit({k}u);"))
                .collect();
            match mark {
                Mark::After => edits[u].push(Edit::insert(at, hits, Side::Close, 0)),
                Mark::Around(end) => {
                    edits[u].push(Edit::insert(
                        at,
                        format!("{{{hits} "),
                        Side::Open,
                        4 * depth,
                    ));
                    edits[u].push(Edit::insert(end, " }", Side::Close, 4 * depth));
                }
            }
        }
    }
    (edits, code)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    /// A call right after this offset.
    After,
    /// Braces around the statement from this offset to the given end.
    Around(usize),
}

struct Marker<'a> {
    unit: &'a Unit,
    hunks: &'a [(PathBuf, u32, u32)],
    /// The canonical path of each file name the line markers give.
    files: BTreeMap<usize, PathBuf>,
    /// Where a mark goes → the hunks it marks and its nesting depth.
    marks: BTreeMap<(usize, Mark), (BTreeSet<usize>, u32)>,
}

impl Marker<'_> {
    /// The hunks that meet the original lines of rows `first..=last` (one file).
    fn meets(&mut self, first: usize, last: usize) -> Vec<usize> {
        let (file, start, origin) = self.unit.pre.origin(first);
        let (end_file, end, _) = self.unit.pre.origin(last.max(first));
        if origin == FileOrigin::System {
            return Vec::new();
        }
        let end = if end_file == file {
            end.max(start)
        } else {
            start
        };
        let path = self
            .files
            .entry(file)
            .or_insert_with(|| canonical(Path::new(&self.unit.pre.files[file].name)))
            .clone();
        self.hunks
            .iter()
            .enumerate()
            .filter(|(_, (p, s, e))| *p == path && *s <= end && start <= *e)
            .map(|(k, _)| k)
            .collect()
    }

    fn mark(&mut self, at: usize, mark: Mark, hunks: Vec<usize>, depth: u32) {
        let entry = self
            .marks
            .entry((at, mark))
            .or_insert((BTreeSet::new(), depth));
        entry.0.extend(hunks);
    }

    /// Marks the statements under `node` whose own lines meet a hunk.
    fn statements(&mut self, node: Node, depth: u32) {
        for child in named_children(node) {
            let inner = inner_statements(child);
            let kind = child.kind();
            let own_end = match (kind, inner.first()) {
                // A do-while's own line is its condition, after the body.
                ("do_statement", _) => None,
                (_, Some(first)) => Some(first.start_position().row),
                (_, None) => Some(child.end_position().row),
            };
            // A declaration is a statement only in a block (not in a `for` header).
            let in_block = matches!(node.kind(), "compound_statement" | "case_statement");
            let marked = match kind {
                "declaration" if !in_block => false,
                "declaration" => {
                    let initialised = named_children(child)
                        .iter()
                        .any(|c| c.kind() == "init_declarator");
                    let hunks = self.meets(child.start_position().row, child.end_position().row);
                    if initialised && !hunks.is_empty() {
                        self.mark(child.end_byte(), Mark::After, hunks, depth);
                    }
                    true
                }
                "compound_statement" | "labeled_statement" | "case_statement" | "comment" => false,
                k if is_statement(k) => {
                    let hunks = match own_end {
                        Some(end) => self.meets(child.start_position().row, end),
                        None => self.meets(child.end_position().row, child.end_position().row),
                    };
                    if !hunks.is_empty() {
                        let mark = Mark::Around(child.end_byte());
                        self.mark(child.start_byte(), mark, hunks, depth);
                    }
                    true
                }
                _ => false,
            };
            // An expression may hold a statement expression: no marks go inside one.
            if marked || !inner.is_empty() || kind == "compound_statement" {
                self.statements(child, depth + 1);
            }
        }
    }
}

fn is_statement(kind: &str) -> bool {
    kind.ends_with("_statement") || kind == "declaration"
}

/// The statements directly inside a statement (its arms, its body, a block's statements).
fn inner_statements(node: Node) -> Vec<Node> {
    let mut out = Vec::new();
    for child in named_children(node) {
        if is_statement(child.kind()) {
            out.push(child);
        } else if child.kind() == "else_clause" {
            out.extend(
                named_children(child)
                    .into_iter()
                    .filter(|c| is_statement(c.kind())),
            );
        }
    }
    out
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
