//! Small helpers over tree-sitter-c syntax trees, shared by the event finder and the
//! control-flow builder so that both read the program the same way.

use tree_sitter::{Node, Parser, Tree};

/// Parses C text; tree-sitter always returns a tree (with ERROR nodes where it had to).
pub(crate) fn parse(text: &str) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_c::LANGUAGE.into())
        .expect("the bundled tree-sitter-c grammar matches the tree-sitter library");
    parser
        .parse(text, None)
        .expect("parsing without a timeout or cancellation flag always yields a tree")
}

pub(crate) fn text<'s>(node: Node, src: &'s str) -> &'s str {
    &src[node.byte_range()]
}

/// The node's text with every run of whitespace (line breaks included) made one space, for
/// messages and for code copied onto one line.
pub(crate) fn flat_text(node: Node, src: &str) -> String {
    text(node, src)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn named_children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

pub(crate) fn children(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// `((e))` is `e`.
pub(crate) fn strip_parens(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" && node.named_child_count() == 1 {
        match node.named_child(0) {
            Some(inner) if inner.kind() != "compound_statement" => node = inner,
            _ => break,
        }
    }
    node
}

/// Expressions whose operands are not evaluated, so calls inside them emit no event.
pub(crate) fn is_unevaluated(kind: &str) -> bool {
    matches!(
        kind,
        "sizeof_expression" | "alignof_expression" | "offsetof_expression" | "type_descriptor"
    )
}

pub(crate) fn is_loop(kind: &str) -> bool {
    matches!(kind, "while_statement" | "do_statement" | "for_statement")
}

/// The function declarator of a definition or declaration and the identifier it declares:
/// in `int *(*f(int))(char)` that is the declarator `f(int)` and `f`.
pub(crate) fn function_declarator(declarator: Node) -> Option<(Node, Node)> {
    let mut node = declarator;
    loop {
        match node.kind() {
            "function_declarator" => {
                let inner = node.child_by_field_name("declarator")?;
                let named = unwrap_declarator(inner);
                if named.kind() == "identifier" {
                    return Some((node, named));
                }
                node = inner;
            }
            "pointer_declarator" | "attributed_declarator" | "init_declarator" => {
                node = node
                    .child_by_field_name("declarator")
                    .or_else(|| node.named_child(0))?;
            }
            "parenthesized_declarator" => {
                node = named_children(node)
                    .into_iter()
                    .find(|c| c.kind().ends_with("declarator") || c.kind() == "identifier")?;
            }
            _ => return None,
        }
    }
}

fn unwrap_declarator(mut node: Node) -> Node {
    while matches!(
        node.kind(),
        "parenthesized_declarator" | "attributed_declarator"
    ) {
        match named_children(node)
            .into_iter()
            .find(|c| c.kind().ends_with("declarator") || c.kind() == "identifier")
        {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// The value of an integer literal used as a loop condition, when it is one: `while (1)`
/// has no exit through its condition and `do { } while (0)` no back edge.
pub(crate) fn constant_condition(condition: Node, src: &str) -> Option<bool> {
    let node = strip_parens(condition);
    if node.kind() != "number_literal" {
        return None;
    }
    let literal = text(node, src).trim_end_matches(['u', 'U', 'l', 'L']);
    let value = if let Some(hex) = literal
        .strip_prefix("0x")
        .or_else(|| literal.strip_prefix("0X"))
    {
        u64::from_str_radix(hex, 16).ok()?
    } else if literal.len() > 1 && literal.starts_with('0') {
        u64::from_str_radix(&literal[1..], 8).ok()?
    } else {
        literal.parse::<u64>().ok()?
    };
    Some(value != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_def(tree: &Tree) -> Node<'_> {
        named_children(tree.root_node())
            .into_iter()
            .find(|n| n.kind() == "function_definition")
            .unwrap()
    }

    #[test]
    fn finds_the_declared_name_through_pointers_and_parentheses() {
        let src = "int (*pick(int k))(char) { return 0; }";
        let tree = parse(src);
        let def = first_def(&tree);
        let (decl, name) =
            function_declarator(def.child_by_field_name("declarator").unwrap()).unwrap();
        assert_eq!(text(name, src), "pick");
        assert_eq!(text(decl, src), "pick(int k)");
    }

    #[test]
    fn loop_constants() {
        let src = "void f(void) { while (1) {} while (0x0) {} while (n) {} }";
        let tree = parse(src);
        let body = first_def(&tree).child_by_field_name("body").unwrap();
        let values: Vec<Option<bool>> = named_children(body)
            .into_iter()
            .map(|w| constant_condition(w.child_by_field_name("condition").unwrap(), src))
            .collect();
        assert_eq!(values, [Some(true), Some(false), None]);
    }
}
