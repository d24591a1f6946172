//! innodb-lab: validates patches to MariaDB's InnoDB buffer pool LRU on
//! real builds. One module per stage; each passes plain structs that
//! serialize into the result JSON.
//!
//! tree -> patch -> variant -> build -> server -> workload -> metrics ->
//! results (keys, files, failures) -> stats -> report -> matrix (plan, runs,
//! progress). Reports and `validate` read results; only matrix writes them.

pub mod build;
pub mod charts;
pub mod children;
pub mod dims;
pub mod ffi;
pub mod host;
pub mod lock;
pub mod matrix;
pub mod metrics;
pub mod model;
pub mod mtr;
pub mod patch;
pub mod patch_check;
pub mod provenance;
pub mod record;
pub mod report;
pub mod results;
pub mod server;
pub mod settings;
pub mod stale;
pub mod stats;
pub mod tasks;
pub mod testing;
pub mod tree;
pub mod util;
pub mod validate;
pub mod variant;
pub mod workload;
