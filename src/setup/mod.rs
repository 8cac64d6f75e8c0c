//! What `mergelens init` works out for a repository, callable as a library: the program
//! ([`find_program`]: its C files, include directories, the files left out and why, the
//! candidate entry functions), the harness skeleton of `--harness-for`
//! ([`skeleton::skeleton`]), the commented `.mergelens.toml` ([`config_text`]), and one
//! learning of the chosen entry at small bounds with the bound its measurements suggest
//! ([`first_program`], [`ladder::climb`]).
//!
//! Key types: [`Program`], [`Candidate`], [`ladder::Step`] and [`SetupError`]. The caller
//! prints what was found and writes the files.

mod config_file;
mod discover;
mod error;
pub mod ladder;
pub mod skeleton;

pub use config_file::config_text;
pub use discover::{LeftOut, Program, find_program, first_program, front_end};
pub use error::SetupError;
pub use skeleton::{Candidate, HARNESS_FILE};
