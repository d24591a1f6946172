//! The report's SVG charts: QPS per workload and variant with its
//! interval; pages made young and buf_pool.mutex acquisitions per query;
//! the change against the baseline of QPS and of every metric a
//! no-slower question decides, with the allowed change and each bar's
//! decision; QPS against threads where a workload ran at several thread
//! counts; hit ratio against the pool's turnover where workloads differ
//! only in rate. A variant keeps one style (`series_style::style_of`) in all of them.

use super::series_style::style_of;
use crate::charts::{self, Band, Bar, BarGroup, Line, RefLine, Style};
use crate::decide::analysis::{Analysis, Comparison};
use crate::decide::verdict;
use crate::dims::{Metric, METRICS};
use crate::record::Cell;
use crate::results::question::{Kind, Question};
use anyhow::Result;

pub struct Chart {
    pub file: String,
    /// the caption with the note after "; ": the Markdown report's alt text
    pub title: String,
    /// the caption alone: the Jira comment's alt text (a comment holds
    /// 32,767 characters, and Jira shows no alt text)
    pub caption: String,
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
        let label = group_label(&c.cell);
        let bar = Bar {
            series: series(a, &c.cell),
            style: style_of(a, &c.cell),
            value: c.median(metric),
            interval: if with_interval {
                c.interval(metric).map(|i| (i.lo, i.hi))
            } else {
                None
            },
            label: Vec::new(),
        };
        push_bar(&mut groups, label, bar);
    }
    groups
}

/// The group a cell's bar is drawn in: its workload at its thread count.
fn group_label(cell: &Cell) -> String {
    format!("{} {}t", cell.workload, cell.threads)
}

/// Adds `bar` to the group `label`, which it starts when new.
fn push_bar(groups: &mut Vec<BarGroup>, label: String, bar: Bar) {
    match groups.iter_mut().find(|g| g.label == label) {
        Some(g) => g.bars.push(bar),
        None => groups.push(BarGroup {
            label,
            bars: vec![bar],
        }),
    }
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

/// The metrics a change chart is drawn for: QPS, which every comparison
/// gives, then each metric a no-slower (or no-costlier) question decides.
fn change_metrics(a: &Analysis) -> Vec<Metric> {
    let mut metrics = vec![Metric::Qps];
    for q in &a.manifest.questions {
        if q.kind == Kind::NoSlower && !metrics.contains(&q.metric()) {
            metrics.push(q.metric());
        }
    }
    metrics
}

/// The no-slower question that decides `cell` against `against` on
/// `metric`, when one does: the first in the matrix that names the cell
/// and holds it against that very cell.
fn deciding<'q>(
    a: &'q Analysis,
    metric: Metric,
    cell: &Cell,
    against: &Cell,
) -> Option<&'q Question> {
    a.manifest.questions.iter().find(|q| {
        q.kind == Kind::NoSlower
            && q.metric() == metric
            && verdict::concerns(a, q, cell)
            && verdict::against_cell(a, q, cell) == *against
    })
}

/// One bar of a change chart: the change of the median with its
/// interval, labelled with the change, its decision and the interval's
/// method.
fn change_bar(a: &Analysis, cell: &Cell, c: &Comparison, decision: &str) -> Bar {
    let mut label = Vec::new();
    if let Some(change) = c.change_pct {
        label.push(format!("{change:+.1}%"));
        label.push(decision.to_string());
        if let Some(i) = &c.ratio_interval {
            label.push(i.method.short().to_string());
        }
    }
    Bar {
        series: format!("{} / {}", series(a, cell), c.against),
        style: style_of(a, cell),
        value: c.change_pct,
        interval: c
            .ratio_interval
            .as_ref()
            .map(|i| ((i.lo - 1.0) * 100.0, (i.hi - 1.0) * 100.0)),
        label,
    }
}

/// A metric of each variant against its baseline, in percent (a bar below
/// zero is a drop), with the interval of the change: the comparison
/// table's figures, drawn. Where a no-slower question decides a bar, the
/// allowed change is a dashed line and the bar says pass, fail or
/// undecided; elsewhere the lines are the threshold beyond which a change
/// counts and the bar says what the comparison found. Controls are drawn
/// too, so the noise a reader should expect stands beside each change.
fn change_chart(a: &Analysis, metric: Metric) -> Result<Option<Chart>> {
    let mut groups: Vec<BarGroup> = Vec::new();
    let mut coverages: Vec<String> = Vec::new();
    let mut rules: Vec<RefLine> = Vec::new();
    let mut a_question_decides = false;
    for (cell, qps) in &a.comparisons {
        let c = if metric == Metric::Qps {
            qps.clone()
        } else {
            a.compare(cell, &qps.against, metric)
        };
        let against = cell.with_variant(&c.against);
        let decision = match deciding(a, metric, cell, &against) {
            Some(q) => {
                let y = verdict::allowed_change(a, q);
                if !rules.iter().any(|r| r.y == y) {
                    rules.push(RefLine {
                        y,
                        label: format!("allowed change {y:+}%"),
                    });
                }
                a_question_decides = true;
                verdict::no_slower(a, q, cell).answer.word().to_string()
            }
            None if c.control => "control".to_string(),
            None => c.verdict.words().to_string(),
        };
        if let Some(i) = &c.ratio_interval {
            let words = format!("{} = {}", i.method.short(), i.coverage_words());
            if !coverages.contains(&words) {
                coverages.push(words);
            }
        }
        let label = format!("{} {}t", cell.workload, cell.threads);
        push_bar(&mut groups, label, change_bar(a, cell, &c, &decision));
    }
    if !groups
        .iter()
        .any(|g| g.bars.iter().any(|b| b.value.is_some()))
    {
        return Ok(None);
    }
    let lines = if a_question_decides {
        "dashed: the allowed change of the question that decides the bar"
    } else {
        rules = [1.0, -1.0]
            .map(|sign| {
                let y = sign * a.manifest.threshold_pct;
                RefLine {
                    y,
                    label: format!("{y:+}%"),
                }
            })
            .to_vec();
        "dashed: the threshold beyond which a change counts"
    };
    let note = if coverages.is_empty() {
        format!("no interval: too few runs; {lines}")
    } else {
        format!(
            "whiskers: the interval of the change, {}; {lines}",
            coverages.join("; ")
        )
    };
    let (file, title, y_label) = if metric == Metric::Qps {
        (
            "qps-change.svg".to_string(),
            "QPS against the baseline: change (%), paired where the runs were".to_string(),
            "change of QPS (%)".to_string(),
        )
    } else {
        (
            format!("{}-change.svg", metric.name().replace('_', "-")),
            format!(
                "{} against the baseline: change (%), paired where the runs were",
                metric.words()
            ),
            "change (%)".to_string(),
        )
    };
    let (drawn, title, caption) = titled(title, Some(note));
    Ok(Some(Chart {
        file,
        svg: charts::grouped_bars(&drawn, &y_label, &groups, &rules)?,
        title,
        caption,
    }))
}

/// The metrics the questions decide that no other chart draws, each with
/// the ones that say the same thing another way: a hit ratio brings the
/// pages read per query (the loss as work). A no-slower question's metric
/// is drawn as its change instead.
fn question_metrics(a: &Analysis) -> Vec<Metric> {
    let charted = |m: Metric| METRICS.iter().any(|i| i.metric == m && i.chart.is_some());
    let mut out: Vec<Metric> = Vec::new();
    for q in &a.manifest.questions {
        if q.kind == Kind::NoSlower {
            continue;
        }
        let companions: &[Metric] = match q.metric() {
            Metric::HitRatioPct => &[Metric::PagesReadPerQuery],
            _ => &[],
        };
        for &m in std::iter::once(&q.metric()).chain(companions) {
            if !charted(m) && !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out
}

/// The region each margin question on `metric` allows, as a band under
/// its baseline's series (one per tree the question asks about): the
/// baseline less the margin up to the baseline.
fn margin_bands(a: &Analysis, metric: Metric) -> Vec<Band> {
    let mut bands: Vec<Band> = Vec::new();
    for q in &a.manifest.questions {
        let margin = q.margin.unwrap_or(0.0);
        if q.kind != Kind::NotBelow || q.metric() != metric || margin <= 0.0 {
            continue;
        }
        let against = q.against();
        let unit = if metric.name().ends_with("_pct") {
            " points"
        } else {
            ""
        };
        // the baseline is in the question's trees, or in its against_tree
        let baseline_tree = |tree: &str| match &q.against_tree {
            Some(t) => t == tree,
            None => q.trees.is_empty() || q.trees.iter().any(|t| t == tree),
        };
        // the groups of the workloads the question asks about; every
        // group when it names none, and no band when none of those it
        // names ran
        let mut groups: Vec<String> = Vec::new();
        for c in a
            .cells
            .iter()
            .filter(|c| q.workloads.contains(&c.cell.workload))
        {
            let label = group_label(&c.cell);
            if !groups.contains(&label) {
                groups.push(label);
            }
        }
        if !q.workloads.is_empty() && groups.is_empty() {
            continue;
        }
        let mut baselines: Vec<String> = Vec::new();
        for c in &a.cells {
            let series = series(a, &c.cell);
            if c.cell.variant == against
                && baseline_tree(&c.cell.tree)
                && !baselines.contains(&series)
            {
                baselines.push(series);
            }
        }
        for series in baselines {
            match bands.iter_mut().find(|b| b.series == series) {
                // another question with this margin on this baseline: the
                // band covers its workloads too
                Some(b) if b.below == margin => {
                    if groups.is_empty() {
                        b.groups.clear();
                    } else if !b.groups.is_empty() {
                        for g in &groups {
                            if !b.groups.contains(g) {
                                b.groups.push(g.clone());
                            }
                        }
                    }
                }
                // another margin on this baseline: the first band stays
                Some(_) => {}
                None => bands.push(Band {
                    label: format!("{series} less {margin}{unit}: the margin"),
                    series,
                    below: margin,
                    groups: groups.clone(),
                }),
            }
        }
    }
    bands
}

/// The medians of a metric a question decides, with the median's
/// interval, on an axis that spans the values (a hit ratio's few points
/// stay visible), and each bound of a below or above question on it as a
/// dashed line.
fn question_chart(a: &Analysis, metric: Metric) -> Result<Option<Chart>> {
    let groups = groups(a, metric, true);
    if !groups
        .iter()
        .any(|g| g.bars.iter().any(|b| b.value.is_some()))
    {
        return Ok(None);
    }
    let mut rules: Vec<RefLine> = Vec::new();
    for q in &a.manifest.questions {
        let side = match q.kind {
            Kind::Below => "below",
            Kind::Above => "above",
            _ => continue,
        };
        if let (true, Some(y)) = (q.metric() == metric, q.value) {
            if !rules.iter().any(|r| r.y == y) {
                rules.push(RefLine {
                    y,
                    label: format!("bound: {side} {y}"),
                });
            }
        }
    }
    let bands = margin_bands(a, metric);
    let (drawn, title, caption) = titled(
        format!("{}: median per workload and variant", metric.words()),
        Some(band_words(a, metric, &bands)),
    );
    Ok(Some(Chart {
        file: format!("{}.svg", metric.name().replace('_', "-")),
        svg: charts::grouped_points(&drawn, metric.words(), &groups, &rules, &bands)?,
        title,
        caption,
    }))
}

/// Adds `point` to the line of `series`, which it starts when new.
fn add_point(lines: &mut Vec<Line>, series: String, style: Style, point: charts::Point) {
    match lines.iter_mut().find(|l| l.series == series) {
        Some(l) => l.points.push(point),
        None => lines.push(Line {
            series,
            style,
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
        add_point(&mut lines, series(a, &c.cell), style_of(a, &c.cell), point);
    }
    if lines.iter().all(|l| l.points.len() < 3) {
        return Ok(None);
    }
    let mut bands = margin_bands(a, Metric::HitRatioPct);
    bands.retain(|b| lines.iter().any(|l| l.series == b.series));
    let (drawn, title, caption) = titled(
        "Hit ratio against the pool's turnover (medians)".to_string(),
        Some(format!(
            "a point per workload; turnover: the pool's pages over the pages read a second; {}",
            band_words(a, Metric::HitRatioPct, &bands)
        )),
    );
    Ok(Some(Chart {
        file: "hit-ratio-turnover.svg".into(),
        svg: charts::lines_on_data(
            &drawn,
            "pool turnover (s)",
            "buffer pool hit ratio (%)",
            &lines,
            &bands,
        )?,
        title,
        caption,
    }))
}

/// The note of a chart with margin bands: the whiskers, and what the
/// shading is (a median in it is within the margin by eye; the verdict
/// takes the interval of the difference).
fn band_words(a: &Analysis, metric: Metric, bands: &[Band]) -> String {
    let whiskers = whisker_words(a, metric);
    if bands.is_empty() {
        return whiskers;
    }
    format!(
        "{whiskers}; shaded: the baseline less the margin, the region a variant's median must reach; the verdicts decide by the interval of the difference"
    )
}

/// A chart's title with its note on a second line (drawn under the
/// chart), and the same on one line for the report's image text.
fn titled(title: String, note: Option<String>) -> (String, String, String) {
    match note {
        Some(n) => (format!("{title}\n{n}"), format!("{title}; {n}"), title),
        None => (title.clone(), title.clone(), title),
    }
}

pub fn draw(a: &Analysis) -> Result<Vec<Chart>> {
    let mut changes = Vec::new();
    for metric in change_metrics(a) {
        if let Some(chart) = change_chart(a, metric)? {
            changes.push((metric, chart));
        }
    }
    // absolute QPS across workloads 15 times apart flattens a change of a
    // few percent: where the change chart draws QPS against the baseline,
    // it stands for it
    let qps_as_change = changes.iter().any(|(m, _)| *m == Metric::Qps);
    let mut out = Vec::new();
    let mut bars =
        |file: &str, title: String, y: &str, metric: Metric, with_interval: bool| -> Result<()> {
            let g = groups(a, metric, with_interval);
            if g.iter().any(|g| g.bars.iter().any(|b| b.value.is_some())) {
                let note = with_interval.then(|| whisker_words(a, metric));
                let (drawn, title, caption) = titled(title, note);
                out.push(Chart {
                    file: file.into(),
                    svg: charts::grouped_bars(&drawn, y, &g, &[])?,
                    title,
                    caption,
                });
            }
            Ok(())
        };
    // one bar chart per metric the table gives a chart
    for info in METRICS.iter() {
        let Some(chart) = info.chart else { continue };
        if info.metric == Metric::Qps && qps_as_change {
            continue;
        }
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
    out.extend(changes.into_iter().map(|(_, chart)| chart));
    for metric in question_metrics(a) {
        if let Some(chart) = question_chart(a, metric)? {
            out.push(chart);
        }
    }
    if let Some(chart) = turnover_chart(a)? {
        out.push(chart);
    }
    if let Some((file, title, svg)) = super::scan::chart(a)? {
        out.push(Chart {
            file,
            caption: title.clone(),
            title,
            svg,
        });
    }
    for w in &a.manifest.workloads {
        if let Some(chart) = threads_chart(a, w)? {
            out.push(chart);
        }
    }
    Ok(out)
}

/// QPS against threads, for a workload run at more than one thread count.
fn threads_chart(a: &Analysis, w: &str) -> Result<Option<Chart>> {
    let cells: Vec<_> = a.cells.iter().filter(|c| c.cell.workload == w).collect();
    let mut threads: Vec<u32> = cells.iter().map(|c| c.cell.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    if threads.len() < 2 {
        return Ok(None);
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
        add_point(&mut lines, series(a, &c.cell), style_of(a, &c.cell), point);
    }
    if lines.is_empty() {
        return Ok(None);
    }
    let (drawn, title, caption) = titled(
        format!("QPS against threads: {w} (median)"),
        Some(whisker_words(a, Metric::Qps)),
    );
    Ok(Some(Chart {
        file: format!("qps-threads-{}.svg", crate::util::slug(w)),
        svg: charts::lines(&drawn, "threads", "queries per second", &lines)?,
        title,
        caption,
    }))
}
