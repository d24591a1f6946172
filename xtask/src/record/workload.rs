//! A workload as a matrix names it, and what one cell of it produced.

use super::measured::Measured;
use super::profile::ProfilePass;
use crate::dims::{ModelPolicy, WorkloadKind};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Client threads of a workload: one count (`threads = 2`) or a list
/// (`threads = [1, 2, 4]`), each a cell of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    untagged,
    expecting = "`threads`: a thread count or a list of them, e.g. 2 or [1, 2, 4]"
)]
pub enum Threads {
    One(u32),
    List(Vec<u32>),
}

impl From<u32> for Threads {
    fn from(n: u32) -> Threads {
        Threads::One(n)
    }
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Threads::One(n) => write!(f, "{n}"),
            Threads::List(v) => {
                let s: Vec<String> = v.iter().map(u32::to_string).collect();
                f.write_str(&s.join(", "))
            }
        }
    }
}

/// How sysbench picks the ids a query reads (`--rand-type`, sysbench
/// 1.0's four). With data larger than the pool the skew decides the hit
/// ratio: seed 000 compares uniform and Pareto.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyDistribution {
    #[default]
    Uniform,
    /// sysbench's `--rand-pareto-h` at its default, 0.2: about 80% of the
    /// reads go to 20% of the ids
    Pareto,
    Gaussian,
    /// sysbench's `special`: `--rand-spec-pct` of the ids get
    /// `--rand-spec-res` of the reads
    Special,
}

impl KeyDistribution {
    /// The value of sysbench's `--rand-type`.
    pub fn name(self) -> &'static str {
        match self {
            KeyDistribution::Uniform => "uniform",
            KeyDistribution::Pareto => "pareto",
            KeyDistribution::Gaussian => "gaussian",
            KeyDistribution::Special => "special",
        }
    }

    pub fn is_uniform(&self) -> bool {
        *self == KeyDistribution::Uniform
    }
}

/// A workload as a matrix describes it (one `[[workload]]` entry).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// The label in reports; also the kind when `kind` is absent.
    pub name: String,
    /// Which of Mark's tests; absent: the one `name` names.
    #[serde(default)]
    pub kind: Option<WorkloadKind>,
    #[serde(default = "defaults::tables")]
    pub tables: u32,
    #[serde(default = "defaults::table_size")]
    pub table_size: u64,
    #[serde(default = "defaults::threads")]
    pub threads: Threads,
    /// Ids per IN-list (points-*, random-points: 10, 100 or 1000,
    /// hot-points), rows per range (range-*).
    #[serde(default = "defaults::random_points")]
    pub random_points: u32,
    /// Rows per range query of read-only (10, 100 or 10000) and
    /// read-write (10 or 100).
    #[serde(default = "defaults::range_size")]
    pub range_size: u32,
    /// How the ids of each query are drawn (`--rand-type`); uniform, as
    /// in Mark's runs, when absent.
    #[serde(default, skip_serializing_if = "KeyDistribution::is_uniform")]
    pub rand_type: KeyDistribution,
    /// oltp_read_write with innodb_max_dirty_pages_pct(_lwm)=1 after the
    /// load, as Mark's write tests and load do: it starts freed_page_clock.
    /// 0 skips it.
    #[serde(default = "defaults::arm_seconds")]
    pub arm_seconds: u64,
    #[serde(default = "defaults::warmup_seconds")]
    pub warmup_seconds: u64,
    #[serde(default = "defaults::measure_seconds")]
    pub measure_seconds: u64,
    /// A separate pass with the buf_pool.mutex instrument on (it changes
    /// the timing, so it is never the measured run). 0 skips it.
    #[serde(default = "defaults::diagnostic_seconds")]
    pub diagnostic_seconds: u64,
    /// Longest wait for an idle server before each cell; 0 skips the wait.
    #[serde(default = "defaults::idle_limit_seconds")]
    pub idle_limit_seconds: u64,
    /// Longest post-write flush after a write test; absent: Mark's 60 s +
    /// 1 s per million rows, at most 1200 s.
    #[serde(default)]
    pub post_write_limit_seconds: Option<u64>,
    /// scan-loop: rows of the hot table (about 70 a page)
    #[serde(default = "defaults::hot_rows")]
    pub hot_rows: u64,
    /// scan-loop: rows of the scanned table, larger than the pool
    #[serde(default = "defaults::scan_rows")]
    pub scan_rows: u64,
    /// scan-loop: connections that scan; `threads` look up hot rows
    #[serde(default = "defaults::scan_threads")]
    pub scan_threads: u32,
    /// scan-loop: rows of a third table loaded with the hot one and never
    /// read: the rest of seed 001's table, whose first rows alone were the
    /// hot set (0, the default: none)
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cold_rows: u64,
    /// scan-loop: milliseconds each scanning connection waits after a
    /// pass (seed 001's 0.5 and 2 s pauses; 0, the default: back to back)
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scan_pause_ms: u64,
    /// scan-loop: start the cell from a cold pool (seed 001's cold start):
    /// the server is shut down without dumping its pool and started again
    /// after the load, before the warm-up, so that no page of the load is
    /// left in the pool (false, the default: the warm start)
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cold_start: bool,
    /// scan-loop with `cold_start`: rows of a table `filler` loaded with the
    /// others and read in full once after the restart, before the warm-up
    /// (the seed filled the pool from a third table); 0, the default: none
    #[serde(default, skip_serializing_if = "is_zero")]
    pub filler_rows: u64,
    /// scan-loop: length of the residency pass (sampled; before the
    /// measured pass, which is not)
    #[serde(default = "defaults::residency_seconds")]
    pub residency_seconds: u64,
    /// scan-loop: seconds between two residency samples
    #[serde(default = "defaults::sample_seconds")]
    pub sample_seconds: u64,
    /// Events per second over all threads (sysbench --rate) in every
    /// phase that runs the workload, so that the time between two touches
    /// of a page (and the pool's turnover, with the data beyond the pool)
    /// is set, not the CPU's speed; 0: as fast as they go. In scan-loop a
    /// scan pass is one event (its files call it `hot_rate`).
    #[serde(default, alias = "hot_rate")]
    pub rate: u64,
    /// The profile pass after the diagnostic pass, of the first repetition
    /// only: three windows of this length under one load, no profiler, then
    /// `perf record`, then the Poor Man's Profiler. 0 (the default) skips it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub profile_seconds: u64,
    /// gdb backtraces of every server thread the Poor Man's Profiler takes,
    /// spread over its window.
    #[serde(
        default = "defaults::pmp_samples",
        skip_serializing_if = "defaults::is_pmp_samples"
    )]
    pub pmp_samples: u32,
    /// The window of the cost pass (the matrix's `cost_passes`): seconds of
    /// load counted by callgrind. Its warm-up is `warmup_seconds` under
    /// Valgrind without instrumentation.
    #[serde(
        default = "defaults::cost_seconds",
        skip_serializing_if = "defaults::is_cost_seconds"
    )]
    pub cost_seconds: u64,
    /// The cost pass counts exactly this many sysbench events instead of
    /// `cost_seconds`: one connection, random keys from a fixed seed, so
    /// every pass of every variant runs the same statements in the same
    /// order; for a test that writes, purge is caught up before and held
    /// (a read view) during the window, so that what an update does to a
    /// page does not depend on how far purge got between Valgrind's turns.
    /// The cost server then seeds its rows and arming too, and the pass
    /// has no warm-up. 0 (the default) counts `cost_seconds`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cost_events: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Workload {
    /// A workload with every parameter at its default.
    pub fn new(name: &str) -> Workload {
        Workload {
            name: name.to_string(),
            kind: None,
            tables: defaults::tables(),
            table_size: defaults::table_size(),
            threads: defaults::threads(),
            random_points: defaults::random_points(),
            range_size: defaults::range_size(),
            rand_type: KeyDistribution::Uniform,
            arm_seconds: defaults::arm_seconds(),
            warmup_seconds: defaults::warmup_seconds(),
            measure_seconds: defaults::measure_seconds(),
            diagnostic_seconds: defaults::diagnostic_seconds(),
            idle_limit_seconds: defaults::idle_limit_seconds(),
            post_write_limit_seconds: None,
            hot_rows: defaults::hot_rows(),
            scan_rows: defaults::scan_rows(),
            scan_threads: defaults::scan_threads(),
            cold_rows: 0,
            scan_pause_ms: 0,
            cold_start: false,
            filler_rows: 0,
            residency_seconds: defaults::residency_seconds(),
            sample_seconds: defaults::sample_seconds(),
            rate: 0,
            profile_seconds: 0,
            pmp_samples: defaults::pmp_samples(),
            cost_seconds: defaults::cost_seconds(),
            cost_events: 0,
        }
    }
}

mod defaults {
    use super::Threads;
    pub fn tables() -> u32 {
        8
    }
    pub fn table_size() -> u64 {
        100_000
    }
    pub fn threads() -> Threads {
        Threads::One(2)
    }
    pub fn random_points() -> u32 {
        100
    }
    pub fn range_size() -> u32 {
        100
    }
    pub fn arm_seconds() -> u64 {
        10
    }
    pub fn pmp_samples() -> u32 {
        20
    }
    pub fn is_pmp_samples(n: &u32) -> bool {
        *n == pmp_samples()
    }
    /// about 10,000 queries of an in-memory read test under callgrind here
    pub fn cost_seconds() -> u64 {
        10
    }
    pub fn is_cost_seconds(n: &u64) -> bool {
        *n == cost_seconds()
    }
    pub fn warmup_seconds() -> u64 {
        5
    }
    pub fn measure_seconds() -> u64 {
        20
    }
    pub fn diagnostic_seconds() -> u64 {
        10
    }
    pub fn idle_limit_seconds() -> u64 {
        60
    }
    pub fn hot_rows() -> u64 {
        60_000
    }
    pub fn scan_rows() -> u64 {
        800_000
    }
    pub fn scan_threads() -> u32 {
        1
    }
    pub fn residency_seconds() -> u64 {
        40
    }
    pub fn sample_seconds() -> u64 {
        5
    }
}

/// Wall time of one phase of a run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Phase {
    pub name: String,
    pub seconds: f64,
}

/// The diagnostic pass: same workload, instrument on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Diagnostic {
    pub measured: Measured,
    /// None when the instrument could not be read (`Outcome::not_measured`
    /// says why)
    pub buf_pool_mutex_acquisitions: Option<u64>,
    pub buf_pool_mutex_wait_ms: Option<f64>,
}

/// A metric a cell could not measure, and why: its value is absent from
/// the result (never 0) and reports print "not measured".
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct NotMeasured {
    pub metric: String,
    pub reason: String,
}

/// Everything one cell (a workload at one thread count) produced.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Outcome {
    #[serde(default)]
    pub kind: Option<WorkloadKind>,
    #[serde(default)]
    pub threads: Option<u32>,
    pub sysbench_commands: Vec<String>,
    pub phases: Vec<Phase>,
    /// the wait for an idle server before the cell; None when skipped
    #[serde(default)]
    pub idle_wait: Option<IdleWait>,
    pub measured: Option<Measured>,
    pub diagnostic: Option<Diagnostic>,
    /// write tests: the flush with innodb_max_dirty_pages_pct=1 afterwards
    #[serde(default)]
    pub post_write: Option<IdleWait>,
    /// sysbench's full output of the measured run
    pub measured_output: String,
    /// metrics this cell could not measure, with the reason
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<NotMeasured>,
    /// scan-loop: residency over time and the hot and scan rates
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan_loop: Option<ScanLoopOutcome>,
    /// the profile pass: where the server spent its time and what it waited for
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfilePass>,
    /// the cost pass (a server under callgrind, after the timed one):
    /// instructions per query
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<super::CostPass>,
    /// a traced server's page stream over the measured run, replayed
    /// through the LRU model
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_trace: Option<super::PageTrace>,
}

/// When the server counts as idle.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct IdleBounds {
    /// at most this many dirty pages in the buffer pool
    pub dirty_pages: u64,
    /// at most this many undo logs waiting for purge
    pub history_length: u64,
}

/// How a wait ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IdleWait {
    pub seconds: f64,
    /// false: the time limit came first
    pub reached: bool,
    pub bounds: IdleBounds,
    pub limit_seconds: f64,
    /// the last values read
    pub dirty_pages: Option<u64>,
    pub history_length: Option<u64>,
}

/// One residency sample.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// seconds since the scans started (0: just before)
    pub t_s: f64,
    /// pages of the hot table in the pool
    pub hot_resident: u64,
    /// of them, in the young sublist
    pub hot_young: u64,
    /// pages of the scanned table in the pool
    pub scan_resident: u64,
    /// of them, in the young sublist
    pub scan_young: u64,
    /// Innodb_buffer_pool_pages_made_young so far
    pub made_young: u64,
    /// how long the sample took (it walks the pool under its mutex)
    pub sample_ms: f64,
}

/// The server settings the model needs, as the server reported them.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct PoolSettings {
    pub pool_pages: u64,
    pub old_blocks_pct: u32,
    pub old_blocks_time_ms: u32,
    pub lru_scan_depth: u32,
}

/// What a scan-loop cell measured beyond `Measured`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ScanLoopOutcome {
    pub settings: PoolSettings,
    /// pages of the hot table: those resident after the warm-up's lookups
    /// (a single read of the whole table does not keep it: its pages enter
    /// the old sublist, which is shorter than the table)
    pub hot_pages: u64,
    /// leaf pages of the hot table's clustered index (innodb_index_stats):
    /// what `hot_pages` is checked against
    #[serde(default)]
    pub hot_leaf_pages: Option<u64>,
    /// leaf pages of the scanned table's clustered index (innodb_index_stats)
    pub scan_pages: u64,
    pub warmup_seconds: u64,
    pub residency_seconds: u64,
    pub sample_seconds: u64,
    /// the pause between two passes of a scan, in ms (absent from runs
    /// recorded before it was)
    #[serde(default)]
    pub scan_pause_ms: Option<u64>,
    /// the residency pass: samples from the scans' start to its end
    pub samples: Vec<Sample>,
    /// the residency pass's hot lookups and scan passes, per second
    pub residency_hot_lookups_per_s: f64,
    pub residency_scans_per_s: f64,
    /// the measured pass (no sampling): hot lookups per second
    pub hot_lookups_per_s: f64,
    /// the measured pass: full scans per second
    pub scans_per_s: f64,
    /// the sample after the measured pass
    pub end: Sample,
    /// the LRU model's policy for the variant, recorded by the runner
    /// (`ModelPolicy`); None: the model has none for it
    #[serde(default)]
    pub model_policy: Option<ModelPolicy>,
}
