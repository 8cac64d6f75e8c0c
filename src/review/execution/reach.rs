//! What the per-execution check of one entry needs before CBMC runs: the versions' call
//! sites numbered alike, and whether the code each version's entry can reach already
//! explains every execution.
//!
//! Key items:
//!
//! * [`number_sites`]: the numbers each version's call sites log, the site hooks of the
//!   unnumbered ones taken out.
//! * [`reachable_only`]: whether one branch left what the entry can reach as the base had
//!   it and the merge is the other branch's there, or both branches and the merge have it
//!   alike ([`behaviour_fingerprint`]), so that the check needs no CBMC run; and the merge's self-check left out where what it can reach
//!   is the base's.

use super::super::call_sites::{SitesOf, site_numbers};
use super::super::engine::VersionInput;
use super::super::error::ReviewError;
use crate::cbmc::CbmcRunError;
use crate::cprog::FrontEndError;
use crate::cprog::product::{ProductVersion, behaviour_fingerprint, drop_unnumbered_sites};
use crate::document::Version;

pub(super) const ORDER: [(Version, char); 4] = [
    (Version::Base, 'o'),
    (Version::Ours, 'a'),
    (Version::Theirs, 'b'),
    (Version::Merged, 'm'),
];

/// The copies the self-check runs beside their versions: O's, and M's.
pub(super) const COPIES: [(Version, char); 2] = [(Version::Base, 'p'), (Version::Merged, 'n')];

/// The input of the version with this tag (a copy's is its version's).
fn input_of(inputs: &[VersionInput], tag: char) -> Option<&VersionInput> {
    let version = ORDER
        .iter()
        .chain(&COPIES)
        .find(|(_, t)| *t == tag)
        .map(|(v, _)| *v)?;
    inputs.iter().find(|i| i.version == version)
}

/// Each version's call sites numbered alike where the versions share them (a copy is its
/// version's checkout), with the site hooks of sites numbered 0 taken out of its files.
pub(super) fn number_sites(
    inputs: &[VersionInput],
    entry: &str,
    versions: &[ProductVersion],
) -> Result<Vec<Vec<u32>>, ReviewError> {
    let root = |tag: char| input_of(inputs, tag).map(|i| i.root.as_path());
    let (Some(base), Some(roots)) = (
        root('o'),
        versions
            .iter()
            .map(|v| root(v.tag))
            .collect::<Option<Vec<_>>>(),
    ) else {
        return Ok(Vec::new());
    };
    let sites: Vec<SitesOf> = versions
        .iter()
        .zip(roots)
        .map(|(v, root)| SitesOf {
            root,
            sites: &v.call_sites,
        })
        .collect();
    let numbers = site_numbers(base, &sites);
    for (version, numbers) in versions.iter().zip(&numbers) {
        drop_unnumbered_sites(version, numbers)
            .map_err(|source| front_end_error(inputs, entry, version.tag, source))?;
    }
    Ok(numbers)
}

/// A front-end failure on the product's text of the version with this tag.
pub(super) fn front_end_error(
    inputs: &[VersionInput],
    entry: &str,
    tag: char,
    source: FrontEndError,
) -> ReviewError {
    match input_of(inputs, tag) {
        Some(i) => ReviewError::front_end(i.version, &i.revision, &i.root, entry, source),
        None => ReviewError::Product {
            entry: entry.to_string(),
            source: Box::new(CbmcRunError::Contract {
                message: format!(
                    "no version for the product's tag {tag}: {}",
                    crate::failure::text(&source)
                ),
            }),
        },
    }
}

/// Whether every execution is explained whatever the inputs, by the fingerprints of O, A, B
/// and M: one branch left the program as the base had it, and the merge is the other
/// branch's program; or both branches made one program and the merge is it (a change
/// both made, as after a cherry-pick or an earlier merge: diff3 takes it once).
fn explained(f: &[&str]) -> bool {
    (f[2] == f[0] && f[3] == f[1])
        || (f[1] == f[0] && f[3] == f[2])
        || (f[1] == f[2] && f[3] == f[1])
}

fn as_str(f: &[String]) -> Vec<&str> {
    f.iter().map(String::as_str).collect()
}

/// Whether every execution is explained with no CBMC run (see [`explained`]): by the
/// programs' fingerprints, or by what the code each version's entry can reach logs. Takes
/// the merge's self-check copy out of `versions` (with its site numbers and pair) where
/// that code is the base's.
#[allow(clippy::type_complexity)]
pub(super) fn reachable_only(
    inputs: &[VersionInput],
    entry: &str,
    fingerprints: &[String],
    (versions, pairs, numbers): (
        &mut Vec<ProductVersion>,
        &mut Vec<(char, char)>,
        &mut Vec<Vec<u32>>,
    ),
) -> Result<bool, ReviewError> {
    let behaviours = behaviours(versions, numbers)
        .map_err(|(tag, source)| front_end_error(inputs, entry, tag, source))?;
    // One branch that left what the entry runs as the base had it, and a merge that is the
    // other branch's there: every execution is explained, with no CBMC run.
    let one_sided = explained(&as_str(&fingerprints[..4]))
        || behaviours.as_ref().is_some_and(|b| explained(&as_str(b)));
    // The merge's self-check only where what it runs logs other than the base's: the
    // base's self-check covers the inputs of both then.
    if behaviours.as_ref().is_some_and(|b| b[3] == b[0])
        && let Some(i) = versions.iter().position(|v| v.tag == 'n')
    {
        versions.remove(i);
        if i < numbers.len() {
            numbers.remove(i);
        }
        pairs.retain(|&(_, copy)| copy != 'n');
    }
    Ok(one_sided)
}

/// What the code of O, A, B and M the entry can reach logs ([`behaviour_fingerprint`]), or
/// `None` when a version's text does not tell: versions with equal ones log the same on
/// every shared input, so a branch that changed only functions the entry never calls
/// changed nothing the check could see.
fn behaviours(
    versions: &[ProductVersion],
    numbers: &[Vec<u32>],
) -> Result<Option<Vec<String>>, (char, FrontEndError)> {
    let mut out = Vec::new();
    for (v, n) in versions.iter().take(4).zip(numbers) {
        match behaviour_fingerprint(v, n).map_err(|e| (v.tag, e))? {
            Some(f) => out.push(f),
            None => return Ok(None),
        }
    }
    Ok((out.len() == 4).then_some(out))
}
