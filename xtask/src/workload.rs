//! Workloads: Mark Callaghan's sysbench tests as a closed set
//! (`WorkloadKind`), the matrix entry that parameterises one
//! (`Workload`), and running them on a server: the data once per server
//! (`prepare_data`: sysbench prepare and the arming phase), then cells
//! (`execute_cell`: idle wait, unmeasured warm-up, measured run,
//! diagnostic pass, and after a write test the post-write flush) in Mark's
//! order (`run_order`).

mod cell_run;
mod cost_pass;
mod idle;
mod profile_pass;
pub mod scan_loop;
mod sysbench;

pub use cost_pass::{run as execute_cost_cell, COST_SEED};
pub use profile_pass::ProfileTarget;

use cell_run::{hold_purge, measured_pass, record_command, CellRun, Phases};
pub use idle::IdleSample;
use sysbench::{deadline, lua_dir, prepare_deadline, sysbench_args, Length};

use crate::dims::Step;
use crate::dims::WorkloadKind;
use crate::metrics;
use crate::profile::page_trace;
use crate::record::IdleWait;
use crate::record::{
    Diagnostic, NotMeasured, Outcome, PageTrace, Phase, ProfilePass, Threads, Workload,
};
use crate::server::Server;
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use std::path::Path;
use std::time::Duration;

impl WorkloadKind {
    /// Our Lua script for the test, a file name under workloads/lua/.
    pub fn script(self) -> &'static str {
        match self {
            WorkloadKind::PointsCoveredPk
            | WorkloadKind::PointsNotcoveredPk
            | WorkloadKind::PointsCoveredSi
            | WorkloadKind::PointsNotcoveredSi => "oltp_points_covered.lua",
            WorkloadKind::RandomPoints | WorkloadKind::HotPoints => "inlist_select.lua",
            WorkloadKind::RangeCoveredPk | WorkloadKind::RangeNotcoveredSi => "range_select.lua",
            WorkloadKind::ReadOnly => "read_only.lua",
            WorkloadKind::UpdateIndex => "update_index.lua",
            WorkloadKind::UpdateNonindex => "update_nonindex.lua",
            WorkloadKind::ReadWrite => "read_write.lua",
            WorkloadKind::ScanLoop => scan_loop::SCRIPT,
        }
    }

    /// The script's options for this test, as Mark's run.sh passes them.
    fn script_options(self, w: &Workload) -> Vec<String> {
        let points = format!("--random-points={}", w.random_points);
        let range = format!("--range-size={}", w.range_size);
        let opts: Vec<&str> = match self {
            WorkloadKind::PointsCoveredPk | WorkloadKind::RangeCoveredPk => {
                vec!["--on-id=true", "--covered=true", &points, "--skip-trx"]
            }
            WorkloadKind::PointsNotcoveredPk => {
                vec!["--on-id=true", "--covered=false", &points, "--skip-trx"]
            }
            WorkloadKind::PointsCoveredSi => {
                vec!["--on-id=false", "--covered=true", &points, "--skip-trx"]
            }
            WorkloadKind::PointsNotcoveredSi | WorkloadKind::RangeNotcoveredSi => {
                vec!["--on-id=false", "--covered=false", &points, "--skip-trx"]
            }
            WorkloadKind::RandomPoints => vec!["--hot-points=false", &points, "--skip-trx"],
            WorkloadKind::HotPoints => vec!["--hot-points=true", &points, "--skip-trx"],
            WorkloadKind::ReadOnly | WorkloadKind::ReadWrite => vec![&range],
            // scan-loop builds its own arguments (scan_loop::args)
            WorkloadKind::UpdateIndex | WorkloadKind::UpdateNonindex | WorkloadKind::ScanLoop => {
                vec![]
            }
        };
        opts.into_iter().map(String::from).collect()
    }
}

/// A workload field that cannot run, as data: which workload, which
/// field, why. A matrix file's loader adds the line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub workload: String,
    pub field: &'static str,
    pub why: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "workload `{}`: `{}` {}",
            self.workload, self.field, self.why
        )
    }
}

impl std::error::Error for FieldError {}

impl Workload {
    /// The test: `kind`, or the one `name` names.
    pub fn kind(&self) -> Result<WorkloadKind> {
        match self.kind {
            Some(k) => Ok(k),
            None => self.name.parse(),
        }
    }

    /// The thread counts to run, in the matrix's order.
    pub fn thread_counts(&self) -> Vec<u32> {
        match &self.threads {
            Threads::One(n) => vec![*n],
            Threads::List(v) => v.clone(),
        }
    }

    /// Post-write flush limit: the matrix's, or Mark's formula.
    pub fn post_write_limit(&self) -> Duration {
        let rows = self.tables as u64 * self.table_size;
        let mark = (60 + rows / 1_000_000).min(1200);
        Duration::from_secs(self.post_write_limit_seconds.unwrap_or(mark))
    }

    /// Refuses what cannot run, naming the field: the error carries a
    /// `FieldError`, which a matrix file's loader turns into its line.
    pub fn validate(&self) -> Result<()> {
        let kind = self
            .kind()
            .with_context(|| format!("workload `{}`: `kind`", self.name))?;
        self.check_bounds()?;
        self.check_counts()?;
        self.check_kind(kind)
    }

    /// The error of one field of this workload.
    fn fail(&self, field: &'static str, why: String) -> Result<()> {
        Err(FieldError {
            workload: self.name.clone(),
            field,
            why,
        }
        .into())
    }

    /// Upper bounds that keep every count, size and length something a
    /// host can run and the tool's arithmetic can hold.
    fn check_bounds(&self) -> Result<()> {
        let day = 86_400;
        for (field, value, most) in [
            ("tables", u64::from(self.tables), 1_024),
            ("table_size", self.table_size, 1_000_000_000),
            ("random_points", u64::from(self.random_points), 100_000),
            ("range_size", u64::from(self.range_size), 1_000_000),
            ("arm_seconds", self.arm_seconds, day),
            ("warmup_seconds", self.warmup_seconds, day),
            ("measure_seconds", self.measure_seconds, day),
            ("diagnostic_seconds", self.diagnostic_seconds, day),
            ("idle_limit_seconds", self.idle_limit_seconds, day),
            (
                "post_write_limit_seconds",
                self.post_write_limit_seconds.unwrap_or(0),
                day,
            ),
            ("hot_rows", self.hot_rows, 1_000_000_000),
            ("scan_rows", self.scan_rows, 1_000_000_000),
            ("scan_threads", u64::from(self.scan_threads), 4_096),
            ("cold_rows", self.cold_rows, 1_000_000_000),
            ("scan_pause_ms", self.scan_pause_ms, 600_000),
            ("filler_rows", self.filler_rows, 1_000_000_000),
            ("residency_seconds", self.residency_seconds, day),
            ("sample_seconds", self.sample_seconds, day),
            ("rate", self.rate, 1_000_000_000),
            // perf keeps 16 KiB of stack per sample: minutes fill /tmp
            ("profile_seconds", self.profile_seconds, 120),
            ("pmp_samples", u64::from(self.pmp_samples), 10_000),
            // callgrind's counts grow with the window; minutes of it are
            // an hour of wall time
            ("cost_seconds", self.cost_seconds, 600),
            ("cost_events", self.cost_events, 1_000_000),
        ] {
            if value > most {
                self.fail(field, format!("= {value}: at most {most}"))?;
            }
        }
        Ok(())
    }

    /// Counts that must be at least 1, and thread counts without repeats.
    fn check_counts(&self) -> Result<()> {
        if let Some(n) = self.thread_counts().iter().find(|&&n| n > 4_096) {
            self.fail("threads", format!("= {n}: at most 4096"))?;
        }
        if self.tables == 0 {
            self.fail("tables", "must be at least 1".into())?;
        }
        if self.table_size == 0 {
            self.fail("table_size", "must be at least 1".into())?;
        }
        let counts = self.thread_counts();
        if counts.is_empty() {
            self.fail("threads", "is an empty list".into())?;
        }
        if counts.contains(&0) {
            self.fail(
                "threads",
                format!("= [{}]: every count must be at least 1", self.threads),
            )?;
        }
        if (1..counts.len()).any(|i| counts[..i].contains(&counts[i])) {
            self.fail("threads", format!("= [{}] repeats a count", self.threads))?;
        }
        if self.random_points == 0 {
            self.fail("random_points", "must be at least 1".into())?;
        }
        if self.measure_seconds == 0 {
            self.fail("measure_seconds", "must be at least 1".into())?;
        }
        Ok(())
    }

    /// What the workload's kind allows: Mark's sizes, the scan-loop's own
    /// fields, the passes it has.
    fn check_kind(&self, kind: WorkloadKind) -> Result<()> {
        if self.profile_seconds > 0 && self.pmp_samples == 0 {
            self.fail(
                "pmp_samples",
                "must be at least 1 when `profile_seconds` asks for a profile pass".into(),
            )?;
        }
        if self.cold_start && kind != WorkloadKind::ScanLoop {
            self.fail(
                "cold_start",
                format!("= true: only scan-loop starts a cell from a cold pool, not {kind}"),
            )?;
        }
        if self.filler_rows > 0 && !self.cold_start {
            self.fail(
                "filler_rows",
                format!(
                    "= {}: the filler is read after the cold start's restart; set cold_start = true",
                    self.filler_rows
                ),
            )?;
        }
        if self.profile_seconds > 0 && kind == WorkloadKind::ScanLoop {
            self.fail(
                "profile_seconds",
                format!("= {}: scan-loop has no profile pass", self.profile_seconds),
            )?;
        }
        match kind {
            WorkloadKind::RandomPoints if ![10, 100, 1000].contains(&self.random_points) => self.fail(
                "random_points",
                format!(
                    "= {}: random-points takes 10, 100 or 1000 ids (Mark's sizes)",
                    self.random_points
                ),
            )?,
            WorkloadKind::ReadOnly if ![10, 100, 10000].contains(&self.range_size) => self.fail(
                "range_size",
                format!(
                    "= {}: read-only takes 10, 100 or 10000 (Mark's sizes)",
                    self.range_size
                ),
            )?,
            WorkloadKind::ReadWrite if ![10, 100].contains(&self.range_size) => self.fail(
                "range_size",
                format!(
                    "= {}: read-write takes 10 or 100 (Mark's sizes)",
                    self.range_size
                ),
            )?,
            WorkloadKind::ScanLoop | WorkloadKind::HotPoints if !self.rand_type.is_uniform() => {
                self.fail(
                    "rand_type",
                    format!(
                        "= \"{}\": {kind} reads ids of its own choosing (its hot set), not drawn from a distribution",
                        self.rand_type.name()
                    ),
                )?
            }
            WorkloadKind::ScanLoop => {
                for (field, value) in [
                    ("hot_rows", self.hot_rows),
                    ("scan_rows", self.scan_rows),
                    ("scan_threads", self.scan_threads as u64),
                    ("sample_seconds", self.sample_seconds),
                ] {
                    if value == 0 {
                        self.fail(field, "must be at least 1".into())?;
                    }
                }
                if self.residency_seconds <= self.sample_seconds {
                    self.fail(
                        "residency_seconds",
                        format!(
                            "= {}: not longer than sample_seconds ({}), it would take no sample \
                             while the scans run (one due at the very end of the pass is left out)",
                            self.residency_seconds, self.sample_seconds
                        ),
                    )?;
                }
            }
            WorkloadKind::HotPoints | WorkloadKind::RangeCoveredPk
                if self.random_points as u64 * 2 > self.table_size =>
            {
                self.fail(
                    "random_points",
                    format!(
                        "= {}: {kind} needs table_size ({}) of at least twice that",
                        self.random_points, self.table_size
                    ),
                )?
            }
            _ => {}
        }
        Ok(())
    }

    /// The parameter that tells two workloads of one kind apart in Mark's
    /// order (random-points 10, 100, 1000; read-only 10, 100, 10000).
    fn size(&self) -> u32 {
        match self.kind() {
            Ok(WorkloadKind::ReadOnly | WorkloadKind::ReadWrite) => self.range_size,
            _ => self.random_points,
        }
    }
}

/// The cells of `workloads` on one server, as (workload index, threads),
/// in Mark's order: by kind (`WorkloadKind::ALL`: reads, then writes),
/// then size, then the matrix's order; each workload's thread counts as
/// listed. A workload whose kind is unknown (refused by `validate`) comes
/// last.
pub fn run_order(workloads: &[Workload]) -> Vec<(usize, u32)> {
    let rank = |w: &Workload| {
        w.kind()
            .ok()
            .and_then(|k| WorkloadKind::ALL.iter().position(|&a| a == k))
            .unwrap_or(usize::MAX)
    };
    let mut indices: Vec<usize> = (0..workloads.len()).collect();
    indices.sort_by_key(|&i| (rank(&workloads[i]), workloads[i].size(), i));
    indices
        .into_iter()
        .flat_map(|i| {
            workloads[i]
                .thread_counts()
                .into_iter()
                .map(move |t| (i, t))
        })
        .collect()
}

/// Sets innodb_max_dirty_pages_pct and its lwm to 1 while `f` runs, then
/// restores them (also when `f` fails).
fn with_dirty_pct_1<T>(
    conn: &mut mysql::Conn,
    f: impl FnOnce(&mut mysql::Conn) -> Result<T>,
) -> Result<T> {
    let saved: (f64, f64) = conn
        .query_first("SELECT @@innodb_max_dirty_pages_pct, @@innodb_max_dirty_pages_pct_lwm")?
        .context("cannot read innodb_max_dirty_pages_pct")?;
    // lwm first: it may not exceed the pct
    conn.query_drop("SET GLOBAL innodb_max_dirty_pages_pct_lwm = 1")?;
    conn.query_drop("SET GLOBAL innodb_max_dirty_pages_pct = 1")?;
    let result = f(conn);
    // numeric literals: these variables refuse a string argument; pct
    // first, as the lwm may not exceed it
    conn.query_drop(format!(
        "SET GLOBAL innodb_max_dirty_pages_pct = {}",
        saved.0
    ))?;
    conn.query_drop(format!(
        "SET GLOBAL innodb_max_dirty_pages_pct_lwm = {}",
        saved.1
    ))?;
    result
}

/// Arming events a second of `arm_seconds` when the arming is counted in
/// events (`prepare_data` with a seed): about what oltp_read_write does a
/// second on a server under Valgrind with counting off here.
const ARM_EVENTS_PER_SECOND: u64 = 100;

/// Loads the tables (sysbench prepare) and runs the arming phase: once per
/// server, before any `execute_cell`. Every workload run on the server
/// afterwards must have the same `tables` and `table_size`. With a `seed`
/// the rows and the arming's statements come from it and the arming is a
/// count of events, so every server so prepared holds the same data in
/// the same pages (a cost server whose passes count events); without one
/// sysbench seeds from the clock and the arming lasts `arm_seconds`.
pub fn prepare_data(
    w: &Workload,
    server: &mut Server,
    logs: &Path,
    seed: Option<u64>,
) -> Result<Vec<Phase>> {
    if w.kind()? == WorkloadKind::ScanLoop {
        return scan_loop::prepare(w, server, logs);
    }
    std::fs::create_dir_all(logs)?;
    let mut phases = Phases::new(w);
    let mut conn = server.connect()?;
    conn.query_drop("CREATE DATABASE IF NOT EXISTS sbtest")?;
    let script = lua_dir().join(WorkloadKind::PointsCoveredPk.script());
    let script = script.display().to_string();
    // prepare loads tables in parallel, one thread per table at most
    let max_threads = w.thread_counts().into_iter().max().unwrap_or(1);
    let loaders = w.tables.min(max_threads.max(2));
    phases.time(Step::Prepare, || {
        let args = sysbench_args(
            w,
            server,
            &script,
            None,
            loaders,
            "prepare",
            match seed {
                Some(seed) => Length::Events { count: 0, seed },
                None => Length::Seconds(0),
            },
        );
        sysbench::run(&args, prepare_deadline(w), &logs.join("prepare.log")).map(|_| ())
    })?;
    if w.arm_seconds > 0 {
        // seeded: one connection (with more, which one takes the next
        // event is a race) and purge held, so that no page depends on how
        // far purge got while the arming ran
        let (length, arm_threads, arm_deadline) = match seed {
            Some(seed) => {
                let count = w.arm_seconds * ARM_EVENTS_PER_SECOND;
                // a deadline, not an estimate: a second an event
                (Length::Events { count, seed }, 1, deadline(count))
            }
            None => (
                Length::Seconds(w.arm_seconds),
                max_threads,
                deadline(w.arm_seconds),
            ),
        };
        phases.time(Step::Arm, || {
            let args = sysbench_args(
                w,
                server,
                "oltp_read_write",
                None,
                arm_threads,
                "run",
                length,
            );
            let holder = match seed {
                Some(_) => Some(hold_purge(server)?),
                None => None,
            };
            let armed = with_dirty_pct_1(&mut conn, |_| {
                sysbench::run(&args, arm_deadline, &logs.join("arm.log"))
            });
            drop(holder);
            armed?;
            if seed.is_some() {
                // the history the arming left, purged at one point in
                // time, before anything else runs (and its freed pages
                // arm the eviction clock, as the arming is meant to)
                idle::catch_up_purge(&mut conn, idle::PURGE_LIMIT)?;
            }
            Ok(())
        })?;
    }
    Ok(phases.into_vec())
}

/// Runs one cell of `w` at `threads` on a server that `prepare_data` has
/// loaded: idle wait, warm-up (not measured), the measured run, the
/// diagnostic pass, the profile pass when `profile` says where its stacks
/// go (and `w` asks for one), and for a write test the post-write flush.
pub fn execute_cell(
    w: &Workload,
    threads: u32,
    server: &mut Server,
    logs: &Path,
    profile: Option<&ProfileTarget>,
) -> Result<Outcome> {
    let kind = w.kind()?;
    if kind == WorkloadKind::ScanLoop {
        return scan_loop::execute_cell(w, threads, server, logs);
    }
    let mut run = CellRun::begin(w, kind, threads, server, logs)?;
    let script = lua_dir().join(kind.script()).display().to_string();
    let pid = server.pid;
    // every pass of the cell runs the kind's script for some seconds, and
    // the report lists each command line
    let pass_args = |seconds: u64, out: &mut Outcome| {
        let args = sysbench_args(
            w,
            server,
            &script,
            Some(kind),
            threads,
            "run",
            Length::Seconds(seconds),
        );
        record_command(out, &args);
        args
    };

    if w.warmup_seconds > 0 {
        let log = run.log("warmup");
        run.phase(Step::WarmUp, |_, out| {
            let args = pass_args(w.warmup_seconds, out);
            sysbench::run(&args, deadline(w.warmup_seconds), &log).map(|_| ())
        })?;
    }

    // a traced build's page trace: which of its records the measured run made
    let page_trace = server.dir.page_trace();
    let log = run.log("measured");
    run.phase(Step::Measured, |conn, out| {
        let args = pass_args(w.measure_seconds, out);
        let first = page_trace::claimed(&page_trace);
        let pass = measured_pass(conn, pid, &args, w.measure_seconds, &log, false)?;
        if pass.measured.sysbench.queries == 0 {
            bail!("sysbench ran no queries in the measured run");
        }
        out.page_trace = traced_between(first, &page_trace);
        out.measured = Some(pass.measured);
        out.measured_output = pass.output;
        Ok(())
    })?;

    if w.diagnostic_seconds > 0 {
        let log = run.log("diagnostic");
        run.phase(Step::Diagnostic, |conn, out| {
            let args = pass_args(w.diagnostic_seconds, out);
            let pass = diagnostic_pass(
                conn,
                pid,
                (&args, w.diagnostic_seconds),
                &log,
                &mut out.not_measured,
            )?;
            out.diagnostic = Some(pass);
            Ok(())
        })?;
    }

    if let Some(target) = profile.filter(|_| w.profile_seconds > 0) {
        let args = pass_args(profile_pass::load_seconds(w), &mut run.out);
        let logs = (
            run.log("profile"),
            run.log("profile-gdb"),
            run.log("profile-perf"),
        );
        let pass = run.phase(Step::Profile, |conn, out| {
            profile_pass::run(
                w,
                conn,
                pid,
                &args,
                target,
                (&logs.0, &logs.1, &logs.2),
                &mut out.not_measured,
            )
        });
        keep_profile(pass, &mut run.out)?;
    }

    if kind.is_write() {
        let flushed = run.phase(Step::PostWrite, |conn, _| post_write(conn, w))?;
        run.out.post_write = Some(flushed);
    }
    Ok(run.finish())
}

/// The profile pass's stacks into the outcome, or why they are absent:
/// the cell's measurements stand without them. An interruption stops the
/// cell.
fn keep_profile(pass: Result<ProfilePass>, out: &mut Outcome) -> Result<()> {
    match pass {
        Ok(p) => out.profile = Some(p),
        Err(e) if crate::children::interruption_in(&e).is_some() => return Err(e),
        Err(e) => out.not_measured.push(NotMeasured {
            metric: "profile pass".into(),
            reason: format!("{e:#}"),
        }),
    }
    Ok(())
}

/// The records a traced build added to its page trace since `first` was
/// claimed (absent for a build that does not trace).
fn traced_between(first: Option<u64>, page_trace: &Path) -> Option<PageTrace> {
    let end = page_trace::claimed(page_trace)?;
    Some(PageTrace {
        records: (first?, end),
        replayed: None,
    })
}

/// The diagnostic pass: the load again, with the performance_schema
/// instrument of buf_pool.mutex on. Without the instrument
/// (performance_schema off, or a server that lacks it) the pass still
/// runs; the mutex figures are absent and `not_measured` says why, never 0.
fn diagnostic_pass(
    conn: &mut mysql::Conn,
    pid: u32,
    (args, seconds): (&[String], u64),
    log: &Path,
    not_measured: &mut Vec<NotMeasured>,
) -> Result<Diagnostic> {
    let instrument = metrics::instrument_buf_pool_mutex(conn, true);
    if let Err(e) = &instrument {
        not_measured.push(NotMeasured {
            metric: "buf_pool_mutex".into(),
            reason: format!("{e:#}"),
        });
    }
    let with_mutex = instrument.is_ok();
    let pass = measured_pass(conn, pid, args, seconds, log, with_mutex)?;
    if with_mutex {
        metrics::instrument_buf_pool_mutex(conn, false)?;
    }
    let mutex = pass.buf_pool_mutex;
    Ok(Diagnostic {
        measured: pass.measured,
        buf_pool_mutex_acquisitions: mutex.map(|(c, _)| c),
        buf_pool_mutex_wait_ms: mutex.map(|(_, ps)| ps as f64 / 1e9),
    })
}

/// Mark's post-write step (mark-setup.md 4.3), scaled: ANALYZE TABLE
/// every table, then innodb_max_dirty_pages_pct(_lwm)=1 until the server
/// is idle (dirty pages flushed, purge done) or the time limit, then the
/// old values back. Mark sleeps the whole budget; we stop when idle.
/// (Mark also sets innodb_idle_flush_pct=100, a MySQL variable that
/// MariaDB does not have.)
fn post_write(conn: &mut mysql::Conn, w: &Workload) -> Result<IdleWait> {
    let tables: Vec<String> = (1..=w.tables)
        .map(|t| format!("sbtest.sbtest{t}"))
        .collect();
    conn.query_drop(format!("ANALYZE TABLE {}", tables.join(", ")))?;
    with_dirty_pct_1(conn, |conn| {
        idle::wait_for_server(conn, w.post_write_limit())
    })
}

/// Runs all phases of `w` at its first thread count on a fresh server:
/// `prepare_data`, then `execute_cell`.
pub fn execute(w: &Workload, server: &mut Server, logs: &Path) -> Result<Outcome> {
    let mut phases = prepare_data(w, server, logs, None)?;
    let threads = w.thread_counts().first().copied().unwrap_or(1);
    let mut out = execute_cell(w, threads, server, logs, None)?;
    phases.append(&mut out.phases);
    out.phases = phases;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in WorkloadKind::ALL {
            assert_eq!(k.to_string().parse::<WorkloadKind>().unwrap(), k);
            // serde's kebab-case is the same name
            assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{k}\""));
            let back: WorkloadKind = serde_json::from_str(&format!("\"{k}\"")).unwrap();
            assert_eq!(back, k);
        }
        assert_eq!(WorkloadKind::ALL.len(), 13);
        let writes: Vec<_> = WorkloadKind::ALL
            .into_iter()
            .filter(|k| k.is_write())
            .collect();
        assert_eq!(
            writes,
            [
                WorkloadKind::UpdateIndex,
                WorkloadKind::UpdateNonindex,
                WorkloadKind::ReadWrite
            ]
        );
    }

    #[test]
    fn unknown_workloads_are_refused_with_the_known_names() {
        let err = "points-covered-pkk"
            .parse::<WorkloadKind>()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`points-covered-pkk`")
                && err.contains("points-covered-pk, ")
                && err.contains("read-write"),
            "{err}"
        );
        let w = Workload::new("points-covered-pkk");
        let err = format!("{:#}", w.validate().unwrap_err());
        assert!(
            err.contains("`kind`") && err.contains("unknown workload `points-covered-pkk`"),
            "{err}"
        );
    }

    #[test]
    fn kind_defaults_from_the_name_and_name_may_be_a_label() {
        let w: Workload = toml::from_str("name = \"hot-points\"").unwrap();
        assert_eq!(w.kind().unwrap(), WorkloadKind::HotPoints);
        let w: Workload =
            toml::from_str("name = \"rp1000\"\nkind = \"random-points\"\nrandom_points = 1000")
                .unwrap();
        assert_eq!(w.kind().unwrap(), WorkloadKind::RandomPoints);
        w.validate().unwrap();
        let err = toml::from_str::<Workload>("name = \"x\"\nkind = \"scan\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("scan") && err.contains("update-nonindex"),
            "{err}"
        );
    }

    #[test]
    fn thread_lists() {
        let w: Workload = toml::from_str("name = \"read-only\"\nthreads = [1, 2, 4]").unwrap();
        assert_eq!(w.thread_counts(), [1, 2, 4]);
        assert_eq!(w.threads.to_string(), "1, 2, 4");
        w.validate().unwrap();
        let err = toml::from_str::<Workload>("name = \"read-only\"\nthreads = -1")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 2") && err.contains("`threads`: a thread count"),
            "{err}"
        );
        let w: Workload = toml::from_str("name = \"read-only\"\nthreads = 3").unwrap();
        assert_eq!(w.thread_counts(), [3]);
        assert_eq!(Workload::new("read-only").thread_counts(), [2]);
        for (text, field) in [
            ("threads = []", "`threads` is an empty list"),
            ("threads = [1, 0]", "`threads` = [1, 0]"),
            ("threads = [2, 2]", "repeats"),
        ] {
            let w: Workload = toml::from_str(&format!("name = \"read-only\"\n{text}")).unwrap();
            let err = w.validate().unwrap_err().to_string();
            assert!(err.contains(field), "{text}: {err}");
        }
    }

    #[test]
    fn sizes_are_marks() {
        let bad = |toml_text: &str, field: &str| {
            let w: Workload = toml::from_str(toml_text).unwrap();
            let err = w.validate().unwrap_err().to_string();
            assert!(err.contains(field), "{toml_text}: {err}");
        };
        bad(
            "name = \"random-points\"\nrandom_points = 50",
            "`random_points` = 50",
        );
        bad(
            "name = \"read-only\"\nrange_size = 1000",
            "`range_size` = 1000",
        );
        bad(
            "name = \"read-write\"\nrange_size = 10000",
            "`range_size` = 10000",
        );
        bad(
            "name = \"hot-points\"\ntable_size = 150",
            "`random_points` = 100",
        );
        bad("name = \"update-index\"\ntables = 0", "`tables`");
        bad(
            "name = \"scan-loop\"\nresidency_seconds = 5\nsample_seconds = 5",
            "`residency_seconds` = 5: not longer than sample_seconds",
        );
        bad(
            "name = \"update-index\"\nmeasure_seconds = 0",
            "`measure_seconds`",
        );
    }

    #[test]
    fn the_key_distribution_is_read_and_refused_where_no_ids_are_drawn() {
        let w: Workload = toml::from_str(
            "name = \"read-only-pareto\"\nkind = \"read-only\"\nrand_type = \"pareto\"",
        )
        .unwrap();
        w.validate().unwrap();
        assert_eq!(w.rand_type, crate::record::KeyDistribution::Pareto);
        let uniform = Workload::new("read-only");
        assert_eq!(uniform.rand_type, crate::record::KeyDistribution::Uniform);
        // a uniform workload's record is written as before the field existed
        let json = serde_json::to_string(&uniform).unwrap();
        assert!(!json.contains("rand_type"), "{json}");
        assert!(serde_json::to_string(&w)
            .unwrap()
            .contains("\"rand_type\":\"pareto\""));

        for kind in ["scan-loop", "hot-points"] {
            let w: Workload =
                toml::from_str(&format!("name = \"{kind}\"\nrand_type = \"pareto\"")).unwrap();
            let err = w.validate().unwrap_err().to_string();
            assert!(err.contains("`rand_type` = \"pareto\""), "{err}");
        }
        let err = toml::from_str::<Workload>("name = \"read-only\"\nrand_type = \"zipfian\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("rand_type") && err.contains("pareto"), "{err}");
    }

    #[test]
    fn a_cold_start_is_scan_loops_and_its_filler_needs_one() {
        let w: Workload =
            toml::from_str("name = \"scan-loop\"\ncold_start = true\nfiller_rows = 1150000")
                .unwrap();
        w.validate().unwrap();
        assert!(w.cold_start);
        let json = serde_json::to_string(&w).unwrap();
        assert!(json.contains("\"cold_start\":true") && json.contains("\"filler_rows\":1150000"));
        // a warm start's record is written as before the fields existed
        let warm = serde_json::to_string(&Workload::new("scan-loop")).unwrap();
        assert!(
            !warm.contains("cold_start") && !warm.contains("filler_rows"),
            "{warm}"
        );

        let err = |text: &str| {
            toml::from_str::<Workload>(text)
                .unwrap()
                .validate()
                .unwrap_err()
                .to_string()
        };
        let e = err("name = \"scan-loop\"\nfiller_rows = 10");
        assert!(
            e.contains("`filler_rows` = 10") && e.contains("cold_start = true"),
            "{e}"
        );
        let e = err("name = \"read-only\"\ncold_start = true");
        assert!(
            e.contains("`cold_start` = true") && e.contains("read-only"),
            "{e}"
        );
    }

    #[test]
    fn the_checked_in_matrices_load_unchanged() {
        for file in ["matrix/smoke.toml", "matrix/series.toml"] {
            let text = std::fs::read_to_string(crate::util::repo_root().join(file)).unwrap();
            let value: toml::Table = toml::from_str(&text).unwrap();
            for w in value["workload"].as_array().unwrap() {
                let w: Workload = w.clone().try_into().unwrap();
                w.validate().unwrap();
                assert_eq!(w.kind().unwrap(), WorkloadKind::PointsCoveredPk);
                assert_eq!(w.thread_counts(), [2]);
            }
        }
    }

    #[test]
    fn run_order_is_marks_reads_then_writes() {
        let w = |name: &str, threads: Threads| Workload {
            threads,
            ..Workload::new(name)
        };
        let rp = |n: u32| Workload {
            random_points: n,
            ..Workload::new("random-points")
        };
        let ws = vec![
            w("read-write", Threads::One(2)),                  // 0
            w("points-covered-pk", Threads::List(vec![4, 1])), // 1
            rp(1000),                                          // 2
            w("update-index", Threads::One(2)),                // 3
            rp(10),                                            // 4
            w("read-only", Threads::One(2)),                   // 5
            w("range-notcovered-si", Threads::One(2)),         // 6
        ];
        assert_eq!(
            run_order(&ws),
            [
                (5, 2),
                (4, 2),
                (2, 2),
                (1, 4),
                (1, 1),
                (6, 2),
                (3, 2),
                (0, 2)
            ]
        );
        let ws: Vec<Workload> = WorkloadKind::ALL
            .iter()
            .rev()
            .map(|k| Workload::new(k.name()))
            .collect();
        let kinds: Vec<WorkloadKind> = run_order(&ws)
            .into_iter()
            .map(|(i, _)| ws[i].kind().unwrap())
            .collect();
        assert_eq!(kinds, WorkloadKind::ALL);
    }

    #[test]
    fn every_script_is_in_the_repository_and_builds_on_oltp_common() {
        // scan-loop has tables of its own
        for k in WorkloadKind::ALL
            .into_iter()
            .filter(|&k| k != WorkloadKind::ScanLoop)
        {
            let path = lua_dir().join(k.script());
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(
                text.contains("require(\"oltp_common\")"),
                "{}",
                path.display()
            );
        }
    }

    #[test]
    fn post_write_limit_follows_marks_formula() {
        let mut w = Workload::new("update-index");
        assert_eq!(w.post_write_limit(), Duration::from_secs(60));
        (w.tables, w.table_size) = (8, 10_000_000);
        assert_eq!(w.post_write_limit(), Duration::from_secs(140));
        w.table_size = 1_000_000_000;
        assert_eq!(w.post_write_limit(), Duration::from_secs(1200));
        w.post_write_limit_seconds = Some(5);
        assert_eq!(w.post_write_limit(), Duration::from_secs(5));
    }
}
