//! Marks for the coverage of a change ([`FrontEndConfig::mark_hunks`]): a call of
//! `__mergelens_hit(k)` where each statement that runs a line of hunk `k` starts, so that a
//! CBMC run can ask whether some *complete* execution (one that returns from the entry
//! within the bounds) ran hunk `k` — a question `--cover location`, which counts a line on a
//! path the unwinding or the word bound cuts later, does not answer.
//!
//! Key items: [`hunk_edits`] → [`HunkMarks`]: the edits, a [`HunkCode`] per hunk and the
//! functions each hunk's own calls call.
//!
//! A hunk whose lines hold a call of an analysed function (the calls a review observes) is
//! marked on those calls only, each wrapped as `(__mergelens_hit(k), f(...))`: the change
//! that matters is the call, and on `if (i == 2) c();` the condition runs on executions
//! where `c` never does. A call is the hunk's when its own lines (callee to closing
//! parenthesis) meet the hunk; calls inside `sizeof` and the like never run and do not
//! count. Every other hunk is marked by its statements: a statement runs a hunk's line when
//! its own lines (a simple statement's whole text; a compound statement's header, such as
//! `if (c)` or `for (...)`, up to its first inner statement) meet the hunk. Such a
//! statement is wrapped as `{ __mergelens_hit(k); S }`; a declaration with an initialiser
//! is followed by the call instead (a block would end its scope). A hunk that meets a
//! function's header is marked at the start of its body. A hunk at file scope that meets an
//! initialised variable is code that always runs (static initialisation); a hunk that meets
//! none of these holds no code (a comment, a declaration, a directive).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::index::{Index, Unit};
use crate::cprog::edit::{Edit, Side};
use crate::cprog::preprocess::FileOrigin;
use crate::cprog::program::{HunkCode, LineRange};
use crate::cprog::syntax::{is_unevaluated, named_children, strip_parens, text};

/// The coverage hook.
pub(crate) const HIT_HOOK: &str = "void __mergelens_hit(unsigned int hunk);\n";

/// What [`hunk_edits`] gives: the edits of every unit, what each hunk holds, and the
/// functions each hunk's own calls call (in source order, each once; empty for a hunk
/// marked by its statements).
pub(super) struct HunkMarks {
    pub(super) edits: Vec<Vec<Edit>>,
    pub(super) code: Vec<HunkCode>,
    pub(super) calls: Vec<Vec<String>>,
}

impl HunkMarks {
    /// No hunk marked: no edit in any of `units` units.
    pub(super) fn none(units: usize) -> HunkMarks {
        HunkMarks {
            edits: vec![Vec::new(); units],
            code: Vec::new(),
            calls: Vec::new(),
        }
    }
}

/// The rank of a call's mark: innermost of every edit that starts where the call starts (a
/// statement's braces, a `return`'s rewrite, an event hook around the same call), so that
/// the hit stays right around the call.
const CALL_RANK: u32 = u32::MAX / 2;

/// The edits of every unit, what each hunk holds, and its calls.
pub(super) fn hunk_edits(units: &[Unit], index: &Index, hunks: &[LineRange]) -> HunkMarks {
    let hunks: Vec<(PathBuf, u32, u32)> = hunks
        .iter()
        .map(|h| (canonical(&h.file), h.start, h.end))
        .collect();
    let mut code = vec![HunkCode::None; hunks.len()];
    let mut calls = vec![Vec::new(); hunks.len()];
    let mut markers: Vec<Marker> = units
        .iter()
        .enumerate()
        .map(|(u, unit)| Marker {
            unit,
            unit_index: u,
            hunks: &hunks,
            by_calls: BTreeSet::new(),
            files: BTreeMap::new(),
            marks: BTreeMap::new(),
        })
        .collect();
    // First every unit's calls: a hunk with a call in one unit (a header's in another) is
    // marked by its calls everywhere.
    for marker in &mut markers {
        let u = marker.unit_index;
        for def in index
            .defs
            .iter()
            .filter(|d| d.unit == u && d.origin != FileOrigin::System)
        {
            marker.calls(index, def.body, &mut calls);
        }
    }
    let by_calls: BTreeSet<usize> = (0..hunks.len()).filter(|&k| !calls[k].is_empty()).collect();
    let mut edits = vec![Vec::new(); units.len()];
    for (u, mut marker) in markers.into_iter().enumerate() {
        let unit = marker.unit;
        marker.by_calls.clone_from(&by_calls);
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
            edits[u].extend(mark_edits(at, mark, &ids, depth));
        }
    }
    HunkMarks { edits, code, calls }
}

/// The edits of one mark of the hunks `ids`.
fn mark_edits(at: usize, mark: Mark, ids: &BTreeSet<usize>, depth: u32) -> Vec<Edit> {
    let hit = |k: &usize| format!("__mergelens_hit({k}u)");
    match mark {
        Mark::After => {
            let hits: String = ids.iter().map(|k| format!(" {};", hit(k))).collect();
            vec![Edit::insert(at, hits, Side::Close, 0)]
        }
        Mark::Around(end) => {
            let hits: String = ids.iter().map(|k| format!(" {};", hit(k))).collect();
            vec![
                Edit::insert(at, format!("{{{hits} "), Side::Open, 4 * depth),
                Edit::insert(end, " }", Side::Close, 4 * depth),
            ]
        }
        Mark::Call(end) => {
            let hits: String = ids.iter().map(|k| format!("{}, ", hit(k))).collect();
            vec![
                Edit::insert(at, format!("({hits}"), Side::Open, CALL_RANK),
                Edit::insert(end, ")", Side::Close, CALL_RANK),
            ]
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    /// A call right after this offset.
    After,
    /// Braces around the statement from this offset to the given end.
    Around(usize),
    /// A comma expression around the call from this offset to the given end.
    Call(usize),
}

struct Marker<'a> {
    unit: &'a Unit,
    unit_index: usize,
    hunks: &'a [(PathBuf, u32, u32)],
    /// The hunks marked by their calls, which no statement mark takes.
    by_calls: BTreeSet<usize>,
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

    fn mark(&mut self, at: usize, mark: Mark, mut hunks: Vec<usize>, depth: u32) {
        if !matches!(mark, Mark::Call(_)) {
            hunks.retain(|k| !self.by_calls.contains(k));
        }
        if hunks.is_empty() {
            return;
        }
        let entry = self
            .marks
            .entry((at, mark))
            .or_insert((BTreeSet::new(), depth));
        entry.0.extend(hunks);
    }

    /// Marks the calls of analysed functions under `node` whose own lines meet a hunk, and
    /// adds their callees to `calls`; calls that never run (in `sizeof`, say) and nested
    /// functions' are left alone.
    fn calls(&mut self, index: &Index, node: Node, calls: &mut [Vec<String>]) {
        for child in named_children(node) {
            let kind = child.kind();
            if is_unevaluated(kind) || kind == "function_definition" {
                continue;
            }
            if kind == "call_expression"
                && let Some(callee) = self.analysed_callee(index, child)
            {
                let hunks = self.meets(child.start_position().row, child.end_position().row);
                for &k in &hunks {
                    if !calls[k].contains(&callee) {
                        calls[k].push(callee.clone());
                    }
                }
                self.mark(child.start_byte(), Mark::Call(child.end_byte()), hunks, 0);
            }
            self.calls(index, child, calls);
        }
    }

    /// The function a call calls, when it is an analysed function called by its name (not
    /// a cast, not a call through a variable that hides the function).
    fn analysed_callee(&self, index: &Index, call: Node) -> Option<String> {
        let src = self.unit.src();
        if index.is_cast(self.unit_index, call, src) {
            return None;
        }
        let function = strip_parens(call.child_by_field_name("function")?);
        if function.kind() != "identifier" {
            return None;
        }
        let name = text(function, src);
        if index.calls_variable(self.unit_index, call, name, src) {
            return None;
        }
        let def = index.resolve(self.unit_index, name)?;
        index.defs[def]
            .origin
            .has_events()
            .then(|| name.to_string())
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

#[cfg(test)]
mod tests {
    use crate::cprog::{FrontEndConfig, HunkCode, LineRange, instrument};

    /// Instruments `source` with one hunk per line range; the instrumented text of `main`'s
    /// file, what each hunk holds and its calls.
    fn marked(source: &str, lines: &[(u32, u32)]) -> (String, Vec<HunkCode>, Vec<Vec<String>>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.c");
        std::fs::write(&path, source).unwrap();
        let mut config = FrontEndConfig::new(vec![path.clone()]);
        config.mark_hunks = lines
            .iter()
            .map(|&(start, end)| LineRange {
                file: path.clone(),
                start,
                end,
            })
            .collect();
        let out = tempfile::tempdir().unwrap();
        let p = instrument(&config, out.path()).unwrap();
        let text = std::fs::read_to_string(&p.path).unwrap();
        (text, p.hunk_code, p.hunk_calls)
    }

    const LOOP: &str = "int nondet_int(void);\nvoid b(void) {}\nvoid c(void) {}\nint k;\n\
        int main(void)\n{\n  int n = nondet_int();\n  for (int i = 0; i < n; i++) {\n    \
        b();\n    if (i == 2) c();\n    if (i == 1) k++;\n    if (sizeof(c()) && i) k--;\n  \
        }\n  return 0;\n}\n";

    #[test]
    fn a_hunk_with_a_call_is_marked_on_the_call_not_on_its_condition() {
        // Line 10 is `if (i == 2) c();`, line 11 `if (i == 1) k++;`.
        let (text, code, calls) = marked(LOOP, &[(10, 10), (11, 11)]);
        assert_eq!(code, [HunkCode::Statement, HunkCode::Statement]);
        assert_eq!(calls, [vec!["c".to_string()], Vec::new()]);
        assert!(
            text.contains("if (i == 2) (__mergelens_hit(0u), c());"),
            "{text}"
        );
        assert!(!text.contains("{ __mergelens_hit(0u);"), "{text}");
        // Without a call: the statement, as before.
        assert!(
            text.contains("{ __mergelens_hit(1u); if (i == 1)"),
            "{text}"
        );
    }

    #[test]
    fn calls_that_never_run_or_are_not_analysed_leave_the_statement_marks() {
        // Line 12 holds `c()` only inside `sizeof`; line 7 calls the body-less
        // `nondet_int`, whose calls no review observes.
        let (text, _, calls) = marked(LOOP, &[(12, 12), (7, 7)]);
        assert_eq!(calls, [Vec::<String>::new(), Vec::new()]);
        assert!(
            text.contains("{ __mergelens_hit(0u); if (sizeof(c())"),
            "{text}"
        );
        assert!(
            text.contains("int n = nondet_int(); __mergelens_hit(1u);"),
            "{text}"
        );
    }

    #[test]
    fn a_hunk_over_several_calls_names_each_callee_once_and_marks_every_call() {
        // Lines 9-10: `b();` and `if (i == 2) { c(); b(); }`; a new function's hunk (line 3)
        // holds no call and is marked at its body's start.
        let source = LOOP.replace("if (i == 2) c();", "if (i == 2) { c(); b(); }");
        let (text, _, calls) = marked(&source, &[(9, 10), (3, 3)]);
        assert_eq!(calls[0], ["b", "c"]);
        assert!(calls[1].is_empty());
        assert_eq!(text.matches("(__mergelens_hit(0u), ").count(), 3, "{text}");
        assert!(
            text.contains("void c(void) { __mergelens_hit(1u);"),
            "{text}"
        );
    }
}
