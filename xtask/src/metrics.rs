//! Metrics: counters read from the server and from /proc before and after
//! the measured interval, and what they come to per query.

use anyhow::{Context, Result};
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;

/// The status counters whose deltas every run records.
pub const STATUS_COUNTERS: &[&str] = &[
    "Innodb_buffer_pool_pages_made_young",
    "Innodb_buffer_pool_pages_made_not_young",
    "Innodb_buffer_pool_read_requests",
    "Innodb_buffer_pool_reads",
    "Innodb_buffer_pool_pages_free",
    "Questions",
];

/// performance_schema's name for buf_pool.mutex.
pub const BUF_POOL_MUTEX: &str = "wait/synch/mutex/innodb/buf_pool_mutex";

/// Counters of the server process, summed over all its threads.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct ProcCounters {
    /// utime + stime of the whole process (exited threads included), in ticks
    pub cpu_ticks: u64,
    /// voluntary + involuntary context switches of the threads alive now
    pub context_switches: u64,
    pub threads: u64,
}

/// One snapshot of everything read around an interval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Snapshot {
    pub status: BTreeMap<String, u64>,
    pub process: ProcCounters,
    /// (COUNT_STAR, SUM_TIMER_WAIT in ps) of buf_pool.mutex, when read
    pub buf_pool_mutex: Option<(u64, u64)>,
}

impl Snapshot {
    pub fn take(conn: &mut mysql::Conn, pid: u32, with_mutex: bool) -> Result<Snapshot> {
        Ok(Snapshot {
            status: status_counters(conn)?,
            process: proc_counters(pid)?,
            buf_pool_mutex: if with_mutex {
                Some(buf_pool_mutex(conn)?)
            } else {
                None
            },
        })
    }

    fn delta(&self, later: &Snapshot, name: &str) -> u64 {
        later
            .status
            .get(name)
            .unwrap_or(&0)
            .saturating_sub(*self.status.get(name).unwrap_or(&0))
    }
}

pub fn status_counters(conn: &mut mysql::Conn) -> Result<BTreeMap<String, u64>> {
    let list = STATUS_COUNTERS
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(",");
    let rows: Vec<(String, String)> = conn
        .query(format!(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ({list})"
        ))
        .context("SHOW GLOBAL STATUS failed")?;
    Ok(rows
        .into_iter()
        .filter_map(|(k, v)| Some((k, v.parse().ok()?)))
        .collect())
}

/// Enables or disables counting and timing of buf_pool.mutex waits (a
/// run-time switch: the mutex was registered at start-up because
/// performance_schema is on).
pub fn instrument_buf_pool_mutex(conn: &mut mysql::Conn, on: bool) -> Result<()> {
    let flag = if on { "YES" } else { "NO" };
    conn.exec_drop(
        "UPDATE performance_schema.setup_instruments SET ENABLED = ?, TIMED = ? WHERE NAME = ?",
        (flag, flag, BUF_POOL_MUTEX),
    )
    .context("cannot switch the buf_pool_mutex instrument")?;
    let enabled: Option<String> = conn.exec_first(
        "SELECT ENABLED FROM performance_schema.setup_instruments WHERE NAME = ?",
        (BUF_POOL_MUTEX,),
    )?;
    anyhow::ensure!(
        enabled.as_deref() == Some(flag),
        "performance_schema has no instrument {BUF_POOL_MUTEX} (is performance_schema on?)"
    );
    Ok(())
}

pub fn buf_pool_mutex(conn: &mut mysql::Conn) -> Result<(u64, u64)> {
    let row: Option<(u64, u64)> = conn
        .exec_first(
            "SELECT COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name \
             WHERE EVENT_NAME = ?",
            (BUF_POOL_MUTEX,),
        )
        .context("cannot read buf_pool_mutex waits from performance_schema")?;
    row.with_context(|| format!("performance_schema has no row for {BUF_POOL_MUTEX}"))
}

pub fn proc_counters(pid: u32) -> Result<ProcCounters> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat"))
        .with_context(|| format!("process {pid} is gone"))?;
    let cpu_ticks =
        parse_stat_cpu_ticks(&stat).with_context(|| format!("cannot parse /proc/{pid}/stat"))?;
    let mut context_switches = 0;
    let mut threads = 0;
    for task in fs::read_dir(format!("/proc/{pid}/task"))?.flatten() {
        // a thread may exit between listing and reading: skip it
        if let Ok(status) = fs::read_to_string(task.path().join("status")) {
            context_switches += parse_status_context_switches(&status);
            threads += 1;
        }
    }
    Ok(ProcCounters {
        cpu_ticks,
        context_switches,
        threads,
    })
}

/// utime + stime (fields 14 and 15) of /proc/<pid>/stat; the command name
/// in parentheses may contain spaces, so fields are counted after it.
fn parse_stat_cpu_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // after the name, field 3 (state) is index 0, so field N is index N-3
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
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

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

/// What sysbench itself reported for an interval.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SysbenchReport {
    pub queries: u64,
    pub qps: f64,
    pub transactions: u64,
    pub tps: f64,
    pub p95_ms: f64,
    pub avg_ms: f64,
    pub seconds: f64,
    pub ignored_errors: u64,
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

/// The measured interval: sysbench's figures and the counter deltas, with
/// the per-query ratios the report shows.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Measured {
    pub sysbench: SysbenchReport,
    pub pages_made_young: u64,
    pub pages_made_not_young: u64,
    pub read_requests: u64,
    pub reads: u64,
    pub context_switches: u64,
    pub cpu_seconds: f64,
    pub pages_made_young_per_query: f64,
    pub pages_made_not_young_per_query: f64,
    pub read_requests_per_query: f64,
    pub cs_per_query: f64,
    pub cpu_ms_per_query: f64,
    /// only from a diagnostic pass (see `Diagnostic`)
    pub buf_pool_mutex_per_query: Option<f64>,
    pub buf_pool_mutex_wait_us_per_query: Option<f64>,
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
            / clock_ticks_per_second();
        let mutex = match (before.buf_pool_mutex, after.buf_pool_mutex) {
            (Some((c0, w0)), Some((c1, w1))) => {
                Some((c1.saturating_sub(c0), w1.saturating_sub(w0)))
            }
            _ => None,
        };
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
        let stat =
            "123 (my (odd) name) S 1 123 123 0 -1 4194560 100 0 0 0 250 40 0 0 20 0 7 0 1 2 3";
        assert_eq!(parse_stat_cpu_ticks(stat), Some(290));
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
    }
}
