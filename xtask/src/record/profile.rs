//! The profile pass of a cell: where the server spent its CPU (perf) and
//! what its threads were doing, waits included (the Poor Man's Profiler,
//! gdb backtraces of every thread). The stacks themselves are folded files
//! in the results directory; this record names them and keeps what the
//! report says of them.

use serde::{Deserialize, Serialize};

/// One profile pass: three windows of `window_seconds` under one sysbench
/// load of the cell's workload, none measured: no profiler (the
/// reference), `perf record`, then gdb.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ProfilePass {
    pub window_seconds: u64,
    /// queries a second in the window without a profiler (the server's
    /// `Queries` counter); None when it could not be read
    pub reference_qps: Option<f64>,
    /// None when perf could not profile (the outcome's not-measured list
    /// says why)
    pub on_cpu: Option<OnCpuProfile>,
    /// None when gdb could not sample (likewise)
    pub waits: Option<WaitProfile>,
    /// the whole pass: its three windows, starting the profilers and
    /// folding their stacks
    pub wall_seconds: f64,
}

/// `perf record -g` of the server process.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OnCpuProfile {
    /// the sampling event: `cpu-clock` (software) where the host has no
    /// hardware counters, `cycles` where it has
    pub event: String,
    pub hardware_event: bool,
    pub frequency_hz: u32,
    /// perf's `--call-graph` mode
    pub call_graph: String,
    /// samples folded
    pub samples: u64,
    /// share of the samples with no function name at the innermost frame
    /// (a binary without symbols); None without samples
    pub unnamed_leaf_share: Option<f64>,
    /// queries a second in the perf window
    pub qps: Option<f64>,
    /// the folded stacks, relative to the results directory
    pub folded: String,
    /// `perf script` and folding, after the load ended
    pub fold_seconds: f64,
}

/// The Poor Man's Profiler: gdb attaches, takes a backtrace of every
/// thread, detaches; `stops_ms.len()` times, spread over its window.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WaitProfile {
    /// how long each sample held the server stopped, attach to detach
    pub stops_ms: Vec<f64>,
    /// thread stacks folded (every thread of every sample)
    pub thread_stacks: u64,
    pub unnamed_leaf_share: Option<f64>,
    /// queries a second in the gdb window
    pub qps: Option<f64>,
    /// the folded stacks, relative to the results directory
    pub folded: String,
}

/// The two profilers of a pass, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profiler {
    /// perf record: where the CPU time goes
    OnCpu,
    /// gdb backtraces: what every thread is doing, waiting included
    Waits,
}

impl Profiler {
    pub const ALL: [Profiler; 2] = [Profiler::OnCpu, Profiler::Waits];

    /// The word file names and reports use.
    pub fn word(self) -> &'static str {
        match self {
            Profiler::OnCpu => "oncpu",
            Profiler::Waits => "pmp",
        }
    }

    /// What a report calls it.
    pub fn title(self) -> &'static str {
        match self {
            Profiler::OnCpu => "on-CPU (perf)",
            Profiler::Waits => "all threads, waits included (Poor Man's Profiler, gdb)",
        }
    }
}

impl ProfilePass {
    /// The folded file of `profiler`, when it ran.
    pub fn folded(&self, profiler: Profiler) -> Option<&str> {
        match profiler {
            Profiler::OnCpu => self.on_cpu.as_ref().map(|p| p.folded.as_str()),
            Profiler::Waits => self.waits.as_ref().map(|p| p.folded.as_str()),
        }
    }

    /// How much slower the server ran under `profiler` than in the
    /// reference window, in percent (negative: slower).
    pub fn change_pct(&self, profiler: Profiler) -> Option<f64> {
        let qps = match profiler {
            Profiler::OnCpu => self.on_cpu.as_ref()?.qps?,
            Profiler::Waits => self.waits.as_ref()?.qps?,
        };
        let reference = self.reference_qps.filter(|r| *r > 0.0)?;
        Some(100.0 * (qps / reference - 1.0))
    }
}
