//! `cargo xtask model ...`

use super::Needs;
use anyhow::Result;

/// The LRU model: replay a trace, simulate a scenario, benchmark.
#[derive(clap::Args)]
pub struct ModelCommand {
    #[command(subcommand)]
    action: crate::model::ModelAction,
}

impl ModelCommand {
    /// reads its inputs and prints; no build, no server
    pub const NEEDS: Needs = Needs::Nothing;

    pub fn run(self) -> Result<()> {
        crate::model::run(self.action)
    }
}
