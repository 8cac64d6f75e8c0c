//! `mergelens report INPUT`: a report people read, from a review (`mergelens-review/1`), a
//! diff (`mergelens-diff/1`) or one automaton (`mergelens-dfa/1`), as one self-contained HTML
//! page or as Markdown for a pull request.

use std::path::PathBuf;

use mergelens::report::{self, Format, Options};

use super::write_output;

/// The options of `mergelens report`.
#[derive(Clone, Debug, Default)]
pub struct ReportArgs {
    /// The document; `-` reads standard input.
    pub input: PathBuf,
    pub format: Format,
    /// Where the report goes; standard output when `None`.
    pub output: Option<PathBuf>,
    /// Where the HTML report is published (a link or a path), named by the Markdown report.
    pub html_report: Option<String>,
}

pub fn run(args: &ReportArgs) -> anyhow::Result<()> {
    let document = report::read(&args.input)?;
    let options = Options {
        html_report: args.html_report.clone(),
    };
    let text = report::render(&document, args.format, &options)?;
    write_output(args.output.as_deref(), &text)
}
