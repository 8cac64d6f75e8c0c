//! Where each input value of an execution was read: [`read_sites`] follows the calls of a
//! product trace to the line of the program that asked for the value (the call of
//! `nondet_int()`, `getchar()` or a body-less `sensor()`, or a local filled where it is
//! declared) and the variable that line assigned it to.
//!
//! The product's readers (`__mltape_<tag>`, `__mlin_<tag>_<key>`) are called from code the
//! rewriting generated (a `nondet_int` that reads the tape, a `getchar` wrapper), whose
//! places mean nothing to a reader: the place of a read is where the outermost generated
//! function was called from, in the program's own code.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use super::super::json::{FlowStep, Location};
use crate::cprog::product::{input_reader, product_names};

/// Where one version read one input value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadSite {
    /// The version that made the read.
    pub tag: char,
    /// The file as CBMC names it (a path in the version's checkout).
    pub file: String,
    pub line: u32,
    /// The function the read is in, as the program names it.
    pub function: String,
    /// The input function the program called (`nondet_int`, `getchar`, `sensor`); absent
    /// for a local variable filled where it is declared.
    #[serde(default)]
    pub call: Option<String>,
    /// The variable that line assigned the value to, when the trace shows one.
    #[serde(default)]
    pub variable: Option<String>,
}

/// Which input a reader call reads: the tape, or the stream with this key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Source {
    Tape,
    Stream(String),
}

/// What [`read_sites`] needs to know of the product.
pub(super) struct SiteContext<'a> {
    /// The versions whose reads count (O, A, B, M).
    pub tags: &'a [char],
    /// The input streams' keys.
    pub inputs: &'a [String],
    /// The generated functions that read an input (renamed per version).
    pub readers: &'a HashSet<String>,
}

/// The place of every read in the trace's `flow`, by version, source and read number; `value`
/// gives the value of a read (`None` when it is no scalar), to tell the assignment that took
/// it from another on the same line.
pub(super) fn read_sites(
    flow: &[FlowStep],
    context: &SiteContext,
    value: impl Fn(char, &Source, usize) -> Option<i64>,
) -> HashMap<(char, Source), Vec<ReadSite>> {
    let reader_of: HashMap<String, (char, Source)> = context
        .tags
        .iter()
        .flat_map(|&t| {
            let tape = (product_names(t).tape, (t, Source::Tape));
            let streams = context
                .inputs
                .iter()
                .map(move |k| (input_reader(t, k), (t, Source::Stream(k.clone()))));
            std::iter::once(tape).chain(streams)
        })
        .collect();
    let mut sites: HashMap<(char, Source), Vec<ReadSite>> = HashMap::new();
    // Each open call: the callee and where it was called from.
    let mut stack: Vec<(&str, Option<&Location>)> = Vec::new();
    // A read whose variable is still to be seen: the key of its site, and the frame and
    // line it happened in.
    let mut pending: Option<Pending> = None;
    for step in flow {
        match step {
            FlowStep::Call { callee, at } => {
                if let Some((tag, source)) = reader_of.get(callee.as_str()) {
                    let list = sites.entry((*tag, source.clone())).or_default();
                    let number = list.len();
                    let site = place(&stack, at.as_ref(), *tag, context.readers);
                    pending = site.as_ref().map(|(site, depth)| Pending {
                        key: (*tag, source.clone()),
                        number,
                        depth: *depth,
                        function: site.function.clone(),
                        line: site.line,
                        value: value(*tag, source, number),
                    });
                    list.push(site.map(|(s, _)| s).unwrap_or_else(|| unknown(*tag)));
                }
                stack.push((callee, at.as_ref()));
            }
            FlowStep::Return => {
                stack.pop();
                if pending.as_ref().is_some_and(|p| stack.len() < p.depth) {
                    pending = None;
                }
            }
            FlowStep::Assign { lhs, value, at } => {
                let Some(p) = &pending else { continue };
                if stack.len() != p.depth {
                    continue;
                }
                let Some(at) = at else { continue };
                let tag = p.key.0;
                if own_name(&at.function, tag) != Some(p.function.as_str()) || at.line != p.line {
                    pending = None;
                    continue;
                }
                if let Some(variable) = program_variable(lhs, tag)
                    && value.is_none_or(|v| same_value(v, p.value))
                {
                    if let Some(site) = sites.get_mut(&p.key).and_then(|l| l.get_mut(p.number)) {
                        site.variable = Some(variable);
                    }
                    pending = None;
                }
            }
        }
    }
    sites
}

/// A read waiting for the assignment that takes its value.
struct Pending {
    key: (char, Source),
    number: usize,
    /// The depth of the program's frame the read was made from.
    depth: usize,
    function: String,
    line: u32,
    value: Option<i64>,
}

/// A read whose place the trace does not show (kept so that the numbering stays right).
fn unknown(tag: char) -> ReadSite {
    ReadSite {
        tag,
        file: String::new(),
        line: 0,
        function: String::new(),
        call: None,
        variable: None,
    }
}

/// The place of a reader call made at `at` with `stack` open: the innermost call site that
/// is in the program's own code, with the input function called there and the depth of the
/// program's frame.
fn place(
    stack: &[(&str, Option<&Location>)],
    at: Option<&Location>,
    tag: char,
    readers: &HashSet<String>,
) -> Option<(ReadSite, usize)> {
    let mut at = at?;
    let mut call = None;
    let mut depth = stack.len();
    // Walk out of the generated readers (`nondet_int`, `getchar`, `sensor`).
    while depth > 0 && readers.contains(stack[depth - 1].0) {
        let (reader, called_at) = stack[depth - 1];
        call = own_name(reader, tag).map(str::to_string);
        at = called_at?;
        depth -= 1;
    }
    let function = own_name(&at.function, tag)?.to_string();
    Some((
        ReadSite {
            tag,
            file: at.file.clone(),
            line: at.line,
            function,
            call,
            variable: None,
        },
        depth,
    ))
}

/// A name of version `tag` as the program spells it (`__ml_a_parse` is `parse`); `None` for
/// names that are not the version's own (hooks, CBMC's).
fn own_name(name: &str, tag: char) -> Option<&str> {
    name.strip_prefix("__ml_")?
        .strip_prefix(tag)?
        .strip_prefix('_')
}

/// An assignment's left-hand side as the program spells it, or `None` for CBMC's own
/// temporaries (return values) and the harness's variables: `arr[1l]` is `arr[1]`,
/// `__ml_a_g` is `g`.
fn program_variable(lhs: &str, tag: char) -> Option<String> {
    if lhs.starts_with("return_value") || lhs.contains("$$") || lhs.starts_with("__CPROVER") {
        return None;
    }
    let own = format!("__ml_{tag}_");
    let renamed = lhs.replace(&own, "");
    if renamed.starts_with("__ml") {
        return None;
    }
    // CBMC writes array indices as C literals with their suffix.
    let mut out = String::with_capacity(renamed.len());
    let mut rest = renamed.as_str();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let close = rest.find(']').unwrap_or(rest.len());
        out.push_str(rest[..close].trim_end_matches(['l', 'L', 'u', 'U']));
        rest = &rest[close..];
    }
    out.push_str(rest);
    Some(out)
}

/// Whether an assigned value (CBMC's bits) is the value read, at any of C's integer widths
/// (an `int` read stored in a `char` keeps its low byte).
fn same_value(assigned: u64, read: Option<i64>) -> bool {
    let Some(read) = read else { return true };
    [8u32, 16, 32, 64].iter().any(|&bits| {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        assigned & mask == (read as u64) & mask
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(function: &str, line: u32) -> Option<Location> {
        Some(Location {
            file: "/tmp/co/prog.c".into(),
            line,
            function: function.into(),
        })
    }

    fn call(callee: &str, function: &str, line: u32) -> FlowStep {
        FlowStep::Call {
            callee: callee.into(),
            at: at(function, line),
        }
    }

    fn assign(lhs: &str, value: u64, function: &str, line: u32) -> FlowStep {
        FlowStep::Assign {
            lhs: lhs.into(),
            value: Some(value),
            at: at(function, line),
        }
    }

    #[test]
    fn a_read_is_placed_where_the_program_calls_its_input_function() {
        let readers: HashSet<String> = ["__ml_m_nondet_int", "__ml_m_getchar"]
            .into_iter()
            .map(String::from)
            .collect();
        let inputs = vec!["lib_chars".to_string()];
        let context = SiteContext {
            tags: &['m'],
            inputs: &inputs,
            readers: &readers,
        };
        let flow = vec![
            call("__ml_m_main", "main", 1),
            // int x = nondet_int();  (line 8)
            call("__ml_m_nondet_int", "__ml_m_main", 8),
            call("__mltape_m", "__ml_m_nondet_int", 900),
            FlowStep::Return,
            FlowStep::Return,
            assign("return_value___ml_m_nondet_int", 5, "__ml_m_main", 8),
            assign("x", 5, "__ml_m_main", 8),
            // if (nondet_int()) y = 1;  (line 9): y does not take the value read.
            call("__ml_m_nondet_int", "__ml_m_main", 9),
            call("__mltape_m", "__ml_m_nondet_int", 900),
            FlowStep::Return,
            FlowStep::Return,
            assign("y", 1, "__ml_m_main", 9),
            // __ml_m_g[2] = getchar();  (line 10) in a callee
            call("__ml_m_read_one", "__ml_m_main", 10),
            call("__ml_m_getchar", "__ml_m_read_one", 20),
            call("__mlin_m_lib_chars", "__ml_m_getchar", 901),
            FlowStep::Return,
            FlowStep::Return,
            assign("__ml_m_g[2l]", 0x41, "__ml_m_read_one", 20),
            FlowStep::Return,
        ];
        let values = |_: char, source: &Source, k: usize| match (source, k) {
            (Source::Tape, 0) => Some(5),
            (Source::Tape, 1) => Some(7),
            _ => Some(0x41),
        };
        let sites = read_sites(&flow, &context, values);
        let tape = &sites[&('m', Source::Tape)];
        assert_eq!(tape.len(), 2);
        assert_eq!(
            (
                tape[0].line,
                tape[0].function.as_str(),
                tape[0].call.as_deref()
            ),
            (8, "main", Some("nondet_int"))
        );
        assert_eq!(tape[0].variable.as_deref(), Some("x"));
        assert_eq!(tape[1].line, 9);
        assert_eq!(tape[1].variable, None, "y = 1 does not take the value read");
        let chars = &sites[&('m', Source::Stream("lib_chars".into()))];
        assert_eq!(
            (
                chars[0].line,
                chars[0].function.as_str(),
                chars[0].call.as_deref()
            ),
            (20, "read_one", Some("getchar"))
        );
        assert_eq!(chars[0].variable.as_deref(), Some("g[2]"));
        assert_eq!(chars[0].file, "/tmp/co/prog.c");
    }

    #[test]
    fn values_match_at_any_integer_width() {
        assert!(same_value(0xff, Some(-1)));
        assert!(same_value(u64::MAX, Some(-1)));
        assert!(!same_value(1, Some(2)));
        assert!(same_value(9, None));
        assert_eq!(program_variable("return_value_f$0", 'a'), None);
        assert_eq!(program_variable("__ml_tc_a", 'a'), None);
        assert_eq!(program_variable("s.b", 'a').as_deref(), Some("s.b"));
    }
}
