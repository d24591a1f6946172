//! One cell's run as one value (`CellRun`): its connection, the outcome
//! its passes fill and the phases they time, from the start of the cell
//! (`CellRun::begin`) to its record (`CellRun::finish`). Each kind of cell
//! (`execute_cell`, scan-loop's) is the sequence of its phases on one of
//! these; loading a server's data times its phases with `Phases` alone.
//! Also the pieces every kind's passes share: one metered run between two
//! snapshots of the counters (`measured_pass`) and a read view that holds
//! purge (`hold_purge`). None of it calls back up into `workload.rs`.

use super::{idle, sysbench};
use crate::dims::{AtStep, Step, WorkloadKind};
use crate::metrics;
use crate::record::{Measured, OtherCpu, Outcome, Phase, Snapshot, Workload};
use crate::server::Server;
use crate::util::{human_duration, slug};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The phases of a cell, or of loading a server's data, in the order they
/// ran, each timed under its step.
pub(super) struct Phases<'w> {
    workload: &'w Workload,
    done: Vec<Phase>,
}

impl<'w> Phases<'w> {
    pub(super) fn new(workload: &'w Workload) -> Phases<'w> {
        Phases {
            workload,
            done: Vec::new(),
        }
    }

    /// Runs `f` as the phase of `step`: logs its start and end, records
    /// its time under the step's name, and carries the step in its error.
    pub(super) fn time<T>(&mut self, step: Step, f: impl FnOnce() -> Result<T>) -> Result<T> {
        self.time_as(step, step.word(), f)
    }

    /// `time` under a name of its own (scan-loop's `analyze` is part of its
    /// prepare step, its `filler` of its warm-up).
    pub(super) fn time_as<T>(
        &mut self,
        step: Step,
        name: &str,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let start = Instant::now();
        eprintln!("    {name} ...");
        let value = AtStep::injected(step, Some(&self.workload.name))
            .and_then(|()| f())
            .context(AtStep(step))?;
        let seconds = start.elapsed().as_secs_f64();
        eprintln!("    {name} done ({})", human_duration(seconds));
        self.done.push(Phase {
            name: name.to_string(),
            seconds,
        });
        Ok(value)
    }

    pub(super) fn into_vec(self) -> Vec<Phase> {
        self.done
    }
}

/// One cell of a workload at a thread count, running on its server: the
/// connection its passes use, the outcome they fill and the phases they
/// time. A phase's closure is given the connection and the outcome, so
/// that it can use both while the run times it.
pub(super) struct CellRun<'a> {
    pub w: &'a Workload,
    pub threads: u32,
    logs: &'a Path,
    pub conn: mysql::Conn,
    pub out: Outcome,
    phases: Phases<'a>,
}

impl<'a> CellRun<'a> {
    /// The start of every cell: for a workload that starts cold (only
    /// scan-loop's may) the server restarted, its log directory, a
    /// connection, an outcome for `kind` at `threads`, and the wait for an
    /// idle server when the workload asks for one.
    pub(super) fn begin(
        w: &'a Workload,
        kind: WorkloadKind,
        threads: u32,
        server: &mut Server,
        logs: &'a Path,
    ) -> Result<CellRun<'a>> {
        let mut phases = Phases::new(w);
        if w.cold_start {
            // before the idle wait, which then waits on the restarted server
            phases.time_as(Step::Start, "restart", || server.restart())?;
        }
        std::fs::create_dir_all(logs)?;
        let mut conn = server.connect()?;
        let mut out = Outcome {
            kind: Some(kind),
            threads: Some(threads),
            ..Default::default()
        };
        if w.idle_limit_seconds > 0 {
            let limit = Duration::from_secs(w.idle_limit_seconds);
            out.idle_wait =
                Some(phases.time(Step::IdleWait, || idle::wait_for_server(&mut conn, limit))?);
        }
        Ok(CellRun {
            w,
            threads,
            logs,
            conn,
            out,
            phases,
        })
    }

    /// Runs `f` as the cell's phase of `step` (see `Phases::time`).
    pub(super) fn phase<T>(
        &mut self,
        step: Step,
        f: impl FnOnce(&mut mysql::Conn, &mut Outcome) -> Result<T>,
    ) -> Result<T> {
        let (conn, out) = (&mut self.conn, &mut self.out);
        self.phases.time(step, || f(conn, out))
    }

    /// `phase` under a name of its own.
    pub(super) fn named_phase<T>(
        &mut self,
        step: Step,
        name: &str,
        f: impl FnOnce(&mut mysql::Conn, &mut Outcome) -> Result<T>,
    ) -> Result<T> {
        let (conn, out) = (&mut self.conn, &mut self.out);
        self.phases.time_as(step, name, || f(conn, out))
    }

    /// The log file of one of the cell's passes.
    pub(super) fn log(&self, pass: &str) -> PathBuf {
        cell_log(self.logs, self.w, self.threads, pass)
    }

    /// The cell's record: its outcome with the phases it timed.
    pub(super) fn finish(self) -> Outcome {
        let mut out = self.out;
        out.phases = self.phases.into_vec();
        out
    }
}

/// The log file of one phase of a cell of `w` at `threads`.
pub(super) fn cell_log(logs: &Path, w: &Workload, threads: u32, phase: &str) -> PathBuf {
    logs.join(format!("{}.t{threads}.{phase}.log", slug(&w.name)))
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
    let run = sysbench::run(args, sysbench::deadline(seconds), log)?;
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
