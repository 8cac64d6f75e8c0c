//! The review report of a real-sized merge read at a glance (issue 22): a review generated
//! here with the size of a cJSON merge (113 letters of 15 to 25 characters, 35 changed
//! hunks no execution reaches, 20 executions of 17 letters) must open with a summary of a
//! few lines, tell its stories as hunks grouped by shape, label every input value with the
//! line that read it, and never push the page sideways, in headless Chromium at a desktop
//! and a narrow width. Its Markdown is a snapshot.

use crate::common::chromium::chromium;
use mergelens::report::{self, Document, Format, Options};
use serde_json::{Value, json};

/// Letter names like cJSON's: 112 functions and `end`.
fn letters() -> Vec<String> {
    const STEMS: [&str; 8] = [
        "cJSON_ParseWithLengthOpts",
        "cJSON_AddItemToObjectCS",
        "parse_value",
        "buffer_skip_whitespace",
        "cJSON_CreateStringReference",
        "print_string_ptr",
        "ensure",
        "cJSON_InitHooks",
    ];
    (0..112)
        .map(|i| format!("{}_{i:03}", STEMS[i % STEMS.len()]))
        .chain(["end".to_string()])
        .collect()
}

/// An automaton over the whole alphabet that accepts `word`.
fn accepting(alphabet: &[String], word: &[&str]) -> Value {
    let transitions: Vec<Value> = word
        .iter()
        .enumerate()
        .map(|(q, l)| json!({"from": q, "letter": l, "to": q + 1}))
        .collect();
    json!({"format": "mergelens-dfa/1", "alphabet": alphabet, "states": word.len() + 1,
           "initial": 0, "accepting": [word.len()], "transitions": transitions})
}

/// One execution: a first letter that `variant` picks, 15 more and `end` in the base; ours
/// adds a call at 9, theirs replaces the one at 12 by `replacement`; the merge does both
/// (overlapping), or loses ours' call (unexpected). Executions that differ only in their
/// variant have the same shape: their first letter is left out of the hunk.
fn execution(alphabet: &[String], variant: usize, replacement: usize, unexpected: bool) -> Value {
    let base: Vec<String> = std::iter::once(alphabet[20 + variant].clone())
        .chain(alphabet[1..16].iter().cloned())
        .chain(["end".to_string()])
        .collect();
    let mut ours = base.clone();
    ours.insert(9, alphabet[100].clone());
    let mut theirs = base.clone();
    theirs[12] = alphabet[replacement].clone();
    let mut merged = ours.clone();
    merged[13] = alphabet[replacement].clone();
    let mut kind = "overlapping";
    let mut e = json!({});
    if unexpected {
        kind = "unexpected";
        e["expected"] = json!(merged.clone());
        merged.remove(9);
    }
    let site = |line: u32, call: &str, variable: Option<&str>| {
        let mut s = json!({"version": "merged", "file": "cJSON.c", "line": line,
                           "function": "parse_number", "call": call});
        if let Some(v) = variable {
            s["variable"] = json!(v);
        }
        s
    };
    e["input"] = json!({
        "tape": [2147483648u64, 0, variant, 7, 1, 255, 65, 3, 12],
        "tape_sites": (0..9).map(|k| site(118 + 7 * k, "nondet_uint", (k % 3 != 2).then_some(["length", "item->valueint", "buffer->offset"][k as usize % 3]))).collect::<Vec<_>>(),
        "reads": [{"source": "buf in main", "values": [null],
                   "sites": [{"version": "merged", "file": "tests/harness.c", "line": 12, "function": "main"}],
                   "types": ["char [8]"], "bytes": [[123, 34, 97, 34, 58, 12, 0]]}],
    });
    e["base"] = json!(base);
    e["ours"] = json!(ours);
    e["theirs"] = json!(theirs);
    e["merged"] = json!(merged);
    e["kind"] = json!(kind);
    e
}

/// A review document of the size of a real cJSON merge.
fn real_sized_review() -> Value {
    let alphabet = letters();
    let word: Vec<&str> = alphabet[..16]
        .iter()
        .map(String::as_str)
        .chain(["end"])
        .collect();
    let automaton = accepting(&alphabet, &word);
    // 20 executions of 6 shapes: 17 overlapping (shapes of 8, 5, 3 and 1), 3 unexpected
    // (2 and 1). A shape is the differing region: the starts differ, the region does not.
    let mut executions = Vec::new();
    for (count, replacement, unexpected) in [
        (8, 70, false),
        (5, 71, false),
        (3, 72, false),
        (1, 73, false),
        (2, 74, true),
        (1, 75, true),
    ] {
        for variant in 0..count {
            executions.push(execution(&alphabet, variant, replacement, unexpected));
        }
    }
    let hunks: Vec<Value> = (0..38)
        .map(|k| {
            json!({"file": "cJSON.c", "side": if k % 2 == 0 { "ours" } else { "theirs" },
                   "start_line": 100 + 40 * k, "end_line": 104 + 40 * k, "reached": k >= 35})
        })
        .collect();
    let unreached: Vec<String> = (0..35)
        .map(|k| {
            format!(
                "{} change at cJSON.c:{}-{} is never reached within --unwind 2",
                if k % 2 == 0 { "ours'" } else { "theirs'" },
                100 + 40 * k,
                104 + 40 * k
            )
        })
        .collect();
    let mut inconclusive = unreached.clone();
    inconclusive.push(
        "main: the per-execution check stopped at its cap of 64 executions both branches changed"
            .to_string(),
    );
    let functions: Vec<Value> = alphabet[..112]
        .iter()
        .enumerate()
        .flat_map(|(i, name)| {
            ["base", "ours", "theirs", "merged"].map(
                |v| json!({"name": name, "version": v, "file": "cJSON.c", "line": 100 + 20 * i}),
            )
        })
        .collect();
    // The front end's warnings, as a review of cJSON has them: counted, then each.
    let notes: Vec<String> = std::iter::once(
        "main: 24 front-end warnings (calls through function pointers: 18, goto: 6), each below"
            .to_string(),
    )
    .chain((0..24).map(|k| {
        if k % 4 == 3 {
            format!("all versions (main): cJSON.c:{}: goto in `parse_value`: events follow the jump to its label", 300 + k)
        } else {
            format!("all versions (main): cJSON.c:{}: call through the function pointer `hooks.allocate` in `cJSON_New_Item`: its events are not known before CBMC runs", 200 + k)
        }
    }))
    .collect();
    json!({
        "format": "mergelens-review/1",
        "kind": "review",
        "revisions": {"base": "9c41d2e07a5b", "ours": "a17f3b0c2d9e", "theirs": "5e2d8c4b7a1f",
                      "merged": "d08e6f1a3b5c"},
        "verdict": "unexpected",
        "bounds": {"unwind": 2, "max_word_length": 20, "notes": notes},
        "inconclusive": inconclusive,
        "repository": "DaveGamble/cJSON",
        "entries": [{
            "entry": "main",
            "alphabet": alphabet,
            "automata": {"base": automaton, "ours": automaton, "theirs": automaton,
                         "merged": automaton, "expected": automaton},
            "functions": functions,
            "coverage": {"hunks": hunks, "counts": {"hunks": 38, "reached": 3, "unreached": 35}},
            "executions": executions,
            "execution_check": {"quadruples": 20, "explained": 0, "unexpected": 3,
                                "overlapping": 17, "complete": true},
        }],
    })
}

fn document() -> Document {
    report::parse(&real_sized_review().to_string(), "real-sized.json").unwrap()
}

/// Measures the page in Chromium at `width` pixels with every `<details>` open: the page's
/// scroll and client width, the summary's height, its text's line height, and how many
/// cells of the stories' hunks do not start where the cells of their column in the other
/// rows start (with how many cells there are, which must be some).
fn measured(html: &str, width: u32) -> (f64, f64, f64, f64, f64, f64) {
    let measure = r#"<script>
(function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var root = document.documentElement;
  var box = document.querySelector(".banner.summary");
  var line = parseFloat(getComputedStyle(box.querySelector(".detail")).lineHeight);
  var hunks = document.querySelectorAll(".story .hunk"), misaligned = 0, cells = 0;
  hunks.forEach(function (h) {
    var rows = Array.prototype.map.call(h.querySelectorAll("tr"), function (r) {
      return Array.prototype.map.call(r.querySelectorAll("td"), function (c) {
        return Math.round(c.getBoundingClientRect().left);
      });
    });
    rows.forEach(function (r) {
      cells += r.length;
      r.forEach(function (left, k) { if (left !== rows[0][k]) misaligned++; });
      if (r.length !== rows[0].length) misaligned++;
    });
  });
  document.body.setAttribute("data-measured",
    [root.scrollWidth, root.clientWidth, box.getBoundingClientRect().height, line,
     misaligned, cells].join(" "));
})();
</script>"#;
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("real-sized.html");
    std::fs::write(&page, html.replace("</body>", &format!("{measure}</body>"))).unwrap();
    let out = chromium(
        &page,
        &[
            "--dump-dom".to_string(),
            format!("--window-size={width},900"),
            "--hide-scrollbars".to_string(),
        ],
    );
    let dom = String::from_utf8(out.stdout).unwrap();
    assert!(!dom.contains("data-errors=\""), "{dom}");
    let at = dom
        .find("data-measured=\"")
        .expect("the measuring script ran")
        + 15;
    let values: Vec<f64> = dom[at..at + dom[at..].find('"').unwrap()]
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    (
        values[0], values[1], values[2], values[3], values[4], values[5],
    )
}

#[test]
fn a_real_sized_review_fits_the_page_and_opens_with_a_short_summary() {
    let html = report::render(&document(), Format::Html, &Options::default()).unwrap();
    // Kept under target/ for a person to look at.
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("report-real-sized.html"), &html).unwrap();
    for width in [1280, 1024, 800] {
        let (scroll, client, height, line, misaligned, cells) = measured(&html, width);
        assert!(cells > 0.0, "no cell of a story's hunk at {width} px");
        assert_eq!(
            misaligned, 0.0,
            "at {width} px {misaligned} cells of the hunks are out of their column"
        );
        assert!(
            scroll <= client,
            "at {width} px the page is {scroll} px wide in a {client} px window"
        );
        let lines = height / line;
        assert!(
            lines < 5.0,
            "at {width} px the summary is {height} px tall: {lines:.1} lines of {line} px"
        );
    }
}

#[test]
fn a_real_sized_review_groups_its_stories_and_labels_its_inputs() {
    let html = report::render(&document(), Format::Html, &Options::default()).unwrap();
    let summary = &html[html.find("class=\"banner summary").unwrap()..];
    let summary = &summary[..summary.find("</section>").unwrap()];
    // Counts, not 35 sentences; and a link to the table that has them.
    assert!(!summary.contains("is never reached"), "{summary}");
    assert!(
        summary.contains("href=\"#coverage\" title=\"35 never reached"),
        "{summary}"
    );
    assert!(
        summary.contains("<strong>3 of 38</strong> <span>changed hunks reached</span>"),
        "{summary}"
    );
    assert!(
        summary
            .contains("<strong>20</strong> executions: 3 unexpected, 17 overlapping, 0 composed"),
        "{summary}"
    );
    assert!(
        summary.contains("The worst (2 executions): the merge leaves out"),
        "{summary}"
    );
    assert_eq!(html.matches("<tr class=\"unreached\">").count(), 35);
    // Six shapes: the unexpected ones first, five open, the sixth collapsed.
    let counts: Vec<&str> = html
        .split("<span class=\"story-count\">")
        .skip(1)
        .map(|s| &s[..s.find(' ').unwrap()])
        .collect();
    assert_eq!(counts, ["2", "8", "5", "3"], "{html}");
    assert_eq!(html.matches("<section class=\"finding story").count(), 6);
    assert!(html.contains("<summary>1 more shapes of execution (1 executions)</summary>"));
    // Hunks, not whole words: two letters of context, the rest left out.
    assert!(
        html.contains("title=\"7 calls every version makes here\""),
        "{html}"
    );
    // Inputs by the line that read them.
    assert!(html.contains("<code>length = nondet_uint()</code> <span class=\"place\">cJSON.c:118 (parse_number)</span> = <span class=\"value\">2147483648</span>"), "{html}");
    assert!(!html.contains("nondet values ["), "raw tape values shown");
    // A buffer as the characters it holds.
    assert!(
        html.contains("<code>buf in main</code> <span class=\"place\">tests/harness.c:12 (main)</span> = <span class=\"value\">&#34;{\\&#34;a\\&#34;:\\f\\0&#34;</span>"),
        "{html}"
    );
    // The front end's 25 notes are behind one line.
    assert!(
        html.contains("<details class=\"notes\">\n<summary>25 notes on what was checked</summary>"),
        "{html}"
    );
}

#[test]
fn real_sized_review_markdown() {
    let md = report::render(&document(), Format::Markdown, &Options::default()).unwrap();
    insta::assert_snapshot!(md);
}
