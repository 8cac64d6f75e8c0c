//! The program's own assertions as CBMC names them (`main.assertion.1`), for choosing the
//! target of error explanation (Sec. 3 of Chockler, Kesseli, Kroening and Strichman,
//! *Learning the Language of Software Errors*, JAIR 2020: the language of one assertion).
//!
//! CBMC runs on the user's sources as they are, not on an instrumented copy, so the ids
//! and lines are the ones the user sees when running CBMC themselves.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;
use serde_json::Value;

use super::error::CbmcRunError;
use super::locate::Toolchain;
use super::program::common_options;
use super::run::{self, CbmcCounters, Outcome};

/// One assertion of the program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramProperty {
    /// CBMC's property id, e.g. `main.assertion.1`.
    pub id: String,
    pub file: PathBuf,
    pub line: u32,
    pub function: String,
    pub description: String,
}

impl ProgramProperty {
    /// Whether the assertion is one of CBMC's models of the C library (`malloc`'s "max
    /// allocation size exceeded"), not the program's own.
    pub fn in_library(&self) -> bool {
        self.file
            .to_str()
            .is_some_and(super::library::is_library_file)
    }
}

/// What [`program_properties`] asks CBMC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertyQuery {
    /// Every assertion (`--show-properties`; no model checking).
    All,
    /// The assertions that fail within `--unwind N` (one verification run).
    Failing { cbmc_unwind: u32 },
}

/// The assertions of the program made of `files` with entry `entry` (only property class
/// `assertion`: CBMC's own checks are not the user's assertions), in CBMC's order.
#[allow(clippy::too_many_arguments)]
pub fn program_properties(
    tools: &Toolchain,
    files: &[PathBuf],
    include_dirs: &[PathBuf],
    defines: &[String],
    entry: &str,
    query: PropertyQuery,
    work_dir: &Path,
    counters: Option<&CbmcCounters>,
) -> Result<Vec<ProgramProperty>, CbmcRunError> {
    let mut cmd = Command::new(&tools.cbmc);
    cmd.current_dir(work_dir);
    for d in include_dirs {
        cmd.arg("-I").arg(d);
    }
    for d in defines {
        cmd.arg(format!("-D{d}"));
    }
    cmd.args(files).arg("--json-ui").args(common_options(tools));
    if entry != "main" {
        cmd.arg("--function").arg(entry);
    }
    match query {
        PropertyQuery::All => {
            cmd.arg("--show-properties");
        }
        PropertyQuery::Failing { cbmc_unwind } => {
            cmd.arg("--unwind").arg(cbmc_unwind.to_string());
        }
    }
    let finished = match run::run(cmd, "cbmc", None, counters)? {
        Outcome::Finished(f) => f,
        // No deadline of its own: only a stop (Ctrl-C, the time budget) ends it early.
        Outcome::TimedOut => {
            return Err(CbmcRunError::Stopped {
                reason: crate::stop::stop_reason().unwrap_or(crate::stop::StopReason::TimeBudget),
            });
        }
    };
    let messages: Vec<Value> =
        serde_json::from_slice(&super::json::controls_escaped(&finished.stdout)).map_err(|e| {
            CbmcRunError::Json {
                reason: format!("{e}; stderr: {}", run::tail(&finished.stderr, 3)),
            }
        })?;
    let errors: Vec<String> = messages
        .iter()
        .filter(|m| m.get("messageType").and_then(Value::as_str) == Some("ERROR"))
        .filter_map(|m| m.get("messageText").and_then(Value::as_str))
        .map(str::to_string)
        .collect();
    if !errors.is_empty() {
        return Err(CbmcRunError::Cbmc {
            message: errors.join("; "),
        });
    }
    Ok(match query {
        PropertyQuery::All => messages
            .iter()
            .filter_map(|m| m.get("properties")?.as_array())
            .flatten()
            .filter(|p| p.get("class").and_then(Value::as_str) == Some("assertion"))
            .filter_map(|p| read(p, "name", p.get("sourceLocation")?))
            .collect(),
        PropertyQuery::Failing { .. } => {
            // A failure step's location can be a line off the assertion (CBMC points at
            // the statement it was executing); --show-properties has the assertion's own.
            let failing: Vec<&str> = messages
                .iter()
                .filter_map(|m| m.get("result")?.as_array())
                .flatten()
                .filter(|p| p.get("status").and_then(Value::as_str) == Some("FAILURE"))
                .filter_map(|p| p.get("property")?.as_str())
                .collect();
            program_properties(
                tools,
                files,
                include_dirs,
                defines,
                entry,
                PropertyQuery::All,
                work_dir,
                None,
            )?
            .into_iter()
            .filter(|p| failing.contains(&p.id.as_str()))
            .collect()
        }
    })
}

fn read(p: &Value, id_key: &str, location: &Value) -> Option<ProgramProperty> {
    let field = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Some(ProgramProperty {
        id: field(p, id_key)?,
        file: PathBuf::from(field(location, "file")?),
        line: field(location, "line")?.parse().ok()?,
        function: field(location, "function").unwrap_or_default(),
        description: field(p, "description").unwrap_or_default(),
    })
}
