//! A run's server settings as results record them.

use crate::dims::CnfBase;
use serde::{Deserialize, Serialize};

/// A setting whose value here differs from Mark's, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Scaled {
    pub name: String,
    pub mark: String,
    pub here: String,
    pub why: String,
}

/// The server settings of a run, before the run's own paths are added.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MyCnf {
    /// `[mariadbd]` settings in file order; a name starting with `loose_`
    /// is ignored by series that do not know it.
    pub settings: Vec<(String, String)>,
    pub scaled: Vec<Scaled>,
    /// whether the datadir was on a tmpfs (/dev/shm): then a page read is
    /// a copy from memory, not a wait for a disk; None in older records
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datadir_on_tmpfs: Option<bool>,
    /// what the settings start from: Mark's (absent from the record) or
    /// the server's own defaults
    #[serde(default, skip_serializing_if = "CnfBase::is_mark")]
    pub base: CnfBase,
}
