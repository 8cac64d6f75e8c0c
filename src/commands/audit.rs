//! `mergelens audit RANGE`: every merge commit of a range of history reviewed as it was
//! committed (`review --commit`), one line each, and a `mergelens-audit/1` document that
//! links each merge's full report.
//!
//! Key items: [`AuditArgs`] and [`run`]. The merges are reviewed oldest first, one after
//! the other (each review learns its versions in parallel), or with a remote engine up to
//! `--remote-jobs` at once ([`super::remote::in_order`] keeps rows and lines in order); the caches under
//! `.git/mergelens/` carry over between them, so a version several merges share is learned
//! once, and a second audit of the same range runs no CBMC. `--time-budget` is per merge: a
//! merge over it is `unfinished`, and the audit goes on. Ctrl-C or SIGTERM stops the
//! audit: the merges left have no verdict, and the document says it is partial.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::anytime;
use super::progress::Progress;
use super::review::{DocFormat, context, in_repository, outcome, render, write_requested};
use super::{Outcome, write_output};
use mergelens::config::Overrides;
use mergelens::document::audit::{AUDIT_FORMAT, AuditDocument, AuditedMerge};
use mergelens::git::{CommitInfo, GitRepo};
use mergelens::report::Document;
use mergelens::review;
use mergelens::trust::UserConfig;

/// The options of `mergelens audit`.
#[derive(Clone, Debug, Default)]
pub struct AuditArgs {
    /// `v1.0..v2.0`, or one revision (its whole history).
    pub range: String,
    /// Only the merges into the mainline (first parents).
    pub first_parent: bool,
    /// Only merges committed on or after this day (`YYYY-MM-DD`).
    pub since: Option<String>,
    pub flags: Overrides,
    pub format: Option<DocFormat>,
    pub output: Option<PathBuf>,
    pub no_cache: bool,
    /// Per merge.
    pub time_budget: Option<Duration>,
}

/// Audits; see the module documentation.
pub fn run(args: &AuditArgs) -> anyhow::Result<Outcome> {
    let _confined = super::remote::confine()
        .context("cannot make the private temporary directory of the sandbox")?;
    let repo = GitRepo::from_env()?;
    let since = args.since.as_deref().map(day_start).transpose()?;
    let merges = repo.merges_in(&args.range, args.first_parent, since)?;
    errln!(
        "mergelens: auditing {} merge commit(s) of {}",
        merges.len(),
        args.range
    );
    // Ctrl-C and SIGTERM stop the audit; the budget is set per merge below.
    anytime::start(None);
    let reports = repo.mergelens_dir().join("audit");
    let remote_start = mergelens::remote::stats();
    let jobs = super::remote::concurrent_jobs(
        args.time_budget.is_some(),
        merges.len(),
        "merges one at a time under --time-budget (a budget per merge)",
    );
    let mut outcome = Outcome::Success;
    // The lines go where the document does not, in the merges' order.
    let document_to_stdout = args.output.is_none() && args.format.is_some();
    let mut emit = |(row, failed): (AuditedMerge, bool)| {
        if failed {
            outcome = Outcome::Different;
        }
        if document_to_stdout {
            errln!("{}", line(&row));
        } else {
            outln!("{}", line(&row));
        }
        row
    };
    let rows: Vec<AuditedMerge> = if jobs > 1 {
        let audit = |k: usize| {
            GitRepo::from_env().map_or_else(
                |e| {
                    let merge = &merges[k];
                    let why = format!("{:#}", anyhow::Error::from(e));
                    let subject = merge.summary.clone().unwrap_or_default();
                    (AuditedMerge::unreviewed(merge.sha(), subject, why), false)
                },
                |repo| audit_at(&repo, &merges, k, args, &reports, true),
            )
        };
        super::remote::in_order(merges.len(), jobs, audit, &mut emit)
    } else {
        (0..merges.len())
            .map(|k| emit(audit_at(&repo, &merges, k, args, &reports, false)))
            .collect()
    };
    let partial = mergelens::stop::stop_requested();
    let document = Document::Audit(Box::new(AuditDocument {
        format: AUDIT_FORMAT.to_string(),
        range: args.range.clone(),
        merges: rows,
        tool: Some(format!("mergelens {}", env!("CARGO_PKG_VERSION"))),
        partial,
        remote: super::remote::counts_since(&remote_start),
    }));
    let last = repo.mergelens_dir().join("last-audit.html");
    std::fs::create_dir_all(repo.mergelens_dir())
        .and_then(|()| {
            std::fs::write(
                &last,
                render(&document, DocFormat::Html).unwrap_or_default(),
            )
        })
        .with_context(|| format!("cannot write {}", last.display()))?;
    if args.format.is_some() || args.output.is_some() {
        write_requested(
            &document,
            args.format,
            args.output.as_deref(),
            in_repository(&repo, Some(&last)),
        )?;
    }
    errln!("mergelens: audit report: {}", last.display());
    Ok(outcome)
}

/// The `k`th merge's row, and whether its findings fail its `fail-on`: reviewed, or not
/// (a stop before it, an error, said on the terminal).
fn audit_at(
    repo: &GitRepo,
    merges: &[CommitInfo],
    k: usize,
    args: &AuditArgs,
    reports: &Path,
    concurrent: bool,
) -> (AuditedMerge, bool) {
    let merge = &merges[k];
    let subject = merge.summary.clone().unwrap_or_default();
    // A merge past its own budget stops that merge only; Ctrl-C and SIGTERM all.
    if mergelens::stop::stop_requested() {
        let why = "not reviewed: the audit was stopped (interrupted)".to_string();
        return (AuditedMerge::unreviewed(merge.sha(), subject, why), false);
    }
    errln!(
        "mergelens: audit {}/{}: {} {subject}",
        k + 1,
        merges.len(),
        &merge.sha()[..10]
    );
    match audit_one(repo, merge, args, reports, concurrent) {
        Ok(row) => row,
        // One merge that cannot be reviewed does not end the audit; it is said on the
        // terminal, and it is an unfinished review for the command line's fail-on (the
        // merge's own settings may be what could not be read).
        Err(error) => {
            let why = format!("{error:#}");
            errln!(
                "mergelens: warning: merge {} not reviewed (unfinished): {why}",
                &merge.sha()[..10]
            );
            let flagged = [args.flags.fail_on, args.flags.also_fail_on];
            let failed = flagged.iter().flatten().any(|f| f.fails_unfinished());
            (AuditedMerge::unreviewed(merge.sha(), subject, why), failed)
        }
    }
}

/// Reviews one merge commit as committed, under the settings committed on its first
/// parent (or `--config`); the row, and whether its findings fail its `fail-on`.
fn audit_one(
    repo: &GitRepo,
    merge: &CommitInfo,
    args: &AuditArgs,
    reports: &Path,
    concurrent: bool,
) -> anyhow::Result<(AuditedMerge, bool)> {
    let started = Instant::now();
    // Merges at once share the process's high-water mark.
    if !concurrent {
        mergelens::process::reset_peak_memory();
    }
    let versions = repo.commit_versions(&merge.sha())?;
    let user = UserConfig::load()?;
    let setup = review::review_setup(repo, &versions, &user, &args.flags)?;
    let settings = setup.settings;
    // Kept until the review ends: the repository's harness files are temporary copies.
    let _harness = setup.harness;
    for warning in settings.unconfigured.iter().chain(&settings.warnings) {
        errln!(
            "mergelens: warning: merge {}: {}",
            &merge.sha()[..10],
            warning
        );
    }
    if let Some(budget) = args.time_budget {
        mergelens::stop::set_time_budget(budget);
    }
    let (ctx, mut progress) = if concurrent {
        // Plain lines that say which merge they are of.
        let dir = (!args.no_cache).then(|| repo.mergelens_dir());
        let ctx = mergelens::review::LearnContext::new(&settings, dir.as_deref())?;
        let progress = Progress::lines(format!("merge {}:", &merge.sha()[..10]));
        (ctx.with_progress(progress.phase_setter()), progress)
    } else {
        context(repo, &settings, args.no_cache)?
    };
    let remote_start = mergelens::remote::stats();
    let report = review::review_merge(repo, &versions, &settings, &ctx);
    progress.finish();
    let mut report = report?;
    // Its own actions, when it is the only merge under way.
    if !concurrent {
        report.document.remote = super::remote::counts_since(&remote_start);
    }
    let document = Document::Review(Box::new(report.document.clone()));
    std::fs::create_dir_all(reports)
        .with_context(|| format!("cannot create {}", reports.display()))?;
    let html = reports.join(format!("{}.html", merge.sha()));
    write_output(Some(&html), &render(&document, DocFormat::Html)?)?;
    write_output(
        Some(&reports.join(format!("{}.json", merge.sha()))),
        &render(&document, DocFormat::Json)?,
    )?;
    let failed = outcome(&report, &settings) != Outcome::Success;
    let row = AuditedMerge::reviewed(
        merge.sha(),
        merge.summary.clone().unwrap_or_default(),
        &report.document,
        started.elapsed().as_secs_f64(),
        Some(report_link(&html, args.output.as_deref())),
    );
    Ok((row, failed))
}

/// The merge's report as the audit document links it: relative to the document's directory
/// when it is under it, else absolute.
fn report_link(report: &Path, document: Option<&Path>) -> String {
    let dir = document
        .and_then(Path::parent)
        .and_then(|d| std::path::absolute(d).ok());
    dir.and_then(|d| report.strip_prefix(d).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| report.to_path_buf())
        .display()
        .to_string()
}

/// One line of the audit's output.
fn line(row: &AuditedMerge) -> String {
    format!(
        "{} {:<13} {} unexpected, {} lost, {} overlapping · {} CBMC runs · {:.1} s · {}",
        &row.commit[..10],
        row.verdict_word(),
        row.unexpected,
        row.lost,
        row.overlapping,
        row.cbmc_runs,
        row.seconds,
        row.subject
    )
}

/// The first second of a day `YYYY-MM-DD` (UTC), in seconds since the epoch.
fn day_start(day: &str) -> anyhow::Result<i64> {
    let parts: Vec<i64> = day.split('-').filter_map(|p| p.parse().ok()).collect();
    let [y, m, d] = parts[..] else {
        anyhow::bail!(super::review::UsageError(format!(
            "--since {day}: not a day; write YYYY-MM-DD"
        )));
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        anyhow::bail!(super::review::UsageError(format!(
            "--since {day}: not a day; write YYYY-MM-DD"
        )));
    }
    Ok(days_from_civil(y, m, d) * 86_400)
}

/// Days since 1970-01-01 of a proleptic Gregorian date: count whole 400-year eras (146,097
/// days each) from year 0, with March as the first month so that the leap day ends a year.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_from_march = (m + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + d - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_count_from_the_epoch() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2026, 11, 25), 20_782);
        assert!(day_start("2026-13-01").is_err());
        assert!(day_start("yesterday").is_err());
    }
}
