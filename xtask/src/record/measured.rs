//! Counters read over a measured interval.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Counters of the server process, summed over all its threads.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct ProcCounters {
    /// utime + stime of the whole process (exited threads included), in ticks
    pub cpu_ticks: u64,
    /// voluntary + involuntary context switches of the threads alive now
    pub context_switches: u64,
    pub threads: u64,
}

/// The whole host's CPU time from the first line of /proc/stat, in ticks.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct HostCpu {
    /// user + nice + system + irq + softirq + steal (guest time is
    /// already inside user)
    pub busy_ticks: u64,
    /// busy + idle + iowait: the host's capacity over the same time
    pub total_ticks: u64,
}

/// One snapshot of everything read around an interval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Snapshot {
    pub status: BTreeMap<String, u64>,
    pub process: ProcCounters,
    /// (COUNT_STAR, SUM_TIMER_WAIT in ps) of buf_pool.mutex, when read
    pub buf_pool_mutex: Option<(u64, u64)>,
    /// /proc/stat, when it could be read
    #[serde(default)]
    pub host_cpu: Option<HostCpu>,
    /// CLOCK_MONOTONIC seconds at the snapshot
    #[serde(default)]
    pub monotonic_seconds: f64,
}

/// CPU used on the host during an interval by everything except the
/// server (all its threads) and sysbench: other tenants, other jobs, the
/// tool itself. A busy host makes QPS doubtful.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct OtherCpu {
    /// other CPU seconds / wall seconds
    pub cores_busy: f64,
    /// other CPU time / the host's CPU capacity over the interval
    pub share: f64,
    pub wall_seconds: f64,
    pub host_busy_seconds: f64,
    pub server_cpu_seconds: f64,
    pub sysbench_cpu_seconds: f64,
}

/// What sysbench itself reported for an interval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SysbenchReport {
    pub queries: u64,
    pub qps: f64,
    pub transactions: u64,
    pub tps: f64,
    pub p95_ms: f64,
    pub avg_ms: f64,
    pub seconds: f64,
    pub ignored_errors: u64,
}

/// The measured interval: sysbench's figures and the counter deltas, with
/// the per-query ratios the report shows.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Measured {
    pub sysbench: SysbenchReport,
    pub pages_made_young: u64,
    pub pages_made_not_young: u64,
    pub read_requests: u64,
    pub reads: u64,
    pub context_switches: u64,
    pub cpu_seconds: f64,
    pub pages_made_young_per_query: f64,
    pub pages_made_not_young_per_query: f64,
    pub read_requests_per_query: f64,
    pub cs_per_query: f64,
    pub cpu_ms_per_query: f64,
    /// only from a diagnostic pass (see `Diagnostic`)
    pub buf_pool_mutex_per_query: Option<f64>,
    pub buf_pool_mutex_wait_us_per_query: Option<f64>,
    /// rows inserted, updated, deleted (Handler_write, Handler_update,
    /// Handler_delete), when the server counts them
    #[serde(default)]
    pub rows_inserted: Option<u64>,
    #[serde(default)]
    pub rows_updated: Option<u64>,
    #[serde(default)]
    pub rows_deleted: Option<u64>,
    /// The work of the LRU and flush-list sweeps, when the server counts
    /// it: pages an LRU flush batch wrote (Innodb_buffer_pool_pages_LRU_flushed)
    /// and evicted clean (_pages_LRU_freed), and pages written by any
    /// batch (_pages_flushed). In the fix these sweeps are where blocks
    /// flagged on access are moved; `results::sweeps` reads them.
    #[serde(default)]
    pub lru_flushed: Option<u64>,
    #[serde(default)]
    pub lru_freed: Option<u64>,
    #[serde(default)]
    pub pages_flushed: Option<u64>,
    /// pages the read-ahead read (Innodb_buffer_pool_read_ahead), and
    /// those of them evicted unused (_read_ahead_evicted): a read-ahead
    /// that fills the pool with pages nobody asks for costs hot pages
    #[serde(default)]
    pub read_ahead: Option<u64>,
    #[serde(default)]
    pub read_ahead_evicted: Option<u64>,
    /// the pool's size in pages at the end of the interval
    /// (Innodb_buffer_pool_pages_total, not a delta)
    #[serde(default)]
    pub pool_pages: Option<u64>,
    /// CPU the rest of the host used meanwhile
    #[serde(default)]
    pub other_cpu: Option<OtherCpu>,
}
