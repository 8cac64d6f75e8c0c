//! A git repository in a temporary directory for the end-to-end tests, driven by the `git`
//! command line with a cleared environment (no user or system configuration) and the real
//! CBMC.

#![allow(dead_code)] // Each test file uses a different part.

pub mod chromium;
/// The revisions `mergelens demo` commits, read from the demo's own file.
#[path = "../../src/commands/demo/fig12.rs"]
pub mod demo_fig12;
pub mod tokenizer;
pub mod work;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Repo {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
}

fn cbmc() -> PathBuf {
    mergelens::cbmc::Toolchain::locate(None)
        .expect("CBMC is installed (scripts/install-cbmc.sh)")
        .cbmc
}

/// A word of a document (a list of letter names), letters joined by spaces.
pub fn word(v: &serde_json::Value) -> String {
    v.as_array()
        .unwrap_or_else(|| panic!("not a word: {v}"))
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The example words of a language of a document, letters joined by spaces.
pub fn example_words(language: &serde_json::Value) -> Vec<String> {
    language["examples"]
        .as_array()
        .unwrap_or_else(|| panic!("a language with examples: {language}"))
        .iter()
        .map(word)
        .collect()
}

/// Standard output and standard error, for assertion messages.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

impl Repo {
    pub fn new() -> Repo {
        let repo = Repo {
            dir: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test"]);
        repo.git(&["config", "user.email", "test@example.org"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The HOME every command of this repository runs with.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Writes the user configuration file (`~/.config/mergelens/config.toml`); `None`
    /// removes it.
    pub fn user_config(&self, text: Option<&str>) {
        let path = self.home().join(".config/mergelens/config.toml");
        match text {
            Some(text) => {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            None => {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// `program` in the repository, with only PATH, a HOME of its own and the CBMC to use
    /// (HOME moves, so the private CBMC prefix would not be found), plus `env`.
    pub fn command(&self, program: &Path, env: &[(&str, &str)]) -> Command {
        let mut c = Command::new(program);
        c.current_dir(self.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("MERGELENS_CBMC", cbmc());
        for (k, v) in env {
            c.env(k, v);
        }
        c
    }

    pub fn run_git(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        self.command(Path::new("git"), env)
            .args(args)
            .output()
            .unwrap()
    }

    /// Runs git, which must succeed; its trimmed standard output.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.run_git(args, &[]);
        assert!(out.status.success(), "git {args:?}: {}", text(&out));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    pub fn write(&self, path: &str, text: &str) {
        let path = self.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Writes, adds and commits one file; the new commit's id.
    pub fn commit(&self, path: &str, text: &str, message: &str) -> String {
        self.write(path, text);
        self.git(&["add", path]);
        self.git(&["commit", "-q", "-m", message]);
        self.head()
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    pub fn mergelens(&self, args: &[&str]) -> Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_mergelens")), &[])
            .args(args)
            .output()
            .unwrap()
    }
}

impl Repo {
    /// A directory that is not a git repository (inside `parent`, so no repository above
    /// it is found either).
    pub fn not_a_repository(parent: &Path) -> Repo {
        Repo {
            dir: tempfile::tempdir_in(parent).unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// Whether HEAD is a merge commit.
    pub fn merged(&self) -> bool {
        self.run_git(&["rev-parse", "-q", "--verify", "HEAD^2"], &[])
            .status
            .success()
    }
}

/// The merge of the paper's Fig. 12, the demo's programs: `main` is ours, `feature` theirs.
/// Commits `base`, then `ours` on main and `theirs` on feature, as `prog.c`.
pub fn three_way(base: &str, ours: &str, theirs: &str) -> Repo {
    let repo = Repo::new();
    repo.commit("prog.c", base, "base");
    repo.git(&["branch", "feature"]);
    repo.commit("prog.c", ours, "ours");
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit("prog.c", theirs, "theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo
}

/// Ours calls `b` after a loop of x calls of `a`, theirs `c` before it: every x in
/// 1..=15 is an execution of its own that the per-execution check enumerates, about one
/// CBMC run a second at `--unwind 15 --max-word-length 20`.
pub fn many_executions() -> Repo {
    let base = "int nondet_int(void);\nvoid a(void) {}\nvoid b(void) {}\nvoid c(void) {}\n\nint main(void)\n{\n    int x = nondet_int();\n    if (x < 1 || x > 15)\n        return 0;\n    for (int i = 0; i < x; i++)\n        a();\n    return 0;\n}\n";
    let ours = base.replace("        a();\n", "        a();\n    b();\n");
    let theirs = base.replace("    for (int i", "    c();\n    for (int i");
    three_way(base, &ours, &theirs)
}

pub fn fig12() -> Repo {
    use demo_fig12::{BASE, OURS, PROGRAM, THEIRS};
    let repo = Repo::new();
    repo.commit(PROGRAM, BASE, "base");
    repo.git(&["branch", "feature"]);
    repo.commit(PROGRAM, OURS, "ours: funcZ");
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit(PROGRAM, THEIRS, "theirs: funcC");
    repo.git(&["checkout", "-q", "main"]);
    repo
}

/// The `main.c` of [`conflicting`], with `call` as the body of `main`.
pub fn conflict_program(call: &str) -> String {
    format!(
        "void f(void) {{}}\nvoid g(void) {{}}\nint main(void)\n{{\n    {call}\n    return 0;\n}}\n"
    )
}

/// Two branches that change the same line of `main.c` differently: git cannot merge them.
pub fn conflicting() -> Repo {
    let repo = Repo::new();
    let program = conflict_program;
    repo.commit("main.c", &program("f();"), "base");
    repo.git(&["branch", "feature"]);
    repo.commit("main.c", &program("f(); f();"), "ours");
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit("main.c", &program("g();"), "theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo
}

/// A file of `tests/fixtures/report/`.
pub fn report_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/report")
        .join(name)
}

/// The report document of `tests/fixtures/report/NAME`.
pub fn report_document(name: &str) -> mergelens::report::Document {
    mergelens::report::read(&report_fixture(name)).unwrap()
}
