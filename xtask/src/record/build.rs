//! A build, its key, the change it carries and its ccache use, as
//! `build.json` and every result record them.

use crate::dims::Engine;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// cmake's build type. The default is release with debug info (what Mark's
/// `rel_withdbg` builds and Debian use); `Debug` compiles every `ut_ad()`
/// assertion (among them the LRU and flush list validations) and is what
/// mtr's debug-only tests need.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BuildType {
    #[default]
    RelWithDebInfo,
    Release,
    Debug,
}

impl BuildType {
    pub const ALL: [BuildType; 3] = [
        BuildType::RelWithDebInfo,
        BuildType::Release,
        BuildType::Debug,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            BuildType::RelWithDebInfo => "RelWithDebInfo",
            BuildType::Release => "Release",
            BuildType::Debug => "Debug",
        }
    }

    /// The cmake option that selects it.
    pub fn cmake_option(self) -> String {
        format!("-DCMAKE_BUILD_TYPE={}", self.as_str())
    }
}

impl std::fmt::Display for BuildType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for BuildType {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<BuildType> {
        BuildType::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "unknown build type `{s}` (known: {})",
                    BuildType::ALL.map(BuildType::as_str).join(", ")
                )
            })
    }
}

/// What identifies a build. Keys of the same build (`BuildKey::same_build`:
/// the same source, options, compiler and repairs, or where the source is
/// not known equal keys) mean an identical binary can be reused. The build type is the first of `cmake_options`, so a
/// RelWithDebInfo key is the same as before build types were selectable.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct BuildKey {
    pub tree_id: String,
    pub patch_sha256: Option<String>,
    /// the git tree id of the source after the change (`build::key_for`):
    /// builds of the same source under other commits or other changes share
    /// one build. Absent for a change whose result is not known before it
    /// is made (a cherry-pick, a patch that does not apply) and in records
    /// made before builds were keyed by their source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_tree: Option<String>,
    pub cmake_options: Vec<String>,
    pub compiler: String,
    /// the source repairs a build of this type may apply (`build::repair`);
    /// absent where there are none, so such keys are as before
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs: Vec<String>,
}

/// Upstream commits picked onto a tree, e.g. the MDEV-33966 fix.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct CherryPick {
    pub remote: String,
    pub commits: Vec<String>,
}

/// ccache counters over one build.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CcacheUse {
    pub hits: u64,
    pub misses: u64,
    /// hits / (hits + misses), 0 when nothing was compiled
    pub hit_rate: f64,
    /// hits found in the remote storage (INNODB_LAB_CCACHE_REMOTE), when
    /// one is configured: another host compiled them
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_hits: Option<u64>,
}

/// A finished build, as recorded in `build.json` (written last: its
/// presence marks the build complete) and in every run result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Build {
    pub key: BuildKey,
    pub key_hash: String,
    pub tree_spec: String,
    pub tree_version: String,
    pub variant: String,
    pub patch: Option<Patch>,
    #[serde(default)]
    pub cherry_pick: Option<CherryPick>,
    pub src: PathBuf,
    pub build: PathBuf,
    /// whose server it is: written for MySQL only (records that name none
    /// are MariaDB's, as every record before MySQL builds)
    #[serde(
        default = "made_before_mysql",
        skip_serializing_if = "Engine::is_mariadb"
    )]
    pub engine: Engine,
    /// the server binary: `mariadbd`, or MySQL's `mysqld`
    pub mariadbd: PathBuf,
    /// cmake's build type (absent in records made before it was selectable:
    /// those were RelWithDebInfo)
    #[serde(default)]
    pub build_type: BuildType,
    /// the source repairs this checkout needed and got (`build::repair`)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repairs_applied: Vec<String>,
    pub checkout_seconds: f64,
    pub configure_seconds: f64,
    /// the configure skipped cmake's checks, preloading those an earlier
    /// variant of the tree made (`build::configure_cache`)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub configure_preloaded: bool,
    pub make_seconds: f64,
    pub ccache: CcacheUse,
    /// true when this invocation found the build already made
    #[serde(default)]
    pub reused: bool,
}

/// A build made whole: every target of the build directory (the client
/// tools, `my_safe_process`, `perror`, the engines' utilities), which is
/// what mtr checks for before it runs a single test. Recorded in
/// `<build key>/make-all.json`, written last.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WholeBuild {
    pub key_hash: String,
    pub make_seconds: f64,
    pub ccache: CcacheUse,
    /// true when this invocation found it already made
    #[serde(default)]
    pub reused: bool,
}

/// A patch file and the hash that keys builds made with it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Patch {
    /// Relative to the repository root, e.g. `patches/10.11/gate.patch`.
    pub file: PathBuf,
    pub sha256: String,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// The engine of a record that names none.
fn made_before_mysql() -> Engine {
    Engine::MariaDb
}
