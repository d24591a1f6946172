//! The cost pass of a cell: the work the server did per query in a window
//! counted by an instruction counter, not a clock, so that a noisy host
//! (neighbours, a 2-core VM) moves it little.

use serde::{Deserialize, Serialize};

/// What counted the instructions. Figures of two counters are never
/// compared: a report compares cost passes of one counter only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CostCounter {
    /// Valgrind's callgrind, `Ir` (instructions executed, every thread of
    /// the server), on a server started under it with instrumentation off
    /// and switched on for the window only: for hosts without a PMU. The
    /// passes before 2026-12-03 counted so.
    CallgrindIr,
    /// the same, of the threads that dispatched a client command in the
    /// window only: the page cleaner's flushing and purge, which run at
    /// their own pace and were divided by a pace of queries that varies,
    /// are counted apart (`CostPass::other_threads`)
    CallgrindIrQueryThreads,
}

impl CostCounter {
    pub fn words(self) -> &'static str {
        match self {
            CostCounter::CallgrindIr => "callgrind Ir (instructions executed, all server threads)",
            CostCounter::CallgrindIrQueryThreads => {
                "callgrind Ir (instructions executed by the threads that dispatched a client command)"
            }
        }
    }
}

/// One function's share of the window's instructions (self cost: the
/// instructions of its own code, not of what it called).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FunctionCost {
    pub function: String,
    pub instructions: u64,
}

/// What a pass that counted the dispatching threads left out.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct OtherThreads {
    /// instructions of the threads that dispatched no client command
    pub instructions: u64,
    pub threads: u64,
    /// the threads that dispatched one (whose work is `CostPass::instructions`)
    pub query_threads: u64,
}

/// A cost pass's window of a fixed count of sysbench events.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct EventWindow {
    pub events: u64,
    /// sysbench's `--rand-seed`
    pub seed: u64,
    /// connections (one: the statements' order is the seed's)
    pub threads: u32,
    /// purge was caught up before the window and held during it
    pub purge_held: bool,
    /// the cost server's data and arming came from the same seed (the
    /// arming on one connection with purge held, its history then removed
    /// by one purge thread) and the pass had no warm-up, so every pass
    /// started from the same pages (false in the passes of 2026-12-04
    /// before it, which had none of this)
    #[serde(default)]
    pub seeded_data: bool,
}

/// One cell's cost pass.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CostPass {
    pub counter: CostCounter,
    /// the window asked for, seconds of load with instrumentation on
    /// (absent when the window was a count of events)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_seconds: Option<u64>,
    /// the window as a count of events (the workload's `cost_events`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<EventWindow>,
    /// instructions in the window: of every server thread
    /// (`CallgrindIr`) or of the dispatching threads
    /// (`CallgrindIrQueryThreads`)
    pub instructions: u64,
    /// `CallgrindIrQueryThreads`: the other threads' instructions in the
    /// same window, and how many threads there were of each kind
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub other_threads: Option<OtherThreads>,
    /// client commands the server dispatched in the same window (calls of
    /// `dispatch_command` in the same count, so no query outside the
    /// window is counted and none inside is missed)
    pub queries: u64,
    pub instructions_per_query: f64,
    /// Innodb_buffer_pool_pages_made_young over the window and the switch
    /// around it, per query: whether the variant's promotions ran here as
    /// in the timed runs (None when the counter could not be read)
    pub pages_made_young_per_query: Option<f64>,
    /// queries a second with instrumentation on (the pass's own pace)
    pub qps: f64,
    /// the functions with the most self cost, most first
    pub top_functions: Vec<FunctionCost>,
    /// the cell's share of the pass: warm-up under Valgrind, the window,
    /// reading the counts
    pub wall_seconds: f64,
}
