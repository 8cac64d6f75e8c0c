//! Values the flags of several commands share.

use clap::ValueEnum;

/// `mergelens learn --events`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum EventsArg {
    Functions,
    Calls,
    Branches,
}

/// `--allocations`: whether `malloc`, `calloc` and `realloc` may fail.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum AllocationsArg {
    /// Any allocation may return NULL; what the program does then is behaviour.
    #[default]
    MayFail,
    /// Every allocation succeeds: executions in which one fails are left out, and every
    /// output says so.
    Succeed,
}

impl From<AllocationsArg> for mergelens::cbmc::Allocations {
    fn from(arg: AllocationsArg) -> mergelens::cbmc::Allocations {
        match arg {
            AllocationsArg::MayFail => mergelens::cbmc::Allocations::MayFail,
            AllocationsArg::Succeed => mergelens::cbmc::Allocations::Succeed,
        }
    }
}

/// `--changed-functions`: which changed functions a review analyses at their own entries.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ChangedFunctionsArg {
    /// Those with a change no configured entry reaches (the default).
    Unreached,
    /// Every changed function.
    All,
    /// None: only the configured entries.
    None,
}

impl From<ChangedFunctionsArg> for mergelens::config::ChangedFunctions {
    fn from(arg: ChangedFunctionsArg) -> mergelens::config::ChangedFunctions {
        use mergelens::config::ChangedFunctions;
        match arg {
            ChangedFunctionsArg::Unreached => ChangedFunctions::Unreached,
            ChangedFunctionsArg::All => ChangedFunctions::All,
            ChangedFunctionsArg::None => ChangedFunctions::None,
        }
    }
}

/// A value that is not a number of seconds a `Duration` can hold.
#[derive(Debug, thiserror::Error)]
#[error("{0} is not a number of seconds (0 for no limit)")]
pub struct NotSeconds(String);

/// A number of seconds a `Duration` can hold (`inf` or `1e308` would panic later).
pub(super) fn seconds(text: &str) -> Result<f64, NotSeconds> {
    text.parse::<f64>()
        .ok()
        .filter(|&v| v >= 0.0 && std::time::Duration::try_from_secs_f64(v).is_ok())
        .ok_or_else(|| NotSeconds(text.to_string()))
}

/// A value that is not a share strictly between 0 and 1.
#[derive(Debug, thiserror::Error)]
#[error("{0} is not a share strictly between 0 and 1")]
pub struct NotAShare(String);

/// `--epsilon`, `--delta`: a probability strictly between 0 and 1 (0 would ask for
/// infinitely many samples, 1 or more for none).
pub(super) fn share(text: &str) -> Result<f64, NotAShare> {
    text.parse::<f64>()
        .ok()
        .filter(|&v| v > 0.0 && v < 1.0)
        .ok_or_else(|| NotAShare(text.to_string()))
}
