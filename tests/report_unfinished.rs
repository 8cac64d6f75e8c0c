//! The verdict `unfinished` in documents and every report (issue 37): a review document
//! that says it did not finish reads back as such and round-trips; its Markdown, HTML and
//! SARIF name it and list its reasons before anything else; a document written before the
//! verdict existed (a stopped review said `inconclusive`) still reads as it was written.

use crate::common::report_fixture as fixture;
use mergelens::document::Verdict;
use mergelens::report::{self, Document, Format, Options};
use serde_json::{Value, json};

const STOPPED: &str = "ours (main): learning stopped early (the time budget ran out); its automaton is the last conjecture, right up to 3 letters only";
const UNREACHED: &str = "theirs' change at prog.c:14 is never reached within --unwind 2";

/// The review fixture with no entries (so that no automaton contradicts the verdict), and
/// `changes` applied.
fn review(changes: Value) -> Value {
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("review.json")).unwrap()).unwrap();
    doc["entries"] = json!([]);
    for (key, value) in changes.as_object().unwrap() {
        doc[key] = value.clone();
    }
    doc
}

fn read(doc: &Value) -> Document {
    report::parse(&doc.to_string(), "in.json").unwrap()
}

fn render(doc: &Document, format: Format) -> String {
    report::render(doc, format, &Options::default()).unwrap()
}

#[test]
fn an_unfinished_review_says_so_in_every_report() {
    let doc = read(&review(json!({
        "verdict": "unfinished",
        "unfinished": [STOPPED, "merged (index), entry `main`: prog.c:3: failed to find symbol 'x'; this entry's review did not finish"],
        "inconclusive": [UNREACHED],
    })));
    let Document::Review(r) = &doc else {
        panic!("not a review")
    };
    assert_eq!(r.verdict, Verdict::Unfinished);
    assert_eq!(r.unfinished.len(), 2);
    assert_eq!(r.inconclusive, [UNREACHED]);
    // Round trip: the verdict and both lists are written back.
    let written = serde_json::to_value(&**r).unwrap();
    assert_eq!(written["verdict"], "unfinished");
    assert_eq!(written["unfinished"][0], STOPPED);
    assert_eq!(written["inconclusive"][0], UNREACHED);

    let md = render(&doc, Format::Markdown);
    assert!(md.contains("Unfinished review"), "{md}");
    let why = md
        .find("Why the review did not finish")
        .expect("the reasons");
    assert!(md.contains("the time budget ran out"), "{md}");
    assert!(md.contains("failed to find symbol"), "{md}");
    // No contradiction is claimed between the verdict and the (absent) automata.
    assert!(!md.contains("but its automata say"), "{md}");
    // Unfinished first, then what fell short.
    if let Some(short) = md.find("Why the check fell short") {
        assert!(why < short, "{md}");
    }

    let html = render(&doc, Format::Html);
    assert!(html.contains("banner summary unfinished"), "{html}");
    assert!(html.contains("Why the review did not finish (2)"), "{html}");

    let sarif: Value = serde_json::from_str(&render(&doc, Format::Sarif)).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let unfinished: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "mergelens/unfinished")
        .collect();
    assert_eq!(unfinished.len(), 2, "{sarif}");
    assert_eq!(unfinished[0]["level"], "warning", "{sarif}");
}

#[test]
fn a_document_from_before_the_verdict_reads_as_written() {
    // A stopped review used to say `inconclusive`, its stop among those reasons.
    let doc = read(&review(json!({
        "verdict": "inconclusive",
        "inconclusive": [STOPPED],
    })));
    let Document::Review(r) = &doc else {
        panic!("not a review")
    };
    assert_eq!(r.verdict, Verdict::Inconclusive);
    assert!(r.unfinished.is_empty());
    let md = render(&doc, Format::Markdown);
    assert!(md.contains("Inconclusive"), "{md}");
    assert!(!md.contains("Why the review did not finish"), "{md}");
}

#[test]
fn unfinished_ranks_below_the_findings_and_above_inconclusive() {
    use mergelens::document::Findings;
    let both = Findings {
        unfinished: true,
        inconclusive: true,
        ..Findings::default()
    };
    assert_eq!(Verdict::of(both), Verdict::Unfinished);
    for finding in [
        Findings {
            unexpected: true,
            ..both
        },
        Findings { lost: true, ..both },
        Findings {
            overlapping: true,
            ..both
        },
        Findings {
            conflict: true,
            ..both
        },
    ] {
        assert_ne!(Verdict::of(finding), Verdict::Unfinished, "{finding:?}");
    }
    assert_eq!(
        Verdict::of(Findings {
            inconclusive: true,
            ..Findings::default()
        }),
        Verdict::Inconclusive
    );
    assert_eq!(Verdict::Unfinished.name(), "unfinished");
}
