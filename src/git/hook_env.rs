//! What git tells a hook about the merge being committed, read from text: `MERGE_HEAD`,
//! the `GITHEAD_<sha>` variables, `GIT_REFLOG_ACTION` and `FETCH_HEAD`. Pure functions over
//! strings, so that every shape of that outside input can be checked (`tests/fuzz_parsers.rs`);
//! [`super::GitRepo::hook_versions`] resolves what they name.
//!
//! Key type: [`Named`], the one merged revision named, or none, or why not.

use super::error::GitError;

/// What one source names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named<'a> {
    /// Nothing: look at the next source.
    Nothing,
    /// One revision (a SHA or a branch name as written).
    One(&'a str),
    /// `git pull`: the merged commit is in `FETCH_HEAD`.
    FetchHead,
}

/// `MERGE_HEAD`'s text: one SHA per merged head.
pub fn merge_head(text: &str) -> Result<Named<'_>, GitError> {
    let heads: Vec<&str> = text.split_whitespace().collect();
    match heads.as_slice() {
        [one] => Ok(Named::One(one)),
        [] => Ok(Named::Nothing),
        _ => Err(GitError::HookContext(format!(
            "MERGE_HEAD names {} commits (an octopus merge); mergelens reviews merges of two branches",
            heads.len()
        ))),
    }
}

/// The SHAs of the `GITHEAD_<sha>` variables among `names` (environment variable names).
pub fn githead<'a>(names: impl Iterator<Item = &'a str>) -> Result<Named<'a>, GitError> {
    // `GITHEAD_` alone names nothing (found by fuzzing).
    let named: Vec<&str> = names
        .filter_map(|k| k.strip_prefix("GITHEAD_"))
        .filter(|sha| !sha.is_empty())
        .collect();
    match named.as_slice() {
        [sha] => Ok(Named::One(sha)),
        [] => Ok(Named::Nothing),
        _ => Err(GitError::HookContext(format!(
            "git names {} merged commits (an octopus merge); mergelens reviews merges of two branches",
            named.len()
        ))),
    }
}

/// `GIT_REFLOG_ACTION`: git sets `merge` and the names of the merged heads, without the
/// options, or `pull ...`.
pub fn reflog_action(action: &str) -> Result<Named<'_>, GitError> {
    let mut words = action.split_whitespace();
    match words.next() {
        Some("merge") => {
            let args: Vec<&str> = words.filter(|w| !w.starts_with('-')).collect();
            match args.as_slice() {
                [one] => Ok(Named::One(one)),
                [] => Ok(Named::Nothing),
                _ => Err(GitError::HookContext(format!(
                    "`git {action}` merges {} branches (an octopus merge); mergelens reviews merges of two",
                    args.len()
                ))),
            }
        }
        Some("pull") => Ok(Named::FetchHead),
        _ => Ok(Named::Nothing),
    }
}

/// The SHA of the first line of `FETCH_HEAD` that is for merging.
pub fn fetch_head(text: &str) -> Result<&str, GitError> {
    let line = text
        .lines()
        .find(|l| !l.contains("\tnot-for-merge\t"))
        .ok_or_else(|| GitError::HookContext("FETCH_HEAD names no commit to merge".into()))?;
    let sha = line.split('\t').next().unwrap_or_default().trim();
    if sha.is_empty() {
        return Err(GitError::HookContext(
            "FETCH_HEAD's first line names no commit".into(),
        ));
    }
    Ok(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_source_names_one_revision_or_says_why_not() {
        assert_eq!(merge_head("abc\n").unwrap(), Named::One("abc"));
        assert!(merge_head("a b").is_err());
        assert_eq!(
            githead(["PATH", "GITHEAD_abc"].into_iter()).unwrap(),
            Named::One("abc")
        );
        assert_eq!(
            reflog_action("merge --no-ff feature").unwrap(),
            Named::One("feature")
        );
        assert_eq!(reflog_action("pull . x").unwrap(), Named::FetchHead);
        assert_eq!(reflog_action("commit").unwrap(), Named::Nothing);
        assert_eq!(fetch_head("abc\t\tbranch 'x' of .\n").unwrap(), "abc");
        assert!(fetch_head("abc\tnot-for-merge\tx\n").is_err());
    }
}
