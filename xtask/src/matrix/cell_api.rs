//! TEMPORARY: the workload interface of issue 10 (`workload::prepare_data`,
//! `execute_cell`, `run_order`, `Workload::thread_counts`) until it lands
//! on main; then this file goes and its callers use `crate::workload`.

use crate::server::Server;
use crate::workload::{self, Outcome, Phase, Workload};
use anyhow::Result;
use mysql::prelude::Queryable;
use std::path::Path;

pub fn thread_counts(w: &Workload) -> Vec<u32> {
    vec![w.threads]
}

pub fn run_order(workloads: &[Workload]) -> Vec<(usize, u32)> {
    workloads
        .iter()
        .enumerate()
        .flat_map(|(i, w)| thread_counts(w).into_iter().map(move |t| (i, t)))
        .collect()
}

pub fn prepare_data(_w: &Workload, _server: &mut Server, _logs: &Path) -> Result<Vec<Phase>> {
    Ok(Vec::new())
}

pub fn execute_cell(
    w: &Workload,
    threads: u32,
    server: &mut Server,
    logs: &Path,
) -> Result<Outcome> {
    // today's execute prepares its own tables
    server
        .connect()?
        .query_drop("DROP DATABASE IF EXISTS sbtest")?;
    let w = Workload {
        threads,
        ..w.clone()
    };
    workload::execute(&w, server, logs)
}
