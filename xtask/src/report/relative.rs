//! Mark Callaghan's relative table: per workload, each variant's median
//! of a few metrics divided by its tree's baseline's (QPS above 1 is
//! faster, CPU and context switches per query above 1 cost more), and
//! the geometric mean of each ratio over the workloads. The metrics are
//! those `dims::METRICS` marks `relative`.

use super::doc::Block;
use crate::decide::analysis::Analysis;
use crate::dims::{Metric, METRICS};
use serde::{Deserialize, Serialize};

/// One variant against its baseline: on one workload and thread count,
/// or (workload None) the geometric mean over them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelativeRow {
    pub tree: String,
    /// None: the geometric mean over `workloads`
    pub workload: Option<String>,
    pub threads: Option<u32>,
    pub variant: String,
    pub against: String,
    /// how many (workload, threads) cells the row stands for
    pub workloads: usize,
    /// median of the variant / median of the baseline, per metric of the
    /// table; absent where either was not measured (or the baseline's is 0)
    pub ratios: super::Medians,
}

/// Whose counters the table holds, said under it.
pub const WHOSE: &str = "Server CPU and context switches are the mariadbd process's (all its \
     threads); server + sysbench CPU adds the CPU time of the sysbench process of the measured run, \
     read from its /proc stat, as Mark Callaghan's tables count the CPU of server and client \
     (sysbench's context switches are not read, so that column is the server's alone). A ratio is \
     the variant's median over the baseline's; the geometric mean is over the workloads and \
     thread counts where every cell has the ratio (n/a otherwise).";

fn metrics() -> impl Iterator<Item = (Metric, &'static str)> {
    METRICS.iter().filter_map(|i| Some((i.metric, i.relative?)))
}

pub fn rows(a: &Analysis) -> Vec<RelativeRow> {
    let mut per_cell: Vec<RelativeRow> = Vec::new();
    for c in &a.cells {
        let Some(base) = a.baseline_of(&c.cell) else {
            continue;
        };
        if base.cell == c.cell {
            continue;
        }
        let ratios = metrics()
            .map(|(m, _)| {
                let r = match (c.median(m), base.median(m)) {
                    (Some(v), Some(b)) if b != 0.0 && v.is_finite() && b.is_finite() => Some(v / b),
                    _ => None,
                };
                (m, r)
            })
            .collect();
        per_cell.push(RelativeRow {
            tree: c.cell.tree.clone(),
            workload: Some(c.cell.workload.clone()),
            threads: Some(c.cell.threads),
            variant: c.cell.variant.clone(),
            against: base.cell.variant.clone(),
            workloads: 1,
            ratios: super::Medians(ratios),
        });
    }
    // the geometric means, one per tree and variant, in first-seen order
    let mut means: Vec<RelativeRow> = Vec::new();
    for r in &per_cell {
        if means
            .iter()
            .any(|m| m.tree == r.tree && m.variant == r.variant)
        {
            continue;
        }
        let group: Vec<&RelativeRow> = per_cell
            .iter()
            .filter(|x| x.tree == r.tree && x.variant == r.variant)
            .collect();
        // the mean of one cell is that cell
        if group.len() < 2 {
            continue;
        }
        let ratios = metrics()
            .map(|(m, _)| {
                let values: Option<Vec<f64>> = group.iter().map(|g| g.ratios.get(m)).collect();
                (m, values.and_then(|v| geometric_mean(&v)))
            })
            .collect();
        means.push(RelativeRow {
            tree: r.tree.clone(),
            workload: None,
            threads: None,
            variant: r.variant.clone(),
            against: r.against.clone(),
            workloads: group.len(),
            ratios: super::Medians(ratios),
        });
    }
    per_cell.extend(means);
    per_cell
}

/// exp(mean(ln x)); None for no values or a value that is not positive.
pub fn geometric_mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    Some((values.iter().map(|v| v.ln()).sum::<f64>() / values.len() as f64).exp())
}

/// The ratio as the table prints it.
pub fn ratio_words(r: Option<f64>) -> String {
    r.map(|x| format!("{x:.2}")).unwrap_or_else(|| "n/a".into())
}

/// The report's blocks, or none when no variant has a baseline.
/// Geometric means follow the cells, for variants with two cells or more.
pub fn blocks(rows: &[RelativeRow]) -> Vec<Block> {
    if rows.is_empty() {
        return Vec::new();
    }
    let header = ["tree", "workload", "threads", "variant", "against"]
        .into_iter()
        .chain(metrics().map(|(_, h)| h))
        .map(String::from)
        .collect();
    let table_rows = rows
        .iter()
        .map(|r| {
            let (workload, threads) = match (&r.workload, r.threads) {
                (Some(w), Some(t)) => (w.clone(), t.to_string()),
                _ => {
                    let cells = rows.iter().filter(|x| {
                        x.workload.is_some() && x.tree == r.tree && x.variant == r.variant
                    });
                    let mut names: Vec<&str> =
                        cells.filter_map(|x| x.workload.as_deref()).collect();
                    names.sort_unstable();
                    names.dedup();
                    let over = if names.len() == r.workloads {
                        format!("{} workloads", r.workloads)
                    } else {
                        format!("{} workload and thread cells", r.workloads)
                    };
                    (format!("**geometric mean** of {over}"), String::new())
                }
            };
            [
                r.tree.clone(),
                workload,
                threads,
                r.variant.clone(),
                r.against.clone(),
            ]
            .into_iter()
            .chain(metrics().map(|(m, _)| ratio_words(r.ratios.get(m))))
            .collect()
        })
        .collect();
    vec![
        Block::Heading(2, "Relative to the baseline".into()),
        Block::Table {
            header,
            rows: table_rows,
        },
        Block::Para(WHOSE.into()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometric_mean_of_ratios() {
        let g = geometric_mean(&[2.0, 0.5]).unwrap();
        assert!((g - 1.0).abs() < 1e-12);
        let g = geometric_mean(&[1.1, 1.2, 0.9]).unwrap();
        assert!((g - (1.1f64 * 1.2 * 0.9).powf(1.0 / 3.0)).abs() < 1e-12);
        assert_eq!(geometric_mean(&[]), None);
        assert_eq!(geometric_mean(&[1.0, 0.0]), None);
    }
}
