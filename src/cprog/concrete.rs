//! What a concrete run (gcc, not CBMC) needs of an instrumented file: loop counters, which
//! tell whether a run stayed within an unwinding bound, and bodies for the `nondet_*`
//! functions CBMC leaves without one, which draw from the concrete runtime's generator.
//!
//! Key items: [`concrete_text`] → [`ConcreteText`], and [`ConcreteTextError`]; the hooks the
//! rewritten text calls, [`ITERATION_HOOK`] and [`NONDET_HOOK`], are defined by the concrete
//! runtime (`crate::cbmc::concrete`).
//!
//! Each `for`, `while` and `do` statement inside a function body becomes
//! `{ unsigned long __mlc_N = 0; LOOP }` with the body `{ __mergelens_iteration(++__mlc_N, D); BODY }`
//! (`D` is 1 for a `do` loop): the counter starts again each time the loop is entered,
//! as CBMC's unwinding counter does (measured with CBMC 6.6: an inner `while` running
//! twice in each of two outer iterations is within `--unwind 3`), and `do` bodies may run
//! once more than the others at the same bound (see [`crate::cbmc::LearnBounds`]).
//! A backward `goto` is a loop to CBMC that the rewriting cannot see, so a file with a
//! `goto` in a function body is refused, as is one whose loops tree-sitter could not parse.

use tree_sitter::Node;

use super::syntax::{self, children};
use crate::failure::{FailureKind, HasKind};

/// The function a loop body calls on each iteration: `(iteration, is_do)`.
pub(crate) const ITERATION_HOOK: &str = "__mergelens_iteration";

/// The function a `nondet_*` body calls to fill its result: `(address, bytes)`.
pub(crate) const NONDET_HOOK: &str = "__mergelens_nondet";

/// Why a file cannot be run concretely; the concrete runs then skip the program.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConcreteTextError {
    #[error("a `goto` in `{function}` may form a loop the iteration counters cannot see")]
    Goto { function: String },
    #[error("a loop at byte {offset} could not be parsed")]
    Unparsed { offset: usize },
    #[error("`{0}` returns a pointer or takes parameters: no concrete value for it")]
    Nondet(String),
}

impl HasKind for ConcreteTextError {
    /// Code the concrete runs cannot follow: the program is fine, CBMC still answers.
    fn kind(&self) -> FailureKind {
        match self {
            ConcreteTextError::Goto { .. }
            | ConcreteTextError::Unparsed { .. }
            | ConcreteTextError::Nondet(_) => FailureKind::BadInput,
        }
    }
}

/// An instrumented file made ready for gcc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ConcreteText {
    pub text: String,
    /// The input streams the file reads (`__mergelens_input_<key>`, see
    /// [`super::FrontEndConfig::share_inputs`]), by key.
    pub input_keys: Vec<String>,
    /// The functions the file declares with a `void` result and does not define: if no
    /// other file nor the C library defines one, it gets the empty body CBMC gives it.
    pub void_functions: Vec<String>,
    /// Every function the file declares at file scope (a function called but in none of
    /// these is implicitly declared: to CBMC, without a body, it returns any `int`).
    pub declared_functions: Vec<String>,
}

/// `text` with loop counters and bodies for the `nondet_*` functions it declares or calls
/// and that no file defines (`given` holds those given a body by an earlier file, and
/// gets this file's); see the module documentation.
pub(crate) fn concrete_text(
    text: &str,
    given: &mut std::collections::BTreeSet<String>,
) -> Result<ConcreteText, ConcreteTextError> {
    let counted = count_loop_iterations(text)?;
    let tree = syntax::parse(&parser_copy(&counted));
    let mut input_keys = std::collections::BTreeSet::new();
    let mut void_functions = std::collections::BTreeSet::new();
    let mut declared_functions = std::collections::BTreeSet::new();
    let mut defined = std::collections::BTreeSet::new();
    // Name → (return type, whether the parameter list is empty or `void`).
    let mut nondet: std::collections::BTreeMap<String, Option<(String, bool)>> =
        std::collections::BTreeMap::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        stack.extend(children(node));
        if node.kind() == "function_definition"
            && let Some((_, ident)) = node
                .child_by_field_name("declarator")
                .and_then(syntax::function_declarator)
        {
            defined.insert(syntax::text(ident, &counted).to_string());
        }
        if node.kind() == "function_declarator"
            && let Some((_, ident)) = syntax::function_declarator(node)
        {
            declared_functions.insert(syntax::text(ident, &counted).to_string());
        }
        if node.kind() == "declaration"
            && node
                .child_by_field_name("type")
                .is_some_and(|t| syntax::text(t, &counted) == "void")
            && let Some(d) = node.child_by_field_name("declarator")
            && d.kind() == "function_declarator"
            && let Some(ident) = d.child_by_field_name("declarator")
        {
            void_functions.insert(syntax::text(ident, &counted).to_string());
        }
        if node.kind() != "identifier" {
            continue;
        }
        let name = syntax::text(node, &counted);
        if let Some(key) = name.strip_prefix(super::frontend::INPUT_HOOK) {
            input_keys.insert(key.to_string());
        } else if is_nondet(name) {
            let declared = declaration_of(node, &counted);
            let entry = nondet.entry(name.to_string()).or_insert(None);
            if declared.is_some() {
                *entry = declared;
            }
        }
    }
    let mut tail = String::new();
    for (name, declared) in nondet {
        if defined.contains(&name) || !given.insert(name.clone()) {
            continue;
        }
        let result = match declared {
            // Called without a declaration: C's implicit `int`.
            None => "int".to_string(),
            Some((result, true)) => result,
            Some((_, false)) => return Err(ConcreteTextError::Nondet(name)),
        };
        let value = if matches!(result.as_str(), "_Bool" | "bool") {
            // A `_Bool` holds 0 or 1 only, as CBMC's nondet `_Bool` does.
            format!("__ml_v = (_Bool)({NONDET_HOOK}(0, 0) & 1);")
        } else {
            format!("{NONDET_HOOK}(&__ml_v, sizeof(__ml_v));")
        };
        tail.push_str(&format!(
            "\n{result} {name}(void) {{ {result} __ml_v; {value} return __ml_v; }}\n"
        ));
    }
    let mut out = String::with_capacity(counted.len() + tail.len() + 80);
    if !tail.is_empty() {
        out.push_str(&format!(
            "unsigned long {NONDET_HOOK}(void *, unsigned long);\n"
        ));
    }
    out.push_str(&counted);
    out.push_str(&tail);
    Ok(ConcreteText {
        text: out,
        input_keys: input_keys.into_iter().collect(),
        void_functions: void_functions
            .into_iter()
            .filter(|f| !defined.contains(f))
            .collect(),
        declared_functions: declared_functions.into_iter().collect(),
    })
}

/// What the parser reads of `text`, byte for byte as long: line markers and other directive
/// lines blanked (glibc's `assert` puts markers inside an expression, where tree-sitter-c
/// cannot read them), and the GNU forms the front end's parser copy blanks too
/// ([`super::dialect::blank_for_parser`]).
fn parser_copy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('#') {
            let body = line.trim_end_matches('\n');
            out.extend(std::iter::repeat_n(' ', body.len()));
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    super::dialect::blank_for_parser(&out)
}

/// SV-COMP's and CBMC's `nondet_*` functions.
fn is_nondet(name: &str) -> bool {
    let rest = name.strip_prefix("__VERIFIER_").unwrap_or(name);
    rest.strip_prefix("nondet_")
        .is_some_and(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// For the identifier of a function declaration (not a definition): its result type and
/// whether it takes no parameters; `Some((_, false))` for a result type gcc cannot be given a
/// value of (a pointer) or parameters.
fn declaration_of(ident: Node, src: &str) -> Option<(String, bool)> {
    let fdecl = ident
        .parent()
        .filter(|p| p.kind() == "function_declarator")?;
    let declaration = fdecl.parent()?;
    if declaration.kind() != "declaration" {
        // A pointer result (`pointer_declarator` in between) or something else.
        return Some((String::new(), false));
    }
    let result = syntax::text(declaration.child_by_field_name("type")?, src).to_string();
    let params = fdecl.child_by_field_name("parameters")?;
    let inner = syntax::text(params, src)
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim()
        .to_string();
    Some((result, inner.is_empty() || inner == "void"))
}

/// One text insertion: where, which loop nesting depth, opening or closing.
struct Insert {
    at: usize,
    depth: usize,
    open: bool,
    text: String,
}

/// `text` with every loop's iterations reported to [`ITERATION_HOOK`]; see the module
/// documentation.
fn count_loop_iterations(text: &str) -> Result<String, ConcreteTextError> {
    if super::dialect::computed_goto(text) {
        return Err(ConcreteTextError::Goto {
            function: "a computed goto".to_string(),
        });
    }
    let tree = syntax::parse(&parser_copy(text));
    let mut inserts = Vec::new();
    let mut next_id = 0usize;
    let mut stack: Vec<(Node, usize, Option<String>)> = vec![(tree.root_node(), 0, None)];
    while let Some((node, depth, function)) = stack.pop() {
        let kind = node.kind();
        // A loop keyword outside a loop statement: tree-sitter lost the loop in an error.
        if matches!(kind, "for" | "while" | "do")
            && !node.parent().is_some_and(|p| syntax::is_loop(p.kind()))
        {
            return Err(ConcreteTextError::Unparsed {
                offset: node.start_byte(),
            });
        }
        if let Some(name) = &function {
            if kind == "ERROR" || node.is_missing() {
                return Err(ConcreteTextError::Unparsed {
                    offset: node.start_byte(),
                });
            }
            if (kind == "goto_statement" && backward(node, text)) || long_jump(node, text) {
                return Err(ConcreteTextError::Goto {
                    function: name.clone(),
                });
            }
        }
        let function = if kind == "function_definition" {
            Some(function_name(node, text))
        } else {
            function
        };
        let mut child_depth = depth;
        if function.is_some() && syntax::is_loop(kind) {
            let body = node
                .child_by_field_name("body")
                .ok_or(ConcreteTextError::Unparsed {
                    offset: node.start_byte(),
                })?;
            let id = next_id;
            next_id += 1;
            let is_do = u8::from(kind == "do_statement");
            inserts.push(Insert {
                at: node.start_byte(),
                depth: 2 * depth,
                open: true,
                text: format!("{{ unsigned long __mlc_{id} = 0; "),
            });
            inserts.push(Insert {
                at: node.end_byte(),
                depth: 2 * depth,
                open: false,
                text: " }".to_string(),
            });
            inserts.push(Insert {
                at: body.start_byte(),
                depth: 2 * depth + 1,
                open: true,
                text: format!("{{ {ITERATION_HOOK}(++__mlc_{id}, {is_do}); "),
            });
            inserts.push(Insert {
                at: body.end_byte(),
                depth: 2 * depth + 1,
                open: false,
                text: " }".to_string(),
            });
            child_depth = depth + 1;
        }
        for child in children(node) {
            stack.push((child, child_depth, function.clone()));
        }
    }
    // At one position: closings before openings, inner closings first, outer openings first.
    inserts.sort_by(|a, b| {
        a.at.cmp(&b.at).then(a.open.cmp(&b.open)).then(if a.open {
            a.depth.cmp(&b.depth)
        } else {
            b.depth.cmp(&a.depth)
        })
    });
    let mut out = String::with_capacity(text.len() + inserts.len() * 40);
    if next_id > 0 {
        out.push_str(&format!("void {ITERATION_HOOK}(unsigned long, int);\n"));
    }
    let mut last = 0;
    for insert in &inserts {
        out.push_str(&text[last..insert.at]);
        out.push_str(&insert.text);
        last = insert.at;
    }
    out.push_str(&text[last..]);
    Ok(out)
}

/// Whether a `goto` jumps back to a label at or before it (a loop to CBMC); a label not
/// found counts as backward.
fn backward(goto: Node, src: &str) -> bool {
    let Some(label) = goto
        .child_by_field_name("label")
        .map(|l| syntax::text(l, src))
    else {
        return true;
    };
    let mut function = goto;
    while function.kind() != "function_definition" {
        match function.parent() {
            Some(p) => function = p,
            None => return true,
        }
    }
    let mut stack = vec![function];
    while let Some(node) = stack.pop() {
        if node.kind() == "labeled_statement"
            && node
                .child_by_field_name("label")
                .is_some_and(|l| syntax::text(l, src) == label)
        {
            return node.start_byte() <= goto.start_byte();
        }
        stack.extend(children(node));
    }
    true
}

/// A call of `longjmp` and its kin, which may jump back like a loop.
fn long_jump(node: Node, src: &str) -> bool {
    node.kind() == "call_expression"
        && node.child_by_field_name("function").is_some_and(|f| {
            matches!(
                syntax::text(f, src),
                "longjmp" | "_longjmp" | "siglongjmp" | "__builtin_longjmp"
            )
        })
}

fn function_name(def: Node, src: &str) -> String {
    def.child_by_field_name("declarator")
        .and_then(syntax::function_declarator)
        .map_or_else(
            || "?".to_string(),
            |(_, ident)| syntax::text(ident, src).to_string(),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nondet_functions_get_bodies_once() {
        let src = "int nondet_int(void); _Bool nondet_bool(); int main(void) { return nondet_int() + nondet_bool() + __VERIFIER_nondet_uchar(); }";
        let mut given = std::collections::BTreeSet::new();
        let out = concrete_text(src, &mut given).unwrap();
        assert!(out.text.contains("int nondet_int(void) { int __ml_v; __mergelens_nondet(&__ml_v, sizeof(__ml_v)); return __ml_v; }"), "{}", out.text);
        assert!(out.text.contains("_Bool nondet_bool(void) { _Bool __ml_v; __ml_v = (_Bool)(__mergelens_nondet(0, 0) & 1);"), "{}", out.text);
        assert!(
            out.text.contains("int __VERIFIER_nondet_uchar(void)"),
            "{}",
            out.text
        );
        assert!(out.void_functions.is_empty());
        let declared = concrete_text("void log_it(int); void f(void) { log_it(1); }", &mut given);
        assert_eq!(declared.unwrap().void_functions, ["log_it"]);
        let again = concrete_text(src, &mut given).unwrap();
        assert!(!again.text.contains("nondet_int(void) {"), "{}", again.text);
        let pointer = concrete_text(
            "char *nondet_ptr(void); void f(void) { nondet_ptr(); }",
            &mut given,
        );
        assert_eq!(
            pointer,
            Err(ConcreteTextError::Nondet("nondet_ptr".to_string()))
        );
    }

    #[test]
    fn loops_get_counters_reset_on_each_entry() {
        let src = "int f(int n) { int s = 0; for (int i = 0; i < n; i++) while (s < i) s++; do s--; while (s > 0); return s; }";
        let out = count_loop_iterations(src).unwrap();
        let for_loop = "{ unsigned long __mlc_1 = 0; for (int i = 0; i < n; i++) { __mergelens_iteration(++__mlc_1, 0); ";
        let inner = "{ unsigned long __mlc_2 = 0; while (s < i) { __mergelens_iteration(++__mlc_2, 0); s++; } } } }";
        let do_loop = "{ unsigned long __mlc_0 = 0; do { __mergelens_iteration(++__mlc_0, 1); s--; } while (s > 0); }";
        for part in [for_loop, inner, do_loop] {
            assert!(out.contains(part), "{part} in {out}");
        }
        // The result still parses without errors.
        assert!(!syntax::parse(&out).root_node().has_error(), "{out}");
    }

    #[test]
    fn files_without_loops_are_unchanged_and_gotos_refused() {
        let src = "int g(void) { return 1; }";
        assert_eq!(count_loop_iterations(src).unwrap(), src);
        let forward = "void k(int x) { if (x) goto out; x++; out: return; }";
        assert!(count_loop_iterations(forward).is_ok());
        let err = count_loop_iterations("void h(void) { a: goto a; }").unwrap_err();
        assert_eq!(
            err,
            ConcreteTextError::Goto {
                function: "h".to_string()
            }
        );
    }
}
