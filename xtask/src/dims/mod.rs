//! Small closed types every layer shares: one owner for each concept. A
//! series, the metric table, a workload kind, a cell's steps, the LRU
//! model's policies, the name of a control's second run.

mod metric;
mod model_policy;
mod step;
mod workload_kind;

pub use lru_model::series::{carries_upstream_fix, CnfFamily, Series, TreeVersion};
pub use metric::{Metric, MetricInfo, METRICS};
pub use model_policy::ModelPolicy;
pub use step::{AtStep, ErrorLogTail, Step, FAIL_STEP_ENV};
pub use workload_kind::WorkloadKind;

/// The variant a control runs: the baseline built once, run as a second
/// cell under this name so that reports show the noise between two runs
/// of the same build.
pub const CONTROL_SUFFIX: &str = "-again";
