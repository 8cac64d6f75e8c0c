//! The logs a product program records: [`Item`]s, one [`Execution`] per input, and the C
//! names of each version's log, tape counters and input reads.

use serde::{Deserialize, Serialize};

use super::shapes::ReadShape;
use super::sites::ReadSite;

/// One entry of a version's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Item {
    /// The entry function returned (the letter `end`).
    End,
    /// The function whose entry is the last open letter returned.
    Return,
    /// `exit`/`abort` was called.
    Exit,
    /// After `end`, when the entry's result is observed: which version's result this
    /// version's equals first, in the order O, A, B, M (0: O's; a version's own index:
    /// equal to no earlier one's). Equal labels mean equal results, so two logs are equal
    /// exactly when their calls and results are, while a quadruple has at most fifteen
    /// patterns of results rather than one per value.
    Result(u8),
    /// A letter, by its index in [`Enumeration::letters`] (the union of the versions'
    /// alphabets, so that equal calls log equal items in every version), and the call site
    /// it was entered from: the number the review gave the site, the same in every version
    /// for a call the versions share (0: not known, as for a call through a pointer).
    Letter(u32, u32),
}

/// A logged letter's code holds its call site above this bit.
pub(super) const SITE_SHIFT: u32 = 20;
/// Site numbers must fit in the code's bits above [`SITE_SHIFT`]; larger ones log 0. The
/// largest value of those bits is no site: [`Item::Result`] codes carry it.
pub(super) const MAX_SITE: u32 = (1 << (32 - SITE_SHIFT)) - 2;
/// The site bits of an [`Item::Result`] code.
const RESULT_SITE: u32 = MAX_SITE + 1;

impl Item {
    pub(super) fn code(self) -> u32 {
        match self {
            Item::End => 0,
            Item::Return => 1,
            Item::Exit => 2,
            Item::Result(label) => u32::from(label) | (RESULT_SITE << SITE_SHIFT),
            Item::Letter(k, site) => (k + 3) | (site << SITE_SHIFT),
        }
    }

    pub(super) fn decode(code: u64) -> Option<Item> {
        let code = u32::try_from(code).ok()?;
        Some(match code {
            0 => Item::End,
            1 => Item::Return,
            2 => Item::Exit,
            c if c >> SITE_SHIFT == RESULT_SITE => Item::Result(
                u8::try_from(c & ((1 << SITE_SHIFT) - 1))
                    .ok()
                    .filter(|&l| l < 4)?,
            ),
            c => Item::Letter(
                (c & ((1 << SITE_SHIFT) - 1)).checked_sub(3)?,
                c >> SITE_SHIFT,
            ),
        })
    }
}

/// One input and what the four versions did on it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Execution {
    /// The tape values read by some version, in order (signed, as `long long`).
    pub tape: Vec<i64>,
    /// The entry's arguments.
    pub arguments: Vec<i64>,
    /// Per input stream some version read, by key: the values read in order (`None` for a
    /// read that is no scalar, such as a buffer's bytes).
    #[serde(default)]
    pub reads: Vec<(String, Vec<Option<i64>>)>,
    /// Per version, in the order the product was built with.
    pub logs: Vec<Vec<Item>>,
    /// Where each value of `tape` was read (by the merge when it read it, else by the last
    /// version that did); `None` where the trace does not tell.
    #[serde(default)]
    pub tape_sites: Vec<Option<ReadSite>>,
    /// Where each read of `reads` was made, stream by stream as `reads` lists them.
    #[serde(default)]
    pub read_sites: Vec<Vec<Option<ReadSite>>>,
    /// The bytes each read of `reads` gave and the type of what it filled, stream by stream
    /// as `reads` lists them (empty in executions recorded before shapes were).
    #[serde(default)]
    pub read_shapes: Vec<Vec<Option<ReadShape>>>,
    /// Per version, what its entry returned (signed, as `long long`), when the entry's
    /// result is observed; empty when it is not (a `void` or non-scalar result).
    #[serde(default)]
    pub results: Vec<Option<i64>>,
    /// Per version, what its entry left in each observed global ([`Enumeration::globals`]),
    /// signed as `long long`; empty when no global is observed.
    #[serde(default)]
    pub globals: Vec<Vec<Option<i64>>>,
}

pub(super) fn log(tag: char) -> String {
    format!("__ml_log_{tag}")
}

pub(super) fn len(tag: char) -> String {
    format!("__ml_len_{tag}")
}

pub(super) fn counter(tag: char) -> String {
    format!("__ml_tc_{tag}")
}

pub(super) fn seen(tag: char) -> String {
    format!("__ml_tv_{tag}")
}

pub(super) fn read_count(tag: char, key: &str) -> String {
    format!("__ml_ic_{tag}_{key}")
}

pub(super) fn read_values(tag: char, key: &str) -> String {
    format!("__ml_rv_{tag}_{key}")
}

pub(super) fn result(tag: char) -> String {
    format!("__ml_res_{tag}")
}

/// The array of what version `tag`'s entry left in the observed globals, by index.
pub(super) fn global_values(tag: char) -> String {
    format!("__ml_gv_{tag}")
}
