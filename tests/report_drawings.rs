//! The drawings of the HTML reports as a reader first sees them, measured in headless
//! Chromium by a script added to the page: edge labels at least as large as the body text,
//! a drawing wider than its column scrolling in its own box (never shrunk, never widening the
//! page), and zoom and pan.
//!
//! `review_tokens.json` is a real review: `mergelens review` of a merge of a small tokenizer
//! loop (`open_stream`, `read_token`, `parse_number`, `parse_string`, `skip_space`,
//! `report_error`, `close_stream`) where ours reports an error before closing and theirs
//! skips a space at the end, at `--unwind 6 --max-word-length 17`; its versions have 14 to 19
//! states (its executions are cut down to three).

mod common;

use std::path::{Path, PathBuf};

use common::chromium::{attribute, dom_of_page};
use mergelens::report::{self, Document, Format, Options};
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/report")
        .join(name)
}

fn document(name: &str) -> Document {
    report::read(&fixture(name)).unwrap()
}

fn html(document: &Document) -> String {
    report::render(document, Format::Html, &Options::default()).unwrap()
}

/// The base version's automaton of `review_tokens.json` (14 states) as a `learn` document.
fn tokens_automaton() -> Document {
    let review: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("review_tokens.json")).unwrap())
            .unwrap();
    let base = &review["entries"][0]["automata"]["base"];
    assert_eq!(base["states"], 14);
    report::parse(&base.to_string(), "base.json").unwrap()
}

/// Writes into `<body data-shown>`, as JSON, what the reader sees of every drawing: the
/// body text's size; for each drawing shown, the smallest rendered size of its edge labels
/// (the computed font size times the drawing's scale on screen, and the height of one line
/// of its box), its width on screen and its natural width; and how wide the page is against
/// the window.
const MEASURE: &str = r#"<script>
(function () {
  var drawings = [];
  document.querySelectorAll("svg.graph").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var figure = svg.closest("figure");
    var seen = { id: figure ? figure.id : "", shown: box.width > 0 };
    if (seen.shown) {
      var scale = svg.getScreenCTM().a;
      var sizes = [], lines = [];
      svg.querySelectorAll("text.edge-label").forEach(function (t) {
        sizes.push(parseFloat(getComputedStyle(t).fontSize) * scale);
        lines.push(t.getBoundingClientRect().height / Math.max(1, t.querySelectorAll("tspan").length));
      });
      seen.labels = sizes.length;
      seen.smallest = Math.min.apply(null, sizes);
      seen.smallest_line = Math.min.apply(null, lines);
      seen.width = box.width;
      seen.natural = parseFloat(svg.getAttribute("width"));
    }
    drawings.push(seen);
  });
  var root = document.documentElement;
  document.body.setAttribute("data-shown", JSON.stringify({
    body: parseFloat(getComputedStyle(document.body).fontSize),
    page: root.scrollWidth,
    window: root.clientWidth,
    drawings: drawings
  }));
})();
</script>"#;

/// What `document`'s page shows in a window `width` pixels wide.
fn shown(document: &Document, name: &str, width: u32) -> Value {
    let page = html(document).replace("</body>", &format!("{MEASURE}</body>"));
    let dom = dom_of_page(&page, name, &[format!("--window-size={width},1000")]);
    let json = attribute(&dom, "data-shown").expect("the measuring script ran");
    serde_json::from_str(&json).unwrap()
}

/// Every drawing shown is at natural size with labels at least as large as the body text,
/// and the page is no wider than the window; returns the drawings shown.
fn assert_legible(shown: &Value, what: &str) -> Vec<Value> {
    let body = shown["body"].as_f64().unwrap();
    assert!(body >= 14.0, "{what}: body text of {body} px");
    assert!(
        shown["page"].as_f64() <= shown["window"].as_f64(),
        "{what}: the page scrolls sideways: {shown}"
    );
    let drawings: Vec<Value> = shown["drawings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["shown"] == true)
        .cloned()
        .collect();
    for d in &drawings {
        assert!(d["labels"].as_u64() > Some(0), "{what}: no edge label: {d}");
        // Rounding in the browser: a label at the body's size may measure a hair below it.
        let smallest = d["smallest"].as_f64().unwrap();
        assert!(
            smallest >= body - 0.01,
            "{what}: edge labels of {smallest:.1} px under body text of {body} px: {d}"
        );
        let line = d["smallest_line"].as_f64().unwrap();
        assert!(
            line >= body,
            "{what}: a line of an edge label is {line:.1} px high: {d}"
        );
        let (width, natural) = (d["width"].as_f64().unwrap(), d["natural"].as_f64().unwrap());
        assert!(
            (width - natural).abs() < 0.5,
            "{what}: shown {width:.0} px wide, not at its natural {natural:.0}: {d}"
        );
    }
    drawings
}

#[test]
fn a_review_of_automata_of_14_to_19_states_is_legible_as_first_shown() {
    let document = document("review_tokens.json");
    for width in [1280, 800] {
        let shown = shown(&document, &format!("report-tokens-{width}.html"), width);
        let drawings = assert_legible(&shown, &format!("review at {width} px"));
        // The two findings, the three comparisons and the five versions.
        assert_eq!(drawings.len(), 10, "{shown}");
    }
}

#[test]
fn the_automaton_page_draws_14_states_legibly() {
    let shown = shown(&tokens_automaton(), "report-tokens-automaton.html", 1280);
    assert_eq!(assert_legible(&shown, "automaton page").len(), 1, "{shown}");
}

#[test]
fn the_diff_and_explain_pages_draw_legibly() {
    for (name, drawings) in [("diff", 5), ("explain", 1)] {
        let shown = shown(
            &document(&format!("{name}.json")),
            &format!("report-{name}-legible.html"),
            1280,
        );
        assert_eq!(assert_legible(&shown, name).len(), drawings, "{shown}");
    }
}

/// Zoom and pan, driven by synthetic events in the real browser on a drawing wider than its
/// box (theirs, 18 states): the + button and the wheel on the focused drawing scale it, a
/// drag scrolls its box sideways, "1:1" brings it back to its natural size and "fit" shrinks
/// it into its box.
#[test]
fn drawings_zoom_and_pan_in_headless_chromium() {
    let driver = r##"<script>
(function () {
  var box = document.querySelector("#e0-theirs .zoomable");
  var svg = box.querySelector("svg");
  var tools = box.nextElementSibling;
  function state() {
    return [svg.getBoundingClientRect().width, box.scrollLeft, box.clientWidth].join(" ");
  }
  var seen = [state()];
  for (var i = 0; i < 3; i++) tools.querySelector("[data-zoom=in]").click();
  seen.push(state());
  box.focus();
  svg.dispatchEvent(new WheelEvent("wheel", {deltaY: 100, clientX: 20, clientY: 20, bubbles: true, cancelable: true}));
  seen.push(state());
  svg.dispatchEvent(new PointerEvent("pointerdown", {pointerId: 1, clientX: 300, clientY: 50, bubbles: true}));
  svg.dispatchEvent(new PointerEvent("pointermove", {pointerId: 1, clientX: 200, clientY: 70, bubbles: true}));
  svg.dispatchEvent(new PointerEvent("pointerup", {pointerId: 1, bubbles: true}));
  seen.push(state());
  tools.querySelector("[data-zoom=reset]").click();
  seen.push(state());
  tools.querySelector("[data-zoom=fit]").click();
  seen.push(state());
  document.body.setAttribute("data-seen", seen.join("|"));
})();
</script>"##;
    let page =
        html(&document("review_tokens.json")).replace("</body>", &format!("{driver}</body>"));
    let dom = dom_of_page(
        &page,
        "report-zoom.html",
        &["--window-size=1280,1000".to_string()],
    );
    let seen = attribute(&dom, "data-seen").expect("the driver ran");
    let seen: Vec<[f64; 3]> = seen
        .split('|')
        .map(|s| {
            let v: Vec<f64> = s.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    let [home, zoomed, wheeled, dragged, reset, fit] = seen[..] else {
        panic!("{seen:?}")
    };
    assert!(
        home[0] > home[2] && home[1] == 0.0,
        "at natural size, wider than its box, shown from its left edge: {seen:?}"
    );
    assert!(zoomed[0] > home[0] * 1.9, "+ zooms in: {seen:?}");
    assert!(
        wheeled[0] < zoomed[0] && wheeled[0] > home[0],
        "the wheel zooms out: {seen:?}"
    );
    assert!(
        dragged[0] == wheeled[0] && (dragged[1] - wheeled[1] - 100.0).abs() < 1.0,
        "a drag to the left scrolls right by as much: {seen:?}"
    );
    assert!(
        (reset[0] - home[0]).abs() < 0.5,
        "1:1 is the natural size: {seen:?}"
    );
    assert!(
        fit[0] <= fit[2] + 0.5 && fit[0] < home[0],
        "fit shrinks the drawing into its box: {seen:?}"
    );
}
