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

/// How deep a syntax tree may nest (the root's children are at depth 1): the front end's
/// walks recurse over the tree, and at this depth the deepest of them (measured on a debug
/// build, whose frames are the largest: about 1.5 KiB a level) needs well under a third of
/// the front end thread's 256 MiB (`FRONT_END_STACK` in `cprog`). Hand-written C nests a few dozen levels; a chain of 50,000 operators
/// is generated code, and is refused with [`crate::cprog::FrontEndError::TooDeep`].
pub(crate) const MAX_NESTING: usize = 50_000;

/// The deepest node of `tree` and its depth (the root's is 0), found with a cursor rather
/// than recursion: what the front end measures before any of its recursive walks.
pub(crate) fn deepest(tree: &Tree) -> (Node<'_>, usize) {
    let mut cursor = tree.walk();
    let (mut depth, mut best) = (0usize, (tree.root_node(), 0usize));
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > best.1 {
                best = (cursor.node(), depth);
            }
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return best;
            }
            depth -= 1;
        }
    }
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

/// Whether `name`, called at `call`, is a variable of the enclosing function (a parameter,
/// or a local of a block around the call) rather than the function of that name: after
/// `void (*f)(void) = g;`, `f()` calls `g`. A declaration later in the block counts too,
/// which only makes a direct call one through a pointer.
pub(crate) fn names_local_variable(call: Node, name: &str, src: &str) -> bool {
    let mut node = call;
    while let Some(parent) = node.parent() {
        // Each step searches from the root: deep in a deep tree the climb is long. Once a
        // stop is requested the answer no longer matters (the walk that asked stops too).
        if crate::stop::stop_reason().is_some() {
            return false;
        }
        match parent.kind() {
            "compound_statement" | "for_statement" => {
                let declares = named_children(parent).into_iter().any(|c| {
                    c.kind() == "declaration" && declared_variables(c, src).contains(&name)
                });
                if declares {
                    return true;
                }
            }
            "function_definition" => {
                let parameters = parent
                    .child_by_field_name("declarator")
                    .and_then(function_declarator)
                    .and_then(|(f, _)| f.child_by_field_name("parameters"));
                // Every named parameter is a variable, one of function type too (it is
                // adjusted to a pointer).
                return parameters.is_some_and(|list| {
                    named_children(list).into_iter().any(|p| {
                        p.child_by_field_name("declarator")
                            .and_then(|d| declared_name(d, src))
                            .is_some_and(|(n, _)| n == name)
                    })
                });
            }
            _ => {}
        }
        node = parent;
    }
    false
}

/// The names a declaration declares as variables (not functions): `int x, *p;` declares
/// `x` and `p`, `void (*f)(void);` declares `f`, `int *g(void);` declares none.
pub(crate) fn declared_variables<'s>(declaration: Node, src: &'s str) -> Vec<&'s str> {
    let mut cursor = declaration.walk();
    declaration
        .children_by_field_name("declarator", &mut cursor)
        .filter_map(|d| declared_name(d, src))
        .filter(|&(_, variable)| variable)
        .map(|(name, _)| name)
        .collect()
}

/// Every name a declaration declares, variables and functions alike.
pub(crate) fn declared_names<'s>(declaration: Node, src: &'s str) -> Vec<&'s str> {
    let mut cursor = declaration.walk();
    declaration
        .children_by_field_name("declarator", &mut cursor)
        .filter_map(|d| declared_name(d, src))
        .map(|(name, _)| name)
        .collect()
}

/// The identifier a declarator declares, and whether it is a variable: it is one unless
/// the declarator nearest the name is a function declarator (`f(void)` in `int *f(void)`
/// declares a function; `(*f)(void)` a pointer to one).
fn declared_name<'s>(declarator: Node, src: &'s str) -> Option<(&'s str, bool)> {
    let mut node = declarator;
    let mut variable = true;
    loop {
        match node.kind() {
            "identifier" => return Some((text(node, src), variable)),
            "function_declarator" => {
                variable = false;
                node = node.child_by_field_name("declarator")?;
            }
            "pointer_declarator" | "array_declarator" => {
                variable = true;
                node = node.child_by_field_name("declarator")?;
            }
            "init_declarator" => node = node.child_by_field_name("declarator")?,
            "parenthesized_declarator" | "attributed_declarator" => {
                node = named_children(node)
                    .into_iter()
                    .find(|c| c.kind().ends_with("declarator") || c.kind() == "identifier")?;
            }
            _ => return None,
        }
    }
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

    #[test]
    fn the_depth_of_a_chain_grows_with_its_length_and_is_measured_without_recursion() {
        let chain = |n: usize| format!("int v = {};\n", vec!["1"; n].join("+"));
        let (_, shallow) = deepest(&parse(&chain(10)));
        let tree = parse(&chain(200_000));
        let (node, deep) = deepest(&tree);
        assert!(shallow < 20, "{shallow}");
        // Each `+` nests the chain one level deeper: far past MAX_NESTING, and measured on
        // the test thread's small stack.
        assert!(deep > 200_000, "{deep}");
        assert_eq!(node.start_position().row, 0);
        let (_, empty) = deepest(&parse(""));
        assert_eq!(empty, 0);
    }

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

    fn calls(src: &str) -> Vec<(String, bool)> {
        fn walk(node: Node, src: &str, out: &mut Vec<(String, bool)>) {
            if node.kind() == "call_expression" {
                let f = node.child_by_field_name("function").unwrap();
                let name = text(f, src).to_string();
                let local = names_local_variable(node, &name, src);
                out.push((name, local));
            }
            for c in named_children(node) {
                walk(c, src, out);
            }
        }
        let tree = parse(src);
        let mut out = Vec::new();
        walk(tree.root_node(), src, &mut out);
        out
    }

    #[test]
    fn a_local_or_parameter_pointer_hides_the_function_of_its_name() {
        let src = "void f(void) {}\nvoid g(void) {}\nint *h(void);\n\
                   void run(void (*cb)(void), void f(void)) { cb(); f(); }\n\
                   int main(void) {\n  g();\n  { void (*g)(void) = f; g(); }\n  \
                   void h(void); h();\n  for (void (*k)(void) = f; k; ) k();\n  return 0;\n}\n";
        let found = calls(src);
        let local = |n: &str| -> Vec<bool> {
            found
                .iter()
                .filter(|(m, _)| m == n)
                .map(|&(_, l)| l)
                .collect()
        };
        assert_eq!(local("cb"), [true]);
        assert_eq!(local("f"), [true]); // the parameter `void f(void)` is a pointer
        assert_eq!(local("g"), [false, true]); // before the block, and inside it
        assert_eq!(local("h"), [false]); // a block-scope function declaration
        assert_eq!(local("k"), [true]);
    }

    #[test]
    fn declarations_name_their_variables_not_their_functions() {
        let src = "int x, *p, (*fp)(void), *g(void), arr[3];";
        let tree = parse(src);
        let decl = named_children(tree.root_node())[0];
        assert_eq!(declared_variables(decl, src), ["x", "p", "fp", "arr"]);
    }
}
