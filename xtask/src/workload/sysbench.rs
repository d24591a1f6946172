//! One sysbench invocation: its argument vector (`sysbench_args`), how
//! long it may take (`deadline`) and what it left behind (`run`). The
//! runner (`util::Command::run_metered`) starts it in its own process
//! group, registers it for Ctrl-C, stops it at its deadline, keeps its log
//! and measures its CPU time.

use crate::dims::WorkloadKind;
use crate::record::Workload;
use crate::server::Server;
use crate::util::{repo_root, Command};
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Our Lua scripts: Mark's tests and scan-loop, run by path.
pub(super) fn lua_dir() -> PathBuf {
    repo_root().join("workloads/lua")
}

/// How long a sysbench phase of `seconds` may take before it is stopped:
/// its length plus a margin for start-up, connecting and a slow last
/// event. A hung server makes sysbench wait forever; this ends it.
pub(super) fn deadline(seconds: u64) -> Duration {
    Duration::from_secs(seconds + 30 + seconds / 4)
}

/// How long loading the tables may take: a generous floor of 2,000 rows
/// a second (this 2-core host loads about 40,000) plus a margin.
pub(super) fn prepare_deadline(w: &Workload) -> Duration {
    let rows = w.tables as u64 * w.table_size;
    Duration::from_secs(120 + rows / 2_000)
}

/// How long a sysbench run lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Length {
    /// this many seconds, random keys from a seed of the clock
    Seconds(u64),
    /// exactly this many events, random keys from `seed`: the same
    /// statements in the same order on every run with one thread
    Events { count: u64, seed: u64 },
}

/// The sysbench command line of a phase: `script` is one of ours (a path)
/// or a bundled one (a name); `kind` adds the test's options. Of `length`,
/// `prepare` takes only the seed of `Length::Events`.
pub(super) fn sysbench_args(
    w: &Workload,
    server: &Server,
    script: &str,
    kind: Option<WorkloadKind>,
    threads: u32,
    command: &str,
    length: Length,
) -> Vec<String> {
    let mut args = vec![
        script.to_string(),
        "--db-driver=mysql".into(),
        format!("--mysql-socket={}", server.dir.socket.display()),
        "--mysql-user=root".into(),
        // the password from a 0600 file, not the command line
        format!("--config-file={}", server.dir.sysbench_options().display()),
        "--mysql-db=sbtest".into(),
        format!("--tables={}", w.tables),
        format!("--table-size={}", w.table_size),
        format!("--rand-type={}", w.rand_type.name()),
        "--mysql-storage-engine=innodb".into(),
    ];
    if let Some(k) = kind {
        args.extend(k.script_options(w));
    }
    args.push(format!("--threads={threads}"));
    if let Length::Events { seed, .. } = length {
        // prepare too: the rows' random columns come from it
        args.push(format!("--rand-seed={seed}"));
    }
    if command != "prepare" {
        if w.rate > 0 {
            args.push(format!("--rate={}", w.rate));
        }
        match length {
            Length::Seconds(seconds) => {
                args.push(format!("--time={seconds}"));
                args.push("--events=0".into());
            }
            Length::Events { count, .. } => {
                args.push("--time=0".into());
                args.push(format!("--events={count}"));
            }
        }
        args.push("--report-interval=0".into());
    }
    args.push(command.to_string());
    args
}

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
