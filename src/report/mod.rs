//! Reports people read: one self-contained HTML page, or Markdown for a pull-request comment.
//!
//! Key types:
//!
//! * [`Document`]: what a report is made from, read by [`parse`] or [`read`] from one of
//!   three formats, told apart by their `format` key: a [`crate::document::Review`]
//!   (`mergelens-review/1`, what a merge does), a [`crate::document::DiffDocument`] (`mergelens-diff/1`,
//!   what changed between two revisions) or a [`crate::document::AutomatonDocument`]
//!   (`mergelens-dfa/1` with optional report keys: a learned or explained automaton).
//!   `docs/formats.md` documents them.
//! * [`Format`] and [`Options`]: what [`render`] makes.
//! * [`ReportError`]: why a document was refused, in one line.
//!
//! Rendering goes document → view → text: `view` works out everything a page shows (the
//! languages a document left out, example words, which letters link where, which edges to
//! colour) once, and `html` (askama templates in `templates/`) and `markdown` only lay it out,
//! so the two renderings cannot disagree.

mod compute;
mod error;
pub mod escape;
mod html;
mod markdown;
mod options;
mod sarif;

mod view;

use std::path::Path;

use crate::document::audit::{AUDIT_FORMAT, AuditDocument};
use crate::document::series::{SERIES_FORMAT, SeriesDocument};
use crate::document::{
    AutomatonDocument, AutomatonMeta, DIFF_FORMAT, DIFF_KIND, DiffDocument, REVIEW_FORMAT, Review,
};
pub use error::ReportError;
pub use options::{Format, Options};

use crate::automaton::json;
use view::Draw;

/// A Markdown report never exceeds this many bytes: GitHub refuses comments over 65,536
/// characters, and `$GITHUB_STEP_SUMMARY` has a similar limit; this leaves room for a line a
/// workflow adds.
pub const MARKDOWN_LIMIT: usize = 65_000;

/// What a report is made from.
#[derive(Clone, Debug, PartialEq)]
pub enum Document {
    Review(Box<Review>),
    Diff(Box<DiffDocument>),
    Automaton(Box<AutomatonDocument>),
    Audit(Box<AuditDocument>),
    Series(Box<SeriesDocument>),
}

/// Reads a document; `origin` names the input (a path, "stdin") in error messages.
pub fn parse(text: &str, origin: &str) -> Result<Document, ReportError> {
    let path = || origin.to_string();
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|source| ReportError::Json {
            path: path(),
            source,
        })?;
    let Some(format) = value.get("format") else {
        return Err(ReportError::NoFormat { path: path() });
    };
    let invalid = |format: &'static str| {
        move |source| ReportError::Invalid {
            path: origin.to_string(),
            format,
            source,
        }
    };
    // Each document is parsed again from the text, not from `value`, so that an error names
    // its line and column.
    match format.as_str() {
        Some(REVIEW_FORMAT) if value.get("kind").and_then(|k| k.as_str()) == Some(DIFF_KIND) => {
            serde_json::from_str(text)
                .map(|d| Document::Diff(Box::new(d)))
                .map_err(invalid(REVIEW_FORMAT))
        }
        Some(REVIEW_FORMAT) => serde_json::from_str(text)
            .map(|r| Document::Review(Box::new(r)))
            .map_err(invalid(REVIEW_FORMAT)),
        Some(SERIES_FORMAT) => serde_json::from_str(text)
            .map(|d| Document::Series(Box::new(d)))
            .map_err(invalid(SERIES_FORMAT)),
        Some(AUDIT_FORMAT) => serde_json::from_str(text)
            .map(|d| Document::Audit(Box::new(d)))
            .map_err(invalid(AUDIT_FORMAT)),
        Some(DIFF_FORMAT) => serde_json::from_str(text)
            .map(|d| Document::Diff(Box::new(d)))
            .map_err(invalid(DIFF_FORMAT)),
        Some(json::FORMAT) => {
            let dfa = json::from_str(text, origin)?;
            let meta: AutomatonMeta =
                serde_json::from_value(value).map_err(invalid(json::FORMAT))?;
            Ok(Document::Automaton(Box::new(AutomatonDocument {
                dfa,
                meta,
            })))
        }
        _ => Err(ReportError::UnknownFormat {
            path: path(),
            found: match format.as_str() {
                Some(s) => s.to_string(),
                None => format.to_string(),
            },
        }),
    }
}

/// Reads a document from a file, or from standard input when `path` is `-`.
pub fn read(path: &Path) -> Result<Document, ReportError> {
    let origin = if path == Path::new("-") {
        "stdin".to_string()
    } else {
        path.display().to_string()
    };
    let text = crate::limits::read_json_text(path, &origin)?;
    parse(&text, &origin)
}

/// The report of a document.
pub fn render(
    document: &Document,
    format: Format,
    options: &Options,
) -> Result<String, ReportError> {
    let sarif = |log: serde_json::Value| {
        let mut text = serde_json::to_string_pretty(&log).expect("JSON values serialise");
        text.push('\n');
        Ok(text)
    };
    match (document, format) {
        (Document::Review(review), Format::Sarif) => sarif(sarif::review(review, options)),
        (Document::Diff(diff), Format::Sarif) => sarif(sarif::diff(diff, options)),
        (Document::Audit(audit), Format::Sarif) => sarif(sarif::audit(audit, options)),
        (Document::Series(series), Format::Sarif) => sarif(sarif::series(series, options)),
        (Document::Series(series), Format::Html) => {
            html::series_page(&view::series_page::series_page(series))
        }
        (Document::Series(series), Format::Markdown) => Ok(markdown::series_page(
            &view::series_page::series_page(series),
            options,
            MARKDOWN_LIMIT,
        )),
        (Document::Automaton(_), Format::Sarif) => Err(ReportError::NoSarif),
        (Document::Review(review), Format::Html) => {
            html::review_page(&view::review_page::review_page(review, Draw::Yes))
        }
        (Document::Diff(diff), Format::Html) => {
            html::page(&view::diff_page::diff_page(diff, Draw::Yes))
        }
        (Document::Automaton(doc), Format::Html) => {
            html::automaton_page(&view::automaton_page::automaton_page(doc, Draw::Yes))
        }
        (Document::Audit(audit), Format::Html) => {
            html::audit_page(&view::audit_page::audit_page(audit))
        }
        (Document::Audit(audit), Format::Markdown) => Ok(markdown::audit_page(
            &view::audit_page::audit_page(audit),
            options,
            MARKDOWN_LIMIT,
        )),
        (Document::Review(review), Format::Markdown) => Ok(markdown::review_page(
            &view::review_page::review_page(review, Draw::No),
            options,
            MARKDOWN_LIMIT,
        )),
        (Document::Diff(diff), Format::Markdown) => Ok(markdown::page(
            &view::diff_page::diff_page(diff, Draw::No),
            options,
            MARKDOWN_LIMIT,
        )),
        (Document::Automaton(doc), Format::Markdown) => Ok(markdown::automaton_page(
            &view::automaton_page::automaton_page(doc, Draw::No),
            options,
            MARKDOWN_LIMIT,
        )),
    }
}
