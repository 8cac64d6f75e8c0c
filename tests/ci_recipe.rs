//! The CI recipes of `docs/ci.md` (issue 21), run as written: the commands between its
//! `ci-commands` markers, in a real repository whose HEAD is a pull-request merge commit,
//! with the real CBMC; the SARIF they write is checked against the schema, and the GitHub
//! and GitLab recipes must hold those commands line for line.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fig12, text};

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

/// The YAML block after `heading`.
fn recipe<'a>(doc: &'a str, heading: &str) -> &'a str {
    let from = &doc[doc.find(heading).expect(heading)..];
    let start = from.find("```yaml\n").expect("a YAML block") + 8;
    &from[start..start + from[start..].find("```").unwrap()]
}

/// Issue 37: an untrusted job cannot write what a trusted review reads. Pull and merge
/// requests restore the cache and never save it; only the protected branch saves; the
/// key is a secret given to the steps that run mergelens; the last report is not cached.
#[test]
fn only_the_protected_branch_saves_the_cache_and_the_key_is_a_secret() {
    let doc = ci_doc();
    let github = recipe(&doc, "## GitHub Actions");
    assert!(
        !github.contains("actions/cache@"),
        "a read-write cache step"
    );
    assert!(github.contains("uses: actions/cache/restore@"), "{github}");
    // Every save is a step of push runs, which the workflow runs for the protected branch.
    let saves: Vec<&str> = github
        .split("\n      - ")
        .filter(|s| s.contains("actions/cache/save@"))
        .collect();
    assert_eq!(saves.len(), 1, "{github}");
    assert!(
        saves[0].starts_with("if: github.event_name == 'push'"),
        "{}",
        saves[0]
    );
    assert!(github.contains("push:\n    branches: [main]"), "{github}");
    let review = github
        .split("\n      - ")
        .find(|s| s.contains("review --commit HEAD"))
        .unwrap();
    assert!(
        review.contains("if: github.event_name == 'pull_request'"),
        "{review}"
    );
    for step in github
        .split("\n      - ")
        .filter(|s| s.contains("mergelens review") || s.contains("mergelens diff"))
    {
        assert!(
            step.contains("MERGELENS_CACHE_KEY: ${{ secrets.MERGELENS_CACHE_KEY }}"),
            "{step}"
        );
    }

    let gitlab = recipe(&doc, "## GitLab CI");
    let jobs: Vec<&str> = gitlab.split("\n\n").collect();
    assert_eq!(jobs.len(), 2, "{gitlab}");
    let mr = jobs
        .iter()
        .find(|j| j.contains("merge_request_event"))
        .unwrap();
    assert!(mr.contains("policy: pull "), "{mr}");
    assert!(!mr.contains("pull-push"), "{mr}");
    let saver = jobs.iter().find(|j| j.contains("pull-push")).unwrap();
    assert!(
        saver.contains("$CI_COMMIT_REF_PROTECTED == \"true\""),
        "{saver}"
    );
    assert!(!saver.contains("merge_request_event"), "{saver}");

    // The caches, never the last report, and the same four directories everywhere.
    for dir in ["cache", "automata", "executions", "coverage"] {
        assert_eq!(
            github.matches(&format!(".git/mergelens/{dir}\n")).count(),
            2,
            "{dir}"
        );
        assert_eq!(
            gitlab.matches(&format!(".git/mergelens/{dir}/")).count(),
            2,
            "{dir}"
        );
    }
    assert!(!github.contains("path: .git/mergelens\n") && !gitlab.contains("[.git/mergelens/]"));
    assert!(
        doc.contains("*Protected*"),
        "GitLab's key variable is protected"
    );

    // The protected branch's learning step, the same in both, run as written: it succeeds
    // on a push that changes behaviour and leaves automata for the reviews to restore.
    let learn = "mergelens diff HEAD^ HEAD > /dev/null || [ $? -eq 1 ]";
    assert!(github.contains(&format!("run: {learn}\n")), "{github}");
    assert!(gitlab.contains(&format!("    - {learn}\n")), "{gitlab}");
    let repo = fig12();
    let bin = Path::new(env!("CARGO_BIN_EXE_mergelens")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let key = "a-secret-of-the-protected-branch-0123456789";
    let out = repo
        .command(
            Path::new("bash"),
            &[("PATH", &path), ("MERGELENS_CACHE_KEY", key)],
        )
        .args(["-c", learn])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let automata = repo.path().join(".git/mergelens/automata");
    assert_eq!(std::fs::read_dir(automata).unwrap().count(), 2);
}
