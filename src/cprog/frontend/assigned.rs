//! Whether a variable is overwritten before anything could read it ([`assigned_first`]):
//! such a variable's value at its declaration (an uninitialised local) or at the entry (a
//! global) is no input of the program, so the shared inputs do not fill it and no story
//! lists it. The test is syntactic and errs towards "read": only a plain `x = e;` statement
//! on the straight-line path counts, and anything that names the variable first, jumps, or
//! (for a global) calls a function or returns, means it may be read.

use tree_sitter::Node;

use crate::cprog::syntax::{named_children, text};

/// Whether running `statements` in order surely assigns `name` a whole new value before
/// any statement could read it: the first statement that names `name` is `name = e;` with
/// `e` not naming it, and no statement before it (nor `e`) jumps (`goto`, `return`,
/// `break`, `continue`, a label or `case` another path may enter by) or, when `calls_read`
/// (a global, which a callee may read), calls a function.
pub(crate) fn assigned_first<'t>(
    statements: impl IntoIterator<Item = Node<'t>>,
    name: &str,
    src: &str,
    calls_read: bool,
) -> bool {
    for s in statements {
        if s.kind() == "comment" {
            continue;
        }
        if let Some(value) = assignment_to(s, name, src) {
            return !mentions(value, name, src) && !hazard(value, src, calls_read);
        }
        if mentions(s, name, src) || hazard(s, src, calls_read) {
            return false;
        }
    }
    false
}

/// The right-hand side of statement `s` when it is `name = e;`.
fn assignment_to<'t>(s: Node<'t>, name: &str, src: &str) -> Option<Node<'t>> {
    if s.kind() != "expression_statement" {
        return None;
    }
    let e = s.named_child(0)?;
    if e.kind() != "assignment_expression" {
        return None;
    }
    let left = e.child_by_field_name("left")?;
    let operator = e.child_by_field_name("operator")?;
    (left.kind() == "identifier" && text(left, src) == name && text(operator, src) == "=")
        .then(|| e.child_by_field_name("right"))
        .flatten()
}

/// Whether `node` names `name` anywhere (a field of the same name is no mention).
pub(crate) fn mentions(node: Node, name: &str, src: &str) -> bool {
    any(node, &|n| n.kind() == "identifier" && text(n, src) == name)
}

/// Whether `node` may leave the straight-line path or be entered from elsewhere, or calls
/// a function when `calls_read`.
fn hazard(node: Node, _src: &str, calls_read: bool) -> bool {
    any(node, &|n| {
        matches!(
            n.kind(),
            "goto_statement"
                | "return_statement"
                | "break_statement"
                | "continue_statement"
                | "labeled_statement"
                | "case_statement"
        ) || (calls_read && n.kind() == "call_expression")
    })
}

fn any(node: Node, test: &dyn Fn(Node) -> bool) -> bool {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if test(n) {
            return true;
        }
        stack.extend(named_children(n));
    }
    false
}

/// Whether the function body `body` holds a `goto` (which may jump past an assignment into
/// a variable's scope).
pub(crate) fn has_goto(body: Node) -> bool {
    any(body, &|n| n.kind() == "goto_statement")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `x` is assigned first in the body of the one function of `code`.
    fn first(code: &str, calls_read: bool) -> bool {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_c::LANGUAGE.into())
            .expect("the C grammar");
        let tree = parser.parse(code, None).expect("a tree");
        let function = tree.root_node().named_child(0).expect("a function");
        let body = function.child_by_field_name("body").expect("a body");
        assigned_first(named_children(body), "x", code, calls_read)
    }

    #[test]
    fn only_a_plain_assignment_on_the_straight_path_before_any_mention_counts() {
        assert!(first(
            "void f(int c) { int y = c; x = y + 1; use(x); }",
            false
        ));
        assert!(first("void f(int c) { /* set */ x = 2; }", true));
        // Read first, read by the assignment, or assigned in part or on one path.
        assert!(!first("void f(void) { use(x); x = 1; }", false));
        assert!(!first("void f(void) { x = x + 1; }", false));
        assert!(!first("void f(void) { x += 1; }", false));
        assert!(!first("void f(int c) { if (c) x = 1; use(x); }", false));
        assert!(!first("void f(void) { p = &x; x = 1; }", false));
        assert!(!first("void f(void) { int y; }", false));
        // A jump may skip the assignment; a callee may read a global.
        assert!(!first(
            "void f(int c) { if (c) goto out; x = 1; out: use(x); }",
            false
        ));
        assert!(!first("void f(int c) { if (c) return; x = 1; }", false));
        assert!(!first("void f(void) { g(); x = 1; }", true));
        assert!(first("void f(void) { g(); x = 1; }", false));
        assert!(!first("void f(void) { x = g(); }", true));
    }
}
