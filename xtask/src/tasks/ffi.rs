//! `cargo xtask ffi ...`

use super::Needs;
use anyhow::Result;

/// Check the model's layouts and decisions against a tree's real headers.
#[derive(clap::Args)]
pub struct FfiCommand {
    #[command(subcommand)]
    action: crate::ffi::FfiAction,
}

impl FfiCommand {
    /// configures trees in the cache
    pub const NEEDS: Needs = Needs::Cache;

    pub fn run(self) -> Result<()> {
        crate::ffi::run(self.action)
    }
}
