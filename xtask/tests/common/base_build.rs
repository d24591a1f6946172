//! A tree's base build, made once and then reused from the cache, and the
//! server binaries in it: for the suites that start real servers.

use xtask::build;
use xtask::record::{BuildType, Tree};
use xtask::server::ServerBinaries;
use xtask::variant::SourceChange;

/// The tree of `spec`, and the binaries of its base build.
pub fn base_of(spec: &str) -> (Tree, ServerBinaries) {
    let tree = xtask::tree::resolve(spec).unwrap();
    let built = build::build(&tree, "base", &SourceChange::None, BuildType::default()).unwrap();
    let binaries = ServerBinaries::from_build(&built).unwrap();
    (tree, binaries)
}
