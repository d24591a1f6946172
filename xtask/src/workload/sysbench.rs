//! One sysbench invocation: its argument vector and what it left behind.
//! The runner (`util::Command::run_metered`) starts it in its own process
//! group, registers it for Ctrl-C, stops it at its deadline, keeps its log
//! and measures its CPU time.

use crate::util::Command;
use anyhow::Result;
use std::path::Path;
use std::time::Duration;

/// What one sysbench invocation left behind.
#[derive(Debug, Clone)]
pub struct SysbenchRun {
    /// stdout followed by stderr
    pub output: String,
    /// user + system CPU seconds of sysbench (all its threads), from the
    /// kernel's record of the exited process; None when it could not be
    /// read
    pub cpu_seconds: Option<f64>,
}

/// Runs sysbench with `args` and a deadline; returns its output, or an
/// error with its argument vector and the output's tail (preflight checks
/// that sysbench is installed). The full output goes to `log`.
pub fn run(args: &[String], timeout: Duration, log: &Path) -> Result<SysbenchRun> {
    // sysbench finds oltp_common.lua in its own pkgdatadir, our scripts by path
    let run = Command::new("sysbench")
        .args(args.iter().cloned())
        .deadline(timeout)
        .run_metered(log)?;
    Ok(SysbenchRun {
        output: run.output,
        cpu_seconds: run.cpu_seconds,
    })
}
