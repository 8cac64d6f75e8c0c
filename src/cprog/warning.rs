//! What the front end could not see through, one [`FrontEndWarning`] per place, with its
//! [`WarningKind`]: a real library has dozens (every call through a function pointer, every
//! `goto`), the same on every run, so commands count them by kind and list them on request.

use std::fmt;

use serde::Serialize;

/// Up to this many warnings are shown one by one; more are counted by kind (and listed on
/// request): a handful reads at a glance, sixty on every run hide what matters.
pub const LISTED_WARNINGS: usize = 3;

/// Why the front end warns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum WarningKind {
    /// A call through a function pointer: its events are known only to CBMC.
    FunctionPointer,
    /// A call of a name that is not declared as a function (a function pointer, likely).
    UndeclaredCall,
    /// `goto`: events follow the jump.
    Goto,
    /// `goto *p`: the pre-check cannot follow it.
    ComputedGoto,
    /// `setjmp`/`longjmp` and the like.
    NonLocalJump,
    /// Threads: the pre-check cannot interleave them.
    Thread,
    /// A nested function (a GNU extension).
    NestedFunction,
    /// A function calls the entry, or uses it as a value.
    EntryReused,
    /// An `--only`/`--exclude` name that matches no event: the user's own option, always
    /// shown.
    UnknownName,
    /// A file of the program that declares itself a system header (`#pragma GCC
    /// system_header`): ignored, its functions stay the program's.
    SelfDeclaredSystemHeader,
}

impl WarningKind {
    /// The kind in a count: `calls through function pointers: 41`.
    pub fn plural(self) -> &'static str {
        match self {
            WarningKind::FunctionPointer => "calls through function pointers",
            WarningKind::UndeclaredCall => "calls of undeclared functions",
            WarningKind::Goto => "goto",
            WarningKind::ComputedGoto => "computed goto",
            WarningKind::NonLocalJump => "non-local jumps",
            WarningKind::Thread => "threads",
            WarningKind::NestedFunction => "nested functions",
            WarningKind::EntryReused => "the entry called or used as a value",
            WarningKind::UnknownName => "--only/--exclude names matching no event",
            WarningKind::SelfDeclaredSystemHeader => {
                "files declaring themselves system headers (ignored)"
            }
        }
    }

    /// Whether the warning is about the user's own options rather than the program: such
    /// a warning is always shown in full.
    pub fn about_options(self) -> bool {
        self == WarningKind::UnknownName
    }
}

/// One thing the front end could not see through: `file:line: message` where there is a
/// place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FrontEndWarning {
    pub kind: WarningKind,
    pub message: String,
}

impl FrontEndWarning {
    pub fn new(kind: WarningKind, message: String) -> FrontEndWarning {
        FrontEndWarning { kind, message }
    }
}

impl fmt::Display for FrontEndWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// `60 front-end warnings (calls through function pointers: 41, goto: 19)`, the kinds most
/// frequent first; `None` for no warning.
pub fn count_by_kind<'a>(
    warnings: impl IntoIterator<Item = &'a FrontEndWarning>,
) -> Option<String> {
    let mut counts: Vec<(WarningKind, usize)> = Vec::new();
    for w in warnings {
        match counts.iter_mut().find(|(k, _)| *k == w.kind) {
            Some((_, n)) => *n += 1,
            None => counts.push((w.kind, 1)),
        }
    }
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return None;
    }
    counts.sort_by_key(|&(kind, n)| (usize::MAX - n, kind));
    let kinds: Vec<String> = counts
        .iter()
        .map(|(kind, n)| format!("{}: {n}", kind.plural()))
        .collect();
    let noun = if total == 1 { "warning" } else { "warnings" };
    Some(format!("{total} front-end {noun} ({})", kinds.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warnings_are_counted_by_kind_most_frequent_first() {
        let w = |kind| FrontEndWarning::new(kind, "x".into());
        let warnings = [
            w(WarningKind::Goto),
            w(WarningKind::FunctionPointer),
            w(WarningKind::FunctionPointer),
        ];
        assert_eq!(
            count_by_kind(&warnings).as_deref(),
            Some("3 front-end warnings (calls through function pointers: 2, goto: 1)")
        );
        assert_eq!(count_by_kind(&[]), None);
        assert_eq!(w(WarningKind::Goto).to_string(), "x");
    }
}
