//! The sampling teachers of `learn` and `explain`: concrete runs as a second teacher
//! ([`mergelens::cbmc::concrete`]) and PAC equivalence ([`mergelens::cbmc::Pac`]).
//!
//! Key items: [`SamplingArgs`], [`attach`] (gives a CBMC teacher its concrete runs and
//! mode) and [`pac_note`] (what every output of a PAC result says).

use mergelens::cbmc::concrete::{self, ConcreteError, ConcreteProgram};
use mergelens::cbmc::{CbmcTeacher, Pac, PacResult};
use mergelens::cprog::{self, AssertionTarget, FrontEndConfig, InstrumentedProgram};

/// `--concrete-runs` unless given: none. They save CBMC runs on programs whose learning
/// needs conjecture rounds (benches/concrete.md: 113 to 69 on ten cases), not wall time
/// (building and running the program costs what the runs save), and on the paper's
/// `schedule` their counterexample led to a longer path (24 to 33 runs): opt in.
pub const DEFAULT_CONCRETE_RUNS: u64 = 0;

/// `--concrete-runs`, `--mode pac --epsilon E --delta D`.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplingArgs {
    pub concrete_runs: u64,
    pub pac: Option<Pac>,
}

impl Default for SamplingArgs {
    fn default() -> SamplingArgs {
        SamplingArgs {
            concrete_runs: DEFAULT_CONCRETE_RUNS,
            pac: None,
        }
    }
}

/// Gives `teacher` the mode and, unless the run is the baseline or asks for none, the
/// concrete runs of `program` (instrumented again from `config` with shared inputs, as the
/// concrete runtime reads them). They are built when first needed; a program gcc cannot
/// build that way learns without, and the reason goes to the statistics
/// (`teacher.concrete_note`), not to the user's screen, since it changes nothing but the
/// time.
pub(crate) fn attach<'p>(
    teacher: &mut CbmcTeacher<'p>,
    program: &'p InstrumentedProgram,
    sampling: &SamplingArgs,
    baseline: bool,
    mut config: FrontEndConfig,
) {
    if let Some(pac) = sampling.pac {
        teacher.set_pac(pac);
    }
    if sampling.concrete_runs == 0 || baseline {
        return;
    }
    config.share_inputs = true;
    teacher.set_concrete(
        Box::new(move || build(program, &config)),
        sampling.concrete_runs,
    );
}

/// The program compiled for concrete runs, or why it cannot be.
fn build(
    program: &InstrumentedProgram,
    config: &FrontEndConfig,
) -> Result<ConcreteProgram, ConcreteError> {
    let dir = concrete::scratch_dir()?;
    let concrete = match error_target(program) {
        Some(target) => cprog::instrument_error(config, &target, dir.path()),
        None => cprog::instrument(config, dir.path()),
    }?;
    ConcreteProgram::build(program, &concrete)
}

/// In error mode, the assertion `program` explains, as the front end was given it: the
/// target's line, and its place among the line's assertions when others share the line.
fn error_target(program: &InstrumentedProgram) -> Option<AssertionTarget> {
    let target = program.assertions.iter().find(|a| a.target)?;
    let same_line: Vec<_> = program
        .assertions
        .iter()
        .filter(|a| a.file == target.file && a.line == target.line)
        .collect();
    let index = if same_line.iter().all(|a| a.target) {
        None
    } else {
        same_line.iter().position(|a| a.target)
    };
    Some(AssertionTarget {
        file: target.file.clone(),
        line: target.line,
        index,
    })
}

/// The guarantee of a finished PAC run and the length up to which known answers back
/// `dfa` (what its `exact_up_to` may claim); `None` for an exact or a stopped run.
pub(crate) fn pac_of(
    teacher: &CbmcTeacher<'_>,
    dfa: &mergelens::automaton::Dfa,
    finished: bool,
) -> Option<(PacResult, usize)> {
    let result = teacher.pac_result().filter(|_| finished)?.clone();
    Some((result, teacher.agrees_up_to(dfa)))
}

/// The words every output of a PAC result carries: `PAC (ε 0.05, δ 0.05), not exact`.
pub(crate) fn pac_note(result: Option<&PacResult>) -> String {
    result.map_or_else(String::new, |p| {
        format!(
            " · PAC (epsilon {}, delta {}; {} samples at equivalence query {}), NOT EXACT",
            p.epsilon, p.delta, p.samples, p.equivalence_queries
        )
    })
}

/// What the summary line of `explain` says of an empty language, and what a PAC result says
/// instead: sampling found no failing word, which proves nothing.
const PROVED_EMPTY: &str = "empty language: the assertion cannot fail within the bounds";
const SAMPLED_EMPTY: &str = "no failing word found by PAC sampling (not proved: the assertion may still fail within the bounds)";

/// `explain`'s summary line with a PAC result's [`pac_note`], and emptiness claimed only
/// when proved (not by PAC sampling).
pub(crate) fn pac_line(result: Option<&PacResult>, line: String) -> String {
    if result.is_some() {
        line.replace(PROVED_EMPTY, SAMPLED_EMPTY) + &pac_note(result)
    } else {
        line
    }
}

/// A DOT or SVG drawing of a PAC result says so: in the graph's label (DOT) or the title
/// (SVG), as a concise automaton's does.
pub(crate) fn label(mut drawing: String, result: Option<&PacResult>) -> String {
    let Some(p) = result else {
        return drawing;
    };
    let caption = format!(
        "PAC result (epsilon {}, delta {}), not exact",
        p.epsilon, p.delta
    );
    if drawing.starts_with("digraph") {
        if let Some(line_end) = drawing.find('\n') {
            let label = format!("  label=\"{caption}\";\n  labelloc=t;\n");
            drawing.insert_str(line_end + 1, &label);
        }
    } else if let Some(start) = drawing.find("<svg")
        && let Some(end) = drawing[start..].find('>')
    {
        drawing.insert_str(start + end + 1, &format!("\n<title>{caption}</title>"));
    }
    drawing
}
