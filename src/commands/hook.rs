//! `mergelens hook install|uninstall`: put the review in place as the repository's
//! `pre-merge-commit` (and `pre-commit`) hook, chaining to a hook already there, or take it
//! away and restore what it replaced; see [`mergelens::git::hooks`].

use anyhow::Context;

use super::Outcome;
use mergelens::git::{GitRepo, hooks};

/// Which way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookAction {
    Install,
    Uninstall,
}

pub fn run(action: HookAction) -> anyhow::Result<Outcome> {
    let repo = GitRepo::from_env()?;
    let changes = match action {
        HookAction::Install => {
            // The hook runs this very binary: a PATH without it must not disable the review.
            let binary = std::env::current_exe()
                .and_then(|p| p.canonicalize())
                .context("cannot tell where the mergelens binary is")?;
            hooks::install(&repo, Some(&binary))?
        }
        HookAction::Uninstall => hooks::uninstall(&repo)?,
    };
    for change in changes {
        outln!("{change}");
    }
    if action == HookAction::Install {
        outln!(
            "merges are now reviewed before they are committed; the .mergelens.toml committed on the branch merged into sets fail-on and on-error (docs/trust.md), MERGELENS=0 skips one review"
        );
    }
    Ok(Outcome::Success)
}
