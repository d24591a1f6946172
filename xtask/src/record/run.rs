//! One result file: one repetition of one cell, with the provenance of
//! everything that made it.

use super::{Build, MyCnf, Outcome, Phase, Tree, Workload};
use crate::dims::Step;
use crate::host::Host;
use crate::record::Measured;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the run-result JSON layout this tool writes.
pub const SCHEMA_VERSION: u32 = 2;

/// One result file: one repetition of one cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub matrix: String,
    #[serde(flatten)]
    pub key: CellKey,
    /// None when the cell produced its measurements
    pub failure: Option<Failure>,
    pub tree_info: Option<Tree>,
    pub build: Option<Build>,
    pub variant_settings: BTreeMap<String, String>,
    pub my_cnf: Option<MyCnf>,
    pub my_cnf_text: Option<String>,
    pub workload_def: Workload,
    pub host: Host,
    pub tool_revision: String,
    pub started_unix: u64,
    pub wall_seconds: f64,
    /// loading the data on this cell's server (shared by every cell the
    /// server ran; recorded with each)
    #[serde(default)]
    pub data_phases: Vec<Phase>,
    pub outcome: Option<Outcome>,
    pub clean_shutdown: Option<bool>,
}

impl RunResult {
    pub fn ok(&self) -> bool {
        self.failure.is_none()
    }

    /// The measured interval, when the cell got that far.
    pub fn measured(&self) -> Option<&Measured> {
        self.outcome.as_ref()?.measured.as_ref()
    }
}

/// One repetition of one cell. Ordered field by field (tree, variant,
/// workload, threads, repetition); reports impose the matrix's own order
/// on top of this one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CellKey {
    /// The tree's label (`name` in the matrix, else its version).
    pub tree: String,
    /// The variant's label: `fixed` for base on a tree with the fix,
    /// `base-again` for the control.
    pub variant: String,
    pub workload: String,
    pub threads: u32,
    pub repetition: u32,
}

/// A cell without its repetition: what statistics are taken over.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Cell {
    pub tree: String,
    pub variant: String,
    pub workload: String,
    pub threads: u32,
}

/// Why a cell has no result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub step: Step,
    pub message: String,
    /// the server's error log tail, when a server was involved
    pub error_log_tail: Option<String>,
}
