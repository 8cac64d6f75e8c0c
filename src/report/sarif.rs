//! SARIF 2.1.0 (the OASIS Static Analysis Results Interchange Format), which code-scanning
//! dashboards read: one result per finding of a review, diff or audit.
//!
//! The mapping (`docs/formats.md` says it in full):
//!
//! * rules `mergelens/unexpected`, `mergelens/lost` (level `error`), `mergelens/overlapping`
//!   (`warning`), `mergelens/changed` (behaviour a diff added or removed, `note`),
//!   `mergelens/unfinished` (a review that did not finish its work, `warning`),
//!   `mergelens/inconclusive` (`note`) and `mergelens/settings` (a merge that changes the
//!   review settings, `warning`);
//! * a review's result per unexpected or overlapping execution of the per-execution check
//!   (saying when it loses a call a branch added), or, where the check did not run, per
//!   non-empty word-level language (`unexpected`, `lost`), located at the functions its letters name that the
//!   merge changed, else at the entry function; an unreached hunk at its own lines;
//! * each message has the example words, and the HTML report's location when given;
//! * repository text is escaped (`super::escape`): each `uri` percent-encoded, each message
//!   with its control characters and brackets escaped.

use serde_json::{Value, json};

use super::compute::Language;
use super::escape;
use super::options::Options;
use crate::document::audit::AuditDocument;
use crate::document::series::SeriesDocument;
use crate::document::{
    DiffDocument, Difference, ExecutionKind, FunctionLocation, Review, ReviewEntry, Version,
};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The rules, with their default level and a one-line description.
const RULES: [(&str, &str, &str); 7] = [
    (
        "mergelens/unexpected",
        "error",
        "On some input the merge does what neither branch's change, nor both together, do.",
    ),
    (
        "mergelens/lost",
        "error",
        "On some input the merge lacks a call a branch's change added.",
    ),
    (
        "mergelens/overlapping",
        "warning",
        "On some input both branches changed the same part of the execution differently.",
    ),
    (
        "mergelens/changed",
        "note",
        "Behaviour one revision has and the other has not.",
    ),
    (
        "mergelens/unfinished",
        "warning",
        "The review did not finish its work (a time budget, a timeout, a memory limit, a tool that failed): no finding says nothing.",
    ),
    (
        "mergelens/inconclusive",
        "note",
        "The check fell short of its bounds: no difference found says less than it seems.",
    ),
    (
        "mergelens/settings",
        "warning",
        "The merge changes the review settings (.mergelens.toml).",
    ),
];

/// The SARIF log of a review.
pub(crate) fn review(doc: &Review, options: &Options) -> Value {
    let mut results = Vec::new();
    let bound = doc.bounds.max_word_length as usize;
    for entry in &doc.entries {
        entry_results(entry, bound, options, &mut results);
    }
    let fallback = fallback_location(doc);
    let unreached = crate::document::coverage::unreached(doc.coverages());
    for reason in &doc.unfinished {
        results.push(result(
            "mergelens/unfinished",
            reason.clone(),
            options,
            fallback.iter().cloned().collect(),
        ));
    }
    for reason in &doc.inconclusive {
        // The unreached hunks get results of their own, at their lines.
        if unreached.iter().any(|h| reason.contains(&h.place())) {
            continue;
        }
        results.push(result(
            "mergelens/inconclusive",
            reason.clone(),
            options,
            fallback.iter().cloned().collect(),
        ));
    }
    for hunk in unreached {
        // A hunk with calls is reached only when one runs: say which never does.
        let calls = crate::document::coverage::calls_not_run(hunk)
            .map(|c| format!(" ({c})"))
            .unwrap_or_default();
        results.push(result(
            "mergelens/inconclusive",
            format!(
                "This change is never reached within --unwind {}{calls}: no difference found says nothing about it.",
                doc.bounds.unwind
            ),
            options,
            vec![hunk_region(hunk)],
        ));
    }
    for note in doc
        .bounds
        .notes
        .iter()
        .filter(|n| n.starts_with(crate::trust::SETTINGS_CHANGE_NOTE))
    {
        results.push(result(
            "mergelens/settings",
            note.clone(),
            options,
            vec![region(crate::config::FILE_NAME, 1, None)],
        ));
    }
    let mut log = log(results);
    log["runs"][0]["versionControlProvenance"] = json!([provenance(doc)]);
    log
}

/// The repository and the reviewed revision: the merge commit when the review read one
/// (`review --commit`, `audit`), whose lines every region is in; else the branch merged
/// into, with no revision (git's merge or the staged merge is no commit yet).
fn provenance(doc: &Review) -> Value {
    let path = doc.repository.as_deref().unwrap_or(".");
    let mut p = json!({
        "repositoryUri": format!("file://{}", escape::sarif_uri(path)),
        "mappedTo": { "uriBaseId": "%SRCROOT%" },
    });
    let committed = doc.versions.merged.as_ref().filter(|m| {
        m.summary
            .as_deref()
            .is_some_and(|s| s.starts_with("the merge commit"))
    });
    match committed {
        Some(merge) => p["revisionId"] = json!(merge.rev),
        None => {
            if let Some(label) = &doc.versions.ours.label {
                p["branch"] = json!(escape::sarif_text(label));
            }
        }
    }
    p
}

/// A changed hunk's region: in the merge result's lines when the review had one (what a
/// reader of the reviewed commit opens), else in the lines of the version that made it.
fn hunk_region(hunk: &crate::document::coverage::CoveredHunk) -> Value {
    match (hunk.merged_start_line, hunk.merged_end_line) {
        (Some(start), end) => region(&hunk.file, start, end),
        _ => region(&hunk.file, hunk.start_line, Some(hunk.end_line)),
    }
}

/// The SARIF log of a diff: what each entry added and removed.
pub(crate) fn diff(doc: &DiffDocument, options: &Options) -> Value {
    let bound = doc.bounds.max_word_length as usize;
    let mut results = Vec::new();
    for entry in &doc.entries {
        let at = entry
            .functions
            .iter()
            .find(|f| f.name == entry.entry && f.version == Version::New)
            .map(located)
            .into_iter()
            .collect::<Vec<_>>();
        let (added, removed) = super::compute::added_removed(entry, bound, 3);
        for (what, l) in [("added", added), ("removed", removed)] {
            if !l.is_empty() {
                results.push(result(
                    "mergelens/changed",
                    format!("`{}`: behaviour {what}: {}", entry.entry, phrase(&l)),
                    options,
                    at.clone(),
                ));
            }
        }
    }
    for reason in &doc.inconclusive {
        results.push(result(
            "mergelens/inconclusive",
            reason.clone(),
            options,
            Vec::new(),
        ));
    }
    log(results)
}

/// The SARIF log of a series: each step's diff, its messages naming the step.
pub(crate) fn series(doc: &SeriesDocument, options: &Options) -> Value {
    let mut results = Vec::new();
    for step in &doc.steps {
        let link = Options {
            html_report: step.report.clone().or_else(|| options.html_report.clone()),
        };
        let log = diff(&step.diff, &link);
        for mut r in log["runs"][0]["results"]
            .as_array()
            .cloned()
            .unwrap_or_default()
        {
            let text = r["message"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            r["message"]["text"] = json!(format!(
                "{} → {}: {text}",
                escape::sarif_text(&step.from),
                escape::sarif_text(&step.to)
            ));
            results.push(r);
        }
    }
    self::log(results)
}

/// The SARIF log of an audit: each merge's findings, counted, with its report.
pub(crate) fn audit(doc: &AuditDocument, options: &Options) -> Value {
    let mut results = Vec::new();
    for m in &doc.merges {
        let link = Options {
            html_report: m.report.clone().or_else(|| options.html_report.clone()),
        };
        let short = &m.commit[..m.commit.len().min(10)];
        for (rule, count) in [
            ("mergelens/unexpected", m.unexpected),
            ("mergelens/lost", m.lost),
            ("mergelens/overlapping", m.overlapping),
        ] {
            if count > 0 {
                results.push(result(
                    rule,
                    format!("merge {short} ({}): {count} execution(s)", m.subject),
                    &link,
                    Vec::new(),
                ));
            }
        }
        if m.verdict_word() == "inconclusive"
            || m.verdict_word() == "unfinished"
            || m.verdict.is_none()
        {
            let rule = if m.verdict_word() == "inconclusive" {
                "mergelens/inconclusive"
            } else {
                "mergelens/unfinished"
            };
            results.push(result(
                rule,
                format!(
                    "merge {short} ({}): {}: {}",
                    m.subject,
                    m.verdict_word(),
                    m.notes.join("; ")
                ),
                &link,
                Vec::new(),
            ));
        }
    }
    log(results)
}

fn entry_results(entry: &ReviewEntry, bound: usize, options: &Options, results: &mut Vec<Value>) {
    if entry.execution_check.is_some() {
        for e in &entry.executions {
            let rule = match e.kind {
                ExecutionKind::Unexpected => "mergelens/unexpected",
                ExecutionKind::Overlapping => "mergelens/overlapping",
            };
            let expected = e.expected.as_ref().map_or_else(
                || "no composition (both changed it)".to_string(),
                |w| w.join(" "),
            );
            let loses = if e.loses() {
                " It loses a call a branch added."
            } else {
                ""
            };
            let message = format!(
                "`{}`{}: on one input the merge calls `{}`; base `{}`, ours `{}`, theirs `{}`, expected `{expected}`.{loses}",
                entry.entry,
                own_entry(entry),
                e.merged.join(" "),
                e.base.join(" "),
                e.ours.join(" "),
                e.theirs.join(" ")
            );
            let letters = e.merged.iter().chain(e.expected.iter().flatten());
            results.push(result(rule, message, options, changed_at(entry, letters)));
        }
        return;
    }
    for (rule, given) in [
        ("mergelens/unexpected", &entry.unexpected),
        ("mergelens/lost", &entry.lost),
    ] {
        if let Some(l) = language(given, bound) {
            let message = format!("`{}`{}: {}", entry.entry, own_entry(entry), phrase(&l));
            let at = changed_at(entry, l.examples.iter().flatten());
            results.push(result(rule, message, options, at));
        }
    }
}

/// After a changed function's name: that its arguments were any the harness allows.
fn own_entry(entry: &ReviewEntry) -> &'static str {
    if entry.changed_function {
        " (a changed function at its own entry, on arguments the generated harness allows)"
    } else {
        ""
    }
}

/// A non-empty language's example words (those the document gives, else the shortest of
/// its automaton) and how many words it has within `bound`.
fn language(given: &Option<Difference>, bound: usize) -> Option<Language> {
    let d = given.as_ref()?;
    let language = Language::new(Some(d), || d.automaton.0.clone(), bound, 3);
    (!language.is_empty()).then_some(language)
}

/// Up to three example words of a language, as one phrase.
fn phrase(language: &Language) -> String {
    let words: Vec<String> = language
        .examples
        .iter()
        .take(3)
        .map(|w| format!("`{}`", w.join(" ")))
        .collect();
    let count = language
        .count
        .map_or_else(|| "many".to_string(), |c| c.to_string());
    format!(
        "{count} word(s) within the bound, e.g. {}",
        words.join(", ")
    )
}

/// Where the merge changed the functions `letters` name, else the entry function.
fn changed_at<'a>(entry: &ReviewEntry, letters: impl Iterator<Item = &'a String>) -> Vec<Value> {
    let mut names: Vec<&str> = Vec::new();
    for l in letters {
        if entry.source_changes.iter().any(|c| &c.function == l) && !names.contains(&l.as_str()) {
            names.push(l);
        }
    }
    let mut at: Vec<Value> = names
        .iter()
        .filter_map(|n| {
            [Version::Merged, Version::Theirs, Version::Ours]
                .iter()
                .find_map(|v| {
                    entry
                        .functions
                        .iter()
                        .find(|f| f.name == *n && f.version == *v)
                })
        })
        .map(located)
        .collect();
    if at.is_empty() {
        at.extend(entry_location(entry, Version::Merged));
    }
    at
}

/// Where a result about the whole review is shown (code scanning shows none without a
/// location): the first entry's function, else any function its letters name, else the
/// first changed hunk.
fn fallback_location(doc: &Review) -> Option<Value> {
    let first = doc.entries.first()?;
    entry_location(first, Version::Base)
        .or_else(|| {
            doc.entries
                .iter()
                .flat_map(|e| &e.functions)
                .next()
                .map(located)
        })
        .or_else(|| {
            doc.entries
                .iter()
                .flat_map(|e| &e.coverage.hunks)
                .next()
                .map(hunk_region)
        })
}

fn entry_location(entry: &ReviewEntry, version: Version) -> Option<Value> {
    entry
        .functions
        .iter()
        .filter(|f| f.name == entry.entry)
        .find(|f| f.version == version)
        .or_else(|| entry.functions.iter().find(|f| f.name == entry.entry))
        .map(located)
}

fn located(f: &FunctionLocation) -> Value {
    region(&f.file, f.line.unwrap_or(1), None)
}

fn region(file: &str, start: u32, end: Option<u32>) -> Value {
    let mut region = json!({ "startLine": start.max(1) });
    if let Some(end) = end {
        region["endLine"] = json!(end.max(start).max(1));
    }
    json!({
        "physicalLocation": {
            "artifactLocation": { "uri": escape::sarif_uri(file), "uriBaseId": "%SRCROOT%" },
            "region": region,
        }
    })
}

fn result(rule: &str, message: String, options: &Options, locations: Vec<Value>) -> Value {
    let index = RULES.iter().position(|(id, ..)| *id == rule).unwrap_or(0);
    // Every message quotes the repository (names, subjects, notes): escaped as a whole.
    let text = escape::sarif_text(&match &options.html_report {
        Some(report) => format!("{message} Full report: {report}"),
        None => message,
    });
    json!({
        "ruleId": rule,
        "ruleIndex": index,
        "level": RULES[index].1,
        "message": { "text": text },
        "locations": locations,
    })
}

fn log(results: Vec<Value>) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|(id, level, text)| {
            json!({
                "id": id,
                "shortDescription": { "text": text },
                "defaultConfiguration": { "level": level },
            })
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mergelens",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "originalUriBaseIds": { "%SRCROOT%": { "uri": "./" } },
            "results": results,
        }],
    })
}
