//! What [`super::render`] makes: the [`Format`] of a report and its [`Options`].

/// How a report is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One self-contained page: styles, script and drawings inline, no network request.
    #[default]
    Html,
    /// GitHub-flavoured Markdown of at most [`super::MARKDOWN_LIMIT`] bytes.
    Markdown,
    /// SARIF 2.1.0, for code-scanning dashboards (reviews, diffs and audits).
    Sarif,
}

/// Options of [`super::render`].
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where the HTML report is (a link or a path), for the Markdown report to point to.
    pub html_report: Option<String>,
}
