//! A tree as results record it.

use lru_model::series::Series;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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

/// What a tree is made of: a source tree to patch and build, or a
/// packaged server binary (nothing to build; settings variants only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeKind<'a> {
    Source { src: &'a Path },
    Packaged { mariadbd: &'a Path },
}

impl Tree {
    /// The one place that reads the record's `package` field.
    pub fn kind(&self) -> TreeKind<'_> {
        match &self.package {
            Some(mariadbd) => TreeKind::Packaged { mariadbd },
            None => TreeKind::Source { src: &self.src },
        }
    }

    /// The source directory, or an error naming the packaged binary and
    /// saying why `what` needs a source tree.
    pub fn source_for(&self, what: &str) -> anyhow::Result<&Path> {
        match self.kind() {
            TreeKind::Source { src } => Ok(src),
            TreeKind::Packaged { mariadbd } => anyhow::bail!(
                "{} is a packaged server ({}): {what}",
                self.spec,
                mariadbd.display()
            ),
        }
    }

    /// An error naming the tree when it is not MariaDB's: `what` reads
    /// MariaDB's own code or tests.
    pub fn mariadb_only(&self, what: &str) -> anyhow::Result<()> {
        let engine = self.series.engine;
        if engine != lru_model::series::Engine::MariaDb {
            anyhow::bail!(
                "{what} is written for MariaDB's trees; {} is {engine} {}",
                self.spec,
                self.version
            );
        }
        Ok(())
    }
}
