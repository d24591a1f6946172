//! The model on the server's own page stream: for each cell of a traced
//! build (`record::PageTrace`), the hit ratio the server had on the
//! requests of its measured run, the hit ratios of lru-model's eager and
//! lazy policies replaying the same stream at the same pool size, and the
//! measured hit ratios of the tree's base and fixed cells of the same
//! workload, which the two policies stand for. Pure: a function of the
//! records.

use super::analysis::{median, Analysis, CellRuns};
use super::doc::Block;
use super::num;
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
    /// page requests of one measured run in the trace (median)
    pub requests: f64,
    /// the traced server's hit ratio from its counters (Innodb_buffer_pool_reads
    /// over _read_requests) and on the trace's requests
    pub measured_hit_ratio_pct: Option<f64>,
    pub trace_hit_ratio_pct: Option<f64>,
    /// the policies' hit ratios on the same requests
    pub eager_hit_ratio_pct: Option<f64>,
    pub lazy_hit_ratio_pct: Option<f64>,
    /// what the policies stand for, measured on untraced servers of the
    /// same tree, workload and threads
    pub base_hit_ratio_pct: Option<f64>,
    pub fixed_hit_ratio_pct: Option<f64>,
}

fn replays<'a>(c: &'a CellRuns, policy: &str) -> Vec<&'a ModelReplay> {
    c.counted
        .iter()
        .filter_map(|r| r.outcome.as_ref()?.page_trace.as_ref()?.replayed.as_ref())
        .flat_map(|t| t.replays.iter().filter(move |m| m.policy == policy))
        .collect()
}

fn median_of(v: &[&ModelReplay], f: impl Fn(&ModelReplay) -> Option<f64>) -> Option<f64> {
    median(&v.iter().filter_map(|m| f(m)).collect::<Vec<_>>())
}

pub fn rows(a: &Analysis) -> Vec<ReplayRow> {
    a.cells
        .iter()
        .filter_map(|c| {
            let (eager, lazy) = (replays(c, "eager"), replays(c, "lazy"));
            if eager.is_empty() && lazy.is_empty() {
                return None;
            }
            let either = if eager.is_empty() { &lazy } else { &eager };
            let measured = |variant: &str| {
                a.cell(&c.cell.with_variant(variant))
                    .and_then(|x| x.median(Metric::HitRatioPct))
            };
            Some(ReplayRow {
                cell: c.cell.clone(),
                runs: either.len(),
                requests: median_of(either, |m| Some(m.requests as f64))?,
                measured_hit_ratio_pct: c.median(Metric::HitRatioPct),
                trace_hit_ratio_pct: median_of(either, |m| m.server_hit_ratio_pct),
                eager_hit_ratio_pct: median_of(&eager, |m| m.model_hit_ratio_pct),
                lazy_hit_ratio_pct: median_of(&lazy, |m| m.model_hit_ratio_pct),
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
            "A traced build records every page request, LRU access, read, eviction, freed page and \
             page-cleaner batch of its buffer pool; after the server stopped, lru-model replayed that \
             stream through its eager policy (10.5 up to 11.8.9) and its lazy one (MDEV-33966) at the \
             server's pool size and settings, and counted the requests of the measured run. `on the \
             trace` is the traced server's own hit ratio on those requests (a request for a page it did \
             not hold is a miss); base and fixed are measured on untraced servers of the same \
             workload. Hit ratios in percent, medians over the runs; a gap is the model's figure minus \
             the measured one, in points."
                .into(),
        ),
        Block::AlignedTable {
            header: [
                "tree",
                "workload",
                "threads",
                "variant",
                "runs",
                "requests / run",
                "counters",
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
            right_aligned: (4..14).collect(),
            rows: rows
                .iter()
                .map(|r| {
                    vec![
                        r.cell.tree.clone(),
                        r.cell.workload.clone(),
                        r.cell.threads.to_string(),
                        r.cell.variant.clone(),
                        r.runs.to_string(),
                        num(Some(r.requests), 0),
                        num(r.measured_hit_ratio_pct, 2),
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
