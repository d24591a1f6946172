//! The model on the server's own page stream: for each cell of a traced
//! build (`record::PageTrace`), the hit ratio the server had on the
//! requests of its measured run, the hit ratios of lru-model's eager and
//! lazy policies replaying the same stream at the same pool size, and the
//! pages read per query of the tree's base and fixed cells of the same
//! workload (which the two policies stand for) as hit ratios on the same
//! requests per query. Pure: a function of the records.

use super::doc::Block;
use super::words::num;
use crate::decide::analysis::{median, Analysis, CellRuns};
use crate::dims::Metric;
use crate::record::{Cell, ModelReplay};
use serde::{Deserialize, Serialize};

/// One traced cell, medians over its runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayRow {
    #[serde(flatten)]
    pub cell: Cell,
    /// runs whose trace was replayed
    pub runs: usize,
    /// page requests in the trace per query of the measured run
    pub requests_per_query: f64,
    /// the traced server's hit ratio on the trace's requests (a request
    /// for a page it did not hold is a miss)
    pub trace_hit_ratio_pct: Option<f64>,
    /// the policies' hit ratios on the same requests
    pub eager_hit_ratio_pct: Option<f64>,
    pub lazy_hit_ratio_pct: Option<f64>,
    /// what the policies stand for, measured on untraced servers of the
    /// same tree, workload and threads: their pages read per query
    /// (Innodb_buffer_pool_reads, exact in every series) as a hit ratio on
    /// the trace's requests per query
    pub base_hit_ratio_pct: Option<f64>,
    pub fixed_hit_ratio_pct: Option<f64>,
}

fn replays<'a>(c: &'a CellRuns, policy: &str) -> Vec<(&'a ModelReplay, u64)> {
    c.counted
        .iter()
        .filter_map(|r| {
            let queries = r.measured()?.sysbench.queries;
            let t = r.outcome.as_ref()?.page_trace.as_ref()?.replayed.as_ref()?;
            Some(
                t.replays
                    .iter()
                    .filter(move |m| m.policy == policy)
                    .map(move |m| (m, queries)),
            )
        })
        .flatten()
        .collect()
}

fn median_of(
    v: &[(&ModelReplay, u64)],
    f: impl Fn(&ModelReplay, u64) -> Option<f64>,
) -> Option<f64> {
    median(&v.iter().filter_map(|(m, q)| f(m, *q)).collect::<Vec<_>>())
}

pub fn rows(a: &Analysis) -> Vec<ReplayRow> {
    a.cells
        .iter()
        .filter_map(|c| {
            let (eager, lazy) = (replays(c, "eager"), replays(c, "lazy"));
            let either = if eager.is_empty() { &lazy } else { &eager };
            let requests_per_query =
                median_of(either, |m, q| (q > 0).then(|| m.requests as f64 / q as f64))?;
            // a measured cell's pages read per query as a hit ratio on the
            // trace's requests per query
            let measured = |variant: &str| {
                let reads = a
                    .cell(&c.cell.with_variant(variant))?
                    .median(Metric::PagesReadPerQuery)?;
                (requests_per_query > 0.0).then(|| 100.0 * (1.0 - reads / requests_per_query))
            };
            Some(ReplayRow {
                cell: c.cell.clone(),
                runs: either.len(),
                requests_per_query,
                trace_hit_ratio_pct: median_of(either, |m, _| m.server_hit_ratio_pct),
                eager_hit_ratio_pct: median_of(&eager, |m, _| m.model_hit_ratio_pct),
                lazy_hit_ratio_pct: median_of(&lazy, |m, _| m.model_hit_ratio_pct),
                base_hit_ratio_pct: measured("base"),
                fixed_hit_ratio_pct: measured("fixed"),
            })
        })
        .collect()
}

fn gap(model: Option<f64>, measured: Option<f64>) -> String {
    match model.zip(measured) {
        Some((m, s)) => format!("{:+.2}", m - s),
        None => "n/a".into(),
    }
}

pub fn blocks(rows: &[ReplayRow]) -> Vec<Block> {
    if rows.is_empty() {
        return Vec::new();
    }
    vec![
        Block::Heading(2, "The model on the server's page stream".into()),
        Block::Para(
            "A traced build records every page request, LRU access, read, created page, eviction, \
             freed page and page-cleaner batch of its buffer pool; after the server stopped, lru-model \
             replayed that stream through its eager policy (10.5 up to 11.8.9) and its lazy one \
             (MDEV-33966) at the server's pool size and settings, and counted the requests of the \
             measured run. Hit ratios in percent on those requests, medians over the runs: `on the \
             trace` is the traced server's own (a request for a page it did not hold is a miss); base \
             and fixed ran untraced, and theirs is 1 - (pages read per query, \
             `Innodb_buffer_pool_reads`) / (the trace's requests per query), because \
             `Innodb_buffer_pool_read_requests` does not count every request the trace records \
             (`buf_page_optimistic_get`, a cursor's restore, in every series; in 11.8 any request \
             outside a transaction). A gap is the model's figure minus the measured one, \
             in points."
                .into(),
        ),
        Block::AlignedTable {
            header: [
                "tree",
                "workload",
                "threads",
                "variant",
                "runs",
                "requests / query",
                "on the trace",
                "eager model",
                "base",
                "eager - base",
                "lazy model",
                "fixed",
                "lazy - fixed",
            ]
            .map(String::from)
            .to_vec(),
            right_aligned: (4..13).collect(),
            rows: rows
                .iter()
                .map(|r| {
                    vec![
                        r.cell.tree.clone(),
                        r.cell.workload.clone(),
                        r.cell.threads.to_string(),
                        r.cell.variant.clone(),
                        r.runs.to_string(),
                        num(Some(r.requests_per_query), 2),
                        num(r.trace_hit_ratio_pct, 2),
                        num(r.eager_hit_ratio_pct, 2),
                        num(r.base_hit_ratio_pct, 2),
                        gap(r.eager_hit_ratio_pct, r.base_hit_ratio_pct),
                        num(r.lazy_hit_ratio_pct, 2),
                        num(r.fixed_hit_ratio_pct, 2),
                        gap(r.lazy_hit_ratio_pct, r.fixed_hit_ratio_pct),
                    ]
                })
                .collect(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_needs_both_sides() {
        assert_eq!(gap(Some(90.0), Some(92.25)), "-2.25");
        assert_eq!(gap(Some(92.5), Some(92.25)), "+0.25");
        assert_eq!(gap(None, Some(92.25)), "n/a");
        assert!(blocks(&[]).is_empty());
    }
}
