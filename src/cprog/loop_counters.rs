//! Loop counters for concrete runs: an instrumented file rewritten so that every loop body
//! reports its iteration count on each entry of the loop, which tells whether a run stayed
//! within an unwinding bound.
//!
//! Key items: [`count_loop_iterations`] and [`LoopCounterError`]; the hook it calls,
//! [`ITERATION_HOOK`], is defined by the concrete runtime (`crate::cbmc::concrete`).
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

/// The function a loop body calls on each iteration: `(iteration, is_do)`.
pub(crate) const ITERATION_HOOK: &str = "__mergelens_iteration";

/// Why a file cannot be given loop counters; the concrete runs then skip the program.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LoopCounterError {
    #[error("a `goto` in `{function}` may form a loop the iteration counters cannot see")]
    Goto { function: String },
    #[error("a loop at byte {offset} could not be parsed")]
    Unparsed { offset: usize },
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
pub(crate) fn count_loop_iterations(text: &str) -> Result<String, LoopCounterError> {
    let tree = syntax::parse(text);
    let mut inserts = Vec::new();
    let mut next_id = 0usize;
    let mut stack: Vec<(Node, usize, Option<String>)> = vec![(tree.root_node(), 0, None)];
    while let Some((node, depth, function)) = stack.pop() {
        let kind = node.kind();
        // A loop keyword outside a loop statement: tree-sitter lost the loop in an error.
        if matches!(kind, "for" | "while" | "do")
            && !node.parent().is_some_and(|p| syntax::is_loop(p.kind()))
        {
            return Err(LoopCounterError::Unparsed {
                offset: node.start_byte(),
            });
        }
        if let Some(name) = &function {
            if matches!(kind, "goto_statement" | "ERROR") || node.is_missing() {
                return Err(if kind == "goto_statement" {
                    LoopCounterError::Goto {
                        function: name.clone(),
                    }
                } else {
                    LoopCounterError::Unparsed {
                        offset: node.start_byte(),
                    }
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
                .ok_or(LoopCounterError::Unparsed {
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
        out.push_str(&format!(
            "void {ITERATION_HOOK}(unsigned long, int);\n"
        ));
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

fn function_name(def: Node, src: &str) -> String {
    def.child_by_field_name("declarator")
        .and_then(syntax::function_declarator)
        .map_or_else(|| "?".to_string(), |(_, ident)| syntax::text(ident, src).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let err = count_loop_iterations("void h(void) { a: goto a; }").unwrap_err();
        assert_eq!(
            err,
            LoopCounterError::Goto {
                function: "h".to_string()
            }
        );
    }
}
