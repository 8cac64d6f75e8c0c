//! `mergelens doctor`: which CBMC mergelens would use, and whether it works.

use std::path::Path;

use mergelens::cbmc::Toolchain;

/// Locates CBMC the way every command does and reports what it found.
pub fn run(cbmc: Option<&Path>) -> anyhow::Result<()> {
    let repo = mergelens::git::GitRepo::discover(Path::new(".")).ok();
    let user = mergelens::trust::UserConfig::load()?;
    let (cbmc, origin) = mergelens::trust::cbmc_path(cbmc, repo.as_ref(), &user);
    let tools = Toolchain::locate(cbmc.as_deref())?;
    outln!(
        "cbmc            {} ({})",
        tools.cbmc.display(),
        tools.version
    );
    outln!("goto-cc         {}", tools.goto_cc.display());
    outln!("goto-instrument {}", tools.goto_instrument.display());
    outln!("cbmc chosen by  {}", origin.describe());
    outln!(
        "user config     {}",
        mergelens::trust::user_config_path()
            .map_or_else(|| "none (no HOME)".to_string(), |p| p.display().to_string())
    );
    // Where the cache key comes from, never the key (docs/trust.md).
    match mergelens::cache_mac::key_source() {
        Ok(source) => outln!("cache key       {source}"),
        Err(why) => outln!(
            "cache key       none ({}): caches are neither read nor written",
            mergelens::failure::text(why)
        ),
    }
    match mergelens::sandbox::status() {
        mergelens::sandbox::Status::Available { abi } => outln!(
            "sandbox         Landlock (ABI {abi}): in review, diff and the hook, gcc, goto-cc and CBMC read only the checkouts, the system directories (/usr, /lib*, /bin, /sbin, /dev, /proc), of /etc only {} and CBMC's installation (docs/trust.md)",
            mergelens::sandbox::ETC_FILES.join(", ")
        ),
        mergelens::sandbox::Status::Unavailable { why } => outln!(
            "sandbox         none in effect (no Landlock: {why}): gcc, goto-cc and CBMC run with this user's full read access (docs/trust.md)"
        ),
    }
    if let Some(remote) = mergelens::remote::current() {
        outln!(
            "remote          {} (instance `{}`)",
            remote.config().url,
            remote.config().instance
        );
        for line in remote.describe()? {
            outln!("                {line}");
        }
        outln!(
            "                a remote worker enforces the action's timeout and `ulimit -v` for the memory limit; not the Landlock sandbox nor the output cap (docs/trust.md)"
        );
    }
    Ok(())
}
