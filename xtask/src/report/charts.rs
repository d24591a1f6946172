//! The report's SVG charts: QPS per workload and variant with its
//! interval; pages made young and buf_pool.mutex acquisitions per query;
//! QPS against threads where a workload ran at several thread counts; hit
//! ratio against the pool's turnover where workloads differ only in rate.

use super::analysis::Analysis;
use crate::charts::{self, Bar, BarGroup, Line};
use crate::dims::{Metric, METRICS};
use crate::record::Cell;
use anyhow::Result;

pub struct Chart {
    pub file: String,
    pub title: String,
    pub svg: String,
}

/// The series name of a cell: its variant, prefixed by its tree when the
/// report has several trees.
fn series(a: &Analysis, c: &Cell) -> String {
    if a.manifest.trees.len() > 1 {
        format!("{} {}", c.tree, c.variant)
    } else {
        c.variant.clone()
    }
}

fn groups(a: &Analysis, metric: Metric, with_interval: bool) -> Vec<BarGroup> {
    let mut groups: Vec<BarGroup> = Vec::new();
    for c in &a.cells {
        let label = format!("{} {}t", c.cell.workload, c.cell.threads);
        let bar = Bar {
            series: series(a, &c.cell),
            value: c.median(metric),
            interval: if with_interval {
                c.interval(metric).map(|i| (i.lo, i.hi))
            } else {
                None
            },
        };
        match groups.iter_mut().find(|g| g.label == label) {
            Some(g) => g.bars.push(bar),
            None => groups.push(BarGroup {
                label,
                bars: vec![bar],
            }),
        }
    }
    groups
}

/// What the whiskers of a chart are: the order-statistic interval of the
/// median, with the coverages its cells have (one per number of runs).
fn whisker_words(a: &Analysis, metric: Metric) -> String {
    let mut by_runs: Vec<(usize, String)> = a
        .cells
        .iter()
        .filter_map(|c| {
            let i = c.interval(metric)?;
            Some((c.values(metric).len(), crate::stats::percent(i.coverage)))
        })
        .collect();
    by_runs.sort();
    by_runs.dedup();
    let coverages: Vec<String> = by_runs
        .iter()
        .map(|(n, cov)| format!("{cov} coverage with {n} runs"))
        .collect();
    format!(
        "whiskers: the median's order-statistic interval, {}",
        coverages.join(", ")
    )
}

/// QPS of each variant relative to its baseline, in percent (a bar below
/// zero is slower), with the interval of the change and its real coverage:
/// the comparison table's figures, drawn. Controls are drawn too, so the
/// noise a reader should expect stands beside each change.
fn change_chart(a: &Analysis) -> Result<Option<Chart>> {
    let mut groups: Vec<BarGroup> = Vec::new();
    let mut coverages: Vec<String> = Vec::new();
    for (cell, c) in &a.comparisons {
        if c.metric != Metric::Qps {
            continue;
        }
        let label = format!("{} {}t", cell.workload, cell.threads);
        if let Some(i) = &c.ratio_interval {
            let words = i.coverage_words();
            if !coverages.contains(&words) {
                coverages.push(words);
            }
        }
        let bar = Bar {
            series: format!("{} / {}", series(a, cell), c.against),
            value: c.change_pct,
            interval: c
                .ratio_interval
                .as_ref()
                .map(|i| ((i.lo - 1.0) * 100.0, (i.hi - 1.0) * 100.0)),
        };
        match groups.iter_mut().find(|g| g.label == label) {
            Some(g) => g.bars.push(bar),
            None => groups.push(BarGroup {
                label,
                bars: vec![bar],
            }),
        }
    }
    if !groups
        .iter()
        .any(|g| g.bars.iter().any(|b| b.value.is_some()))
    {
        return Ok(None);
    }
    let note = if coverages.is_empty() {
        "no interval: too few runs".to_string()
    } else {
        format!(
            "whiskers: the interval of the change, {}",
            coverages.join("; ")
        )
    };
    let (drawn, title) = titled(
        "QPS against the baseline: change of the median (%)".to_string(),
        Some(note),
    );
    Ok(Some(Chart {
        file: "qps-change.svg".into(),
        svg: charts::grouped_bars(&drawn, "change of median QPS (%)", &groups)?,
        title,
    }))
}

/// Adds `point` to the line of `series`, which it starts when new.
fn add_point(lines: &mut Vec<Line>, series: String, point: charts::Point) {
    match lines.iter_mut().find(|l| l.series == series) {
        Some(l) => l.points.push(point),
        None => lines.push(Line {
            series,
            points: vec![point],
        }),
    }
}

/// Hit ratio against the pool's turnover, one line per variant, one point
/// per workload: drawn when three or more workloads share their data and
/// key distribution and differ only in what sets the turnover (sysbench's
/// rate), as in matrix/hit-ratio-turnover.toml. Elsewhere a line through
/// workloads of other data would join what cannot be joined.
fn turnover_chart(a: &Analysis) -> Result<Option<Chart>> {
    let same_data = |r: &crate::record::RunResult| {
        let w = &r.workload_def;
        (
            w.kind().ok(),
            w.rand_type.name(),
            w.tables,
            w.table_size,
            w.range_size,
            w.random_points,
        )
    };
    let firsts: Vec<_> = a.cells.iter().filter_map(|c| c.counted.first()).collect();
    let mut workloads: Vec<&str> = firsts.iter().map(|r| r.key.workload.as_str()).collect();
    workloads.sort_unstable();
    workloads.dedup();
    if workloads.len() < 3
        || firsts
            .windows(2)
            .any(|p| same_data(p[0]) != same_data(p[1]))
    {
        return Ok(None);
    }
    let mut lines: Vec<Line> = Vec::new();
    for c in &a.cells {
        let (Some(x), Some(y)) = (
            c.median(Metric::PoolTurnoverS),
            c.median(Metric::HitRatioPct),
        ) else {
            continue;
        };
        let point = (x, y, c.interval(Metric::HitRatioPct).map(|i| (i.lo, i.hi)));
        add_point(&mut lines, series(a, &c.cell), point);
    }
    if lines.iter().all(|l| l.points.len() < 3) {
        return Ok(None);
    }
    let (drawn, title) = titled(
        "Hit ratio against the pool's turnover (medians; a point per workload)".to_string(),
        Some(format!(
            "turnover: the pool's pages over the pages read a second; {}",
            whisker_words(a, Metric::HitRatioPct)
        )),
    );
    Ok(Some(Chart {
        file: "hit-ratio-turnover.svg".into(),
        svg: charts::lines(
            &drawn,
            "pool turnover (s)",
            "buffer pool hit ratio (%)",
            &lines,
        )?,
        title,
    }))
}

/// A chart's title with its note on a second line (drawn under the
/// chart), and the same on one line for the report's image text.
fn titled(title: String, note: Option<String>) -> (String, String) {
    match note {
        Some(n) => (format!("{title}\n{n}"), format!("{title}; {n}")),
        None => (title.clone(), title),
    }
}

pub fn draw(a: &Analysis) -> Result<Vec<Chart>> {
    let mut out = Vec::new();
    let mut bars =
        |file: &str, title: String, y: &str, metric: Metric, with_interval: bool| -> Result<()> {
            let g = groups(a, metric, with_interval);
            if g.iter().any(|g| g.bars.iter().any(|b| b.value.is_some())) {
                let note = with_interval.then(|| whisker_words(a, metric));
                let (drawn, title) = titled(title, note);
                out.push(Chart {
                    file: file.into(),
                    svg: charts::grouped_bars(&drawn, y, &g)?,
                    title,
                });
            }
            Ok(())
        };
    // one bar chart per metric the table gives a chart
    for info in METRICS.iter() {
        let Some(chart) = info.chart else { continue };
        let title = if chart.interval {
            format!("{} (median)", chart.title)
        } else {
            chart.title.to_string()
        };
        bars(
            chart.file,
            title,
            chart.y_label,
            info.metric,
            chart.interval,
        )?;
    }
    if let Some(chart) = change_chart(a)? {
        out.push(chart);
    }
    if let Some(chart) = turnover_chart(a)? {
        out.push(chart);
    }
    if let Some((file, title, svg)) = super::scan::chart(a)? {
        out.push(Chart { file, title, svg });
    }
    // QPS against threads, for workloads run at more than one thread count
    for w in &a.manifest.workloads {
        let cells: Vec<_> = a.cells.iter().filter(|c| &c.cell.workload == w).collect();
        let mut threads: Vec<u32> = cells.iter().map(|c| c.cell.threads).collect();
        threads.dedup();
        threads.sort_unstable();
        threads.dedup();
        if threads.len() < 2 {
            continue;
        }
        let mut lines: Vec<Line> = Vec::new();
        for c in cells {
            let Some(q) = c.median(Metric::Qps) else {
                continue;
            };
            let point = (
                c.cell.threads as f64,
                q,
                c.interval(Metric::Qps).map(|i| (i.lo, i.hi)),
            );
            add_point(&mut lines, series(a, &c.cell), point);
        }
        if lines.is_empty() {
            continue;
        }
        let (drawn, title) = titled(
            format!("QPS against threads: {w} (median)"),
            Some(whisker_words(a, Metric::Qps)),
        );
        out.push(Chart {
            file: format!("qps-threads-{}.svg", crate::util::slug(w)),
            svg: charts::lines(&drawn, "threads", "queries per second", &lines)?,
            title,
        });
    }
    Ok(out)
}
