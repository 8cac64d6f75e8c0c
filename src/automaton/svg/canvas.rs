//! The SVG writer the layout draws on, instead of layout-rs's own: that one sizes the
//! drawing by adding ten pixels of height per character of every text (hundreds of blank
//! pixels under a drawing with long labels), sets text in Times through a `<style>` element
//! that an HTML page applies to all of itself, and writes edge labels as unrelated text.
//! Here the size is the drawing's bounding box, texts carry their own size and a class by
//! kind (`state-name`, `edge-label`, `start-label`), and an edge label has the edge's colour
//! and a white background that interrupts its edge where the edge runs through it.

use std::fmt::Write;

use layout::core::color::Color;
use layout::core::format::{ClipHandle, RenderBackend};
use layout::core::geometry::Point;
use layout::core::style::StyleAttr;

/// Blank space around the drawing, in pixels.
const MARGIN: f64 = 6.0;
/// The height of one line of text, in ems.
const LINE_EMS: f64 = 1.25;
/// The width of an average character, in ems (DejaVu Sans is about 0.6; a bound, not a
/// measure, used only for the drawing's size).
const CHAR_EMS: f64 = 0.65;

/// How the texts of a drawing are told apart and set.
pub(super) struct TextStyle {
    /// The em layout-rs was given for state names, and for the start node's label; any
    /// other text is an edge label (whose em is the edge's, or layout-rs's own when it has
    /// moved the label onto another of the edge's nodes to spread a busy rank).
    pub(super) state_em: usize,
    pub(super) start_em: usize,
    /// The size every text is set in, in pixels.
    pub(super) font_px: f64,
}

pub(super) struct Canvas {
    style: TextStyle,
    content: String,
    /// Edge labels, written after everything else: layout-rs draws the edges after the
    /// nodes that carry their labels, and a label must cover its edge.
    labels: String,
    low: Point,
    high: Point,
    clips: Vec<String>,
}

impl Canvas {
    pub(super) fn new(style: TextStyle) -> Canvas {
        Canvas {
            style,
            content: String::new(),
            labels: String::new(),
            low: Point::splat(f64::INFINITY),
            high: Point::splat(f64::NEG_INFINITY),
            clips: Vec::new(),
        }
    }

    /// The SVG element, and its width in pixels.
    pub(super) fn finish(self) -> (String, f64) {
        let (x, y) = (self.low.x - MARGIN, self.low.y - MARGIN);
        let width = round(self.high.x - self.low.x + 2.0 * MARGIN);
        let height = round(self.high.y - self.low.y + 2.0 * MARGIN);
        let mut svg = format!(
            "<svg width=\"{width}\" height=\"{height}\" viewBox=\"{} {} {width} {height}\" \
             xmlns=\"http://www.w3.org/2000/svg\">\n",
            round(x),
            round(y)
        );
        // Arrowheads in pixels, not in line widths: a thick edge keeps a head of the same
        // size.
        svg.push_str(
            "<defs>\n<marker id=\"endarrow\" markerUnits=\"userSpaceOnUse\" markerWidth=\"10\" \
             markerHeight=\"7\" refX=\"10\" refY=\"3.5\" orient=\"auto\"><polygon \
             points=\"0 0, 10 3.5, 0 7\" fill=\"context-stroke\"/></marker>\n<marker \
             id=\"startarrow\" markerUnits=\"userSpaceOnUse\" markerWidth=\"10\" markerHeight=\"7\" \
             refX=\"0\" refY=\"3.5\" orient=\"auto\"><polygon points=\"10 0, 10 7, 0 3.5\" \
             fill=\"context-stroke\"/></marker>\n",
        );
        for clip in &self.clips {
            svg.push_str(clip);
        }
        svg.push_str("</defs>\n");
        svg.push_str(&self.content);
        svg.push_str(&self.labels);
        svg.push_str("</svg>\n");
        (svg, width)
    }

    fn grow(&mut self, low: Point, high: Point) {
        self.low = Point::new(self.low.x.min(low.x), self.low.y.min(low.y));
        self.high = Point::new(self.high.x.max(high.x), self.high.y.max(high.y));
    }
}

/// Coordinates to a tenth of a pixel: enough for a drawing, and short to write.
fn round(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

fn colour(c: Color) -> String {
    let web = c.to_web_color();
    // layout-rs writes #rrggbbaa; every colour here is opaque.
    match web.strip_suffix("ff") {
        Some(rgb) if web.len() == 9 => rgb.to_string(),
        _ => web,
    }
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

impl RenderBackend for Canvas {
    fn draw_rect(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
        clip: Option<ClipHandle>,
    ) {
        self.grow(xy, xy.add(size));
        let fill = look.fill_color.map_or("none".to_string(), colour);
        let clip = clip.map_or(String::new(), |c| format!(" clip-path=\"url(#clip{c})\""));
        let _ = writeln!(
            self.content,
            "<g {}><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"{}\" fill=\"{fill}\" \
             stroke=\"{}\" stroke-width=\"{}\"{clip}/></g>",
            properties.unwrap_or_default(),
            round(xy.x),
            round(xy.y),
            round(size.x),
            round(size.y),
            look.rounded,
            colour(look.line_color),
            look.line_width,
        );
    }

    fn draw_line(
        &mut self,
        start: Point,
        stop: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        self.grow(start, start);
        self.grow(stop, stop);
        let _ = writeln!(
            self.content,
            "<g {}><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" \
             stroke-width=\"{}\"/></g>",
            properties.unwrap_or_default(),
            round(start.x),
            round(start.y),
            round(stop.x),
            round(stop.y),
            colour(look.line_color),
            look.line_width,
        );
    }

    fn draw_circle(
        &mut self,
        xy: Point,
        size: Point,
        look: &StyleAttr,
        properties: Option<String>,
    ) {
        let half = size.scale(0.5);
        self.grow(xy.sub(half), xy.add(half));
        let fill = look.fill_color.map_or("none".to_string(), colour);
        let _ = writeln!(
            self.content,
            "<g {}><ellipse cx=\"{}\" cy=\"{}\" rx=\"{}\" ry=\"{}\" fill=\"{fill}\" stroke=\"{}\" \
             stroke-width=\"{}\"/></g>",
            properties.unwrap_or_default(),
            round(xy.x),
            round(xy.y),
            round(half.x),
            round(half.y),
            colour(look.line_color),
            look.line_width,
        );
    }

    /// A text centred on `xy`, one `tspan` per line; empty lines only made room (see
    /// `label_text` in svg.rs).
    fn draw_text(&mut self, xy: Point, text: &str, look: &StyleAttr) {
        let font = self.style.font_px;
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.is_empty() {
            return;
        }
        let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let line_px = LINE_EMS * font;
        let half = Point::new(
            widest as f64 * CHAR_EMS * font / 2.0,
            lines.len() as f64 * line_px / 2.0,
        );
        self.grow(xy.sub(half), xy.add(half));
        let edge_label =
            look.font_size != self.style.state_em && look.font_size != self.style.start_em;
        let mut out = String::new();
        let (class, paint) = if edge_label {
            // The edge runs through the middle of its label: a white box under the letters
            // interrupts the line there.
            let _ = writeln!(
                out,
                "<rect class=\"label-box\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"3\" \
                 fill=\"#ffffff\"/>",
                round(xy.x - half.x),
                round(xy.y - half.y),
                round(2.0 * half.x),
                round(2.0 * half.y)
            );
            (
                "edge-label",
                format!(" fill=\"{}\"", colour(look.line_color)),
            )
        } else if look.font_size == self.style.start_em {
            ("start-label", " fill=\"#59636e\"".to_string())
        } else {
            ("state-name", String::new())
        };
        let first = xy.y - (lines.len() - 1) as f64 * line_px / 2.0;
        let _ = write!(
            out,
            "<text class=\"{class}\" x=\"{}\" y=\"{}\" font-size=\"{font}\" \
             font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" text-anchor=\"middle\" \
             dominant-baseline=\"central\"{paint}>",
            round(xy.x),
            round(first),
        );
        for (i, line) in lines.iter().enumerate() {
            let dy = if i == 0 { 0.0 } else { line_px };
            let _ = write!(
                out,
                "<tspan x=\"{}\" dy=\"{}\">{}</tspan>",
                round(xy.x),
                round(dy),
                escape(line)
            );
        }
        out.push_str("</text>\n");
        if edge_label {
            self.labels.push_str(&out);
        } else {
            self.content.push_str(&out);
        }
    }

    fn draw_arrow(
        &mut self,
        path: &[(Point, Point)],
        dashed: bool,
        head: (bool, bool),
        look: &StyleAttr,
        properties: Option<String>,
        text: &str,
    ) {
        // layout-rs hands over [(start, its control point), (point, entry control point)...]:
        // a cubic Bézier through the first two, then smooth segments.
        for (point, control) in path {
            self.grow(*point, *point);
            self.grow(*control, *control);
        }
        let mut d = String::new();
        if let [(p0, c0), (p1, c1), rest @ ..] = path {
            let _ = write!(
                d,
                "M {} {} C {} {}, {} {}, {} {}",
                round(p0.x),
                round(p0.y),
                round(c0.x),
                round(c0.y),
                round(p1.x),
                round(p1.y),
                round(c1.x),
                round(c1.y)
            );
            for (p, c) in rest {
                let _ = write!(
                    d,
                    " S {} {}, {} {}",
                    round(p.x),
                    round(p.y),
                    round(c.x),
                    round(c.y)
                );
            }
        }
        let dash = if dashed {
            " stroke-dasharray=\"5,5\""
        } else {
            ""
        };
        let start = if head.0 {
            " marker-start=\"url(#startarrow)\""
        } else {
            ""
        };
        let end = if head.1 {
            " marker-end=\"url(#endarrow)\""
        } else {
            ""
        };
        let _ = writeln!(
            self.content,
            "<g {}><path d=\"{d}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{dash}{start}{end}/>\
             </g>",
            properties.unwrap_or_default(),
            colour(look.line_color),
            look.line_width,
        );
        // layout-rs moves every label onto a node of its own before drawing, so an arrow
        // brings text only if that changes; it is then set beside the arrow's middle point.
        if !text.is_empty()
            && let Some((middle, _)) = path.get(path.len() / 2)
        {
            self.draw_text(*middle, text, look);
        }
    }

    fn create_clip(&mut self, xy: Point, size: Point, rounded_px: usize) -> ClipHandle {
        let handle = self.clips.len();
        self.clips.push(format!(
            "<clipPath id=\"clip{handle}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" \
             rx=\"{rounded_px}\"/></clipPath>\n",
            round(xy.x),
            round(xy.y),
            round(size.x),
            round(size.y)
        ));
        handle
    }
}
