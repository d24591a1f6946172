//! innodb-lab: validates patches to MariaDB's InnoDB buffer pool LRU on
//! real builds. Layers, from the bottom (tests/layers.rs holds them):
//!
//! * foundation: util (files, the child-process runner), children, lock,
//!   stale, host, provenance, stats, charts, flame (flame graphs),
//!   snapshot (the tests' committed texts);
//! * dims: the small closed types every layer shares (series, metric
//!   table, steps, workload kinds, model policies);
//! * record: the result schema, plain data;
//! * stages, in pipeline order: tree -> patch -> variant -> build ->
//!   settings -> server -> metrics -> profile -> workload; each fills
//!   records;
//! * results (files, keys, failures, questions) and report (pure
//!   functions of records);
//! * the runner (matrix) and the tasks (one per command; `bisect` runs
//!   the runner once per step).
//!
//! Data flows one way: tasks -> runner -> {stages, results, report}.

pub mod bisect;
pub mod build;
pub mod charts;
pub mod children;
pub mod decide;
pub mod dims;
pub mod environment;
pub mod ffi;
pub mod flame;
pub mod host;
pub mod lock;
pub mod matrix;
pub mod metrics;
pub mod model;
pub mod mtr;
pub mod oracle;
pub mod patch;
pub mod patch_check;
pub mod procfs;
pub mod profile;
pub mod provenance;
pub mod record;
pub mod report;
pub mod results;
pub mod server;
pub mod settings;
pub mod snapshot;
pub mod soak;
pub mod stale;
pub mod stats;
pub mod tasks;
pub mod testing;
pub mod tree;
pub mod tree_check;
pub mod util;
pub mod validate;
pub mod variant;
pub mod workload;
