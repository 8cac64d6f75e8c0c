//! The CBMC bounded model checker: finding it and checking that it is usable.
//!
//! Key types: [`Toolchain`] (the paths of `cbmc`, `goto-cc` and `goto-instrument` and the
//! version they report) and [`CbmcError`]. Later stages compile instrumented programs with
//! `goto-cc` and answer membership queries with `cbmc` (Chockler et al., JAIR 2020, Sec. 4).

mod locate;

pub use locate::{CbmcError, Toolchain, Version, MIN_VERSION};
