//! `mergelens learn` and the CBMC teacher against the real CBMC: bounds, the paper's
//! baseline, lazy learning without the prefetch, the exactness pass, the persistent cache,
//! `--auto-bounds`, outputs, and every kind of bad input. The expected languages of the test
//! programs are checked by tests/fixture_cases.rs (the `learn_*` cases).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mergelens::automaton::analysis::words_up_to;
use mergelens::automaton::{Dfa, json};
use mergelens::cbmc::{CbmcTeacher, LearnBounds, TeacherOptions, Toolchain};
use mergelens::cprog::{FrontEndConfig, instrument};
use mergelens::learn::{Entry, GuessPolicy, LearnConfig, QueryCache, Source, learn};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn program(name: &str) -> String {
    root()
        .join("tests/programs")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

const TEST_CACHE_KEY: &str = "the-cache-key-of-learn-cbmc-0123456789";

/// Runs `mergelens learn ARGS` in `dir` (the repository root if `None`).
fn learn_in(dir: Option<&Path>, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(dir.unwrap_or(root()))
        // The answer store's MAC key: never a key file in the real home.
        .env("MERGELENS_CACHE_KEY", TEST_CACHE_KEY)
        .arg("learn")
        .args(args)
        .output()
        .expect("run mergelens learn")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Learns with `--no-cache` unless the arguments name a cache, and returns the automaton.
fn learned(args: &[&str]) -> Dfa {
    let mut all = args.to_vec();
    if !args.contains(&"--cache-dir") {
        all.push("--no-cache");
    }
    let output = learn_in(None, &all);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    json::from_str(&String::from_utf8_lossy(&output.stdout), "stdout").unwrap()
}

fn words(d: &Dfa) -> BTreeSet<String> {
    words_up_to(d, 64, 10_000)
        .unwrap()
        .iter()
        .map(|w| d.alphabet().format_word(w))
        .collect()
}

fn set(words: &[&str]) -> BTreeSet<String> {
    words.iter().map(|w| w.to_string()).collect()
}

fn stats(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn unwind_b_lets_loop_bodies_run_b_times() {
    // CBMC gets --unwind b+1: at --unwind 1 the loop body runs at most once.
    let d = learned(&[&program("loop_calls.c"), "--unwind", "1"]);
    assert_eq!(words(&d), set(&["f end", "g f end"]));
    // A recursive function calls itself at most b times too (the paper's Depth(π) ≤ b),
    // although CBMC's --unwind b+1 alone would let it go one level deeper.
    let d = learned(&[&program("recursion.c"), "--unwind", "0"]);
    assert_eq!(words(&d), set(&["down leaf end"]));
    let d = learned(&[&program("recursion.c"), "--unwind", "1"]);
    assert_eq!(words(&d), set(&["down leaf end", "down down leaf end"]));
    // The word-length bound counts end: g g f end has four letters.
    let d = learned(&[&program("loop_calls.c"), "--max-word-length", "3"]);
    assert_eq!(words(&d), set(&["f end", "g f end"]));
}

#[test]
fn the_baseline_learns_the_same_automata_with_ten_times_the_cbmc_runs() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["fig12_theirs.c", "loop_calls.c"] {
        let mut runs = Vec::new();
        let mut automata = Vec::new();
        for baseline in [false, true] {
            let stats_file = dir.path().join(format!("{name}.{baseline}.json"));
            let mut args = vec![
                program(name),
                "--stats".into(),
                stats_file.to_string_lossy().into_owned(),
            ];
            if baseline {
                args.push("--baseline".into());
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            automata.push(learned(&args));
            let s = stats(&stats_file);
            assert_eq!(s["baseline"], baseline);
            runs.push(s["cbmc_runs"].as_u64().unwrap());
        }
        assert_eq!(automata[0], automata[1], "{name}");
        assert!(runs[0] * 10 <= runs[1], "{name}: {runs:?}");
    }
}

/// `--paper-lazy` (lazy learning as the paper describes it, for `make bench`) asks CBMC
/// nothing before learning: where the default's prefetch answers every word the pre-check
/// admits in one run, it guesses and checks, in more runs, and learns the same automaton.
#[test]
fn the_papers_lazy_learning_skips_the_prefetch_and_learns_the_same_automaton() {
    let dir = tempfile::tempdir().unwrap();
    let mut automata = Vec::new();
    let mut stats_of = Vec::new();
    for mode in ["default", "paper-lazy"] {
        let stats_file = dir.path().join(format!("{mode}.json"));
        let mut args = vec![
            program("loop_calls.c"),
            "--stats".into(),
            stats_file.to_string_lossy().into_owned(),
        ];
        if mode == "paper-lazy" {
            args.push("--paper-lazy".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        automata.push(learned(&args));
        stats_of.push(stats(&stats_file));
    }
    assert_eq!(automata[0], automata[1]);
    let prefetched = |s: &serde_json::Value| s["teacher"]["prefetched_words"].as_u64().unwrap();
    assert!(prefetched(&stats_of[0]) > 0, "{}", stats_of[0]);
    assert_eq!(prefetched(&stats_of[1]), 0, "{}", stats_of[1]);
    assert_eq!(stats_of[1]["lazy"], true);
    let runs = |s: &serde_json::Value| s["cbmc_runs"].as_u64().unwrap();
    assert!(runs(&stats_of[0]) < runs(&stats_of[1]), "{stats_of:?}");
}

/// With batches of two words, the teacher does not prefetch the pre-check's words, so the
/// learner guesses "yes", the teacher checks the guesses, and the exactness pass checks the
/// conjecture; the result is the same.
/// When one batch answers every word the pre-check admits, the language is known, and the
/// teacher accepts the learner's conjecture without a conjecture query: one CBMC run in all,
/// and the same language as the conjecture query and exactness pass give (test below).
#[test]
fn a_complete_batch_decides_the_conjectures_without_cbmc() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let dir = tempfile::tempdir().unwrap();
    let config = FrontEndConfig::new(vec![root().join("tests/programs/loop_calls.c")]);
    let p = instrument(&config, dir.path()).unwrap();
    let bounds = LearnBounds {
        unwind: 2,
        max_word_length: 8,
    };
    let mut teacher = CbmcTeacher::new(
        &p,
        tools,
        root().to_path_buf(),
        bounds,
        TeacherOptions::default(),
    );
    assert!(teacher.prefetch().unwrap() > 0);
    let mut cache = QueryCache::new(p.alphabet.clone());
    for (word, accepted) in teacher.answers_at_bounds() {
        cache
            .insert(&word, Entry::confirmed(accepted, Source::Teacher))
            .unwrap();
    }
    let result = learn(
        &p.alphabet,
        &mut teacher,
        &mut cache,
        &LearnConfig::default(),
    )
    .unwrap();
    assert_eq!(words(&result.dfa), set(&["f end", "g f end", "g g f end"]));
    let t = teacher.stats();
    assert_eq!((t.cbmc_runs, t.conjectures_to_cbmc), (1, 0), "{t:?}");
    assert!(t.conjectures_decided_by_answers >= 1, "{t:?}");
    assert!(teacher.exactness().unwrap().is_complete());
    // What a partial result claims: the learned automaton agrees with every answer up to
    // the bound; one that misses `g g f end` only up to 3 letters; the empty one up to 1
    // (the shortest word, `f end`, has 2).
    assert_eq!(teacher.agrees_up_to(&result.dfa), 8);
    let letter = |n: &str| p.alphabet.letter(n).unwrap();
    // `f end` and `g f end` only.
    let mut short = Dfa::with_states(p.alphabet.clone(), 4);
    short.set_transition(0, letter("f"), 2);
    short.set_transition(0, letter("g"), 1);
    short.set_transition(1, letter("f"), 2);
    short.set_transition(2, p.end, 3);
    short.set_accepting(3, true);
    assert_eq!(words(&short), set(&["f end", "g f end"]));
    assert_eq!(teacher.agrees_up_to(&short), 3);
    assert_eq!(teacher.agrees_up_to(&Dfa::new(p.alphabet.clone())), 1);
}

/// A local function pointer named like a defined function hides it: `f()` is a call
/// through the pointer, which may reach any function whose address is taken (`g`, taken by
/// the initialiser). The pre-check admits `g end`, and the check of the pre-check in the
/// prefetch run has nothing to report (learning takes that one run; `--exact` leaves out
/// the concise automaton's unwinding check).
#[test]
fn a_local_pointer_named_like_a_function_is_a_call_through_the_pointer() {
    let output = learn_in(
        None,
        &[&program("shadowed_pointer.c"), "--no-cache", "--exact"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains("call through the function pointer `f` in `main`"),
        "{text}"
    );
    assert!(!text.contains("pre-check rejected"), "{text}");
    assert!(text.contains("· 1 CBMC runs ·"), "{text}");
    let d = json::from_str(&String::from_utf8_lossy(&output.stdout), "stdout").unwrap();
    assert_eq!(words(&d), set(&["g end"]));
}

#[test]
fn lazy_learning_and_the_exactness_pass_give_the_exact_language() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let dir = tempfile::tempdir().unwrap();
    let config = FrontEndConfig::new(vec![root().join("tests/programs/loop_calls.c")]);
    let p = instrument(&config, dir.path()).unwrap();
    let bounds = LearnBounds {
        unwind: 2,
        max_word_length: 8,
    };
    let options = TeacherOptions {
        batch_size: 2,
        ..TeacherOptions::default()
    };
    let mut teacher = CbmcTeacher::new(&p, tools, root().to_path_buf(), bounds, options);
    assert_eq!(teacher.prefetch().unwrap(), 0);
    let mut cache = QueryCache::new(p.alphabet.clone());
    let config = LearnConfig {
        guess: GuessPolicy::Constant(true),
        ..LearnConfig::default()
    };
    let result = learn(&p.alphabet, &mut teacher, &mut cache, &config).unwrap();
    assert_eq!(words(&result.dfa), set(&["f end", "g f end", "g g f end"]));
    assert!(result.stats.from_guess > 0 && result.stats.guesses_wrong > 0);
    let t = teacher.stats();
    assert!(t.conjectures_to_cbmc >= 1 && t.cbmc_runs >= 2, "{t:?}");
    let exactness = teacher.exactness().unwrap();
    assert!(exactness.is_complete(), "{exactness:?}");
    // Every answer the teacher gave is kept for the store, and holds at these bounds.
    let known = teacher.answers_at_bounds();
    assert!(
        known
            .iter()
            .any(|(w, yes)| *yes && p.alphabet.format_word(w) == "g g f end")
    );
}

#[test]
fn more_words_than_the_exact_limit_are_reported_not_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("choices.c");
    std::fs::write(
        &source,
        "int nondet_int(void);\nvoid a(void) {}\nvoid b(void) {}\nvoid c(void) {}\n\
         int main(void)\n{\n    int n = nondet_int();\n    for (int i = 0; i < n; i++) {\n        \
         switch (nondet_int()) {\n        case 0: a(); break;\n        case 1: b(); break;\n        \
         default: c();\n        }\n    }\n    return 0;\n}\n",
    )
    .unwrap();
    let out = dir.path().join("out.json");
    let output = learn_in(
        Some(dir.path()),
        &[
            "choices.c",
            "--unwind",
            "3",
            "--max-word-length",
            "8",
            "--exact-limit",
            "5",
            "--no-cache",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("exact up to length"), "{err}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let exact = doc["learned"]["exact_up_to"].as_u64().unwrap();
    assert!(exact < 8, "{doc}");
    // Three choices, up to three iterations: 1 + 3 + 9 + 27 words.
    assert_eq!(words(&json::read(&out).unwrap()).len(), 40);
}

#[test]
fn a_second_run_asks_cbmc_nothing_and_a_corrupt_cache_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let run = |n: usize| {
        let s = dir.path().join(format!("stats{n}.json"));
        let output = learn_in(
            None,
            &[
                &program("two_paths.c"),
                "--cache-dir",
                cache.to_str().unwrap(),
                "--stats",
                s.to_str().unwrap(),
            ],
        );
        assert!(output.status.success(), "{}", stderr(&output));
        (output, stats(&s))
    };
    let (first, s1) = run(1);
    assert!(s1["cbmc_runs"].as_u64().unwrap() > 0);
    let (second, s2) = run(2);
    assert_eq!(s2["cbmc_runs"], 0, "{s2}");
    assert!(s2["cache"]["loaded_answers"].as_u64().unwrap() > 0);
    assert_eq!(first.stdout, second.stdout);
    assert!(
        stderr(&second).contains("· 0 CBMC runs ·"),
        "{}",
        stderr(&second)
    );

    let files: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::write(&files[0], "{\"format\":\"mergelens-cache/1\",").unwrap();
    let (third, s3) = run(3);
    assert!(
        stderr(&third).contains(&format!(
            "warning: cache entry {} failed its check (no MAC) and was recomputed",
            files[0].display()
        )),
        "{}",
        stderr(&third)
    );
    assert!(s3["cbmc_runs"].as_u64().unwrap() > 0);
    assert_eq!(first.stdout, third.stdout);
    // The corrupt file was replaced by a good one.
    let (_, s4) = run(4);
    assert_eq!(s4["cbmc_runs"], 0);
}

#[test]
fn the_cache_goes_under_the_git_directory_or_the_user_cache() {
    let repo = tempfile::tempdir().unwrap();
    git2::Repository::init(repo.path()).unwrap();
    std::fs::copy(program("fig12_base.c"), repo.path().join("base.c")).unwrap();
    let output = learn_in(Some(repo.path()), &["base.c", "-o", "/dev/null"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let cache = repo.path().join(".git/mergelens/cache");
    assert_eq!(std::fs::read_dir(&cache).unwrap().count(), 1);
    // Nothing else was written into the working tree.
    let mut tree: Vec<String> = std::fs::read_dir(repo.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    tree.sort();
    assert_eq!(tree, [".git", "base.c"]);

    let plain = tempfile::tempdir().unwrap();
    let xdg = tempfile::tempdir().unwrap();
    std::fs::copy(program("fig12_base.c"), plain.path().join("base.c")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(plain.path())
        .env("XDG_CACHE_HOME", xdg.path())
        .env("MERGELENS_CACHE_KEY", TEST_CACHE_KEY)
        .env("GIT_CEILING_DIRECTORIES", plain.path().parent().unwrap())
        .args(["learn", "base.c", "-o", "/dev/null"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_dir(xdg.path().join("mergelens"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn auto_bounds_raise_the_bounds_until_the_automaton_stops_changing() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("stats.json");
    let d = learned(&[
        &program("loop_calls.c"),
        "--auto-bounds",
        "--max-unwind",
        "2",
        "--max-word-length",
        "8",
        "--stats",
        s.to_str().unwrap(),
    ]);
    // Each unwinding adds a word, so the search ends at the largest one, unconverged.
    assert_eq!(words(&d), set(&["f end", "g f end", "g g f end"]));
    let b = &stats(&s)["bounds"];
    assert_eq!(
        (b["unwind"].as_u64(), b["converged"].as_bool()),
        (Some(2), Some(false)),
        "{b}"
    );
    // The merge example needs no loop: the automaton is the same at unwindings 1 and 2.
    let d = learned(&[
        &program("fig12_merged.c"),
        "--auto-bounds",
        "--stats",
        s.to_str().unwrap(),
    ]);
    assert_eq!(
        words(&d),
        set(&["funcA funcZ funcB end", "funcA funcZ funcC end"])
    );
    let b = &stats(&s)["bounds"];
    assert_eq!(
        (b["unwind"].as_u64(), b["converged"].as_bool()),
        (Some(2), Some(true)),
        "{b}"
    );
    // The word length starts at the shortest word of the pre-check automaton (4 letters).
    assert_eq!(b["learn_runs"][0]["max_word_length"], 4, "{b}");
}

#[test]
fn outputs_carry_the_marks_and_the_statistics_count_queries_by_source() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("stats.json");
    let output = learn_in(
        None,
        &[
            &program("fig12_merged.c"),
            "--no-cache",
            "--format",
            "dot",
            "--stats",
            s.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let dot = String::from_utf8_lossy(&output.stdout);
    assert!(dot.starts_with("digraph \"main\""), "{dot}");
    // funcZ dominates (bold), and every state before end is doomed (filled).
    assert!(dot.contains("label=\"funcZ\", penwidth"), "{dot}");
    assert!(dot.contains("tooltip=\"doomed\""), "{dot}");
    let summary = stderr(&output);
    let last = summary.lines().last().unwrap();
    assert!(
        last.starts_with("learned 5 states · ")
            && last.contains(" CBMC runs · ")
            && last.contains(" pre-check, "),
        "{summary}"
    );
    let s = stats(&s);
    for key in [
        "membership_queries",
        "from_precheck",
        "from_cache",
        "from_guess",
        "cbmc_runs",
        "cbmc_seconds",
    ] {
        assert!(s[key].is_number(), "{key}: {s}");
    }
    assert_eq!(s["bounds"]["cbmc_unwind"], 3);
    assert_eq!(s["exactness"]["exact_up_to"], 10);
    assert!(s["from_precheck"].as_u64().unwrap() > s["membership_queries"].as_u64().unwrap() / 2);

    let output = learn_in(
        None,
        &[&program("fig12_merged.c"), "--no-cache", "--format", "svg"],
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("<svg"));
    let d = learned(&[&program("fig12_merged.c")]);
    let output = learn_in(None, &[&program("fig12_merged.c"), "--no-cache"]);
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        doc["learned"]["dominating"],
        serde_json::json!(["funcA", "funcZ", "end"])
    );
    assert_eq!(
        doc["learned"]["doomed"].as_array().unwrap().len(),
        d.num_states() - 1
    );
}

/// Runs a failing `mergelens learn` with `TMPDIR` pointing at an empty directory; returns
/// the exit code and the message, after checking that the message is one line, and that
/// neither the output file nor any temporary file was left behind.
fn fails(dir: &Path, args: &[&str]) -> (i32, String) {
    let tmp = tempfile::tempdir().unwrap();
    let out = dir.join("never.json");
    let output = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .current_dir(dir)
        .env("TMPDIR", tmp.path())
        .arg("learn")
        .args(args)
        .args(["--no-cache", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    // Progress lines come every few seconds on a slow machine; the error is one line.
    let err: String = stderr(&output)
        .lines()
        .filter(|l| !l.starts_with("mergelens: progress:"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("mergelens: error: "), "{err}");
    assert!(!out.exists());
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    (output.status.code().unwrap(), err)
}

#[test]
fn bad_input_stops_with_one_line_and_an_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (code, err) = fails(d, &[&program("syntax_error.c")]);
    assert_eq!(code, 2);
    assert!(err.contains("syntax_error.c:7:"), "{err}");

    let (code, err) = fails(d, &[&program("fig12_base.c"), "--entry", "start"]);
    assert_eq!(code, 2);
    assert!(err.contains("`start`"), "{err}");

    std::fs::write(d.join("empty.c"), "int main(void) { return 0; }\n").unwrap();
    let (code, err) = fails(d, &["empty.c"]);
    assert_eq!(code, 2);
    assert!(err.contains("no events"), "{err}");

    let (code, err) = fails(
        d,
        &[&program("fig12_base.c"), "--cbmc", "/nonexistent/cbmc"],
    );
    assert_eq!(code, 5);
    assert!(err.contains("install-cbmc.sh"), "{err}");
}

#[test]
fn a_query_over_the_timeout_is_an_error_naming_the_query_and_the_bounds() {
    let dir = tempfile::tempdir().unwrap();
    // Reaching found() means factoring a 64-bit semiprime: no quick answer.
    let hard = program("hard_factor.c");
    let (code, err) = fails(dir.path(), &[&hard, "--query-timeout", "1"]);
    assert_eq!(code, 4);
    assert!(err.contains("CBMC timed out after 1.0 s"), "{err}");
    assert!(err.contains("[found end]"), "{err}");
    assert!(err.contains("--unwind 2 --max-word-length 10"), "{err}");
    // Nothing here allocates: the error names no option about allocations.
    assert!(!err.contains("--allocations"), "{err}");

    // The same program allocating: the error names the option that drops the clean-up
    // paths after a failed allocation, and with it the run is no quicker here (the cost is
    // the factoring) but still names the query.
    let text = std::fs::read_to_string(&hard).unwrap().replace(
        "        found();",
        "        { char *p = malloc(4); if (p) found(); free(p); }",
    );
    let allocating = dir.path().join("hard_alloc.c");
    std::fs::write(&allocating, format!("#include <stdlib.h>\n{text}")).unwrap();
    let (code, err) = fails(dir.path(), &["hard_alloc.c", "--query-timeout", "1"]);
    assert_eq!(code, 4);
    assert!(err.ends_with("(--allocations succeed)"), "{err}");
    let (code, err) = fails(
        dir.path(),
        &[
            "hard_alloc.c",
            "--query-timeout",
            "1",
            "--allocations",
            "succeed",
        ],
    );
    assert_eq!(code, 4);
    assert!(!err.contains("--allocations"), "{err}");
}

#[test]
fn allocations_that_succeed_are_said_in_the_summary_and_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("a.json");
    let run = |extra: &[&str]| {
        let mut args = vec![
            program("allocation_failure.c"),
            "--unwind".into(),
            "1".into(),
            "--max-word-length".into(),
            "4".into(),
            "--no-cache".into(),
            "-o".into(),
            out.to_string_lossy().into_owned(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = learn_in(None, &args);
        assert!(output.status.success(), "{}", stderr(&output));
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        (stderr(&output), value)
    };
    let (err, value) = run(&[]);
    assert_eq!(value["learned"]["allocations"], "may-fail", "{value}");
    assert!(!err.contains("allocations assumed"), "{err}");
    let (err, value) = run(&["--allocations", "succeed"]);
    assert_eq!(value["learned"]["allocations"], "succeed", "{value}");
    assert!(
        err.contains("allocations assumed to succeed (executions in which one fails left out)"),
        "{err}"
    );
    // The report made from the document says it among the facts.
    let html = dir.path().join("a.html");
    let report = Command::new(env!("CARGO_BIN_EXE_mergelens"))
        .arg("report")
        .arg(&out)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert!(report.status.success(), "{}", stderr(&report));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("assumed to succeed: executions in which one fails are left out"),
        "{page}"
    );
}

/// A CBMC installation in `dir/bin` whose `cbmc` is the shell script `cbmc_body`, and whose
/// `goto-cc` and `goto-instrument` are the real ones; the path of its `cbmc`.
fn fake_cbmc(dir: &Path, cbmc_body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let real = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let fake = dir.join("bin");
    std::fs::create_dir(&fake).unwrap();
    let tools = [
        ("cbmc", cbmc_body.to_string()),
        (
            "goto-cc",
            format!("exec '{}' \"$@\"", real.goto_cc.display()),
        ),
        (
            "goto-instrument",
            format!("exec '{}' \"$@\"", real.goto_instrument.display()),
        ),
    ];
    for (name, body) in tools {
        let path = fake.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    fake.join("cbmc")
}

#[test]
fn a_batch_past_the_query_timeout_is_split_until_each_word_is_answered() {
    // A CBMC that never answers a batch of two words or more in time (the linked program
    // holds the property of a second word), and answers single words as the real one does.
    let dir = tempfile::tempdir().unwrap();
    let real = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let cbmc = fake_cbmc(
        dir.path(),
        &format!(
            "if [ -f \"$1\" ] && grep -q -a 'mergelens word 1' \"$1\"; then sleep 60; fi\nexec '{}' \"$@\"",
            real.cbmc.display()
        ),
    );
    let s = dir.path().join("stats.json");
    let d = learned(&[
        &program("loop_calls.c"),
        "--cbmc",
        cbmc.to_str().unwrap(),
        "--query-timeout",
        "2",
        "--max-word-length",
        "5",
        "--stats",
        s.to_str().unwrap(),
    ]);
    assert_eq!(
        words(&d),
        words(&learned(&[
            &program("loop_calls.c"),
            "--max-word-length",
            "5"
        ]))
    );
    let teacher = &stats(&s)["teacher"];
    assert!(teacher["batches_split"].as_u64().unwrap() >= 1, "{teacher}");
}

#[test]
fn more_addressed_objects_than_cbmcs_default_raise_its_object_bits() {
    // 300 globals whose address is taken: CBMC's default allows 256 objects.
    let n = 300;
    let mut c = String::from("int nondet_int(void);\nvoid hit(void) {}\n");
    for i in 0..n {
        c.push_str(&format!("int g{i};\n"));
    }
    let table: Vec<String> = (0..n).map(|i| format!("&g{i}")).collect();
    c.push_str(&format!("int *table[{n}] = {{{}}};\n", table.join(", ")));
    c.push_str(&format!(
        "int main(void)\n{{\n    int k = nondet_int();\n    if (k < 0 || k >= {n})\n        return 0;\n    *table[k] = 1;\n    if (g7 == 1)\n        hit();\n    return 0;\n}}\n"
    ));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("objects.c");
    std::fs::write(&file, c).unwrap();
    let out = learn_in(Some(dir.path()), &[file.to_str().unwrap(), "--no-cache"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--object-bits 12"),
        "{}",
        stderr(&out)
    );
    let d = json::from_str(&String::from_utf8_lossy(&out.stdout), "out").unwrap();
    assert_eq!(words(&d), set(&["end", "hit end"]));
}

#[test]
fn a_cbmc_crash_is_an_error_not_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    let real = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let cbmc = fake_cbmc(
        dir.path(),
        &format!(
            "if [ \"$1\" = --version ]; then echo '{} (fake)'; exit 0; fi\nkill -SEGV $$",
            real.version
        ),
    );
    let (code, err) = fails(
        dir.path(),
        &[&program("fig12_base.c"), "--cbmc", cbmc.to_str().unwrap()],
    );
    assert_eq!(code, 4);
    assert!(
        err.contains("[funcA funcB end]") && err.contains("signal 11"),
        "{err}"
    );
}

#[test]
fn the_c_library_behaves_as_the_c_library_at_the_programs_bound() {
    // isspace is CBMC's model, not glibc's table (no `blank key`), and the 50-iteration
    // strncpy runs under the library's bound, not --unwind 2 (no empty language).
    let d = learned(&[&program("libc_strings.c"), "--unwind", "2"]);
    assert_eq!(
        words(&d),
        set(&[
            "end",
            "blank end",
            "key end",
            "assign end",
            "pair end",
            "blank pair end",
            "key pair end",
            "assign pair end",
            "blank assign pair end",
            "key assign pair end",
        ])
    );
}

#[test]
fn an_empty_language_is_a_warning_that_names_the_cut_loop() {
    // The loop always runs 5 times: --unwind 2 cuts every execution.
    let output = learn_in(
        None,
        &[&program("cut_loop.c"), "--unwind", "2", "--no-cache"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains("warning: the learned language is empty: no execution returns from `main` within the bounds: --unwind 2 cuts every path at the loop(s) ")
            && err.contains("cut_loop.c:6 in `main`; raise --unwind"),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let learned = &doc["learned"];
    assert!(
        learned["empty_reason"]
            .as_str()
            .unwrap()
            .contains("raise --unwind")
    );
    assert_eq!(learned["cut_loops"].as_array().unwrap().len(), 1);
    assert_eq!(learned["cut_loops"][0]["line"], 6);
    assert_eq!(learned["cut_loops"][0]["function"], "main");
    // At --unwind 5 the loop runs whole: one word, no warning.
    let output = learn_in(
        None,
        &[&program("cut_loop.c"), "--unwind", "5", "--no-cache"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!stderr(&output).contains("empty"), "{}", stderr(&output));
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(doc["learned"].get("empty_reason").is_none());
}

#[test]
fn a_program_with_non_ascii_file_names_and_comments_learns() {
    // The line marker of größe.h is longer in bytes than in characters: every edit after
    // it must still land where the parser saw its node.
    let d = learned(&[&program("umlaute.c")]);
    assert_eq!(words(&d), set(&["klein pruefe end", "gross pruefe end"]));
}

#[test]
fn a_library_bound_too_small_for_the_buffer_is_named() {
    // strncpy(buf, in, 50) needs 50 iterations; at --library-unwind 10 every path is cut
    // inside CBMC's model of strncpy.
    let output = learn_in(
        None,
        &[
            &program("libc_strings.c"),
            "--library-unwind",
            "10",
            "--no-cache",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(
        err.contains(
            "the C library's bound cuts every path at the loop(s) <builtin-library-strncpy>:"
        ) && err.contains("in `strncpy`; raise --library-unwind"),
        "{err}"
    );
}

#[test]
fn k_and_r_definitions_and_implicit_int_are_learned_like_modern_c() {
    let d = learned(&[&program("knr.c")]);
    let names: Vec<&str> = d.alphabet().names().collect();
    assert_eq!(names, ["log_it", "scale", "end"]);
    assert_eq!(words(&d), set(&["scale end", "scale log_it end"]));
    // The lines the user sees are those of the file: the events' sites keep them.
    let out = tempfile::tempdir().unwrap();
    let p = instrument(
        &FrontEndConfig::new(vec![program("knr.c").into()]),
        out.path(),
    )
    .unwrap();
    let line = |name: &str| p.functions.iter().find(|f| f.name == name).unwrap().line;
    assert_eq!((line("log_it"), line("scale"), line("main")), (6, 13, 22));
    assert_eq!(
        p.functions
            .iter()
            .find(|f| f.name == "scale")
            .unwrap()
            .parameters,
        ["int a", "char *label", "int k"]
    );
}

#[test]
fn an_entry_with_parameters_is_called_by_a_generated_harness() {
    // `s` points to a NUL-terminated buffer of 4 bytes: at most 3 characters, each `a`
    // (token) or not (other); `limit` is any int, so `report` may be skipped.
    let d = learned(&[
        &program("entry_params.c"),
        "--entry",
        "count_a",
        "--unwind",
        "6",
        "--max-word-length",
        "8",
    ]);
    let mut expected = BTreeSet::new();
    let mut prefixes = vec![String::new()];
    for _ in 0..=3 {
        let mut next = Vec::new();
        for p in &prefixes {
            expected.insert(format!("{p}end"));
            expected.insert(format!("{p}report end"));
            next.push(format!("{p}token "));
            next.push(format!("{p}other "));
        }
        prefixes = next;
    }
    assert_eq!(words(&d), expected);
    let out = tempfile::tempdir().unwrap();
    let mut config = FrontEndConfig::new(vec![program("entry_params.c").into()]);
    config.entry = "count_a".into();
    let p = instrument(&config, out.path()).unwrap();
    assert_eq!(p.entry, "count_a");
    assert_eq!(p.cbmc_entry, "__mergelens_call_count_a");
    // `main` keeps CBMC's own model of argc and argv.
    let p = instrument(
        &FrontEndConfig::new(vec![program("fig12_base.c").into()]),
        out.path(),
    )
    .unwrap();
    assert_eq!(p.cbmc_entry, "main");
}

#[test]
fn gnu_extensions_are_learned_like_standard_c() {
    let d = learned(&[&program("gnu.c")]);
    assert_eq!(
        words(&d),
        set(&["twice end", "low twice end", "high twice end"])
    );
}

#[test]
fn functions_defined_in_the_projects_headers_are_letters_and_cbmc_builtins_are_known() {
    let output = learn_in(None, &[&program("header_helper.c"), "--no-cache"]);
    assert!(output.status.success(), "{}", stderr(&output));
    // No false warning about `__CPROVER_assume` being undeclared.
    assert!(!stderr(&output).contains("warning"), "{}", stderr(&output));
    let d = json::from_str(&String::from_utf8_lossy(&output.stdout), "learn output").unwrap();
    assert_eq!(words(&d), set(&["helper end", "helper f end"]));
}

/// A program the front end cannot see through in six places: one line counts the
/// warnings by kind (a warning about the user's own option is shown in full), `--verbose`
/// lists them, and the JSON carries each with its kind.
#[test]
fn many_front_end_warnings_are_one_line_unless_verbose() {
    let file = program("many_warnings.c");
    let quiet = learn_in(None, &[&file, "--no-cache", "--exclude", "nope"]);
    let said = stderr(&quiet);
    assert!(quiet.status.success(), "{said}");
    assert!(
        said.contains(
            "mergelens: note: 6 front-end warnings (calls through function pointers: 4, goto: 2); --verbose lists them\n"
        ),
        "{said}"
    );
    assert!(
        said.contains("mergelens: warning: --exclude nope: no event of the program has this name"),
        "{said}"
    );
    assert!(
        !said.contains("call through the function pointer"),
        "{said}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&quiet.stdout).unwrap();
    let warnings = doc["learned"]["front_end_warnings"]
        .as_array()
        .expect("the warnings in the JSON");
    let kinds: Vec<&str> = warnings
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| **k == "function-pointer").count(),
        4
    );
    assert_eq!(kinds.iter().filter(|k| **k == "goto").count(), 2);
    assert!(kinds.contains(&"unknown-name"), "{kinds:?}");
    assert!(
        warnings.iter().any(|w| w["message"]
            .as_str()
            .unwrap()
            .ends_with("many_warnings.c:16: call through the function pointer `first` in `main`: its events are not known before CBMC runs")),
        "{warnings:?}"
    );

    let verbose = learn_in(None, &[&file, "--no-cache", "--verbose"]);
    let said = stderr(&verbose);
    assert!(verbose.status.success(), "{said}");
    assert_eq!(said.matches("mergelens: warning: ").count(), 6, "{said}");
    assert!(
        said.contains("goto in `main`: events follow the jump to its label"),
        "{said}"
    );
    assert!(!said.contains("front-end warnings ("), "{said}");
}
