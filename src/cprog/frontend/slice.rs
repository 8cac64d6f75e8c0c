//! The fingerprint of what an entry can run ([`fingerprint`]): the program's code, token for
//! token after preprocessing, less what no execution of the entry reaches; and the token
//! fingerprints of whole units ([`units_fingerprint`]) and of the configuration
//! ([`config_fingerprint`]) that the program's fingerprint is made of.
//!
//! Why: two versions whose code the entry can run is the same behave alike at that entry
//! on every input and at every bound, whatever else differs, so a review need not learn or
//! check them apart (the idea of DiffKemp's and SafeMerge's per-function comparison, as an
//! equality of program slices). What is cut is [`super::prune`]'s: the definitions of the
//! functions the entry cannot call (by the pre-check's call graph,
//! [`crate::cprog::precheck::callable_functions`]: a call through a pointer counts every
//! function whose address is taken, and a `goto` the graph cannot follow gives no slice),
//! and the prototypes and file-scope variables that nothing kept names. Types stay, so a
//! change to a type still tells the versions apart; so does a change to any global or
//! prototype the kept code names.

use std::path::{Path, PathBuf};

use super::index::Unit;
use crate::cprog::program::FrontEndConfig;
use crate::fingerprint::Fingerprint;

/// The slice's fingerprint, with the generated harness's text: the units less the ranges
/// `cut` ([`super::prune::unreachable_items`]: the definitions, prototypes and variables
/// no execution of the entry reaches).
pub(super) fn fingerprint(
    config: &FrontEndConfig,
    units: &[Unit],
    cut: &[Vec<(usize, usize)>],
    harness: Option<&str>,
) -> String {
    let mut h = Fingerprint::new();
    h.field("mergelens-slice/2");
    config_fingerprint(&mut h, config);
    units_fingerprint_without(&mut h, config, units, |u| cut[u].clone());
    h.field("harness");
    h.field(harness.unwrap_or(""));
    h.hex()
}

/// `# 12 "file" 1 3` or `#line 12`.
pub(super) fn is_line_marker(line: &str) -> bool {
    let rest = line.trim_start().strip_prefix('#').map(str::trim_start);
    rest.is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()) || r.starts_with("line"))
}

/// What of `config` makes another language of the same code: the entry, the events and
/// the letters kept.
pub(super) fn config_fingerprint(h: &mut Fingerprint, config: &FrontEndConfig) {
    h.field(&config.entry);
    if !config.harness.is_empty() {
        // The units' tokens include the harness's; which units are harnesses matters too.
        h.field("harness");
        h.field(&config.harness.len().to_string());
    }
    h.field(config.events.as_str());
    match &config.only {
        Some(only) => {
            h.field("only");
            only.iter().for_each(|n| h.field(n));
        }
        None => h.field("all"),
    }
    h.field("exclude");
    config.exclude.iter().for_each(|n| h.field(n));
}

/// The units' code, token by token, into `h`: where two checkouts of one program agree.
pub(super) fn units_fingerprint(h: &mut Fingerprint, config: &FrontEndConfig, units: &[Unit]) {
    units_fingerprint_without(h, config, units, |_| Vec::new());
}

/// [`units_fingerprint`] without the byte ranges `cut(u)` of each unit `u` (sorted, not
/// overlapping; offsets of `text`, which `parse_text` shares).
fn units_fingerprint_without(
    h: &mut Fingerprint,
    config: &FrontEndConfig,
    units: &[Unit],
    cut: impl Fn(usize) -> Vec<(usize, usize)>,
) {
    let prefixes = directory_prefixes(config);
    for (u, unit) in units.iter().enumerate() {
        let mut kept = String::with_capacity(unit.pre.text.len());
        let mut at = 0;
        for (start, end) in cut(u) {
            kept.push_str(&unit.pre.text[at..start.max(at)]);
            at = at.max(end);
        }
        kept.push_str(&unit.pre.text[at..]);
        // Line markers (`# 12 "file" 1 3`) only say where text came from; other directives
        // the preprocessor leaves (`#pragma`) are code and stay.
        let code: Vec<&str> = kept.lines().filter(|line| !is_line_marker(line)).collect();
        let code = code.join("\n");
        // A unit left with nothing (a file whose every function was cut) is no code.
        if code.trim().is_empty() {
            continue;
        }
        h.field("unit");
        h.tokens(&strip_prefixes(&code, &prefixes));
    }
}

/// The directories of the analysed files and of the `-I` directories, as given and
/// canonical, each with a trailing `/`, longest first: where a checkout lives.
fn directory_prefixes(config: &FrontEndConfig) -> Vec<String> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for file in &config.files {
        if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
            dirs.push(parent.to_path_buf());
        }
        if let Some(parent) = file
            .canonicalize()
            .ok()
            .and_then(|f| f.parent().map(Path::to_path_buf))
        {
            dirs.push(parent);
        }
    }
    for dir in &config.include_dirs {
        dirs.push(dir.clone());
        dirs.extend(dir.canonicalize().ok());
    }
    let mut prefixes: Vec<String> = dirs
        .iter()
        .map(|d| format!("{}/", d.to_string_lossy().trim_end_matches('/')))
        .filter(|p| p.len() > 1)
        .collect();
    prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
    prefixes.dedup();
    prefixes
}

/// `code` without the directory prefixes: glibc's `assert` expands `__FILE__` to the path
/// gcc was given, which for a review is a temporary checkout, and a path changes no
/// execution.
pub(super) fn strip_prefixes(code: &str, prefixes: &[String]) -> String {
    prefixes.iter().fold(code.to_string(), |code, prefix| {
        code.replace(prefix.as_str(), "")
    })
}
