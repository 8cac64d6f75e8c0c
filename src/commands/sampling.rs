//! What the outputs of `learn` and `explain` say of a PAC result
//! ([`mergelens::language::SamplingOptions`] asks for one): [`pac_note`], [`pac_line`] and
//! [`label`].

use mergelens::cbmc::PacResult;

/// The words every output of a PAC result carries: `PAC (ε 0.05, δ 0.05), not exact`.
pub(crate) fn pac_note(result: Option<&PacResult>) -> String {
    result.map_or_else(String::new, |p| {
        format!(
            " · PAC (epsilon {}, delta {}; {} samples at equivalence query {}), NOT EXACT",
            p.epsilon, p.delta, p.samples, p.equivalence_queries
        )
    })
}

/// What the summary line of `explain` says of an empty language, and what a PAC result says
/// instead: sampling found no failing word, which proves nothing.
const PROVED_EMPTY: &str = "empty language: the assertion cannot fail within the bounds";
const SAMPLED_EMPTY: &str = "no failing word found by PAC sampling (not proved: the assertion may still fail within the bounds)";

/// `explain`'s summary line with a PAC result's [`pac_note`], and emptiness claimed only
/// when proved (not by PAC sampling).
pub(crate) fn pac_line(result: Option<&PacResult>, line: String) -> String {
    if result.is_some() {
        line.replace(PROVED_EMPTY, SAMPLED_EMPTY) + &pac_note(result)
    } else {
        line
    }
}

/// A DOT or SVG drawing of a PAC result says so: in the graph's label (DOT) or the title
/// (SVG), as a concise automaton's does.
pub(crate) fn label(mut drawing: String, result: Option<&PacResult>) -> String {
    let Some(p) = result else {
        return drawing;
    };
    let caption = format!(
        "PAC result (epsilon {}, delta {}), not exact",
        p.epsilon, p.delta
    );
    if drawing.starts_with("digraph") {
        if let Some(line_end) = drawing.find('\n') {
            let label = format!("  label=\"{caption}\";\n  labelloc=t;\n");
            drawing.insert_str(line_end + 1, &label);
        }
    } else if let Some(start) = drawing.find("<svg")
        && let Some(end) = drawing[start..].find('>')
    {
        drawing.insert_str(start + end + 1, &format!("\n<title>{caption}</title>"));
    }
    drawing
}
