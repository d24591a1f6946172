//! The `scan-loop` workload (seed 001): a hot table read by point lookups
//! while another connection scans a table larger than the buffer pool in a
//! loop. Besides the usual counters it measures residency: which share of
//! the hot table's pages is in the pool, and how many of the scanned
//! table's pages sit in the young sublist, sampled from
//! `information_schema.INNODB_BUFFER_PAGE` by tablespace. Not
//! `INNODB_BUFFER_PAGE_LRU`: in 10.11.18 its IS_OLD column is always NULL
//! (a nullable column stored without `set_notnull()`, i_s.cc). Not by
//! TABLE_NAME either: it is NULL for the pages of a table that has left the
//! data dictionary cache, as an idle hot table does between two passes.
//!
//! Sampling walks the whole buffer pool, so it runs in a pass of its own
//! (`residency`): the throughput figures come from the `measured` pass
//! after it, which samples nothing. Each sample's cost is recorded.

use super::cell_run::{measured_pass, record_command, CellRun, Phases};
use super::sysbench::{self, deadline, lua_dir};
use crate::dims::{Engine, Step, WorkloadKind};
use crate::record::{NotMeasured, Outcome, Phase, PoolSettings, Sample, ScanLoopOutcome, Workload};
use crate::server::Server;
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const SCRIPT: &str = "scan_loop.lua";
/// The two tables, as INNODB_SYS_TABLES names them.
const HOT: &str = "sbtest/hot";
const SCAN: &str = "sbtest/scan";

/// The tablespace ids of the hot and the scanned table.
#[derive(Debug, Clone, Copy)]
pub struct Spaces {
    hot: u64,
    scan: u64,
}

impl Spaces {
    /// The spaces as a server of `engine` lists them.
    pub fn read(conn: &mut mysql::Conn, engine: Engine) -> Result<Spaces> {
        // MySQL 8.0 renamed MariaDB's INNODB_SYS_TABLES
        let view = match engine {
            Engine::MariaDb => "INNODB_SYS_TABLES",
            Engine::MySql => "INNODB_TABLES",
        };
        let rows: Vec<(String, u64)> = conn.query(format!(
            "SELECT NAME, SPACE FROM information_schema.{view} \
             WHERE NAME IN ('{HOT}', '{SCAN}')"
        ))?;
        let find = |name: &str| {
            rows.iter()
                .find(|(n, _)| n == name)
                .map(|(_, s)| *s)
                .with_context(|| format!("no tablespace for {name} in {view}"))
        };
        Ok(Spaces {
            hot: find(HOT)?,
            scan: find(SCAN)?,
        })
    }
}

impl ScanLoopOutcome {
    /// The hot share resident, averaged over the samples of the second
    /// half of the residency pass (the model averages the same window).
    pub fn hot_kept(&self) -> Option<f64> {
        let w = self.window();
        if w.is_empty() || self.hot_pages == 0 {
            return None;
        }
        let sum: f64 = w
            .iter()
            .map(|s| s.hot_resident as f64 / self.hot_pages as f64)
            .sum();
        Some(sum / w.len() as f64)
    }

    /// Scanned pages in the young sublist, averaged over the same window.
    pub fn scan_young_avg(&self) -> Option<f64> {
        let w = self.window();
        if w.is_empty() {
            return None;
        }
        Some(w.iter().map(|s| s.scan_young as f64).sum::<f64>() / w.len() as f64)
    }

    /// The rate at which scanned pages enter the young sublist while the
    /// scans run, in pages a second (seed 001 counted about 35): the
    /// least-squares slope of the scanned table's young pages over the
    /// samples of the pass. A rate, not a level: what the load left young
    /// before the scans started is the intercept, not the slope.
    pub fn scan_young_per_s(&self) -> Option<f64> {
        let points: Vec<(f64, f64)> = self
            .during_pass()
            .map(|s| (s.t_s, s.scan_young as f64))
            .collect();
        crate::stats::slope(&points)
    }

    /// What the sampling cost: the share of the residency pass spent in
    /// samples, and the longest sample.
    pub fn sampling_cost(&self) -> (f64, f64) {
        let total_ms: f64 = self.samples.iter().map(|s| s.sample_ms).sum();
        let max_ms = self.samples.iter().map(|s| s.sample_ms).fold(0.0, f64::max);
        let share = total_ms / 1000.0 / (self.residency_seconds.max(1) as f64);
        (share, max_ms)
    }

    /// The samples taken while lookups and scans ran: from the one just
    /// before the scans started (t = 0) to the last one before the pass
    /// ended. One due at the very end of the pass is left out: sysbench
    /// may have stopped before it was taken.
    pub fn during_pass(&self) -> impl Iterator<Item = &Sample> {
        let end = self.residency_seconds as f64;
        self.samples.iter().filter(move |s| s.t_s < end)
    }

    fn window(&self) -> Vec<&Sample> {
        let half = self.residency_seconds as f64 / 2.0;
        self.during_pass()
            .filter(|s| s.t_s > 0.0 && s.t_s >= half)
            .collect()
    }
}

/// Hot lookups and scan passes, from the records the script prints at the
/// end of each thread (`scan-loop: role=hot thread=3 events=12345`). A
/// line may hold more than one record: threads that end together can glue
/// theirs (seen with sysbench 1.0.20 when the script used `print`).
pub fn parse_events(output: &str) -> Result<(u64, u64)> {
    let (mut hot, mut scans, mut lines) = (0u64, 0u64, 0usize);
    let records = output
        .lines()
        .filter(|line| line.trim_start().starts_with(RECORD))
        .flat_map(|line| line.split(RECORD).skip(1));
    for rest in records {
        let field = |name: &str| {
            rest.split_whitespace()
                .find_map(|f| f.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
        };
        let events: u64 = field("events")
            .and_then(|v| v.parse().ok())
            .with_context(|| format!("no events= in `{RECORD}{rest}`"))?;
        match field("role") {
            Some("hot") => hot += events,
            Some("scan") => scans += events,
            other => bail!("unknown role {other:?} in `{RECORD}{rest}`"),
        }
        lines += 1;
    }
    if lines == 0 {
        bail!("sysbench printed no `scan-loop:` lines (is workloads/lua/scan_loop.lua ours?)");
    }
    Ok((hot, scans))
}

/// What starts each of the script's records.
const RECORD: &str = "scan-loop:";

/// sysbench's arguments for the script; `scan_threads` of the threads scan.
fn args(
    w: &Workload,
    server: &Server,
    hot_threads: u32,
    scan_threads: u32,
    command: &str,
    seconds: u64,
) -> Vec<String> {
    let mut a = vec![
        lua_dir().join(SCRIPT).display().to_string(),
        "--db-driver=mysql".into(),
        format!("--mysql-socket={}", server.dir.socket.display()),
        "--mysql-user=root".into(),
        format!("--config-file={}", server.dir.sysbench_options().display()),
        "--mysql-db=sbtest".into(),
        "--rand-type=uniform".into(),
        format!("--hot-rows={}", w.hot_rows),
        format!("--scan-rows={}", w.scan_rows),
        format!("--cold-rows={}", w.cold_rows),
        format!("--scan-pause-ms={}", w.scan_pause_ms),
        format!("--filler-rows={}", w.filler_rows),
        format!("--scan-threads={scan_threads}"),
        format!("--threads={}", hot_threads + scan_threads),
    ];
    if w.rate > 0 && command != "prepare" {
        // sysbench's rate counts every event; a scan is one event a pass
        a.push(format!("--rate={}", w.rate));
    }
    if command != "prepare" {
        a.push(format!("--time={seconds}"));
        a.push("--events=0".into());
        a.push("--report-interval=0".into());
    }
    a.push(command.to_string());
    a
}

/// Loads the tables (once per server, like `prepare_data`) and analyzes
/// the two that are read, so that innodb_index_stats gives their leaf
/// pages.
pub fn prepare(w: &Workload, server: &mut Server, logs: &Path) -> Result<Vec<Phase>> {
    std::fs::create_dir_all(logs)?;
    let mut phases = Phases::new(w);
    let mut conn = server.connect()?;
    conn.query_drop("CREATE DATABASE IF NOT EXISTS sbtest")?;
    phases.time(Step::Prepare, || {
        let a = args(w, server, 1, 1, "prepare", 0);
        let rows = w.hot_rows + w.scan_rows + w.cold_rows + w.filler_rows;
        let limit = Duration::from_secs(120 + rows / 2_000);
        sysbench::run(&a, limit, &logs.join("prepare.log")).map(|_| ())
    })?;
    phases.time_as(Step::Prepare, "analyze", || {
        conn.query_drop("ANALYZE TABLE sbtest.hot, sbtest.scan")
            .map_err(Into::into)
    })?;
    Ok(phases.into_vec())
}

fn settings(conn: &mut mysql::Conn) -> Result<PoolSettings> {
    let pool_pages = crate::metrics::status_counter(conn, "Innodb_buffer_pool_pages_total")?
        .context("the server shows no Innodb_buffer_pool_pages_total")?;
    let row: (u32, u32, u32) = conn
        .query_first(
            "SELECT @@innodb_old_blocks_pct, @@innodb_old_blocks_time, @@innodb_lru_scan_depth",
        )?
        .context("cannot read the buffer pool settings")?;
    Ok(PoolSettings {
        pool_pages,
        old_blocks_pct: row.0,
        old_blocks_time_ms: row.1,
        lru_scan_depth: row.2,
    })
}

/// One residency sample at `t_s`: the B-tree pages of both tables.
pub fn sample(conn: &mut mysql::Conn, spaces: Spaces, t_s: f64) -> Result<Sample> {
    let start = Instant::now();
    // IS_OLD is a number in MariaDB (0 or 1) and `YES` or `NO` in MySQL:
    // compared as text, young is the same test on both
    let rows: Vec<(u64, u8, u64)> = conn
        .query(format!(
            "SELECT SPACE, CAST(IS_OLD AS CHAR) IN ('0', 'NO') AS young, COUNT(*) \
             FROM information_schema.INNODB_BUFFER_PAGE \
             WHERE SPACE IN ({}, {}) AND PAGE_TYPE = 'INDEX' GROUP BY SPACE, young",
            spaces.hot, spaces.scan
        ))
        .context("cannot read information_schema.INNODB_BUFFER_PAGE")?;
    let sample_ms = start.elapsed().as_secs_f64() * 1000.0;
    let made_young = crate::metrics::status_counter(conn, "Innodb_buffer_pool_pages_made_young")?
        .context("the server shows no Innodb_buffer_pool_pages_made_young")?;
    let mut s = Sample {
        t_s,
        hot_resident: 0,
        hot_young: 0,
        scan_resident: 0,
        scan_young: 0,
        made_young,
        sample_ms,
    };
    for (space, young, n) in rows {
        let young = young == 1;
        let (resident, young_count) = if space == spaces.hot {
            (&mut s.hot_resident, &mut s.hot_young)
        } else {
            (&mut s.scan_resident, &mut s.scan_young)
        };
        *resident += n;
        if young {
            *young_count += n;
        }
    }
    Ok(s)
}

/// The leaf pages of `sbtest.<table>`'s primary key, as InnoDB's
/// persistent statistics count them.
fn leaf_pages(conn: &mut mysql::Conn, table: &str) -> Result<u64> {
    conn.query_first(format!(
        "SELECT stat_value FROM mysql.innodb_index_stats WHERE database_name = 'sbtest' \
         AND table_name = '{table}' AND index_name = 'PRIMARY' AND stat_name = 'n_leaf_pages'"
    ))?
    .with_context(|| format!("no n_leaf_pages for sbtest.{table} in mysql.innodb_index_stats"))
}

/// Refuses a pool where the question cannot be asked: one the page cleaner
/// keeps mostly free, or one the hot table alone fills more than half of.
fn check_room(w: &Workload, pool: &PoolSettings, hot_leaf_pages: u64) -> Result<()> {
    if u64::from(pool.lru_scan_depth) * 2 > pool.pool_pages {
        bail!(
            "workload `{}`: innodb_lru_scan_depth = {} against a pool of {} pages: the page \
             cleaner would keep most of the pool free and no table resident; set a smaller \
             innodb_lru_scan_depth in the variant's settings (Mark's my.cnf has 5000)",
            w.name,
            pool.lru_scan_depth,
            pool.pool_pages
        );
    }
    if hot_leaf_pages * 2 > pool.pool_pages {
        bail!(
            "workload `{}`: the hot table has {hot_leaf_pages} leaf pages, the pool {} pages; \
             hot_rows must leave room for the scan (at most half the pool)",
            w.name,
            pool.pool_pages
        );
    }
    Ok(())
}

/// Samples the pool on its own connection every `every`, from `every` on,
/// until `done` is set; the samples taken.
fn sample_until(
    mut conn: mysql::Conn,
    spaces: Spaces,
    every: Duration,
    done: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Result<Vec<Sample>>> {
    std::thread::spawn(move || -> Result<Vec<Sample>> {
        let start = Instant::now();
        let mut taken = Vec::new();
        let mut next = every;
        loop {
            while start.elapsed() < next {
                if done.load(Ordering::SeqCst) {
                    return Ok(taken);
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            taken.push(sample(&mut conn, spaces, next.as_secs_f64())?);
            next += every;
        }
    })
}

/// Why the shares are not of the whole hot table, when the warm-up left
/// some of its leaf pages out of the pool.
fn hot_table_short(hot_pages: u64, hot_leaf_pages: u64) -> Option<NotMeasured> {
    (hot_pages < hot_leaf_pages).then(|| NotMeasured {
        metric: "hot_pages".into(),
        reason: format!(
            "the warm-up left {} of the hot table's {hot_leaf_pages} leaf pages out of the pool: \
             shares are of the {hot_pages} resident when the scans started",
            hot_leaf_pages - hot_pages
        ),
    })
}

/// The residency pass: sysbench's hot lookups and scans under `args`,
/// sampled on a connection of its own; its samples are added to
/// `samples`. Returns the hot lookups and the scans it made.
fn residency_pass(
    w: &Workload,
    server: &Server,
    args: &[String],
    spaces: Spaces,
    log: &Path,
    samples: &mut Vec<Sample>,
) -> Result<(u64, u64)> {
    let done = Arc::new(AtomicBool::new(false));
    let sampler = sample_until(
        server.connect()?,
        spaces,
        Duration::from_secs(w.sample_seconds),
        done.clone(),
    );
    let run = sysbench::run(args, deadline(w.residency_seconds), log);
    done.store(true, Ordering::SeqCst);
    let taken = sampler
        .join()
        .map_err(|_| anyhow::anyhow!("the residency sampler panicked"))??;
    let run = run?;
    // a sample taken after the pass (its last event can run late); one due
    // at its very end is kept but read by no figure
    // (`ScanLoopOutcome::during_pass`)
    samples.extend(
        taken
            .into_iter()
            .filter(|s| s.t_s <= w.residency_seconds as f64),
    );
    parse_events(&run.output)
}

/// The filler table's pages read in full: its clustered index, row by row.
const READ_FILLER: &str = "SELECT SUM(LENGTH(pad)) FROM sbtest.filler";

/// Runs one cell: for a cold start, the server restarted; idle wait; for
/// a cold start, the filler table read; warm-up with hot lookups only (it
/// brings the hot table in: the first sample counts its pages); the
/// residency pass (scans start, samples every `sample_seconds`); the
/// measured pass (no sampling); a last sample.
pub fn execute_cell(
    w: &Workload,
    threads: u32,
    server: &mut Server,
    logs: &Path,
) -> Result<Outcome> {
    let mut run = CellRun::begin(w, WorkloadKind::ScanLoop, threads, server, logs)?;
    if w.cold_start && w.filler_rows > 0 {
        run.named_phase(Step::WarmUp, "filler", |conn, _| {
            conn.query_drop(READ_FILLER).map_err(Into::into)
        })?;
    }
    let pid = server.pid;
    let pool = settings(&mut run.conn)?;
    let spaces = Spaces::read(&mut run.conn, server.engine)?;
    let hot_leaf_pages = leaf_pages(&mut run.conn, "hot")?;
    let scan_pages = leaf_pages(&mut run.conn, "scan")?;
    check_room(w, &pool, hot_leaf_pages)?;

    if w.warmup_seconds > 0 {
        let log = run.log("warmup");
        run.phase(Step::WarmUp, |_, out| {
            let a = args(w, server, threads, 0, "run", w.warmup_seconds);
            record_command(out, &a);
            sysbench::run(&a, deadline(w.warmup_seconds), &log).map(|_| ())
        })?;
    }

    // the hot table as the warm-up left it: the denominator of every share
    let start = sample(&mut run.conn, spaces, 0.0)?;
    let hot_pages = start.hot_resident;
    run.out
        .not_measured
        .extend(hot_table_short(hot_pages, hot_leaf_pages));
    let mut samples = vec![start];
    let log = run.log("residency");
    let (residency_hot, residency_scans) = run.phase(Step::Residency, |_, out| {
        let a = args(
            w,
            server,
            threads,
            w.scan_threads,
            "run",
            w.residency_seconds,
        );
        record_command(out, &a);
        residency_pass(w, server, &a, spaces, &log, &mut samples)
    })?;

    let log = run.log("measured");
    let (hot, scans) = run.phase(Step::Measured, |conn, out| {
        let a = args(w, server, threads, w.scan_threads, "run", w.measure_seconds);
        record_command(out, &a);
        let pass = measured_pass(conn, pid, &a, w.measure_seconds, &log, false)?;
        let events = parse_events(&pass.output)?;
        out.measured = Some(pass.measured);
        out.measured_output = pass.output;
        Ok(events)
    })?;
    let end = sample(
        &mut run.conn,
        spaces,
        (w.residency_seconds + w.measure_seconds) as f64,
    )?;
    if residency_scans == 0 {
        run.out.not_measured.push(NotMeasured {
            metric: "scan_passes".into(),
            reason: format!(
                "no scan pass finished within the {} s residency pass",
                w.residency_seconds
            ),
        });
    }
    let per_s = |n: u64, s: u64| n as f64 / s.max(1) as f64;
    run.out.scan_loop = Some(ScanLoopOutcome {
        settings: pool,
        hot_pages,
        hot_leaf_pages: Some(hot_leaf_pages),
        scan_pages,
        warmup_seconds: w.warmup_seconds,
        residency_seconds: w.residency_seconds,
        sample_seconds: w.sample_seconds,
        scan_pause_ms: Some(w.scan_pause_ms),
        samples,
        residency_hot_lookups_per_s: per_s(residency_hot, w.residency_seconds),
        residency_scans_per_s: per_s(residency_scans, w.residency_seconds),
        hot_lookups_per_s: per_s(hot, w.measure_seconds),
        scans_per_s: per_s(scans, w.measure_seconds),
        end,
        model_policy: None,
    });
    Ok(run.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_by_role_and_bad_lines_named() {
        let out = "SQL statistics:\nscan-loop: role=scan thread=0 events=7\n\
                   scan-loop: role=hot thread=1 events=1000\nscan-loop: role=hot thread=2 events=24\n";
        assert_eq!(parse_events(out).unwrap(), (1024, 7));
        let e = parse_events("queries: 5\n").unwrap_err().to_string();
        assert!(e.contains("no `scan-loop:` lines"), "{e}");
        let e = parse_events("scan-loop: role=cold thread=0 events=1\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cold"), "{e}");
        let e = parse_events("scan-loop: role=hot thread=0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("no events="), "{e}");
    }

    #[test]
    fn records_glued_onto_one_line_are_each_counted() {
        // What a CI run printed when two threads ended together.
        let out =
            "scan-loop: role=hot thread=1 events=1767scan-loop: role=scan thread=0 events=309\n";
        assert_eq!(parse_events(out).unwrap(), (1767, 309));
    }

    fn s(t_s: f64, hot_resident: u64, scan_young: u64, ms: f64) -> Sample {
        Sample {
            t_s,
            hot_resident,
            hot_young: 0,
            scan_resident: 0,
            scan_young,
            made_young: 0,
            sample_ms: ms,
        }
    }

    #[test]
    fn kept_averages_the_second_half_and_sampling_cost_is_a_share() {
        let o = ScanLoopOutcome {
            settings: PoolSettings {
                pool_pages: 4096,
                old_blocks_pct: 37,
                old_blocks_time_ms: 1000,
                lru_scan_depth: 1024,
            },
            hot_pages: 100,
            hot_leaf_pages: Some(99),
            scan_pages: 10_000,
            warmup_seconds: 10,
            residency_seconds: 40,
            sample_seconds: 10,
            scan_pause_ms: Some(0),
            // t=0 and t=10 are outside the window [20, 40); t=40, at the
            // very end of the pass, is read by no figure
            samples: vec![
                s(0.0, 100, 0, 100.0),
                s(10.0, 90, 50, 100.0),
                s(20.0, 80, 100, 100.0),
                s(30.0, 60, 200, 100.0),
                s(40.0, 5, 900, 400.0),
            ],
            residency_hot_lookups_per_s: 1.0,
            residency_scans_per_s: 1.0,
            hot_lookups_per_s: 1.0,
            scans_per_s: 1.0,
            end: s(60.0, 30, 300, 100.0),
            model_policy: None,
        };
        assert!((o.hot_kept().unwrap() - 0.7).abs() < 1e-12);
        assert!((o.scan_young_avg().unwrap() - 150.0).abs() < 1e-12);
        // young scan pages 0, 50, 100, 200 at 0, 10, 20, 30 s: the
        // least-squares slope is 6.5 a second, whatever the level at t=0
        assert!((o.scan_young_per_s().unwrap() - 6.5).abs() < 1e-12);
        let shifted = ScanLoopOutcome {
            samples: o
                .samples
                .iter()
                .map(|x| Sample {
                    scan_young: x.scan_young + 4000,
                    ..*x
                })
                .collect(),
            ..o.clone()
        };
        assert!((shifted.scan_young_per_s().unwrap() - 6.5).abs() < 1e-12);
        let (share, max) = o.sampling_cost();
        assert!((share - 0.8 / 40.0).abs() < 1e-12);
        assert_eq!(max, 400.0);
        let empty = ScanLoopOutcome {
            samples: vec![s(0.0, 100, 0, 1.0)],
            ..o
        };
        assert_eq!(empty.hot_kept(), None);
    }
}
