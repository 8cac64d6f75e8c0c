//! Which pointer parameters an entry's own code says are never NULL.
//!
//! Key item: [`never_null`]. A harness that passes NULL to a function that dereferences its
//! parameter regardless of the input runs undefined behaviour: CBMC (without pointer
//! checks) reads a fresh value through NULL at every dereference, so two copies of one
//! version read different values and the per-execution check's self-check fails on an input
//! no program ever gets, and every function pointer read through NULL may be any function
//! of its type. Two syntactic rules say a pointer is valid:
//! - [`dereferenced_only`]: every use dereferences it (`p->f`, `*p`, `p[i]`); a function
//!   that also compares it, passes it on, stores or returns it may meet NULL (or hand it to
//!   code that tests it), and keeps it NULL or an object.
//! - [`dereferenced_first`]: its first use is a dereference that every call evaluates, before
//!   anything that could leave the function (`enum state s = parser->state;` as the first
//!   statement): whatever the function does with the pointer later, NULL never gets there.
//!
//! Both are conservative in one direction only: any use they do not recognise as a
//! dereference keeps NULL possible.
use tree_sitter::Node;

use crate::cprog::syntax::text;

/// The parameters among `names` that `body` never lets be NULL: [`dereferenced_only`] or
/// [`dereferenced_first`], in `names`' order.
pub(super) fn never_null(body: Node, src: &str, names: &[String]) -> Vec<String> {
    let only = dereferenced_only(body, src, names);
    let first = dereferenced_first(body, src, names);
    names
        .iter()
        .filter(|n| only.contains(n) || first.contains(n))
        .cloned()
        .collect()
}

/// The parameters among `names` whose first use in `body` is a dereference every call
/// evaluates: in the leading statements of the body that always run to their end
/// (declarations and expression statements without a call), or in the first part of the
/// next statement every call evaluates (an `if`, `switch` or `while` condition, a
/// declaration, an expression or `return` statement without a call), and there not on the
/// right of `&&` or `||`, in a branch of `?:` or under `sizeof`.
fn dereferenced_first(body: Node, src: &str, names: &[String]) -> Vec<String> {
    let mut decided: Vec<Option<bool>> = vec![None; names.len()];
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        if statement.kind() == "comment" {
            continue;
        }
        let Some(region) = evaluated_first(statement) else {
            break;
        };
        let has_call = contains_kind(region, "call_expression");
        first_uses(region, src, names, true, &mut decided, has_call);
        let runs_to_its_end =
            matches!(statement.kind(), "declaration" | "expression_statement") && !has_call;
        if !runs_to_its_end || decided.iter().all(Option::is_some) {
            break;
        }
    }
    names
        .iter()
        .zip(decided)
        .filter(|(_, d)| *d == Some(true))
        .map(|(n, _)| n.clone())
        .collect()
}

/// The part of `statement` every execution of it evaluates first, if it has one we know.
fn evaluated_first(statement: Node) -> Option<Node> {
    match statement.kind() {
        "declaration" | "expression_statement" | "return_statement" => Some(statement),
        "if_statement" | "switch_statement" | "while_statement" => {
            statement.child_by_field_name("condition")
        }
        _ => None,
    }
}

fn contains_kind(node: Node, kind: &str) -> bool {
    if node.kind() == kind {
        return true;
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .any(|c| contains_kind(c, kind))
}

/// Decides every name first met in `node` (source order): a dereference at an evaluated
/// position (`always`) in a region without a call makes it never NULL; any other first use
/// keeps NULL possible.
fn first_uses(
    node: Node,
    src: &str,
    names: &[String],
    always: bool,
    decided: &mut [Option<bool>],
    has_call: bool,
) {
    if node.kind() == "identifier"
        && let Some(k) = names.iter().position(|n| n == text(node, src))
        && decided[k].is_none()
        && !is_field_name(node)
    {
        decided[k] = Some(always && !has_call && is_dereferenced(node));
        return;
    }
    let mut cursor = node.walk();
    for (i, child) in node.named_children(&mut cursor).enumerate() {
        let evaluated = always && evaluated_always(node, child, i);
        first_uses(child, src, names, evaluated, decided, has_call);
    }
}

/// Whether `child`, the `index`th named child of `parent`, is evaluated whenever `parent`
/// is: not the right of `&&`/`||`, a branch of `?:`, or under `sizeof`/`_Alignof`.
fn evaluated_always(parent: Node, child: Node, index: usize) -> bool {
    match parent.kind() {
        "binary_expression" => {
            let short_circuit = parent
                .child_by_field_name("operator")
                .is_some_and(|op| matches!(op.kind(), "&&" | "||"));
            !short_circuit || parent.child_by_field_name("left").map(|l| l.id()) == Some(child.id())
        }
        "conditional_expression" => index == 0,
        "sizeof_expression" | "alignof_expression" | "offsetof_expression" => false,
        _ => true,
    }
}

/// `x.p` or `x->p`: a field that shares a parameter's name, no use of it.
fn is_field_name(node: Node) -> bool {
    node.parent().is_some_and(|p| {
        p.kind() == "field_expression"
            && p.child_by_field_name("field").map(|f| f.id()) == Some(node.id())
    })
}

/// The parameters among `names` that every use in `body` dereferences (`p->f`, `*p`,
/// `p[i]`, also inside parentheses), or that `body` never uses.
pub(super) fn dereferenced_only(body: Node, src: &str, names: &[String]) -> Vec<String> {
    let mut other_use = vec![false; names.len()];
    visit(body, src, names, &mut other_use);
    names
        .iter()
        .zip(other_use)
        .filter(|(_, other)| !other)
        .map(|(n, _)| n.clone())
        .collect()
}

fn visit(node: Node, src: &str, names: &[String], other_use: &mut [bool]) {
    if node.kind() == "identifier"
        && let Some(k) = names.iter().position(|n| n == text(node, src))
        && !is_dereferenced(node)
    {
        other_use[k] = true;
    }
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        visit(child, src, names, other_use);
    }
}

/// Whether the identifier `node` is the pointer of a dereference: the argument of `->`,
/// of unary `*`, or the array of a subscript (through parentheses); a field name after `.`
/// or `->` is no use of a variable at all.
fn is_dereferenced(node: Node) -> bool {
    let mut inner = node;
    let Some(mut parent) = node.parent() else {
        return false;
    };
    if parent.kind() == "field_expression"
        && parent.child_by_field_name("field").map(|f| f.id()) == Some(node.id())
    {
        // `x.p` or `x->p`: a field that shares the parameter's name.
        return true;
    }
    while parent.kind() == "parenthesized_expression" {
        inner = parent;
        match parent.parent() {
            Some(p) => parent = p,
            None => return false,
        }
    }
    let is_operand =
        |field: &str| parent.child_by_field_name(field).map(|n| n.id()) == Some(inner.id());
    match parent.kind() {
        "field_expression" => {
            is_operand("argument")
                && parent
                    .child_by_field_name("operator")
                    .is_some_and(|op| op.kind() == "->")
        }
        "pointer_expression" => {
            is_operand("argument")
                && parent
                    .child_by_field_name("operator")
                    .is_some_and(|op| op.kind() == "*")
        }
        "subscript_expression" => is_operand("argument"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rule` applied to the body of the function `src` defines.
    fn applied(
        rule: fn(Node, &str, &[String]) -> Vec<String>,
        src: &str,
        names: &[&str],
    ) -> Vec<String> {
        let tree = crate::cprog::syntax::parse(src);
        let def = tree.root_node().named_child(0).expect("a definition");
        let body = def.child_by_field_name("body").expect("a body");
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        rule(body, src, &names)
    }

    fn non_null(src: &str, names: &[&str]) -> Vec<String> {
        applied(dereferenced_only, src, names)
    }

    fn first(src: &str, names: &[&str]) -> Vec<String> {
        applied(never_null, src, names)
    }

    #[test]
    fn a_parameter_only_dereferenced_is_never_null() {
        let src = "int f(struct s *item, struct s *out, int *a, char *p) {\n\
                   double d = item->v; int x = (*a) + a[1] + (a)[2];\n\
                   if (out == NULL) return 0; out->v = d; return p != 0; }";
        assert_eq!(non_null(src, &["item", "out", "a", "p"]), ["item", "a"]);
    }

    #[test]
    fn any_other_use_keeps_null_possible() {
        for body in [
            "if (p) return 1; return p->v;",
            "if (!p) return 1; return p->v;",
            "g(p); return p->v;",
            "q = p; return q->v;",
            "return p && p->v;",
            "return p ? p->v : 0;",
            "return (int)(p + 1);",
            "return &p->v == 0;",
        ] {
            let src = format!("int f(struct s *p) {{ {body} }}");
            let expect: &[&str] = if body.starts_with("return &p") {
                // `&p->v` is the address of a field: still only a dereference of `p`.
                &["p"]
            } else {
                &[]
            };
            assert_eq!(non_null(&src, &["p"]), expect, "{body}");
        }
    }

    #[test]
    fn a_parameter_dereferenced_before_anything_else_is_never_null() {
        // http_parser_execute's shape: read the state, then test, pass on and compare.
        let src = "size_t f(struct s *parser, const char *data, size_t len) {\n\
                   char c; /* a comment */ const char *p = data;\n\
                   enum state state = (enum state) parser->state;\n\
                   if (len == 0) return cb(parser);\n\
                   return p - data; }";
        assert_eq!(first(src, &["parser", "data"]), ["parser"]);
        let src = "int f(struct s *p, int n) { if (p->n > 0 && n) return 1; return p == 0; }";
        assert_eq!(first(src, &["p"]), ["p"]);
    }

    #[test]
    fn a_dereference_that_may_not_run_first_keeps_null_possible() {
        for body in [
            "if (n == 0) return 0; int v = p->v; return v + (p == 0);",
            "init(); int v = p->v; return v + (p == 0);",
            "int v = g(p->v); return v + (p == 0);",
            "int v = n && p->v; return v + (p == 0);",
            "int v = n ? p->v : 0; return v + (p == 0);",
            "int v = sizeof p->v; return v + (p == 0);",
            "if (p == 0) return 0; return p->v;",
            "while (n--) { x += p->v; } return p == 0;",
        ] {
            let src = format!("int f(struct s *p, int n) {{ int x = 0; {body} }}");
            assert_eq!(first(&src, &["p"]), Vec::<String>::new(), "{body}");
        }
    }

    #[test]
    fn a_field_named_as_the_parameter_is_no_use_of_it() {
        let src = "int f(struct s *p, struct s *q) { return q->p + q->p[0] + p->v; }";
        assert_eq!(non_null(src, &["p", "q"]), ["p", "q"]);
    }

    #[test]
    fn an_unused_parameter_is_never_dereferenced() {
        assert_eq!(non_null("void f(int *p) { }", &["p"]), ["p"]);
    }
}
