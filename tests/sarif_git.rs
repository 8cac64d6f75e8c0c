//! SARIF 2.1.0 (issue 21) from `review`, `diff` and `audit` on a real repository with the
//! real CBMC, validated against the OASIS schema (scripts/validate-sarif.py, in the
//! environment scripts/install-sarif-check.sh makes; `make test` runs it).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fig12, text};
use serde_json::Value;

fn python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/sarif-check/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/install-sarif-check.sh (make test does)",
        python.display()
    );
    python
}

/// Whether the schema accepts `log`, and what the validator said.
fn validate(log: &Value) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("log.sarif");
    std::fs::write(&file, serde_json::to_string(log).unwrap()).unwrap();
    let out = Command::new(python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/validate-sarif.py"))
        .arg(&file)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sarif(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

#[test]
fn reviews_diffs_and_audits_write_sarif_the_schema_accepts() {
    let repo = fig12();
    let out = repo.mergelens(&["review", "main", "feature", "--format", "sarif"]);
    let review = sarif(&out);
    let (valid, said) = validate(&review);
    assert!(valid, "{said}\n{review:#}");
    let results = review["runs"][0]["results"].as_array().unwrap();
    // Fig. 12: one overlapping execution, at the function the branches both changed.
    let overlapping: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "mergelens/overlapping")
        .collect();
    assert_eq!(overlapping.len(), 1, "{review:#}");
    let message = overlapping[0]["message"]["text"].as_str().unwrap();
    assert!(message.contains("funcA funcZ funcC end"), "{message}");
    assert!(message.contains("last-review.html"), "{message}");
    let location = &overlapping[0]["locations"][0]["physicalLocation"];
    assert!(
        location["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with(".c"),
        "{location}"
    );
    assert!(location["region"]["startLine"].as_u64().unwrap() > 0);

    // A diff and an audit of the same history.
    repo.git(&["tag", "before"]);
    let merged = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    assert!(merged.status.success(), "{}", text(&merged));
    for args in [
        vec!["diff", "before", "HEAD", "--format", "sarif"],
        vec!["audit", "before..HEAD", "--format", "sarif"],
    ] {
        let out = repo.mergelens(&args);
        let log = sarif(&out);
        let (valid, said) = validate(&log);
        assert!(valid, "{args:?}: {said}\n{log:#}");
        assert!(
            !log["runs"][0]["results"].as_array().unwrap().is_empty(),
            "{args:?}: {log:#}"
        );
    }

    // The validator is no rubber stamp.
    let mut broken = review.clone();
    broken.as_object_mut().unwrap().remove("version");
    assert!(!validate(&broken).0);
    broken = review;
    broken["runs"][0]["results"][0]["level"] = "fatal".into();
    assert!(!validate(&broken).0);
}

/// Theirs removes lines above ours' change; the committed merge has ours' change two lines
/// higher. SARIF regions are in the reviewed commit's lines, and the log names the commit.
#[test]
fn regions_are_in_the_merge_commits_lines_and_the_log_names_it() {
    let program = |doc: &str, body: &str| {
        format!(
            "void a(void) {{}}\nvoid b(void) {{}}\n{doc}\nvoid helper(void)\n{{\n    {body}\n}}\n\nint main(void)\n{{\n    a();\n\n\n\n    return 0;\n}}\n"
        )
    };
    let doc = "/* one */\n/* two */\n/* three */";
    let repo = common::three_way(
        &program(doc, "b();"),
        // Ours also calls `b` last in main, so that main's merge is neither branch's code.
        &program(doc, "b(); b(); /* ours */")
            .replace("    return 0;\n}\n", "    b();\n    return 0;\n}\n"),
        // Theirs also calls `a` twice, so that the merge is neither branch's program.
        &program("/* three */", "b();").replace("    a();\n", "    a();\n    a();\n"),
    );
    repo.git(&["merge", "-q", "--no-ff", "-m", "merge feature", "feature"]);
    let merge = repo.head();
    // `helper`'s change stays unreached from main (its own entry would judge it).
    let out = repo.mergelens(&[
        "review",
        "--commit",
        "HEAD",
        "--format",
        "sarif",
        "--changed-functions",
        "none",
    ]);
    let log = sarif(&out);
    let (valid, said) = validate(&log);
    assert!(valid, "{said}\n{log}");
    let run = &log["runs"][0];
    assert_eq!(
        run["versionControlProvenance"][0]["revisionId"], merge,
        "{run}"
    );
    let merged = std::fs::read_to_string(repo.path().join("prog.c")).unwrap();
    let located = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64())
        .collect::<Vec<_>>();
    assert!(!located.is_empty(), "{run}");
    let ours_line = merged
        .lines()
        .position(|l| l.contains("/* ours */"))
        .unwrap() as u64
        + 1;
    assert!(
        located.contains(&ours_line),
        "{located:?} vs line {ours_line}: {run}"
    );
}
