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

/// A unit of the plan made concrete: its names, and how far it got. `S`
/// is what a unit that got on holds: `ToBuild` between `prepare` and
/// `build_all`, `Ready` after, so a unit that reaches a server is either
/// ready to run or failed, and nothing else can be written.
pub(super) struct Prepared<S = Ready> {
    pub(super) tree_label: String,
    /// the variant as the matrix names it (`base` on a tree with the fix
    /// runs as `fixed`, but its settings are written under `base`)
    pub(super) variant: String,
    /// the label its results carry (`fixed`, `base-again`, ...)
    pub(super) label: String,
    pub(super) state: Result<S, Failed>,
}

/// A unit whose tree is here and whose variant means something on it.
#[derive(Clone)]
pub(super) struct ToBuild {
    pub(super) tree: Tree,
    pub(super) resolved: Resolved,
}

/// A unit ready to run: its server binaries, and the build that made
/// them (none for a packaged server).
#[derive(Clone)]
pub(super) struct Ready {
    pub(super) tree: Tree,
    pub(super) resolved: Resolved,
    pub(super) build: Option<Build>,
    pub(super) binaries: ServerBinaries,
}

/// A unit that cannot run: the failure that stops its cells, with what
/// was reached before it (its records still name the tree and settings).
#[derive(Clone)]
pub(super) struct Failed {
    pub(super) tree: Option<Tree>,
    pub(super) resolved: Option<Resolved>,
    pub(super) failure: Failure,
}

impl<S> Prepared<S> {
    pub(super) fn failure(&self) -> Option<&Failure> {
        self.state.as_ref().err().map(|f| &f.failure)
    }

    /// The same unit, one step further (or failed).
    pub(super) fn then<T>(self, state: Result<T, Failed>) -> Prepared<T> {
        Prepared {
            tree_label: self.tree_label,
            variant: self.variant,
            label: self.label,
            state,
        }
    }
}

impl Prepared<Ready> {
    pub(super) fn tree(&self) -> Option<&Tree> {
        match &self.state {
            Ok(r) => Some(&r.tree),
            Err(f) => f.tree.as_ref(),
        }
    }

    pub(super) fn resolved(&self) -> Option<&Resolved> {
        match &self.state {
            Ok(r) => Some(&r.resolved),
            Err(f) => f.resolved.as_ref(),
        }
    }

    pub(super) fn build(&self) -> Option<&Build> {
        self.state.as_ref().ok().and_then(|r| r.build.as_ref())
    }
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
