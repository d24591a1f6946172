//! Metrics: counters read from the server and from /proc before and after
//! the measured interval, and what they come to per query; and the CPU the
//! rest of the host used meanwhile (a busy host makes a run doubtful).

use crate::procfs::{self, ProcStat};
use crate::record::{HostCpu, Measured, OtherCpu, ProcCounters, Snapshot, SysbenchReport};
use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use std::collections::BTreeMap;

/// The status counters whose deltas every run records.
pub const STATUS_COUNTERS: &[&str] = &[
    "Innodb_buffer_pool_pages_made_young",
    "Innodb_buffer_pool_pages_made_not_young",
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_buffer_pool_pages_free",
    "Questions",
];

/// Counters read when the server has them: a missing one is recorded as
/// absent, never as 0. Rows changed come from the handler counters (all
/// engines, internal temporary tables excluded: MariaDB counts those in
/// Handler_tmp_*), as MariaDB 10.11 has no Innodb_rows_* counters. The
/// flush counters say whether an LRU or flush-list sweep ran (10.5 has no
/// `_LRU_freed`).
pub const OPTIONAL_COUNTERS: &[&str] = &[
    "Handler_write",
    "Handler_update",
    "Handler_delete",
    "Innodb_buffer_pool_pages_LRU_flushed",
    "Innodb_buffer_pool_pages_LRU_freed",
    "Innodb_buffer_pool_pages_flushed",
    "Innodb_buffer_pool_read_ahead",
    "Innodb_buffer_pool_read_ahead_evicted",
    "Innodb_buffer_pool_pages_total",
];

/// performance_schema's names of the mutex an LRU promotion takes:
/// MariaDB's `buf_pool.mutex`, MySQL's `buf_pool->LRU_list_mutex` (MySQL
/// split the pool's mutex). A server has one of them; the record's
/// `buf_pool_mutex` figures are that one's.
pub const PROMOTION_MUTEXES: &[&str] = &[
    "wait/synch/mutex/innodb/buf_pool_mutex",
    "wait/synch/mutex/innodb/buf_pool_LRU_list_mutex",
];

/// `PROMOTION_MUTEXES` as an SQL list.
fn promotion_mutexes_sql() -> String {
    PROMOTION_MUTEXES
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(",")
}

impl Snapshot {
    /// buf_pool.mutex acquisitions and wait picoseconds between two
    /// snapshots; None unless both read the instrument.
    pub fn buf_pool_mutex_delta(before: &Snapshot, after: &Snapshot) -> Option<(u64, u64)> {
        let ((c0, w0), (c1, w1)) = (before.buf_pool_mutex?, after.buf_pool_mutex?);
        Some((c1.saturating_sub(c0), w1.saturating_sub(w0)))
    }

    pub fn take(conn: &mut mysql::Conn, pid: u32, with_mutex: bool) -> Result<Snapshot> {
        let host_cpu = parse_proc_stat(&procfs::host_file("stat"));
        Ok(Snapshot {
            monotonic_seconds: monotonic_seconds(),
            host_cpu,
            status: status_counters(conn)?,
            process: proc_counters(pid)?,
            buf_pool_mutex: if with_mutex {
                Some(buf_pool_mutex(conn)?)
            } else {
                None
            },
        })
    }

    /// A counter's growth; 0 only when `take` had it both times (the
    /// required counters always are: `status_counters` checks).
    fn delta(&self, later: &Snapshot, name: &str) -> u64 {
        self.delta_if_read(later, name).unwrap_or(0)
    }

    fn delta_if_read(&self, later: &Snapshot, name: &str) -> Option<u64> {
        Some(
            later
                .status
                .get(name)?
                .saturating_sub(*self.status.get(name)?),
        )
    }
}

/// Counters that MySQL keeps out of SHOW STATUS but shows per buffer pool
/// instance in `information_schema.INNODB_BUFFER_POOL_STATS` (MariaDB shows
/// them in both): the status name, and the column summed over instances.
const IN_POOL_STATS: &[(&str, &str)] = &[
    ("Innodb_buffer_pool_pages_made_young", "PAGES_MADE_YOUNG"),
    (
        "Innodb_buffer_pool_pages_made_not_young",
        "PAGES_NOT_MADE_YOUNG",
    ),
];

/// One counter by its status name, from SHOW STATUS or, for one of
/// `IN_POOL_STATS` that SHOW STATUS lacks, from the pool statistics;
/// None when the server has it in neither.
pub fn status_counter(conn: &mut mysql::Conn, name: &str) -> Result<Option<u64>> {
    // the names are the tool's own: no quoting is needed
    let row: Option<(String, String)> = conn
        .query_first(format!("SHOW GLOBAL STATUS WHERE Variable_name = '{name}'"))
        .with_context(|| format!("cannot read status {name}"))?;
    match row.and_then(|(_, v)| v.parse().ok()) {
        Some(v) => Ok(Some(v)),
        None => from_pool_stats(conn, name),
    }
}

/// `name` summed over the pool's instances, when it is one of
/// `IN_POOL_STATS`.
fn from_pool_stats(conn: &mut mysql::Conn, name: &str) -> Result<Option<u64>> {
    let Some((_, column)) = IN_POOL_STATS.iter().find(|(n, _)| *n == name) else {
        return Ok(None);
    };
    let sum: Option<Option<u64>> = conn
        .query_first(format!(
            "SELECT CAST(SUM({column}) AS UNSIGNED) FROM information_schema.INNODB_BUFFER_POOL_STATS"
        ))
        .with_context(|| format!("cannot read {column} from INNODB_BUFFER_POOL_STATS"))?;
    Ok(sum.flatten())
}

/// The required counters (all of them, or an error naming the missing
/// ones) and whichever optional counters the server has.
pub fn status_counters(conn: &mut mysql::Conn) -> Result<BTreeMap<String, u64>> {
    let list = STATUS_COUNTERS
        .iter()
        .chain(OPTIONAL_COUNTERS)
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(",");
    let rows: Vec<(String, String)> = conn
        .query(format!(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ({list})"
        ))
        .context("SHOW GLOBAL STATUS failed")?;
    let mut map: BTreeMap<String, u64> = rows
        .into_iter()
        .filter_map(|(k, v)| Some((canonical_name(&k).to_string(), v.parse().ok()?)))
        .collect();
    for (name, _) in IN_POOL_STATS {
        if !map.contains_key(*name) {
            if let Some(v) = from_pool_stats(conn, name)? {
                map.insert(name.to_string(), v);
            }
        }
    }
    let missing: Vec<&str> = STATUS_COUNTERS
        .iter()
        .copied()
        .filter(|n| !map.contains_key(*n))
        .collect();
    anyhow::ensure!(
        missing.is_empty(),
        "the server shows no status counter {}",
        missing.join(", ")
    );
    Ok(map)
}

/// Our spelling of a counter the server named: the server may spell a
/// name in another case than its source does (10.11 shows
/// `Innodb_buffer_pool_pages_lru_flushed` for `buffer_pool_pages_LRU_flushed`),
/// and `SHOW STATUS ... WHERE Variable_name IN` matches either.
fn canonical_name(shown: &str) -> &str {
    STATUS_COUNTERS
        .iter()
        .chain(OPTIONAL_COUNTERS)
        .find(|n| n.eq_ignore_ascii_case(shown))
        .copied()
        .unwrap_or(shown)
}

fn monotonic_seconds() -> f64 {
    let ts = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// The aggregate `cpu` line of /proc/stat.
fn parse_proc_stat(stat: &str) -> Option<HostCpu> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal [guest guest_nice]
    let field = |i: usize| v.get(i).copied();
    let busy = field(0)? + field(1)? + field(2)? + field(5)? + field(6)? + field(7)?;
    Some(HostCpu {
        busy_ticks: busy,
        total_ticks: busy + field(3)? + field(4)?,
    })
}

impl OtherCpu {
    /// From snapshots around a sysbench run that used `sysbench_cpu`
    /// seconds; None when /proc/stat or sysbench's time could not be read.
    pub fn between(
        before: &Snapshot,
        after: &Snapshot,
        sysbench_cpu: Option<f64>,
    ) -> Option<OtherCpu> {
        let (h0, h1) = (before.host_cpu?, after.host_cpu?);
        OtherCpu::compute(
            h1.busy_ticks.checked_sub(h0.busy_ticks)?,
            h1.total_ticks.checked_sub(h0.total_ticks)?,
            after
                .process
                .cpu_ticks
                .checked_sub(before.process.cpu_ticks)?,
            sysbench_cpu?,
            after.monotonic_seconds - before.monotonic_seconds,
            procfs::clock_ticks_per_second(),
        )
    }

    /// The arithmetic: host busy minus server minus sysbench. The kernel
    /// samples CPU time in ticks, so a quiet host can come out slightly
    /// below zero: that is 0 other CPU, not an error.
    fn compute(
        host_busy_ticks: u64,
        host_total_ticks: u64,
        server_ticks: u64,
        sysbench_seconds: f64,
        wall_seconds: f64,
        ticks_per_second: f64,
    ) -> Option<OtherCpu> {
        if wall_seconds <= 0.0 || host_total_ticks == 0 {
            return None;
        }
        let host_busy = host_busy_ticks as f64 / ticks_per_second;
        let server = server_ticks as f64 / ticks_per_second;
        let other = (host_busy - server - sysbench_seconds).max(0.0);
        Some(OtherCpu {
            cores_busy: other / wall_seconds,
            share: other * ticks_per_second / host_total_ticks as f64,
            wall_seconds,
            host_busy_seconds: host_busy,
            server_cpu_seconds: server,
            sysbench_cpu_seconds: sysbench_seconds,
        })
    }
}

/// Enables or disables counting and timing of waits on the mutex a
/// promotion takes (a run-time switch: the mutex was registered at
/// start-up because performance_schema is on).
pub fn instrument_buf_pool_mutex(conn: &mut mysql::Conn, on: bool) -> Result<()> {
    let flag = if on { "YES" } else { "NO" };
    let names = promotion_mutexes_sql();
    conn.exec_drop(
        format!(
            "UPDATE performance_schema.setup_instruments SET ENABLED = ?, TIMED = ? WHERE NAME IN ({names})"
        ),
        (flag, flag),
    )
    .context("cannot switch the buf_pool_mutex instrument")?;
    let enabled: Vec<String> = conn.query(format!(
        "SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME IN ({names})"
    ))?;
    anyhow::ensure!(
        enabled.len() == 1 && enabled[0] == flag,
        "performance_schema has no instrument of {} (is performance_schema on?)",
        PROMOTION_MUTEXES.join(" or ")
    );
    Ok(())
}

/// Acquisitions of, and picoseconds waited for, the mutex a promotion
/// takes, since the server started.
pub fn buf_pool_mutex(conn: &mut mysql::Conn) -> Result<(u64, u64)> {
    let row: Option<(u64, u64)> = conn
        .query_first(format!(
            "SELECT COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name \
             WHERE EVENT_NAME IN ({})",
            promotion_mutexes_sql()
        ))
        .context("cannot read buf_pool_mutex waits from performance_schema")?;
    row.with_context(|| {
        format!(
            "performance_schema has no row for {}",
            PROMOTION_MUTEXES.join(" or ")
        )
    })
}

pub fn proc_counters(pid: u32) -> Result<ProcCounters> {
    let cpu_ticks = ProcStat::of(pid as i32)
        .with_context(|| format!("process {pid} is gone, or its stat is unreadable"))?
        .own_ticks();
    let statuses = procfs::thread_statuses(pid)?;
    let context_switches = statuses
        .iter()
        .map(|s| parse_status_context_switches(s))
        .sum();
    let threads = statuses.len() as u64;
    Ok(ProcCounters {
        cpu_ticks,
        context_switches,
        threads,
    })
}

fn parse_status_context_switches(status: &str) -> u64 {
    status
        .lines()
        .filter(|l| {
            l.starts_with("voluntary_ctxt_switches") || l.starts_with("nonvoluntary_ctxt_switches")
        })
        .filter_map(|l| l.split(':').nth(1)?.trim().parse::<u64>().ok())
        .sum()
}

/// Parses the closing statistics of `sysbench ... run`. A missing line is
/// an error that names it.
pub fn parse_sysbench(output: &str) -> Result<SysbenchReport> {
    fn line<'a>(output: &'a str, label: &str) -> Result<&'a str> {
        output
            .lines()
            .find_map(|l| l.trim_start().strip_prefix(label).map(str::trim))
            .with_context(|| format!("sysbench output has no `{label}` line"))
    }
    // "12345  (617.12 per sec.)"
    fn count_and_rate(text: &str) -> Result<(u64, f64)> {
        let count = text.split_whitespace().next().unwrap_or("").parse()?;
        let rate = text
            .split('(')
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or("")
            .parse()?;
        Ok((count, rate))
    }
    let (queries, qps) =
        count_and_rate(line(output, "queries:")?).context("in the `queries:` line")?;
    let (transactions, tps) =
        count_and_rate(line(output, "transactions:")?).context("in the `transactions:` line")?;
    let (ignored_errors, _) = count_and_rate(line(output, "ignored errors:")?)
        .context("in the `ignored errors:` line")?;
    let number = |label: &str| -> Result<f64> {
        line(output, label)?
            .trim_end_matches('s')
            .parse::<f64>()
            .with_context(|| format!("in the `{label}` line"))
    };
    Ok(SysbenchReport {
        queries,
        qps,
        transactions,
        tps,
        p95_ms: number("95th percentile:")?,
        avg_ms: number("avg:")?,
        seconds: number("total time:")?,
        ignored_errors,
    })
}

impl Measured {
    pub fn from(sysbench: SysbenchReport, before: &Snapshot, after: &Snapshot) -> Measured {
        let q = sysbench.queries.max(1) as f64;
        let made_young = before.delta(after, "Innodb_buffer_pool_pages_made_young");
        let not_young = before.delta(after, "Innodb_buffer_pool_pages_made_not_young");
        let read_requests = before.delta(after, "Innodb_buffer_pool_read_requests");
        let cs = after
            .process
            .context_switches
            .saturating_sub(before.process.context_switches);
        let cpu = after
            .process
            .cpu_ticks
            .saturating_sub(before.process.cpu_ticks) as f64
            / procfs::clock_ticks_per_second();
        let mutex = Snapshot::buf_pool_mutex_delta(before, after);
        Measured {
            pages_made_young: made_young,
            pages_made_not_young: not_young,
            read_requests,
            reads: before.delta(after, "Innodb_buffer_pool_reads"),
            context_switches: cs,
            cpu_seconds: cpu,
            pages_made_young_per_query: made_young as f64 / q,
            pages_made_not_young_per_query: not_young as f64 / q,
            read_requests_per_query: read_requests as f64 / q,
            cs_per_query: cs as f64 / q,
            cpu_ms_per_query: cpu * 1000.0 / q,
            buf_pool_mutex_per_query: mutex.map(|(c, _)| c as f64 / q),
            buf_pool_mutex_wait_us_per_query: mutex.map(|(_, ps)| ps as f64 / 1e6 / q),
            rows_inserted: before.delta_if_read(after, "Handler_write"),
            rows_updated: before.delta_if_read(after, "Handler_update"),
            rows_deleted: before.delta_if_read(after, "Handler_delete"),
            lru_flushed: before.delta_if_read(after, "Innodb_buffer_pool_pages_LRU_flushed"),
            lru_freed: before.delta_if_read(after, "Innodb_buffer_pool_pages_LRU_freed"),
            pages_flushed: before.delta_if_read(after, "Innodb_buffer_pool_pages_flushed"),
            read_ahead: before.delta_if_read(after, "Innodb_buffer_pool_read_ahead"),
            read_ahead_evicted: before
                .delta_if_read(after, "Innodb_buffer_pool_read_ahead_evicted"),
            pool_pages: after.status.get("Innodb_buffer_pool_pages_total").copied(),
            other_cpu: None,
            sysbench,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYSBENCH_RUN: &str = "\
SQL statistics:
    queries performed:
        read:                            61710
        write:                           0
        other:                           0
        total:                           61710
    transactions:                        61710  (3085.24 per sec.)
    queries:                             61710  (3085.24 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          20.0006s
    total number of events:              61710

Latency (ms):
         min:                                    0.41
         avg:                                    0.65
         max:                                   12.60
         95th percentile:                        0.92
         sum:                                39962.19
";

    #[test]
    fn parses_sysbench_statistics() {
        let r = parse_sysbench(SYSBENCH_RUN).unwrap();
        assert_eq!(
            (r.queries, r.transactions, r.ignored_errors),
            (61710, 61710, 0)
        );
        assert_eq!((r.qps, r.p95_ms, r.avg_ms), (3085.24, 0.92, 0.65));
        assert!((r.seconds - 20.0006).abs() < 1e-9);
    }

    #[test]
    fn a_missing_line_is_named() {
        let text = SYSBENCH_RUN.replace("95th percentile:", "99th percentile:");
        let err = parse_sysbench(&text).unwrap_err().to_string();
        assert!(err.contains("95th percentile:"), "{err}");
        let err = parse_sysbench("FATAL: connection refused\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("queries:"), "{err}");
    }

    #[test]
    fn proc_parsing() {
        let status = "Name:\tx\nvoluntary_ctxt_switches:\t10\nnonvoluntary_ctxt_switches:\t5\n";
        assert_eq!(parse_status_context_switches(status), 15);
        let me = proc_counters(std::process::id()).unwrap();
        assert!(me.threads >= 1 && me.context_switches > 0);
    }

    #[test]
    fn per_query_ratios_use_deltas() {
        let snap = |young: u64, cs: u64, mutex: u64| Snapshot {
            status: [("Innodb_buffer_pool_pages_made_young".to_string(), young)].into(),
            process: ProcCounters {
                cpu_ticks: 0,
                context_switches: cs,
                threads: 1,
            },
            buf_pool_mutex: Some((mutex, mutex * 1000)),
            ..Default::default()
        };
        let sb = SysbenchReport {
            queries: 100,
            ..Default::default()
        };
        let m = Measured::from(sb, &snap(1000, 50, 7), &snap(4000, 250, 3007));
        assert_eq!(m.pages_made_young, 3000);
        assert_eq!(m.pages_made_young_per_query, 30.0);
        assert_eq!(m.cs_per_query, 2.0);
        assert_eq!(m.buf_pool_mutex_per_query, Some(30.0));
        assert_eq!(m.buf_pool_mutex_wait_us_per_query, Some(0.03));
        // not read: absent, not 0
        assert_eq!(m.rows_updated, None);
    }

    const PROC_STAT_BEFORE: &str = "\
cpu  1000 10 500 80000 40 0 30 20 0 0
cpu0 500 5 250 40000 20 0 15 10 0 0
cpu1 500 5 250 40000 20 0 15 10 0 0
intr 12345
";
    // 10 s later on 2 cores at 100 ticks/s: 2000 ticks of capacity, 1500 busy
    const PROC_STAT_AFTER: &str = "\
cpu  2100 10 860 80490 50 0 60 30 0 0
cpu0 1050 5 430 40245 25 0 30 15 0 0
cpu1 1050 5 430 40245 25 0 30 15 0 0
intr 23456
";

    #[test]
    fn proc_stat_busy_and_total() {
        let h = parse_proc_stat(PROC_STAT_BEFORE).unwrap();
        // user nice system irq(0) softirq steal
        assert_eq!(h.busy_ticks, 1000 + 10 + 500 + 30 + 20);
        assert_eq!(h.total_ticks, h.busy_ticks + 80000 + 40);
        assert_eq!(parse_proc_stat("cpu0 1 2 3\n"), None);
        assert_eq!(parse_proc_stat("cpu  1 2 x 4 5 6 7 8\n"), None);
    }

    #[test]
    fn a_counter_the_server_spells_in_another_case_is_ours() {
        assert_eq!(
            canonical_name("Innodb_buffer_pool_pages_lru_flushed"),
            "Innodb_buffer_pool_pages_LRU_flushed"
        );
        assert_eq!(
            canonical_name("INNODB_BUFFER_POOL_READS"),
            "Innodb_buffer_pool_reads"
        );
        assert_eq!(canonical_name("Uptime"), "Uptime");
    }

    #[test]
    fn other_cpu_is_host_minus_server_minus_sysbench() {
        let snap = |stat: &str, server_ticks: u64, t: f64| Snapshot {
            host_cpu: parse_proc_stat(stat),
            process: ProcCounters {
                cpu_ticks: server_ticks,
                ..Default::default()
            },
            monotonic_seconds: t,
            ..Default::default()
        };
        let before = snap(PROC_STAT_BEFORE, 7000, 100.0);
        let after = snap(PROC_STAT_AFTER, 7000 + 900, 110.0);
        let (h0, h1) = (before.host_cpu.unwrap(), after.host_cpu.unwrap());
        let (busy, total) = (
            h1.busy_ticks - h0.busy_ticks,
            h1.total_ticks - h0.total_ticks,
        );
        assert_eq!((busy, total), (1500, 2000));
        // at 100 ticks/s: host 15 s busy, server 9 s, sysbench 4 s: 2 s other
        let o = OtherCpu::compute(busy, total, 900, 4.0, 10.0, 100.0).unwrap();
        assert!((o.cores_busy - 0.2).abs() < 1e-12, "{o:?}");
        assert!((o.share - 0.1).abs() < 1e-12, "{o:?}");
        assert_eq!((o.host_busy_seconds, o.server_cpu_seconds), (15.0, 9.0));
        // tick sampling can put server + sysbench above the host: 0, not negative
        let o = OtherCpu::compute(1500, 2000, 1200, 4.0, 10.0, 100.0).unwrap();
        assert_eq!(o.cores_busy, 0.0);
        // the sysbench time or /proc/stat missing: absent
        assert_eq!(OtherCpu::between(&before, &after, None), None);
        let blind = Snapshot::default();
        assert_eq!(OtherCpu::between(&blind, &after, Some(4.0)), None);
        assert!(OtherCpu::between(&before, &after, Some(4.0)).is_some());
    }
}
