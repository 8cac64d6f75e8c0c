//! The plain types of [`super`]: settings, an action's description, its outcome, errors.

use std::path::PathBuf;
use std::time::Duration;

use bazel_remote_apis::build::bazel::remote::execution::v2::Digest;
use thiserror::Error;

use crate::failure::{FailureKind, HasKind};

/// Who may write the action cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheMode {
    /// Results of executed actions are cached by the server (a trusted job).
    #[default]
    ReadWrite,
    /// Results are read from the cache, never written: actions this client executes are
    /// marked `do_not_cache` (an untrusted job).
    ReadOnly,
}

impl std::str::FromStr for CacheMode {
    type Err = RemoteError;

    fn from_str(text: &str) -> Result<CacheMode, RemoteError> {
        match text {
            "read-write" => Ok(CacheMode::ReadWrite),
            "read-only" => Ok(CacheMode::ReadOnly),
            _ => Err(RemoteError::BadSetting {
                what: format!("`{text}` is no cache mode; write read-only or read-write"),
            }),
        }
    }
}

/// Where the server is and how to use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteConfig {
    /// `grpc://host:port`, or `grpcs://host:port` for TLS.
    pub url: String,
    /// The REAPI instance name (`""`: the server's default).
    pub instance: String,
    pub cache: CacheMode,
    /// How many merges an audit reviews at once (`--remote-jobs`, at least 1).
    pub jobs: usize,
    /// Sent as `authorization: Bearer TOKEN` with every call.
    pub token: Option<Token>,
    /// With `grpcs://`: the PEM file of the CA the server's certificate must chain to
    /// (a private CA), instead of the system's roots.
    pub ca: Option<PathBuf>,
}

/// A bearer token, which no debug output shows.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(pub String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

#[derive(Debug, Error)]
pub enum RemoteError {
    #[error("{what}")]
    BadSetting { what: String },
    /// `reason`: the innermost cause (the transport's chain says some links twice).
    #[error("cannot reach the remote execution server at {url}: {reason}")]
    Connect { url: String, reason: String },
    #[error("remote {what}: {code}: {message}")]
    Rpc {
        what: &'static str,
        code: String,
        message: String,
    },
    #[error("the remote worker stopped the action at its timeout")]
    TimedOut,
    /// A stop request or the time budget ([`crate::stop`]) ended the wait.
    #[error("stopped while waiting for the remote action")]
    Stopped,
    #[error("remote {what}: {reason}")]
    Protocol { what: &'static str, reason: String },
    #[error("{path}: cannot read or write for remote execution")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl HasKind for RemoteError {
    fn kind(&self) -> FailureKind {
        match self {
            RemoteError::BadSetting { .. } => FailureKind::BadInput,
            RemoteError::Connect { .. }
            | RemoteError::Rpc { .. }
            | RemoteError::TimedOut
            | RemoteError::Stopped
            | RemoteError::Protocol { .. }
            | RemoteError::Io { .. } => FailureKind::Failed,
        }
    }
}

impl RemoteError {
    /// Whether another attempt may succeed: a lost connection or a busy server, not a
    /// request the server refused.
    pub(crate) fn transient(&self) -> bool {
        match self {
            RemoteError::Connect { .. } => true,
            RemoteError::Rpc { code, .. } => matches!(
                code.as_str(),
                "Unavailable"
                    | "Unknown"
                    | "Aborted"
                    | "Internal"
                    | "ResourceExhausted"
                    | "Cancelled"
                    | "DeadlineExceeded"
            ),
            // The action had its whole timeout: the caller's local run has what is left.
            RemoteError::TimedOut
            | RemoteError::Stopped
            | RemoteError::BadSetting { .. }
            | RemoteError::Protocol { .. }
            | RemoteError::Io { .. } => false,
        }
    }
}

/// One run as an action: paths in `arguments` are relative to the input root.
#[derive(Clone, Debug, Default)]
pub struct ActionSpec {
    pub arguments: Vec<String>,
    pub environment: Vec<(String, String)>,
    /// Files of this machine, by their path in the input root.
    pub inputs: Vec<(String, PathBuf)>,
    /// Directories uploaded before ([`Remote::mount`]), by their path in the input root.
    pub mounts: Vec<(String, MountedTree)>,
    /// Files the run writes, relative to the input root.
    pub output_files: Vec<String>,
    /// The action's timeout, which the worker enforces (part of the action's digest).
    pub timeout: Option<Duration>,
    /// How long the caller waits for the result, when less than the timeout.
    pub wait: Option<Duration>,
    /// The most a run's stdout, stderr or output file may hold.
    pub output_cap: u64,
}

/// A directory in the CAS, as [`Remote::mount`] uploaded it.
#[derive(Clone, Debug)]
pub struct MountedTree(pub(crate) Digest);

/// What a remote run did.
#[derive(Debug)]
pub struct ActionOutcome {
    pub exit_code: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The output files the run wrote, by their path in [`ActionSpec::output_files`].
    pub outputs: Vec<(String, Vec<u8>)>,
    /// Answered by the action cache, not executed.
    pub cached: bool,
}
