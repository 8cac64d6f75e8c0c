//! SVG drawings, laid out in-process with `layout-rs` (no Graphviz needed) and written by
//! [`canvas`], this module's own SVG writer.
//!
//! The drawing follows [`super::dot`]: accepting states are double circles, doomed states are
//! filled, dominating edges are thick and highlighted edges red; the initial state has an
//! arrow from a small `start` node; all letters between two states are one edge with one
//! label. Every state and edge group carries `class` and `data-*` attributes so that a report
//! can style or link them.
//!
//! A drawing is meant to be shown at its natural size, where its text is as large as the
//! text of the page around it ([`FONT_PX`]); [`draw_to_fit`] picks the direction that suits
//! the column it is shown in.

mod canvas;

use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::geometry::{Point, Position};
use layout::core::style::StyleAttr;
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, ShapeKind};
use layout::topo::layout::VisualGraph;

use super::dfa::Dfa;
use super::marks::{DrawnEdge, Marks, drawn_edges};
use canvas::{Canvas, TextStyle};

/// Beyond this many states or drawn edges a layered layout becomes unreadable (and slow), so
/// callers show a word list instead.
pub const MAX_DRAWN_STATES: usize = 150;
pub const MAX_DRAWN_EDGES: usize = 600;

/// The size of every text of a drawing, in CSS pixels at natural size: the body text of the
/// reports (`templates/_style.html`), so that labels read like the text beside them.
pub(crate) const FONT_PX: f64 = 15.0;

/// An edge label whose letters, listed on one line, are longer than this is written one
/// letter per line: a label's width widens its whole rank in a layered layout.
const ONE_LINE_LABEL_CHARS: usize = 24;

/// layout-rs reserves one "em" per character and per line of a text, the em being the font
/// size in the text's style, whereas a character of [`FONT_PX`] text is about 0.6 of
/// [`FONT_PX`] wide. Each kind of text is therefore handed to layout-rs with an em of its own
/// that makes the space it reserves fit the text drawn, and [`canvas`] tells state names and
/// the start label apart by their ems.
const EDGE_EM: usize = 10;
const STATE_EM: usize = 12;
const START_EM: usize = 9;

/// The blank space layout-rs keeps around a state, in pixels (both sides together; its own
/// default is 60, which spreads a drawing of short labels twice as far as it needs).
const STATE_HALO: f64 = 24.0;
/// The blank space layout-rs keeps around an edge label (its own, fixed).
const CONNECTOR_HALO: f64 = 10.0;

/// Which way the states of a drawing follow one another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Direction {
    LeftToRight,
    TopToBottom,
}

impl Direction {
    fn orientation(self) -> Orientation {
        match self {
            Direction::LeftToRight => Orientation::LeftToRight,
            Direction::TopToBottom => Orientation::TopToBottom,
        }
    }
}

/// An SVG drawing and its natural width in CSS pixels (its `width` attribute).
#[derive(Clone, Debug)]
pub(crate) struct Drawing {
    /// The `<svg>` element alone, without an XML declaration: ready to go into a page.
    pub(crate) svg: String,
    pub(crate) width: f64,
}

/// Whether [`to_svg`] will draw this automaton.
pub fn drawable(dfa: &Dfa) -> bool {
    dfa.num_states() <= MAX_DRAWN_STATES
        && drawn_edges(dfa, &Marks::default()).len() <= MAX_DRAWN_EDGES
}

/// Draws `dfa` left to right as an SVG file (with its XML declaration), or returns `None`
/// when it is too large to draw (see [`drawable`]).
pub fn to_svg(dfa: &Dfa, marks: &Marks) -> Option<String> {
    draw(dfa, marks, Direction::LeftToRight).map(|d| {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n{}",
            d.svg
        )
    })
}

/// Draws `dfa` for a column `column_px` wide, at natural size: left to right, the usual way
/// of drawing automata, when that fits the column; otherwise whichever direction is the
/// narrower, since a page scrolls down by itself but a drawing wider than its column has to
/// be scrolled sideways. `None` when it is too large to draw.
///
/// A layout costs time (seconds for a hundred states), so left to right is not laid out when
/// an estimate of its width already exceeds the column and top to bottom fits. A wrong
/// estimate costs only that preference: a drawing that fits is still chosen.
pub(crate) fn draw_to_fit(dfa: &Dfa, marks: &Marks, column_px: f64) -> Option<Drawing> {
    if !drawable(dfa) {
        return None;
    }
    let mut across = None;
    if least_width_across(dfa, marks) <= column_px {
        let drawing = draw(dfa, marks, Direction::LeftToRight)?;
        if drawing.width <= column_px {
            return Some(drawing);
        }
        across = Some(drawing);
    }
    let down = draw(dfa, marks, Direction::TopToBottom)?;
    if down.width <= column_px {
        return Some(down);
    }
    let across = match across {
        Some(drawing) => drawing,
        None => draw(dfa, marks, Direction::LeftToRight)?,
    };
    Some(if down.width < across.width {
        down
    } else {
        across
    })
}

/// An estimate, from below, of the width of `dfa` drawn left to right: a state k letters
/// away from the initial state is usually k ranks of states to the right of it (not always:
/// layout-rs turns edges round to break cycles), with a rank of labels between each two.
fn least_width_across(dfa: &Dfa, marks: &Marks) -> f64 {
    let mut depth = vec![usize::MAX; dfa.num_states()];
    let mut queue = std::collections::VecDeque::from([dfa.initial()]);
    depth[dfa.initial() as usize] = 0;
    let mut deepest = 0;
    while let Some(q) = queue.pop_front() {
        let d = depth[q as usize];
        deepest = deepest.max(d);
        for a in dfa.alphabet().letters() {
            if let Some(next) = dfa.next(q, a)
                && depth[next as usize] == usize::MAX
            {
                depth[next as usize] = d + 1;
                queue.push_back(next);
            }
        }
    }
    let narrowest_label = drawn_edges(dfa, marks)
        .iter()
        .map(|e| label_size(&label_text(dfa, e)).x)
        .fold(f64::INFINITY, f64::min);
    let state = get_shape_size(
        Orientation::LeftToRight,
        &ShapeKind::new_circle("0"),
        STATE_EM,
        true,
    )
    .x;
    deepest as f64 * (state + STATE_HALO + narrowest_label.min(1e4))
}

/// The space layout-rs reserves for an edge label, halo included.
fn label_size(text: &str) -> Point {
    get_shape_size(
        Orientation::LeftToRight,
        &ShapeKind::new_connector(text),
        EDGE_EM,
        false,
    )
    .add(Point::splat(CONNECTOR_HALO))
}

/// Draws `dfa` in `direction`, or returns `None` when it is too large to draw or the layout
/// fails (layout-rs panics on some graphs: "Can't normalize the unit vector"); a report
/// then lists the automaton instead of drawing it.
pub(crate) fn draw(dfa: &Dfa, marks: &Marks, direction: Direction) -> Option<Drawing> {
    if !drawable(dfa) {
        return None;
    }
    crate::failure::contain_panic(|| lay_out(dfa, marks, direction))
}

fn lay_out(dfa: &Dfa, marks: &Marks, direction: Direction) -> Drawing {
    let orientation = direction.orientation();
    let mut graph = VisualGraph::new(orientation);
    let start_shape = ShapeKind::new_box("start");
    let start_look = StyleAttr::new(
        Color::fast("white"),
        0,
        Some(Color::fast("white")),
        0,
        START_EM,
    );
    let start_size = get_shape_size(orientation, &start_shape, START_EM, false);
    let start = graph.add_node(Element::create_with_properties(
        start_shape,
        start_look,
        orientation,
        start_size,
        "class=\"start\"",
    ));
    let nodes: Vec<_> = dfa
        .states()
        .map(|q| graph.add_node(state_element(dfa, marks, q, orientation)))
        .collect();
    graph.add_edge(Arrow::simple(""), start, nodes[dfa.initial() as usize]);
    for edge in drawn_edges(dfa, marks) {
        let arrow = edge_arrow(dfa, &edge);
        graph.add_edge(arrow, nodes[edge.from as usize], nodes[edge.to as usize]);
    }
    let mut canvas = Canvas::new(TextStyle {
        state_em: STATE_EM,
        start_em: START_EM,
        font_px: FONT_PX,
    });
    graph.do_it(false, false, false, &mut canvas);
    let (svg, width) = canvas.finish();
    Drawing { svg, width }
}

fn state_element(dfa: &Dfa, marks: &Marks, q: u32, orientation: Orientation) -> Element {
    let label = q.to_string();
    let shape = if dfa.is_accepting(q) {
        ShapeKind::new_double_circle(&label)
    } else {
        ShapeKind::new_circle(&label)
    };
    let doomed = marks.doomed.contains(&q);
    let fill = if doomed { "#f4c7c3" } else { "white" };
    let look = StyleAttr::new(
        Color::fast("black"),
        1,
        Some(Color::fast(fill)),
        0,
        STATE_EM,
    );
    let mut class = vec!["state"];
    if dfa.is_accepting(q) {
        class.push("accepting");
    }
    if doomed {
        class.push("doomed");
    }
    let size = get_shape_size(orientation, &shape, STATE_EM, true);
    let mut element = Element::create_with_properties(
        shape,
        look,
        orientation,
        size,
        format!("class=\"{}\" data-state=\"{q}\"", class.join(" ")),
    );
    element.pos = Position::new(Point::zero(), size, Point::zero(), Point::splat(STATE_HALO));
    element
}

fn edge_arrow(dfa: &Dfa, edge: &DrawnEdge) -> Arrow {
    let color = if edge.highlighted { "#dd3333" } else { "black" };
    let width = if edge.dominating { 2 } else { 1 };
    let mut arrow = Arrow::simple(&label_text(dfa, edge));
    arrow.look = StyleAttr::new(Color::fast(color), width, None, 0, EDGE_EM);
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
    arrow
}

/// The label of an edge: its letters on one line, or one letter per line when that line
/// would be long. layout-rs reserves one em ([`EDGE_EM`]) of height per line, about half
/// of a line of [`FONT_PX`] text, so every line after the first comes with an empty one
/// that makes layout-rs reserve the height the line needs (the canvas skips empty lines).
fn label_text(dfa: &Dfa, edge: &DrawnEdge) -> String {
    let one_line = edge.label(dfa);
    if one_line.chars().count() <= ONE_LINE_LABEL_CHARS {
        return one_line;
    }
    let names: Vec<&str> = edge
        .letters
        .iter()
        .map(|&a| dfa.alphabet().name(a))
        .collect();
    names.join(",\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automaton::{Alphabet, json};

    fn three_states() -> Dfa {
        json::from_str(
            r#"{"format":"mergelens-dfa/1","alphabet":["f<x>","g","end"],"states":3,"initial":0,"accepting":[2],
            "transitions":[{"from":0,"letter":"f<x>","to":1},{"from":1,"letter":"g","to":1},{"from":1,"letter":"end","to":2}]}"#,
            "t",
        )
        .unwrap()
    }

    #[test]
    fn draws_states_edges_and_escapes_letters() {
        let svg = to_svg(&three_states(), &Marks::analyse(&three_states())).unwrap();
        assert!(
            svg.starts_with("<?xml") && svg.contains("\n<svg width="),
            "{svg}"
        );
        assert!(svg.contains("f&lt;x&gt;"));
        assert!(!svg.contains("f<x>"));
        assert_eq!(svg.matches("data-state=").count(), 3);
        assert!(svg.contains("class=\"state accepting\""));
    }

    #[test]
    fn letters_between_the_same_states_are_one_edge_with_one_label() {
        let dfa = json::from_str(
            r#"{"format":"mergelens-dfa/1","alphabet":["f","g","end"],"states":3,"initial":0,"accepting":[2],
            "transitions":[{"from":0,"letter":"f","to":1},{"from":0,"letter":"g","to":1},{"from":1,"letter":"end","to":2}]}"#,
            "t",
        )
        .unwrap();
        let svg = to_svg(&dfa, &Marks::default()).unwrap();
        assert_eq!(
            svg.matches("data-from=\"0\" data-to=\"1\"").count(),
            1,
            "{svg}"
        );
        assert_eq!(svg.matches("class=\"edge-label\"").count(), 2, "{svg}");
        assert!(svg.contains(">f, g</tspan>"), "{svg}");
    }

    #[test]
    fn long_lists_of_letters_are_written_one_per_line() {
        let names = ["parse_number", "parse_string", "skip_space"];
        let mut dfa = Dfa::with_states(Alphabet::from_names(names), 2);
        for a in 0..3 {
            dfa.set_transition(0, a, 1);
        }
        dfa.set_accepting(1, true);
        let svg = to_svg(&dfa, &Marks::default()).unwrap();
        for name in names {
            let line = if name == "skip_space" {
                format!(">{name}</tspan>")
            } else {
                format!(">{name},</tspan>")
            };
            assert!(svg.contains(&line), "{line} missing: {svg}");
        }
    }

    /// The `width` and `height` attributes of a drawing.
    fn size(drawing: &Drawing) -> (f64, f64) {
        let head = &drawing.svg[..drawing.svg.find('>').unwrap()];
        let attribute = |name: &str| -> f64 {
            let at = head.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
            head[at..at + head[at..].find('"').unwrap()]
                .parse()
                .unwrap()
        };
        (attribute("width"), attribute("height"))
    }

    #[test]
    fn the_natural_size_is_the_drawing_s_own() {
        let drawing = draw(&three_states(), &Marks::default(), Direction::LeftToRight).unwrap();
        let (width, height) = size(&drawing);
        assert_eq!(width, drawing.width);
        // Three states and a start node side by side: wider than tall, and far from the
        // hundreds of pixels of blank space layout-rs's own writer adds under long labels.
        assert!(width > height, "{width} × {height}");
        assert!(height < 150.0, "{width} × {height}");
    }

    #[test]
    fn a_drawing_too_wide_for_its_column_is_drawn_top_to_bottom() {
        let names: Vec<String> = (0..12).map(|i| format!("call_number_{i}")).collect();
        let mut dfa = Dfa::with_states(Alphabet::from_names(names), 13);
        for q in 0..12 {
            dfa.set_transition(q, q, q + 1);
        }
        dfa.set_accepting(12, true);
        let across = draw(&dfa, &Marks::default(), Direction::LeftToRight).unwrap();
        assert!(across.width > 800.0, "{}", across.width);
        let fitted = draw_to_fit(&dfa, &Marks::default(), 800.0).unwrap();
        let (width, height) = size(&fitted);
        assert!(width <= 800.0 && height > width, "{width} × {height}");
        // The estimate that spares laying it out left to right is below the width it
        // estimates, here where every state is one rank further than the one before.
        assert!(least_width_across(&dfa, &Marks::default()) <= across.width);
        let roomy = draw_to_fit(&dfa, &Marks::default(), 1e6).unwrap();
        assert_eq!(roomy.svg, across.svg);
    }

    /// layout-rs moves labels of long edges onto other nodes of the edge, with a style of
    /// its own: they must still be drawn as edge labels, one per edge.
    #[test]
    fn every_edge_has_one_label_even_when_layout_rs_moves_it() {
        let names = ["step", "report_error", "close_stream", "end"];
        let mut dfa = Dfa::with_states(Alphabet::from_names(names), 7);
        for q in 0..4 {
            dfa.set_transition(q, 0, q + 1);
            // From every step straight to the end: edges that skip ranks.
            dfa.set_transition(q, 1, 5);
            dfa.set_transition(q, 2, 5);
        }
        dfa.set_transition(5, 3, 6);
        dfa.set_accepting(6, true);
        for direction in [Direction::LeftToRight, Direction::TopToBottom] {
            let svg = draw(&dfa, &Marks::default(), direction).unwrap().svg;
            let edges = drawn_edges(&dfa, &Marks::default()).len();
            assert_eq!(svg.matches("class=\"edge-label\"").count(), edges, "{svg}");
            assert_eq!(svg.matches("class=\"state-name\"").count(), 7, "{svg}");
        }
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
