//! Bounds on the size of the JSON documents mergelens reads: [`read_json_text`] refuses a
//! document over [`MAX_JSON_BYTES`] before it is read, and [`check_cells`] an automaton
//! whose table (states × letters) is over [`MAX_CELLS`] before it is allocated. Both are far
//! beyond what learning produces. [`LimitError`] says which limit was hit, in one line.
//! (The bounds on the programs mergelens runs are [`crate::process`]'s.)

use std::io::Read;
use std::path::Path;

use crate::failure::{FailureKind, HasKind};
use thiserror::Error;

/// The largest JSON document read from a file or standard input (automata, reports).
pub const MAX_JSON_BYTES: u64 = 256 << 20;

/// The largest transition table an automaton read from a document may have (states ×
/// letters): 2^25 cells, 128 MiB of `u32`.
pub const MAX_CELLS: u64 = 1 << 25;

/// A limit that was hit.
#[derive(Debug, Error)]
pub enum LimitError {
    #[error(
        "{origin}: {bytes} bytes, more than the {max} bytes mergelens reads from a JSON document"
    )]
    TooManyBytes {
        origin: String,
        bytes: u64,
        max: u64,
    },
    #[error(
        "{origin}: declares {states} states over {letters} letters ({cells} table cells), more than the {max} mergelens allocates; the document is corrupt or not meant for mergelens"
    )]
    TooManyCells {
        origin: String,
        states: u64,
        letters: u64,
        cells: u128,
        max: u64,
    },
    #[error("{origin}: cannot read")]
    Read {
        origin: String,
        #[source]
        source: std::io::Error,
    },
}

impl HasKind for LimitError {
    /// A document too large, or one that cannot be read, is the input's fault.
    fn kind(&self) -> FailureKind {
        match self {
            LimitError::TooManyBytes { .. }
            | LimitError::TooManyCells { .. }
            | LimitError::Read { .. } => FailureKind::BadInput,
        }
    }
}

/// Refuses an automaton table larger than [`MAX_CELLS`] before it is allocated.
pub fn check_cells(origin: &str, states: u64, letters: u64) -> Result<(), LimitError> {
    let cells = u128::from(states) * u128::from(letters.max(1));
    if cells > u128::from(MAX_CELLS) {
        return Err(LimitError::TooManyCells {
            origin: origin.to_string(),
            states,
            letters,
            cells,
            max: MAX_CELLS,
        });
    }
    Ok(())
}

/// Reads a JSON document from a file, or standard input for `-`, refusing more than
/// [`MAX_JSON_BYTES`] (a file's size is checked before anything is read).
pub fn read_json_text(path: &Path, origin: &str) -> Result<String, LimitError> {
    let read_err = |source| LimitError::Read {
        origin: origin.to_string(),
        source,
    };
    let too_big = |bytes| LimitError::TooManyBytes {
        origin: origin.to_string(),
        bytes,
        max: MAX_JSON_BYTES,
    };
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .take(MAX_JSON_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
    } else {
        let file = std::fs::File::open(path).map_err(read_err)?;
        let len = file.metadata().map_err(read_err)?.len();
        if len > MAX_JSON_BYTES {
            return Err(too_big(len));
        }
        file.take(MAX_JSON_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(read_err)?;
    }
    if bytes.len() as u64 > MAX_JSON_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        read_err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text ({e})"),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_over_the_budget_are_refused_before_allocation() {
        assert!(check_cells("x", 1000, 10).is_ok());
        let err = check_cells("x", 50_000_000, 3).unwrap_err().to_string();
        assert!(err.contains("50000000 states"), "{err}");
        assert!(check_cells("x", u64::MAX, u64::MAX).is_err());
    }
}
