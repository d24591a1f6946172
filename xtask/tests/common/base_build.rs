//! A tree's base build, made once and then reused from the cache, and the
//! server binaries in it: for the suites that start real servers.

use xtask::build;
use xtask::host::Host;
use xtask::record::{BuildType, MyCnf, Tree};
use xtask::server::{RunRoot, Server, ServerBinaries};
use xtask::variant::SourceChange;

/// The tree of `spec`, and the binaries of its base build.
pub fn base_of(spec: &str) -> (Tree, ServerBinaries) {
    let tree = xtask::tree::resolve(&spec.parse().unwrap()).unwrap();
    let built = build::build(&tree, "base", &SourceChange::None, BuildType::default()).unwrap();
    let binaries = ServerBinaries::from_build(&built).unwrap();
    (tree, binaries)
}

/// A server of `spec`'s base build named `name`, with the my.cnf
/// `MyCnf::for_series` gives this host, in the default run root.
pub fn base_server(spec: &str, name: &str) -> Server {
    let (tree, binaries) = base_of(spec);
    let runs = RunRoot::of(Default::default());
    let cnf = MyCnf::for_series(tree.series, &Host::detect(), runs.on_tmpfs());
    Server::start(&binaries, &cnf, &runs, name, false).unwrap()
}
