//! SVG drawings, laid out in-process with `layout-rs` (no Graphviz needed).
//!
//! The drawing follows [`super::dot`]: accepting states are double circles, doomed states are
//! filled, dominating edges are thick and highlighted edges red; the initial state has an
//! arrow from a small `start` node. Every state and edge group carries `class` and `data-*`
//! attributes so that a report can style or link them.

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::style::StyleAttr;
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;

use super::dfa::Dfa;
use super::marks::{Marks, drawn_edges};

/// Beyond this many states or drawn edges a layered layout becomes unreadable (and slow), so
/// callers show a word list instead.
pub const MAX_DRAWN_STATES: usize = 150;
pub const MAX_DRAWN_EDGES: usize = 600;

/// Whether [`to_svg`] will draw this automaton.
pub fn drawable(dfa: &Dfa) -> bool {
    dfa.num_states() <= MAX_DRAWN_STATES
        && drawn_edges(dfa, &Marks::default()).len() <= MAX_DRAWN_EDGES
}

/// Draws `dfa`, or returns `None` when it is too large to draw (see [`drawable`]).
pub fn to_svg(dfa: &Dfa, marks: &Marks) -> Option<String> {
    if !drawable(dfa) {
        return None;
    }
    let mut graph = VisualGraph::new(Orientation::LeftToRight);
    let font = 14;
    let start_shape = ShapeKind::new_box("start");
    let start_look = StyleAttr::new(Color::fast("white"), 0, Some(Color::fast("white")), 0, 11);
    let start = graph.add_node(Element::create_with_properties(
        start_shape.clone(),
        start_look,
        Orientation::TopToBottom,
        get_shape_size(Orientation::TopToBottom, &start_shape, 11, false),
        "class=\"start\"",
    ));
    let nodes: Vec<_> = dfa
        .states()
        .map(|q| {
            let label = q.to_string();
            let shape = if dfa.is_accepting(q) {
                ShapeKind::new_double_circle(&label)
            } else {
                ShapeKind::new_circle(&label)
            };
            let doomed = marks.doomed.contains(&q);
            let fill = if doomed { "#f4c7c3" } else { "white" };
            let look = StyleAttr::new(Color::fast("black"), 1, Some(Color::fast(fill)), 0, font);
            let mut class = vec!["state"];
            if dfa.is_accepting(q) {
                class.push("accepting");
            }
            if doomed {
                class.push("doomed");
            }
            let size = get_shape_size(Orientation::TopToBottom, &shape, font, true);
            graph.add_node(Element::create_with_properties(
                shape,
                look,
                Orientation::TopToBottom,
                size,
                format!("class=\"{}\" data-state=\"{q}\"", class.join(" ")),
            ))
        })
        .collect();
    graph.add_edge(Arrow::simple(""), start, nodes[dfa.initial() as usize]);
    for edge in drawn_edges(dfa, marks) {
        let color = if edge.highlighted { "#dd3333" } else { "black" };
        let width = if edge.dominating { 2 } else { 1 };
        let mut arrow = Arrow::simple(&edge.label(dfa));
        arrow.look = StyleAttr::new(Color::fast(color), width, None, 0, font);
        let mut class = vec!["edge"];
        if edge.dominating {
            class.push("dominating");
        }
        if edge.highlighted {
            class.push("highlighted");
        }
        arrow.properties = Some(format!(
            "class=\"{}\" data-from=\"{}\" data-to=\"{}\"",
            class.join(" "),
            edge.from,
            edge.to
        ));
        graph.add_edge(arrow, nodes[edge.from as usize], nodes[edge.to as usize]);
    }
    let mut writer = SVGWriter::new();
    graph.do_it(false, false, false, &mut writer);
    Some(writer.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::{Alphabet, json};

    #[test]
    fn draws_states_edges_and_escapes_letters() {
        let dfa = json::from_str(
            r#"{"format":"mergelens-dfa/1","alphabet":["f<x>","g","end"],"states":3,"initial":0,"accepting":[2],
            "transitions":[{"from":0,"letter":"f<x>","to":1},{"from":1,"letter":"g","to":1},{"from":1,"letter":"end","to":2}]}"#,
            "t",
        )
        .unwrap();
        let svg = to_svg(&dfa, &Marks::analyse(&dfa)).unwrap();
        assert!(svg.starts_with("<svg") || svg.contains("<svg"), "{svg}");
        assert!(svg.contains("f&lt;x&gt;"));
        assert!(!svg.contains("f<x>"));
        assert_eq!(svg.matches("data-state=").count(), 3);
        assert!(svg.contains("class=\"state accepting\""));
    }

    #[test]
    fn refuses_automata_too_large_to_draw() {
        let mut dfa = Dfa::with_states(Alphabet::from_names(["a"]), MAX_DRAWN_STATES + 1);
        for q in 0..MAX_DRAWN_STATES as u32 {
            dfa.set_transition(q, 0, q + 1);
        }
        assert!(to_svg(&dfa, &Marks::default()).is_none());
    }
}
