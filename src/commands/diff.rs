//! `mergelens diff REV1 REV2`: the behaviour added (in REV2 only) and removed (in REV1 only)
//! between two commits or release tags, and their symmetric difference, per entry function.
//!
//! Key types: [`DiffArgs`] and [`run`]; [`mergelens::review::diff_revisions`] does the work, with
//! the automata of Chockler, Kesseli, Kroening and Strichman, *Learning the Language of
//! Software Errors* (JAIR 2020), compared as in Sec. 5 (Fig. 13-14). The report is kept in
//! `.git/mergelens/last-diff.json` and `.html`; exit code 1 when some behaviour changed, or
//! when nothing changed but the check was inconclusive (a changed hunk no execution within
//! the bounds reaches) and `fail-on = "inconclusive"`, or the diff did not finish (a stop, a
//! CBMC run past a limit) and `fail-on` names `unfinished`.

use anyhow::Context;
use std::path::PathBuf;

use super::review::{
    DocFormat, UsageError, context, in_repository, load_settings, render, save_last,
    unreached_lines, write_requested,
};
use super::{Outcome, term, write_output};
use mergelens::config::{Overrides, Settings};
use mergelens::document::series::{SERIES_FORMAT, SeriesDocument, SeriesStep};
use mergelens::document::{Difference, Version};
use mergelens::git::GitRepo;
use mergelens::report::Document;
use mergelens::review;

/// The options of `mergelens diff`.
#[derive(Clone, Debug, Default)]
pub struct DiffArgs {
    /// Two or more revisions, earlier first.
    pub revisions: Vec<String>,
    /// `--tags GLOB`: the matching tags in version order, instead of `revisions`.
    pub tags: Option<String>,
    pub flags: Overrides,
    pub format: Option<DocFormat>,
    pub output: Option<PathBuf>,
    pub no_cache: bool,
    /// `--time-budget`: learning stops then, and the diff is inconclusive.
    pub time_budget: Option<std::time::Duration>,
}

pub fn run(args: &DiffArgs) -> anyhow::Result<Outcome> {
    // As for a review: the tools read code anyone can push (docs/trust.md).
    let _confined = super::remote::confine()
        .context("cannot make the private temporary directory of the sandbox")?;
    let repo = GitRepo::from_env()?;
    let (settings, _harness) = load_settings(&repo, &args.flags)?;
    let revisions = match &args.tags {
        Some(glob) => repo.tags_matching(glob)?,
        None => args.revisions.clone(),
    };
    let [from_name, to_name] = &revisions[..] else {
        if revisions.len() < 2 {
            anyhow::bail!(UsageError(format!(
                "a diff needs two revisions at least; {} given{}",
                revisions.len(),
                args.tags
                    .as_ref()
                    .map_or_else(String::new, |g| format!(" (the tags matching {g})"))
            )));
        }
        return series(&repo, &revisions, args, &settings);
    };
    let from = repo.resolve(from_name)?;
    let to = repo.resolve(to_name)?;
    // `--time-budget` and Ctrl-C stop the CBMC runs, as in a review.
    super::anytime::start(args.time_budget);
    let (ctx, mut progress) = context(&repo, &settings, args.no_cache)?;
    let remote_start = mergelens::remote::stats();
    let report = review::diff_revisions(&repo, &from, &to, &settings, &ctx);
    progress.finish();
    for warning in ctx.take_warnings() {
        errln!("mergelens: warning: {warning}");
    }
    let mut report = report?;
    report.document.remote = super::remote::counts_since(&remote_start);
    let document = Document::Diff(Box::new(report.document.clone()));
    let saved = save_last(&repo, "last-diff", &document);
    let to_stdout = write_requested(
        &document,
        args.format,
        args.output.as_deref(),
        in_repository(&repo, saved.as_deref()),
    )?;
    let text = summary(&report, from_name, to_name, saved.as_deref());
    if to_stdout {
        err!("{text}");
    } else {
        out!("{text}");
    }
    Ok(
        if report.changed
            || (report.inconclusive() && settings.fail_on.fails_inconclusive())
            || (report.unfinished && settings.fail_on.fails_unfinished())
        {
            Outcome::Different
        } else {
            Outcome::Success
        },
    )
}

/// One screen: the example words each entry added and removed, whether behaviour changed,
/// and why a check fell short.
fn summary(
    report: &review::DiffReport,
    from_name: &str,
    to_name: &str,
    saved: Option<&std::path::Path>,
) -> String {
    let (from_name, to_name) = (&term(from_name), &term(to_name));
    let mut text = format!("mergelens diff {from_name} {to_name}\n");
    let words = |text: &mut String, title: &str, d: &Option<Difference>| {
        if let Some(d) = d.as_ref().filter(|d| !d.examples.is_empty()) {
            text.push_str(&format!("  {title}:\n"));
            for w in d.examples.iter().take(3) {
                text.push_str(&format!("    {}\n", term(&w.join(" "))));
            }
        }
    };
    for entry in &report.document.entries {
        text.push_str(&format!("entry {}:\n", term(&entry.entry)));
        for absent in &entry.absent {
            text.push_str(&format!(
                "  absent in {}\n",
                if *absent == Version::Old {
                    from_name
                } else {
                    to_name
                }
            ));
        }
        words(
            &mut text,
            &format!("added (in {to_name} only)"),
            &entry.added,
        );
        words(
            &mut text,
            &format!("removed (in {from_name} only)"),
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
        text.push_str(&format!("  {}\n", term(line)));
    }
    if report.inconclusive() {
        for reason in doc.inconclusive.iter().filter(|r| !lead.contains(r)) {
            text.push_str(&format!("  {}\n", term(reason)));
        }
    }
    if let Some(path) = saved {
        text.push_str(&format!(
            "full report: {}\n",
            term(&path.display().to_string())
        ));
    }
    text
}

/// A behaviour changelog: the diff of each pair of consecutive `revisions`, one line each,
/// each step's report kept under `.git/mergelens/series/`, and the `mergelens-series/1`
/// document where `--format`/`-o` ask. The caches make each revision learned once. With a
/// remote engine, up to `--remote-jobs` steps run at once (one at a time under
/// `--time-budget`, so that the budget leaves the earliest steps finished); the lines and
/// the document keep the steps' order.
fn series(
    repo: &GitRepo,
    revisions: &[String],
    args: &DiffArgs,
    settings: &Settings,
) -> anyhow::Result<Outcome> {
    let commits = revisions
        .iter()
        .map(|r| repo.resolve(r))
        .collect::<Result<Vec<_>, _>>()?;
    super::anytime::start(args.time_budget);
    let reports = repo.mergelens_dir().join("series");
    std::fs::create_dir_all(&reports)
        .with_context(|| format!("cannot create {}", reports.display()))?;
    let remote_start = mergelens::remote::stats();
    let pairs: Vec<_> = commits.windows(2).collect();
    let jobs = super::remote::concurrent_jobs(
        args.time_budget.is_some(),
        pairs.len(),
        "steps one at a time under --time-budget (the earliest finish first)",
    );
    let emit = |k: usize, report: review::DiffReport| {
        let step = series_step(revisions, k, pairs[k], report, &reports)?;
        if args.output.is_none() && args.format.is_some() {
            errln!("{}", step.1);
        } else {
            outln!("{}", step.1);
        }
        Ok(step.0)
    };
    let steps: Vec<SeriesStep> = if jobs > 1 {
        let step = |k: usize| -> anyhow::Result<review::DiffReport> {
            // Its own repository handle and context, with lines that say which step.
            let repo = GitRepo::from_env()?;
            let dir = (!args.no_cache).then(|| repo.mergelens_dir());
            let ctx = review::LearnContext::new(settings, dir.as_deref())?;
            let label = format!("step {}..{}:", revisions[k], revisions[k + 1]);
            let mut progress = super::progress::Progress::lines(label);
            let ctx = ctx.with_progress(progress.phase_setter());
            let report = review::diff_revisions(&repo, &pairs[k][0], &pairs[k][1], settings, &ctx);
            progress.finish();
            for warning in ctx.take_warnings() {
                errln!("mergelens: warning: {warning}");
            }
            Ok(report?)
        };
        // Steps after a failed one are not reported (as one at a time, where it ends all).
        let mut failed = false;
        let mut emit_ok = |(k, r): (usize, anyhow::Result<review::DiffReport>)| {
            let step = r.and_then(|r| {
                if failed {
                    Err(anyhow::anyhow!("a step before it failed"))
                } else {
                    emit(k, r)
                }
            });
            failed |= step.is_err();
            step
        };
        let run = |k: usize| (k, step(k));
        super::remote::in_order(pairs.len(), jobs, run, &mut emit_ok)
            .into_iter()
            .collect::<anyhow::Result<_>>()?
    } else {
        let (ctx, mut progress) = context(repo, settings, args.no_cache)?;
        let mut steps = Vec::new();
        for (k, pair) in pairs.iter().enumerate() {
            let report = review::diff_revisions(repo, &pair[0], &pair[1], settings, &ctx)?;
            steps.push(emit(k, report)?);
        }
        progress.finish();
        for warning in ctx.take_warnings() {
            errln!("mergelens: warning: {warning}");
        }
        steps
    };
    let changed = steps.iter().any(|s| s.changed);
    let document = Document::Series(Box::new(SeriesDocument {
        format: SERIES_FORMAT.to_string(),
        revisions: revisions.to_vec(),
        steps,
        tool: Some(format!("mergelens {}", env!("CARGO_PKG_VERSION"))),
        remote: super::remote::counts_since(&remote_start),
    }));
    let saved = save_last(repo, "last-series", &document);
    write_requested(
        &document,
        args.format,
        args.output.as_deref(),
        in_repository(repo, saved.as_deref()),
    )?;
    if let Some(path) = saved {
        errln!("mergelens: changelog: {}", path.display());
    }
    Ok(if changed {
        Outcome::Different
    } else {
        Outcome::Success
    })
}

/// The `k`th step of a series: its report written under `reports`, its line, and its
/// place in the document (the engine's counts are the series', not a step's).
fn series_step(
    revisions: &[String],
    k: usize,
    pair: &[mergelens::git::CommitInfo],
    report: review::DiffReport,
    reports: &std::path::Path,
) -> anyhow::Result<(SeriesStep, String)> {
    let step_doc = Document::Diff(Box::new(report.document.clone()));
    let html = reports.join(format!(
        "{}-{}..{}.html",
        k + 1,
        &pair[0].sha()[..10],
        &pair[1].sha()[..10]
    ));
    write_output(Some(&html), &render(&step_doc, DocFormat::Html)?)?;
    let line = format!(
        "{} -> {}: {}",
        revisions[k],
        revisions[k + 1],
        step_words(&report)
    );
    Ok((
        SeriesStep {
            from: revisions[k].clone(),
            to: revisions[k + 1].clone(),
            changed: report.changed,
            inconclusive: report.inconclusive(),
            report: Some(html.display().to_string()),
            diff: report.document,
        },
        line,
    ))
}

/// What one step did, in a few words: the first example of each entry's added and removed
/// behaviour.
fn step_words(report: &review::DiffReport) -> String {
    if !report.changed {
        return if report.inconclusive() {
            "inconclusive (unchanged within the bounds, but the check fell short)".to_string()
        } else {
            "behaviour unchanged".to_string()
        };
    }
    let mut parts = Vec::new();
    for entry in &report.document.entries {
        for (what, d) in [("added", &entry.added), ("removed", &entry.removed)] {
            if let Some(word) = d.as_ref().and_then(|d| d.examples.first()) {
                parts.push(format!("{}: {what} `{}`", entry.entry, word.join(" ")));
            }
        }
    }
    format!("behaviour changed; {}", parts.join("; "))
}
