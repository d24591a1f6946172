//! A traced server's page stream (the `traced` variant), replayed through
//! lru-model's policies: the model's hit ratio beside the server's own on
//! the same requests of the measured run.

use serde::{Deserialize, Serialize};

/// One policy's replay of a cell's measured run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModelReplay {
    /// `eager` (10.5 up to 11.8.9) or `lazy` (MDEV-33966)
    pub policy: String,
    /// page requests of the measured run in the trace
    pub requests: u64,
    /// of them, requests for a page the server did not hold
    pub server_misses: u64,
    /// of them, requests for a page the model did not hold
    pub model_misses: u64,
    /// the server's hit ratio on those requests, in percent
    pub server_hit_ratio_pct: Option<f64>,
    /// the model's, in percent
    pub model_hit_ratio_pct: Option<f64>,
}

/// The page trace of a cell's measured run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PageTrace {
    /// records the server had claimed when the measured run began and ended
    pub records: (u64, u64),
    /// the replays, done after the server stopped; None until then, or when
    /// the replay failed (the outcome's `not_measured` says why)
    pub replayed: Option<TraceReplay>,
}

/// The replays of a trace, and what they took from the server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TraceReplay {
    /// records the trace could not hold (its capacity was reached): when
    /// not 0 the replays stop short and say less than the run did
    pub lost: u64,
    /// the pool's frames when the recorder opened (the model's pool size)
    pub pool_frames: u64,
    /// the settings replayed: innodb_old_blocks_pct, innodb_old_blocks_time
    /// (ms) and innodb_lru_scan_depth, as the server's my.cnf set them
    pub old_pct: u32,
    pub old_blocks_time_ms: u32,
    pub lru_scan_depth: u32,
    pub replays: Vec<ModelReplay>,
    /// seconds the replays took
    pub replay_seconds: f64,
    /// what the server did to the pages it lost (`lru_model::stays`); absent
    /// in records made before it was counted
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stays: Option<TraceStays>,
}

/// The server's misses of the measured run charged to what it had done to
/// each page in its last stay in the pool.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TraceStays {
    /// page requests of the measured run in the trace
    pub requests: u64,
    /// of them, requests for a page the server did not hold
    pub misses: u64,
    /// of the misses, pages the trace had never seen in the pool
    pub first_reads: u64,
    /// one row per class of stay
    pub classes: Vec<StayRow>,
    /// requests and misses by 2 s of the measured run, from its first
    /// request: whether the hit ratio had settled
    pub by_2s: Vec<IntervalCounts>,
    /// moves to the LRU head (made young, a sweep move, a boundary move) in
    /// the measured run, and the distinct pages they moved
    pub moves: u64,
    pub pages_moved: u64,
}

/// Page requests and misses of one interval of a trace.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct IntervalCounts {
    pub requests: u64,
    pub misses: u64,
}

/// One class of stay: `flagged-unmoved`, `moved`, `looked-up-again`,
/// `accessed-again` or `accessed-once` (docs/model.md).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct StayRow {
    pub class: String,
    /// evictions in the measured run that ended a stay of this class
    pub evictions: u64,
    /// misses in the measured run of a page whose last stay was of this class
    pub rereads: u64,
    /// median ms from such a page's eviction to its miss
    pub median_gap_ms: Option<u32>,
    /// median ms of the stays of this class evicted in the measured run
    pub median_stay_ms: Option<u32>,
}
