//! The integration tests, one binary: each former `tests/NAME.rs` is the module `NAME`
//! (run one with `cargo test --test tests NAME::`), and `common` is built once for all.
//! One binary links git2, tree-sitter and the crate once instead of once per file, which
//! is most of what `make test` spends building on two cores. Cargo's own discovery of
//! `tests/*.rs` is off (`autotests = false`), so a new file runs only once it is declared
//! here; `every_file_is_a_module` fails until it is.

mod common;

mod anytime_cbmc;
mod audit_git;
mod automaton_properties;
mod bench_corpus;
mod budget_git;
mod cache_forgery_git;
mod cbmc_queries;
mod changed_functions_git;
mod ci_recipe;
mod cli;
mod concise_cbmc;
mod concise_properties;
mod concrete_cbmc;
mod coverage_git;
mod cprog_frontend;
mod deep_input_git;
mod errors_cli;
mod explain_cbmc;
mod fixture_cases;
mod formula_cbmc;
mod fuzz_parsers;
mod harness_config_git;
mod harness_git;
mod harness_signatures;
mod header_only;
mod hook_git;
mod init_git;
mod injection_git;
mod language_api;
mod learn_cbmc;
mod learner;
mod library_buffers_cbmc;
mod remote_reapi;
mod report;
mod report_drawings;
mod report_layout;
mod report_unfinished;
mod review_bounds;
mod review_commit;
mod review_execution;
mod review_git;
mod review_inputs;
mod review_resources;
mod review_results;
mod sarif_git;
mod stop_git;
mod trust_git;
mod trust_system_headers;
mod unfinished_git;
mod verdicts_git;

/// A `tests/*.rs` file left out of the list above would never compile nor run, silently.
#[test]
fn every_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let declared: Vec<&str> = include_str!("tests.rs")
        .lines()
        .filter_map(|l| l.strip_prefix("mod ")?.strip_suffix(';'))
        .collect();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            files.push(path.file_stem().unwrap().to_string_lossy().into_owned());
        }
    }
    assert!(files.len() > 40, "{files:?}");
    let missing: Vec<&String> = files
        .iter()
        .filter(|f| *f != "tests" && !declared.contains(&f.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "not declared in tests/tests.rs: {missing:?}"
    );
}
