//! What a matrix run carries between its stages: the options it was given,
//! each unit of the plan made concrete (`Prepared`), and what every result
//! of the run shares (`Shared`). Plain types that `run.rs` fills and the
//! stage files (`prepare.rs`, `server_run.rs`, `cell.rs`, `resume.rs`,
//! `manifest.rs`, `cost_run.rs`) read, so that none of them imports
//! `run.rs`, which imports them.

use super::Matrix;
use crate::host::Host;
use crate::record::{Build, Failure, RunResult, Tree};
use crate::server::ServerBinaries;
use crate::variant::Resolved;
use anyhow::{bail, Result};
use std::path::PathBuf;

/// Options of `cargo xtask matrix`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    /// keep each run's datadir on /dev/shm
    pub keep: bool,
    /// re-run cells that already have a matching successful result
    pub force: bool,
    /// after the planned repetitions, repeat the cells whose comparison
    /// is still undecided, up to this many repetitions each
    pub until_decided: Option<u32>,
    /// the matrix file, as given (for the report's reproduction block)
    pub file: Option<PathBuf>,
    /// run only this part of the matrix (`--shard K/N`)
    pub shard: Option<super::Shard>,
    /// settings the matrix file may set although the tool refuses them
    /// there (`--allow-setting`: said on the command line of a host the
    /// user owns, never in the file; every report warns of them)
    pub allowed_settings: Vec<String>,
}

impl RunOptions {
    /// A plain run into `out`: nothing kept, done cells reused, the planned
    /// repetitions only, the whole matrix.
    pub fn new(out: PathBuf) -> RunOptions {
        RunOptions {
            out,
            keep: false,
            force: false,
            until_decided: None,
            file: None,
            shard: None,
            allowed_settings: Vec::new(),
        }
    }
}

/// A unit of the plan made concrete: its tree, resolved variant and
/// build, or the failure that stops its cells.
pub(super) struct Prepared {
    pub(super) tree_label: String,
    pub(super) tree: Option<Tree>,
    /// the variant as the matrix names it (`base` on a tree with the fix
    /// runs as `fixed`, but its settings are written under `base`)
    pub(super) variant: String,
    /// the label its results carry (`fixed`, `base-again`, ...)
    pub(super) label: String,
    pub(super) resolved: Option<Resolved>,
    pub(super) build: Option<Build>,
    pub(super) binaries: Option<ServerBinaries>,
    pub(super) failure: Option<Failure>,
}

/// What every result of this invocation shares.
pub(super) struct Shared<'a> {
    pub(super) matrix: &'a Matrix,
    pub(super) opts: &'a RunOptions,
    pub(super) host: Host,
    pub(super) revision: String,
}

impl Shared<'_> {
    /// Writes a cell's result into the results directory, which must still
    /// be the one this run started: a directory deleted or moved while the
    /// run went on would be made again, quietly, holding only what comes
    /// after, and the run would end as if nothing was lost.
    pub(super) fn save(&self, r: &RunResult) -> Result<()> {
        let out = &self.opts.out;
        let manifest = out.join(crate::results::manifest::FILE);
        if !manifest.is_file() {
            bail!(
                "the results directory {} lost its {} while this run went on (deleted or \
                 moved?): every result written there before is gone with it; stopped before \
                 writing {}",
                out.display(),
                crate::results::manifest::FILE,
                r.key
            );
        }
        r.write(out)?;
        Ok(())
    }
}
