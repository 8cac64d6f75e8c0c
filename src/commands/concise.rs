//! How `learn` and `explain` show a concise automaton ([`mergelens::language::find_concise`]
//! finds it): its part of the summary line and the captions of its drawings.

use mergelens::document::{Concise, ConciseMethod};
use mergelens::language::Found;

/// The end of a summary line: ` · concise automaton: 3 states (minimal, by SAT, 0.4 s)`;
/// nothing without one.
pub fn summary_part(found: Option<&Found>) -> String {
    let Some(Found { concise, took }) = found else {
        return String::new();
    };
    format!(
        " · concise automaton: {} states ({}, {:.1} s)",
        concise.automaton.0.num_states(),
        match (concise.minimal, concise.method) {
            (true, ConciseMethod::Sat) => "minimal, by SAT",
            (true, ConciseMethod::Merge) => "minimal",
            (false, _) => "by state merging, not proved minimal",
        },
        took.as_secs_f64()
    )
}

/// What a concise automaton is, for every drawing of one.
pub const CAPTION: &str = mergelens::document::CONCISE_MEANING;

/// A DOT drawing of a concise automaton says so in its label.
pub fn label_dot(mut dot: String, concise: Option<&Concise>) -> String {
    if concise.is_some()
        && let Some(line_end) = dot.find('\n')
    {
        let label = format!("  label=\"concise automaton: {CAPTION}\";\n  labelloc=t;\n");
        dot.insert_str(line_end + 1, &label);
    }
    dot
}

/// An SVG drawing of a concise automaton says so in its title (what viewers show as the
/// drawing's name and tooltip).
pub fn label_svg(mut svg: String, concise: Option<&Concise>) -> String {
    if concise.is_some()
        && let Some(start) = svg.find("<svg")
        && let Some(end) = svg[start..].find('>')
    {
        let title = format!("\n<title>concise automaton: {CAPTION}</title>");
        svg.insert_str(start + end + 1, &title);
    }
    svg
}
