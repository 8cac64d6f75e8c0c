//! The unwinding of CBMC's library loops a product needs
//! ([`ProductProgram::fit_library_unwind`]): as for one version's queries
//! ([`crate::cbmc::program::library_loops`], which says why), the smallest of
//! [`LIBRARY_FITS`] that no execution of the four versions within the bounds runs a
//! library loop past, proved by CBMC's unwinding assertions; else [`LIBRARY_UNWIND`].

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::harness::{Goal, harness};
use super::{CbmcRunError, LIBRARY_UNWIND, Outcome, ProductProgram, json, more_object_bits, run};
use crate::cbmc::program::library_loops::{LIBRARY_FITS, library_loop_reached};
use crate::cbmc::teacher::LearnBounds;

impl ProductProgram {
    /// Fits the unwinding of the library's loops to the executions within `bounds` (the
    /// word length counting the letters `counts` accepts, as [`ProductProgram::enumerate`]
    /// counts them: the widest any run of the product explores): the smallest of
    /// [`LIBRARY_FITS`]
    /// that no loop of CBMC's library models reaches, which every later run then uses.
    /// `None` when the product calls no library loop or every candidate is reached. One
    /// CBMC run a candidate, counted in the product's counters.
    pub fn fit_library_unwind(
        &self,
        counts: impl Fn(&str) -> bool,
        bounds: LearnBounds,
        timeout: Option<Duration>,
    ) -> Result<Option<u32>, CbmcRunError> {
        if self.binary.library_loops.is_empty() {
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
        let unwind = bounds.cbmc().unwind;
        for fit in LIBRARY_FITS.into_iter().filter(|&k| k < LIBRARY_UNWIND) {
            let report = self.fit_run(&source, (unwind, bounds.max_word_length), fit, timeout)?;
            if !library_loop_reached(&self.binary.library_loops, &report) {
                self.library_unwind.store(fit, Ordering::Relaxed);
                return Ok(Some(fit));
            }
        }
        Ok(None)
    }

    /// One run of the unwinding assertions of `source` with the library loops unwound
    /// `fit` times (more object bits, or field sensitivity back on, as the product's other
    /// runs get them).
    fn fit_run(
        &self,
        source: &str,
        (unwind, max_word_length): (u32, usize),
        fit: u32,
        timeout: Option<Duration>,
    ) -> Result<json::Report, CbmcRunError> {
        loop {
            let bits = self.object_bits();
            let (_dir, mut cmd) = self.command(&self.binary, source, (unwind, bits), Some(fit))?;
            cmd.args(["--json-ui", "--slice-formula"]);
            let deadline = timeout.map(|t| Instant::now() + t);
            let finished = match run::run(cmd, "cbmc", deadline, Some(&self.counters)) {
                Err(CbmcRunError::OutOfMemory { .. }) if self.turn_field_sensitivity_on() => {
                    continue;
                }
                Ok(Outcome::Finished(f)) => f,
                Ok(Outcome::TimedOut) => {
                    return Err(run::unanswered(CbmcRunError::Timeout {
                        what: format!(
                            "the per-execution check's test of the library loops at {fit} iterations"
                        ),
                        unwind,
                        max_word_length,
                        seconds: timeout.unwrap_or_default().as_secs_f64(),
                    }));
                }
                Err(e) => return Err(e),
            };
            let report = json::parse(&finished.stdout)?;
            if report.errors.is_empty() {
                return Ok(report);
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
