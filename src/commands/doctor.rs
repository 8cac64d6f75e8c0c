//! `mergelens doctor`: which CBMC mergelens would use, and whether it works.

use std::path::Path;

use mergelens::cbmc::Toolchain;

/// Locates CBMC the way every command does and reports what it found.
pub fn run(cbmc: Option<&Path>) -> anyhow::Result<()> {
    let repo = mergelens::git::GitRepo::discover(Path::new(".")).ok();
    let user = mergelens::trust::UserConfig::load()?;
    let (cbmc, origin) = mergelens::trust::cbmc_path(cbmc, repo.as_ref(), &user);
    let tools = Toolchain::locate(cbmc.as_deref())?;
    println!(
        "cbmc            {} ({})",
        tools.cbmc.display(),
        tools.version
    );
    println!("goto-cc         {}", tools.goto_cc.display());
    println!("goto-instrument {}", tools.goto_instrument.display());
    println!("cbmc chosen by  {}", origin.describe());
    println!(
        "user config     {}",
        mergelens::trust::user_config_path()
            .map_or_else(|| "none (no HOME)".to_string(), |p| p.display().to_string())
    );
    // Where the cache key comes from, never the key (docs/trust.md).
    match mergelens::cache_mac::key_source() {
        Ok(source) => println!("cache key       {source}"),
        Err(why) => println!("cache key       none ({why}): caches are neither read nor written"),
    }
    match mergelens::sandbox::status() {
        mergelens::sandbox::Status::Available { abi } => println!(
            "sandbox         Landlock (ABI {abi}): in review, diff and the hook, gcc, goto-cc and CBMC read only the checkouts, the system directories (/usr, /lib*, /bin, /sbin, /dev, /proc), of /etc only {} and CBMC's installation (docs/trust.md)",
            mergelens::sandbox::ETC_FILES.join(", ")
        ),
        mergelens::sandbox::Status::Unavailable { why } => println!(
            "sandbox         none in effect (no Landlock: {why}): gcc, goto-cc and CBMC run with this user's full read access (docs/trust.md)"
        ),
    }
    Ok(())
}
