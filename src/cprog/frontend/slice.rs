//! The fingerprint of what an entry can run ([`fingerprint`]): the program's code, token for
//! token after preprocessing, less the definitions of the functions the entry's executions
//! cannot call.
//!
//! Why: two versions whose code the entry can run is the same behave alike at that entry
//! on every input and at every bound, whatever else differs, so a review need not learn or
//! check them apart (the idea of DiffKemp's and SafeMerge's per-function comparison, as an
//! equality of program slices). Only whole function definitions are cut: declarations,
//! types, globals and their initialisers stay, so a change to any of them still tells the
//! versions apart. Which functions are callable is the pre-check's call graph
//! ([`crate::cprog::precheck::callable_functions`]): a call through a pointer counts every
//! function whose address is taken, and a `goto` the graph cannot follow gives no slice.

use std::collections::HashSet;

use super::index::{Index, Unit};
use super::{config_fingerprint, units_fingerprint_without};
use crate::cprog::FrontEndConfig;
use crate::cprog::cfg::ProgramModel;
use crate::cprog::precheck;
use crate::fingerprint::Fingerprint;

/// The slice's fingerprint, with the generated harness's text; `None` when the call graph
/// cannot tell which functions the entry calls.
pub(super) fn fingerprint(
    config: &FrontEndConfig,
    units: &[Unit],
    index: &Index,
    model: &ProgramModel,
    harness: Option<&str>,
) -> Option<String> {
    let callable: HashSet<usize> = precheck::callable_functions(model)?.into_iter().collect();
    let mut h = Fingerprint::new();
    h.field("mergelens-slice/1");
    config_fingerprint(&mut h, config);
    units_fingerprint_without(&mut h, config, units, |u| {
        let mut cut: Vec<(usize, usize)> = index
            .defs
            .iter()
            .enumerate()
            .filter(|(i, d)| d.unit == u && !callable.contains(i))
            .map(|(_, d)| (d.node.start_byte(), d.node.end_byte()))
            .collect();
        cut.sort_unstable();
        cut
    });
    h.field("harness");
    h.field(harness.unwrap_or(""));
    Some(h.hex())
}
