//! `mergelens demo` (what `make demo` runs): the merge of Fig. 12 of Chockler, Kesseli,
//! Kroening and Strichman, *Learning the Language of Software Errors* (JAIR 2020, Sec. 5),
//! made in a throwaway git repository and reviewed.
//!
//! The base's `main` calls `funcA()` then `funcB()`. On `main`, branch A moves the call of
//! `funcB()` into a new `funcZ()`; on `feature`, branch B replaces it with `if (guard)
//! funcB(); else funcC();`. git merges the two without a conflict, and B's choice lands
//! inside A's `funcZ()`. Word by word, the merge can run `funcA funcZ funcC end`, which
//! neither branch has (unexpected), and no longer runs B's `funcA funcC end` (lost). Per
//! execution, the verdict is `overlapping`: on the input where the guard is false, both
//! branches changed what follows `funcA` differently (A: `funcZ funcB`, B: `funcC`), so
//! there is no composition of the two to expect; the merge did `funcZ funcC`. The report (HTML,
//! JSON and Markdown) is written to `--out` (default `target/demo/`), which outlives the
//! repository.

mod fig12;

use std::path::{Path, PathBuf};

use anyhow::Context;
use git2::{Repository, Signature};

use super::Outcome;
use super::review::{DocFormat, render};
use fig12::{BASE, OURS, PROGRAM, THEIRS};
use mergelens::config::Settings;
use mergelens::document::Difference;
use mergelens::git::GitRepo;
use mergelens::report::Document;
use mergelens::review::{self, LearnContext};

/// The options of `mergelens demo`.
#[derive(Clone, Debug)]
pub struct DemoArgs {
    /// Where the reports go.
    pub out: PathBuf,
    pub cbmc: Option<PathBuf>,
    /// Keep the throwaway repository (its path is printed).
    pub keep: bool,
}

/// Builds the demo repository in `dir`: the base, `main` (ours) checked out, `feature`
/// (theirs) beside it.
pub fn build_repository(dir: &Path) -> anyhow::Result<()> {
    let mut options = git2::RepositoryInitOptions::new();
    options.initial_head("main");
    let repo = Repository::init_opts(dir, &options).context("cannot create the demo repository")?;
    let sig = Signature::now("mergelens demo", "demo@mergelens.invalid")?;
    let commit = |content: &str,
                  message: &str,
                  update: &str,
                  parents: &[&git2::Commit<'_>]|
     -> anyhow::Result<git2::Oid> {
        let path = dir.join(PROGRAM);
        std::fs::create_dir_all(path.parent().expect("a parent"))?;
        std::fs::write(&path, content)?;
        let mut index = repo.index()?;
        index.add_path(Path::new(PROGRAM))?;
        index.write()?;
        let tree = repo.find_tree(index.write_tree()?)?;
        Ok(repo.commit(Some(update), &sig, &sig, message, &tree, parents)?)
    };
    let base = commit(BASE, "Serve requests: funcA, then funcB", "HEAD", &[])?;
    let base = repo.find_commit(base)?;
    commit(
        THEIRS,
        "Serve some requests with funcC",
        "refs/heads/feature",
        &[&base],
    )?;
    commit(OURS, "Move serving into funcZ", "HEAD", &[&base])?;
    Ok(())
}

pub fn run(args: &DemoArgs) -> anyhow::Result<Outcome> {
    let dir = tempfile::Builder::new()
        .prefix("mergelens-demo-")
        .tempdir()
        .context("cannot create a temporary directory")?;
    build_repository(dir.path())?;
    outln!("The merge of Fig. 12 (Chockler et al., JAIR 2020, Sec. 5), in a throwaway repository:");
    outln!("  base:            main calls funcA(), then funcB()");
    outln!("  main (ours):     moves the call of funcB() into a new funcZ()");
    outln!("  feature (theirs): replaces it with: if (guard) funcB(); else funcC();");
    outln!("git merges them without a conflict; mergelens reviews the merge of feature into main.");
    let repo = GitRepo::discover(dir.path())?;
    let settings = Settings {
        cbmc: args.cbmc.clone(),
        ..Settings::default()
    };
    let versions = repo.merge_versions("main", "feature")?;
    let ctx = LearnContext::new(&settings, Some(&repo.mergelens_dir()))?;
    let mut report = review::review_merge(&repo, &versions, &settings, &ctx)?;
    // The repository is gone once the demo ends; name the scenario instead.
    report.document.repository = Some("mergelens demo: Fig. 12".to_string());
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let document = Document::Review(Box::new(report.document.clone()));
    let mut written = Vec::new();
    for (format, name) in [
        (DocFormat::Html, "review.html"),
        (DocFormat::Json, "review.json"),
        (DocFormat::Markdown, "review.md"),
    ] {
        let path = args.out.join(name);
        std::fs::write(&path, render(&document, format)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    outln!();
    outln!("verdict: {}", report.verdict().name());
    let words = |title: &str, d: &Option<Difference>| {
        outln!("{title}:");
        for w in d.iter().flat_map(|d| &d.examples) {
            outln!("    {}", w.join(" "));
        }
    };
    for entry in &report.document.entries {
        words(
            "word-level unexpected (words the merge has that neither branch's change explains, judged one by one)",
            &entry.unexpected,
        );
        words(
            "word-level lost (words a branch's change meant that the merge lacks)",
            &entry.lost,
        );
        let mut out = String::new();
        super::review::stories(&mut out, entry);
        out!("{out}");
    }
    let html = written[0]
        .canonicalize()
        .unwrap_or_else(|_| written[0].clone());
    outln!();
    outln!("report: {}", html.display());
    outln!(
        "        (also {} and {})",
        written[1].display(),
        written[2].display()
    );
    if args.keep {
        let kept = dir.keep();
        outln!("repository: {}", kept.display());
    }
    Ok(Outcome::Success)
}
