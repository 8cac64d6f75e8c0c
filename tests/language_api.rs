//! `learn` and `explain` called as a library, as a CI bot or a language server would, with
//! the real CBMC: the same languages the commands learn, progress and notices through a
//! `Watcher` of the caller's, and a failed choice of the assertion as a typed error.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use mergelens::automaton::Dfa;
use mergelens::automaton::analysis::words_up_to;
use mergelens::cbmc::bounds_search::BoundsLimits;
use mergelens::cbmc::{
    Allocations, CbmcCounters, DEFAULT_EXACT_LIMIT, LIBRARY_UNWIND, LearnBounds, TeacherStats,
};
use mergelens::cprog::{EventKind, instrument};
use mergelens::language::explain::{ExplainBounds, TargetChoice, prepare};
use mergelens::language::learn::{BoundsChoice, learn_program};
use mergelens::language::{
    CacheChoice, ExplainError, LanguageError, Notice, ProgramOptions, SamplingOptions, Watcher,
};
use mergelens::{FailureKind, HasKind};

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// The options of `mergelens learn FILE --no-cache --exact` with the defaults of the
/// command line.
fn options(file: &str) -> ProgramOptions {
    ProgramOptions {
        files: vec![program(file)],
        entry: "main".into(),
        events: EventKind::default(),
        only: None,
        exclude: Vec::new(),
        include_dirs: Vec::new(),
        defines: Vec::new(),
        harness: Vec::new(),
        query_timeout: Some(Duration::from_secs(120)),
        memory_limit: None,
        time_budget: None,
        cbmc: None,
        exact_limit: DEFAULT_EXACT_LIMIT,
        library_unwind: LIBRARY_UNWIND,
        allocations: Allocations::MayFail,
        lazy: true,
        cache: CacheChoice::Off,
        concise: None,
        baseline: false,
        paper_lazy: false,
        verbose: false,
        sampling: SamplingOptions::default(),
    }
}

/// A caller's watcher: keeps the phases and notices, counts the progress reports.
#[derive(Default)]
struct Collect {
    phases: RefCell<Vec<String>>,
    notices: RefCell<Vec<Notice>>,
    done: RefCell<usize>,
}

impl Watcher for Collect {
    fn phase(&self, phase: String) {
        self.phases.borrow_mut().push(phase);
    }

    fn teacher(&self) -> Box<dyn FnMut(&TeacherStats)> {
        Box::new(|_| {})
    }

    fn done(&self) {
        *self.done.borrow_mut() += 1;
    }

    fn notice(&self, notice: Notice) {
        self.notices.borrow_mut().push(notice);
    }
}

fn words(d: &Dfa) -> BTreeSet<String> {
    words_up_to(d, 64, 10_000)
        .unwrap()
        .iter()
        .map(|w| d.alphabet().format_word(w))
        .collect()
}

#[test]
fn a_library_user_learns_what_the_command_learns() {
    let options = options("loop_calls.c");
    let dir = tempfile::tempdir().unwrap();
    let program = instrument(&options.front_end_config(), dir.path()).unwrap();
    let tools = options.toolchain().unwrap();
    let counters = Arc::new(CbmcCounters::new());
    let watch = Collect::default();
    let bounds = BoundsChoice::Fixed(LearnBounds {
        unwind: 1,
        max_word_length: 10,
    });
    let learning = learn_program(&options, bounds, &program, tools, &counters, &watch).unwrap();
    // As `unwind_b_lets_loop_bodies_run_b_times` (learn_cbmc) finds through the binary.
    let expected: BTreeSet<String> = ["f end", "g f end"].map(String::from).into();
    assert_eq!(words(&learning.conclusion.dfa), expected);
    assert!(learning.conclusion.partial.is_none());
    assert!(counters.runs() > 0);
    assert_eq!(*watch.done.borrow(), 1);
    assert_eq!(
        watch.phases.borrow().as_slice(),
        ["--unwind 1 --max-word-length 10"]
    );
    // No store without a cache, so nothing loaded or saved.
    assert_eq!((learning.store, learning.saved), (None, false));
    let json = learning
        .conclusion
        .json(&options, &program, &learning.learned);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["learned"]["entry"], "main");
    assert_eq!(value["learned"]["unwind"], 1);

    // The bounds search tells the caller each step.
    let watch = Collect::default();
    let auto = BoundsChoice::Auto(BoundsLimits {
        max_unwind: 2,
        max_word_length: 10,
    });
    let tools = options.toolchain().unwrap();
    let searched = learn_program(&options, auto, &program, tools, &counters, &watch).unwrap();
    assert!(searched.learned.converged.is_some());
    assert!(watch.phases.borrow().len() >= 2, "{:?}", watch.phases);
}

#[test]
fn a_library_user_explains_an_assertion_and_gets_typed_errors() {
    // Fig. 2 of the paper: the error language is g* f assert within the bounds.
    let options = options("explain_fig2.c");
    let bounds = LearnBounds {
        unwind: 2,
        max_word_length: 6,
    };
    let prepared = prepare(&options, &TargetChoice::Failing, bounds).unwrap();
    assert!(
        prepared.assertion.ends_with("explain_fig2.c:8: assert(0)"),
        "{}",
        prepared.assertion
    );
    let counters = Arc::new(CbmcCounters::new());
    let watch = Collect::default();
    let how = ExplainBounds {
        bounds,
        auto_bounds: false,
    };
    let explained = prepared.learn(&options, how, &counters, &watch).unwrap();
    let explanation = prepared
        .conclude(&options, explained, (None, None), &counters, &watch)
        .unwrap();
    let shortest: Vec<String> = explanation
        .examples
        .iter()
        .map(|w| explanation.explained.dfa.alphabet().format_word(w))
        .collect();
    assert_eq!(shortest.first().map(String::as_str), Some("f assert"));
    assert!(
        shortest.iter().all(|w| w.ends_with("f assert")),
        "{shortest:?}"
    );
    let value: serde_json::Value =
        serde_json::from_str(&explanation.json(&prepared, &options, counters.runs())).unwrap();
    assert_eq!(value["kind"], "explain");
    assert_eq!(value["explained"]["empty"], false);

    // Two failing assertions: no choice, as a typed error of bad input.
    let two = self::options("explain_two.c");
    let Err(error) = prepare(&two, &TargetChoice::Failing, bounds) else {
        panic!("explain_two.c has two failing assertions");
    };
    assert_eq!(error.kind(), FailureKind::BadInput);
    match error {
        LanguageError::Explain(ExplainError::Choose { failing }) => {
            assert_eq!(failing.len(), 2, "{failing:?}")
        }
        other => panic!("not a choice: {other}"),
    }
}
