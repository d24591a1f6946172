//! A tree as results record it.

use lru_model::series::Series;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// A resolved tree: a local git repository at a known commit.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Tree {
    /// What the user asked for, e.g. `debian:mariadb=1:10.11.18-0+deb12u1`.
    pub spec: String,
    /// The commit id of the tree's content.
    pub id: String,
    /// The local repository whose work tree holds the source.
    pub src: PathBuf,
    /// From the VERSION file, e.g. `10.11.18`.
    pub version: String,
    /// Major.minor, e.g. `10.11`: selects patches and my.cnf settings.
    pub series: Series,
    /// The tree already carries the MDEV-33966 fix (touch()/access_clock
    /// instead of freed_page_clock).
    pub has_upstream_fix: bool,
    /// For `pkg:` trees: the packaged server binary (`src` is then its
    /// install prefix and `id` the binary's sha256).
    #[serde(default)]
    pub package: Option<PathBuf>,
}
