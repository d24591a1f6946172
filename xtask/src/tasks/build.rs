//! `cargo xtask build --tree SPEC [--variant V] [--build-type T]`

use super::Needs;
use crate::record::BuildType;
use anyhow::Result;

/// Build one variant of a tree (or reuse the build with the same key),
/// resolved as a matrix resolves it (gate, clock and fixed through
/// patches/patches.toml; base on a tree with the fix is `fixed`).
#[derive(clap::Args)]
pub struct BuildCommand {
    #[arg(long)]
    tree: crate::tree::TreeSpec,
    #[arg(long, default_value = "base")]
    variant: String,
    /// cmake build type: RelWithDebInfo, Release or Debug.
    #[arg(long, default_value = "RelWithDebInfo")]
    build_type: BuildType,
}

impl BuildCommand {
    pub const NEEDS: Needs = Needs::Cache;

    pub fn run(self) -> Result<()> {
        let tree = crate::tree::resolve(&self.tree)?;
        let variant = crate::variant::resolve(&Default::default(), &tree, &self.variant)?;
        let build = crate::build::build(&tree, &variant.label, &variant.change, self.build_type)?;
        println!("{}", serde_json::to_string_pretty(&build)?);
        Ok(())
    }
}
