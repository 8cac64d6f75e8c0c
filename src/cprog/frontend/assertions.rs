//! Error mode's part of the front end: the assertion calls it recognises (glibc's `assert`
//! failure branch, `__CPROVER_assert`, SV-COMP's error calls), each kept as a
//! [`FoundAssertion`] whose edits wait until [`choose_target`] has picked the target the
//! user named; the target's failure ends a word, every other assertion only evaluates its
//! condition. Apart from the site walker because program explanation never uses it.

use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::sites::{Findings, FoundAssertion, SiteWalker};
use crate::cprog::edit::Edit;
use crate::cprog::error::FrontEndError;
use crate::cprog::program::{AssertionKind, AssertionSite, AssertionTarget};
use crate::cprog::syntax::{flat_text, named_children};

/// The failure branch glibc's `assert` expands to, CBMC's built-ins, and SV-COMP's error
/// calls: the assertions error mode recognises.
const ASSERT_FAILS: [&str; 2] = ["__assert_fail", "__assert_rtn"];
const ASSERTS: [&str; 2] = ["__CPROVER_assert", "assert"];
const REACH_ERRORS: [&str; 2] = ["__VERIFIER_error", "reach_error"];

impl FoundAssertion {
    /// Target: the call becomes `__mergelens_end()` when the condition is false (Fig. 8's
    /// `Learn_Assert`); the harness ends the path there. Not a target: the condition is
    /// evaluated for its effects and nothing else happens.
    fn edits(&self, target: bool) -> Vec<Edit> {
        let (start, end) = self.call;
        match (self.condition, target) {
            (None, true) => vec![Edit::replace(start, end, "__mergelens_end()", self.rank)],
            (None, false) => vec![Edit::replace(start, end, "((void)0)", self.rank)],
            (Some((c0, c1)), true) => vec![
                Edit::replace(start, c0, "((", self.rank),
                Edit::replace(c1, end, ") ? (void)0 : __mergelens_end())", self.rank),
            ],
            (Some((c0, c1)), false) => vec![
                Edit::replace(start, c0, "((void)(", self.rank),
                Edit::replace(c1, end, "))", self.rank),
            ],
        }
    }
}

/// Whether an assertion found at `file:line` is the one `target` names.
fn same_place(file: &str, line: u32, target: &AssertionTarget) -> bool {
    if line != target.line {
        return false;
    }
    let found = Path::new(file);
    if found == target.file {
        return true;
    }
    match (found.canonicalize(), target.file.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

impl SiteWalker<'_, '_> {
    /// Error mode: records an assertion call; `true` if `name` is one.
    pub(super) fn assertion(&mut self, node: Node, name: &str, depth: u32) -> bool {
        let kind = if ASSERT_FAILS.contains(&name) {
            AssertionKind::Assert
        } else if ASSERTS.contains(&name) {
            if name == "assert" {
                AssertionKind::Assert
            } else {
                AssertionKind::CproverAssert
            }
        } else if REACH_ERRORS.contains(&name) {
            AssertionKind::ReachError
        } else {
            return false;
        };
        let src = self.unit.src();
        let condition = if ASSERTS.contains(&name) {
            let Some(c) = node
                .child_by_field_name("arguments")
                .and_then(|a| named_children(a).into_iter().next())
            else {
                return false;
            };
            Some((c.start_byte(), c.end_byte()))
        } else {
            None
        };
        let (file, line, _) = self.unit.locate(node);
        // glibc's failure branch names the condition in its first argument.
        let text = match (kind, condition) {
            (_, Some((c0, c1))) => format!(
                "{name}({})",
                src[c0..c1].split_whitespace().collect::<Vec<_>>().join(" ")
            ),
            (AssertionKind::Assert, None) => {
                let message = node
                    .child_by_field_name("arguments")
                    .and_then(|a| named_children(a).into_iter().next())
                    .map(|m| flat_text(m, src))
                    .unwrap_or_default();
                format!("assert({})", message.trim_matches('"'))
            }
            _ => format!("{name}()"),
        };
        self.findings.assertions.push(FoundAssertion {
            unit: self.unit_index,
            node: node.id(),
            site: AssertionSite {
                file: PathBuf::from(file),
                line,
                function: self.function.to_string(),
                kind,
                text,
                target: false,
            },
            call: (node.start_byte(), node.end_byte()),
            condition,
            rank: depth * 4 + 1,
        });
        true
    }
}

/// Error mode: marks the target among the assertions found and queues every assertion's
/// edits.
pub(super) fn choose_target(
    target: &AssertionTarget,
    findings: &mut Findings,
) -> Result<Vec<AssertionSite>, FrontEndError> {
    if findings.assertions.is_empty() {
        return Err(FrontEndError::NoAssertion);
    }
    let at_line: Vec<usize> = (0..findings.assertions.len())
        .filter(|&i| {
            let s = &findings.assertions[i].site;
            same_place(&s.file.to_string_lossy(), s.line, target)
        })
        .collect();
    let chosen: Vec<usize> = match target.index {
        None => at_line,
        Some(k) => at_line.get(k).copied().into_iter().collect(),
    };
    if chosen.is_empty() {
        let mut existing: Vec<String> = findings
            .assertions
            .iter()
            .map(|a| format!("{}:{}: {}", a.site.file.display(), a.site.line, a.site.text))
            .collect();
        existing.dedup();
        return Err(FrontEndError::UnknownAssertion {
            target: format!("{}:{}", target.file.display(), target.line),
            existing,
        });
    }
    let mut sites = Vec::new();
    for (i, found) in findings.assertions.iter_mut().enumerate() {
        found.site.target = chosen.contains(&i);
        findings.edits[found.unit].extend(found.edits(found.site.target));
        sites.push(found.site.clone());
    }
    Ok(sites)
}
