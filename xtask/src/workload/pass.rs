//! What every kind of cell does around sysbench: the command line of a
//! phase (`sysbench_args`), how long it may take (`deadline`), timing a
//! phase under its step (`phase`), one metered run between two snapshots
//! of the counters (`measured_pass`), and the start of a cell
//! (`begin_cell`). The parent's cells (`execute_cell`), scan-loop's and
//! the cost pass's all call these; none of them calls back up.

use super::{idle, sysbench};
use crate::dims::{AtStep, Step, WorkloadKind};
use crate::metrics;
use crate::record::{Measured, OtherCpu, Outcome, Phase, Snapshot, Workload};
use crate::server::Server;
use crate::util::{human_duration, repo_root, slug};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// Runs `f` as the phase of `step`: logs its start and end, records its
/// time under the step's name, and carries the step in its error.
pub(super) fn phase<T>(
    phases: &mut Vec<Phase>,
    w: &Workload,
    step: Step,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    named_phase(phases, w, step, step.word(), f)
}

/// `phase` with a name of its own (scan-loop's `analyze` is part of its
/// prepare step).
pub(super) fn named_phase<T>(
    phases: &mut Vec<Phase>,
    w: &Workload,
    step: Step,
    name: &str,
    f: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let start = Instant::now();
    eprintln!("    {name} ...");
    let value = AtStep::injected(step, Some(&w.name))
        .and_then(|()| f())
        .context(AtStep(step))?;
    let seconds = start.elapsed().as_secs_f64();
    eprintln!("    {name} done ({})", human_duration(seconds));
    phases.push(Phase {
        name: name.to_string(),
        seconds,
    });
    Ok(value)
}

/// Records a sysbench command line in the cell's outcome (the report's
/// reproduction block lists them).
pub(super) fn record_command(out: &mut Outcome, args: &[String]) {
    out.sysbench_commands
        .push(format!("sysbench {}", args.join(" ")));
}

/// What one metered sysbench run measured: the counters' deltas over it,
/// sysbench's own report, and its output.
pub(super) struct Pass {
    pub measured: Measured,
    pub output: String,
    /// buf_pool.mutex acquisitions and wait picoseconds, when the
    /// instrument was read
    pub buf_pool_mutex: Option<(u64, u64)>,
}

/// One sysbench run between two snapshots of the server's counters: the
/// measured run, the diagnostic pass and scan-loop's measured pass are
/// each one of these.
pub(super) fn measured_pass(
    conn: &mut mysql::Conn,
    pid: u32,
    args: &[String],
    seconds: u64,
    log: &Path,
    with_mutex: bool,
) -> Result<Pass> {
    let before = Snapshot::take(conn, pid, with_mutex)?;
    let run = sysbench::run(args, deadline(seconds), log)?;
    let after = Snapshot::take(conn, pid, with_mutex)?;
    let mut measured = Measured::from(metrics::parse_sysbench(&run.output)?, &before, &after);
    measured.other_cpu = OtherCpu::between(&before, &after, run.cpu_seconds);
    Ok(Pass {
        measured,
        output: run.output,
        buf_pool_mutex: Snapshot::buf_pool_mutex_delta(&before, &after),
    })
}

/// A connection whose open read view keeps purge from removing anything
/// committed after it: purge is held while it lives (closing it ends the
/// transaction).
pub(super) fn hold_purge(server: &Server) -> Result<mysql::Conn> {
    let mut holder = server.connect()?;
    holder
        .query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT")
        .context("holding purge with a read view")?;
    Ok(holder)
}

/// The start of every cell: its log directory, a connection, an outcome
/// for `kind` at `threads`, and the wait for an idle server when the
/// workload asks for one (the cell's first phase).
pub(super) fn begin_cell(
    w: &Workload,
    kind: WorkloadKind,
    threads: u32,
    server: &Server,
    logs: &Path,
) -> Result<(mysql::Conn, Outcome, Vec<Phase>)> {
    std::fs::create_dir_all(logs)?;
    let mut conn = server.connect()?;
    let mut out = Outcome {
        kind: Some(kind),
        threads: Some(threads),
        ..Default::default()
    };
    let mut phases = Vec::new();
    if w.idle_limit_seconds > 0 {
        out.idle_wait = Some(phase(&mut phases, w, Step::IdleWait, || {
            idle::wait_for_server(&mut conn, Duration::from_secs(w.idle_limit_seconds))
        })?);
    }
    Ok((conn, out, phases))
}

/// The log file of one phase of a cell of `w` at `threads`.
pub(super) fn cell_log(logs: &Path, w: &Workload, threads: u32, phase: &str) -> PathBuf {
    logs.join(format!("{}.t{threads}.{phase}.log", slug(&w.name)))
}
