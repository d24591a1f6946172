//! `cargo xtask tree SPEC`

use super::Needs;
use anyhow::Result;

/// Fetch a tree and print what it is.
#[derive(clap::Args)]
pub struct TreeCommand {
    spec: crate::tree::TreeSpec,
}

impl TreeCommand {
    /// a tree is fetched into a directory of its own and renamed into
    /// place when complete, so it runs beside a matrix
    pub const NEEDS: Needs = Needs::Nothing;

    pub fn run(self) -> Result<()> {
        let tree = crate::tree::resolve(&self.spec)?;
        println!("{}", serde_json::to_string_pretty(&tree)?);
        Ok(())
    }
}
