//! `mergelens automaton OP`: the automaton library on `mergelens-dfa/1` files.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use mergelens::automaton::analysis::{self, Side};
use mergelens::automaton::concise::{self, Budget};
use mergelens::automaton::ops::{self, BoolOp};
use mergelens::automaton::{Dfa, Marks, dot, json, svg};

use super::review::UsageError;
use super::{Outcome, write_output, write_text};

/// The most words `words` prints unless told otherwise.
pub const DEFAULT_WORD_LIMIT: u64 = 100_000;

/// One automaton operation, with its inputs.
#[derive(Clone, Debug)]
pub enum Operation {
    Show {
        input: PathBuf,
        words: usize,
    },
    Minimize {
        input: PathBuf,
    },
    Complement {
        input: PathBuf,
    },
    Product {
        op: BoolOp,
        left: PathBuf,
        right: PathBuf,
    },
    Equiv {
        left: PathBuf,
        right: PathBuf,
    },
    Words {
        input: PathBuf,
        max_length: usize,
        limit: u64,
    },
    Dot {
        input: PathBuf,
    },
    Svg {
        input: PathBuf,
    },
}

/// Options every operation shares.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where the result goes; standard output when `None`.
    pub output: Option<PathBuf>,
    /// Skip minimising and trimming results.
    pub raw: bool,
}

pub fn run(operation: &Operation, options: &Options) -> anyhow::Result<Outcome> {
    let finish = |dfa: Dfa| {
        if options.raw {
            dfa
        } else {
            ops::minimize(&dfa)
        }
    };
    let output = options.output.as_deref();
    match operation {
        Operation::Show { input, words } => {
            write_text(output, &show(&json::read(input)?, *words)?)?
        }
        Operation::Minimize { input } => write_dfa(output, &finish(json::read(input)?))?,
        Operation::Complement { input } => {
            write_dfa(output, &finish(ops::complement(&json::read(input)?)))?;
        }
        Operation::Product { op, left, right } => {
            let (a, b) = (json::read(left)?, json::read(right)?);
            write_dfa(output, &finish(ops::product(&a, &b, *op)))?;
        }
        Operation::Equiv { left, right } => {
            let (a, b) = (json::read(left)?, json::read(right)?);
            let text = match analysis::equivalence_witness(&a, &b) {
                None => "equivalent\n".to_string(),
                Some(witness) => {
                    let (side, path) = match witness.accepted_by {
                        Side::Left => ("first", left),
                        Side::Right => ("second", right),
                    };
                    let result = format!(
                        "not equivalent: [{}] is accepted only by the {side} automaton ({})\n",
                        witness.word.join(" "),
                        path.display()
                    );
                    write_text(output, &result)?;
                    return Ok(Outcome::Different);
                }
            };
            write_output(output, &text)?;
        }
        Operation::Words {
            input,
            max_length,
            limit,
        } => {
            let dfa = json::read(input)?;
            let mut text = String::new();
            for word in analysis::words_up_to(&dfa, *max_length, *limit)? {
                text.push_str(&dfa.alphabet().format_word(&word));
                text.push('\n');
            }
            write_text(output, &text)?;
        }
        Operation::Dot { input } => {
            let dfa = finish(json::read(input)?);
            write_output(
                output,
                &dot::to_dot(&dfa, &stem(input), &Marks::analyse(&dfa)),
            )?;
        }
        Operation::Svg { input } => {
            let dfa = finish(json::read(input)?);
            let svg = svg::to_svg(&dfa, &Marks::analyse(&dfa)).ok_or_else(|| {
                anyhow::anyhow!(
                    "{}: {} states and {} transitions are too many to draw (at most {} states); use `mergelens automaton words` or `dot`",
                    input.display(),
                    dfa.num_states(),
                    dfa.num_transitions(),
                    svg::MAX_DRAWN_STATES
                )
            })?;
            write_output(output, &svg)?;
        }
    }
    Ok(Outcome::Success)
}

/// `automaton separate`: the inputs and flags.
#[derive(Clone, Debug)]
pub struct Separate {
    pub yes: PathBuf,
    pub no: PathBuf,
    /// Fail unless the result is proved minimal; no size limit, a long default budget.
    pub minimal: bool,
    /// Only words of at most this many letters count.
    pub max_length: Option<usize>,
    /// The whole search's time; `Some(0)` for no limit, `None` for the default.
    pub time_budget: Option<Duration>,
}

/// The concise automaton of two `mergelens-dfa/1` files, written as one with the facts of
/// the search added.
pub fn separate(args: &Separate, output: Option<&Path>) -> anyhow::Result<Outcome> {
    let (mut yes, mut no) = (json::read(&args.yes)?, json::read(&args.no)?);
    if let Some(n) = args.max_length {
        yes = bounded(&yes, n, &args.yes)?;
        no = bounded(&no, n, &args.no)?;
    }
    let default = if args.minimal {
        Budget::exact()
    } else {
        Budget::default()
    };
    let time = match args.time_budget {
        Some(t) if t.is_zero() => Duration::MAX,
        Some(t) => t,
        None => default.time,
    };
    let budget = Budget { time, ..default };
    let s = concise::separate(&yes, &no, budget)
        .with_context(|| format!("{} and {}", args.yes.display(), args.no.display()))?;
    let exact = ops::minimize(&yes).num_states();
    let states = s.dfa.num_states();
    if args.minimal && !s.minimal {
        let within = if time == Duration::MAX {
            "(the SAT encoding grew too large)".to_string()
        } else {
            format!("within {} s", time.as_secs_f64())
        };
        anyhow::bail!(
            "the minimum was not proved {within}: the best automaton found has {states} states and none has fewer than {}; give --time-budget more seconds, or drop --minimal to accept it",
            s.lower_bound
        );
    }
    let mut value = json::to_value(&s.dfa);
    if let Some(map) = value.as_object_mut() {
        map.insert("minimal".into(), s.minimal.into());
        map.insert("method".into(), s.method.as_str().into());
        map.insert("lower_bound".into(), s.lower_bound.into());
        map.insert("exact_states".into(), exact.into());
        map.insert("states_saved".into(), exact.saturating_sub(states).into());
    }
    write_output(output, &format!("{value}\n"))?;
    Ok(Outcome::Success)
}

/// The words of `d` of at most `n` letters, refusing a bound that would unroll a cyclic
/// automaton into more table cells than mergelens allocates for one.
fn bounded(d: &Dfa, n: usize, path: &Path) -> anyhow::Result<Dfa> {
    let m = ops::minimize(d);
    let cells = (m.num_states() as u128)
        .saturating_mul(n as u128 + 1)
        .saturating_mul(m.alphabet().len().max(1) as u128);
    if !ops::is_finite(&m) && cells > u128::from(mergelens::limits::MAX_CELLS) {
        anyhow::bail!(UsageError(format!(
            "--max-length {n}: {} has words of every length, and keeping those up to {n} letters would take {cells} table cells, more than the {} mergelens allocates; give a smaller bound",
            path.display(),
            mergelens::limits::MAX_CELLS
        )));
    }
    Ok(ops::bound_length(&m, n))
}

fn write_dfa(output: Option<&Path>, dfa: &Dfa) -> anyhow::Result<()> {
    let mut text = json::to_string(dfa);
    text.push('\n');
    write_output(output, &text)
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "dfa".to_string())
}

/// The `show` summary: sizes, alphabet, the Sec. 7.2 analyses and the shortest words.
fn show(dfa: &Dfa, words: usize) -> anyhow::Result<String> {
    let minimal = ops::minimize(dfa);
    let alphabet = dfa.alphabet();
    let names = |letters: &[u32]| -> String {
        let names: Vec<&str> = letters.iter().map(|&a| alphabet.name(a)).collect();
        if names.is_empty() {
            "(none)".to_string()
        } else {
            names.join(" ")
        }
    };
    let mut out = String::new();
    let accepting = dfa.accepting_states().count();
    writeln!(
        out,
        "states       {} ({} accepting, {} transitions); minimal: {} states",
        dfa.num_states(),
        accepting,
        dfa.num_transitions(),
        minimal.num_states()
    )?;
    writeln!(
        out,
        "alphabet     {} letters: {}",
        alphabet.len(),
        alphabet.names().collect::<Vec<_>>().join(" ")
    )?;
    if analysis::is_empty(dfa) {
        writeln!(out, "language     empty")?;
        return Ok(out);
    }
    writeln!(
        out,
        "dominating   {}",
        names(&analysis::dominating_letters(dfa))
    )?;
    let doomed: Vec<String> = analysis::doomed_states(dfa)
        .iter()
        .map(u32::to_string)
        .collect();
    writeln!(
        out,
        "doomed       {}",
        if doomed.is_empty() {
            "(none)".to_string()
        } else {
            doomed.join(" ")
        }
    )?;
    writeln!(out, "back edges   {}", analysis::back_edges(dfa).len())?;
    // A bound of the automaton's own scale, so that a language of long words cannot make
    // `show` slow.
    let longest = dfa.num_states().saturating_mul(2).max(1);
    let shortest = analysis::shortest_words(dfa, longest, words);
    writeln!(out, "shortest     {} accepted word(s):", shortest.len())?;
    for word in shortest {
        writeln!(out, "  [{}]", alphabet.format_word(&word))?;
    }
    Ok(out)
}
