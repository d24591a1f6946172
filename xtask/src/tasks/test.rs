//! `cargo xtask test`: the README's test command.

use super::Needs;
use anyhow::Result;

/// Run the test suite: unit and end-to-end tests, the ffi checks, the
/// patch check and mtr on `fixed`, printing how long each stage took.
#[derive(clap::Args)]
pub struct TestCommand {}

impl TestCommand {
    /// held for the whole run: its stages build and start servers
    pub const NEEDS: Needs = Needs::Cache;

    pub fn run(self) -> Result<()> {
        crate::testing::run_all()
    }
}
