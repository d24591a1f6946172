//! The results section of a matrix report: one row per cell with the
//! medians of every metric that has a column, and the paragraphs that say
//! what the pages-made-young, pool-read and mutex columns count.

use super::doc::Block;
use super::words::num;
use crate::decide::analysis::{Analysis, CellRuns};
use crate::dims::{Metric, METRICS};
use crate::record::RunResult;
use crate::results::sweeps::{Sweeps, YoungCounts};

/// The section: its heading, the table and the words under it.
pub(super) fn section(a: &Analysis, b: &mut Vec<Block>) {
    b.push(Block::Heading(
        2,
        "Results (median of the counted runs)".into(),
    ));
    b.push(results_table(a));
    if let Some(words) = young_words(a) {
        b.push(Block::Para(words));
    }
    if let Some(words) = pool_reads_words(a) {
        b.push(Block::Para(words));
    }
    if let Some(words) = write_mutex_words(a) {
        b.push(Block::Para(words));
    }
    if let Some(words) = mysql_mutex_words(a) {
        b.push(Block::Para(words));
    }
    b.push(Block::Para(
        "Pages made young, context switches and CPU are counter deltas over the measured interval only \
         (the warm-up is not counted); CPU and context switches are the server process's (all its \
         threads), not sysbench's. The QPS interval of the median is a pair of order statistics with \
         the smallest exact coverage at or above 95%; with fewer than 6 runs no pair reaches 95%, so it \
         is the range, min-max, with the coverage it has (75% for 3 runs, 87.5% for 4, 93.8% for 5). \
         buf_pool.mutex acquisitions and wait time come from a separate \
         diagnostic pass with the performance_schema instrument `wait/synch/mutex/innodb/buf_pool_mutex` \
         enabled, because timing that instrument slows the hot path; its QPS is not reported. \
         n/a: not measured."
            .into(),
    ));
}

/// On a MySQL tree the promotion takes another mutex: the buf_pool.mutex
/// columns are that one's (`metrics::PROMOTION_MUTEXES`). None when no
/// run is of a MySQL tree.
fn mysql_mutex_words(a: &Analysis) -> Option<String> {
    let mut trees: Vec<&str> = Vec::new();
    for r in a.results {
        let mysql = r
            .tree_info
            .as_ref()
            .is_some_and(|t| t.series.engine == crate::dims::Engine::MySql);
        if mysql && !trees.contains(&r.key.tree.as_str()) {
            trees.push(&r.key.tree);
        }
    }
    (!trees.is_empty()).then(|| {
        format!(
            "On {} (MySQL) the buf_pool.mutex columns count `buf_pool->LRU_list_mutex` \
             (`wait/synch/mutex/innodb/buf_pool_LRU_list_mutex`): MySQL split the pool's mutex, \
             and an LRU promotion takes that one.",
            trees.join(", ")
        )
    })
}

/// Pages made young of a cell, said for what they count: in the fix they
/// are sweep moves, and where no sweep ran a 0 would stand beside gate's
/// 0 meaning something else.
fn young_cell(c: &CellRuns, decimals: usize) -> String {
    let value = num(c.median(Metric::PagesMadeYoungPerQuery), decimals);
    match (c.young_counts(), c.sweeps()) {
        (Some(YoungCounts::SweepMoves), Some(Sweeps::NoneRan)) => Sweeps::NoneRan.words().into(),
        (Some(YoungCounts::SweepMoves), Some(Sweeps::MayHaveRun)) => {
            format!("{value} (sweep moves)")
        }
        (Some(YoungCounts::SweepMoves), _) => {
            format!("{value} (sweep moves; {})", Sweeps::NotCounted.words())
        }
        _ => value,
    }
}

/// What the pages-made-young column means, when a cell of the fix is in it.
fn young_words(a: &Analysis) -> Option<String> {
    let lazy: Vec<&CellRuns> = a
        .cells
        .iter()
        .filter(|c| c.young_counts() == Some(YoungCounts::SweepMoves))
        .collect();
    if lazy.is_empty() {
        return None;
    }
    let mut variants: Vec<&str> = lazy.iter().map(|c| c.cell.variant.as_str()).collect();
    variants.sort_unstable();
    variants.dedup();
    Some(format!(
        "In {} (the fix: an access only flags a block), pages made young counts the old blocks an LRU \
         eviction, LRU flush or flush-list sweep moved, not accesses; the access path's cost is its \
         buf_pool.mutex column. \"no sweep ran\": every counted run's measured interval read no page \
         and wrote none, and no LRU batch evicted one (`Innodb_buffer_pool_reads`, `_pages_flushed`, \
         `_pages_LRU_flushed`, `_pages_LRU_freed`), so its 0 says nothing of what the accesses did. \
         \"sweeps not counted\": the runs predate those counters.",
        variants
            .iter()
            .map(|v| format!("`{v}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Whether the data fit in the pool, and when it did not, what a page
/// read cost: with the datadir on tmpfs a miss is a memory copy and an
/// eviction, so such runs measure eviction, not I/O.
fn pool_reads_words(a: &Analysis) -> Option<String> {
    let measured: Vec<&CellRuns> = a
        .cells
        .iter()
        .filter(|c| c.median(Metric::PagesReadPerQuery).is_some())
        .collect();
    if measured.is_empty() {
        return None;
    }
    if !any_pages_read(a) {
        return Some(
            "No cell read a page into the buffer pool in its measured interval \
             (`Innodb_buffer_pool_reads` did not move): the data fit in the pool, so the hit ratio \
             (100%) and pages read per query (0) have no columns here."
                .into(),
        );
    }
    let range = |m: Metric, decimals: usize| {
        let v: Vec<f64> = measured.iter().filter_map(|c| c.median(m)).collect();
        if v.is_empty() {
            return "n/a".to_string();
        }
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        format!("{lo:.decimals$} to {hi:.decimals$}")
    };
    let runs: Vec<&RunResult> = measured
        .iter()
        .flat_map(|c| c.counted.iter().copied())
        .collect();
    let on_tmpfs = |want: bool| {
        runs.iter().all(|r| {
            r.my_cnf
                .as_ref()
                .and_then(|c| c.datadir_on_tmpfs)
                .is_some_and(|t| t == want)
        })
    };
    let cost = if on_tmpfs(true) {
        "Every run's datadir was on tmpfs (/dev/shm), so a miss costs a copy from memory and an \
         eviction, never a wait for a disk: these runs are eviction-bound, not I/O-bound, and on \
         a disk each miss would cost far more."
    } else if on_tmpfs(false) {
        "Every run's datadir was on a disk, so a miss waits for a read."
    } else {
        "Whether the datadir was on tmpfs is not recorded for every run, so what a miss cost is not known."
    };
    Some(format!(
        "Pages were read into the pool: {} pages per query, a hit ratio (1 - \
         `Innodb_buffer_pool_reads` / `Innodb_buffer_pool_read_requests`, measured interval) of \
         {}%. {cost}",
        range(Metric::PagesReadPerQuery, 3),
        range(Metric::HitRatioPct, 2),
    ))
}

/// Why every variant still takes buf_pool.mutex on a workload that
/// writes: those are the writes' own acquisitions, which no promotion rule
/// touches.
fn write_mutex_words(a: &Analysis) -> Option<String> {
    let writes = |c: &&CellRuns| {
        c.counted.iter().any(|r| {
            r.measured().is_some_and(|m| {
                [m.rows_inserted, m.rows_updated, m.rows_deleted]
                    .iter()
                    .flatten()
                    .sum::<u64>()
                    > 0
            })
        })
    };
    let least = |v: Vec<f64>| v.into_iter().reduce(f64::min);
    let parts: Vec<String> = a
        .manifest
        .workloads
        .iter()
        .filter_map(|w| {
            let cells: Vec<&CellRuns> = a.cells.iter().filter(|c| &c.cell.workload == w).collect();
            if !cells.iter().any(writes) {
                return None;
            }
            let mutex = least(
                cells
                    .iter()
                    .filter_map(|c| c.median(Metric::BufPoolMutexPerQuery))
                    .collect(),
            )?;
            let flushed: Vec<f64> = cells
                .iter()
                .filter_map(|c| c.median(Metric::PagesFlushedPerQuery))
                .collect();
            let written = match (least(flushed.clone()), flushed.into_iter().reduce(f64::max)) {
                (Some(lo), Some(hi)) => format!("{lo:.2} to {hi:.2} pages written per query"),
                _ => "pages written not counted in these runs".to_string(),
            };
            Some(format!(
                "{w}: at least {mutex:.2} per query in every variant, {written}"
            ))
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    Some(format!(
        "On the workloads that write, every variant takes buf_pool.mutex, whether it promotes on \
         access or not ({}). These are the writes' own acquisitions (read in the 10.11.18 source): \
         the page cleaner's flush-list batch (`buf_do_flush_list_batch`, buf0flu.cc) takes it again \
         after each page it writes and once more when the next page is in another tablespace, and \
         creating a page (a new undo segment's) takes it two or three times; an UPDATE's own page \
         accesses take none once no access promotes. gate, clock and the fix change none of these.",
        parts.join("; ")
    ))
}

/// Whether some cell read pages into the pool in its measured interval:
/// the data did not fit (or was not yet read in).
fn any_pages_read(a: &Analysis) -> bool {
    a.cells
        .iter()
        .any(|c| c.median(Metric::PagesReadPerQuery).is_some_and(|v| v > 0.0))
}

/// The metric columns of the results table: every metric with a column,
/// the pool-read ones only where pages were read.
fn result_columns(a: &Analysis) -> Vec<&'static crate::dims::MetricInfo> {
    let read = any_pages_read(a);
    METRICS
        .iter()
        .filter(|i| i.column.is_some() && (read || !i.only_when_pages_read))
        .filter(|i| !i.only_when_measured || a.cells.iter().any(|c| c.median(i.metric).is_some()))
        .collect()
}

fn results_table(a: &Analysis) -> Block {
    let columns = result_columns(a);
    let rows = a
        .cells
        .iter()
        .map(|c: &CellRuns| {
            let mut runs = c.counted.len().to_string();
            if !c.busy.is_empty() {
                runs.push_str(&format!(" (+{} busy)", c.busy.len()));
            }
            if !c.failed.is_empty() {
                runs.push_str(&format!(" (+{} failed)", c.failed.len()));
            }
            let qps = c.values(Metric::Qps);
            let range = if qps.is_empty() {
                "n/a".to_string()
            } else {
                let (lo, hi) = qps
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
                format!("{lo:.0}-{hi:.0}")
            };
            // the order statistics of few runs cover less than the level asked for
            let interval = c
                .interval(Metric::Qps)
                .map(|i| {
                    format!(
                        "{:.0}-{:.0} ({})",
                        i.lo,
                        i.hi,
                        crate::stats::percent(i.coverage)
                    )
                })
                .unwrap_or_else(|| "n/a".into());
            vec![
                c.cell.tree.clone(),
                c.cell.workload.clone(),
                c.cell.threads.to_string(),
                c.cell.variant.clone(),
                runs,
                num(c.median(Metric::Qps), 0),
                interval,
                range,
            ]
            .into_iter()
            .chain(
                columns
                    .iter()
                    .filter_map(|i| Some((i.metric, i.column?.1)))
                    .map(|(m, decimals)| match m {
                        Metric::PagesMadeYoungPerQuery => young_cell(c, decimals),
                        _ => num(c.median(m), decimals),
                    }),
            )
            .collect()
        })
        .collect();
    Block::Table {
        header: [
            "tree",
            "workload",
            "threads",
            "variant",
            "runs",
            "QPS",
            "QPS interval of the median (order statistics, coverage)",
            "QPS min-max",
        ]
        .into_iter()
        .chain(columns.iter().filter_map(|i| Some(i.column?.0)))
        .map(String::from)
        .collect(),
        rows,
    }
}
