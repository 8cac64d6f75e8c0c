//! The reports: HTML loaded in a real headless Chromium (installed by
//! `scripts/install-chromium.sh`, which `make test` runs), snapshots of the Markdown and of
//! the HTML's outline, the Markdown size limit on huge inputs, escaping, and refusals.

use std::path::Path;
use std::process::Command;

use crate::common::chromium::{chromium, console_messages, dom_in_chromium, dom_of_page};
use crate::common::{report_document as document, report_fixture as fixture};
use mergelens::report::{self, Document, Format, MARKDOWN_LIMIT, Options, ReportError};
use serde_json::{Value, json};

fn html(name: &str) -> String {
    report::render(&document(name), Format::Html, &Options::default()).unwrap()
}

fn markdown(name: &str) -> String {
    let options = Options {
        html_report: Some("target/report.html".to_string()),
    };
    report::render(&document(name), Format::Markdown, &options).unwrap()
}

fn parse(value: &Value) -> Result<Document, ReportError> {
    report::parse(&value.to_string(), "in.json")
}

fn fixture_json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture(name)).unwrap()).unwrap()
}

/// The `<figure class="automaton" ...>...</figure>` elements of a page, in order.
fn figures(dom: &str) -> Vec<&str> {
    // The class attribute may go on (`automaton wide`).
    dom.split("<figure class=\"automaton")
        .skip(1)
        .map(|rest| &rest[..rest.find("</figure>").unwrap()])
        .collect()
}

#[test]
fn the_review_page_runs_in_headless_chromium() {
    // Kept under target/ with the screenshot, for a person to look at.
    let dom = dom_of_page(&html("review.json"), "report-review.html", &[]);
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let page = target.join("report-review.html");

    // Unexpected, lost, the three comparisons, and the five versions (O, A, B, M, E).
    let figures = figures(&dom);
    assert_eq!(figures.len(), 10, "{dom}");
    for figure in &figures {
        let svg = &figure[figure.find("<svg").expect("an SVG in every figure")..];
        assert!(
            svg.contains("data-state=\"0\""),
            "an empty drawing: {figure}"
        );
        assert!(
            svg.contains("class=\"edge"),
            "a drawing without edges: {figure}"
        );
    }
    assert!(
        dom.contains("data-zoomable=\"10\""),
        "pan and zoom missing on a drawing"
    );
    // The red runs of the example words: funcA funcZ funcC end in M, funcA funcC end in B.
    let merged = figures
        .iter()
        .find(|f| f.contains("id=\"e0-merged\""))
        .unwrap();
    assert_eq!(
        merged.matches("class=\"edge highlighted\"").count()
            + merged
                .matches("class=\"edge dominating highlighted\"")
                .count(),
        4
    );

    let screenshot = target.join("report-screenshot.png");
    let _ = std::fs::remove_file(&screenshot);
    let shot = chromium(
        &page,
        &[
            format!("--screenshot={}", screenshot.display()),
            "--window-size=1400,2000".to_string(),
            "--hide-scrollbars".to_string(),
        ],
    );
    let stderr = String::from_utf8_lossy(&shot.stderr);
    assert!(shot.status.success(), "chromium failed: {stderr}");
    let png = std::fs::read(&screenshot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}

#[test]
fn the_diff_and_explain_pages_run_in_headless_chromium() {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    for (name, drawings) in [("diff", 5), ("explain", 1)] {
        let page = target.join(format!("report-{name}.html"));
        std::fs::write(&page, html(&format!("{name}.json"))).unwrap();
        let dumped = chromium(&page, &["--dump-dom".to_string()]);
        let dom = String::from_utf8(dumped.stdout).unwrap();
        let stderr = String::from_utf8_lossy(&dumped.stderr);
        assert!(dumped.status.success(), "chromium failed: {stderr}");
        assert!(
            dom.contains("data-ok=\"1\"") && !dom.contains("data-errors=\""),
            "{dom}"
        );
        assert_eq!(console_messages(&stderr), Vec::<&str>::new());
        let figures = figures(&dom);
        assert_eq!(figures.len(), drawings, "{name}");
        assert!(
            figures.iter().all(|f| f.contains("data-state=\"0\"")),
            "{name}"
        );
    }
}

/// The checks above would pass vacuously if Chromium hid errors: a broken copy of the page
/// must fail them.
#[test]
fn the_browser_checks_catch_a_broken_page() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("broken.html");
    let broken =
        html("explain.json").replace("</footer>", "</footer><script>no_such_function();</script>");
    std::fs::write(&page, broken).unwrap();
    let dumped = chromium(&page, &["--dump-dom".to_string()]);
    let dom = String::from_utf8(dumped.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&dumped.stderr);
    assert!(
        dom.contains("data-errors=\"Uncaught ReferenceError"),
        "{dom}"
    );
    assert!(!console_messages(&stderr).is_empty(), "{stderr}");
}

#[test]
fn html_is_one_file_without_network_requests() {
    for name in ["review.json", "diff.json", "explain.json"] {
        let page = html(name);
        assert!(page.starts_with("<!DOCTYPE html>"), "{name}");
        let without_xmlns = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        for forbidden in [
            "http://", "https://", "<link", " src=", "@import", "url(http",
        ] {
            assert!(
                !without_xmlns.contains(forbidden),
                "{name} contains {forbidden:?}"
            );
        }
        assert!(page.contains("Content-Security-Policy"));
        assert!(!page.contains("<?xml"), "{name}: an XML prolog inside HTML");
    }
}

#[test]
fn review_letters_link_to_definitions_in_their_version() {
    let page = html("review.json");
    // funcZ of the unexpected word is the merged version's; funcC of the lost word theirs'.
    let unexpected = &page[page.find("id=\"e0-unexpected\"").unwrap()..];
    let unexpected = &unexpected[..unexpected.find("</ul>").unwrap()];
    assert!(
        unexpected
            .contains("href=\"#e0-fn3-merged\" title=\"funcZ: defined at src/audit.c:4 (merged)\""),
        "{unexpected}"
    );
    let lost = &page[page.find("id=\"e0-lost\"").unwrap()..];
    let lost = &lost[..lost.find("</ul>").unwrap()];
    assert!(
        lost.contains("title=\"funcC: defined at src/cache.c:18 (theirs)\""),
        "{lost}"
    );
    // Every internal link has its target.
    for href in page.split("href=\"#").skip(1) {
        let id = &href[..href.find('"').unwrap()];
        assert!(
            page.contains(&format!("id=\"{id}\"")),
            "a link to #{id}, which is not in the page"
        );
    }
    // The source changes: computed (old/new) and given (diff) ones, the unrelated one apart.
    assert!(page.contains("<span class=\"add\">+    funcZ(r); /* audit every request */</span>"));
    assert!(page.contains("<span class=\"add\">+        funcC(r); /* fast path */</span>"));
    let other = &page[page.find("class=\"other-changes\"").unwrap()..];
    assert!(other.contains("log_init"));
    assert!(page.contains("<summary>Learning statistics</summary>"));
}

#[test]
fn program_text_is_escaped_everywhere() {
    let mut review = fixture_json("review.json");
    let evil = "<script>alert(\"x\")</script>'&";
    review["versions"]["merged"]["summary"] = json!(evil);
    review["versions"]["ours"]["label"] = json!(evil);
    review["repository"] = json!(evil);
    review["conflicts"] = json!([evil]);
    let entry = &mut review["entries"][0];
    entry["entry"] = json!(evil);
    entry["functions"][0]["file"] = json!(evil);
    entry["source_changes"][0]["file"] = json!(evil);
    entry["source_changes"][0]["new"] = json!(evil);
    let text = review
        .to_string()
        .replace("\"funcZ\"", "\"<img src=x onerror=alert(1)>\"");
    let document = report::parse(&text, "evil.json").unwrap();
    let page = report::render(&document, Format::Html, &Options::default()).unwrap();
    assert!(!page.contains("<script>alert"), "unescaped script");
    assert!(!page.contains("<img"), "unescaped letter");
    assert!(page.contains("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#39;&#38;"));
    assert!(
        page.contains("&lt;img src=x onerror=alert(1)&gt;")
            || page.contains("&#60;img src=x onerror=alert(1)&#62;")
    );
    // In Markdown, raw text may only appear inside code, where it is not markup.
    let md = report::render(&document, Format::Markdown, &Options::default()).unwrap();
    let mut outside_code = without_code(&md);
    for tag in [
        "<details>",
        "</details>",
        "<summary>",
        "</summary>",
        "<sub>",
        "</sub>",
    ] {
        outside_code = outside_code.replace(tag, "");
    }
    assert!(!outside_code.contains('<'), "{outside_code}");
}

/// Markdown without its code blocks and code spans.
fn without_code(md: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in md.lines() {
        let ticks: String = line.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(f) if line.trim_end() == f => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                out.push_str(&without_spans(line));
                out.push('\n');
            }
        }
    }
    out
}

/// A line without its code spans: a run of n backticks up to the next run of exactly n.
fn without_spans(line: &str) -> String {
    let runs = |s: &str| -> Vec<(usize, usize)> {
        let mut runs = Vec::new();
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'`' {
                let start = i;
                while i < bytes.len() && bytes[i] == b'`' {
                    i += 1;
                }
                runs.push((start, i - start));
            } else {
                i += 1;
            }
        }
        runs
    };
    let mut out = String::new();
    let mut rest = line;
    loop {
        let found = runs(rest);
        let Some(&(open, n)) = found.first() else {
            break;
        };
        let Some(&(close, _)) = found[1..].iter().find(|&&(_, m)| m == n) else {
            break;
        };
        out.push_str(&rest[..open]);
        rest = &rest[close + n..];
    }
    out.push_str(rest);
    out
}

#[test]
fn explain_page_marks_the_analyses_and_links_traces() {
    let page = html("explain.json");
    assert!(
        page.contains("class=\"state doomed\" data-state=\"2\""),
        "{page}"
    );
    assert!(page.contains("class=\"edge dominating\""));
    assert!(page.contains("<a class=\"trace\" href=\"traces/read-assert.json\">trace</a>"));
    assert!(page.contains("Shortest failing executions"));
    assert!(page.contains("src/config.c:57: lock_held(&#38;cfg_lock)"));
}

#[test]
fn unsafe_trace_links_are_shown_as_text() {
    let mut dfa = fixture_json("explain.json");
    dfa["traces"] =
        json!({"read assert": "javascript:alert(1)", "unlock assert": "https://example.org/t"});
    let page = report::render(&parse(&dfa).unwrap(), Format::Html, &Options::default()).unwrap();
    assert!(!page.contains("href=\"javascript:"));
    assert!(!page.contains("href=\"https:"));
    assert!(page.contains("<code>javascript:alert(1)</code>"));
}

#[test]
fn the_diff_page_shows_added_removed_and_symdiff() {
    let page = html("diff.json");
    for id in ["e0-added", "e0-removed", "e0-symdiff", "e0-old", "e0-new"] {
        assert!(page.contains(&format!("id=\"{id}\"")), "{id}");
    }
    // Nothing but `added` was given: the others are computed, and say so.
    assert!(page.contains("computed by the report"));
    assert!(page.contains("Behaviour changed"));
}

/// The page's outline: headings, sections and figures, without the drawings.
fn outline(page: &str) -> String {
    let mut out = String::new();
    let mut rest = page;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        let tag_end = rest.find('>').unwrap();
        let tag = &rest[..tag_end];
        let name = tag.split([' ', '>']).next().unwrap();
        let attr = |key: &str| {
            tag.find(&format!("{key}=\"")).map(|i| {
                let v = &tag[i + key.len() + 2..];
                v[..v.find('"').unwrap()].to_string()
            })
        };
        match name {
            "h1" | "h2" | "h3" | "summary" => {
                let close = format!("</{name}>");
                let inner = &rest[tag_end + 1..rest.find(&close).unwrap()];
                let mut text = String::new();
                let mut in_tag = false;
                for c in inner.chars() {
                    match c {
                        '<' => in_tag = true,
                        '>' => in_tag = false,
                        c if !in_tag => text.push(c),
                        _ => {}
                    }
                }
                out.push_str(&format!("{name}: {}\n", text.trim()));
            }
            "section" | "figure" | "details" => {
                out.push_str(&format!(
                    "{name} class={:?} id={:?}\n",
                    attr("class").unwrap_or_default(),
                    attr("id").unwrap_or_default()
                ));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn review_html_outline() {
    insta::assert_snapshot!(outline(&html("review.json")));
}

#[test]
fn explain_html_outline() {
    insta::assert_snapshot!(outline(&html("explain.json")));
}

#[test]
fn review_markdown() {
    insta::assert_snapshot!(markdown("review.json"));
}

#[test]
fn diff_markdown() {
    insta::assert_snapshot!(markdown("diff.json"));
}

#[test]
fn explain_markdown() {
    insta::assert_snapshot!(markdown("explain.json"));
}

/// A learned automaton with a concise one: both sizes, how it was found, both transition
/// lists.
#[test]
fn learn_concise_markdown() {
    insta::assert_snapshot!(markdown("learn_concise.json"));
}

/// A chain automaton with `states` states over `letters` long letter names, plus `end`.
fn chain(states: usize, letters: usize, tag: &str) -> Value {
    let names: Vec<String> = (0..letters)
        .map(|i| format!("{tag}_function_with_a_rather_long_name_{i:03}"))
        .chain(["end".to_string()])
        .collect();
    let mut transitions = Vec::new();
    for q in 0..states - 2 {
        for a in [q % letters, (q * 7 + 3) % letters] {
            transitions.push(json!({"from": q, "letter": names[a], "to": q + 1}));
        }
    }
    transitions.push(json!({"from": states - 2, "letter": "end", "to": states - 1}));
    let mut seen = std::collections::HashSet::new();
    transitions.retain(|t| seen.insert((t["from"].to_string(), t["letter"].to_string())));
    json!({"format": "mergelens-dfa/1", "alphabet": names, "states": states, "initial": 0,
           "accepting": [states - 1], "transitions": transitions})
}

fn huge_review(entries: usize, states: usize) -> Value {
    let mut review = fixture_json("review.json");
    let entry = |i: usize| {
        let d = |tag: &str| json!({"automaton": chain(states, 40, tag)});
        json!({
            "entry": format!("entry_point_{i}"),
            "automata": {"base": chain(states, 40, "o"), "ours": chain(states, 40, "a"),
                         "theirs": chain(states, 40, "b"), "merged": chain(states, 40, "m")},
            "unexpected": d("m"), "lost": d("e"), "merge_minus_ours": d("m"),
            "merge_minus_theirs": d("m"), "ours_vs_theirs": d("a"),
        })
    };
    review["entries"] = Value::Array((0..entries).map(entry).collect());
    review["bounds"]["max_word_length"] = json!(400);
    review
}

#[test]
fn markdown_fits_a_comment_whatever_the_input() {
    for (entries, states) in [(300, 12), (3, 300), (1, 3000)] {
        let review = huge_review(entries, states);
        let md = report::render(
            &parse(&review).unwrap(),
            Format::Markdown,
            &Options {
                html_report: Some("https://ci.example.org/report.html".to_string()),
            },
        )
        .unwrap();
        assert!(
            md.len() <= MARKDOWN_LIMIT,
            "{entries}×{states}: {} bytes",
            md.len()
        );
        assert!(md.starts_with("## "), "the verdict comes first");
        if entries > 100 {
            assert!(md.contains("Truncated"), "no note of what was cut:\n{md}");
        }
        assert!(md.contains("Full report: [HTML](<https://ci.example.org/report.html>)"));
        assert_eq!(md.matches("```").count() % 2, 0, "an unclosed code block");
    }
}

#[test]
fn automata_too_large_to_draw_become_word_lists() {
    let review = huge_review(1, 400);
    let page = report::render(&parse(&review).unwrap(), Format::Html, &Options::default()).unwrap();
    assert!(page.contains("too many to draw"));
    assert!(page.contains("<ol class=\"words\">"));
    assert!(!page.contains("<svg"));
}

#[test]
fn wrong_documents_are_refused_in_one_line() {
    let review = fixture_json("review.json");
    let mut broken = review.clone();
    broken["entries"][0]["automata"]["ours"]["transitions"][0]["to"] = json!(99);
    let mut bad_verdict = review.clone();
    bad_verdict["verdict"] = json!("fine");
    let cases = [
        ("{\"format\":".to_string(), "in.json: not valid JSON"),
        (json!({"a": 1}).to_string(), "no \"format\" key"),
        (
            json!({"format": "mergelens-review/2"}).to_string(),
            "format is \"mergelens-review/2\"; mergelens report reads mergelens-review/1",
        ),
        (json!({"format": 7}).to_string(), "format is \"7\""),
        (
            json!({"format": "mergelens-review/1"}).to_string(),
            "not a valid mergelens-review/1 document: missing field",
        ),
        (broken.to_string(), "transition target 99 is out of range"),
        (bad_verdict.to_string(), "unknown variant `fine`"),
        (
            json!({"format": "mergelens-dfa/1", "states": 0}).to_string(),
            "in.json: not valid JSON",
        ),
    ];
    for (text, expected) in cases {
        let error = report::parse(&text, "in.json").unwrap_err();
        // The error and its causes, as the binary prints them.
        let message = mergelens::failure::text(&error);
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
        assert!(message.starts_with("in.json: "), "{message}");
        assert!(!message.contains('\n'), "{message}");
        assert!(error.is_bad_input());
    }
}

#[test]
fn a_clean_merge_says_so_and_draws_no_empty_language() {
    let mut review = fixture_json("review.json");
    review["verdict"] = json!("clean");
    let entry = review["entries"][0].as_object_mut().unwrap();
    entry["automata"]["merged"] = entry["automata"]["expected"].clone();
    for key in [
        "unexpected",
        "lost",
        "merge_minus_ours",
        "merge_minus_theirs",
        "ours_vs_theirs",
    ] {
        entry.remove(key);
    }
    let document = parse(&review).unwrap();
    let page = report::render(&document, Format::Html, &Options::default()).unwrap();
    assert!(page.contains("<section class=\"banner summary clean\""));
    assert!(page.contains("Clean merge"));
    assert!(
        !page.contains("class=\"warning\""),
        "the verdict agrees with the automata"
    );
    assert!(
        !page.contains("id=\"e0-unexpected-fig\""),
        "an empty language drawn"
    );
    assert!(page.contains("class=\"finding unexpected none\""));
    let md = report::render(&document, Format::Markdown, &Options::default()).unwrap();
    assert!(md.starts_with("## ✅ Clean merge"), "{md}");
}

#[test]
fn a_conflict_without_a_merge_result_still_reports_the_branches() {
    let mut review = fixture_json("review.json");
    review["verdict"] = json!("conflict");
    review["conflicts"] = json!(["src/main.c"]);
    review["versions"].as_object_mut().unwrap().remove("merged");
    let entry = review["entries"][0].as_object_mut().unwrap();
    entry["automata"].as_object_mut().unwrap().remove("merged");
    for key in [
        "unexpected",
        "lost",
        "merge_minus_ours",
        "merge_minus_theirs",
    ] {
        entry.remove(key);
    }
    let document = parse(&review).unwrap();
    let page = report::render(&document, Format::Html, &Options::default()).unwrap();
    assert!(page.contains("Merge conflict") && page.contains("<code>src/main.c</code>"));
    assert!(page.contains("id=\"e0-ours-vs-theirs\""));
    assert!(!page.contains("id=\"e0-merged\""));
    assert_eq!(
        figures(&page).len(),
        5,
        "ours against theirs, and O, A, B, E"
    );
    let md = report::render(&document, Format::Markdown, &Options::default()).unwrap();
    assert!(md.starts_with("## ⛔ Merge conflict"), "{md}");
}

#[test]
fn documents_round_trip_through_the_serde_model() {
    for name in ["review.json", "diff.json"] {
        let first = document(name);
        let text = match &first {
            Document::Review(r) => serde_json::to_string(r).unwrap(),
            Document::Diff(d) => serde_json::to_string(d).unwrap(),
            Document::Automaton(_) | Document::Audit(_) | Document::Series(_) => {
                unreachable!("a fixture of another format")
            }
        };
        assert_eq!(report::parse(&text, name).unwrap(), first, "{name}");
    }
}

#[test]
fn unknown_keys_are_ignored() {
    let mut review = fixture_json("review.json");
    review["future"] = json!({"anything": [1, 2]});
    review["entries"][0]["future"] = json!(true);
    review["versions"]["base"]["future"] = json!("x");
    assert!(parse(&review).is_ok());
}

#[test]
fn the_command_writes_html_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let mergelens = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_mergelens"))
            .args(args)
            .output()
            .unwrap()
    };
    let input = fixture("review.json");
    for (format, name) in [("html", "r.html"), ("md", "r.md")] {
        let output = dir.path().join(name);
        let out = mergelens(&[
            "report",
            input.to_str().unwrap(),
            "--format",
            format,
            "-o",
            output.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let text = std::fs::read_to_string(&output).unwrap();
        assert!(text.contains("Unexpected behaviour"), "{name}");
    }
    let missing = dir.path().join("missing.json");
    let out = mergelens(&["report", missing.to_str().unwrap()]);
    // Bad input: exit code 2 and one line saying what is wrong.
    let message = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{message}");
    assert!(message.contains("cannot read"), "{message}");
}

#[test]
fn the_audit_page_runs_in_headless_chromium_and_links_each_report() {
    use mergelens::document::Verdict;
    use mergelens::document::audit::{AUDIT_FORMAT, AuditDocument, AuditedMerge};
    let row = |commit: &str, verdict, unexpected| AuditedMerge {
        commit: commit.repeat(40),
        subject: format!("merge <{commit}>"),
        verdict,
        unexpected,
        lost: 0,
        overlapping: 0,
        cbmc_runs: 3,
        seconds: 1.5,
        report: Some(format!("audit/{}.html", commit.repeat(40))),
        notes: Vec::new(),
    };
    let doc = AuditDocument {
        format: AUDIT_FORMAT.to_string(),
        range: "v1..v2".to_string(),
        merges: vec![
            row("a", Some(Verdict::Clean), 0),
            row("b", Some(Verdict::Unexpected), 2),
            AuditedMerge::unreviewed("c".repeat(40), "octopus".into(), "an octopus".into()),
        ],
        tool: None,
        partial: false,
        remote: None,
    };
    let text = serde_json::to_string(&doc).unwrap();
    let document = report::parse(&text, "audit.json").unwrap();
    let dom = dom_in_chromium(&document, "report-audit.html");
    assert!(dom.contains("2 of 3 merges of v1..v2 need a look"), "{dom}");
    assert!(
        dom.contains(&format!("href=\"audit/{}.html\"", "b".repeat(40))),
        "{dom}"
    );
    assert!(
        dom.contains("merge &lt;b&gt;"),
        "the subject is escaped: {dom}"
    );
    assert!(dom.contains("not reviewed"), "{dom}");
    let md = report::render(&document, Format::Markdown, &Options::default()).unwrap();
    assert!(
        md.contains("| `bbbbbbbbbb` | merge &lt;b&gt; | **unexpected** | 2 |"),
        "{md}"
    );
}

#[test]
fn the_series_page_runs_in_headless_chromium_as_a_timeline() {
    use mergelens::document::series::{SERIES_FORMAT, SeriesDocument, SeriesStep};
    let Document::Diff(diff) = document("diff.json") else {
        panic!("diff.json is a diff")
    };
    let step = |from: &str, to: &str, changed| SeriesStep {
        inconclusive: false,
        from: from.to_string(),
        to: to.to_string(),
        changed,
        report: Some(format!("series/{from}..{to}.html")),
        diff: (*diff).clone(),
    };
    let series = SeriesDocument {
        format: SERIES_FORMAT.to_string(),
        revisions: vec!["v1.0".into(), "v1.1".into(), "v1.2".into()],
        steps: vec![step("v1.0", "v1.1", true), step("v1.1", "v1.2", true)],
        tool: None,
        remote: None,
    };
    let document = report::parse(&serde_json::to_string(&series).unwrap(), "s.json").unwrap();
    let dom = dom_in_chromium(&document, "report-series.html");
    assert_eq!(
        dom.matches("<li class=\"step changed\">").count(),
        2,
        "{dom}"
    );
    assert!(dom.contains("href=\"series/v1.1..v1.2.html\""), "{dom}");
    assert!(dom.contains("2 of 2 steps changed behaviour"), "{dom}");
    let sarif = report::render(&document, Format::Sarif, &Options::default()).unwrap();
    assert!(sarif.contains("v1.0 → v1.1: "), "{sarif}");
}

/// An inconclusive review whose per-execution check explained the word-level differences
/// it lists: the headline never says "no difference" above them, in HTML and Markdown.
#[test]
fn an_inconclusive_headline_agrees_with_the_differences_listed() {
    let mut review = fixture_json("review.json");
    review["verdict"] = json!("inconclusive");
    review["inconclusive"] = json!(["a version's automaton is exact only up to length 6"]);
    review["entries"][0]["execution_check"] = json!({
        "quadruples": 4, "explained": 4, "unexpected": 0, "overlapping": 0,
        "complete": true
    });
    let document = parse(&review).unwrap();
    for format in [Format::Html, Format::Markdown] {
        let page = report::render(&document, format, &Options::default()).unwrap();
        assert!(!page.contains("No difference up to"), "{page}");
        assert!(page.contains("No unexpected execution up to"), "{page}");
    }
    // Without word-level differences, "no difference" is what the page shows.
    let entry = review["entries"][0].as_object_mut().unwrap();
    entry["automata"]["merged"] = entry["automata"]["expected"].clone();
    for key in [
        "unexpected",
        "lost",
        "merge_minus_ours",
        "merge_minus_theirs",
        "ours_vs_theirs",
    ] {
        entry.remove(key);
    }
    let document = parse(&review).unwrap();
    let page = report::render(&document, Format::Markdown, &Options::default()).unwrap();
    assert!(page.contains("No difference up to"), "{page}");
}
