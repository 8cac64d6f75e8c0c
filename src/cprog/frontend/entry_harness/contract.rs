//! Which pointer parameters an entry's own code says are never NULL.
//!
//! Key item: [`dereferenced_only`]. A harness that passes NULL to a function that only
//! dereferences its parameter runs undefined behaviour: CBMC (without pointer checks)
//! reads a fresh value through NULL at every dereference, so two copies of one version
//! read different values and the per-execution check's self-check fails on an input no
//! program ever gets. A function whose every use of a pointer parameter dereferences it
//! (`p->f`, `*p`, `p[i]`) states in its code that the pointer is valid; a function that
//! also compares it, passes it on, stores or returns it may meet NULL (or hand it to code
//! that tests it), and keeps it NULL or an object.
//!
//! The test is syntactic and conservative in one direction only: any use it does not
//! recognise as a dereference keeps NULL possible (as before).

use tree_sitter::Node;

use crate::cprog::syntax::text;

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

    fn non_null(src: &str, names: &[&str]) -> Vec<String> {
        let tree = crate::cprog::syntax::parse(src);
        let def = tree.root_node().named_child(0).expect("a definition");
        let body = def.child_by_field_name("body").expect("a body");
        let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        dereferenced_only(body, src, &names)
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
    fn a_field_named_as_the_parameter_is_no_use_of_it() {
        let src = "int f(struct s *p, struct s *q) { return q->p + q->p[0] + p->v; }";
        assert_eq!(non_null(src, &["p", "q"]), ["p", "q"]);
    }

    #[test]
    fn an_unused_parameter_is_never_dereferenced() {
        assert_eq!(non_null("void f(int *p) { }", &["p"]), ["p"]);
    }
}
