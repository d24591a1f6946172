//! Small closed types every layer shares: one owner for each concept. A
//! series, the metric table, a workload kind, a cell's steps, the LRU
//! model's policies, a variant's role, the name of a control's second run.

mod cnf_base;
mod datadir;
mod metric;
mod role;
mod step;
mod workload_kind;

pub use cnf_base::CnfBase;
pub use datadir::Datadir;
pub use lru_model::series::{carries_upstream_fix, CnfFamily, Engine, Series, TreeVersion};
pub use lru_model::{ModelPolicy, ModelRules};
pub use metric::{Metric, MetricInfo, METRICS};
pub use role::{asks_about, baseline_among, baseline_first, role_of, Role, BASE, FIXED};
pub use step::{AtStep, ErrorLogTail, Step};
pub use workload_kind::WorkloadKind;

/// The variant a control runs: the baseline built once, run as a second
/// cell under this name so that reports show the noise between two runs
/// of the same build.
pub const CONTROL_SUFFIX: &str = "-again";

/// The build-noise control: base rebuilt with a change that moves its code
/// and alters nothing it does (`patches/any/layout-shift.patch`, from the
/// patch table), so that a difference between two builds is weighed
/// against what two builds of the same code differ by.
pub const REBUILT_CONTROL: &str = "base-rebuilt";

/// The file name of that change: a build with it runs base's code.
pub const LAYOUT_SHIFT_PATCH: &str = "layout-shift.patch";

/// Our remedy for seed 001's leak (`patches/mysql-9.7/old-surplus.md`):
/// it changes `buf_LRU_old_adjust_len()`, which the upstream fix keeps, so
/// unlike our other patches a tree with the fix is not refused for it.
pub const LEAK_REMEDY: &str = "old-surplus";

/// The variants whose patches serve a tree that carries the upstream fix
/// too (its patch table entries have no `refuse_on`).
pub const SERVES_FIXED_TREES: [&str; 2] = [REBUILT_CONTROL, LEAK_REMEDY];

/// The leak remedy's patch file names, the same in each series' folder,
/// each with its rule for the old sublist: `old-surplus` holds a surplus
/// always, `old-surplus-unaccessed` only over a block no one has accessed
/// since its read (a read-ahead's page).
pub const LEAK_REMEDY_PATCHES: [(&str, lru_model::OldSurplus); 2] = [
    ("old-surplus.patch", lru_model::OldSurplus::Hold),
    (
        "old-surplus-unaccessed.patch",
        lru_model::OldSurplus::HoldUnaccessed,
    ),
];
