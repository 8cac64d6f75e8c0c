//! [`ConfigError`]: what is wrong with a configuration file, a flag or a compilation database.

use std::path::PathBuf;

use thiserror::Error;

use crate::failure::{FailureKind, HasKind};

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("{}: cannot read", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `at` is `: line L, column C` where toml says where; toml's message names the key.
    #[error("{}{at}: {message}", path.display())]
    Parse {
        path: PathBuf,
        at: String,
        message: String,
    },
    #[error("{}: not a compile_commands.json", path.display())]
    CompileCommands {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{key}: {message}")]
    Invalid { key: &'static str, message: String },
    /// A repository's configuration names a program to run: refused, as a branch under
    /// review could then run anything on the reviewer's machine (see `docs/trust.md`).
    #[error(
        "{}:{line}: `{key}` names a program to run, which a repository's configuration may not do (a branch could make you run anything); set it with --{key}, $MERGELENS_CBMC, `git config mergelens.{key} PATH` or `{key} = \"PATH\"` in ~/.config/mergelens/config.toml, and remove it from {}",
        path.display(), path.display()
    )]
    ToolInRepository {
        path: PathBuf,
        line: usize,
        key: &'static str,
    },
    /// A path from a repository's configuration that is absolute or may leave the checkout.
    #[error(
        "{origin}: {key} = \"{value}\" is refused: {why}; a repository's configuration may only name paths inside its checkout (give paths elsewhere on the command line or in ~/.config/mergelens/config.toml)"
    )]
    Outside {
        origin: String,
        key: &'static str,
        value: String,
        why: &'static str,
    },
}

impl ConfigError {
    /// A TOML file `text` at `path` that toml refuses: where (line and column) and what,
    /// on one line, without toml's drawing of the line.
    pub(crate) fn toml(path: &std::path::Path, text: &str, error: &toml::de::Error) -> ConfigError {
        let at = error.span().map_or_else(String::new, |span| {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!(": line {line}, column {column}")
        });
        ConfigError::Parse {
            path: path.to_path_buf(),
            at,
            message: error.message().trim_end().replace('\n', " "),
        }
    }
}

impl HasKind for ConfigError {
    fn kind(&self) -> FailureKind {
        match self {
            ConfigError::Read { .. }
            | ConfigError::Parse { .. }
            | ConfigError::CompileCommands { .. }
            | ConfigError::Invalid { .. }
            | ConfigError::ToolInRepository { .. }
            | ConfigError::Outside { .. } => FailureKind::BadInput,
        }
    }
}
