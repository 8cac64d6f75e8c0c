//! The pre-merge-commit hook on real repositories: `mergelens hook install`, a real
//! `git merge --no-ff` that runs it and is blocked or let through as `.mergelens.toml` says,
//! `MERGELENS=0`, `on-error`, a conflict resolved and committed (the `pre-commit` hook),
//! chaining to a hook already there, `core.hooksPath`, and `mergelens hook uninstall`.
//! Every `git` runs with a cleared environment.

use crate::common::{conflict_program, conflicting, fig12, text};

#[test]
fn the_hook_blocks_or_allows_a_real_merge_as_configured() {
    let repo = fig12();
    let out = repo.mergelens(&["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    let hook = repo.path().join(".git/hooks/pre-merge-commit");
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("review --hook")
    );
    assert!(repo.path().join(".git/hooks/pre-commit").exists());
    let base_of_ours = repo.head();

    // The default fail-on: Fig. 12 is an overlap (both branches changed what follows funcA
    // when the guard is false) that loses no call, which the default lets through, saying so.
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("verdict: overlapping"), "{said}");
    assert!(repo.merged());
    repo.git(&["reset", "-q", "--hard", &base_of_ours]);

    // fail-on = "overlapping": the merge is blocked, the reason on one screen.
    repo.commit(".mergelens.toml", "fail-on = \"overlapping\"\n", "settings");
    let ours = repo.head();
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    let said = text(&out);
    assert!(!out.status.success(), "{said}");
    assert_eq!(repo.head(), ours, "no merge commit");
    assert!(said.contains("funcA funcZ funcC end"), "{said}");
    // The input value, named by the line that read it.
    assert!(
        said.contains(
            "overlapping execution:\n    input: nondet_int() at src/server.c:20 (funcZ): 0\n"
        ),
        "{said}"
    );
    assert!(said.contains("last-review.html"), "{said}");
    assert!(said.lines().count() <= 25, "more than one screen:\n{said}");
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(doc["revisions"]["merged"], "index");
    assert_eq!(
        doc["revisions"]["theirs"],
        repo.git(&["rev-parse", "feature"])
    );
    repo.git(&["merge", "--abort"]);

    // MERGELENS=0 skips the review (and only it).
    let out = repo.run_git(
        &["merge", "--no-ff", "-m", "merge feature", "feature"],
        &[("MERGELENS", "0")],
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(repo.merged());
    repo.git(&["reset", "-q", "--hard", &ours]);

    // fail-on = "never", committed on ours: reviewed, reported, let through.
    repo.commit(".mergelens.toml", "fail-on = \"never\"\n", "settings");
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("verdict: overlapping"),
        "{}",
        text(&out)
    );
    assert!(repo.merged());
    repo.git(&["reset", "-q", "--hard", &ours]);

    // mergelens itself fails (no CBMC there): allowed with a loud line, or blocked.
    let no_cbmc = [("MERGELENS_CBMC", "/nonexistent/cbmc")];
    let merge = ["merge", "--no-ff", "-m", "merge feature", "feature"];
    let out = repo.run_git(&merge, &no_cbmc);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("THIS MERGE WAS NOT REVIEWED"),
        "{}",
        text(&out)
    );
    repo.git(&["reset", "-q", "--hard", &ours]);
    repo.commit(".mergelens.toml", "on-error = \"block\"\n", "settings");
    let out = repo.run_git(&merge, &no_cbmc);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("CBMC"), "{}", text(&out));
    repo.git(&["merge", "--abort"]);
    repo.git(&["reset", "-q", "--hard", &ours]);

    // An ordinary commit passes the pre-commit hook untouched.
    repo.commit("README", "hello\n", "docs");
    let out = repo.mergelens(&["hook", "uninstall"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!hook.exists());
}

#[test]
fn a_resolved_conflict_is_reviewed_by_the_pre_commit_hook() {
    let repo = conflicting();
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    let out = repo.run_git(&["merge", "--no-ff", "feature"], &[]);
    assert!(!out.status.success(), "a conflict: {}", text(&out));
    // During the conflict, `mergelens review` alone reviews the merge in progress.
    let out = repo.mergelens(&["review"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    // Resolved by taking ours: per execution both branches replaced the one call of `f`
    // (ours with `f f`, theirs with `g`), an overlap, which `fail-on = "overlapping"`
    // blocks. (The merge also lacks theirs' `g`, so `fail-on = "lost"` would block too.)
    // The policy comes from the user's configuration file here (ours commits none).
    repo.write("main.c", &conflict_program("f(); f();"));
    repo.user_config(Some("fail-on = \"overlapping\"\n"));
    repo.git(&["add", "main.c"]);
    // An edit left unstaged is not what the hook reviews, and it says so.
    repo.write(
        "main.c",
        &format!("{}/* unstaged */\n", conflict_program("f(); f();")),
    );
    let out = repo.run_git(&["commit", "--no-edit"], &[]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("not reviewed: the unstaged edits in main.c"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("    g end"), "{}", text(&out));
    assert!(
        text(&out).contains("verdict: overlapping"),
        "{}",
        text(&out)
    );
    assert!(!repo.merged());
    // ... and so does the default (`["unexpected", "lost"]`): the merge loses theirs' `g`
    // on that input, and the hook says so.
    repo.user_config(None);
    let out = repo.run_git(&["commit", "--no-edit"], &[]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("on some input the merge loses a call a branch added"),
        "{}",
        text(&out)
    );
    assert!(!repo.merged());
    // The old default, `fail-on = "unexpected"`, lets it through, having said so.
    repo.user_config(Some("fail-on = \"unexpected\"\n"));
    let out = repo.run_git(&["commit", "--no-edit"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("lost"), "{}", text(&out));
    assert!(repo.merged());
}

#[test]
fn install_honours_core_hooks_path_and_chains_to_the_hook_there() {
    let repo = fig12();
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let marker = repo.path().join("previous-hook-ran");
    let previous = format!("#!/bin/sh\ntouch '{}'\n", marker.display());
    repo.write(".githooks/pre-merge-commit", &previous);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            repo.path().join(".githooks/pre-merge-commit"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let out = repo.mergelens(&["hook", "install"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("runs first"), "{}", text(&out));
    let hook = repo.path().join(".githooks/pre-merge-commit");
    let saved = repo
        .path()
        .join(".githooks/pre-merge-commit.mergelens-saved");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), previous);
    assert!(!repo.path().join(".git/hooks/pre-merge-commit").exists());
    // Installing twice refreshes, and never saves our own script over the user's.
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), previous);

    repo.commit(".mergelens.toml", "fail-on = \"never\"\n", "settings");
    let out = repo.run_git(&["merge", "--no-ff", "-m", "merge feature", "feature"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(marker.exists(), "the chained hook did not run");
    assert!(
        text(&out).contains("verdict: overlapping"),
        "{}",
        text(&out)
    );

    let out = repo.mergelens(&["hook", "uninstall"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), previous);
    assert!(!saved.exists());
}

#[test]
fn a_pull_is_reviewed_from_fetch_head() {
    let repo = fig12();
    assert!(repo.mergelens(&["hook", "install"]).status.success());
    repo.commit(".mergelens.toml", "fail-on = \"overlapping\"\n", "settings");
    // `git pull . feature` fetches into FETCH_HEAD and merges it: GIT_REFLOG_ACTION says
    // `pull`.
    let ours = repo.head();
    let out = repo.run_git(
        &[
            "pull",
            "--no-rebase",
            "--no-ff",
            "--no-edit",
            ".",
            "feature",
        ],
        &[],
    );
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("funcA funcZ funcC end"),
        "{}",
        text(&out)
    );
    assert_eq!(repo.head(), ours);
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".git/mergelens/last-review.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        doc["revisions"]["theirs"],
        repo.git(&["rev-parse", "feature"])
    );
}
