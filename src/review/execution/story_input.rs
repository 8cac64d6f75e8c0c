//! The input of a story as a document shows it: each value a raw execution of the product
//! read, with its type, bytes and the place that read it, the places made relative to
//! their version's checkout.
//!
//! Key items: [`story_input`], [`relative_sites`], [`shown_place`].

use super::reach::ORDER;
use crate::cbmc::product::{Execution as RawExecution, ReadSite};
use crate::cprog::product::{input_label, input_real_bytes};
use crate::document::{ExecutionInput, InputReads, InputSite, RealType};
use crate::review::engine::VersionInput;

/// The input of a story: the raw execution's values, each with where it was read.
pub(super) fn story_input(raw: &RawExecution) -> ExecutionInput {
    let shapes = |k: usize| raw.read_shapes.get(k).map_or(&[][..], Vec::as_slice);
    ExecutionInput {
        tape: raw.tape.clone(),
        arguments: raw.arguments.clone(),
        reads: raw
            .reads
            .iter()
            .enumerate()
            .map(|(k, (key, values))| InputReads {
                source: input_label(key),
                values: values.clone(),
                real: match input_real_bytes(key) {
                    Some(8) => Some(RealType::Double),
                    Some(4) => Some(RealType::Float),
                    _ => None,
                },
                sites: known(raw.read_sites.get(k).map_or(&[], Vec::as_slice), input_site),
                types: known(shapes(k), |s| s.ty.clone()),
                bytes: known(shapes(k), |s| Some(s.bytes.clone())),
            })
            .collect(),
        tape_sites: known(&raw.tape_sites, input_site),
    }
}

/// What `part` takes of each item of `list`; empty when it takes nothing of any (an
/// execution recorded before sites or shapes were: the document then leaves the key out).
fn known<S, T>(list: &[Option<S>], part: impl Fn(&S) -> Option<T>) -> Vec<Option<T>> {
    let taken: Vec<Option<T>> = list.iter().map(|s| s.as_ref().and_then(&part)).collect();
    if taken.iter().all(Option::is_none) {
        Vec::new()
    } else {
        taken
    }
}

fn input_site(site: &ReadSite) -> Option<InputSite> {
    let version = ORDER.iter().find(|(_, t)| *t == site.tag)?.0;
    Some(InputSite {
        version,
        file: site.file.clone(),
        line: site.line,
        function: site.function.clone(),
        call: site.call.clone(),
        variable: site.variable.clone(),
    })
}

/// Makes the sites' files relative to their version's checkout (a temporary directory,
/// which means nothing to a reader nor in the cache); a site outside it (in a generated
/// harness) is dropped. Executions a stopped run kept name an older checkout: theirs are
/// dropped too.
pub(super) fn relative_sites(executions: &mut [RawExecution], inputs: &[VersionInput]) {
    let relative = |site: &mut Option<ReadSite>| {
        let file = site.as_ref().and_then(|s| {
            let version = ORDER.iter().find(|(_, t)| *t == s.tag)?.0;
            let root = &inputs.iter().find(|i| i.version == version)?.root;
            let file = std::path::Path::new(&s.file).strip_prefix(root).ok()?;
            Some(file.to_string_lossy().into_owned())
        });
        match (site.as_mut(), file) {
            (Some(s), Some(file)) => s.file = file,
            _ => *site = None,
        }
    };
    for e in executions {
        e.tape_sites.iter_mut().for_each(relative);
        e.read_sites.iter_mut().flatten().for_each(relative);
    }
}

/// `place` (`/tmp/…/checkout/src/f.c:3 (f)`) with the checkout named by its version:
/// `base: src/f.c:3 (f)`.
pub(super) fn shown_place(place: &str, inputs: &[VersionInput]) -> String {
    inputs
        .iter()
        .find_map(|i| {
            let root = format!("{}/", i.root.display());
            place
                .strip_prefix(&root)
                .map(|rest| format!("{}: {rest}", i.version))
        })
        .unwrap_or_else(|| place.to_string())
}
