//! Keeping each query's linked goto program and CBMC command for profiling: with
//! `MERGELENS_KEEP_QUERIES=DIR`, every CBMC run of a query copies its `query.gb` to
//! `DIR/query-N.gb` and writes the command beside it (`DIR/query-N.sh`), so that the run can
//! be repeated and measured with other options (scripts/bench-libraries.sh does).
//!
//! Key item: [`keep`]. Keeping is best effort: a copy that fails is skipped silently, since
//! the query itself does not depend on it.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// The environment variable naming the directory the queries are kept in.
pub(crate) const KEEP_QUERIES: &str = "MERGELENS_KEEP_QUERIES";

static KEPT: AtomicU32 = AtomicU32::new(0);

/// Copies `inputs` (the goto programs and harness sources `cmd` reads) and writes `cmd`
/// (its program and arguments, shell-quoted, each input replaced by its copy) into the
/// directory [`KEEP_QUERIES`] names, if it is set: `query-N-PID.sh` beside
/// `query-N-PID-K.EXT`.
pub(crate) fn keep(inputs: &[&Path], cmd: &Command) {
    let Some(dir) = std::env::var_os(KEEP_QUERIES) else {
        return;
    };
    let dir = Path::new(&dir);
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let n = KEPT.fetch_add(1, Ordering::Relaxed);
    let stem = format!("query-{n}-{}", std::process::id());
    let mut copies = Vec::new();
    for (k, input) in inputs.iter().enumerate() {
        let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("bin");
        let copy = dir.join(format!("{stem}-{k}.{ext}"));
        if std::fs::copy(input, &copy).is_err() {
            return;
        }
        copies.push((*input, copy));
    }
    let mut line = vec![quote(&cmd.get_program().to_string_lossy())];
    for arg in cmd.get_args() {
        let arg = match copies.iter().find(|(input, _)| Path::new(arg) == *input) {
            Some((_, copy)) => copy.as_os_str(),
            None => arg,
        };
        line.push(quote(&arg.to_string_lossy()));
    }
    let script = format!("#!/bin/sh\nexec {} \"$@\"\n", line.join(" "));
    let _ = std::fs::write(dir.join(format!("{stem}.sh")), script);
}

/// `s` as one word of a POSIX shell command.
fn quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_what_a_shell_would_split() {
        assert_eq!(quote("--unwindset"), "--unwindset");
        assert_eq!(quote("strlen.0:64"), "strlen.0:64");
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
    }
}
