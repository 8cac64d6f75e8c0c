//! Remote execution against a real REAPI engine on this machine: BuildGrid (PyPI
//! `buildgrid`, installed by `make deps` through scripts/install-buildgrid.sh) with one
//! worker of scripts/reapi_worker.py, started by scripts/reapi_stack.py and stopped when
//! each test ends. The real CBMC answers every query, here and on the worker.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn free_port() -> u16 {
    let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    socket.local_addr().unwrap().port()
}

/// The engine: stopped (and its database removed) when dropped, as closing the stack's
/// standard input tells it to.
struct Engine {
    child: Child,
    url: String,
    executions: PathBuf,
    _dir: tempfile::TempDir,
}

impl Engine {
    fn start() -> Engine {
        Engine::start_with(&[])
    }

    /// `extra`: more arguments of scripts/reapi_stack.py.
    fn start_with(extra: &[&str]) -> Engine {
        let venv = root().join("target/buildgrid/bin/bgd");
        assert!(
            venv.exists(),
            "BuildGrid is not installed: run `make deps` (scripts/install-buildgrid.sh)"
        );
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let executions = dir.path().join("executions.txt");
        let mut child = Command::new("python3")
            .arg(root().join("scripts/reapi_stack.py"))
            .args(["--dir", dir.path().to_str().unwrap()])
            .args(["--port", &port.to_string(), "--workers", "1"])
            .args(["--executions", executions.to_str().unwrap()])
            .args(extra)
            .env("MERGELENS_BUILDGRID_VENV", root().join("target/buildgrid"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start scripts/reapi_stack.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "ready", "the engine did not start");
        Engine {
            child,
            url: format!("grpc://127.0.0.1:{port}"),
            executions,
            _dir: dir,
        }
    }

    /// How many actions the worker executed so far.
    fn executed(&self) -> usize {
        std::fs::read_to_string(&self.executions)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

fn learn(dir: &Path, program: &str, extra: &[&str]) -> (Output, String, serde_json::Value) {
    learn_with_env(dir, program, extra, &[])
}

fn learn_with_env(
    dir: &Path,
    program: &str,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (Output, String, serde_json::Value) {
    let out = dir.join(format!("{}.json", extra.len()));
    let stats = dir.join(format!("{}.stats.json", extra.len()));
    let output = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(root())
        .env("XDG_CONFIG_HOME", dir)
        .env(
            "MERGELENS_CACHE_KEY",
            "the-cache-key-of-remote-reapi-0123456789",
        )
        .arg("learn")
        .arg(root().join("tests/programs").join(program))
        .args(["--no-cache", "-o", out.to_str().unwrap()])
        .args(["--stats", stats.to_str().unwrap()])
        .args(extra)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let document = std::fs::read_to_string(&out).unwrap_or_default();
    let stats = std::fs::read_to_string(&stats)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (output, document, stats)
}

#[test]
fn a_learning_with_remote_gives_the_local_automaton_from_remote_runs() {
    let engine = Engine::start();
    let dir = tempfile::tempdir().unwrap();
    let (local, local_doc, local_stats) = learn(dir.path(), "loop_calls.c", &[]);
    assert!(local.status.success(), "{local:?}");
    assert!(local_stats.get("remote").is_none(), "{local_stats}");
    let (remote, remote_doc, stats) = learn(
        dir.path(),
        "loop_calls.c",
        &["--remote", &engine.url, "--remote-instance", "main"],
    );
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert!(remote.status.success(), "{stderr}");
    assert!(!local_doc.is_empty());
    assert_eq!(local_doc, remote_doc, "the same automaton");
    let counts = &stats["remote"];
    let executed = counts["executed"].as_u64().unwrap();
    assert!(executed >= 1, "{stats}");
    assert_eq!(counts["local_fallbacks"], 0, "{stats}");
    assert_eq!(executed as usize, engine.executed(), "{stats}");
    assert!(
        stderr.contains(&format!("{executed} actions executed")),
        "{stderr}"
    );
}

#[test]
fn a_second_run_is_answered_by_the_action_cache_which_a_read_only_client_never_writes() {
    let engine = Engine::start();
    let dir = tempfile::tempdir().unwrap();
    let remote = ["--remote", engine.url.as_str(), "--remote-instance", "main"];
    let read_only = [&remote[..], &["--remote-cache", "read-only"]].concat();
    // A read-only client: its actions are executed, and nothing of them is cached.
    let (first, first_doc, stats) = learn(dir.path(), "hash_loop.c", &read_only);
    assert!(first.status.success(), "{first:?}");
    let executed = stats["remote"]["executed"].as_u64().unwrap();
    assert!(executed >= 1, "{stats}");
    assert_eq!(stats["remote"]["cache_hits"], 0, "{stats}");
    let (_, _, again) = learn(dir.path(), "hash_loop.c", &read_only);
    assert_eq!(again["remote"]["executed"], executed, "{again}");
    assert_eq!(engine.executed(), 2 * executed as usize);
    // A read-write client writes what it executes; the next run executes nothing.
    let (_, _, writer) = learn(dir.path(), "hash_loop.c", &remote);
    assert_eq!(writer["remote"]["executed"], executed, "{writer}");
    let (second, second_doc, cached) = learn(dir.path(), "hash_loop.c", &remote);
    assert!(second.status.success(), "{second:?}");
    assert_eq!(cached["remote"]["executed"], 0, "{cached}");
    assert_eq!(cached["remote"]["cache_hits"], executed, "{cached}");
    assert_eq!(
        engine.executed(),
        3 * executed as usize,
        "no execution more"
    );
    assert_eq!(first_doc, second_doc);
    // A read-only client reads what the trusted one wrote.
    let (_, _, reader) = learn(dir.path(), "hash_loop.c", &read_only);
    assert_eq!(reader["remote"]["cache_hits"], executed, "{reader}");
}

#[test]
fn a_server_that_is_down_is_one_clear_error_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("grpc://127.0.0.1:{}", free_port());
    let (output, document, _) = learn(dir.path(), "loop_calls.c", &["--remote", &url]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&url) && stderr.contains("cannot reach the remote execution server"),
        "{stderr}"
    );
    assert!(document.is_empty());
    // A remote only the user's trusted configuration names is used the same way.
    std::fs::create_dir_all(dir.path().join("mergelens")).unwrap();
    std::fs::write(
        dir.path().join("mergelens/config.toml"),
        format!("remote = \"{url}\"\n"),
    )
    .unwrap();
    let (output, _, _) = learn(dir.path(), "loop_calls.c", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
}

/// The document's `remote` counts (`Null` when absent), and its Markdown report's line
/// that says them; its HTML report says them too (and says nothing of an engine when the
/// document has no counts).
fn remote_counts(path: &Path) -> (serde_json::Value, Option<String>) {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let report = |format: &str| {
        let output = Command::new(env!("CARGO_BIN_EXE_mergelens"))
            .args(["report", "--format", format])
            .arg(path)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let line = report("md")
        .lines()
        .find(|l| l.contains("remote engine:"))
        .map(str::to_string);
    let html = report("html");
    let counts = &v["remote"];
    if counts.is_null() {
        assert!(!html.contains("Remote engine"), "{html}");
    } else {
        let n = |key: &str| counts[key].as_u64().unwrap();
        let sentence = format!(
            "Remote engine: {} actions executed, {} answered by the action cache, {} retried, {} run locally instead.",
            n("executed"),
            n("cache_hits"),
            n("retries"),
            n("local_fallbacks")
        );
        assert!(
            html.contains(&sentence),
            "the HTML report lacks {sentence:?}"
        );
    }
    (counts.clone(), line)
}

/// A review's document less what differs between any two runs (times, memory, the remote
/// engine's counts).
fn comparable(path: &Path) -> serde_json::Value {
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                map.retain(|k, _| !k.contains("seconds") && !k.contains("memory") && k != "remote");
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    strip(&mut v);
    v
}

#[test]
fn a_review_with_remote_gives_the_local_document() {
    let engine = Engine::start();
    let repo = common::fig12();
    let out = tempfile::tempdir().unwrap();
    let local = out.path().join("local.json");
    let remote = out.path().join("remote.json");
    let run = |path: &Path, extra: &[&str]| {
        let output = repo.mergelens(
            &[
                &[
                    "review",
                    "main",
                    "feature",
                    "--no-cache",
                    "-o",
                    path.to_str().unwrap(),
                ],
                extra,
            ]
            .concat(),
        );
        assert_eq!(output.status.code(), Some(0), "{}", common::text(&output));
        common::text(&output)
    };
    run(&local, &[]);
    let stderr = run(
        &remote,
        &["--remote", &engine.url, "--remote-instance", "main"],
    );
    // Not assert_eq: the documents are long.
    let (l, r) = (comparable(&local), comparable(&remote));
    if l != r {
        let (l, r) = (
            serde_json::to_string_pretty(&l).unwrap(),
            serde_json::to_string_pretty(&r).unwrap(),
        );
        let diff: Vec<String> = l
            .lines()
            .zip(r.lines())
            .filter(|(a, b)| a != b)
            .take(8)
            .map(|(a, b)| format!("{a} | {b}"))
            .collect();
        panic!("the documents differ: {diff:#?}");
    }
    assert!(engine.executed() >= 1, "{stderr}");
    assert!(stderr.contains("0 run locally instead"), "{stderr}");
    let executed = format!("{} actions executed", engine.executed());
    assert!(stderr.contains(&executed), "{stderr}");
    // The document says which actions ran where; a local review's says nothing of it.
    let (counts, line) = remote_counts(&remote);
    assert_eq!(counts["executed"], engine.executed() as u64, "{counts}");
    assert_eq!(counts["local_fallbacks"], 0, "{counts}");
    assert!(line.is_some_and(|l| l.contains(&executed)), "{counts}");
    assert_eq!(remote_counts(&local), (serde_json::Value::Null, None));
    assert!(
        stderr.contains(&format!("remote engine: {executed}")),
        "the summary's line: {stderr}"
    );
}

#[test]
fn a_server_lost_mid_run_leaves_the_rest_to_this_machine_and_the_answer_unchanged() {
    // The engine goes away as soon as its worker takes the first action.
    let engine = Engine::start_with(&["--stop-after", "1"]);
    let dir = tempfile::tempdir().unwrap();
    let (local, local_doc, _) = learn(dir.path(), "loop_calls.c", &[]);
    assert!(local.status.success(), "{local:?}");
    let (remote, remote_doc, stats) = learn(
        dir.path(),
        "loop_calls.c",
        &["--remote", &engine.url, "--remote-instance", "main"],
    );
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert!(remote.status.success(), "{stderr}");
    assert_eq!(local_doc, remote_doc, "the same automaton");
    let counts = &stats["remote"];
    assert!(counts["local_fallbacks"].as_u64().unwrap() >= 1, "{stats}");
    assert!(counts["retries"].as_u64().unwrap() >= 1, "{stats}");
    assert!(
        stderr.contains("remote execution failed")
            && stderr.contains("running on this machine instead"),
        "{stderr}"
    );
}

#[test]
fn the_time_budget_ends_a_wait_for_an_engine_without_a_free_worker() {
    // No worker: every action waits in the server's queue.
    let engine = Engine::start_with(&["--workers", "0"]);
    let dir = tempfile::tempdir().unwrap();
    let started = std::time::Instant::now();
    let (output, document, stats) = learn(
        dir.path(),
        "loop_calls.c",
        &[
            "--remote",
            &engine.url,
            "--remote-instance",
            "main",
            "--time-budget",
            "3",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert!(stderr.contains("the time budget ran out"), "{stderr}");
    assert!(document.contains("\"partial\""), "{document}");
    assert_eq!(stats["remote"]["executed"], 0, "{stats}");
    assert_eq!(engine.executed(), 0);
}

#[test]
fn a_worker_killed_mid_action_is_replaced_by_another_and_the_answer_unchanged() {
    // The worker that takes the first action dies in the middle of it; the server gives
    // the action to the other worker once the dead one's session lapses.
    let engine = Engine::start_with(&["--workers", "2", "--kill-worker-after", "1"]);
    let dir = tempfile::tempdir().unwrap();
    let (local, local_doc, _) = learn(dir.path(), "loop_calls.c", &[]);
    assert!(local.status.success(), "{local:?}");
    let (remote, remote_doc, stats) = learn(
        dir.path(),
        "loop_calls.c",
        &["--remote", &engine.url, "--remote-instance", "main"],
    );
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert!(remote.status.success(), "{stderr}");
    assert_eq!(local_doc, remote_doc, "the same automaton");
    let executed = stats["remote"]["executed"].as_u64().unwrap();
    assert!(executed >= 1, "{stats}");
    assert_eq!(stats["remote"]["local_fallbacks"], 0, "{stats}");
    // Every action once, and the one the killed worker took twice.
    assert_eq!(engine.executed(), executed as usize + 1, "{stats}");
}

/// `main` calls `first`, `mid`, then `second`.
fn calls(first: &str, second: &str) -> String {
    format!(
        "void a(void) {{}}\nvoid b(void) {{}}\nvoid c(void) {{}}\nvoid d(void) {{}}\nvoid e(void) {{}}\nvoid mid(void) {{}}\n\nint main(void)\n{{\n    {first}();\n\n    mid();\n\n    {second}();\n    return 0;\n}}\n"
    )
}

/// v1, then a clean merge and an evil one (the merge commit adds a call of `e`), then v2.
fn two_merges() -> common::Repo {
    let repo = common::Repo::new();
    repo.commit("prog.c", &calls("a", "b"), "base");
    repo.git(&["tag", "v1"]);
    repo.git(&["checkout", "-q", "-b", "second-d", "main"]);
    repo.commit("prog.c", &calls("a", "d"), "second d");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit("prog.c", &calls("c", "b"), "first c");
    repo.git(&["merge", "-q", "--no-ff", "second-d", "-m", "merge second-d"]);
    repo.git(&["checkout", "-q", "-b", "second-a", "main"]);
    repo.commit("prog.c", &calls("c", "a"), "second a");
    repo.git(&["checkout", "-q", "main"]);
    repo.commit("prog.c", &calls("b", "d"), "first b");
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "second-a"]);
    let evil = calls("b", "a").replace("    a();\n    return", "    a();\n    e();\n    return");
    repo.commit("prog.c", &evil, "merge second-a, and call e");
    repo.git(&["tag", "v2"]);
    repo
}

/// A fresh clone of `repo`'s history in `parent`, as another CI job would have it.
fn fresh_clone(repo: &common::Repo, parent: &Path) -> common::Repo {
    let clone = common::Repo::not_a_repository(parent);
    let source = repo.path().to_str().unwrap();
    clone.git(&["clone", "-q", "--no-local", source, "."]);
    clone.git(&["fetch", "-q", "--tags", source]);
    clone
}

#[test]
fn an_audit_with_remote_gives_the_local_document() {
    let engine = Engine::start();
    let repo = two_merges();
    let out = tempfile::tempdir().unwrap();
    let parent = tempfile::tempdir().unwrap();
    let clone = fresh_clone(&repo, parent.path());
    let audit_in = |repo: &common::Repo, name: &str, extra: &[&str]| {
        let path = out.path().join(name);
        let mergelens = Path::new(env!("CARGO_BIN_EXE_mergelens"));
        let output = repo
            .command(mergelens, &[("MERGELENS_PROGRESS_SECS", "0.2")])
            .args([
                "audit",
                "v1..v2",
                "--no-cache",
                "-o",
                path.to_str().unwrap(),
            ])
            .args(extra)
            .output()
            .unwrap();
        // The evil merge: exit code 1 under the default fail-on.
        assert_eq!(output.status.code(), Some(1), "{}", common::text(&output));
        let rows: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|l| l.chars().take(24).collect())
            .collect();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (path, format!("{stderr}{}", rows.join("\n")), rows)
    };
    let audit = |name: &str, extra: &[&str]| audit_in(&repo, name, extra);
    let (local, _, local_rows) = audit("local.json", &[]);
    let remote = ["--remote", engine.url.as_str(), "--remote-instance", "main"];
    // Both merges at once, read-only (the cache stays empty): their rows still in the
    // history's order, the same document.
    let jobs = [
        &remote[..],
        &["--remote-jobs", "2", "--remote-cache", "read-only"],
    ]
    .concat();
    let (at_once, stderr, rows) = audit("at-once.json", &jobs);
    assert_eq!(rows, local_rows, "{stderr}");
    assert!(
        stderr.contains("mergelens: progress: merge "),
        "each merge's progress says which: {stderr}"
    );
    assert!(
        comparable(&local) == comparable(&at_once),
        "the audit documents differ"
    );
    let concurrent = engine.executed();
    assert!(concurrent >= 1, "{stderr}");
    // One merge after the other, writing the cache.
    let (remote, stderr, _) = audit("remote.json", &remote);
    assert!(
        comparable(&local) == comparable(&remote),
        "the audit documents differ"
    );
    let sequential = engine.executed() - concurrent;
    let executed = format!("{sequential} actions executed");
    assert!(
        stderr.contains(&executed) && stderr.contains("0 run locally instead"),
        "{stderr}"
    );
    // The audit's document counts every merge's actions; a local audit's has no counts.
    // The second merge's base is the first's merge: its actions, written by the first, are
    // answered by the cache.
    let (counts, line) = remote_counts(&remote);
    assert_eq!(counts["executed"], sequential as u64, "{counts}");
    let actions = sequential as u64 + counts["cache_hits"].as_u64().unwrap();
    assert_eq!(actions, concurrent as u64, "the same actions: {counts}");
    assert!(line.is_some_and(|l| l.contains(&executed)), "{counts}");
    assert_eq!(remote_counts(&local), (serde_json::Value::Null, None));
    // The fresh clone's audit: every action answered by the cache, none executed.
    let before = engine.executed();
    let (again, stderr, _) = audit_in(
        &clone,
        "clone.json",
        &["--remote", &engine.url, "--remote-instance", "main"],
    );
    let (counts, _) = remote_counts(&again);
    assert_eq!(counts["executed"], 0, "{counts} {stderr}");
    assert_eq!(counts["cache_hits"], actions, "{counts}");
    assert_eq!(engine.executed(), before, "no execution more");
    // Less where each clone keeps its merges' reports.
    let without_reports = |path: &Path| {
        let mut v = comparable(path);
        for merge in v["merges"].as_array_mut().unwrap() {
            merge.as_object_mut().unwrap().remove("report");
        }
        v
    };
    let (l, c) = (without_reports(&local), without_reports(&again));
    assert!(l == c, "the clone's audit differs: {l} {c}");
}

#[test]
fn a_server_that_wants_a_token_gets_the_one_in_the_environment() {
    let secret = "0123456789abcdef0123456789abcdef";
    let engine = Engine::start_with(&["--auth-secret", secret]);
    let dir = tempfile::tempdir().unwrap();
    let remote = ["--remote", engine.url.as_str(), "--remote-instance", "main"];
    let (refused, _, _) = learn(dir.path(), "loop_calls.c", &remote);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(4), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("Unauthenticated"), "{stderr}");
    // A JWT (HS256) signed with the server's secret, as the deployment would issue one.
    let token = Command::new(root().join("target/buildgrid/bin/python"))
        .arg("-c")
        .arg(format!(
            "import jwt, time; print(jwt.encode({{'sub': 'ci', 'exp': int(time.time()) + 3600}}, '{secret}', algorithm='HS256'))"
        ))
        .output()
        .unwrap();
    let token = String::from_utf8(token.stdout).unwrap();
    let (local, local_doc, _) = learn(dir.path(), "loop_calls.c", &[]);
    assert!(local.status.success(), "{local:?}");
    let (accepted, doc, stats) = learn_with_env(
        dir.path(),
        "loop_calls.c",
        &remote,
        &[("MERGELENS_REMOTE_TOKEN", token.trim())],
    );
    assert!(accepted.status.success(), "{accepted:?}");
    assert_eq!(doc, local_doc);
    assert!(
        stats["remote"]["executed"].as_u64().unwrap() >= 1,
        "{stats}"
    );
}

/// A CA and a certificate it signed for 127.0.0.1, made with the openssl command: the CA's
/// PEM file, the server's certificate and key.
fn certificates(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("the openssl command");
        assert!(out.status.success(), "openssl {args:?}: {out:?}");
    };
    let days = ["-days", "2"];
    openssl(
        &[
            &[
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key",
            ][..],
            &["-out", "ca.pem", "-subj", "/CN=mergelens test CA"],
            &days,
        ]
        .concat(),
    );
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    openssl(
        &[
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
            ][..],
            &[
                "-CAcreateserial",
                "-out",
                "server.pem",
                "-extfile",
                "ext.cnf",
            ],
            &days,
        ]
        .concat(),
    );
    (
        dir.join("ca.pem"),
        dir.join("server.pem"),
        dir.join("server.key"),
    )
}

#[test]
fn a_grpcs_server_is_reached_over_tls_with_the_private_ca_in_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(dir.path());
    let engine = Engine::start_with(&[
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ]);
    let url = engine.url.replace("grpc://", "grpcs://");
    let remote = ["--remote", url.as_str(), "--remote-instance", "main"];
    // The system's roots do not know the test's CA: one clear error, before any work.
    let (refused, _, _) = learn(dir.path(), "loop_calls.c", &remote);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("UnknownIssuer"), "{stderr}");
    let (local, local_doc, _) = learn(dir.path(), "loop_calls.c", &[]);
    assert!(local.status.success(), "{local:?}");
    let (accepted, doc, stats) = learn_with_env(
        dir.path(),
        "loop_calls.c",
        &remote,
        &[("MERGELENS_REMOTE_CA", ca.to_str().unwrap())],
    );
    assert!(accepted.status.success(), "{accepted:?}");
    assert_eq!(doc, local_doc);
    let executed = stats["remote"]["executed"].as_u64().unwrap();
    assert!(executed >= 1, "{stats}");
    assert_eq!(executed as usize, engine.executed(), "{stats}");
}

/// Whether a process still runs with `TMPDIR=dir` (a tool a killed review started: the
/// sandbox gives each its private directory as `TMPDIR`).
fn a_tool_runs_in(dir: &Path) -> bool {
    let wanted = format!("TMPDIR={}", dir.display());
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        std::fs::read(p.path().join("environ"))
            .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == wanted.as_bytes()))
    })
}

#[test]
fn a_run_killed_with_sigkill_leaves_its_directory_to_the_next_run_and_the_cache_answers() {
    let engine = Engine::start();
    let repo = common::fig12();
    let temp = tempfile::tempdir().unwrap();
    let tmpdir = temp.path().to_str().unwrap();
    let slot = temp.path().join("mergelens-remote-0");
    let review = |name: &str| {
        let mut cmd = repo.command(
            Path::new(env!("CARGO_BIN_EXE_mergelens")),
            &[("TMPDIR", tmpdir)],
        );
        let out = temp.path().join(name);
        cmd.args(["review", "main", "feature", "--no-cache", "-o"])
            .arg(out)
            .args(["--remote", &engine.url, "--remote-instance", "main"]);
        cmd
    };
    let first = review("first.json").output().unwrap();
    assert_eq!(first.status.code(), Some(0), "{}", common::text(&first));
    let executed = engine.executed();
    assert!(executed >= 1);
    assert!(!slot.exists(), "a run that ends removes its directory");
    // The second run is killed as soon as it holds the directory: nothing removes it.
    let mut second = review("second.json").stderr(Stdio::null()).spawn().unwrap();
    while !slot.exists() {
        assert!(
            second.try_wait().unwrap().is_none(),
            "ended before it was killed"
        );
        std::thread::yield_now();
    }
    second.kill().unwrap();
    second.wait().unwrap();
    assert!(slot.is_dir(), "SIGKILL leaves the directory behind");
    // Tools it started may still run in it; they end by themselves.
    while a_tool_runs_in(&slot) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The third run takes the dead run's directory over, so its actions are the first's
    // and the cache answers them all.
    let third = review("third.json").output().unwrap();
    let stderr = common::text(&third);
    assert_eq!(third.status.code(), Some(0), "{stderr}");
    assert_eq!(
        engine.executed(),
        executed,
        "nothing executed again: {stderr}"
    );
    assert!(stderr.contains("0 actions executed"), "{stderr}");
    let (l, r) = (
        comparable(&temp.path().join("first.json")),
        comparable(&temp.path().join("third.json")),
    );
    assert_eq!(l, r);
    let left: Vec<_> = std::fs::read_dir(temp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("mergelens"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// v1 to v4, each tag changing one call of `main`.
fn four_tags() -> common::Repo {
    let repo = common::Repo::new();
    for (k, (first, second)) in [("a", "b"), ("c", "b"), ("c", "d"), ("e", "d")]
        .into_iter()
        .enumerate()
    {
        repo.commit("prog.c", &calls(first, second), &format!("v{}", k + 1));
        repo.git(&["tag", &format!("v{}", k + 1)]);
    }
    repo
}

#[test]
fn a_series_of_tags_with_remote_jobs_runs_its_steps_at_once_and_gives_the_local_document() {
    let engine = Engine::start();
    let repo = four_tags();
    let out = tempfile::tempdir().unwrap();
    let diff = |name: &str, extra: &[&str]| {
        let path = out.path().join(name);
        let mergelens = Path::new(env!("CARGO_BIN_EXE_mergelens"));
        let output = repo
            .command(mergelens, &[("MERGELENS_PROGRESS_SECS", "0.2")])
            .args(["diff", "--tags", "v*", "--no-cache", "-o"])
            .arg(&path)
            .args(extra)
            .output()
            .unwrap();
        // Every step changes behaviour: exit code 1.
        assert_eq!(output.status.code(), Some(1), "{}", common::text(&output));
        let stdout = String::from_utf8(output.stdout).unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        (path, stdout, stderr)
    };
    let (local, local_lines, _) = diff("local.json", &[]);
    assert_eq!(local_lines.lines().count(), 3, "{local_lines}");
    let remote = ["--remote", engine.url.as_str(), "--remote-instance", "main"];
    let at_once = [&remote[..], &["--remote-jobs", "3"]].concat();
    let (concurrent, lines, stderr) = diff("at-once.json", &at_once);
    assert_eq!(lines, local_lines, "the steps' lines in order: {stderr}");
    for step in ["v1..v2:", "v2..v3:", "v3..v4:"] {
        assert!(
            stderr.contains(&format!("mergelens: progress: step {step}")),
            "each step's progress says which: {stderr}"
        );
    }
    assert!(
        comparable(&local) == comparable(&concurrent),
        "the documents differ"
    );
    let executed = engine.executed();
    assert!(executed >= 1, "{stderr}");
    // The series' document counts the steps' actions together.
    let (counts, line) = remote_counts(&concurrent);
    assert_eq!(counts["executed"], executed as u64, "{counts}");
    assert!(line.is_some(), "{counts}");
    assert_eq!(remote_counts(&local), (serde_json::Value::Null, None));
    // Under a time budget, one step at a time, saying so; the cache answers them all.
    let budget = [&at_once[..], &["--time-budget", "600"]].concat();
    let (sequential, lines, stderr) = diff("budget.json", &budget);
    assert!(
        stderr.contains("--remote-jobs: steps one at a time under --time-budget"),
        "{stderr}"
    );
    assert_eq!(lines, local_lines);
    assert!(
        comparable(&local) == comparable(&sequential),
        "the documents differ"
    );
    // Its own actions are counted; steps at once check out a version two steps share under
    // a second name, so these are not all the same actions as theirs.
    let (counts, _) = remote_counts(&sequential);
    let since = (engine.executed() - executed) as u64;
    assert_eq!(counts["executed"], since, "{counts} {stderr}");
}

#[test]
fn remote_jobs_split_a_learnings_membership_runs_across_workers_with_the_same_answers() {
    // The paper's baseline asks CBMC once per word: many runs of one query, which two
    // workers take at the same time.
    let engine = Engine::start_with(&["--workers", "2"]);
    let dir = tempfile::tempdir().unwrap();
    let (local, local_doc, local_stats) = learn(dir.path(), "loop_calls.c", &["--baseline"]);
    assert!(local.status.success(), "{local:?}");
    let (remote, remote_doc, stats) = learn(
        dir.path(),
        "loop_calls.c",
        &[
            "--baseline",
            "--remote",
            &engine.url,
            "--remote-instance",
            "main",
            "--remote-jobs",
            "2",
            "--remote-cache",
            "read-only",
        ],
    );
    let stderr = String::from_utf8_lossy(&remote.stderr);
    assert!(remote.status.success(), "{stderr}");
    assert_eq!(local_doc, remote_doc, "the same automaton");
    // The same runs: the counts of the learning's statistics are those of the local one.
    assert!(
        local_stats["cbmc_runs"].as_u64().unwrap() >= 2,
        "{local_stats}"
    );
    for key in ["membership_queries", "cbmc_runs"] {
        assert_eq!(stats[key], local_stats[key], "{key}: {stats}");
    }
    let words = |s: &serde_json::Value| s["teacher"]["words_to_cbmc"].clone();
    assert_eq!(words(&stats), words(&local_stats), "{stats}");
    assert_eq!(stats["remote"]["local_fallbacks"], 0, "{stats}");
    let executed = stats["remote"]["executed"].as_u64().unwrap();
    assert!(executed >= 2, "{stats}");
    // Some two actions ran at the same time.
    let times = std::fs::read_to_string(engine.executions.with_extension("txt.times")).unwrap();
    let spans: Vec<(f64, f64)> = times
        .lines()
        .map(|l| {
            let f: Vec<f64> = l.split(' ').skip(2).map(|x| x.parse().unwrap()).collect();
            (f[0], f[1])
        })
        .collect();
    let overlap = spans
        .iter()
        .enumerate()
        .any(|(i, a)| spans[i + 1..].iter().any(|b| a.0 < b.1 && b.0 < a.1));
    assert!(overlap, "no two actions at once: {times}");
    // And none twice (runs at once share the program's `--show-loops`, run once before).
    let digests: Vec<&str> = times.lines().filter_map(|l| l.split(' ').next()).collect();
    let distinct: std::collections::HashSet<&&str> = digests.iter().collect();
    assert_eq!(distinct.len(), digests.len(), "{times}");
}
