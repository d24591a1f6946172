#![allow(dead_code)]
//! TEMPORARY: interfaces of issue 10 that other branches deliver (stats,
//! charts). Removed when they land on main.
pub mod charts;
pub mod stats;
pub mod workload {
    //! TEMPORARY: `Measured.other_cpu` (branch workloads).
    pub fn other_cores_busy(_m: &crate::metrics::Measured) -> Option<f64> {
        None
    }
}
