//! The unwinding of CBMC's library loops a product needs
//! ([`ProductProgram::fit_library_unwind`]): as for one version's queries
//! ([`crate::cbmc::program::library_loops`], which says why), the first of
//! [`LIBRARY_FITS`], when CBMC's unwinding assertions prove that no execution of the four
//! versions within the bounds runs a library loop past it; else [`LIBRARY_UNWIND`].
//!
//! With a quarter of the query timeout: the test runs all four copies, as the check does,
//! so a product whose loops need more would pay for a long test nearly what the check
//! itself costs, and find nothing.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::harness::{Goal, harness};
use super::{CbmcRunError, LIBRARY_UNWIND, Outcome, ProductProgram, json, more_object_bits, run};
use crate::cbmc::program::library_loops::{LIBRARY_FITS, UNTIMED_SHARE, library_loop_reached};
use crate::cbmc::teacher::LearnBounds;

impl ProductProgram {
    /// Fits the unwinding of the library's loops to the executions within `bounds` (the
    /// word length counting the letters `counts` accepts, as [`ProductProgram::enumerate`]
    /// counts them: the widest any run of the product explores): the first of
    /// [`LIBRARY_FITS`] when no loop of CBMC's library models reaches it, which every later
    /// run then uses. `None` when the product calls no library loop, or the test finds one
    /// reached or does not finish within a quarter of `timeout` ([`UNTIMED_SHARE`]
    /// without one). One CBMC run, counted in the product's counters.
    pub fn fit_library_unwind(
        &self,
        counts: impl Fn(&str) -> bool,
        bounds: LearnBounds,
        timeout: Option<Duration>,
    ) -> Result<Option<u32>, CbmcRunError> {
        let fit = LIBRARY_FITS[0];
        if self.binary.library_loops.is_empty() || fit >= LIBRARY_UNWIND {
            return Ok(None);
        }
        let counted: Vec<bool> = self.letters.iter().map(|l| counts(l)).collect();
        let layout = self.layout(bounds.max_word_length, &counted);
        // Every version run once: the pairs' comparison is no property of this run.
        let pairs: Vec<(char, char)> = self
            .tags
            .iter()
            .take(4)
            .collect::<Vec<_>>()
            .chunks(2)
            .map(|c| (*c[0], **c.last().expect("a chunk is never empty")))
            .collect();
        let source = harness(&layout, &Goal::Divergence(&pairs));
        let share = timeout.map_or(UNTIMED_SHARE, |t| t / 4);
        let Some(report) = self.fit_run(&source, bounds.cbmc().unwind, fit, share)? else {
            return Ok(None);
        };
        if library_loop_reached(&self.binary.library_loops, &report) {
            return Ok(None);
        }
        self.library_unwind.store(fit, Ordering::Relaxed);
        Ok(Some(fit))
    }

    /// Unwinds the library's loops `k` times from now on, as the versions' own tests
    /// proved enough for each ([`crate::cbmc::GotoProgram::tested_library_unwind`]); `k`.
    pub fn use_library_unwind(&self, k: u32) -> u32 {
        self.library_unwind.store(k, Ordering::Relaxed);
        k
    }

    /// One run of the unwinding assertions of `source` with the library loops unwound
    /// `fit` times (with more object bits, as the product's other runs get them); `None`
    /// past `share` or out of memory.
    fn fit_run(
        &self,
        source: &str,
        unwind: u32,
        fit: u32,
        share: Duration,
    ) -> Result<Option<json::Report>, CbmcRunError> {
        loop {
            let bits = self.object_bits();
            let (_dir, mut cmd) = self.command(&self.binary, source, (unwind, bits), Some(fit))?;
            cmd.args(["--json-ui", "--slice-formula"]);
            let deadline = Some(Instant::now() + share);
            let finished = match run::run(cmd, "cbmc", deadline, Some(&self.counters)) {
                Ok(Outcome::Finished(f)) => f,
                Ok(Outcome::TimedOut) | Err(CbmcRunError::OutOfMemory { .. }) => return Ok(None),
                Err(e) => return Err(e),
            };
            let report = json::parse(&finished.stdout)?;
            if report.errors.is_empty() {
                return Ok(Some(report));
            }
            match more_object_bits(&report.errors, bits) {
                Some(more) => self.object_bits.store(more, Ordering::Relaxed),
                None => {
                    return Err(CbmcRunError::Cbmc {
                        message: report.errors.join("; "),
                    });
                }
            }
        }
    }
}
