//! The product's search kept in a SAT solver: every quadruple of logs from one formula.
//!
//! Key type: [`QuadrupleFormula`], read from CBMC's `--dimacs` output for a
//! [`Goal::Formula`](super::harness::Goal::Formula) harness; [`QuadrupleFormula::next`]
//! finds a quadruple not yet found and blocks it.
//!
//! Why: the search CBMC answers gives one quadruple a run, so proving that there is no other
//! costs one more run after the last find, and each run executes the four versions
//! symbolically again. The formula is the same in every run but for the blocked quadruples,
//! so one symbolic execution serves them all: each quadruple is a model, blocked by one
//! clause over the bits of the four logs (the enumeration of models with blocking clauses
//! of AllSAT), and the last solve proves that none is left. The formula is CBMC's own at
//! the learning's bounds, so the answers are the ones CBMC's runs would give.

use std::time::Instant;

use batsat::{Lit, SolverInterface, lbool};

use super::harness::{FORMULA_LENGTH, FORMULA_LOG};
use super::log::Item;
use super::trace::Pin;
use crate::cbmc::formula::{Bit, Loader, SolveLimit};
use crate::cprog::product::INPUT_BYTES;
use crate::stop;

/// One version's log in the formula: the bits of its length and of its packed items.
struct LogBits {
    length: Vec<Bit>,
    items: Vec<Bit>,
}

/// The search formula of one product program, loaded in a SAT solver.
pub(super) struct QuadrupleFormula {
    load: Loader,
    logs: Vec<LogBits>,
    /// The tape's and the arguments' elements the formula names (the others are sliced
    /// away: any value does), each as its latest SSA version's bits.
    inputs: Vec<(&'static str, usize, u32, Vec<Bit>)>,
    /// The input streams' rows the formula names (`__ml_data_KEY` in the harness's
    /// `main`), each as its latest SSA version's bits: a replay pinned by the tape alone
    /// searches the streams' bytes again, as long as the search itself took.
    streams: Vec<(String, u32, Vec<Bit>)>,
}

/// A quadruple a model gave, and the input values it gave to pin its replay with.
pub(super) type Model = (Vec<Vec<Item>>, Vec<Pin>);

impl QuadrupleFormula {
    /// Loads `cnf`, CBMC's formula of a [`Goal::Formula`](super::harness::Goal::Formula)
    /// harness for the versions `tags`, each log holding `room` items. `None` when the
    /// formula does not name every log's bits (CBMC decided the property during symbolic
    /// execution, or sliced a log away): then CBMC's own runs search.
    pub(super) fn read(cnf: &str, tags: &[char], room: usize) -> Option<QuadrupleFormula> {
        let mut load = Loader::new();
        let mut length: Vec<Option<Vec<Bit>>> = vec![None; tags.len()];
        let mut items: Vec<Option<Vec<Bit>>> = vec![None; tags.len()];
        let mut clause = Vec::new();
        let mut inputs = Vec::new();
        let mut streams: Vec<(String, u32, Vec<Bit>)> = Vec::new();
        for line in cnf.lines() {
            if let Some(rest) = line.strip_prefix("c ") {
                let mut fields = rest.split_ascii_whitespace();
                let Some((name, ssa)) = fields.next().and_then(|n| n.split_once('#')) else {
                    continue;
                };
                if let Some(input) = input_element(name, ssa) {
                    let bits = fields.map(|f| load.bit(f)).collect::<Option<Vec<_>>>()?;
                    keep_latest(&mut inputs, input, bits);
                    continue;
                }
                if let Some((array, version)) = whole_input(name, ssa) {
                    // Without field sensitivity the array is one symbol, its elements'
                    // bits in order, lowest first.
                    let bits = fields.map(|f| load.bit(f)).collect::<Option<Vec<_>>>()?;
                    for (i, element) in bits.chunks_exact(INPUT_ELEMENT_BITS).enumerate() {
                        keep_latest(&mut inputs, (array, i, version), element.to_vec());
                    }
                    continue;
                }
                if let (Some(key), Ok(version)) = (stream_rows(name), ssa.parse::<u32>()) {
                    let bits = fields.map(|f| load.bit(f)).collect::<Option<Vec<_>>>()?;
                    match streams.iter_mut().find(|s| s.0 == key) {
                        Some(s) if s.1 < version => *s = (key.to_string(), version, bits),
                        Some(_) => {}
                        None => streams.push((key.to_string(), version, bits)),
                    }
                    continue;
                }
                let slot = |prefix: &str| {
                    let tag = name.strip_prefix(prefix)?;
                    tags.iter()
                        .position(|t| tag.len() == 1 && tag.starts_with(*t))
                };
                let target = match (slot(FORMULA_LENGTH), slot(FORMULA_LOG)) {
                    (Some(v), _) => &mut length[v],
                    (_, Some(v)) => &mut items[v],
                    _ => continue,
                };
                if target.is_some() {
                    return None;
                }
                *target = Some(fields.map(|f| load.bit(f)).collect::<Option<_>>()?);
                continue;
            }
            if line.starts_with('p') || line.is_empty() {
                continue;
            }
            load.clause(line, &mut clause)?;
        }
        let logs = length
            .into_iter()
            .zip(items)
            .map(|(length, items)| {
                let (length, items) = (length?, items?);
                (length.len() == 32 && items.len() == 32 * room)
                    .then_some(LogBits { length, items })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(QuadrupleFormula {
            load,
            logs,
            inputs,
            streams,
        })
    }

    /// The next quadruple of logs, blocked from then on: `Some(None)` when none is left,
    /// `None` when the solver ran past `deadline`, the run was asked to stop, or a model
    /// held no log (then CBMC's own runs search).
    pub(super) fn next(&mut self, deadline: Option<Instant>) -> Option<Option<Model>> {
        if stop::stop_reason().is_some() {
            return None;
        }
        self.load.solver.cb_mut().set(SolveLimit {
            deadline,
            cpu: None,
        });
        let answer = self.load.solver.solve_limited(&[]);
        if answer == lbool::FALSE {
            return Some(None);
        } else if answer != lbool::TRUE {
            return None;
        }
        let value = |bit: &Bit| match *bit {
            Bit::Const(c) => c,
            Bit::Lit(l) => self.load.solver.value_lit(l) == lbool::TRUE,
        };
        let number = |bits: &[Bit]| {
            bits.iter()
                .enumerate()
                .fold(0u64, |n, (j, b)| n | u64::from(value(b)) << j)
        };
        // The clause every other model satisfies: some bit of some log differs.
        let mut blocking: Vec<Lit> = Vec::new();
        let mut quadruple = Vec::with_capacity(self.logs.len());
        for log in &self.logs {
            let length = number(&log.length) as usize;
            let items: Vec<Item> = (0..length)
                .map(|i| log.items.get(32 * i..32 * (i + 1)).map(number))
                .map(|code| code.and_then(Item::decode))
                .collect::<Option<_>>()?;
            quadruple.push(items);
            for bit in log.length.iter().chain(&log.items) {
                if let Bit::Lit(l) = *bit {
                    blocking.push(if value(bit) { !l } else { l });
                }
            }
        }
        let mut pins: Vec<Pin> = self
            .inputs
            .iter()
            .map(|(array, i, _, bits)| (array.to_string(), *i, number(bits) as i64))
            .collect();
        // The first rows of each stream, byte by byte (CBMC lays an array's elements and a
        // struct's members out from the lowest bit): the reads a bounded execution makes.
        // Pins that miss one only leave the replay more to search.
        let row = 8 * INPUT_BYTES;
        for (key, _, bits) in &self.streams {
            for r in 0..(bits.len() / row).min(PINNED_ROWS) {
                let array = format!("__ml_data_{key}[{r}].b");
                for j in 0..INPUT_BYTES {
                    let at = r * row + 8 * j;
                    pins.push((array.clone(), j, number(&bits[at..at + 8]) as i64));
                }
            }
        }
        self.load.solver.add_clause_reuse(&mut blocking);
        Some(Some((quadruple, pins)))
    }
}

/// How many rows of each input stream a replay is pinned to.
const PINNED_ROWS: usize = 4;

/// The key of the input stream whose rows the harness's local `name` holds
/// (`main::1::__ml_data_KEY!0@1`).
fn stream_rows(name: &str) -> Option<&str> {
    name.strip_prefix("main::1::__ml_data_")?
        .strip_suffix("!0@1")
}

/// The tape's or the arguments' element `name` (`__ml_tape`) of SSA name `ssa` (`2[[0]]`):
/// the array, the index and the SSA version.
fn input_element(name: &str, ssa: &str) -> Option<(&'static str, usize, u32)> {
    let array = ["__ml_tape", "__ml_args"]
        .into_iter()
        .find(|a| *a == name)?;
    let (version, index) = ssa.split_once("[[")?;
    let index = index.strip_suffix("]]")?.parse().ok()?;
    Some((array, index, version.parse().ok()?))
}

/// The bits of one element of the tape or the arguments (`long long`).
const INPUT_ELEMENT_BITS: usize = 64;

/// The tape or the arguments as one symbol (`__ml_tape#2`, CBMC without array field
/// sensitivity): the array and the SSA version.
fn whole_input(name: &str, ssa: &str) -> Option<(&'static str, u32)> {
    let array = ["__ml_tape", "__ml_args"]
        .into_iter()
        .find(|a| *a == name)?;
    Some((array, ssa.parse().ok()?))
}

/// Keeps `bits` as the element's if its SSA version is the latest seen.
fn keep_latest(
    inputs: &mut Vec<(&'static str, usize, u32, Vec<Bit>)>,
    (array, index, version): (&'static str, usize, u32),
    bits: Vec<Bit>,
) {
    match inputs.iter_mut().find(|e| e.0 == array && e.1 == index) {
        Some(e) if e.2 < version => *e = (array, index, version, bits),
        Some(_) => {}
        None => inputs.push((array, index, version, bits)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symbol's comment line: `bits` literals or constants, lowest first.
    fn symbol(name: &str, bits: &[&str]) -> String {
        format!("c {name} {}\n", bits.join(" "))
    }

    fn constant(value: u64, width: usize) -> Vec<&'static str> {
        (0..width)
            .map(|j| if value >> j & 1 == 1 { "TRUE" } else { "FALSE" })
            .collect()
    }

    /// A formula's header and four logs that each hold one `end` (code 0).
    fn four_ended_logs() -> String {
        let mut cnf = String::from("p cnf 1 0\n");
        for t in ['o', 'a', 'b', 'm'] {
            cnf.push_str(&symbol(&format!("__ml_fl_{t}#1"), &constant(1, 32)));
            cnf.push_str(&symbol(&format!("__ml_fp_{t}#1"), &constant(0, 32)));
        }
        cnf
    }

    #[test]
    fn every_quadruple_is_found_once_and_then_none() {
        // Every log is `end` (code 0), and O's holds it or not as variable 1 says.
        let mut cnf = String::from("p cnf 1 0\n");
        let mut o_length = constant(0, 32);
        o_length[0] = "1";
        cnf.push_str(&symbol("__ml_fl_o#1", &o_length));
        for t in ['a', 'b', 'm'] {
            cnf.push_str(&symbol(&format!("__ml_fl_{t}#1"), &constant(1, 32)));
        }
        for t in ['o', 'a', 'b', 'm'] {
            cnf.push_str(&symbol(&format!("__ml_fp_{t}#1"), &constant(0, 32)));
        }
        cnf.push_str(&symbol("__ml_tape#1[[0]]", &constant(0, 64)));
        cnf.push_str(&symbol("__ml_tape#2[[0]]", &constant(7, 64)));
        let mut formula = QuadrupleFormula::read(&cnf, &['o', 'a', 'b', 'm'], 1).unwrap();
        let mut found = Vec::new();
        while let Some(Some((logs, pins))) = formula.next(None) {
            assert_eq!(
                pins,
                vec![("__ml_tape".to_string(), 0, 7)],
                "the latest SSA version"
            );
            assert!(!found.contains(&logs));
            found.push(logs);
        }
        let end = vec![Item::End];
        found.sort_by_key(|logs| logs[0].len());
        assert_eq!(
            found,
            vec![
                vec![vec![], end.clone(), end.clone(), end.clone()],
                vec![end.clone(), end.clone(), end.clone(), end]
            ]
        );
        assert_eq!(formula.next(None), Some(None));
    }

    #[test]
    fn a_models_stream_bytes_pin_the_first_rows() {
        let mut cnf = four_ended_logs();
        // Two rows of a stream: byte 0 of row 0 is 7, byte 1 of row 1 is 200.
        let mut rows = vec!["FALSE"; 2 * 8 * INPUT_BYTES];
        rows[..8].copy_from_slice(&constant(7, 8));
        let at = 8 * INPUT_BYTES + 8;
        rows[at..at + 8].copy_from_slice(&constant(200, 8));
        cnf.push_str(&symbol("main::1::__ml_data_lib_chars!0@1#1", &rows));
        let mut formula = QuadrupleFormula::read(&cnf, &['o', 'a', 'b', 'm'], 1).unwrap();
        let Some(Some((_, pins))) = formula.next(None) else {
            panic!("a model");
        };
        assert_eq!(pins.len(), 2 * INPUT_BYTES);
        let row = |r: usize| format!("__ml_data_lib_chars[{r}].b");
        assert!(pins.contains(&(row(0), 0, 7)), "{pins:?}");
        assert!(pins.contains(&(row(1), 1, 200)), "{pins:?}");
        assert!(pins.contains(&(row(1), 0, 0)), "{pins:?}");
    }

    #[test]
    fn a_whole_tape_gives_each_element() {
        let mut cnf = four_ended_logs();
        let mut tape = constant(0, 64);
        tape.extend(constant(9, 64));
        let zeros = [constant(0, 64), constant(0, 64)].concat();
        cnf.push_str(&symbol("__ml_tape#1", &zeros));
        cnf.push_str(&symbol("__ml_tape#3", &tape));
        let mut formula = QuadrupleFormula::read(&cnf, &['o', 'a', 'b', 'm'], 1).unwrap();
        let Some(Some((_, pins))) = formula.next(None) else {
            panic!("a model");
        };
        let tape = |i: usize, v: i64| ("__ml_tape".to_string(), i, v);
        assert_eq!(pins, vec![tape(0, 0), tape(1, 9)], "the latest SSA version");
    }

    #[test]
    fn a_formula_without_every_log_is_no_use() {
        let cnf = symbol("__ml_fl_o#1", &constant(1, 32));
        assert!(QuadrupleFormula::read(&cnf, &['o', 'a', 'b', 'm'], 1).is_none());
    }
}
