//! The loops of CBMC's C library models a program calls ([`GotoProgram::library_loops`]),
//! and how often they must be unwound ([`GotoProgram::fitted_library_unwind`]).
//!
//! Key items: [`library_loop_ids`], [`LIBRARY_FITS`], [`library_loop_reached`].
//!
//! A library loop (`strncmp`'s, `memchr`'s) may run [`LIBRARY_UNWIND`](super::LIBRARY_UNWIND)
//! times whatever the program's `--unwind`, so that the small bound does not cut a walk over
//! a fixed-size buffer. The harnesses' inputs are a few bytes, and most walks end far
//! sooner, but CBMC unwinds each call's loop that often all the same: tinyexpr's
//! `next_token` (a binary search of its function table by `strncmp`) ran past the 300 s
//! query timeout in the per-execution check, and took 32 s with the loops unwound 8 times.
//! So each program first asks CBMC, with unwinding assertions, whether some execution
//! within the bounds runs a library loop more than 8 times (a generated harness gives 4
//! bytes; a walk over a buffer of the program's own is longer); if none does, 8 is used for
//! every later query at those bounds. It changes no answer: every execution runs exactly as
//! under the program's bound, so the fit is a proof, not a guess, and where the candidate
//! is reached the bound stays. The per-execution check's product takes what its versions'
//! tests gave ([`GotoProgram::tested_library_unwind`]).

use std::process::Command;
use std::time::{Duration, Instant};

use super::{Bounds, DEFAULT_ENTRY, GotoProgram};
use crate::cbmc::error::CbmcRunError;
use crate::cbmc::json::{Report, Status};
use crate::cbmc::library;
use crate::cbmc::run::{self, Outcome};

/// The library unwindings tried, smallest first (those below the program's bound): one, as
/// a test of a bound that is reached costs about what the queries it would speed up cost
/// (with 8 and 32, untimed, the tests raised a review of hiredis' reader from 2.5 to
/// 4.9 GB at its peak).
pub(crate) const LIBRARY_FITS: [u32; 1] = [8];

/// How long one test may take without a query timeout: a quarter of the default one
/// (300 s), as with one (see [`GotoProgram::fitted_library_unwind`]).
pub(crate) const UNTIMED_SHARE: Duration = Duration::from_secs(75);

impl GotoProgram {
    /// Runs now what every query shares (the library's loops), so that queries started at
    /// once do not each run it.
    pub(crate) fn prepare_queries(&self, timeout: Option<Duration>) -> Result<(), CbmcRunError> {
        self.library_loops(timeout.map(|t| Instant::now() + t))
            .map(drop)
    }

    /// The loop ids (`strncpy.0`) of CBMC's C library models that the program calls, from
    /// `cbmc --show-loops` (a fraction of a second, not counted as a query): CBMC adds a
    /// model only for a function the program declares and does not define, so a user's own
    /// `strlen` keeps the program's bound. The harnesses call no library function, so the
    /// program alone decides. If CBMC cannot list them (e.g. the entry is missing), there
    /// are none, and the query itself reports what is wrong.
    pub(super) fn library_loops(
        &self,
        deadline: Option<Instant>,
    ) -> Result<&[String], CbmcRunError> {
        if let Some(loops) = self.library_loops.get() {
            return Ok(loops);
        }
        let mut cmd = Command::new(&self.tools.cbmc);
        cmd.arg(&self.binary).arg("--show-loops");
        if self.entry != DEFAULT_ENTRY {
            cmd.arg("--function").arg(&self.entry);
        }
        let loops = match run::run_declared(cmd, &[&self.binary], deadline, None)? {
            Outcome::Finished(f) if f.status.success() => {
                library_loop_ids(&String::from_utf8_lossy(&f.stdout))
            }
            _ => Vec::new(),
        };
        Ok(self.library_loops.get_or_init(|| loops))
    }
}

/// The ids of the loops `cbmc --show-loops` lists in CBMC's library models: a `Loop ID:`
/// line followed by `  file <builtin-library-NAME> line N function NAME`.
pub(crate) fn library_loop_ids(listing: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut current: Option<&str> = None;
    for line in listing.lines() {
        if let Some(id) = line.strip_prefix("Loop ").and_then(|l| l.strip_suffix(':')) {
            current = Some(id);
        } else if let Some(id) = current.take()
            && line
                .trim_start()
                .strip_prefix("file ")
                .and_then(|rest| rest.split(" line ").next())
                .is_some_and(library::is_library_file)
        {
            ids.push(id.to_string());
        }
    }
    ids
}

impl GotoProgram {
    /// How often the library's loops are unwound in a query at `bounds`: the smallest of
    /// [`LIBRARY_FITS`] that no execution within `bounds` (at most `max_word_length - 1`
    /// events, whether it ends or not: every query's executions) runs a library loop past,
    /// else the program's bound. One CBMC run a candidate, counted in the program's
    /// counters, the first time bounds at least as large are asked (queries wait for it),
    /// each given a quarter of `timeout`: a test past that, or out of memory, ends the
    /// search where it is.
    pub(super) fn fitted_library_unwind(
        &self,
        bounds: Bounds,
        deadline: Option<Instant>,
        timeout: Option<Duration>,
    ) -> Result<u32, CbmcRunError> {
        let loops = self.library_loops(deadline)?;
        if loops.is_empty() {
            return Ok(self.library_unwind);
        }
        let mut fits = self
            .library_fits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(k) = fit_for(&fits, bounds) {
            return Ok(k);
        }
        let source = crate::cbmc::coverage::harness(bounds.max_word_length, 0);
        let options = ["--unwinding-assertions", "--slice-formula"];
        let mut fitted = self.library_unwind;
        for k in LIBRARY_FITS
            .into_iter()
            .filter(|&k| k < self.library_unwind)
        {
            // A test that would cost what the queries it speeds up cost is not run out: the
            // bound stays where it was.
            let share = timeout.map_or(UNTIMED_SHARE, |t| t / 4);
            let end = deadline.map_or(Instant::now() + share, |d| d.min(Instant::now() + share));
            let what = || format!("the test of the library loops at {k} iterations");
            let within = (Some(end), Some(share));
            match self.check_output_at(&source, &options, (bounds, k), within, what) {
                Ok((report, _)) if !library_loop_reached(loops, &report) => {
                    fitted = k;
                    break;
                }
                Ok(_) => {}
                Err(CbmcRunError::Timeout { .. } | CbmcRunError::OutOfMemory { .. }) => break,
                Err(e) => return Err(e),
            }
        }
        fits.push((bounds, fitted));
        Ok(fitted)
    }

    /// What the test of the library loops gave queries at `bounds` (those at least as
    /// large): the unwinding they ran with. `None` before a test, and when the program
    /// calls no library loop.
    pub fn tested_library_unwind(&self, bounds: Bounds) -> Option<u32> {
        let fits = self
            .library_fits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        fit_for(&fits, bounds)
    }
}

/// The unwinding tested at bounds at least as large as `bounds`: smaller bounds run a
/// subset of the executions, so what fits larger ones fits them.
fn fit_for(fits: &[(Bounds, u32)], bounds: Bounds) -> Option<u32> {
    fits.iter()
        .find(|(b, _)| b.unwind >= bounds.unwind && b.max_word_length >= bounds.max_word_length)
        .map(|&(_, k)| k)
}

/// Whether some execution of `report`'s run (with unwinding assertions) reaches the
/// unwinding bound of one of the library `loops`: its assertion (`strncmp.unwind.0` for
/// loop `strncmp.0`) fails.
pub(crate) fn library_loop_reached(loops: &[String], report: &Report) -> bool {
    loops.iter().any(|id| {
        let Some((function, number)) = id.rsplit_once('.') else {
            return true;
        };
        let property = format!("{function}.unwind.{number}");
        report
            .properties
            .iter()
            .any(|p| p.id == property && p.status != Status::Holds)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_loops_are_those_of_cbmcs_models() {
        let listing = "Adding CPROVER library (x86_64)\nLoop main.0:\n  file t.c line 4 function main\n\nLoop strncpy.0:\n  file <builtin-library-strncpy> line 30 function strncpy\n\nLoop strlen.0:\n  file <builtin-library-strlen> line 18 function strlen\n";
        assert_eq!(library_loop_ids(listing), ["strncpy.0", "strlen.0"]);
        assert!(library_loop_ids("Loop main.0:\n  file m.c line 1 function main\n").is_empty());
    }
}
