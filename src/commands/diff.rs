//! `mergelens diff REV1 REV2`: the behaviour added (in REV2 only) and removed (in REV1 only)
//! between two commits or release tags, and their symmetric difference, per entry function.
//!
//! Key types: [`DiffArgs`] and [`run`]; [`mergelens::review::diff_revisions`] does the work, with
//! the automata of Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//! Software Errors* (JAIR 2020), compared as in Sec. 5 (Fig. 13-14). The report is kept in
//! `.git/mergelens/last-diff.json` and `.html`; exit code 1 when some behaviour changed, or
//! when nothing changed but the check was inconclusive (a changed hunk no execution within
//! the bounds reaches) and `fail-on = "inconclusive"`.

use anyhow::Context;
use std::path::PathBuf;

use super::Outcome;
use super::review::{
    DocFormat, context, load_settings, save_last, unreached_lines, write_requested,
};
use mergelens::config::Overrides;
use mergelens::document::{Difference, Version};
use mergelens::git::GitRepo;
use mergelens::report::Document;
use mergelens::review;

/// The options of `mergelens diff`.
#[derive(Clone, Debug, Default)]
pub struct DiffArgs {
    pub from: String,
    pub to: String,
    pub flags: Overrides,
    pub format: Option<DocFormat>,
    pub output: Option<PathBuf>,
    pub no_cache: bool,
    /// `--time-budget`: learning stops then, and the diff is inconclusive.
    pub time_budget: Option<std::time::Duration>,
}

pub fn run(args: &DiffArgs) -> anyhow::Result<Outcome> {
    // As for a review: the tools read code anyone can push (docs/trust.md).
    let _confined = mergelens::sandbox::confine_children()
        .context("cannot make the private temporary directory of the sandbox")?;
    let repo = GitRepo::from_env()?;
    let (settings, _harness) = load_settings(&repo, &args.flags)?;
    let from = repo.resolve(&args.from)?;
    let to = repo.resolve(&args.to)?;
    // `--time-budget` and Ctrl-C stop the CBMC runs, as in a review.
    super::anytime::start(args.time_budget);
    let (ctx, mut progress) = context(&repo, &settings, args.no_cache)?;
    let report = review::diff_revisions(&repo, &from, &to, &settings, &ctx);
    progress.finish();
    for warning in ctx.take_warnings() {
        eprintln!("mergelens: warning: {warning}");
    }
    let report = report?;
    let document = Document::Diff(Box::new(report.document.clone()));
    let saved = save_last(&repo, "last-diff", &document);
    let to_stdout = write_requested(
        &document,
        args.format,
        args.output.as_deref(),
        saved.as_deref(),
    )?;
    let mut text = format!("mergelens diff {} {}\n", args.from, args.to);
    let words = |text: &mut String, title: &str, d: &Option<Difference>| {
        if let Some(d) = d.as_ref().filter(|d| !d.examples.is_empty()) {
            text.push_str(&format!("  {title}:\n"));
            for w in d.examples.iter().take(3) {
                text.push_str(&format!("    {}\n", w.join(" ")));
            }
        }
    };
    for entry in &report.document.entries {
        text.push_str(&format!("entry {}:\n", entry.entry));
        for absent in &entry.absent {
            text.push_str(&format!(
                "  absent in {}\n",
                if *absent == Version::Old {
                    &args.from
                } else {
                    &args.to
                }
            ));
        }
        words(
            &mut text,
            &format!("added (in {} only)", args.to),
            &entry.added,
        );
        words(
            &mut text,
            &format!("removed (in {} only)", args.from),
            &entry.removed,
        );
    }
    text.push_str(if report.changed {
        "behaviour changed\n"
    } else if report.inconclusive() {
        "inconclusive: behaviour unchanged within the bounds, but the check fell short of them\n"
    } else {
        "behaviour unchanged\n"
    });
    // Changed code no execution runs: "unchanged" says nothing about it.
    let doc = &report.document;
    let lead = unreached_lines(doc.entries.iter().map(|e| &e.coverage), doc.bounds.unwind);
    for line in &lead {
        text.push_str(&format!("  {line}\n"));
    }
    if report.inconclusive() {
        for reason in doc.inconclusive.iter().filter(|r| !lead.contains(r)) {
            text.push_str(&format!("  {reason}\n"));
        }
    }
    if let Some(path) = saved {
        text.push_str(&format!("full report: {}\n", path.display()));
    }
    if to_stdout {
        eprint!("{text}");
    } else {
        print!("{text}");
    }
    Ok(
        if report.changed || (report.inconclusive() && settings.fail_on.fails_inconclusive()) {
            Outcome::Different
        } else {
            Outcome::Success
        },
    )
}
