//! innodb-lab: validates patches to MariaDB's InnoDB buffer pool LRU on
//! real builds. One module per stage; each passes plain structs that
//! serialize into the result JSON.
//!
//! tree -> patch -> build -> server -> workload -> metrics -> matrix
//! (runs) -> stats -> report

pub mod build;
pub mod charts;
pub mod children;
pub mod ffi;
pub mod host;
pub mod matrix;
pub mod metrics;
pub mod model;
pub mod patch;
pub mod patch_check;
pub mod report;
pub mod server;
pub mod stats;
pub mod testing;
pub mod tree;
pub mod util;
pub mod workload;
