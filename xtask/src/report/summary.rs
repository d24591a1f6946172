//! `summary.json`: the numbers of every cell (the keys of schema 1 kept:
//! tree, variant, workload, runs, failed, median, qps, qps_vs_base,
//! total_queries, total_pages_made_young, build_key, patch_sha256), plus
//! threads, busy runs, intervals, and the verdicts.

use crate::decide::analysis::{Analysis, CellRuns, Comparison, LEVEL};
use crate::decide::verdict::Verdict;
use crate::dims::{Metric, METRICS};
use crate::record::RunResult;
use crate::results::sweeps::{Sweeps, YoungCounts};
use crate::results::Manifest;
use crate::stats::{self, Interval, Spread};
use serde::{Deserialize, Serialize};

/// Medians over the counted runs of a cell: one per metric the table
/// (`dims::METRICS`) marks `in_medians`, in its order; a metric no run
/// measured is null, never 0. Written as an object keyed by metric name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Medians(pub Vec<(Metric, Option<f64>)>);

impl Medians {
    pub fn of(c: &CellRuns) -> Medians {
        Medians(
            METRICS
                .iter()
                .filter(|i| i.in_medians)
                .map(|i| (i.metric, c.median(i.metric)))
                .collect(),
        )
    }

    pub fn get(&self, metric: Metric) -> Option<f64> {
        self.0
            .iter()
            .find(|(m, _)| *m == metric)
            .and_then(|(_, v)| *v)
    }
}

impl Serialize for Medians {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (m, v) in &self.0 {
            map.serialize_entry(m.name(), v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Medians {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Medians, D::Error> {
        let raw: serde_json::Map<String, serde_json::Value> = Deserialize::deserialize(d)?;
        raw.into_iter()
            .map(|(name, v)| {
                let m = Metric::parse(&name)
                    .ok_or_else(|| serde::de::Error::custom(format!("unknown metric `{name}`")))?;
                Ok((m, v.as_f64()))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Medians)
    }
}

/// One cell of `summary.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SummaryRow {
    pub tree: String,
    pub variant: String,
    pub workload: String,
    pub threads: u32,
    /// counted runs (successful, host not busy)
    pub runs: usize,
    pub failed: usize,
    /// successful runs on a busy host, left out
    pub busy_runs: usize,
    pub median: Option<Medians>,
    pub qps: Option<Spread>,
    /// confidence interval of the median QPS
    pub qps_interval: Option<Interval>,
    /// QPS against the same tree's baseline, same workload and threads
    pub qps_vs_base: Option<Comparison>,
    pub total_queries: u64,
    pub total_pages_made_young: u64,
    /// what pages made young counts in this build: promotions on access,
    /// or (the fix) blocks a sweep moved; absent without a build record
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages_made_young_counts: Option<YoungCounts>,
    /// where they count sweep moves: whether a sweep ran in the counted
    /// runs (`results::sweeps`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweeps: Option<Sweeps>,
    pub build_key: Option<String>,
    pub patch_sha256: Option<String>,
}

/// summary.json's own schema: 3 writes verdicts as numbers (kind,
/// metric, unit, limits, and per cell the estimate and its interval);
/// 1 and 2 wrote them as sentences, which are still read.
pub const SUMMARY_SCHEMA_VERSION: u32 = 3;

/// A verdict as summary.json holds it: numbers from schema 3 on, the
/// sentences of schemas 1 and 2 before.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum SummaryVerdict {
    Numbers(Verdict),
    Words(WordsVerdict),
}

/// A verdict of schema 1 or 2: its answer and the sentences that said why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WordsVerdict {
    pub question: String,
    pub verdict: crate::decide::verdict::Answer,
    #[serde(default)]
    pub rule: String,
    pub details: Vec<String>,
    #[serde(default)]
    pub runs_to_decide: Option<usize>,
}

impl SummaryVerdict {
    pub fn question(&self) -> &str {
        match self {
            SummaryVerdict::Numbers(v) => &v.question,
            SummaryVerdict::Words(v) => &v.question,
        }
    }

    pub fn answer(&self) -> crate::decide::verdict::Answer {
        match self {
            SummaryVerdict::Numbers(v) => v.verdict,
            SummaryVerdict::Words(v) => v.verdict,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Summary {
    pub schema_version: u32,
    pub matrix: String,
    pub description: String,
    pub host: String,
    /// the revision that made the (first) run
    pub tool_revision: String,
    /// every revision that made a run, in the order first seen
    #[serde(default)]
    pub run_revisions: Vec<String>,
    /// the revision that rendered this summary, when recorded
    #[serde(default)]
    pub reported_by: Option<String>,
    pub threshold_pct: f64,
    pub busy_cpu_bound: f64,
    pub control: Option<String>,
    pub until_decided: Option<u32>,
    pub interval_level: f64,
    pub counted_runs: usize,
    pub busy_runs: usize,
    pub failed_runs: usize,
    pub verdicts: Vec<SummaryVerdict>,
    pub rows: Vec<SummaryRow>,
    /// the relative table: per cell and geometric means
    /// (`report::relative`)
    #[serde(default)]
    pub relative: Vec<super::relative::RelativeRow>,
    /// the scan-resistance table, measured beside modelled
    /// (`report::scan`); empty without scan-loop cells
    #[serde(default)]
    pub scan_resistance: Vec<super::scan::Row>,
    /// every profile of a cell's profile pass (`report::stacks`); absent
    /// without profiles
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stacks: Vec<super::stacks::StackRow>,
    /// the cost passes per cell and the functions whose cost moved most
    /// (`report::cost`); absent without cost passes
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost: Vec<super::cost::CostRow>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub function_shifts: Vec<super::cost::FunctionShift>,
    /// traced cells: the server's hit ratio on its page stream beside the
    /// model's replays (`report::model_replay`); absent without a trace
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model_replay: Vec<super::model_replay::ReplayRow>,
    /// traced cells: their misses charged to what the server did to each
    /// page in its last stay (`report::trace_stays`); absent without a trace or
    /// in records made before it was counted
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stays: Vec<super::trace_stays::StaysRow>,
}

pub fn row(a: &Analysis, c: &CellRuns) -> SummaryRow {
    let measured: Vec<_> = c.counted.iter().filter_map(|r| r.measured()).collect();
    let median = (!c.counted.is_empty()).then(|| Medians::of(c));
    let build = c.all().find_map(|r| r.build.as_ref());
    SummaryRow {
        tree: c.cell.tree.clone(),
        variant: c.cell.variant.clone(),
        workload: c.cell.workload.clone(),
        threads: c.cell.threads,
        runs: c.counted.len(),
        failed: c.failed.len(),
        busy_runs: c.busy.len(),
        median,
        qps: stats::spread(&c.values(Metric::Qps)),
        qps_interval: stats::median_ci(&c.values(Metric::Qps), LEVEL),
        qps_vs_base: a
            .comparisons
            .iter()
            .find(|(cell, _)| cell == &c.cell)
            .map(|(_, cmp)| cmp.clone()),
        total_queries: measured.iter().map(|m| m.sysbench.queries).sum(),
        total_pages_made_young: measured.iter().map(|m| m.pages_made_young).sum(),
        pages_made_young_counts: c.young_counts(),
        sweeps: c
            .sweeps()
            .filter(|_| c.young_counts() == Some(YoungCounts::SweepMoves)),
        build_key: build.map(|b| b.key_hash.clone()),
        patch_sha256: build.and_then(|b| b.patch.as_ref().map(|p| p.sha256.clone())),
    }
}

pub fn summary(a: &Analysis, verdicts: &[Verdict], stacks: &[super::stacks::StackRow]) -> Summary {
    let m = &a.manifest;
    let first = &a.results[0];
    let (counted, busy, failed) = a.counts();
    Summary {
        schema_version: SUMMARY_SCHEMA_VERSION,
        matrix: m.name.clone(),
        description: m.description.clone(),
        host: format!("{} ({})", first.host.hostname, first.host.label()),
        tool_revision: first.tool_revision.clone(),
        run_revisions: a.run_revisions(),
        reported_by: a.reported_by.clone(),
        threshold_pct: m.threshold_pct,
        busy_cpu_bound: m.busy_cpu_bound,
        control: m.control.clone(),
        until_decided: m.until_decided,
        interval_level: LEVEL,
        counted_runs: counted,
        busy_runs: busy,
        failed_runs: failed,
        verdicts: verdicts
            .iter()
            .cloned()
            .map(SummaryVerdict::Numbers)
            .collect(),
        rows: a.cells.iter().map(|c| row(a, c)).collect(),
        relative: super::relative::rows(a),
        scan_resistance: super::scan::rows(a),
        stacks: stacks.to_vec(),
        cost: super::cost::rows(a),
        function_shifts: super::cost::shifts(a),
        model_replay: super::model_replay::rows(a),
        stays: super::trace_stays::rows(a),
    }
}

/// The rows of results with no manifest (order as first seen, baselines
/// first): for tests and tools that hold results in memory.
pub fn summarize(results: &[RunResult]) -> Vec<SummaryRow> {
    let a = Analysis::new(Manifest::derive(results), results);
    a.cells.iter().map(|c| row(&a, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::verdict::Answer;

    #[test]
    fn a_summary_of_schema_3_reads_back_and_verdicts_of_schema_2_still_read() {
        let path = crate::util::repo_root().join("reports/hit-ratio-turnover/summary.json");
        let s: Summary = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(s.schema_version, SUMMARY_SCHEMA_VERSION);
        let SummaryVerdict::Numbers(v) = &s.verdicts[0] else {
            panic!("a schema 3 verdict read as words: {:?}", s.verdicts[0]);
        };
        assert_eq!(v.cells.len(), 8);
        assert!(v.cells.iter().all(|c| c.estimate.is_some()));
        // a verdict of schema 2: sentences, no numbers
        let old: SummaryVerdict = serde_json::from_value(serde_json::json!({
            "question": "fixed keeps base's hit ratio (at most 0.2 points below)",
            "verdict": "fail",
            "rule": "margin: pass when the median of the variant is at least …",
            "details": ["10.11.18 pareto-unlimited 2t: buffer pool hit ratio (%) of `fixed` 87.19 (median of 2) against `base` 88.97 (margin 0.2000)"],
            "runs_to_decide": null
        }))
        .unwrap();
        assert!(matches!(old, SummaryVerdict::Words(_)), "{old:?}");
        assert_eq!(old.answer(), Answer::Fail);
        assert_eq!(
            old.question(),
            "fixed keeps base's hit ratio (at most 0.2 points below)"
        );
    }
}
