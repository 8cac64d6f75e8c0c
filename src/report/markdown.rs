//! The Markdown rendering, for a pull-request comment or `$GITHUB_STEP_SUMMARY`: the verdict
//! first, example words as code blocks, automata as compact transition lists, and a pointer
//! to the HTML report.
//!
//! Whatever the input, the result stays under a byte limit. It is written as blocks (the
//! header, one per entry, the bounds); when the whole does not fit, the bulky parts
//! (transition lists, source diffs) go first, then whole entries from the end, and a note
//! says what was left out. No block is cut in the middle of a code fence or `<details>`.

use std::fmt::Write;

use super::escape;
use super::options::Options;
use super::view::{
    AuditPage, AutomatonPage, Banner, Count, CoverageTable, EntryView, Figure, Finding, InputView,
    Page, ReviewPage, RevisionView, SHOWN_STORIES, SeriesPage, StoryGroup, WordView,
};
use crate::automaton::Dfa;

/// The most transitions listed per automaton.
const MAX_LISTED_EDGES: usize = 60;
/// The most entries in the summary table.
const MAX_SUMMARY_ROWS: usize = 30;
/// Longer words and names are cut (with `…`) so that one silly input cannot fill a comment.
const MAX_LINE: usize = 400;
/// Room kept for the note that says what was left out.
const NOTE_ROOM: usize = 400;

/// How much of each entry to write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Detail {
    Full,
    /// Without transition lists and source diffs.
    Compact,
}

/// The series as a changelog: one section per step, newest last.
pub(crate) fn series_page(page: &SeriesPage, options: &Options, limit: usize) -> String {
    let tail = tail(options, &with_remote(&page.tool, page.remote.as_deref()));
    let head = format!("# {}\n\n{}\n\n", text(&page.title), banner(&page.banner));
    let blocks: Vec<String> = page
        .steps
        .iter()
        .map(|s| {
            let mut block = format!(
                "## {} → {}: {}\n\n",
                code(&s.from),
                code(&s.to),
                text(s.headline)
            );
            for line in &s.lines {
                let _ = writeln!(block, "- {}", code(line));
            }
            for note in &s.notes {
                let _ = writeln!(block, "- {}", text(&shorten(note)));
            }
            block.push('\n');
            block
        })
        .collect();
    fits(&head, &blocks, &tail, limit).unwrap_or_else(|| squeeze(&head, &blocks, &tail, limit))
}

/// The audit as a table, one row per merge; rows past the limit are left out, saying so.
pub(crate) fn audit_page(page: &AuditPage, options: &Options, limit: usize) -> String {
    let tail = tail(options, &with_remote(&page.tool, page.remote.as_deref()));
    let head = format!("# {}\n\n{}\n\n", text(&page.title), banner(&page.banner));
    let mut blocks = vec![
        "| merge | subject | verdict | unexpected | lost | overlapping | seconds |\n|---|---|---|---:|---:|---:|---:|\n"
            .to_string(),
    ];
    for r in &page.rows {
        let subject = cell(&text(&cut_chars(&r.subject, 120)));
        blocks.push(format!(
            "| {} | {subject} | **{}** | {} | {} | {} | {} |\n",
            cell(&code(&r.short)),
            text(r.verdict),
            r.unexpected,
            r.lost,
            r.overlapping,
            text(&r.seconds)
        ));
    }
    fits(&head, &blocks, &tail, limit).unwrap_or_else(|| squeeze(&head, &blocks, &tail, limit))
}

/// A diff's page.
pub(crate) fn page(page: &Page, options: &Options, limit: usize) -> String {
    let head = format!("{}{}", banner(&page.banner), header(page));
    laid_out(page, head, options, limit)
}

/// A review's page: the summary first, the unreached changes and the reasons the check
/// fell short collapsed under it, then what a diff's page has.
pub(crate) fn review_page(review: &ReviewPage, options: &Options, limit: usize) -> String {
    let page = &review.page;
    let mut summary = page.banner.clone();
    // The HTML counts the changed hunks reached in its link to the coverage table.
    let coverage = &review.coverage;
    if coverage.with_code > 0 {
        summary.counts.push(Count {
            value: format!("{} of {}", coverage.reached(), coverage.with_code),
            label: "changed hunks reached".to_string(),
        });
    }
    let mut head = banner(&summary);
    head.push_str(&coverage_block(&review.coverage));
    head.push_str(&unfinished_block(&review.unfinished));
    if !review.reasons.is_empty() {
        let _ = writeln!(
            head,
            "<details><summary>Why the check fell short ({})</summary>\n",
            review.reasons.len()
        );
        for r in review.reasons.iter().take(MAX_SUMMARY_ROWS) {
            let _ = writeln!(head, "- {}", text(&shorten(r)));
        }
        if review.reasons.len() > MAX_SUMMARY_ROWS {
            let _ = writeln!(
                head,
                "- … and {} more",
                review.reasons.len() - MAX_SUMMARY_ROWS
            );
        }
        head.push_str("\n</details>\n\n");
    }
    head.push_str(&header(page));
    laid_out(page, head, options, limit)
}

/// Why the review did not finish, open (a reader must see it before trusting "no
/// finding"); nothing when it finished.
fn unfinished_block(reasons: &[String]) -> String {
    let mut out = String::new();
    if reasons.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "**Why the review did not finish** ({}):
",
        reasons.len()
    );
    for r in reasons.iter().take(MAX_SUMMARY_ROWS) {
        let _ = writeln!(out, "- {}", text(&shorten(r)));
    }
    if reasons.len() > MAX_SUMMARY_ROWS {
        let _ = writeln!(out, "- … and {} more", reasons.len() - MAX_SUMMARY_ROWS);
    }
    out.push('\n');
    out
}

/// The changed hunks no execution reaches, as a collapsed table (at most
/// [`MAX_SUMMARY_ROWS`] rows); nothing when every hunk is reached.
fn coverage_block(coverage: &CoverageTable) -> String {
    let unreached: Vec<_> = coverage
        .rows
        .iter()
        .filter(|r| r.status == "unreached" || r.status == "unchecked")
        .collect();
    if unreached.is_empty() {
        return String::new();
    }
    let title = match (coverage.unreached, coverage.unchecked) {
        (n, 0) => format!("{n} of {} changed hunks never reached", coverage.with_code),
        (0, u) => format!("{u} of {} changed hunks unchecked", coverage.with_code),
        (n, u) => format!(
            "{n} of {} changed hunks never reached, {u} unchecked",
            coverage.with_code
        ),
    };
    let mut out = format!(
        "<details><summary>{title}</summary>\n\n| change | where | why not, or which bound reaches it |\n|---|---|---|\n"
    );
    for r in unreached.iter().take(MAX_SUMMARY_ROWS) {
        let note = if r.status == "unchecked" {
            format!("unchecked: {}", r.note)
        } else {
            r.note.clone()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&text(&r.change)),
            cell(&code(&r.place)),
            cell(&text(&note))
        );
    }
    if unreached.len() > MAX_SUMMARY_ROWS {
        let _ = writeln!(
            out,
            "\n_… and {} more; the HTML report lists them all._",
            unreached.len() - MAX_SUMMARY_ROWS
        );
    }
    out.push_str("\n</details>\n\n");
    out
}

/// `head`, the entries and the bounds, made to fit `limit`: without transition lists and
/// source diffs if need be, then without whole entries from the end.
fn laid_out(page: &Page, head: String, options: &Options, limit: usize) -> String {
    let tail = tail(options, &with_remote(&page.tool, page.remote.as_deref()));
    let full = entry_blocks(page, Detail::Full);
    if let Some(text) = fits(&head, &full, &tail, limit) {
        return text;
    }
    let compact = entry_blocks(page, Detail::Compact);
    let note = "_Transition lists and source diffs are left out to fit a comment; the HTML \
                report has them._\n\n";
    let tail = format!("{note}{tail}");
    if let Some(text) = fits(&head, &compact, &tail, limit) {
        return text;
    }
    squeeze(&head, &compact, &tail, limit)
}

pub(crate) fn automaton_page(page: &AutomatonPage, options: &Options, limit: usize) -> String {
    let tail = tail(options, &page.tool);
    let mut head = banner(&page.banner);
    let _ = writeln!(head, "**{}**\n", text(&shorten(&page.title)));
    if !page.facts.is_empty() {
        head.push_str("| | |\n|---|---|\n");
        for f in &page.facts {
            let _ = writeln!(head, "| {} | {} |", cell(&f.label), cell(&code(&f.value)));
        }
        head.push('\n');
    }
    let mut body = String::new();
    if let Some(c) = &page.concise {
        let _ = writeln!(
            body,
            "**{}** {} ({}). {}\n",
            text(&c.meaning),
            text(&c.size),
            text(&c.how),
            text(&c.rule)
        );
    }
    let _ = writeln!(body, "### {}\n", text(&page.shortest_title));
    if page.shortest.is_empty() {
        body.push_str("None: the automaton accepts no word.\n\n");
    } else {
        body.push_str(&words_block(&page.shortest));
    }
    if !page.dominating.is_empty() {
        let letters: Vec<String> = page.dominating.iter().map(|d| code(d)).collect();
        let every = if page.explain {
            "every failing execution"
        } else {
            "every accepted word"
        };
        let _ = writeln!(
            body,
            "**Dominating letters** (in {every}): {}\n",
            letters.join(", ")
        );
    }
    if page.explain && !page.doomed.is_empty() {
        let _ = writeln!(
            body,
            "**Doomed states** (from here every continuation fails): {}\n",
            page.doomed.join(", ")
        );
    }
    if !page.traces.is_empty() {
        body.push_str("**Stored traces**\n\n");
        for t in &page.traces {
            let _ = writeln!(body, "- {} → {}", code(&calls(&t.word)), code(&t.path));
        }
        body.push('\n');
    }
    let mut lists = String::new();
    if let Some(c) = &page.concise {
        lists.push_str("<details><summary>Concise automaton: transition list</summary>\n\n");
        lists.push_str(&fence(&transition_list(&c.figure.caption, &c.figure.dfa)));
        lists.push_str("</details>\n\n");
    }
    lists.push_str("<details><summary>Transition list</summary>\n\n");
    lists.push_str(&fence(&transition_list(
        &page.figure.caption,
        &page.figure.dfa,
    )));
    lists.push_str("</details>\n\n");
    let mut bounds_block = String::new();
    if let Some(b) = &page.bounds {
        let _ = writeln!(
            bounds_block,
            "**Bounds**: loops unwound b = {}, words up to n = {} letters. {}\n",
            b.unwind,
            b.max_word_length,
            text(&b.guarantee)
        );
    }
    let blocks = [body, lists, bounds_block];
    fits(&head, &blocks, &tail, limit).unwrap_or_else(|| squeeze(&head, &blocks, &tail, limit))
}

/// The text when everything fits.
fn fits(head: &str, blocks: &[String], tail: &str, limit: usize) -> Option<String> {
    let size = head.len() + blocks.iter().map(String::len).sum::<usize>() + tail.len();
    (size <= limit).then(|| {
        let mut out = head.to_string();
        blocks.iter().for_each(|b| out.push_str(b));
        out.push_str(tail);
        out
    })
}

/// As many whole blocks as fit, then a note of what was left out.
fn squeeze(head: &str, blocks: &[String], tail: &str, limit: usize) -> String {
    let budget = limit.saturating_sub(tail.len() + NOTE_ROOM);
    let mut out = cut(head, budget);
    let mut shown = 0;
    for block in blocks {
        if out.len() + block.len() > budget {
            break;
        }
        out.push_str(block);
        shown += 1;
    }
    if shown < blocks.len() {
        let _ = writeln!(
            out,
            "> **Truncated:** {} of {} sections did not fit in a comment. The HTML report has \
             everything.\n",
            blocks.len() - shown,
            blocks.len()
        );
    }
    out.push_str(tail);
    cut(&out, limit)
}

/// `text` cut at a line boundary to at most `max` bytes, with open code fences and
/// `<details>` closed, so that what follows still renders.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    const CLOSING: usize = 64;
    let mut out = String::new();
    let mut fence: Option<String> = None;
    let mut details = 0usize;
    for line in text.split_inclusive('\n') {
        let closing = fence.as_ref().map_or(0, |f| f.len() + 1) + details * 11;
        if out.len() + line.len() + closing + CLOSING > max {
            break;
        }
        out.push_str(line);
        let trimmed = line.trim_end();
        match &fence {
            Some(f) if trimmed == f => fence = None,
            Some(_) => {}
            None if trimmed.starts_with("```") => {
                fence = Some(trimmed.chars().take_while(|&c| c == '`').collect());
            }
            None => {
                details += trimmed.matches("<details>").count();
                details = details.saturating_sub(trimmed.matches("</details>").count());
            }
        }
    }
    if let Some(f) = fence {
        let _ = writeln!(out, "{f}");
    }
    for _ in 0..details {
        out.push_str("</details>\n");
    }
    out.push_str("\n…\n");
    out
}

/// The tool's line, and what the remote engine did when there was one.
fn with_remote(tool: &str, remote: Option<&str>) -> String {
    match remote {
        Some(counts) => format!("{tool} · remote engine: {counts}"),
        None => tool.to_string(),
    }
}

fn tail(options: &Options, tool: &str) -> String {
    let mut out = String::from("---\n");
    if let Some(report) = &options.html_report {
        if report.starts_with("https://") || report.starts_with("http://") {
            // A `<` or `>` would end the link and start a tag; a control would end the line.
            let target: String = report
                .chars()
                .map(|c| match c {
                    '<' | '>' | '\\' => format!("%{:02X}", c as u32),
                    c if escape::is_hazard(c) => {
                        let mut b = [0; 4];
                        c.encode_utf8(&mut b)
                            .bytes()
                            .map(|x| format!("%{x:02X}"))
                            .collect()
                    }
                    c => c.to_string(),
                })
                .collect();
            let _ = writeln!(out, "Full report: [HTML](<{target}>)");
        } else {
            let _ = writeln!(out, "Full report: {}", code(report));
        }
    }
    let _ = writeln!(out, "<sub>{}</sub>", text(tool));
    out
}

fn banner(b: &Banner) -> String {
    let mut out = format!(
        "## {} {}\n\n{}\n\n",
        b.icon(),
        text(&b.headline),
        text(&b.detail)
    );
    let counts: Vec<String> = b
        .counts
        .iter()
        .map(|c| format!("**{}** {}", text(&c.value), text(&c.label)))
        .collect();
    if !counts.is_empty() {
        let _ = writeln!(out, "{}\n", counts.join(" · "));
    }
    out
}

fn revisions(rows: &[RevisionView]) -> String {
    let mut out = String::from("| | commit | name | summary |\n|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&r.role),
            cell(&code(&r.short)),
            cell(&text(&shorten(&r.label))),
            cell(&text(&shorten(&r.summary)))
        );
    }
    out.push('\n');
    out
}

/// What follows the banner: the title, the revisions, warnings, conflicts and the table of
/// entries.
fn header(page: &Page) -> String {
    let mut out = String::new();
    let mut what = format!("**{}**", text(&page.title));
    if let Some(repository) = &page.repository {
        let _ = write!(what, " in {}", code(repository));
    }
    let _ = writeln!(out, "{what}\n");
    out.push_str(&revisions(&page.revisions));
    for w in &page.warnings {
        let _ = writeln!(out, "> **Warning:** {}\n", text(w));
    }
    if !page.conflicts.is_empty() {
        out.push_str("**Conflicts:** ");
        let files: Vec<String> = page
            .conflicts
            .iter()
            .take(MAX_SUMMARY_ROWS)
            .map(|c| code(c))
            .collect();
        out.push_str(&files.join(", "));
        if page.conflicts.len() > MAX_SUMMARY_ROWS {
            let _ = write!(out, " and {} more", page.conflicts.len() - MAX_SUMMARY_ROWS);
        }
        out.push_str("\n\n");
    }
    if page.entries.len() > 1 {
        let titles: Vec<&str> = page.entries[0]
            .findings
            .iter()
            .map(|f| f.title.as_str())
            .collect();
        let _ = writeln!(out, "| entry | {} |", titles.join(" | "));
        let _ = writeln!(out, "|---|{}", "---:|".repeat(titles.len()));
        for entry in page.entries.iter().take(MAX_SUMMARY_ROWS) {
            let counts: Vec<String> = entry.findings.iter().map(|f| cell(&f.count)).collect();
            let _ = writeln!(
                out,
                "| {} | {} |",
                cell(&code(&entry.name)),
                counts.join(" | ")
            );
        }
        if page.entries.len() > MAX_SUMMARY_ROWS {
            let _ = writeln!(
                out,
                "\n_… and {} more entries._",
                page.entries.len() - MAX_SUMMARY_ROWS
            );
        }
        out.push('\n');
    }
    out
}

fn entry_blocks(page: &Page, detail: Detail) -> Vec<String> {
    let mut blocks: Vec<String> = page.entries.iter().map(|e| entry(e, detail)).collect();
    let b = &page.bounds;
    let mut bounds = format!(
        "**Bounds**: loops unwound b = {}, words up to n = {} letters. {}\n\n",
        b.unwind,
        b.max_word_length,
        text(&b.guarantee)
    );
    if b.collapsed_notes() {
        let _ = writeln!(
            bounds,
            "<details><summary>{} notes on what was checked</summary>\n",
            b.notes.len()
        );
    }
    for note in &b.notes {
        let _ = writeln!(bounds, "- {}", text(note));
    }
    if b.collapsed_notes() {
        bounds.push_str("\n</details>\n");
    }
    blocks.push(bounds);
    blocks
}

fn entry(e: &EntryView, detail: Detail) -> String {
    let mut out = format!("### Entry {}\n\n", code(&e.name));
    if let Some(own) = e.own_entry {
        let _ = writeln!(out, "{}\n", text(own));
    }
    if let Some(summary) = &e.execution_summary {
        let _ = writeln!(out, "{}\n", text(summary));
    }
    if !e.stories.is_empty() {
        out.push_str(
            "Each execution is shown where the versions' words differ, with two calls of \
             context (… stands for calls every version makes), the same call of every \
             version in one column; `^` marks where the merge differs from the expected \
             word (or the base's for an overlap), under a blank where it lacks a call.\n\n",
        );
    }
    for (k, s) in e.stories.iter().enumerate() {
        if k == SHOWN_STORIES {
            let _ = writeln!(
                out,
                "<details><summary>{} more shapes of execution ({} executions)</summary>\n",
                e.more_stories().len(),
                e.more_executions()
            );
        }
        out.push_str(&story(s));
    }
    if e.stories.len() > SHOWN_STORIES {
        out.push_str("</details>\n\n");
    }
    for f in &e.findings {
        out.push_str(&finding(f));
    }
    out.push_str("<details><summary>How the versions compare</summary>\n\n");
    for f in &e.comparisons {
        out.push_str(&finding(f));
    }
    out.push_str("</details>\n\n");
    if detail == Detail::Full {
        out.push_str("<details><summary>Automata as transition lists</summary>\n\n");
        let figures = e
            .findings
            .iter()
            .map(|f| &f.figure)
            .chain(e.versions.iter());
        let lists: Vec<String> = figures.map(figure_list).collect();
        out.push_str(&fence(&lists.join("\n")));
        out.push_str("</details>\n\n");
    }
    if !e.changes.is_empty() {
        let names: Vec<String> = e
            .changes
            .iter()
            .map(|c| {
                format!(
                    "{} ({}, {} → {})",
                    code(&c.function),
                    text(&c.file),
                    c.from,
                    c.to
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "**Changed functions in the differences:** {}\n",
            names.join(", ")
        );
        if detail == Detail::Full {
            out.push_str("<details><summary>Source changes</summary>\n\n");
            for c in &e.changes {
                out.push_str(&fence_as("diff", &c.unified()));
            }
            out.push_str("</details>\n\n");
        }
    }
    out
}

/// One shape of execution: its kind and count, what it is about, the first one's input,
/// the hunk.
fn story(s: &StoryGroup) -> String {
    let count = if s.count > 1 {
        format!(" ({} executions of this shape; the first's input)", s.count)
    } else {
        String::new()
    };
    // Values whose reads are known are each named by the line that read them; a document
    // without sites reads as before.
    let input = if s.inputs.iter().any(|i| !i.place.is_empty()) {
        let values: Vec<String> = s.inputs.iter().map(input).collect();
        values.join("; ")
    } else {
        text(&shorten(&s.input_text))
    };
    let mut out = format!(
        "**{} execution**{count}: {}; on {input}:\n\n",
        text(s.kind),
        text(&s.change)
    );
    out.push_str(&fence(&s.text));
    out
}

/// `len = nondet_uint()` at cJSON.c:118 (parse\_number) = **7**
fn input(i: &InputView) -> String {
    let place = if i.place.is_empty() {
        String::new()
    } else {
        format!(" at {}", text(&i.place))
    };
    format!("{}{place} = **{}**", code(&i.read), text(&i.value))
}

fn finding(f: &Finding) -> String {
    let mut out = format!(
        "**{}** {} — {}\n{}\n\n",
        text(&f.title),
        code(&f.formula),
        text(&f.count),
        text(&f.meaning)
    );
    if !f.empty {
        out.push_str(&words_block(&f.examples));
    }
    out
}

fn words_block(words: &[WordView]) -> String {
    let lines: Vec<String> = words.iter().map(calls).collect();
    fence(&lines.join("\n"))
}

fn calls(word: &WordView) -> String {
    shorten(&word.calls())
}

fn figure_list(f: &Figure) -> String {
    transition_list(&f.caption, &f.dfa)
}

/// An automaton as text: one line per pair of states, letters grouped.
fn transition_list(caption: &str, dfa: &Dfa) -> String {
    let accepting: Vec<String> = dfa.accepting_states().map(|q| q.to_string()).collect();
    let mut out = format!(
        "{}: {} states, start {}, accepting {{{}}}\n",
        shorten(caption),
        dfa.num_states(),
        dfa.initial(),
        accepting.join(", ")
    );
    let mut grouped: std::collections::BTreeMap<(u32, u32), Vec<&str>> = Default::default();
    for (from, a, to) in dfa.transitions() {
        grouped
            .entry((from, to))
            .or_default()
            .push(dfa.alphabet().name(a));
    }
    for ((from, to), letters) in grouped.iter().take(MAX_LISTED_EDGES) {
        let _ = writeln!(out, "  {from} --{}--> {to}", shorten(&letters.join(", ")));
    }
    if grouped.len() > MAX_LISTED_EDGES {
        let _ = writeln!(out, "  … {} more edges", grouped.len() - MAX_LISTED_EDGES);
    }
    out
}

/// At most `max` characters of `s`, with `…` when it was longer.
fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

fn shorten(s: &str) -> String {
    if s.len() <= MAX_LINE {
        return s.to_string();
    }
    let mut end = MAX_LINE;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// A fenced code block whose fence is longer than any run of backticks inside.
fn fence(content: &str) -> String {
    escape::markdown_fence("text", content)
}

fn fence_as(language: &str, content: &str) -> String {
    escape::markdown_fence(language, content)
}

/// An inline code span that holds any text, cut to [`MAX_LINE`].
fn code(s: &str) -> String {
    escape::markdown_code(&shorten(s))
}

/// Repository text (commit subjects, names, notes, tools' messages) as inert Markdown:
/// [`escape::markdown`].
fn text(s: &str) -> String {
    escape::markdown(s)
}

/// A table cell: a `|` would end it, even inside a code span.
fn cell(s: &str) -> String {
    escape::markdown_cell(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_fences_hold_backticks() {
        assert_eq!(code("f"), "`f`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
        let block = fence("x ``` y");
        assert!(block.starts_with("````text\n"), "{block}");
        assert!(block.ends_with("````\n\n"));
    }

    #[test]
    fn text_is_inert() {
        assert_eq!(
            text("<b>*x*</b> @alice"),
            "&lt;b&gt;\\*x\\*&lt;/b&gt; @\u{2060}alice"
        );
        assert_eq!(cell(&text("a|b")), "a\\|b");
        assert_eq!(cell(&code("a|b")), "`a\\|b`");
    }

    #[test]
    fn a_report_link_cannot_open_a_tag() {
        let options = Options {
            html_report: Some("https://x/<img src=x onerror=alert(1)>\n# x".to_string()),
        };
        let tail = tail(&options, "t");
        assert!(
            tail.contains("[HTML](<https://x/%3Cimg src=x onerror=alert(1)%3E%0A# x>)"),
            "{tail}"
        );
    }

    #[test]
    fn cutting_closes_fences_and_details() {
        let text = format!(
            "<details><summary>x</summary>\n\n```text\n{}```\n</details>\n",
            "line\n".repeat(1000)
        );
        let out = cut(&text, 500);
        assert!(out.len() <= 500, "{}", out.len());
        assert_eq!(out.matches("```").count(), 2, "{out}");
        assert!(out.contains("</details>"));
    }
}
