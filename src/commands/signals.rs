//! The stop signals (Ctrl-C's SIGINT, SIGTERM, SIGHUP), installed once by [`install`]: the
//! first stops the run through [`mergelens::stop`], a second ends the process at once.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use mergelens::stop;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::flag;

/// Set by the first stop signal; a signal that finds it set ends the process.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl-C, and the SIGTERM of `timeout` or a CI runner, and the SIGHUP of a closed
/// terminal: each stops the run as Ctrl-C does (the CBMC runs under way are killed, the
/// document is written and marked partial), a second one ends the process at once (exit
/// code 130). The handlers only swap and store flags and call `_exit` (signal-hook's, with
/// `SA_RESTART`, so interrupted reads go on). Installed once: a second set would see the
/// flag the first set stored and end the process at the first signal.
pub(crate) fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        for signum in [SIGINT, SIGTERM, SIGHUP] {
            // One atomic swap tells the first signal from the others: two signals sent
            // together may run their handlers at once on two threads, and a check and a
            // set apart (signal-hook's conditional shutdown, then its flag) let both see
            // the flag clear, so neither ended the process.
            // SAFETY: the action only swaps an atomic and calls `_exit`, both
            // async-signal-safe.
            let first = unsafe {
                signal_hook::low_level::register(signum, || {
                    if INTERRUPTED.swap(true, Ordering::SeqCst) {
                        signal_hook::low_level::exit(130);
                    }
                })
            };
            let installed = first.and_then(|_| flag::register(signum, stop::stop_flag()));
            if let Err(e) = installed {
                // The signal keeps its default action: it ends the run, keeping nothing.
                errln!("mergelens: warning: signal {signum} stops the run at once: {e}");
            }
        }
    });
}
