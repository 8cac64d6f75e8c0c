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

use crate::common::chromium::{attribute, dom_of_page};
use crate::common::{report_document as document, report_fixture as fixture};
use mergelens::report::{self, Document, Format, Options};
use serde_json::Value;

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

/// `measureDrawings()`: what the reader sees of every drawing, as a JSON object: the body
/// text's size; for each drawing, whether it is shown and, when it is, the smallest rendered
/// size of its edge labels (the computed font size times the drawing's scale on screen, and
/// the height of one line of its box), its width on screen and its natural width; and how
/// wide the page is against the window.
const MEASURE_FUNCTION: &str = r#"
function measureDrawings() {
  var drawings = [];
  document.querySelectorAll("svg.graph").forEach(function (svg) {
    var box = svg.getBoundingClientRect();
    var figure = svg.closest("figure");
    // Not shown: inside a closed <details> (Chromium lays such content out all the same).
    var seen = { id: figure ? figure.id : "", shown: svg.checkVisibility() && box.width > 0 };
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
  return {
    body: parseFloat(getComputedStyle(document.body).fontSize),
    page: root.scrollWidth,
    window: root.clientWidth,
    drawings: drawings
  };
}
"#;

/// The page's drawings as first shown, in `<body data-shown>`.
fn measure_script() -> String {
    format!(
        "<script>{MEASURE_FUNCTION}document.body.setAttribute(\"data-shown\", \
         JSON.stringify(measureDrawings()));</script>"
    )
}

/// What `document`'s page shows in a window `width` pixels wide.
fn shown(document: &Document, name: &str, width: u32) -> Value {
    let page = html(document).replace("</body>", &format!("{}</body>", measure_script()));
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
    var hint = tools.classList.contains("overflowing") ? 1 : 0;
    return [svg.getBoundingClientRect().width, box.scrollLeft, box.clientWidth, hint].join(" ");
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
    // Per step: the drawing's width on screen, the box's scroll, the box's width, and
    // whether the tools say the drawing is wider than its box (1) or not (0).
    let seen: Vec<[f64; 4]> = seen
        .split('|')
        .map(|s| {
            let v: Vec<f64> = s.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect();
    let [home, zoomed, wheeled, dragged, reset, fit] = seen[..] else {
        panic!("{seen:?}")
    };
    assert!(
        home[0] > home[2] && home[1] == 0.0 && home[3] == 1.0,
        "at natural size, wider than its box (and saying so), shown from its left edge: \
         {seen:?}"
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
        fit[0] <= fit[2] + 0.5 && fit[0] < home[0] && fit[3] == 0.0,
        "fit shrinks the drawing into its box: {seen:?}"
    );
}

/// The drawings shown, by figure id.
fn shown_ids(shown: &Value) -> Vec<String> {
    shown["drawings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["shown"] == true)
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect()
}

/// The `<figure ... id="id">...</figure>` of a page.
fn figure_with_id<'a>(page: &'a str, id: &str) -> &'a str {
    let at = page
        .find(&format!("id=\"{id}\" data-figure"))
        .unwrap_or_else(|| panic!("no figure {id}"));
    &page[at..at + page[at..].find("</figure>").unwrap()]
}

/// `learn_concise.json` is `mergelens learn` of the tokenizer's loop as `for (;;)`, cut at
/// `--unwind 5 --max-word-length 14`: the exact automaton counts the iterations in 15
/// states, the concise one (5 states, minimal by SAT) is the loop.
#[test]
fn the_concise_automaton_is_drawn_first_and_the_exact_one_is_a_click_away() {
    let document = document("learn_concise.json");
    let page = html(&document);
    for text in [
        "Concise automaton: agrees with every execution within the bounds; beyond them it \
         generalises.",
        "<strong>5 states instead of 15</strong> · minimal: no automaton with fewer states does \
         the same, as a SAT solver proved.",
        "yes: the words of executions; no: words the control flow cannot produce",
        "<summary>The exact automaton: 15 states, right on every word within the bounds</summary>",
    ] {
        assert!(page.contains(text), "{text:?} missing:\n{page}");
    }
    let concise = figure_with_id(&page, "concise");
    let exact = figure_with_id(&page, "automaton");
    assert_eq!(concise.matches("data-state=").count(), 5);
    assert_eq!(exact.matches("data-state=").count(), 15);
    assert!(page.find("id=\"concise\"") < page.find("<details class=\"exact\""));

    // In the browser: the concise drawing shown and legible, the exact one hidden until its
    // summary is clicked, then shown and legible.
    let driver = format!(
        "<script>{MEASURE_FUNCTION}
document.body.setAttribute(\"data-before\", JSON.stringify(measureDrawings()));
document.querySelector(\"details.exact > summary\").click();
document.body.setAttribute(\"data-after\", JSON.stringify(measureDrawings()));
</script>"
    );
    let dom = dom_of_page(
        &page.replace("</body>", &format!("{driver}</body>")),
        "report-concise.html",
        &["--window-size=1280,1000".to_string()],
    );
    let before: Value = serde_json::from_str(&attribute(&dom, "data-before").unwrap()).unwrap();
    let after: Value = serde_json::from_str(&attribute(&dom, "data-after").unwrap()).unwrap();
    assert_eq!(shown_ids(&before), ["concise"], "{before}");
    assert_legible(&before, "concise automaton");
    assert_eq!(shown_ids(&after), ["concise", "automaton"], "{after}");
    assert_legible(&after, "exact automaton opened");
}

/// A concise automaton found by state merging says it is not proved minimal; one that saves
/// no state says so; without one, the page is as it always was.
#[test]
fn the_concise_automaton_says_how_it_was_found() {
    let mut value: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("learn_concise.json")).unwrap())
            .unwrap();
    let concise = &mut value["learned"]["concise"];
    concise["method"] = "merge".into();
    concise["minimal"] = false.into();
    concise["exact_states"] = 5.into();
    concise["states_saved"] = 0.into();
    let page = html(&report::parse(&value.to_string(), "merged.json").unwrap());
    assert!(
        page.contains(
            "<strong>5 states, as many as the exact automaton</strong> · found by state \
             merging: small, not proved minimal."
        ),
        "{page}"
    );

    value["learned"].as_object_mut().unwrap().remove("concise");
    let page = html(&report::parse(&value.to_string(), "exact.json").unwrap());
    assert!(!page.contains("Concise automaton"), "{page}");
    assert!(!page.contains("id=\"concise\""), "{page}");
    assert!(!page.contains("<details class=\"exact\""), "{page}");
    assert!(
        figure_with_id(&page, "automaton")
            .contains("<span class=\"caption\">Learned automaton</span>")
    );
}
