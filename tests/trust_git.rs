//! The trust model (docs/trust.md) against the attacks of a branch under review, on real
//! repositories, through the installed hook and real merges, with the real CBMC: a branch
//! cannot name a program to run, cannot open the gate, cannot make mergelens read files
//! outside its checkout, and cannot exhaust memory with a small document.

use std::path::Path;
use std::time::Duration;

use crate::common::work::output_and_cpu;
use crate::common::{Repo, fig12, text};

const MERGE: [&str; 5] = ["merge", "--no-ff", "-m", "merge feature", "feature"];

#[cfg(unix)]
fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Every file mergelens left in `.git/mergelens/` (reports), as text.
fn reports(repo: &Repo) -> String {
    let mut all = String::new();
    for name in ["last-review.json", "last-review.html"] {
        if let Ok(t) = std::fs::read_to_string(repo.path().join(".git/mergelens").join(name)) {
            all.push_str(&t);
        }
    }
    all
}

#[test]
fn a_branch_cannot_name_the_program_mergelens_runs() {
    let repo = fig12();
    // Per execution Fig. 12 is an overlap, which the default fail-on lets through: the
    // owner blocks overlaps in the user's file (before the per-execution verdict the
    // default blocked Fig. 12).
    repo.user_config(Some("fail-on = \"overlapping\"\n"));
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("cbmc-ran");
    repo.git(&["checkout", "-q", "feature"]);
    repo.write(
        "tools/cbmc",
        &format!("#!/bin/sh\ntouch '{}'\necho 6.6.0\n", marker.display()),
    );
    make_executable(&repo.path().join("tools/cbmc"));
    repo.write(".mergelens.toml", "cbmc = \"tools/cbmc\"\n");
    repo.git(&["add", "tools/cbmc", ".mergelens.toml"]);
    repo.git(&["commit", "-q", "-m", "theirs: bring your own CBMC"]);
    repo.git(&["checkout", "-q", "main"]);
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let ours = repo.head();

    let out = repo.run_git(&MERGE, &[]);
    let said = text(&out);
    assert!(!marker.exists(), "the branch's program ran:\n{said}");
    // The owner's fail-on still blocks the overlapping merge, and the settings change is a
    // finding of its own, with the diff.
    assert!(!out.status.success(), "{said}");
    assert_eq!(repo.head(), ours);
    assert!(said.contains("funcA funcZ funcC end"), "{said}");
    assert!(
        said.contains("this merge changes the review settings"),
        "{said}"
    );
    assert!(said.contains("+cbmc = \"tools/cbmc\""), "{said}");
    assert!(
        reports(&repo).contains("this merge changes the review settings"),
        "not in the report"
    );
    repo.git(&["merge", "--abort"]);

    // Reviewed by hand, and on theirs' side of a diff: never run either.
    let out = repo.mergelens(&["review", "main", "feature"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(!marker.exists());

    // The owner committing such a file gets an error that names the key, the file, the
    // line, and where to set it instead.
    repo.commit(
        ".mergelens.toml",
        "# ours\ncbmc = \"tools/cbmc\"\n",
        "ours too",
    );
    let out = repo.mergelens(&["review", "main", "feature"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains(".mergelens.toml"), "{said}");
    assert!(said.contains(":2: `cbmc` names a program"), "{said}");
    assert!(said.contains("git config mergelens.cbmc"), "{said}");
    assert!(!marker.exists());
}

#[test]
fn a_branch_cannot_open_the_gate_and_a_malformed_owner_file_follows_on_error() {
    let repo = fig12();
    repo.user_config(Some("fail-on = \"overlapping\"\n"));
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit(
        ".mergelens.toml",
        "fail-on = \"never\"\non-error = \"allow\"\n",
        "theirs: open the gate",
    );
    repo.git(&["checkout", "-q", "main"]);
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let ours = repo.head();
    let out = repo.run_git(&MERGE, &[]);
    let said = text(&out);
    assert!(!out.status.success(), "the gate opened:\n{said}");
    assert_eq!(repo.head(), ours);
    assert!(said.contains("+fail-on = \"never\""), "{said}");
    assert!(said.contains("fail-on = \"overlapping\""), "{said}");
    repo.git(&["merge", "--abort"]);

    // A malformed committed file names itself and its line; the trusted on-error decides:
    // the default lets the merge through, loudly ...
    let repo = fig12();
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    repo.commit(
        ".mergelens.toml",
        "entries = [\"main\"]\nfail-on = \n",
        "bad",
    );
    let out = repo.run_git(&MERGE, &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("THIS MERGE WAS NOT REVIEWED"), "{said}");
    assert!(
        said.contains(".mergelens.toml (committed on main)"),
        "{said}"
    );
    assert!(said.contains("line 2"), "{said}");
    repo.git(&["reset", "-q", "--hard", "HEAD^"]);
    // ... and the user's on-error = "block" blocks it.
    repo.user_config(Some("on-error = \"block\"\n"));
    let out = repo.run_git(&MERGE, &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert!(said.contains("line 2"), "{said}");
    assert!(said.contains("MERGELENS=0 git commit"), "{said}");
}

#[test]
fn a_symlink_chain_out_of_the_checkout_is_not_read() {
    let repo = fig12();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.c");
    std::fs::write(
        &secret,
        "void SECRET_TOKEN_4242(void) {}\nint main(void) { SECRET_TOKEN_4242(); return 0; }\n",
    )
    .unwrap();
    repo.git(&["checkout", "-q", "feature"]);
    let dirs = "d1/d2/d3/d4/d5/d6";
    std::fs::create_dir_all(repo.path().join(dirs)).unwrap();
    std::os::unix::fs::symlink("../../../../../..", repo.path().join(dirs).join("up")).unwrap();
    // From the checkout's root, enough `..` to reach `/`, then the secret's absolute path.
    let target = format!(
        "{dirs}/up/{}{}",
        "../".repeat(24),
        secret.to_str().unwrap().trim_start_matches('/')
    );
    std::os::unix::fs::symlink(&target, repo.path().join("x.c")).unwrap();
    repo.git(&["add", "d1", "x.c"]);
    repo.git(&["commit", "-q", "-m", "theirs: a chain of links"]);
    repo.git(&["checkout", "-q", "main"]);
    assert!(repo.mergelens(&["hook", "install"]).status.success());

    let out = repo.run_git(&MERGE, &[]);
    let said = text(&out);
    assert!(!said.contains("SECRET_TOKEN"), "{said}");
    let all = reports(&repo);
    assert!(!all.is_empty(), "no report: {said}");
    assert!(
        !all.contains("SECRET_TOKEN"),
        "the secret reached the report"
    );
    assert!(
        all.contains("x.c (a symbolic link out of the tree"),
        "the link is not in the notes"
    );
    let out = repo.mergelens(&["review", "main", "feature", "--format", "md"]);
    assert!(!text(&out).contains("SECRET_TOKEN"), "{}", text(&out));
}

#[test]
fn repository_paths_outside_the_checkout_are_refused() {
    let repo = fig12();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.h"), "#define SECRET 4242\n").unwrap();
    let dir = outside.path().to_str().unwrap();
    for (settings, key) in [
        (format!("include-dirs = [\"{dir}\"]\n"), "include-dirs"),
        (
            "include-dirs = [\"src/../..\"]\n".to_string(),
            "include-dirs",
        ),
        ("files = [\"/etc/*.c\"]\n".to_string(), "files"),
        (
            format!("compile-commands = \"{dir}/compile_commands.json\"\n"),
            "compile-commands",
        ),
    ] {
        repo.commit(".mergelens.toml", &settings, "settings");
        let out = repo.mergelens(&["review", "main", "feature"]);
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{settings}: {said}");
        assert!(said.contains(&format!("{key} = ")), "{said}");
        assert!(said.contains("is refused"), "{said}");
        assert!(said.contains("inside its checkout"), "{said}");
    }
    // A committed compilation database naming an outside include directory: that directory
    // is refused (and said so); the command line may still name it.
    let db = serde_json::json!([{
        "directory": repo.path().canonicalize().unwrap().join("src"),
        "file": "server.c",
        "arguments": ["cc", "-I", dir, "-c", "server.c"]
    }]);
    repo.commit("build/compile_commands.json", &db.to_string(), "db");
    repo.commit(
        ".mergelens.toml",
        "compile-commands = \"build/compile_commands.json\"\nfail-on = \"never\"\n",
        "settings",
    );
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("is outside the repository; refused"),
        "{said}"
    );
    let out = repo.mergelens(&["review", "main", "feature", "-I", dir, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

#[test]
fn a_source_that_includes_a_file_outside_the_checkout_is_refused() {
    let repo = fig12();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.h");
    std::fs::write(&secret, "void SECRET_TOKEN_4242(void) {}\n").unwrap();
    repo.git(&["checkout", "-q", "feature"]);
    repo.commit(
        "src/leak.c",
        &format!(
            "#include \"{}\"\nvoid leak(void) {{ SECRET_TOKEN_4242(); }}\n",
            secret.display()
        ),
        "theirs: include a host file",
    );
    repo.git(&["checkout", "-q", "main"]);
    let out = repo.mergelens(&["review", "main", "feature", "--format", "json"]);
    let said = text(&out);
    // Theirs' code: the review is unfinished with the reason (issue 37), not an error.
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("outside the checkout"), "{said}");
    assert!(!said.contains("SECRET_TOKEN"), "{said}");
    // Through the hook, the default fail-on lets it through, loudly.
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let out = repo.run_git(&MERGE, &[]);
    let said = text(&out);
    assert!(said.contains("the merge goes ahead unfinished"), "{said}");
    assert!(!said.contains("SECRET_TOKEN"), "{said}");
}

#[test]
fn a_small_document_declaring_fifty_million_states_is_refused_at_once() {
    let repo = Repo::new();
    let doc = serde_json::json!({
        "format": "mergelens-dfa/1", "alphabet": ["f", "g", "end"], "states": 50_000_000u64,
        "initial": 0, "accepting": [2],
        "transitions": [{"from": 0, "letter": "f", "to": 1}]
    })
    .to_string();
    assert!(doc.len() < 1024);
    repo.write("big.json", &doc);
    let bin = env!("CARGO_BIN_EXE_mergelens");
    for args in [
        "automaton show big.json",
        "automaton minimize big.json",
        "report big.json",
    ] {
        // Under a 400 MB address-space limit: an allocation of states × letters would abort.
        let (out, cpu) = output_and_cpu(
            repo.command(Path::new("sh"), &[])
                .arg("-c")
                .arg(format!("ulimit -v 400000; exec '{bin}' {args}")),
        );
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args}: {said}");
        // A walk over fifty million states takes seconds of CPU; the refusal, the start of
        // a process (CPU time, which load does not stretch as it does the wall clock).
        assert!(cpu < Duration::from_secs(1), "{args}: {cpu:?} of CPU");
        assert!(said.contains("50000000 states"), "{said}");
        assert_eq!(said.lines().count(), 1, "{said}");
    }
}

#[test]
fn the_hook_says_when_it_cannot_identify_the_merge() {
    let repo = fig12();
    let hook = [("MERGELENS_HOOK_NAME", "pre-merge-commit")];
    let run = |env: &[(&str, &str)]| {
        repo.command(Path::new(env!("CARGO_BIN_EXE_mergelens")), env)
            .args(["review", "--hook"])
            .output()
            .unwrap()
    };
    let out = run(&hook);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("THIS MERGE WAS NOT REVIEWED"), "{said}");
    assert!(said.contains("names no merged branch"), "{said}");
    assert_eq!(said.lines().count(), 1, "{said}");
    repo.user_config(Some("on-error = \"block\"\n"));
    let out = run(&hook);
    assert_ne!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("names no merged branch"));
    // As pre-commit on an ordinary commit: nothing to say.
    let out = run(&[("MERGELENS_HOOK_NAME", "pre-commit")]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(text(&out), "");
}

#[test]
fn cbmc_comes_from_git_config_or_the_user_file_and_doctor_says_which() {
    let repo = fig12();
    let cbmc = mergelens::cbmc::Toolchain::locate(None).unwrap().cbmc;
    let doctor = |repo: &Repo| {
        repo.command(Path::new(env!("CARGO_BIN_EXE_mergelens")), &[])
            .env_remove("MERGELENS_CBMC")
            .arg("doctor")
            .output()
            .unwrap()
    };
    repo.git(&["config", "mergelens.cbmc", cbmc.to_str().unwrap()]);
    let out = doctor(&repo);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("git config mergelens.cbmc"), "{said}");
    // Landlock where the kernel has it, else a plain "none in effect".
    let sandbox = match mergelens::sandbox::status() {
        mergelens::sandbox::Status::Available { .. } => "sandbox         Landlock",
        mergelens::sandbox::Status::Unavailable { .. } => "sandbox         none in effect",
    };
    assert!(said.contains(sandbox), "{said}");
    repo.git(&["config", "--unset", "mergelens.cbmc"]);
    repo.user_config(Some(&format!("cbmc = {:?}\n", cbmc.to_str().unwrap())));
    let out = doctor(&repo);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("the user configuration file"));
    repo.user_config(Some("cbmc = \"/nonexistent/cbmc\"\n"));
    let out = doctor(&repo);
    assert_eq!(out.status.code(), Some(5), "{}", text(&out));
}
