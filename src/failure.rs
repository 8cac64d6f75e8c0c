//! What kind of failure an error is, so that a front end can answer it: the binary turns a
//! [`FailureKind`] into its documented exit code, a hook decides from it whether a merge may
//! go ahead. The library names no exit code; it only says whose fault a failure is.
//!
//! This module is a leaf, so that every subsystem's error can say its kind: each error type
//! of the library implements [`HasKind`] with a `match` that names every variant, so a new
//! variant does not compile without a kind. [`crate::failure_kind`] reads the kind off one
//! error of a chain through the one list of the library's error types (a unit test there
//! fails when an error type is missing from it); a front end walks the chain
//! (`anyhow::Error::chain`) and takes the first error that has one, the outermost, whose
//! kind already accounts for the causes it wraps.
//!
//! Each error says its own words or is `#[error(transparent)]`, never both, so a chain
//! printed link by link ([`text`], anyhow's `{:#}`) says each cause once.

/// Whose fault a failure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The input is wrong: a file that is not what it should be, a program the front end,
    /// goto-cc or CBMC rejects, a revision that does not exist. The user can fix it.
    BadInput,
    /// A tool mergelens needs (CBMC) is missing or too old.
    MissingTool,
    /// The run failed for another reason: a CBMC timeout or crash, a write that failed, a
    /// limit that was hit, an internal error.
    Failed,
}

/// An error that knows whose fault it is. Implement it with a `match` that names every
/// variant (no `_` arm), delegating to the wrapped error's kind where a variant wraps one.
pub trait HasKind {
    fn kind(&self) -> FailureKind;
}

/// `error` and its causes in one line, joined with `: `: how the library turns an error
/// into text it keeps (a reason in a document, a warning). Each error of the library says
/// only its own words, so each cause appears once.
pub fn text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut out = error.to_string();
    let mut next = error.source();
    while let Some(cause) = next {
        let own = cause.to_string();
        if !own.is_empty() {
            out.push_str(": ");
            out.push_str(&own);
        }
        next = cause.source();
    }
    out
}

thread_local! {
    /// How many [`contain_panic`] calls are running on this thread.
    static CONTAINED: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Runs `f`, whose panic is a known failure of a dependency (a graph layout that cannot
/// place two nodes): `None` then, and the process's panic hook neither prints nor records
/// it (see [`panic_contained`]).
pub fn contain_panic<T>(f: impl FnOnce() -> T) -> Option<T> {
    CONTAINED.with(|c| c.set(c.get() + 1));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    CONTAINED.with(|c| c.set(c.get() - 1));
    result
}

/// Whether a panic now is inside [`contain_panic`], for a panic hook to stay quiet.
pub fn panic_contained() -> bool {
    CONTAINED.with(|c| c.get() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("no such file")]
    struct Leaf;

    #[derive(Debug, thiserror::Error)]
    #[error("a.json: cannot read")]
    struct Outer(#[source] Leaf);

    #[derive(Debug, thiserror::Error)]
    #[error(transparent)]
    struct Forward(#[from] Outer);

    #[test]
    fn text_says_each_link_once() {
        assert_eq!(
            text(&Forward(Outer(Leaf))),
            "a.json: cannot read: no such file"
        );
        assert_eq!(text(&Leaf), "no such file");
    }

    #[test]
    fn a_contained_panic_is_none_and_known_to_the_hook_only_inside() {
        assert_eq!(contain_panic(|| 3), Some(3));
        let seen = contain_panic(|| {
            assert!(panic_contained());
            panic!("layout")
        });
        assert_eq!(seen, None::<()>);
        assert!(!panic_contained());
    }
}
