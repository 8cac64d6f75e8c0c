//! `mergelens doctor`: which CBMC mergelens would use, and whether it works.

use std::path::Path;

use mergelens::cbmc::Toolchain;

/// Locates CBMC the way every command does and reports what it found.
pub fn run(cbmc: Option<&Path>) -> anyhow::Result<()> {
    let tools = Toolchain::locate(cbmc)?;
    println!(
        "cbmc            {} ({})",
        tools.cbmc.display(),
        tools.version
    );
    println!("goto-cc         {}", tools.goto_cc.display());
    println!("goto-instrument {}", tools.goto_instrument.display());
    Ok(())
}
