//! The CI recipes of `docs/ci.md` (issue 21), run as written: the commands between its
//! `ci-commands` markers, in a real repository whose HEAD is a pull-request merge commit,
//! with the real CBMC; the SARIF they write is checked against the schema, and the GitHub
//! and GitLab recipes must hold those commands line for line.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fig12, text};

fn ci_doc() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci.md")).unwrap()
}

/// The shell lines of the block between the markers.
fn commands(doc: &str) -> Vec<String> {
    let begin = doc
        .find("<!-- ci-commands: begin -->")
        .expect("begin marker");
    let end = doc.find("<!-- ci-commands: end -->").expect("end marker");
    doc[begin..end]
        .lines()
        .filter(|l| !l.starts_with("<!--") && !l.starts_with("```"))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_ci_commands_review_a_pull_request_merge_and_write_every_output() {
    let doc = ci_doc();
    let lines = commands(&doc);
    assert!(
        lines.iter().any(|l| l.contains("review --commit HEAD")),
        "{lines:?}"
    );
    // A review that did not finish fails the job, whatever the owner's fail-on.
    assert!(
        lines
            .iter()
            .any(|l| l.contains("review --commit HEAD --also-fail-on unfinished")),
        "{lines:?}"
    );
    // The recipes are those commands, indented in YAML.
    for line in &lines {
        assert!(
            doc.matches(&format!("          {line}\n")).count() >= 1
                && doc.matches(&format!("      {line}\n")).count() >= 2,
            "a recipe differs from the commands at: {line}"
        );
    }
    // A pull request's merge, as the forge checks it out.
    let repo = fig12();
    repo.git(&["checkout", "-q", "--detach", "main"]);
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge pull request #7",
    ]);
    let summary = repo.path().join("step-summary.md");
    let bin: PathBuf = Path::new(env!("CARGO_BIN_EXE_mergelens"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |script: &str| {
        repo.command(Path::new("bash"), &[("PATH", &path)])
            .env("GITHUB_STEP_SUMMARY", &summary)
            .arg("-c")
            .arg(script)
            .output()
            .unwrap()
    };
    let script = lines.join("\n");
    let out = run(&script);
    // Fig. 12 overlaps, which the default fail-on lets through.
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let md = std::fs::read_to_string(repo.path().join("mergelens.md")).unwrap();
    assert!(
        md.contains("Overlapping") || md.contains("overlapping"),
        "{md}"
    );
    assert!(md.contains("mergelens-report.html"), "{md}");
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), md);
    let html = std::fs::read_to_string(repo.path().join("mergelens-report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    let sarif = repo.path().join("mergelens.sarif");
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/sarif-check/bin/python");
    let valid = Command::new(&python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/validate-sarif.py"))
        .arg(&sarif)
        .output()
        .expect("the SARIF validator (scripts/install-sarif-check.sh, make test runs it)");
    assert!(valid.status.success(), "{}", text(&valid));

    // The same commands again, as the next push of the pull request with the cache kept:
    // nothing is learned anew.
    let out = run(&script);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let review: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.json")).unwrap(),
    )
    .unwrap();
    for (version, stats) in review["entries"][0]["stats"].as_object().unwrap() {
        assert_eq!(stats["reused"], "cache", "{version}: {stats}");
    }

    // A finding that fails fail-on fails the job with the review's exit code.
    repo.git(&["checkout", "-q", "main"]);
    repo.commit(".mergelens.toml", "fail-on = \"overlapping\"\n", "stricter");
    repo.git(&["checkout", "-q", "--detach", "main"]);
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "feature",
        "-m",
        "Merge pull request #8",
    ]);
    let out = run(&script);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}
