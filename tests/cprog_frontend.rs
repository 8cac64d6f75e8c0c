//! The C front end on the programs of tests/programs/: alphabets per event kind, instrumented
//! copies that gcc and goto-cc compile, errors at the user's file:line, markers, warnings,
//! and the pre-check automaton, whose soundness the real CBMC checks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use mergelens::automaton::analysis::{count_up_to, words_up_to};
use mergelens::automaton::{Alphabet, Word};
use mergelens::cbmc::{Bounds, GotoProgram, Toolchain};
use mergelens::cprog::{
    AssertionTarget, EventKind, FrontEndConfig, FrontEndError, FrontEndWarning, HunkCode,
    InstrumentedProgram, LineRange, SiteKind, WarningKind, instrument, instrument_error,
    syntax_automaton,
};

fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

fn config(files: &[&str], events: EventKind) -> FrontEndConfig {
    let mut c = FrontEndConfig::new(files.iter().map(|f| programs().join(f)).collect());
    c.events = events;
    c
}

fn run(c: &FrontEndConfig) -> (tempfile::TempDir, InstrumentedProgram) {
    let dir = tempfile::tempdir().unwrap();
    let program = instrument(c, dir.path()).unwrap_or_else(|e| panic!("{e}"));
    (dir, program)
}

fn names(alphabet: &Alphabet) -> Vec<&str> {
    alphabet.names().collect()
}

/// Every program of tests/programs/ that is valid C, with the files it consists of.
const PROGRAMS: [&[&str]; 15] = [
    &["fig12_base.c"],
    &["fig12_ours.c"],
    &["fig12_theirs.c"],
    &["fig12_merged.c"],
    &["loop_calls.c"],
    &["recursion.c"],
    &["exit_in_callee.c"],
    &["input_branch.c"],
    &["two_paths.c"],
    &["markers.c"],
    &["switch_case.c"],
    &["function_pointer.c"],
    &["multi_main.c", "multi_util.c"],
    &["constructs.c"],
    &["variadic.c"],
];

/// The instrumented program compiled by goto-cc, from the repository root (the `#line`
/// markers' paths are relative to it).
fn goto_of(tools: &Toolchain, p: &mergelens::cprog::InstrumentedProgram) -> GotoProgram {
    GotoProgram::compile(
        tools,
        &p.paths,
        &[],
        &[],
        Path::new(env!("CARGO_MANIFEST_DIR")),
    )
    .unwrap_or_else(|e| panic!("goto-cc on {:?}: {e}", p.paths))
}

#[test]
fn function_entries_are_the_default_alphabet() {
    let (_dir, p) = run(&config(&["fig12_merged.c"], EventKind::Functions));
    assert_eq!(
        names(&p.alphabet),
        ["funcA", "funcB", "funcC", "funcZ", "end"]
    );
    assert_eq!(p.end, 4);
    assert_eq!(p.entry, "main");
    let funcz = p.events.iter().find(|e| e.function == "funcZ").unwrap();
    assert_eq!(
        (funcz.kind, funcz.line, funcz.letter),
        (SiteKind::FunctionEntry, 16, 3)
    );
    assert!(funcz.file.ends_with("tests/programs/fig12_merged.c"));
    let funcz = p.functions.iter().find(|f| f.name == "funcZ").unwrap();
    assert_eq!((funcz.line, funcz.end_line), (16, 22));
    let main = p.functions.iter().find(|f| f.name == "main").unwrap();
    assert_eq!(
        (main.line, main.parameters.as_slice()),
        (24, ["void".to_string()].as_slice())
    );
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn calls_are_letters_callee_at_line() {
    let (_dir, p) = run(&config(&["two_paths.c"], EventKind::Calls));
    assert_eq!(
        names(&p.alphabet),
        ["h1@15", "h2@17", "g@22", "g@27", "f1@33", "f2@35", "end"]
    );
    assert!(p.events.iter().all(|e| e.kind == SiteKind::Call));
    // Library calls and calls of functions without a body are not events.
    let (_dir, p) = run(&config(&["exit_in_callee.c"], EventKind::Calls));
    assert_eq!(names(&p.alphabet), ["g@21", "f@24", "end"]);
}

#[test]
fn branches_are_arms_cases_and_loop_bodies() {
    let (_dir, p) = run(&config(&["input_branch.c"], EventKind::Branches));
    assert_eq!(
        names(&p.alphabet),
        [
            "main:16:then",
            "main:16:else",
            "main:20:then",
            "main:20:else",
            "end"
        ]
    );
    let (_dir, p) = run(&config(&["switch_case.c"], EventKind::Branches));
    assert_eq!(
        names(&p.alphabet),
        ["main:15:case", "main:18:case", "main:21:case", "end"]
    );
    let (_dir, p) = run(&config(&["loop_calls.c"], EventKind::Branches));
    assert_eq!(names(&p.alphabet), ["main:22:loop", "end"]);
}

#[test]
fn only_and_exclude_restrict_the_alphabet() {
    let mut c = config(&["fig12_merged.c"], EventKind::Functions);
    c.only = Some(BTreeSet::from([
        "funcC".to_string(),
        "funcZ".to_string(),
        "nope".to_string(),
    ]));
    c.exclude = BTreeSet::from(["funcZ".to_string()]);
    let (dir, p) = run(&c);
    assert_eq!(names(&p.alphabet), ["funcC", "end"]);
    assert_eq!(
        p.warnings,
        [FrontEndWarning::new(
            WarningKind::UnknownName,
            "--only nope: no event of the program has this name".into()
        )]
    );
    let text = std::fs::read_to_string(&p.path).unwrap();
    assert_eq!(text.matches("__mergelens_event(").count(), 2, "{text}"); // declaration + funcC
    drop(dir);

    c.only = Some(BTreeSet::from(["nope".to_string()]));
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        instrument(&c, dir.path()),
        Err(FrontEndError::EmptyAlphabet)
    ));
}

#[test]
fn a_program_without_events_of_the_kind_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = instrument(&config(&["fig12_base.c"], EventKind::Branches), dir.path()).unwrap_err();
    assert!(matches!(e, FrontEndError::EmptyAlphabet), "{e}");
}

#[test]
fn markers_are_always_events() {
    let (_dir, p) = run(&config(&["markers.c"], EventKind::Functions));
    assert_eq!(
        names(&p.alphabet),
        [
            "parse",
            "bad_input",
            "parsed",
            "error_path",
            "ok_path",
            "end"
        ]
    );
    let marker = p
        .events
        .iter()
        .find(|e| e.kind == SiteKind::Marker)
        .unwrap();
    assert_eq!((marker.line, marker.function.as_str()), (12, "parse"));
    let text = std::fs::read_to_string(&p.path).unwrap();
    assert!(!text.contains("__mergelens_marker"), "{text}");

    // With only the markers of main, those of parse disappear from the code.
    let mut c = config(&["markers.c"], EventKind::Calls);
    c.only = Some(BTreeSet::from([
        "ok_path".to_string(),
        "error_path".to_string(),
    ]));
    let (_dir, p) = run(&c);
    assert_eq!(names(&p.alphabet), ["error_path", "ok_path", "end"]);
    let text = std::fs::read_to_string(&p.path).unwrap();
    assert_eq!(text.matches("((void)0)").count(), 2);
}

#[test]
fn function_pointers_and_gotos_are_warned_about() {
    let (_dir, p) = run(&config(&["function_pointer.c"], EventKind::Functions));
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    assert!(
        p.warnings[0].message.ends_with(
            "function_pointer.c:15: call through the function pointer `handler` in `main`: its events are not known before CBMC runs"
        ),
        "{}",
        p.warnings[0]
    );
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("jump.c");
    std::fs::write(
        &source,
        "void f(void) {}\nint main(void) {\n  goto done;\n  f();\ndone:\n  return (*&f)(), 0;\n}\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let p = instrument(&FrontEndConfig::new(vec![source]), out.path()).unwrap();
    assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
    assert!(p.warnings[0].message.contains("jump.c:3: goto in `main`"));
    assert!(
        p.warnings[1]
            .message
            .contains("jump.c:6: call through the function pointer `*&f`")
    );
    let kinds: Vec<WarningKind> = p.warnings.iter().map(|w| w.kind).collect();
    assert_eq!(kinds, [WarningKind::Goto, WarningKind::FunctionPointer]);
    // f is only called through a pointer here, so the pre-check lets it happen anywhere.
    let d = syntax_automaton(&p, 3, 8);
    assert!(d.accepts_names(&["f", "end"]) && d.accepts_names(&["end"]));
}

#[test]
fn syntax_errors_point_at_the_users_line() {
    let dir = tempfile::tempdir().unwrap();
    let e = instrument(
        &config(&["syntax_error.c"], EventKind::Functions),
        dir.path(),
    )
    .unwrap_err();
    match &e {
        FrontEndError::SyntaxError {
            file,
            line,
            column,
            message,
        } => {
            assert!(file.ends_with("tests/programs/syntax_error.c"), "{e}");
            assert_eq!((*line, *column), (7, 18), "{e}");
            assert!(message.contains("expected expression"), "{e}");
        }
        other => panic!("not a syntax error: {other}"),
    }
    assert!(
        e.to_string()
            .contains("syntax_error.c:7:18: C syntax error")
    );
}

/// gcc writes `va_arg(ap, char *)` as `__builtin_va_arg(ap, char *)` and `offsetof` as
/// `__builtin_offsetof(struct message, text)`: type names as arguments, which tree-sitter-c
/// cannot read. The front end reads around them, finds the events inside the loop, and
/// hands the compiler gcc's text (its languages and compilation: `PROGRAMS`).
#[test]
fn type_names_as_built_in_arguments_are_read_where_gcc_reads_them() {
    let (_dir, p) = run(&config(&["variadic.c"], EventKind::Calls));
    assert_eq!(
        names(&p.alphabet),
        [
            "emit@26",
            "emit_all@35",
            "text_offset@36",
            "aligned@37",
            "padded@39",
            "end"
        ]
    );
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    // gcc spreads a system macro's expansion over lines between line markers.
    let text: String = std::fs::read_to_string(&p.path)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('#'))
        .flat_map(str::split_whitespace)
        .collect();
    assert!(text.contains("__builtin_va_arg(ap,char*)"), "{text}");
    assert!(
        text.contains("__builtin_offsetof(structmessage,text)"),
        "{text}"
    );
    let (_dir, p) = run(&config(&["variadic.c"], EventKind::Branches));
    assert_eq!(
        names(&p.alphabet),
        ["emit_all:25:loop", "main:36:then", "main:36:else", "end"]
    );
}

#[test]
fn a_missing_entry_names_the_defined_functions() {
    let mut c = config(&["fig12_base.c"], EventKind::Functions);
    c.entry = "start".into();
    let dir = tempfile::tempdir().unwrap();
    match instrument(&c, dir.path()).unwrap_err() {
        FrontEndError::MissingEntry { entry, defined } => {
            assert_eq!(entry, "start");
            assert_eq!(defined, ["funcA", "funcB", "main"]);
        }
        other => panic!("{other}"),
    }
}

#[test]
fn preprocessor_options_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let include = dir.path().join("inc");
    std::fs::create_dir(&include).unwrap();
    std::fs::write(
        include.join("helper.h"),
        "static inline void helper(void) {}\n",
    )
    .unwrap();
    let source = dir.path().join("prog.c");
    std::fs::write(
        &source,
        "#include \"helper.h\"\nvoid f(void) {}\nint main(void) {\n#ifdef FEATURE\n  f();\n#endif\n  helper();\n  return 0;\n}\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut c = FrontEndConfig::new(vec![source.clone()]);
    c.events = EventKind::Calls;
    c.include_dirs = vec![include];
    c.defines = vec!["FEATURE=1".into()];
    let p = instrument(&c, out.path()).unwrap();
    // helper is defined in a project header the analysed file includes: its calls are events
    // (issue 14: functions of the analysed files' headers are letters; they were not before).
    assert_eq!(names(&p.alphabet), ["f@5", "helper@7", "end"]);
    let helper = p.functions.iter().find(|f| f.name == "helper").unwrap();
    assert_eq!(helper.origin, mergelens::cprog::FunctionOrigin::Header);
    assert!(helper.file.ends_with("inc/helper.h") && helper.line == 1 && helper.end_line == 1);

    c.include_dirs.clear();
    match instrument(&c, out.path()).unwrap_err() {
        FrontEndError::Preprocess { file, message } => {
            assert_eq!(file, source);
            assert!(message.contains("helper.h"), "{message}");
        }
        other => panic!("{other}"),
    }
    c.files = vec![dir.path().join("missing.c")];
    assert!(matches!(
        instrument(&c, out.path()),
        Err(FrontEndError::Io { .. })
    ));
}

#[test]
fn the_entry_function_ends_every_word_on_every_return() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("ret.c");
    std::fs::write(
        &source,
        "struct pair { int a, b; };\nint nondet_int(void);\nvoid f(void) {}\nconst struct pair *pick(int k) {\n  static struct pair p;\n  if (k) return f(), &p;\n  if (k > 1) return 0;\n  f();\n}\nvoid start(void) {\n  if (nondet_int()) return f();\n  pick(1);\n  if (nondet_int()) return;\n}\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let mut c = FrontEndConfig::new(vec![source]);
    for entry in ["pick", "start"] {
        c.entry = entry.into();
        let p = instrument(&c, out.path()).unwrap();
        let text = std::fs::read_to_string(&p.path).unwrap();
        // 2 returns + the end of the body
        assert_eq!(text.matches("__mergelens_end();").count(), 3, "{text}");
        compile_with_gcc(&p);
        let d = syntax_automaton(&p, 3, 8);
        if entry == "pick" {
            assert!(d.accepts_names(&["f", "end"]) && d.accepts_names(&["end"]));
        } else {
            assert!(d.accepts_names(&["f", "end"]) && d.accepts_names(&["pick", "f", "end"]));
            assert!(!d.accepts_names(&["f", "pick", "end"]));
        }
    }
}

#[test]
fn hunk_marks_and_shared_inputs_keep_every_program_valid_c() {
    // Every line of every program a hunk of its own, in the product's instrumentation: each
    // statement kind (for headers, switch arms, do-while, goto targets, declarations) gets
    // its mark without breaking the program, and the uninitialised locals their fills.
    // Coverage marks with each kind of events (as the automaton was learned), and the
    // product's returns, call sites and shared inputs with each kind too.
    let kinds = EventKind::ALL
        .into_iter()
        .flat_map(|k| [(k, false), (k, true)]);
    for (files, (events, product)) in PROGRAMS
        .iter()
        .flat_map(|f| kinds.clone().map(move |k| (*f, k)))
    {
        let mut c = config(files, events);
        c.record_returns = product;
        c.share_inputs = product;
        for f in files.iter() {
            let path = programs().join(f);
            let lines = std::fs::read_to_string(&path).unwrap().lines().count() as u32;
            c.mark_hunks.extend((1..=lines).map(|l| LineRange {
                file: path.clone(),
                start: l,
                end: l,
            }));
        }
        let dir = tempfile::tempdir().unwrap();
        let p = match instrument(&c, dir.path()) {
            Ok(p) => p,
            // A program without branches (or calls) has nothing to learn with them.
            Err(FrontEndError::EmptyAlphabet) => continue,
            Err(e) => panic!("{files:?} {events}: {e}"),
        };
        let text: String = p
            .paths
            .iter()
            .map(|path| std::fs::read_to_string(path).unwrap())
            .collect();
        assert!(text.contains("__mergelens_hit("), "{files:?}");
        assert!(p.hunk_code.contains(&HunkCode::Statement), "{files:?}");
        if product {
            assert!(text.contains("__mergelens_site("), "{files:?} {events}");
        }
        compile_with_gcc(&p);
    }
}

fn compile_with_gcc(p: &InstrumentedProgram) {
    for path in &p.paths {
        let out = Command::new("gcc")
            .args([
                "-c",
                "-o",
                "/dev/null",
                "-Werror=implicit-function-declaration",
            ])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "gcc -c {}: {}\n{}",
            path.display(),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(path).unwrap()
        );
    }
}

#[test]
fn instrumented_programs_compile_with_gcc_and_goto_cc() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    for files in PROGRAMS {
        for kind in EventKind::ALL {
            let dir = tempfile::tempdir().unwrap();
            let p = match instrument(&config(files, kind), dir.path()) {
                Ok(p) => p,
                Err(FrontEndError::EmptyAlphabet) => continue,
                Err(e) => panic!("{files:?} {kind}: {e}"),
            };
            compile_with_gcc(&p);
            let out = Command::new(&tools.goto_cc)
                .args(&p.paths)
                .arg("-o")
                .arg(dir.path().join("program.gb"))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "goto-cc {files:?} {kind}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn fingerprints_follow_contents_and_settings_not_paths() {
    let (_a, base) = run(&config(&["fig12_base.c"], EventKind::Functions));
    let (_b, again) = run(&config(&["fig12_base.c"], EventKind::Functions));
    assert_eq!(base.fingerprint(), again.fingerprint());
    // SHA-256, as 64 hex digits (issue 11: a cryptographic hash, was FNV-128).
    assert_eq!(base.fingerprint().len(), 64);
    let copy_dir = tempfile::tempdir().unwrap();
    let copy = copy_dir.path().join("elsewhere.c");
    std::fs::copy(programs().join("fig12_base.c"), &copy).unwrap();
    let (_c, moved) = run(&FrontEndConfig::new(vec![copy]));
    assert_eq!(base.fingerprint(), moved.fingerprint());
    let (_d, calls) = run(&config(&["fig12_base.c"], EventKind::Calls));
    assert_ne!(base.fingerprint(), calls.fingerprint());
    let (_e, ours) = run(&config(&["fig12_ours.c"], EventKind::Functions));
    assert_ne!(base.fingerprint(), ours.fingerprint());

    // Comments and layout are not the program; a changed token is.
    let text = std::fs::read_to_string(programs().join("fig12_base.c")).unwrap();
    let variant = |name: &str, text: String| {
        let path = copy_dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        run(&FrontEndConfig::new(vec![path]))
    };
    let (_f, commented) = variant(
        "commented.c",
        text.replace("void funcB(void) {}", "/* B */\nvoid funcB( void )\n{\n}\n"),
    );
    assert_eq!(base.fingerprint(), commented.fingerprint());
    let (_g, changed) = variant("changed.c", text.replace("return 0;", "return 1;"));
    assert_ne!(base.fingerprint(), changed.fingerprint());
}

/// The expected language of each program (function entries, `cbmc --unwind 3`, words of
/// at most 8 letters), as in the report to the lead.
fn expected(files: &[&str]) -> &'static [&'static str] {
    match files[0] {
        "fig12_base.c" => &["funcA funcB end"],
        "fig12_ours.c" => &["funcA funcZ funcB end"],
        "fig12_theirs.c" => &["funcA funcB end", "funcA funcC end"],
        "fig12_merged.c" => &["funcA funcZ funcB end", "funcA funcZ funcC end"],
        "loop_calls.c" => &["f end", "g f end", "g g f end"],
        "recursion.c" => &[
            "down leaf end",
            "down down leaf end",
            "down down down leaf end",
        ],
        "exit_in_callee.c" => &["f end", "g f end", "g g f end"],
        "input_branch.c" => &["low done end", "high done end", "high high done end"],
        "two_paths.c" => &["f1 g h1 end", "f2 g h2 end"],
        "markers.c" => &["parse bad_input error_path end", "parse parsed ok_path end"],
        "switch_case.c" => &["one two end", "two end", "other end"],
        "function_pointer.c" => &["on_even finish end", "on_odd finish end"],
        "multi_main.c" => &["helper end", "helper twice end"],
        "variadic.c" => &["emit_all emit emit text_offset aligned end"],
        other => panic!("no expectation for {other}"),
    }
}

#[test]
fn the_pre_check_is_precise_on_the_merge_example() {
    let (_dir, p) = run(&config(&["fig12_merged.c"], EventKind::Functions));
    let d = syntax_automaton(&p, 3, 8);
    assert!(d.accepts_names(&["funcA", "funcZ", "funcC", "end"]));
    assert!(!d.accepts_names(&["funcA", "funcC", "end"]));
    assert!(!d.accepts_names(&["funcA", "funcZ", "funcC"]));
    assert_eq!(d.num_states(), 5);
    // Over-approximations: the syntax cannot see that the path decides h1 or h2 ...
    let (_dir, p) = run(&config(&["two_paths.c"], EventKind::Functions));
    let d = syntax_automaton(&p, 3, 8);
    assert!(d.accepts_names(&["f1", "g", "h2", "end"]));
    assert!(!d.accepts_names(&["f1", "f2", "g", "h2", "end"]));
    // ... and loops are stars, cut by the word length bound only.
    let (_dir, p) = run(&config(&["loop_calls.c"], EventKind::Functions));
    let d = syntax_automaton(&p, 3, 8);
    assert!(d.accepts_names(&["g", "g", "g", "g", "g", "g", "f", "end"]));
    assert!(!d.accepts_names(&["g", "g", "g", "g", "g", "g", "g", "f", "end"]));
    let mut long = vec!["g"; 20];
    long.extend(["f", "end"]);
    assert!(syntax_automaton(&p, 3, usize::MAX).accepts_names(&long));
}

/// The real CBMC answers membership queries on the instrumented programs: the words it
/// accepts are exactly the expected ones, and the pre-check rejects none of them (every
/// word the pre-check rejects, up to 5 letters, CBMC rejects too).
#[test]
fn cbmc_finds_the_expected_languages_and_the_pre_check_keeps_them() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let bounds = Bounds {
        unwind: 3,
        max_word_length: 8,
    };
    for files in PROGRAMS.into_iter().filter(|f| f[0] != "constructs.c") {
        let (_dir, p) = run(&config(files, EventKind::Functions));
        let goto = goto_of(&tools, &p);
        let pre = syntax_automaton(&p, bounds.unwind, bounds.max_word_length);
        let candidates = words_up_to(&pre, bounds.max_word_length, 10_000).unwrap();
        let events: Vec<_> = p.alphabet.letters().filter(|&l| l != p.end).collect();
        let mut rejected: Vec<Word> = Vec::new();
        let mut prefixes: Vec<Word> = vec![Vec::new()];
        for _ in 0..5 {
            for w in &prefixes {
                let mut word = w.clone();
                word.push(p.end);
                if !pre.accepts(&word) {
                    rejected.push(word);
                }
            }
            prefixes = prefixes
                .iter()
                .flat_map(|w| events.iter().map(move |&l| [w.as_slice(), &[l]].concat()))
                .filter(|w| w.len() < 5)
                .collect();
        }
        let mut words = candidates.clone();
        words.extend(rejected.iter().cloned());
        let answers = goto.membership(&words, bounds, p.end, None).unwrap();
        let accepted: BTreeSet<String> = words
            .iter()
            .zip(&answers)
            .filter(|(_, yes)| **yes)
            .map(|(w, _)| p.alphabet.format_word(w))
            .collect();
        let want: BTreeSet<String> = expected(files).iter().map(|w| w.to_string()).collect();
        assert_eq!(accepted, want, "{files:?}");
        for w in &want {
            assert!(
                pre.accepts_names(&w.split(' ').collect::<Vec<_>>()),
                "{files:?}: {w}"
            );
        }
    }
}

/// Offered the pre-check automaton as a conjecture, CBMC finds no execution (within the
/// bounds) whose word it rejects: no positive feedback, for every program and event kind.
#[test]
fn the_pre_check_is_sound_against_cbmc_for_every_event_kind() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let bounds = Bounds {
        unwind: 3,
        max_word_length: 8,
    };
    for files in PROGRAMS {
        for kind in EventKind::ALL {
            let dir = tempfile::tempdir().unwrap();
            let p = match instrument(&config(files, kind), dir.path()) {
                Ok(p) => p,
                Err(FrontEndError::EmptyAlphabet) => continue,
                Err(e) => panic!("{files:?} {kind}: {e}"),
            };
            let goto = goto_of(&tools, &p);
            let pre = syntax_automaton(&p, bounds.unwind, bounds.max_word_length);
            let feedback = goto.conjecture(&pre, bounds, p.end, &[], None).unwrap();
            if let Some(f) = feedback {
                assert!(
                    !f.positive,
                    "{files:?} {kind}: the pre-check rejects `{}`, which the program emits",
                    p.alphabet.format_word(&f.word)
                );
            }
        }
    }
}

#[test]
fn non_local_jumps_and_a_recursive_entry_make_the_pre_check_give_up() {
    let dir = tempfile::tempdir().unwrap();
    let jumps = dir.path().join("jumps.c");
    std::fs::write(
        &jumps,
        "#include <setjmp.h>\njmp_buf env;\nvoid f(void) { longjmp(env, 1); }\nint main(void) {\n  if (setjmp(env)) return 1;\n  f();\n  return 0;\n}\n",
    )
    .unwrap();
    let recursive = dir.path().join("recursive.c");
    std::fs::write(
        &recursive,
        "int nondet_int(void);\nvoid f(void) {}\nint main(void) {\n  f();\n  if (nondet_int()) return main();\n  return 0;\n}\n",
    )
    .unwrap();
    // GNU's computed goto, which the parser reads as an expression statement.
    let computed = dir.path().join("computed.c");
    std::fs::write(
        &computed,
        "void f(void) {}\nint main(void) {\n  static void *next[] = { &&one, &&two };\n  int i = 0;\n  goto *next[i];\none:\n  f();\ntwo:\n  return 0;\n}\n",
    )
    .unwrap();
    for (source, warning, kind) in [
        (
            jumps,
            "jumps.c:3: longjmp in `f`",
            WarningKind::NonLocalJump,
        ),
        (
            computed,
            "computed.c: a computed goto",
            WarningKind::ComputedGoto,
        ),
        (
            recursive,
            "recursive.c:5: `main` calls the entry function `main`",
            WarningKind::EntryReused,
        ),
    ] {
        let out = tempfile::tempdir().unwrap();
        let p = instrument(&FrontEndConfig::new(vec![source]), out.path()).unwrap();
        assert!(
            p.warnings
                .iter()
                .any(|w| w.message.contains(warning) && w.kind == kind),
            "{:?}",
            p.warnings
        );
        let d = syntax_automaton(&p, 3, 8);
        for word in [&["end"][..], &["f", "end", "f", "end"], &["end", "end"]] {
            assert!(d.accepts_names(word), "{word:?}");
        }
        assert!(!d.accepts_names(&["f"]));
        compile_with_gcc(&p);
    }
}

#[test]
fn the_instrumented_copy_keeps_bytes_that_are_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("latin1.c");
    std::fs::write(
        &source,
        b"int f(void) { return sizeof(\"caf\xe9\"); }\nint main(void) { return f(); }\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let p = instrument(&FrontEndConfig::new(vec![source]), out.path()).unwrap();
    let bytes = std::fs::read(&p.path).unwrap();
    assert!(bytes.windows(5).any(|w| w == b"caf\xe9\""));
    compile_with_gcc(&p);
}

#[test]
fn a_marker_inside_assert_is_one_event() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("assert_marker.c");
    std::fs::write(
        &source,
        "#include <assert.h>\n#include \"mergelens.h\"\nint main(void) {\n    assert((MERGELENS_EVENT(\"checked\"), 1));\n    return 0;\n}\n",
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let p = instrument(&FrontEndConfig::new(vec![source]), out.path()).unwrap();
    assert_eq!(names(&p.alphabet), ["checked", "end"]);
    // glibc's assert evaluates its condition once and copies it into a sizeof.
    let text = std::fs::read_to_string(&p.path).unwrap();
    assert!(!text.contains("__mergelens_marker"), "{text}");
    assert_eq!(text.matches("__mergelens_event(0)").count(), 1, "{text}");
    compile_with_gcc(&p);
    let d = syntax_automaton(&p, 3, 8);
    assert!(d.accepts_names(&["checked", "end"]) && !d.accepts_names(&["end"]));
}

// ---------------------------------------------------------------------------------------
// Error mode (`mergelens explain`): the pre-check of the language of an assertion failure.

/// One case of tests/fixtures/explain_*/: its program, the target's line, the bounds of
/// its `explain.txt` (`--unwind` as the user gives it) and the expected language.
struct ExplainCase {
    name: String,
    program: PathBuf,
    line: u32,
    unwind: u32,
    max_word_length: usize,
    expected: mergelens::automaton::Dfa,
}

/// The lines of `source` that hold an assertion call, in order (the programs of
/// tests/programs/explain_*.c state each on a line of its own).
fn assertion_lines(source: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(source).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let l = l.trim_start();
            !l.starts_with("/*") && !l.starts_with('*') && !l.starts_with("void __VERIFIER")
        })
        .filter(|(_, l)| {
            [
                "assert(",
                "__CPROVER_assert(",
                "__VERIFIER_error()",
                "reach_error()",
            ]
            .iter()
            .any(|a| l.contains(a))
        })
        .map(|(i, _)| i as u32 + 1)
        .collect()
}

fn explain_cases() -> Vec<ExplainCase> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("tests/fixtures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|c| c.join("explain.txt").is_file())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let text = std::fs::read_to_string(dir.join("explain.txt")).unwrap();
            let args: Vec<&str> = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
                .unwrap()
                .split_whitespace()
                .collect();
            let option = |name: &str| {
                args.iter()
                    .position(|a| *a == name)
                    .map(|i| args[i + 1].to_string())
            };
            let program = root.join(args[0]);
            let lines = assertion_lines(&program);
            let line = match (option("--line"), option("--assertion")) {
                (Some(at), _) => at.rsplit(':').next().unwrap().parse().unwrap(),
                // `main.assertion.K`: every assertion of these programs is in main.
                (None, Some(id)) => {
                    let k: usize = id.rsplit('.').next().unwrap().parse().unwrap();
                    lines[k - 1]
                }
                (None, None) => {
                    assert_eq!(lines.len(), 1, "{}", program.display());
                    lines[0]
                }
            };
            ExplainCase {
                name: dir.file_name().unwrap().to_string_lossy().into_owned(),
                program,
                line,
                unwind: option("--unwind").map_or(2, |u| u.parse().unwrap()),
                max_word_length: option("--max-word-length").map_or(10, |n| n.parse().unwrap()),
                expected: mergelens::automaton::json::read(&dir.join("expected.json")).unwrap(),
            }
        })
        .collect()
}

fn instrument_target(
    files: &[PathBuf],
    line: u32,
    events: EventKind,
) -> (tempfile::TempDir, InstrumentedProgram) {
    let dir = tempfile::tempdir().unwrap();
    let mut config = FrontEndConfig::new(files.to_vec());
    config.events = events;
    let target = AssertionTarget {
        file: files[0].clone(),
        line,
        index: None,
    };
    let p = instrument_error(&config, &target, dir.path()).unwrap_or_else(|e| panic!("{e}"));
    (dir, p)
}

/// How many words the error-mode shape `(events)* assert` has within `max_len` letters:
/// what the pre-check admitted before it followed the control flow.
fn shape_count(p: &InstrumentedProgram, max_len: usize) -> u128 {
    let events = (p.alphabet.len() - 1) as u128;
    (0..max_len as u32).map(|k| events.pow(k)).sum()
}

/// The pre-check of error mode keeps every word of the true language of each explain
/// fixture (learned with the real CBMC, checked by tests/explain_cbmc.rs), and admits far
/// fewer words than the shape of error words: the counts are those reported to the lead.
#[test]
fn the_error_pre_check_keeps_every_fixture_language_and_is_sharper_than_the_shape() {
    let cases = explain_cases();
    assert!(cases.len() >= 9, "{}", cases.len());
    let mut counts = Vec::new();
    for case in &cases {
        let (_dir, p) = instrument_target(
            std::slice::from_ref(&case.program),
            case.line,
            EventKind::Functions,
        );
        let n = case.max_word_length;
        let pre = syntax_automaton(&p, case.unwind + 1, n);
        let want = words_up_to(&case.expected, n, 100_000).unwrap();
        for w in &want {
            let names: Vec<&str> = w
                .iter()
                .map(|&l| case.expected.alphabet().name(l))
                .collect();
            assert!(
                pre.accepts_names(&names),
                "{}: the pre-check rejects `{}`, which fails",
                case.name,
                names.join(" ")
            );
        }
        let before = shape_count(&p, n);
        let after = count_up_to(&pre, n).unwrap();
        assert!(
            after < before,
            "{}: {after} words, the shape has {before}",
            case.name
        );
        counts.push((case.name.as_str(), before, after));
    }
    eprintln!("{counts:?}");
    let counts: Vec<(&str, u128)> = counts.iter().map(|&(c, _, a)| (c, a)).collect();
    assert_eq!(
        counts,
        [
            // g* f assert within 4 letters: exactly the language.
            ("explain_fig10", 3),
            ("explain_fig2", 3),
            // F? (F G)? H assert: the branches are not correlated.
            ("explain_fig8", 4),
            // step+ assert: the loop is a star, the assertion after the step in its body.
            ("explain_loop_k", 5),
            // check assert: the guard x > 5 is not read.
            ("explain_never", 1),
            // (open_file | write_file)* write_file assert.
            ("explain_order", 15),
            // g f assert, and the word of the other branch is not a prefix to the target.
            ("explain_reach", 1),
            ("explain_two_first", 1),
            ("explain_two_second", 2),
        ]
    );
}

/// Offered the error pre-check as a conjecture, CBMC finds no failing run (within the
/// bounds) whose word it rejects (Theorem 4.1 of the paper: the conjecture query finds
/// every such run), for every explain fixture and every event kind; and it rejects every
/// word the pre-check rejects, up to 4 letters, asked one by one in batches (brute force).
#[test]
fn the_error_pre_check_is_sound_against_cbmc() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    for case in explain_cases() {
        for kind in EventKind::ALL {
            let dir = tempfile::tempdir().unwrap();
            let mut config = FrontEndConfig::new(vec![case.program.clone()]);
            config.events = kind;
            let target = AssertionTarget {
                file: case.program.clone(),
                line: case.line,
                index: None,
            };
            let p = match instrument_error(&config, &target, dir.path()) {
                Ok(p) => p,
                Err(FrontEndError::EmptyAlphabet) => continue,
                Err(e) => panic!("{} {kind}: {e}", case.name),
            };
            error_pre_check_is_sound(
                &tools,
                &p,
                case.unwind,
                case.max_word_length,
                &format!("{} {kind}", case.name),
            );
        }
    }
}

fn error_pre_check_is_sound(
    tools: &Toolchain,
    p: &InstrumentedProgram,
    unwind: u32,
    max_len: usize,
    what: &str,
) {
    let goto = goto_of(tools, p);
    let bounds = Bounds {
        unwind: unwind + 1,
        max_word_length: max_len,
    };
    let pre = syntax_automaton(p, bounds.unwind, max_len);
    if let Some(f) = goto.conjecture(&pre, bounds, p.end, &[], None).unwrap() {
        assert!(
            !f.positive,
            "{what}: the pre-check rejects `{}`, on which the assertion fails",
            p.alphabet.format_word(&f.word)
        );
    }
    let events: Vec<_> = p.alphabet.letters().filter(|&l| l != p.end).collect();
    let mut rejected: Vec<Word> = Vec::new();
    let mut prefixes: Vec<Word> = vec![Vec::new()];
    for _ in 0..max_len.min(4) {
        for w in &prefixes {
            let word = [w.as_slice(), &[p.end]].concat();
            if !pre.accepts(&word) {
                rejected.push(word);
            }
        }
        prefixes = prefixes
            .iter()
            .flat_map(|w| events.iter().map(move |&l| [w.as_slice(), &[l]].concat()))
            .collect();
    }
    for batch in rejected.chunks(1024) {
        let answers = goto.membership(batch, bounds, p.end, None).unwrap();
        for (w, yes) in batch.iter().zip(answers) {
            assert!(
                !yes,
                "{what}: the pre-check rejects `{}`, on which the assertion fails",
                p.alphabet.format_word(w)
            );
        }
    }
}

/// Error-mode programs that exercise what the fixtures do not: the target in a function
/// called through a pointer, in a recursive function after the recursive call returned,
/// behind an exit, with calls in its condition, and after an assertion that always fails
/// but is not the target. Each pre-check keeps the failing words stated (CBMC confirms that
/// they fail) and rejects the others stated, and CBMC finds no failing run it rejects, for
/// every event kind.
#[test]
fn the_error_pre_check_follows_pointers_recursion_and_conditions() {
    let tools = Toolchain::locate(None).expect("CBMC is installed (make deps)");
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let pointer = write(
        "pointer.c",
        "#include <assert.h>\nvoid a(void) {}\nvoid cb(int x) { a(); assert(x != 2); }\nvoid other(int x) { a(); }\nvoid run(void (*f)(int), int x) { f(x); }\nint main(int argc, char **argv) {\n  void (*f)(int) = argc > 1 ? cb : other;\n  run(f, argc);\n  a();\n  return 0;\n}\n",
    );
    let recursion = write(
        "recursion.c",
        "#include <assert.h>\nunsigned nondet_unsigned(void);\nvoid leaf(void) {}\nvoid down(unsigned n) {\n  if (n > 0) down(n - 1);\n  leaf();\n  assert(n < 2);\n}\nint main(void) {\n  down(nondet_unsigned());\n  leaf();\n  return 0;\n}\n",
    );
    let condition = write(
        "condition.c",
        "#include <assert.h>\n#include <stdlib.h>\nint nondet_int(void);\nint check(void) { return nondet_int(); }\nvoid before(void) {}\nvoid after(void) {}\nint main(void) {\n  before();\n  assert(0);\n  if (nondet_int()) exit(0);\n  __CPROVER_assert(check() > 0, \"checked\");\n  after();\n  assert(check() > 0);\n  return 0;\n}\n",
    );
    type Words<'a> = &'a [&'a [&'a str]];
    let cases: [(&PathBuf, u32, Words, Words); 4] = [
        (
            &pointer,
            3,
            &[&["run", "cb", "a", "assert"]],
            &[
                &["cb", "a", "assert"],
                &["run", "cb", "a", "a", "assert"],
                &["run", "assert"],
                &["a", "assert"],
            ],
        ),
        (
            &recursion,
            7,
            &[&["down", "down", "down", "leaf", "leaf", "leaf", "assert"]],
            &[
                &["leaf", "assert"],
                &["down", "leaf", "leaf", "assert"],
                &["down", "leaf", "leaf", "leaf", "assert"],
            ],
        ),
        (
            &condition,
            11,
            &[&["before", "check", "assert"]],
            &[
                &["before", "assert"],
                &["before", "check", "after", "assert"],
            ],
        ),
        (
            &condition,
            13,
            &[&["before", "check", "after", "check", "assert"]],
            &[
                &["before", "check", "after", "assert"],
                &["before", "check", "assert"],
            ],
        ),
    ];
    for (file, line, accepted, rejected) in cases {
        let (_out, p) = instrument_target(std::slice::from_ref(file), line, EventKind::Functions);
        let pre = syntax_automaton(&p, 3, 10);
        for w in accepted {
            assert!(pre.accepts_names(w), "{}:{line}: {w:?}", file.display());
        }
        for w in rejected {
            assert!(!pre.accepts_names(w), "{}:{line}: {w:?}", file.display());
        }
        assert!(count_up_to(&pre, 10).unwrap() < shape_count(&p, 10));
        let goto = goto_of(&tools, &p);
        let failing: Vec<Word> = accepted
            .iter()
            .map(|w| w.iter().map(|n| p.alphabet.letter(n).unwrap()).collect())
            .collect();
        let bounds = Bounds {
            unwind: 3,
            max_word_length: 10,
        };
        let answers = goto.membership(&failing, bounds, p.end, None).unwrap();
        assert!(answers.iter().all(|&yes| yes), "{}:{line}", file.display());
        for kind in EventKind::ALL {
            let out = tempfile::tempdir().unwrap();
            let mut config = FrontEndConfig::new(vec![file.clone()]);
            config.events = kind;
            let target = AssertionTarget {
                file: file.clone(),
                line,
                index: None,
            };
            let p = match instrument_error(&config, &target, out.path()) {
                Ok(p) => p,
                Err(FrontEndError::EmptyAlphabet) => continue,
                Err(e) => panic!("{} {kind}: {e}", file.display()),
            };
            let what = format!("{}:{line} {kind}", file.display());
            error_pre_check_is_sound(&tools, &p, 2, 10, &what);
        }
    }
}

/// A variable hides the function of its name: a file-scope `static` pointer in one file
/// called `f` while another file defines `f()`, or a local initialised with `g`. The call
/// goes through the pointer, so the pre-check admits the events of `g`, whose address the
/// initialiser takes, and not those of the hidden `f`.
#[test]
fn pointers_named_like_functions_are_calls_through_pointers() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.c");
    let b = dir.path().join("b.c");
    std::fs::write(
        &a,
        "void g(void) {}\nstatic void (*f)(void) = g;\nint main(void) { f(); return 0; }\n",
    )
    .unwrap();
    std::fs::write(&b, "void f(void) {}\n").unwrap();
    let (_out, p) = run(&FrontEndConfig::new(vec![a, b]));
    let pre = syntax_automaton(&p, 3, 4);
    let accepted: Vec<String> = words_up_to(&pre, 3, 100)
        .unwrap()
        .iter()
        .map(|w| p.alphabet.format_word(w))
        .collect();
    assert_eq!(accepted, ["end", "g end", "g g end"]);
    assert!(
        p.warnings
            .iter()
            .any(|w| w.message.contains("call through the function pointer `f`")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn fingerprints_do_not_depend_on_the_directory_of_an_assert() {
    // glibc's assert expands __FILE__ to the path gcc was given: a temporary checkout.
    let source = "#include <assert.h>\nint nondet_int(void);\nvoid f(void) {}\nint main(void)\n{\n  int x = nondet_int();\n  assert(x != 3);\n  f();\n  return 0;\n}\n";
    let fingerprint = |dir: &Path| {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let file = dir.join("src/checked.c");
        std::fs::write(&file, source).unwrap();
        let (_out, p) = run(&FrontEndConfig::new(vec![file]));
        p.fingerprint()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = fingerprint(a.path());
    assert_eq!(first, fingerprint(b.path()));
    // The text after the path still counts: another assertion is another program.
    let c = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(c.path().join("src")).unwrap();
    let file = c.path().join("src/checked.c");
    std::fs::write(&file, source.replace("x != 3", "x != 4")).unwrap();
    let (_out, p) = run(&FrontEndConfig::new(vec![file]));
    assert_ne!(first, p.fingerprint());
}
