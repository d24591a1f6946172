//! The records: plain data, the schema of every file the tool writes for
//! others to read (result files, `build.json`, the mtr and summary files'
//! shared parts). Stages fill these types; results, reports and `validate`
//! read them; nothing here does I/O. A change to any field changes the
//! schema: the snapshot test in `schema.rs` names the field, and
//! `SCHEMA_VERSION` must move with it (old files are upgraded on reading,
//! `results::store::parse`).

mod bisect;
mod build;
mod cnf;
mod cost;
mod folded;
mod measured;
mod page_trace;
mod profile;
mod run;
mod tree;
mod workload;

pub use bisect::{
    BisectOutcome, BisectRecord, BisectStep, Candidate, CandidateDecision, Rule,
    BISECT_SCHEMA_VERSION,
};
pub use build::{Build, BuildKey, BuildType, CcacheUse, CherryPick, Patch, WholeBuild};
pub use cnf::{MyCnf, Scaled};
pub use cost::{CostCounter, CostPass, EventWindow, FunctionCost, OtherThreads};
pub use folded::{frame_is, is_unnamed, FoldedLineError, FoldedStacks, FrameChange};
pub use measured::{HostCpu, Measured, OtherCpu, ProcCounters, Snapshot, SysbenchReport};
pub use page_trace::{IntervalCounts, ModelReplay, PageTrace, StayRow, TraceReplay, TraceStays};
pub use profile::{OnCpuProfile, ProfilePass, Profiler, WaitProfile};
pub use run::{Cell, CellKey, Failure, RunResult, SCHEMA_VERSION};
pub use tree::{Tree, TreeKind};
pub use workload::{
    Diagnostic, IdleBounds, IdleWait, KeyDistribution, NotMeasured, Outcome, Phase, PoolSettings,
    Sample, ScanLoopOutcome, Threads, Workload,
};
