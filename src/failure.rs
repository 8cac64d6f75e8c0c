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
//!
//! A panic is a failure too: [`install_quiet_panic_hook`] keeps its message and place, and
//! [`catch_panic`] turns it into an [`InternalError`] (a bug: `Failed`), so that a hook's
//! `on-error` decides about the merge instead of a crash; [`contain_panic`] keeps a
//! dependency's known panic out of both.

use std::sync::Mutex;

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

/// A panic inside mergelens: a bug, reported as an internal failure (exit code 4) instead of
/// a crash, so that the hook's `on-error` decides about the merge.
#[derive(Debug, thiserror::Error)]
#[error("internal error (a bug in mergelens; please report it): {message}")]
pub struct InternalError {
    pub message: String,
}

impl HasKind for InternalError {
    fn kind(&self) -> FailureKind {
        FailureKind::Failed
    }
}

/// The message and place of the last panic, kept by [`install_quiet_panic_hook`].
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Replaces the default panic output (a thread name, a location and a backtrace hint on
/// standard error, in the middle of whatever the hook prints) with a record that
/// [`catch_panic`] turns into one error line. `RUST_BACKTRACE` set keeps the default output.
pub fn install_quiet_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if panic_contained() {
            return;
        }
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            // The first panic is the cause; a worker's panic re-raised elsewhere is not.
            last.get_or_insert(format!("{message}{place}"));
        }
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
            default(info);
        }
    }));
}

/// Runs `f`; a panic in it (or in a worker thread whose panic it re-raises) becomes an
/// [`InternalError`].
pub fn catch_panic<T>(f: impl FnOnce() -> T) -> Result<T, InternalError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let recorded = LAST_PANIC.lock().ok().and_then(|mut l| l.take());
        let message = recorded.unwrap_or_else(|| {
            payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string())
        });
        InternalError { message }
    })
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

    #[test]
    fn a_panic_in_a_worker_thread_is_an_internal_error() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let result = catch_panic(|| {
            pool.install(|| {
                use rayon::prelude::*;
                (0..4)
                    .into_par_iter()
                    .map(|i| {
                        if i == 3 {
                            panic!("worker {i} fell over")
                        } else {
                            i
                        }
                    })
                    .sum::<i32>()
            })
        });
        let err = result.unwrap_err().to_string();
        assert!(err.contains("worker 3 fell over"), "{err}");
        assert!(err.starts_with("internal error"), "{err}");
        assert_eq!(catch_panic(|| 7).unwrap(), 7);
    }
}
