//! What kind of failure an error is, so that a front end can answer it: the binary turns a
//! [`FailureKind`] into its documented exit code, a hook decides from it whether a merge may
//! go ahead. The library names no exit code; it only says whose fault a failure is.
//!
//! This module is a leaf, so that every subsystem's error can say its kind;
//! [`crate::failure_kind`] reads the kind off one error of a chain, and a front end walks the
//! chain (`anyhow::Error::chain`) and takes the first error that has one, the most specific.

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
