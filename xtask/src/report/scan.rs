//! The scan-resistance part of a report, for `scan-loop` cells: the hot
//! set kept and the scanned pages made young, measured, beside what the LRU
//! model predicts for the same pool, settings, sizes and rates (pure: the
//! model is deterministic, with a fixed seed), and a chart of the hot set
//! kept over time. Differences beyond `FLAG_PP` points are flagged with
//! the model's documented simplifications, to be weighed against the
//! spread between repetitions.

use super::doc::Block;
use super::words::num;
use crate::charts::{self, Line};
use crate::decide::analysis::{median, Analysis, CellRuns};
use crate::dims::{Metric, ModelRules};
use crate::record::Cell;
use crate::record::ScanLoopOutcome;
use crate::results::Published;
use anyhow::Result;
use lru_model::sim::{self, ScanLoopParams, ScanLoopResult};
use lru_model::Config;
use serde::{Deserialize, Serialize};

/// A difference between the model and a measurement worth explaining, in
/// percentage points of the hot set.
pub const FLAG_PP: f64 = 10.0;

/// What the model does not do that the server does, for the reader who
/// weighs a difference.
const SIMPLIFICATIONS: &[&str] = &[
    "the model starts from a pool filled once by a filler table (the seed's cold start); the server's \
     pool holds the freshly loaded scanned table, some of it young (the seed's warm start)",
    "the model reads one page per hot lookup and one page per scanned page; the server also touches \
     the index's root and internal pages, and a scan reads ahead",
    "the model's page cleaner runs exactly once a second and only refills the free list; the server's \
     also flushes and is woken early when the free list runs low",
    "rates are the averages of the residency pass; on the server they fall as hot pages come from disk",
];

/// The model's scan-loop scenario with the parameters of one run.
pub fn model_params(o: &ScanLoopOutcome, rules: ModelRules) -> ScanLoopParams {
    let pool_pages = u32::try_from(o.settings.pool_pages).unwrap_or(u32::MAX);
    ScanLoopParams {
        cfg: rules.config(Config {
            pool_pages,
            old_pct: o.settings.old_blocks_pct,
            old_blocks_time_ms: o.settings.old_blocks_time_ms,
            lru_scan_depth: o.settings.lru_scan_depth,
            ..Config::default()
        }),
        hot_pages: u32::try_from(o.hot_pages).unwrap_or(u32::MAX),
        table_pages: u32::try_from(o.scan_pages).unwrap_or(u32::MAX),
        fill_pages: pool_pages,
        hot_reads_per_sec: o.residency_hot_lookups_per_s.round().max(1.0) as u64,
        scan_pages_per_sec: scan_pages_per_sec(o),
        pause_ms: o.scan_pause_ms.unwrap_or(0),
        warmup_s: o.warmup_seconds,
        scan_s: o.residency_seconds,
        sample_every_s: o.sample_seconds,
        kept_window_s: o.residency_seconds / 2,
        seed: 1,
    }
}

/// The scan's speed while a pass runs: the passes a second of the
/// residency pass, less the pauses between them (a run recorded without
/// its pause counts none).
fn scan_pages_per_sec(o: &ScanLoopOutcome) -> u64 {
    let pause_s = o.scan_pause_ms.unwrap_or(0) as f64 / 1000.0;
    let pass_s = 1.0 / o.residency_scans_per_s - pause_s;
    let per_s = if pass_s.is_finite() && pass_s > 0.0 {
        o.scan_pages as f64 / pass_s
    } else {
        o.residency_scans_per_s * o.scan_pages as f64
    };
    per_s.round().max(1.0) as u64
}

/// One scan-loop cell: measured medians beside the model's medians, as
/// the report's table prints them and summary.json's `scan_resistance`
/// holds them (absent where not measured, or where the model has no
/// policy for the variant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    #[serde(flatten)]
    pub cell: Cell,
    pub settings: String,
    pub runs: usize,
    /// hot set kept, second half of the residency pass, in percent
    pub kept_pct: Option<f64>,
    pub model_kept_pct: Option<f64>,
    /// model minus measurement, in points of the hot set
    pub model_minus_measured_pp: Option<f64>,
    /// scanned pages in the young sublist, same samples
    pub scan_young: Option<f64>,
    pub model_scan_young: Option<f64>,
    /// scanned pages entering the young sublist per second over the
    /// residency pass (the slope, not the level)
    #[serde(default)]
    pub scan_young_per_s: Option<f64>,
    #[serde(default)]
    pub model_scan_young_per_s: Option<f64>,
    /// from the measured pass, which samples nothing
    pub hot_lookups_per_s: Option<f64>,
    pub scans_per_s: Option<f64>,
    /// the largest share of a residency pass spent sampling
    pub sampling_share: Option<f64>,
    /// the longest sample, in ms
    pub longest_sample_ms: Option<f64>,
    /// the hot set kept that a source published for this cell (the
    /// matrix's `[[published]]`), as a range from low to high
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_kept_pct: Option<[f64; 2]>,
    /// likewise, the scanned pages entering the young sublist a second
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_scan_young_per_s: Option<[f64; 2]>,
}

fn outcomes<'a>(c: &'a CellRuns) -> Vec<&'a ScanLoopOutcome> {
    c.counted
        .iter()
        .filter_map(|r| r.outcome.as_ref()?.scan_loop.as_ref())
        .collect()
}

/// The model's run for each counted run, with that run's residency pass
/// length.
fn model_runs(c: &CellRuns) -> Vec<(ScanLoopResult, u64)> {
    c.counted
        .iter()
        .filter_map(|r| {
            let o = r.outcome.as_ref()?.scan_loop.as_ref()?;
            let rules = o.model_policy?.model();
            let m = sim::scan_loop(rules.policy, &model_params(o, rules)).ok()?;
            Some((m, o.residency_seconds))
        })
        .collect()
}

/// The model's rate of scanned pages entering the young sublist, over the
/// same samples as the measurement's (`ScanLoopOutcome::scan_young_per_s`:
/// from the scans' start to before the pass's end).
fn model_young_rate(m: &ScanLoopResult, residency_seconds: u64) -> Option<f64> {
    let points: Vec<(f64, f64)> = m
        .samples
        .iter()
        .filter(|s| s.t_s >= 0.0 && s.t_s < residency_seconds as f64)
        .map(|s| (s.t_s, s.scan_young as f64))
        .collect();
    crate::stats::slope(&points)
}

/// The figure of `metric` published for `c`'s cell, if any.
fn published(a: &Analysis, c: &CellRuns, metric: Metric) -> Option<[f64; 2]> {
    let baseline = a
        .baseline_of(&c.cell)
        .map_or(crate::dims::BASE, |b| b.cell.variant.as_str());
    a.manifest
        .published
        .iter()
        .find(|p| p.metric == metric && p.is_for(&c.cell.workload, &c.cell.variant, baseline))
        .map(|p| p.range())
}

pub fn rows(a: &Analysis) -> Vec<Row> {
    a.cells
        .iter()
        .filter_map(|c| {
            let os = outcomes(c);
            let first = *os.first()?;
            let models = model_runs(c);
            let med = |v: Vec<f64>| median(&v);
            let s = &first.settings;
            let kept_pct = c.median(Metric::HotKeptPct);
            let model_kept_pct = med(models.iter().map(|(m, _)| m.kept * 100.0).collect());
            let sampling = os
                .iter()
                .map(|o| o.sampling_cost())
                .reduce(|x, y| (x.0.max(y.0), x.1.max(y.1)));
            Some(Row {
                cell: c.cell.clone(),
                settings: format!(
                    "pool {} pages, lru_scan_depth {}, old_blocks_time {} ms",
                    s.pool_pages, s.lru_scan_depth, s.old_blocks_time_ms
                ),
                runs: os.len(),
                kept_pct,
                model_kept_pct,
                model_minus_measured_pp: model_kept_pct.zip(kept_pct).map(|(m, k)| m - k),
                scan_young: c.median(Metric::ScanYoungPages),
                model_scan_young: med(models.iter().map(|(m, _)| m.scan_young_avg).collect()),
                scan_young_per_s: c.median(Metric::ScanYoungPerS),
                model_scan_young_per_s: med(models
                    .iter()
                    .filter_map(|(m, pass)| model_young_rate(m, *pass))
                    .collect()),
                hot_lookups_per_s: c.median(Metric::HotLookupsPerS),
                scans_per_s: med(os.iter().map(|o| o.scans_per_s).collect()),
                sampling_share: sampling.map(|s| s.0),
                longest_sample_ms: sampling.map(|s| s.1),
                published_kept_pct: published(a, c, Metric::HotKeptPct),
                published_scan_young_per_s: published(a, c, Metric::ScanYoungPerS),
            })
        })
        .collect()
}

/// The report's blocks, or none when no cell ran scan-loop.
pub fn blocks(rows: &[Row], published: &[Published]) -> Vec<Block> {
    if rows.is_empty() {
        return Vec::new();
    }
    let mut b = vec![Block::Heading(
        2,
        "Scan resistance: measured and modelled".into(),
    )];
    b.push(Block::Para(
        "Hot set kept: the share of the hot table's pages in the pool, averaged over the samples of \
         the second half of the residency pass (scans running), always of the pages the warm-up \
         left resident (the chart and the model divide by the same); scan young: the scanned \
         table's pages in the young sublist over the same samples, a level that includes what the \
         load left young; scan young / s: the rate at which they enter it while the scans run \
         (the least-squares slope over every sample of the pass; seed 001 counted about 35 a \
         second), which the load's leftovers do not change. A sample due at the very end of the \
         pass is left out of all of them: the lookups and scans may have stopped before it was \
         taken. The model column runs the LRU model's \
         scan-loop scenario with each run's pool size, settings, table sizes and rates (medians \
         over the runs). Lookups and scans per second come from the measured pass, which samples \
         nothing."
            .into(),
    ));
    let (table, flagged) = residency_table(rows);
    b.push(table);
    b.extend(published_sources(published));
    let cost: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let (share, max_ms) = r.sampling_share.zip(r.longest_sample_ms)?;
            Some(format!(
                "{}: up to {:.1}% of the residency pass, longest sample {:.0} ms",
                r.cell.variant,
                share * 100.0,
                max_ms
            ))
        })
        .collect();
    b.push(Block::Para(format!(
        "What the sampling cost (each sample walks the pool through \
         INNODB_BUFFER_PAGE; it runs only in the residency pass): {}.",
        cost.join("; ")
    )));
    if rows.iter().any(|r| r.model_kept_pct.is_none()) {
        b.push(Block::Para(
            "n/a in the model columns: the LRU model has no policy for that variant (gate and \
             clock change rules of their own)."
                .into(),
        ));
    }
    if !flagged.is_empty() {
        b.push(Block::Para(format!(
            "Model and measurement differ by more than {FLAG_PP:.0} points: {}. What the model \
             leaves out, to weigh against the spread between repetitions:",
            flagged.join("; ")
        )));
        b.push(Block::Bullets(
            SIMPLIFICATIONS.iter().map(|s| s.to_string()).collect(),
        ));
    }
    b
}

/// A published range as the table prints it: one number, or low-high.
fn range_text(r: Option<[f64; 2]>, digits: usize) -> String {
    match r {
        None => String::new(),
        Some([lo, hi]) if lo == hi => format!("{lo:.digits$}"),
        Some([lo, hi]) => format!("{lo:.digits$}-{hi:.digits$}"),
    }
}

/// One column of the residency table: its header and its cell of a row.
type Column = (&'static str, fn(&Row) -> String);

/// The measured and modelled residency per cell, and the cells where the
/// model is more than `FLAG_PP` points off. A workload column when the
/// rows have more than one workload, published columns when a row has a
/// published figure.
fn residency_table(rows: &[Row]) -> (Block, Vec<String>) {
    let mut workloads: Vec<&str> = rows.iter().map(|r| r.cell.workload.as_str()).collect();
    workloads.dedup();
    let by_workload = workloads.len() > 1;
    let with_published = rows
        .iter()
        .any(|r| r.published_kept_pct.is_some() || r.published_scan_young_per_s.is_some());
    let columns: Vec<Column> = [
        (
            true,
            (
                "tree",
                (|r: &Row| r.cell.tree.clone()) as fn(&Row) -> String,
            ),
        ),
        (by_workload, ("workload", |r| r.cell.workload.clone())),
        (true, ("variant", |r| r.cell.variant.clone())),
        (true, ("settings", |r| r.settings.clone())),
        (true, ("runs", |r| r.runs.to_string())),
        (true, ("hot kept %", |r| num(r.kept_pct, 1))),
        (
            with_published,
            ("published %", |r| range_text(r.published_kept_pct, 0)),
        ),
        (true, ("model %", |r| num(r.model_kept_pct, 1))),
        (
            true,
            ("model - measured (points)", |r| {
                r.model_minus_measured_pp
                    .map(|d| format!("{d:+.1}"))
                    .unwrap_or_else(|| "n/a".into())
            }),
        ),
        (true, ("scan young", |r| num(r.scan_young, 0))),
        (true, ("model scan young", |r| num(r.model_scan_young, 0))),
        (true, ("scan young / s", |r| num(r.scan_young_per_s, 1))),
        (
            with_published,
            ("published scan young / s", |r| {
                range_text(r.published_scan_young_per_s, 0)
            }),
        ),
        (
            true,
            ("model scan young / s", |r| num(r.model_scan_young_per_s, 1)),
        ),
        (true, ("hot lookups/s", |r| num(r.hot_lookups_per_s, 0))),
        (true, ("scans/s", |r| num(r.scans_per_s, 2))),
    ]
    .into_iter()
    .filter_map(|(shown, column)| shown.then_some(column))
    .collect();
    let flagged = rows
        .iter()
        .filter_map(|r| {
            let d = r.model_minus_measured_pp.filter(|d| d.abs() > FLAG_PP)?;
            Some(format!(
                "{} {}: model {d:+.0} points",
                r.cell.variant, r.cell.workload
            ))
        })
        .collect();
    let table = Block::Table {
        header: columns.iter().map(|(h, _)| h.to_string()).collect(),
        rows: rows
            .iter()
            .map(|r| columns.iter().map(|(_, cell)| cell(r)).collect())
            .collect(),
    };
    (table, flagged)
}

/// Who published the figures beside the table, and for which workloads.
fn published_sources(published: &[Published]) -> Option<Block> {
    let mut sources: Vec<(&str, Vec<&str>)> = Vec::new();
    for p in published {
        match sources.iter_mut().find(|(s, _)| *s == p.source) {
            Some((_, w)) if !w.contains(&p.workload.as_str()) => w.push(&p.workload),
            Some(_) => {}
            None => sources.push((&p.source, vec![&p.workload])),
        }
    }
    (!sources.is_empty()).then(|| {
        Block::Para(format!(
            "Published columns: the figures a source gives for the same cell, as it gives them (a \
             range where it gives one; blank where it gives none): {}.",
            sources
                .iter()
                .map(|(s, w)| format!("{s} ({})", w.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        ))
    })
}

/// Hot set kept over time, one line per variant (median over the runs at
/// each sample time).
pub fn chart(a: &Analysis) -> Result<Option<(String, String, String)>> {
    let mut lines: Vec<Line> = Vec::new();
    for c in &a.cells {
        let os = outcomes(c);
        let Some(first) = os.first() else {
            continue;
        };
        let mut points = Vec::new();
        let passes: Vec<(&ScanLoopOutcome, Vec<&crate::record::Sample>)> =
            os.iter().map(|o| (*o, o.during_pass().collect())).collect();
        for (i, s) in first.during_pass().enumerate() {
            let at_i: Vec<f64> = passes
                .iter()
                .filter_map(|(o, samples)| {
                    let x = samples.get(i)?;
                    (o.hot_pages > 0).then(|| x.hot_resident as f64 * 100.0 / o.hot_pages as f64)
                })
                .collect();
            if let Some(m) = median(&at_i) {
                points.push((s.t_s, m, None));
            }
        }
        if points.is_empty() {
            continue;
        }
        // one variant's workloads apart by the marker
        let mut style = super::series_style::style_of(a, &c.cell);
        let series = if a.manifest.workloads.len() > 1 {
            style.marker += a.manifest.workload_rank(&c.cell.workload);
            format!("{} {}", c.cell.variant, c.cell.workload)
        } else {
            c.cell.variant.clone()
        };
        lines.push(Line {
            series,
            style,
            points,
        });
    }
    if lines.is_empty() {
        return Ok(None);
    }
    let title = "Hot set kept while the scans run (median of the runs)".to_string();
    let svg = charts::lines(
        &title,
        "seconds since the scans started",
        "hot pages resident (%)",
        &lines,
    )?;
    Ok(Some(("scan-hot-kept.svg".into(), title, svg)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(scans_per_s: f64, pause_ms: Option<u64>) -> ScanLoopOutcome {
        let end = serde_json::json!({"t_s": 0.0, "hot_resident": 0, "hot_young": 0,
            "scan_resident": 0, "scan_young": 0, "made_young": 0, "sample_ms": 0.0});
        serde_json::from_value(serde_json::json!({
            "settings": {"pool_pages": 16384, "old_blocks_pct": 37,
                         "old_blocks_time_ms": 1000, "lru_scan_depth": 1024},
            "hot_pages": 100, "scan_pages": 10000, "warmup_seconds": 60,
            "residency_seconds": 150, "sample_seconds": 20, "scan_pause_ms": pause_ms,
            "samples": [], "residency_hot_lookups_per_s": 1000.0,
            "residency_scans_per_s": scans_per_s, "hot_lookups_per_s": 1000.0,
            "scans_per_s": scans_per_s, "end": end,
        }))
        .unwrap()
    }

    fn row(workload: &str, kept: f64, published: Option<[f64; 2]>) -> Row {
        Row {
            cell: Cell {
                tree: "mysql-9.7.2".into(),
                variant: "base".into(),
                workload: workload.into(),
                threads: 1,
            },
            settings: "pool 16384 pages".into(),
            runs: 3,
            kept_pct: Some(kept),
            model_kept_pct: Some(kept),
            model_minus_measured_pp: Some(0.0),
            scan_young: None,
            model_scan_young: None,
            scan_young_per_s: None,
            model_scan_young_per_s: None,
            hot_lookups_per_s: None,
            scans_per_s: None,
            sampling_share: None,
            longest_sample_ms: None,
            published_kept_pct: published,
            published_scan_young_per_s: None,
        }
    }

    fn table(rows: &[Row]) -> (Vec<String>, Vec<Vec<String>>) {
        match residency_table(rows).0 {
            Block::Table { header, rows } => (header, rows),
            other => panic!("not a table: {other:?}"),
        }
    }

    #[test]
    fn published_figures_and_workloads_get_columns_only_when_there_are_some() {
        let (header, _) = table(&[row("hot", 50.0, None)]);
        assert!(!header
            .iter()
            .any(|h| h == "workload" || h.starts_with("published")));
        let (header, rows) = table(&[
            row("hot-300k", 45.0, Some([41.0, 41.0])),
            row("hot-15k", 99.0, None),
            row("d128", 92.0, Some([91.0, 93.0])),
        ]);
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        assert_eq!(at("workload"), 1);
        assert_eq!(at("published %"), at("hot kept %") + 1);
        let published: Vec<&str> = rows.iter().map(|r| r[at("published %")].as_str()).collect();
        assert_eq!(published, ["41", "", "91-93"]);
        assert_eq!(rows[0][at("workload")], "hot-300k");
        assert!(rows.iter().all(|r| r.len() == header.len()));
    }

    #[test]
    fn the_sources_are_named_once_with_their_workloads() {
        let p = |source: &str, workload: &str| Published {
            source: source.into(),
            workload: workload.into(),
            variant: None,
            metric: Metric::HotKeptPct,
            value: 1.0,
            up_to: None,
        };
        let Some(Block::Para(text)) = published_sources(&[
            p("seed", "a"),
            p("seed", "a"),
            p("seed", "b"),
            p("ticket", "a"),
        ]) else {
            panic!("no paragraph");
        };
        assert!(text.ends_with("seed (a, b); ticket (a)."), "{text}");
        assert!(published_sources(&[]).is_none());
    }

    #[test]
    fn the_model_scans_at_the_speed_of_a_pass_and_pauses_as_the_run_did() {
        // back to back: a pass a second is the table a second
        let o = outcome(1.0, Some(0));
        assert_eq!(scan_pages_per_sec(&o), 10_000);
        // a pass every 2.5 s with 2 s of pause: the pass took 0.5 s
        let o = outcome(0.4, Some(2000));
        assert_eq!(scan_pages_per_sec(&o), 20_000);
        let p = model_params(&o, crate::dims::ModelPolicy::Classic.model());
        assert_eq!((p.pause_ms, p.scan_pages_per_sec), (2000, 20_000));
        // a run recorded without its pause: the average, as before
        let o = outcome(0.4, None);
        assert_eq!(scan_pages_per_sec(&o), 4_000);
        assert_eq!(
            model_params(&o, crate::dims::ModelPolicy::Classic.model()).pause_ms,
            0
        );
    }
}
