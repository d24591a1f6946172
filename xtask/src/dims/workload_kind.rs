//! The kinds of workload: Mark Callaghan's sysbench tests and ours.

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// One of Mark's sysbench tests (shared/research/mark-setup.md, section
/// 2.3). Declared in Mark's run order (section 2.4, reads before writes as
/// in his `.pre` tests): `run_order` sorts by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    /// oltp_read_only: BEGIN, 10 point selects, four range queries of
    /// `range_size` rows, COMMIT
    ReadOnly,
    /// `SELECT c ... WHERE id IN (random_points ids)`
    RandomPoints,
    /// the same IN-list, always the same adjacent ids in the middle
    HotPoints,
    /// `SELECT id ... WHERE id IN (100 ids)`
    PointsCoveredPk,
    /// `SELECT id, c ... WHERE id IN (...)`
    PointsNotcoveredPk,
    /// `SELECT id ... WHERE id BETWEEN x AND x+100`
    RangeCoveredPk,
    /// `SELECT k ... WHERE k IN (100 values)`
    PointsCoveredSi,
    /// `SELECT k, c ... WHERE k IN (...)`
    PointsNotcoveredSi,
    /// `SELECT k, c ... WHERE k BETWEEN x AND x+100`
    RangeNotcoveredSi,
    /// `UPDATE ... SET k=k+1 WHERE id=?`
    UpdateIndex,
    /// `UPDATE ... SET c=? WHERE id=?`
    UpdateNonindex,
    /// oltp_read_write: the read-only body plus two updates, a delete and
    /// an insert, in one transaction
    ReadWrite,
    /// Not Mark's: seed 001's scan resistance. Point lookups on a hot
    /// table while `scan_threads` connections scan a table larger than the
    /// pool in a loop; residency sampled from INNODB_BUFFER_PAGE_LRU. Its
    /// own tables (`hot_rows`, `scan_rows`), no arming phase.
    ScanLoop,
}

impl WorkloadKind {
    /// Every kind, in Mark's run order (scan-loop, not his, last).
    pub const ALL: [WorkloadKind; 13] = [
        WorkloadKind::ReadOnly,
        WorkloadKind::RandomPoints,
        WorkloadKind::HotPoints,
        WorkloadKind::PointsCoveredPk,
        WorkloadKind::PointsNotcoveredPk,
        WorkloadKind::RangeCoveredPk,
        WorkloadKind::PointsCoveredSi,
        WorkloadKind::PointsNotcoveredSi,
        WorkloadKind::RangeNotcoveredSi,
        WorkloadKind::UpdateIndex,
        WorkloadKind::UpdateNonindex,
        WorkloadKind::ReadWrite,
        WorkloadKind::ScanLoop,
    ];

    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::PointsCoveredPk => "points-covered-pk",
            WorkloadKind::PointsNotcoveredPk => "points-notcovered-pk",
            WorkloadKind::PointsCoveredSi => "points-covered-si",
            WorkloadKind::PointsNotcoveredSi => "points-notcovered-si",
            WorkloadKind::RandomPoints => "random-points",
            WorkloadKind::HotPoints => "hot-points",
            WorkloadKind::RangeCoveredPk => "range-covered-pk",
            WorkloadKind::RangeNotcoveredSi => "range-notcovered-si",
            WorkloadKind::ReadOnly => "read-only",
            WorkloadKind::UpdateIndex => "update-index",
            WorkloadKind::UpdateNonindex => "update-nonindex",
            WorkloadKind::ReadWrite => "read-write",
            WorkloadKind::ScanLoop => "scan-loop",
        }
    }

    /// Whether the test changes rows (then the post-write step follows).
    pub fn is_write(self) -> bool {
        matches!(
            self,
            WorkloadKind::UpdateIndex | WorkloadKind::UpdateNonindex | WorkloadKind::ReadWrite
        )
    }

    pub fn known_names() -> String {
        WorkloadKind::ALL.map(WorkloadKind::name).join(", ")
    }
}

impl fmt::Display for WorkloadKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WorkloadKind {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<WorkloadKind> {
        WorkloadKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .with_context(|| {
                format!(
                    "unknown workload `{s}` (known: {})",
                    WorkloadKind::known_names()
                )
            })
    }
}
