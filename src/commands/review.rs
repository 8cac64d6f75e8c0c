//! `mergelens review [OURS] [THEIRS]` and `mergelens review --hook`: what a merge does to the
//! program's behaviour, before it is committed.
//!
//! Key types: [`ReviewArgs`] (with [`DocFormat`]) and [`run`]; [`mergelens::review`] does the
//! work (Chockler, Kesseli, Kroening and Strichman, *Learning the Language of Software
//! Errors*, JAIR 2020, Sec. 5, Fig. 12-14).
//!
//! Every review leaves its report in `.git/mergelens/last-review.json` and `.html`; `--format`
//! and `-o` write one more copy where asked. One screen of summary goes to standard output
//! (standard error when the document itself goes to standard output). In `--hook` mode the
//! versions are those git shows a hook, `MERGELENS=0` skips the review, findings block the
//! merge only as `fail-on` says, and a failure of mergelens itself lets the merge through
//! with a warning unless `on-error = "block"`.

use anyhow::Context;
use std::path::{Path, PathBuf};

use super::anytime;
use super::progress::Progress;
use super::{Outcome, term, terms, write_output};
use mergelens::config::{OnError, Overrides, Settings};
use mergelens::document::{Difference, ExecutionKind, Review, Verdict};
use mergelens::git::{GitRepo, MergeVersions, Merged};
use mergelens::report::{self, Document, Format};
use mergelens::review::{self, LearnContext, ReviewReport};
use mergelens::trust::{self, UserConfig};

/// The document format of `--format`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DocFormat {
    /// `mergelens-review/1`.
    Json,
    Markdown,
    Html,
    /// SARIF 2.1.0.
    Sarif,
}

impl DocFormat {
    /// The format a file name suggests (`.json`, `.md`), HTML otherwise.
    pub fn for_path(path: &Path) -> DocFormat {
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => DocFormat::Json,
            Some("md" | "markdown") => DocFormat::Markdown,
            Some("sarif") => DocFormat::Sarif,
            _ => DocFormat::Html,
        }
    }
}

/// The options of `mergelens review`.
#[derive(Clone, Debug, Default)]
pub struct ReviewArgs {
    /// The first parent; `HEAD` when absent.
    pub ours: Option<String>,
    /// The branch to merge; when absent, `MERGE_HEAD` of a merge in progress.
    pub theirs: Option<String>,
    /// Review the merge git is committing, as a hook sees it.
    pub hook: bool,
    /// Review this existing merge commit as it was committed.
    pub commit: Option<String>,
    pub flags: Overrides,
    pub format: Option<DocFormat>,
    pub output: Option<PathBuf>,
    /// Neither read nor write the caches under `.git/mergelens/`.
    pub no_cache: bool,
    /// `--time-budget`: learning stops then, and the verdict is `unfinished`.
    pub time_budget: Option<std::time::Duration>,
}

/// Reviews; see the module documentation.
pub fn run(args: &ReviewArgs) -> anyhow::Result<Outcome> {
    if args.hook && std::env::var("MERGELENS").is_ok_and(|v| v == "0") {
        return Ok(Outcome::Success);
    }
    let mut on_error = args.flags.on_error.unwrap_or_default();
    // gcc, goto-cc and CBMC read the branches' code: where the kernel offers Landlock, they
    // may read the checkouts and the system, nothing else (docs/trust.md).
    let _confined = super::remote::confine()
        .context("cannot make the private temporary directory of the sandbox")?;
    // A panic in any worker is an internal failure, which on-error governs like any other.
    let result = mergelens::failure::catch_panic(|| review(args, &mut on_error))
        .unwrap_or_else(|e| Err(e.into()));
    match result {
        Err(error) if args.hook && on_error == OnError::Allow => {
            errln!(
                "mergelens: WARNING: THIS MERGE WAS NOT REVIEWED: mergelens failed, and on-error = \"allow\" lets the merge go ahead: {}",
                format!("{error:#}")
            );
            Ok(Outcome::Success)
        }
        Err(error) if args.hook => Err(error.context(
            "the merge is not committed, as mergelens failed (on-error = \"block\"); to commit it anyway: MERGELENS=0 git commit",
        )),
        other => other,
    }
}

fn review(args: &ReviewArgs, on_error: &mut OnError) -> anyhow::Result<Outcome> {
    let repo = GitRepo::from_env()?;
    let user = UserConfig::load()?;
    // Until the owner's settings are read, only trusted places decide (docs/trust.md).
    *on_error = args.flags.on_error.or(user.on_error).unwrap_or_default();
    let Some(versions) = merge_versions(&repo, args)? else {
        // An ordinary commit (the script also serves as pre-commit): nothing to review.
        return Ok(Outcome::Success);
    };
    // The owner's committed settings govern, never the work tree's or theirs'.
    let setup = review::review_setup(&repo, &versions, &user, &args.flags)?;
    let settings = setup.settings;
    // Kept until the review ends: the repository's harness files are temporary copies.
    let _harness = setup.harness;
    *on_error = settings.on_error;
    for warning in &settings.warnings {
        errln!("mergelens: warning: {}", term(warning));
    }
    let settings_change = setup.settings_change;
    if let Merged::Conflict(paths) = &versions.merged {
        errln!(
            "mergelens: git cannot merge {} textually; learning the base and both branches to show how they differ",
            terms(paths)
        );
    }
    // `--time-budget` and Ctrl-C stop the CBMC runs (in process groups of their own, a
    // signal to ours would leave them running); the review then keeps what was learned,
    // with the verdict `unfinished` (`mergelens::review` says how).
    // `git merge` waits for the hook: without a budget of the user's, the owner's.
    let budget = match args.time_budget {
        None if args.hook => settings.hook_time_budget,
        given => given,
    };
    anytime::start(budget);
    let (ctx, mut progress) = context(&repo, &settings, args.no_cache)?;
    let remote_start = mergelens::remote::stats();
    let report = review::review_merge(&repo, &versions, &settings, &ctx);
    progress.finish();
    for warning in ctx.take_warnings() {
        errln!("mergelens: warning: {}", term(&warning));
    }
    let mut report = report?;
    report.document.remote = super::remote::counts_since(&remote_start);
    stop_warning(&report, budget, args);
    if let Some(diff) = &settings_change {
        report
            .document
            .bounds
            .notes
            .insert(0, trust::settings_change_note(diff));
    }
    let document = Document::Review(Box::new(report.document.clone()));
    let saved = save_last(&repo, "last-review", &document);
    let to_stdout = write_requested(
        &document,
        args.format,
        args.output.as_deref(),
        in_repository(&repo, saved.as_deref()),
    )?;
    let mut summary = summary(&report, saved.as_deref(), args.output.as_deref());
    let outcome = gate_outcome(review::gate(&report, &settings, settings_change.is_some()));
    if let Some(diff) = &settings_change {
        summary.push_str(&trust::settings_change_summary(diff));
    }
    if args.hook && outcome == Outcome::Success && !report.document.unfinished.is_empty() {
        summary.push_str(&format!(
            "mergelens: the merge goes ahead unfinished: fail-on = {} does not name \"unfinished\" (fail-on = {} blocks it)\n",
            settings.fail_on.name(),
            settings
                .fail_on
                .with(mergelens::config::FailOnName::Unfinished.into())
                .name()
        ));
    }
    if args.hook && outcome != Outcome::Success {
        summary.push_str(&format!(
            "mergelens: the merge is not committed (fail-on = {}); to commit it anyway: MERGELENS=0 git commit\n",
            settings.fail_on.name()
        ));
    }
    if to_stdout {
        err!("{summary}");
    } else {
        out!("{summary}");
    }
    Ok(outcome)
}

/// The warning of a review a stop cut short: which stop (the budget, in seconds), that the
/// verdict is `unfinished`, and in a hook how to finish the review after the merge.
fn stop_warning(report: &ReviewReport, budget: Option<std::time::Duration>, args: &ReviewArgs) {
    use mergelens::stop::StopReason;
    let Some(reason) = mergelens::stop::stop_reason().filter(|_| report.stopped) else {
        return;
    };
    let at = match (reason, budget) {
        (StopReason::TimeBudget, Some(b)) => format!("at the {} s budget", b.as_secs_f64()),
        _ => format!("early ({reason})"),
    };
    errln!(
        "mergelens: warning: unfinished: the review stopped {at} before it finished its work: the report holds what was learned, and the verdict is unfinished"
    );
    if args.hook && args.time_budget.is_none() {
        errln!(
            "mergelens: to finish the review after the merge: mergelens review --commit HEAD (what was learned is cached; hook-time-budget in .mergelens.toml sets the hook's budget)"
        );
    }
}

/// The versions to review: those git shows a hook, a merge commit's, or git's merge of the
/// named branches (a merge in progress without names); `None` when a hook finds no merge.
fn merge_versions(repo: &GitRepo, args: &ReviewArgs) -> anyhow::Result<Option<MergeVersions>> {
    let request = if args.hook {
        review::Request::Hook
    } else if let Some(rev) = &args.commit {
        review::Request::Commit(rev)
    } else {
        review::Request::Branches {
            ours: args.ours.as_deref(),
            theirs: args.theirs.as_deref(),
        }
    };
    Ok(review::versions_to_review(repo, request)?)
}

/// A usage error (exit code 2) that is not clap's.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// The settings of a diff (the work tree's `.mergelens.toml`) and the harness files they
/// name, which must be kept while the diff runs.
pub(crate) fn load_settings(
    repo: &GitRepo,
    flags: &Overrides,
) -> anyhow::Result<(Settings, trust::HarnessFiles)> {
    let (settings, harness) = review::work_tree_setup(repo, flags)?;
    for warning in &settings.warnings {
        errln!("mergelens: warning: {}", term(warning));
    }
    Ok((settings, harness))
}

/// The learning context, with progress on standard error: a spinner on a terminal, else
/// (a hook, CI) a plain line every few seconds ([`Progress`]).
pub(crate) fn context(
    repo: &GitRepo,
    settings: &Settings,
    no_cache: bool,
) -> anyhow::Result<(LearnContext, Progress)> {
    let dir = (!no_cache).then(|| repo.mergelens_dir());
    let ctx = LearnContext::new(settings, dir.as_deref())?;
    let progress = Progress::new("reviewing:");
    Ok((ctx.with_progress(progress.phase_setter()), progress))
}

/// Writes the document as `.git/mergelens/NAME.json` and `.html`; returns the HTML's path,
/// or `None` (after a warning) when it could not be written.
pub(crate) fn save_last(repo: &GitRepo, name: &str, document: &Document) -> Option<PathBuf> {
    let dir = repo.mergelens_dir();
    let json = dir.join(format!("{name}.json"));
    let html = dir.join(format!("{name}.html"));
    let result = std::fs::create_dir_all(&dir)
        .and_then(|()| {
            std::fs::write(
                &json,
                render(document, DocFormat::Json).map_err(std::io::Error::other)?,
            )
        })
        .and_then(|()| {
            std::fs::write(
                &html,
                render(document, DocFormat::Html).map_err(std::io::Error::other)?,
            )
        });
    match result {
        Ok(()) => Some(html),
        Err(e) => {
            errln!(
                "mergelens: warning: cannot keep the report in {}: {e}",
                dir.display()
            );
            None
        }
    }
}

pub(crate) fn render(document: &Document, format: DocFormat) -> anyhow::Result<String> {
    Ok(match format {
        DocFormat::Json => {
            let mut text = match document {
                Document::Review(r) => serde_json::to_string_pretty(r),
                Document::Diff(d) => serde_json::to_string_pretty(d),
                Document::Audit(a) => serde_json::to_string_pretty(a),
                Document::Series(s) => serde_json::to_string_pretty(s),
                Document::Automaton(_) => unreachable!("reviews, diffs, series and audits only"),
            }
            .expect("documents serialise");
            text.push('\n');
            text
        }
        DocFormat::Markdown => {
            report::render(document, Format::Markdown, &report::Options::default())?
        }
        DocFormat::Html => report::render(document, Format::Html, &report::Options::default())?,
        DocFormat::Sarif => report::render(document, Format::Sarif, &report::Options::default())?,
    })
}

/// A report's path as documents show it: relative to the repository when inside it, so
/// that it means the same in a CI artifact as on the machine that wrote it.
pub(crate) fn in_repository<'a>(repo: &GitRepo, path: Option<&'a Path>) -> Option<&'a Path> {
    path.map(|p| p.strip_prefix(repo.root()).unwrap_or(p))
}

/// Writes the document as `--format`/`-o` ask; returns whether it went to standard output.
/// `html`: where the HTML report is, for the SARIF messages to point to.
pub(crate) fn write_requested(
    document: &Document,
    format: Option<DocFormat>,
    output: Option<&Path>,
    html: Option<&Path>,
) -> anyhow::Result<bool> {
    let format = match (format, output) {
        (Some(f), _) => f,
        (None, Some(path)) => DocFormat::for_path(path),
        (None, None) => return Ok(false),
    };
    let text = match format {
        DocFormat::Sarif => {
            let options = report::Options {
                html_report: html.map(|h| h.display().to_string()),
            };
            report::render(document, Format::Sarif, &options)?
        }
        other => render(document, other)?,
    };
    write_output(output, &text)?;
    Ok(output.is_none())
}

/// The exit outcome of a review under its settings' `fail-on` ([`review::gate`]).
pub(crate) fn outcome(report: &ReviewReport, settings: &Settings) -> Outcome {
    gate_outcome(review::gate(report, settings, false))
}

/// Exit code 1 for a gate that fails, 3 for a conflict.
fn gate_outcome(gate: review::Gate) -> Outcome {
    match gate {
        review::Gate::Pass => Outcome::Success,
        review::Gate::Fail => Outcome::Different,
        review::Gate::Conflict => Outcome::Conflict,
    }
}

/// Whether the summary shows a note under the verdict: the configuration the review ran
/// without, and a change no call and no result shows (a clean verdict does not speak for
/// it).
fn shown_under_verdict(note: &str) -> bool {
    note.starts_with(mergelens::trust::UNCONFIGURED_NOTE)
        || note.contains(review::UNSEEN_CHANGE)
        || note.contains(review::UNSEEN_CALLS)
}

/// The entry's per-execution stories, a few of them, as aligned rows.
pub(crate) fn stories(out: &mut String, entry: &mergelens::document::ReviewEntry) {
    use std::fmt::Write;
    if let Some(check) = &entry.execution_check {
        let self_check = match &check.self_check {
            Some(s) if !s.identical => "; the self-check failed, nothing judged".to_string(),
            Some(s) => format!("; self-check held ({:.1} s)", s.wall_seconds),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "  per execution{}: {} execution(s) one branch alone does not explain: {} composed, {} unexpected, {} overlapping{}{}{self_check}",
            match check.observed() {
                o if o.is_empty() => String::new(),
                o => format!(" (calls and {})", term(&o)),
            },
            check.quadruples,
            check.explained,
            check.unexpected,
            check.overlapping,
            if check.lost > 0 {
                format!(" ({} lose a call a branch added)", check.lost)
            } else {
                String::new()
            },
            if check.complete { "" } else { " (partial)" }
        );
    }
    for story in entry.executions.iter().take(SUMMARY_WORDS) {
        if story.has_input_sites() {
            // One line per value: each says which line of the program read it.
            let _ = writeln!(out, "  {} execution:", story.kind.name());
            for value in story.labelled_inputs() {
                let _ = writeln!(out, "    input: {}", term(&value.text()));
            }
        } else {
            let _ = writeln!(
                out,
                "  {} execution, on {}:",
                story.kind.name(),
                term(&story.input_text())
            );
        }
        for line in story.aligned_text().lines() {
            let _ = writeln!(out, "    {}", term(line));
        }
    }
    if entry.executions.len() > SUMMARY_WORDS {
        let _ = writeln!(
            out,
            "  ... and {} more (the report has them all)",
            entry.executions.len() - SUMMARY_WORDS
        );
    }
}

/// At most this many words of one language in the summary.
const SUMMARY_WORDS: usize = 3;

/// Up to this many changed hunks no execution reaches are named in the summary; more are
/// counted.
const LISTED_UNREACHED: usize = 3;

/// The verdict's line of the summary: its name and what it means.
fn verdict_line(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Clean => "clean: the merge does what the branches' changes do, and nothing else",
        Verdict::Unexpected => {
            "unexpected: on some input the merge does what neither branch's change, nor both together, do"
        }
        // Written `unexpected` as the document writes it; what it found is a loss.
        Verdict::Lost => {
            "unexpected: on some input the merge does not do what a branch's change does (lost)"
        }
        Verdict::Overlapping => {
            "overlapping: on some input both branches changed the same part of the execution differently"
        }
        Verdict::Conflict => "conflict: git cannot merge the files textually",
        Verdict::Unfinished => {
            "unfinished: the review did not complete its work, so no unexpected behaviour found says nothing"
        }
        Verdict::Inconclusive => {
            "inconclusive: no unexpected behaviour found, but the check fell short of the bounds"
        }
    }
}

/// One screen: the verdict, the unexpected and lost words, conflicts, where the report is.
pub(crate) fn summary(
    report: &ReviewReport,
    saved: Option<&Path>,
    output: Option<&Path>,
) -> String {
    use std::fmt::Write;
    let doc: &Review = &report.document;
    let mut out = String::new();
    let short = |r: &str| r.chars().take(10).collect::<String>();
    let v = &doc.versions;
    let _ = writeln!(
        out,
        "mergelens review: {} into {} (base {})",
        term(
            &v.theirs
                .label
                .clone()
                .unwrap_or_else(|| short(&v.theirs.rev))
        ),
        term(&v.ours.label.clone().unwrap_or_else(|| short(&v.ours.rev))),
        term(&short(&v.base.rev))
    );
    let _ = writeln!(out, "verdict: {}", verdict_line(doc.verdict));
    if report.lost && !report.unexpected {
        let _ = writeln!(
            out,
            "  lost: on some input the merge loses a call a branch added (`fail-on` names \"lost\" by default, which blocks it)"
        );
    }
    if doc.entries.is_empty() && doc.bounds.notes.iter().any(|n| n == review::NO_CODE_CHANGE) {
        let _ = writeln!(out, "  {}", review::NO_CODE_CHANGE);
    }
    for note in doc.bounds.notes.iter() {
        if shown_under_verdict(note) {
            let _ = writeln!(out, "  {}", term(note));
        }
    }
    if !doc.unreviewed.is_empty() {
        let _ = writeln!(
            out,
            "  not reviewed: the unstaged edits in {} (the review reads what is staged; git add them and commit again to review them)",
            terms(&doc.unreviewed)
        );
    }
    // Changed code no execution runs comes first: no difference says nothing about it.
    // A few are named; more are counted, and the report's coverage table names them.
    let unreached = unreached_lines(doc.coverages(), doc.bounds.unwind);
    if unreached.len() > LISTED_UNREACHED {
        let _ = writeln!(
            out,
            "  {} changed hunks are never reached within --unwind {} (the report's coverage table lists them)",
            unreached.len(),
            doc.bounds.unwind
        );
    } else {
        for line in &unreached {
            let _ = writeln!(out, "  {}", term(line));
        }
    }
    for line in unchecked_lines(doc.coverages()) {
        let _ = writeln!(out, "  {}", term(&line));
    }
    // Under a finding too: what was not done is part of what the review says.
    for reason in &doc.unfinished {
        let _ = writeln!(out, "  unfinished: {}", term(reason));
    }
    if matches!(doc.verdict, Verdict::Inconclusive | Verdict::Unfinished) {
        for reason in doc.inconclusive.iter().filter(|r| !unreached.contains(r)) {
            let _ = writeln!(out, "  {}", term(reason));
        }
    }
    if !doc.conflicts.is_empty() {
        let _ = writeln!(out, "conflicting files: {}", terms(&doc.conflicts));
    }
    for entry in doc.entries.iter().take(4) {
        entry_summary(&mut out, entry, doc.verdict);
    }
    if doc.entries.len() > 4 {
        let _ = writeln!(out, "... and {} more entries", doc.entries.len() - 4);
    }
    if let Some(peak) = doc.peak_memory_mib.filter(|&p| p > 0) {
        let limit = doc.memory_limit_mib.map_or_else(
            || " (no limit)".to_string(),
            |l| format!(" of the {l} MiB limit"),
        );
        let _ = writeln!(
            out,
            "peak memory of one tool run (CBMC, goto-cc, gcc; runs stopped early included): {peak} MiB{limit}"
        );
    }
    if let Some(remote) = &doc.remote {
        let _ = writeln!(out, "remote engine: {}", remote.sentence());
    }
    if let Some(path) = output {
        let _ = writeln!(out, "report: {}", path.display());
    }
    if let Some(path) = saved {
        let _ = writeln!(out, "full report: {}", path.display());
    }
    out
}

/// Up to [`SUMMARY_WORDS`] example words of a language under a title, and how many more.
fn words(out: &mut String, title: &str, d: &Option<Difference>) {
    use std::fmt::Write;
    let Some(d) = d else { return };
    if d.examples.is_empty() {
        return;
    }
    let count = d.count_up_to_bound.map_or_else(String::new, |c| {
        format!(
            " ({c} word{} within the bound)",
            if c == 1 { "" } else { "s" }
        )
    });
    let _ = writeln!(out, "  {title}{count}:");
    for w in d.examples.iter().take(SUMMARY_WORDS) {
        let _ = writeln!(out, "    {}", term(&w.join(" ")));
    }
    let total = d
        .count_up_to_bound
        .unwrap_or(d.examples.len() as u64)
        .max(d.examples.len() as u64);
    let shown = d.examples.len().min(SUMMARY_WORDS) as u64;
    if total > shown {
        let _ = writeln!(out, "    ... and {} more", total - shown);
    }
}

/// One entry's part of the summary: absent versions, the first-pass words, the stories.
fn entry_summary(out: &mut String, entry: &mergelens::document::ReviewEntry, verdict: Verdict) {
    use std::fmt::Write;
    if entry.changed_function {
        let _ = writeln!(
            out,
            "entry {} (changed, at its own entry: any arguments the harness allows):",
            term(&entry.entry)
        );
    } else {
        let _ = writeln!(out, "entry {}:", term(&entry.entry));
    }
    for absent in &entry.absent {
        let _ = writeln!(out, "  absent in {absent}");
    }
    // With the per-execution verdict, the words are its first pass, no finding.
    let (unexpected_title, lost_title) = if entry.execution_check.is_some() {
        (
            "word by word, first pass (the verdict judges executions): unexpected words, the merge's that neither branch explains",
            "word by word, first pass: lost words, a branch's that the merge lacks",
        )
    } else {
        (
            "unexpected (in the merge, explained by neither branch)",
            "lost (a branch's change the merge dropped)",
        )
    };
    words(out, unexpected_title, &entry.unexpected);
    words(out, lost_title, &entry.lost);
    let no_words = entry
        .unexpected
        .as_ref()
        .is_none_or(|d| d.examples.is_empty());
    if no_words
        && entry
            .executions
            .iter()
            .any(|e| e.kind == ExecutionKind::Unexpected)
    {
        let _ = writeln!(
            out,
            "  no unexpected word: each of the merge's words is some version's, but on the input below the merge's calls, result or globals are not the expected merge's"
        );
    }
    if verdict == Verdict::Conflict {
        words(out, "ours and theirs differ on", &entry.ours_vs_theirs);
    }
    stories(out, entry);
}

/// "theirs' change at parser.c:41-47 is never reached within --unwind 2", one per changed
/// hunk that no entry's executions reach.
pub(crate) fn unreached_lines<'a>(
    coverages: impl IntoIterator<Item = &'a mergelens::document::Coverage>,
    unwind: u32,
) -> Vec<String> {
    use mergelens::document::coverage::{unreached, unreached_sentence};
    unreached(coverages)
        .into_iter()
        .map(|h| unreached_sentence(h, unwind))
        .collect()
}

/// "3 changed hunks unchecked: the time budget ran out first ...", one line per reason:
/// hunks whose coverage check stopped before it could tell are neither reached nor
/// unreached, and get no hint.
fn unchecked_lines<'a>(
    coverages: impl IntoIterator<Item = &'a mergelens::document::Coverage>,
) -> Vec<String> {
    let mut by_reason: Vec<(String, usize)> = Vec::new();
    for h in mergelens::document::coverage::unchecked(coverages) {
        let why = h.unchecked.clone().unwrap_or_default();
        match by_reason.iter_mut().find(|(r, _)| *r == why) {
            Some((_, n)) => *n += 1,
            None => by_reason.push((why, 1)),
        }
    }
    by_reason
        .into_iter()
        .map(|(why, n)| {
            let hunks = if n == 1 { "changed hunk" } else { "changed hunks" };
            format!("{n} {hunks} unchecked: {why} (the coverage check stopped before it could tell whether they are reached)")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_follow_the_file_name() {
        assert_eq!(DocFormat::for_path(Path::new("r.json")), DocFormat::Json);
        assert_eq!(DocFormat::for_path(Path::new("r.md")), DocFormat::Markdown);
        assert_eq!(DocFormat::for_path(Path::new("r.html")), DocFormat::Html);
        assert_eq!(DocFormat::for_path(Path::new("r")), DocFormat::Html);
    }
}
