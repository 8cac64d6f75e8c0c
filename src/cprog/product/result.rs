//! What a version's entry returns, as the product observes it: whether the entry's result is
//! a scalar the product can compare across versions, and the call wrapper's (or generated
//! harness's) call rewritten to hand it over.
//!
//! Key items: [`call_wrapper`] (the product's call of the entry, handing its result and the
//! globals over where the entry itself is called), [`observe`] (also the unit's integer
//! globals: [`integer_globals`]), [`observe_result`] (the entry's unit made to hand its result over, and whether
//! it does), from [`scalar_result`] (the entry's result type, read from its definition) and
//! [`captured_call`] (a generated harness's call of the entry, its result handed over).
//!
//! Only integer results are compared: a pointer's value is an address, which differs
//! between the versions' objects whatever they hold; a floating-point result would need
//! its bits, and a structure has no one value.

use std::fmt::Write as _;

use tree_sitter::Node;

/// The instrumentation's end hook, called where the entry runs off its end.
const END_HOOK: &str = "__mergelens_end";

use crate::cprog::program::InstrumentedProgram;
use crate::cprog::syntax::{self, children, named_children};

/// The type names that are integers whatever the program defines.
const INTEGER_NAMES: [&str; 17] = [
    "_Bool",
    "bool",
    "size_t",
    "ssize_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "intmax_t",
    "uintmax_t",
];

/// Whether the definition of `entry` in `text` (one preprocessed unit) returns an integer
/// (`int`, `unsigned long`, `_Bool`, an enumeration, `size_t`, ...) rather than nothing, a
/// pointer, a floating-point number or an aggregate, on every path: its body ends with a
/// `return` statement. A body that can run off its end returns no defined value there
/// (CBMC makes it a fresh value in each version, which would look like a change).
fn scalar_result(text: &str, entry: &str) -> bool {
    let tree = syntax::parse(text);
    let root = tree.root_node();
    named_children(root)
        .into_iter()
        .filter(|n| n.kind() == "function_definition")
        .find(|n| defines(*n, entry, text))
        .is_some_and(|def| {
            returns_integer(def, root, text)
                && def
                    .child_by_field_name("body")
                    .is_some_and(|body| ends_with_return(body, text))
        })
}

/// Whether `block` ends with a `return` statement (the instrumentation's own block around
/// one included): no path runs off its end. The end hook the instrumentation puts after
/// the last statement is no statement of the program's.
fn ends_with_return(block: Node, text: &str) -> bool {
    let end_hook = format!("{END_HOOK}();");
    let last = named_children(block).into_iter().rfind(|n| {
        n.kind() != "comment"
            && !(n.kind() == "expression_statement" && syntax::text(*n, text) == end_hook)
    });
    last.is_some_and(|last| match last.kind() {
        "return_statement" => true,
        "compound_statement" => ends_with_return(last, text),
        _ => false,
    })
}

/// Whether definition `def` defines `name`.
fn defines(def: Node, name: &str, text: &str) -> bool {
    def.child_by_field_name("declarator")
        .and_then(syntax::function_declarator)
        .is_some_and(|(_, ident)| syntax::text(ident, text) == name)
}

/// Whether definition `def` returns an integer: its declarator is the function's own (no
/// pointer around it) and its type an integer one, also through the unit's typedefs
/// (`typedef int cJSON_bool;`) under `root`.
fn returns_integer(def: Node, root: Node, text: &str) -> bool {
    let direct = def
        .child_by_field_name("declarator")
        .is_some_and(|d| d.kind() == "function_declarator");
    direct
        && def
            .child_by_field_name("type")
            .is_some_and(|ty| integer_type(ty, text) || integer_typedef(ty, root, text, 4))
}

/// Whether `ty` is a type name the unit under `root` defines, at file scope, as a plain
/// integer type (no pointer or array in its declarator), through at most `depth` typedefs.
fn integer_typedef(ty: Node, root: Node, text: &str, depth: usize) -> bool {
    if ty.kind() != "type_identifier" || depth == 0 {
        return false;
    }
    let name = syntax::text(ty, text);
    named_children(root)
        .into_iter()
        .filter(|n| n.kind() == "type_definition")
        .filter(|n| {
            let mut cursor = n.walk();
            let names: Vec<Node> = n
                .children_by_field_name("declarator", &mut cursor)
                .collect();
            names
                .iter()
                .any(|d| d.kind() == "type_identifier" && syntax::text(*d, text) == name)
        })
        .filter_map(|n| n.child_by_field_name("type"))
        .any(|t| integer_type(t, text) || integer_typedef(t, root, text, depth - 1))
}

/// Whether the type specifier `ty` names an integer type.
fn integer_type(ty: Node, text: &str) -> bool {
    match ty.kind() {
        "primitive_type" => !matches!(
            syntax::text(ty, text),
            "void" | "float" | "double" | "char16_t" | "char32_t"
        ),
        "sized_type_specifier" => children(ty)
            .iter()
            .all(|c| !matches!(syntax::text(*c, text), "double" | "float")),
        "enum_specifier" => true,
        "type_identifier" => INTEGER_NAMES.contains(&syntax::text(ty, text)),
        _ => false,
    }
}

/// The variables among `globals` that `text` (the entry's unit) defines at file scope as
/// integers that are not `const` (no pointer, no array, no `extern` declaration): what the
/// entry leaves in them is compared across the versions.
pub(super) fn integer_globals(text: &str, globals: &[String]) -> Vec<String> {
    let tree = syntax::parse(text);
    let mut out: Vec<String> = Vec::new();
    for declaration in named_children(tree.root_node()) {
        // An `extern` declaration defines nothing here: a variable no unit defines is a
        // fresh value in each version, which would look like a change.
        let constant = children(declaration).iter().any(|c| {
            matches!(
                (c.kind(), syntax::text(*c, text)),
                ("type_qualifier", "const") | ("storage_class_specifier", "extern")
            )
        });
        let integer = declaration
            .child_by_field_name("type")
            .is_some_and(|ty| integer_type(ty, text));
        if declaration.kind() != "declaration" || constant || !integer {
            continue;
        }
        let mut cursor = declaration.walk();
        for d in declaration.children_by_field_name("declarator", &mut cursor) {
            let named = match d.kind() {
                "init_declarator" => d.child_by_field_name("declarator"),
                _ => Some(d),
            };
            let Some(name) = named.filter(|n| n.kind() == "identifier") else {
                continue;
            };
            let name = syntax::text(name, text);
            if globals.iter().any(|g| g == name) && !out.iter().any(|g| g == name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// `text` with the call of `entry` that ends the generated harness `harness` (the last
/// statement of its body, `    entry(args);`) handing the entry's result to `hook`; `None`
/// when the harness is not found as generated.
fn captured_call(text: &str, harness: &str, entry: &str, hook: &str) -> Option<String> {
    let start = text.find(&format!("void {harness}(void)\n{{"))?;
    let body_end = start + text[start..].find("\n}\n")? + 2;
    let call = format!("\n    {entry}(");
    let at = start + text[start..body_end].rfind(&call)? + call.len() - entry.len() - 1;
    let end = at + text[at..].find(");\n}")? + 1;
    Some(format!(
        "{}{hook}((long long){}){}",
        &text[..at],
        &text[at..end],
        &text[end..]
    ))
}

/// The entry's unit `text` made to hand the entry's result to `hook` where a generated
/// harness calls the entry (the call wrapper does it where it calls the entry itself), and
/// whether the entry's result is observed: an integer one, called as generated.
/// [`observe_result`], with the integer globals of the unit the entry may leave values in.
pub(super) fn observe(
    text: String,
    program: &InstrumentedProgram,
    called: &str,
    hook: &str,
) -> (String, bool, Vec<String>) {
    let (text, returns) = observe_result(text, program, called, hook);
    let globals = integer_globals(&text, &program.globals);
    (text, returns, globals)
}

fn observe_result(
    text: String,
    program: &InstrumentedProgram,
    called: &str,
    hook: &str,
) -> (String, bool) {
    if !scalar_result(&text, &program.entry) {
        return (text, false);
    }
    if called == program.entry {
        return (text, true);
    }
    match captured_call(&text, called, &program.entry, hook) {
        Some(captured) => (captured, true),
        None => (text, false),
    }
}

/// The wrapper `call` (`__mlcall_<tag>`) that calls the entry (or its generated harness)
/// `called` with the shared arguments (each read by `reader`), handing the entry's result
/// to `result` if given, then each of `globals` as it left it to `global` (by index).
pub(super) fn call_wrapper(
    (call, reader): (&str, &str),
    (parameters, argument_names): (&[String], &[String]),
    called: &str,
    (result, global, globals): (Option<&str>, &str, &[String]),
) -> String {
    let mut wrapper = format!("void {call}(void) {{");
    for (k, (p, name)) in parameters.iter().zip(argument_names).enumerate() {
        let _ = write!(wrapper, " {p}; {name} = (__typeof__({name})){reader}({k});");
    }
    let called = format!("{called}({})", argument_names.join(", "));
    match result {
        Some(hook) => {
            let _ = write!(wrapper, " {hook}((long long){called});");
        }
        None => {
            let _ = write!(wrapper, " {called};");
        }
    }
    for (k, g) in globals.iter().enumerate() {
        let _ = write!(wrapper, " {global}({k}u, (long long){g});");
    }
    wrapper.push_str(" }\n");
    wrapper
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_results_are_scalar_and_others_not() {
        let cases = [
            ("int f(int x) { return x; }", true),
            ("static unsigned long f(void) { return 1; }", true),
            ("_Bool f(void) { return 1; }", true),
            ("enum e { A }; enum e f(void) { return A; }", true),
            (
                "typedef unsigned long size_t; size_t f(void) { return 0; }",
                true,
            ),
            ("void f(void) { }", false),
            ("int f(int x) { if (x) return 1; }", false),
            (
                "int f(int x) { { int r = x; __mergelens_end(); return r; }\n __mergelens_end(); }",
                true,
            ),
            (
                "int f(int x) { if (x) return 1;\n __mergelens_end(); }",
                false,
            ),
            (
                "int f(int x) { if (x) return 1; /* else */ return 2; /* done */ }",
                true,
            ),
            ("int *f(void) { return 0; }", false),
            ("double f(void) { return 0; }", false),
            ("long double f(void) { return 0; }", false),
            (
                "struct s { int a; }; struct s f(void) { struct s v; return v; }",
                false,
            ),
            (
                "typedef struct { int a; } T; T f(void) { T v; return v; }",
                false,
            ),
            // A program's own integer typedefs, through another typedef too.
            (
                "typedef int cJSON_bool; cJSON_bool f(void) { return 1; }",
                true,
            ),
            (
                "typedef unsigned char u8; typedef u8 flag; flag f(void) { return 1; }",
                true,
            ),
            ("typedef int *P; P f(void) { return 0; }", false),
            ("typedef double D; D f(void) { return 0; }", false),
            ("typedef int A[2]; A *f(void) { return 0; }", false),
        ];
        for (text, scalar) in cases {
            assert_eq!(scalar_result(text, "f"), scalar, "{text}");
        }
        assert!(!scalar_result("int g(void) { return 0; }", "f"));
    }

    #[test]
    fn integer_globals_of_the_unit_are_observed() {
        let text = "int a, *p, b = 2; static unsigned long c; const int k = 1; char s[4]; double d; extern int e; struct t { int f; } g; int h(void);";
        let globals: Vec<String> = ["a", "p", "b", "c", "k", "s", "d", "e", "g"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(integer_globals(text, &globals), ["a", "b", "c"]);
        assert_eq!(integer_globals(text, &globals[..1]), ["a"]);
    }

    #[test]
    fn the_harness_call_hands_over_the_result() {
        let text = "int f(char *p, int n);\nvoid __mergelens_call_f(void)\n{\n    char b[4];\n    f(b, g(1));\n}\n";
        let out = captured_call(text, "__mergelens_call_f", "f", "__mlresult_o").unwrap();
        assert!(
            out.contains("\n    __mlresult_o((long long)f(b, g(1)));\n}\n"),
            "{out}"
        );
        assert_eq!(captured_call(text, "__mergelens_call_g", "f", "h"), None);
    }
}
