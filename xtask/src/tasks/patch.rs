//! `cargo xtask patch ...`

use super::Needs;
use anyhow::Result;

/// Patches: check every patch of patches/patches.toml on every tree.
#[derive(clap::Args)]
pub struct PatchCommand {
    #[command(subcommand)]
    action: crate::patch_check::PatchAction,
}

impl PatchCommand {
    /// applies patches to trees in the cache and compiles what they change
    pub const NEEDS: Needs = Needs::Cache;

    pub fn run(self) -> Result<()> {
        crate::patch_check::run(self.action)
    }
}
