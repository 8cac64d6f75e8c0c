//! What the product's CBMC traces say: the logs of the versions, the input values a trace
//! gave (to pin a replay with), a whole execution with the places of its reads, and where a
//! version and its copy part ways.

use super::harness::{MAX_ARGUMENTS, PINS_HERE, TAPE_LENGTH};
use super::log::{
    Execution, Item, counter, global_values, len, log, read_count, read_values, result, seen,
};
use super::shapes::read_shapes;
use super::sites::{SiteContext, Source, read_sites};
use crate::cbmc::error::CbmcRunError;
use crate::cbmc::json;

/// An input value a sliced trace or a formula's model gave: the array (an lvalue of the
/// harness's `main`), the index and the value.
pub(super) type Pin = (String, usize, i64);

/// The tape and argument values a trace assigns.
pub(super) fn pinned_inputs(property: &json::PropertyResult) -> Vec<Pin> {
    let mut pins = Vec::new();
    for array in ["__ml_tape", "__ml_args"] {
        let len = if array == "__ml_tape" {
            TAPE_LENGTH
        } else {
            MAX_ARGUMENTS
        };
        for i in 0..len {
            if let Some(v) = property.last_value_of_element(array, i) {
                pins.push((array.to_string(), i, v as i64));
            }
        }
    }
    pins
}

/// The logs of the versions `tags` in a trace, if it has them all: every log of a run
/// that reached the harness's assertion ends with `end` or an exit (then its result's item,
/// when results are observed).
pub(super) fn read_logs(property: &json::PropertyResult, tags: &[char]) -> Option<Vec<Vec<Item>>> {
    tags.iter()
        .map(|&t| {
            let n = property.last_value(&len(t))? as usize;
            let codes = property.last_array(&log(t), n)?;
            let items: Vec<Item> = codes.into_iter().map(Item::decode).collect::<Option<_>>()?;
            let calls_end = items.iter().rev().find(|i| !matches!(i, Item::Result(_)));
            matches!(calls_end, Some(Item::End | Item::Exit)).then_some(items)
        })
        .collect()
}

/// `source` with its inputs pinned to `pins` (a replay).
pub(super) fn pinned(mut source: String, pins: &[Pin]) -> String {
    if pins.is_empty() {
        return source;
    }
    let pinned: Vec<String> = pins
        .iter()
        .map(|(array, i, v)| format!("{array}[{i}] == {v}ll"))
        .collect();
    let at = source
        .find(PINS_HERE)
        .expect("the harness marks where inputs are pinned");
    source.insert_str(
        at,
        &format!("  __CPROVER_assume({});\n", pinned.join(" && ")),
    );
    source
}

/// Where the logs of version `x` and its copy `y` part: the last place both ran before
/// their steps differ, as `file:line (function)`.
pub(super) fn divergence(steps: &[json::Location], x: char, y: char) -> Option<String> {
    let own = |t: char| {
        let prefix = format!("__ml_{t}_");
        steps
            .iter()
            .filter_map(move |s| {
                s.function
                    .strip_prefix(&prefix)
                    .map(|f| (f.to_string(), s.file.clone(), s.line))
            })
            .collect::<Vec<_>>()
    };
    let (xs, ys) = (own(x), own(y));
    let first = xs.iter().zip(&ys).position(|(a, b)| a != b)?;
    let (function, file, line) = xs.get(first.checked_sub(1)?)?;
    Some(format!("{file}:{line} ({function})"))
}

/// The execution an unsliced trace shows: its inputs and their places, the logs, and what
/// is `observed` (whether results are, how many globals).
pub(super) fn read_execution(
    property: &json::PropertyResult,
    context: &SiteContext,
    arguments: usize,
    observed: (bool, usize),
) -> Result<Execution, CbmcRunError> {
    let (tags, inputs) = (context.tags, context.inputs);
    let missing = |what: String| CbmcRunError::Json {
        reason: format!("the product trace lacks {what}"),
    };
    let logs =
        read_logs(property, tags).ok_or_else(|| missing("the versions' logs".to_string()))?;
    let read = tags
        .iter()
        .map(|&t| property.last_value(&counter(t)).unwrap_or(0) as usize)
        .max()
        .unwrap_or(0);
    let signed = |v: u64| v as i64;
    // Each value as the first version that read it converted it; the raw tape value where
    // the trace lacks that (a formula slice leaves out what no log depends on).
    let raw = property.last_array_or_zero("__ml_tape", read.min(TAPE_LENGTH));
    let tape: Vec<i64> = raw
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            tags.iter()
                .filter(|&&t| property.last_value(&counter(t)).unwrap_or(0) as usize > i)
                .find_map(|&t| property.last_value_of_element(&seen(t), i))
                .map_or(signed(v), signed)
        })
        .collect();
    // Each stream's values as the version that read it most often read them.
    let reads: Vec<(char, String, Vec<Option<i64>>)> = inputs
        .iter()
        .filter_map(|key| {
            let (t, n) = tags
                .iter()
                .map(|&t| (t, property.last_value(&read_count(t, key)).unwrap_or(0)))
                .max_by_key(|&(_, n)| n)?;
            let values = (0..n as usize)
                .map(|i| {
                    property
                        .last_value_of_element(&read_values(t, key), i)
                        .map(signed)
                })
                .collect::<Vec<_>>();
            (n > 0).then(|| (t, key.clone(), values))
        })
        .collect();
    let value = |t: char, source: &Source, i: usize| match source {
        Source::Tape => property.last_value_of_element(&seen(t), i).map(signed),
        Source::Stream(key) => property
            .last_value_of_element(&read_values(t, key), i)
            .map(signed),
    };
    let sites = read_sites(&property.flow, context, value);
    // Where the merge read a value, its place; else the last version's that read it.
    let site_of = |source: Source, i: usize| {
        tags.iter().rev().find_map(|&t| {
            sites
                .get(&(t, source.clone()))
                .and_then(|list| list.get(i))
                .filter(|s| s.line > 0)
                .cloned()
        })
    };
    let tape_sites = (0..tape.len()).map(|i| site_of(Source::Tape, i)).collect();
    let read_sites = reads
        .iter()
        .map(|(_, key, values)| {
            (0..values.len())
                .map(|i| site_of(Source::Stream(key.clone()), i))
                .collect()
        })
        .collect();
    let mut shapes = read_shapes(property, context);
    let read_shapes = reads
        .iter()
        .map(|(t, key, values)| {
            let mut list = shapes.remove(&(*t, key.clone())).unwrap_or_default();
            list.resize(values.len(), None);
            list
        })
        .collect();
    let reads = reads
        .into_iter()
        .map(|(_, key, values)| (key, values))
        .collect();
    let arguments = property
        .last_array_or_zero("__ml_args", arguments)
        .into_iter()
        .map(signed)
        .collect();
    let (results, globals) = observations(property, tags, observed);
    Ok(Execution {
        tape,
        arguments,
        reads,
        logs,
        tape_sites,
        read_sites,
        read_shapes,
        results,
        globals,
    })
}

/// What a trace shows of the versions `tags` beyond their logs, as `observed` says (whether
/// results are, how many globals): each version's result, and its values of the globals.
#[allow(clippy::type_complexity)]
fn observations(
    property: &json::PropertyResult,
    tags: &[char],
    observed: (bool, usize),
) -> (Vec<Option<i64>>, Vec<Vec<Option<i64>>>) {
    let signed = |v: u64| v as i64;
    let results = if observed.0 {
        tags.iter()
            .map(|&t| property.last_value(&result(t)).map(signed))
            .collect()
    } else {
        Vec::new()
    };
    let globals = if observed.1 > 0 {
        tags.iter()
            .map(|&t| {
                (0..observed.1)
                    .map(|g| {
                        property
                            .last_value_of_element(&global_values(t), g)
                            .map(signed)
                    })
                    .collect()
            })
            .collect()
    } else {
        Vec::new()
    };
    (results, globals)
}
