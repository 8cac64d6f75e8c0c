//! The benchmark corpus of `make bench` (`benches/programs/*/bench.toml`, read by
//! `scripts/bench.py`): every manifest parses with the fields the script reads, its bounds
//! and modes make sense, and every program compiles with `gcc -fsyntax-only` as written and
//! in both versions of its review's merge (each edit must match exactly once, as the script
//! requires). The generated program is written by its generator first. Nothing is timed.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    files: Vec<String>,
    entry: Option<String>,
    #[serde(default)]
    harness: Vec<String>,
    #[serde(default)]
    defines: Vec<String>,
    only: Option<Vec<String>>,
    modes: Vec<String>,
    assertion: String,
    callback: Option<String>,
    generate: Option<String>,
    bounds: Vec<(u32, usize)>,
    learn_bounds: Option<Vec<(u32, usize)>>,
    explain_bounds: Option<Vec<(u32, usize)>>,
    review: Option<Review>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Review {
    file: String,
    bounds: (u32, usize),
    ours: Variant,
    theirs: Variant,
}

/// A version of the review: text edits of the file, or the generator's `--variant`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Variant {
    Edits(Vec<(String, String)>),
    Generated(String),
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn manifests() -> Vec<(String, Manifest)> {
    let dir = root().join("benches/programs");
    let mut out: Vec<(String, Manifest)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("bench.toml").is_file())
        .map(|p| {
            let text = std::fs::read_to_string(p.join("bench.toml")).unwrap();
            let manifest: Manifest = toml::from_str(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", p.join("bench.toml").display()));
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                manifest,
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The program's folder copied to `dest`, the generated file written by its generator.
fn materialise(name: &str, m: &Manifest, dest: &Path, variant: &str) {
    for entry in std::fs::read_dir(root().join("benches/programs").join(name)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dest.join(path.file_name().unwrap())).unwrap();
    }
    if let Some(generator) = &m.generate {
        let status = Command::new("python3")
            .arg(root().join(generator))
            .arg(dest.join(&m.files[0]))
            .args(["--variant", variant])
            .status()
            .expect("python3 runs the generator");
        assert!(status.success(), "{name}: the generator failed");
    }
}

fn compiles(name: &str, m: &Manifest, dir: &Path) {
    let mut gcc = Command::new("gcc");
    gcc.current_dir(dir)
        .args(["-fsyntax-only", "-Werror=implicit-function-declaration"]);
    // CBMC's built-ins, which gcc does not know.
    gcc.args([
        "-D__CPROVER_assert(c,m)=((void)(c))",
        "-D__CPROVER_assume(c)=((void)(c))",
    ]);
    gcc.args(m.defines.iter().map(|d| format!("-D{d}")));
    gcc.args(&m.files).args(&m.harness);
    let out = gcc.output().expect("gcc runs");
    assert!(
        out.status.success(),
        "{name} in {}: gcc -fsyntax-only failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn apply(name: &str, path: &Path, edits: &[(String, String)]) {
    let mut text = std::fs::read_to_string(path).unwrap();
    for (old, new) in edits {
        assert_eq!(
            text.matches(old.as_str()).count(),
            1,
            "{name}: the review edit {old:?} must match exactly once"
        );
        text = text.replacen(old.as_str(), new, 1);
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn every_manifest_is_complete_and_its_bounds_make_sense() {
    let all = manifests();
    assert!(all.len() >= 6, "the corpus has its six kinds of program");
    for (name, m) in &all {
        assert!(!m.files.is_empty(), "{name}: no files");
        assert!(
            !m.assertion.is_empty(),
            "{name}: the assertion is described"
        );
        assert!(!m.modes.is_empty(), "{name}: no modes");
        for mode in &m.modes {
            assert!(mode == "learn" || mode == "explain", "{name}: mode {mode}");
            let bounds = match mode.as_str() {
                "learn" => m.learn_bounds.as_ref(),
                _ => m.explain_bounds.as_ref(),
            }
            .unwrap_or(&m.bounds);
            assert!(
                (1..=3).contains(&bounds.len()),
                "{name}: 1 to 3 bounds pairs"
            );
            for &(unwind, length) in bounds {
                assert!(
                    unwind >= 1 && length >= 2,
                    "{name}: bounds {unwind}, {length}"
                );
            }
        }
        let sources = m.files.iter().chain(&m.harness);
        if m.generate.is_none() {
            for file in sources {
                let path = root().join("benches/programs").join(name).join(file);
                assert!(path.is_file(), "{name}: {file} is missing");
            }
        }
        if let Some(callback) = &m.callback {
            assert!(
                m.only.as_ref().is_none_or(|o| o.contains(callback)),
                "{name}: the callback {callback} is a letter"
            );
        }
        assert!(
            m.entry.as_ref().is_none_or(|e| !e.is_empty()),
            "{name}: an empty entry"
        );
    }
}

#[test]
fn every_program_and_both_sides_of_its_merge_compile() {
    for (name, m) in manifests() {
        let base = tempfile::tempdir().unwrap();
        materialise(&name, &m, base.path(), "base");
        compiles(&name, &m, base.path());
        let Some(review) = &m.review else { continue };
        assert!(
            review.bounds.0 >= 1 && review.bounds.1 >= 2,
            "{name}: review bounds"
        );
        for variant in [&review.ours, &review.theirs] {
            let dir = tempfile::tempdir().unwrap();
            match variant {
                Variant::Edits(edits) => {
                    materialise(&name, &m, dir.path(), "base");
                    apply(&name, &dir.path().join(&review.file), edits);
                }
                Variant::Generated(spec) => {
                    let side = spec.split_whitespace().last().unwrap();
                    assert!(m.generate.is_some(), "{name}: {spec} needs a generator");
                    materialise(&name, &m, dir.path(), side);
                }
            }
            compiles(&name, &m, dir.path());
        }
    }
}
