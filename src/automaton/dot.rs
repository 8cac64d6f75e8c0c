//! Graphviz DOT output.
//!
//! Accepting states are double circles, doomed states are filled, edges carrying a dominating
//! letter are bold, and highlighted edges are red. Parallel transitions share one edge whose
//! label lists their letters. The implicit sink is not drawn (the paper's Sec. 7.2).

use std::fmt::Write;

use super::dfa::Dfa;
use super::marks::{Marks, drawn_edges};

/// Writes `dfa` as a DOT digraph named `name`.
pub fn to_dot(dfa: &Dfa, name: &str, marks: &Marks) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph {} {{", quote(name));
    out.push_str("  rankdir=LR;\n  node [shape=circle, fontname=\"Helvetica\"];\n");
    out.push_str("  edge [fontname=\"Helvetica\"];\n");
    out.push_str("  __start [shape=point, label=\"\"];\n");
    for q in dfa.states() {
        let mut attrs = Vec::new();
        if dfa.is_accepting(q) {
            attrs.push("shape=doublecircle".to_string());
        }
        if marks.doomed.contains(&q) {
            attrs.push("style=filled, fillcolor=\"#f4c7c3\", tooltip=\"doomed\"".to_string());
        }
        if attrs.is_empty() {
            let _ = writeln!(out, "  {q};");
        } else {
            let _ = writeln!(out, "  {q} [{}];", attrs.join(", "));
        }
    }
    let _ = writeln!(out, "  __start -> {};", dfa.initial());
    for edge in drawn_edges(dfa, marks) {
        let mut attrs = vec![format!("label={}", quote(&edge.label(dfa)))];
        if edge.dominating {
            attrs.push("penwidth=2.5, style=bold".to_string());
        }
        if edge.highlighted {
            attrs.push("color=\"#d33\", fontcolor=\"#d33\"".to_string());
        }
        let _ = writeln!(
            out,
            "  {} -> {} [{}];",
            edge.from,
            edge.to,
            attrs.join(", ")
        );
    }
    out.push_str("}\n");
    out
}

/// A DOT double-quoted string; letters come from programs and may hold any character.
fn quote(text: &str) -> String {
    let mut q = String::with_capacity(text.len() + 2);
    q.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                q.push('\\');
                q.push(c);
            }
            '\n' => q.push_str("\\n"),
            _ => q.push(c),
        }
    }
    q.push('"');
    q
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::json;

    #[test]
    fn marks_accepting_doomed_dominating_and_quotes_names() {
        let dfa = json::from_str(
            r#"{"format":"mergelens-dfa/1","alphabet":["f","g\"x","end"],"states":3,"initial":0,"accepting":[2],
            "transitions":[{"from":0,"letter":"f","to":1},{"from":0,"letter":"g\"x","to":1},{"from":1,"letter":"end","to":2}]}"#,
            "t",
        )
        .unwrap();
        let dot = to_dot(&dfa, "t", &Marks::analyse(&dfa));
        assert!(dot.contains("2 [shape=doublecircle]"), "{dot}");
        assert!(dot.contains("1 [style=filled"), "{dot}");
        assert!(dot.contains("0 -> 1 [label=\"f, g\\\"x\"]"), "{dot}");
        assert!(dot.contains("1 -> 2 [label=\"end\", penwidth=2.5"), "{dot}");
        assert!(dot.contains("__start -> 0"));
    }
}
