//! `cargo xtask oracle ...`

use super::Needs;
use anyhow::Result;

/// Replay traces through the LRU model and a tree's own LRU code.
#[derive(clap::Args)]
pub struct OracleCommand {
    #[command(subcommand)]
    action: crate::oracle::OracleAction,
}

impl OracleCommand {
    /// configures trees in the cache
    pub const NEEDS: Needs = Needs::Cache;

    pub fn run(self) -> Result<()> {
        crate::oracle::run(self.action)
    }
}
