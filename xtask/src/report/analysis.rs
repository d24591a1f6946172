//! From results to numbers: per cell the counted runs (busy-host runs
//! flagged and left out), medians and intervals; per comparison the change
//! of the median, a bootstrap interval of the ratio, the exact
//! Mann-Whitney p and the smallest p the repetitions allow, the noise
//! floor where a control measured it, and what all that decides.

use crate::dims::{self, Metric, REBUILT_CONTROL};
use crate::record::{Cell, FoldedStacks, RunResult};
use crate::results::metric;
use crate::results::sweeps::{self, Sweeps, YoungCounts};
use crate::results::Manifest;
use crate::stats::{self, Interval, MannWhitney};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Significance level of every test.
pub const ALPHA: f64 = 0.05;
/// Level of the intervals.
pub const LEVEL: f64 = 0.95;
const RESAMPLES: u32 = 2000;
/// A fixed seed: the same results give the same report.
const SEED: u64 = 37992;

/// The runs of one cell.
#[derive(Debug, Clone)]
pub struct CellRuns<'a> {
    pub cell: Cell,
    /// successful and not flagged: what statistics are taken over
    pub counted: Vec<&'a RunResult>,
    /// successful, but the host was busy: flagged and left out
    pub busy: Vec<&'a RunResult>,
    pub failed: Vec<&'a RunResult>,
}

impl CellRuns<'_> {
    /// `m` of the runs statistics are taken over: the counted ones, and
    /// for a metric the host's load cannot move (an instruction count) the
    /// busy-flagged ones too.
    pub fn values(&self, m: Metric) -> Vec<f64> {
        self.taken(m).filter_map(|r| m.of(r)).collect()
    }

    pub fn taken(&self, m: Metric) -> impl Iterator<Item = &&RunResult> {
        let busy: &[&RunResult] = if m.info().host_independent {
            &self.busy
        } else {
            &[]
        };
        self.counted.iter().chain(busy)
    }

    pub fn median(&self, m: Metric) -> Option<f64> {
        median(&self.values(m))
    }

    pub fn interval(&self, m: Metric) -> Option<Interval> {
        stats::median_ci(&self.values(m), LEVEL)
    }

    pub fn all(&self) -> impl Iterator<Item = &&RunResult> {
        self.counted.iter().chain(&self.busy).chain(&self.failed)
    }

    /// What pages made young counts in this cell's build.
    pub fn young_counts(&self) -> Option<YoungCounts> {
        self.all().find_map(|r| sweeps::young_counts(r))
    }

    /// Whether a sweep ran in the counted runs' measured intervals.
    pub fn sweeps(&self) -> Option<Sweeps> {
        sweeps::sweeps_of(self.counted.iter().filter_map(|r| r.measured()))
    }
}

pub fn median(values: &[f64]) -> Option<f64> {
    stats::spread(values).map(|s| s.median)
}

/// What a comparison shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// significantly higher, beyond the threshold and the noise floor
    Higher,
    Lower,
    /// no change shown: the change of the median is within the threshold,
    /// or beyond it but within the noise floor (which says nothing of how
    /// large a change the runs rule out: that is `NonInferiority`'s)
    NoChange,
    /// too few runs to tell, or a change beyond the threshold that is not
    /// significant
    Undecided,
}

impl Decision {
    pub fn words(self) -> &'static str {
        match self {
            Decision::Higher => "higher",
            Decision::Lower => "lower",
            Decision::NoChange => "no change shown",
            Decision::Undecided => "undecided",
        }
    }
}

/// Whether a change is no worse than an allowed one, decided by the
/// interval of the change alone (the noise floor plays no part: a noisier
/// control must not make a pass easier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NonInferiority {
    /// a 95% interval lies on the good side of the allowed change
    Shown,
    /// a 95% interval lies on the bad side of it
    Refuted,
    /// the interval reaches across it, or no 95% interval exists
    Open,
}

/// A candidate cell against a baseline cell on one metric. Serialized as
/// summary.json's `qps_vs_base` (its keys of schema 1 kept).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub against: String,
    pub metric: Metric,
    pub base_runs: usize,
    pub runs: usize,
    pub base_median: Option<f64>,
    pub median: Option<f64>,
    /// (median / base median - 1) * 100
    pub change_pct: Option<f64>,
    /// interval of candidate / base with its method and coverage: from
    /// the pairs where the runs were interleaved by repetition and at
    /// least `stats::PAIRED_MIN_PAIRS` pairs were counted
    /// (`stats::paired_ratio_ci`), else unpaired (`stats::ratio_ci`: exact
    /// Hodges-Lehmann below 8 runs a side)
    pub ratio_interval: Option<Interval>,
    /// the pairs the interval was taken over, when it is paired
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<usize>,
    /// exact two-sided p: Wilcoxon's signed-rank test of the pairs where
    /// the interval is paired, else Mann-Whitney's
    pub p_value: Option<f64>,
    /// the smallest p these numbers of runs can give
    pub min_possible_p: Option<f64>,
    /// |change| between the control's two runs of this workload, or
    /// between base and its rebuild where that is larger and the candidate
    /// is another build
    pub noise_floor_pct: Option<f64>,
    /// the control that measured the noise floor, when it is the rebuild
    /// (`base-rebuilt`); absent: the control's two runs of one build
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_floor_from: Option<String>,
    /// this is a control against its baseline (the second run of the same
    /// build, or the rebuild): its |change| is the noise floor it measures
    #[serde(default)]
    pub control: bool,
    pub threshold_pct: f64,
    pub verdict: Decision,
    /// the numbers that decided it, in words
    pub why: String,
    /// when undecided: about how many runs a side would decide it
    /// (`stats::runs_to_decide`)
    #[serde(default)]
    pub runs_to_decide: Option<usize>,
}

/// A noise floor, and the rebuild control's label when that measured it.
#[derive(Debug, Clone, PartialEq)]
pub struct NoiseFloor {
    pub pct: f64,
    pub from: Option<String>,
}

/// Which control a comparison is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    /// the baseline's build run a second time (`base-again`)
    SameBuild,
    /// the baseline rebuilt with its code moved (`base-rebuilt`)
    Rebuilt,
}

impl Control {
    fn words(self) -> &'static str {
        match self {
            Control::SameBuild => "the control's two runs of one build",
            Control::Rebuilt => "the control's two builds of one code",
        }
    }
}

/// `-14.1% to +11.5% (Hodges-Lehmann, exact 97.1%)`: an interval of a
/// ratio as a change in percent, with its method and coverage.
pub fn change_interval_words(i: &Interval) -> String {
    format!(
        "{:+.1}% to {:+.1}% ({})",
        (i.lo - 1.0) * 100.0,
        (i.hi - 1.0) * 100.0,
        i.coverage_words()
    )
}

/// A percentage limit as written in a matrix: -5, +2.5.
fn limit_words(pct: f64) -> String {
    format!("{pct:+}%")
}

impl Comparison {
    pub fn new(
        against: &str,
        metric: Metric,
        base: &[f64],
        cand: &[f64],
        noise_floor_pct: Option<f64>,
        threshold_pct: f64,
    ) -> Comparison {
        Comparison::with_pairs(
            against,
            metric,
            base,
            cand,
            None,
            noise_floor_pct,
            threshold_pct,
        )
    }

    /// `new` with the candidate / baseline ratios of the repetitions where
    /// both ran interleaved (`pair_ratios_of`): from
    /// `stats::PAIRED_MIN_PAIRS` of them the interval is paired.
    pub fn with_pairs(
        against: &str,
        metric: Metric,
        base: &[f64],
        cand: &[f64],
        pairs: Option<&[f64]>,
        noise_floor_pct: Option<f64>,
        threshold_pct: f64,
    ) -> Comparison {
        let floor = noise_floor_pct.map(|pct| NoiseFloor { pct, from: None });
        Comparison::build(
            against,
            metric,
            base,
            cand,
            pairs,
            floor,
            threshold_pct,
            None,
        )
    }

    /// The same, with the candidate / baseline ratios of the repetitions
    /// where both ran interleaved (`pair_ratios`): from
    /// `stats::PAIRED_MIN_PAIRS` of them the interval is paired.
    #[allow(clippy::too_many_arguments)]
    fn build(
        against: &str,
        metric: Metric,
        base: &[f64],
        cand: &[f64],
        pairs: Option<&[f64]>,
        noise_floor: Option<NoiseFloor>,
        threshold_pct: f64,
        control: Option<Control>,
    ) -> Comparison {
        let pairs = pairs.filter(|r| r.len() >= stats::PAIRED_MIN_PAIRS);
        let ratio_interval = match pairs {
            Some(r) => stats::paired_ratio_ci(r, LEVEL, RESAMPLES, SEED),
            None => stats::ratio_ci(base, cand, LEVEL, RESAMPLES, SEED),
        };
        let base_median = median(base);
        let cand_median = median(cand);
        let change_pct = match (base_median, cand_median) {
            (Some(b), Some(c)) => stats::change_pct(b, c),
            _ => None,
        };
        // the test of the pairs where the interval is theirs
        let (p_value, min_possible_p) = match pairs.and_then(stats::signed_rank_exact) {
            Some(t) => (Some(t.p_two_sided), Some(t.min_p)),
            None => {
                let mw: Option<MannWhitney> = stats::mann_whitney_exact(base, cand);
                (mw.map(|m| m.p_two_sided), mw.map(|m| m.min_p))
            }
        };
        let mut c = Comparison {
            against: against.to_string(),
            metric,
            base_runs: base.len(),
            runs: cand.len(),
            base_median,
            median: cand_median,
            change_pct,
            ratio_interval,
            pairs: pairs.map(<[f64]>::len),
            p_value,
            min_possible_p,
            noise_floor_pct: noise_floor.as_ref().map(|n| n.pct),
            noise_floor_from: noise_floor.and_then(|n| n.from),
            control: control.is_some(),
            threshold_pct: threshold_pct.abs(),
            verdict: Decision::Undecided,
            why: String::new(),
            runs_to_decide: None,
        };
        (c.verdict, c.why) = c.decide();
        if c.verdict == Decision::Undecided {
            let estimate = c.runs_to_decide_change(base, cand, pairs);
            c.runs_to_decide = estimate.map(|e| e.n);
            if let Some(e) = estimate {
                c.why.push_str(&format!(" ({})", e.words()));
            }
        }
        if let Some(control) = control {
            c.why = format!(
                "{}: {} is the noise floor it measures; {}",
                control.words(),
                c.change_pct
                    .map(|x| format!("{:.1}%", x.abs()))
                    .unwrap_or_else(|| "n/a".into()),
                c.why
            );
        }
        c
    }

    /// "the noise floor of 8.9%", and which control measured it when it
    /// is the rebuild.
    fn floor_words(&self, n: f64) -> String {
        match &self.noise_floor_from {
            Some(from) => format!("the noise floor of {n:.1}% (`{from}`: two builds of one code)"),
            None => format!("the noise floor of {n:.1}%"),
        }
    }

    /// Beyond the threshold and beyond the noise floor where measured.
    fn beyond(&self, change: f64, threshold: f64) -> bool {
        change.abs() > threshold && self.noise_floor_pct.is_none_or(|n| change.abs() > n)
    }

    /// Runs a side for an undecided comparison: where the change is
    /// within the threshold or the noise floor, the fewest whose exact test
    /// can be significant (then it is "no change shown"); else enough to
    /// show the change significant.
    /// In pairs where the comparison is paired: the fewest whose exact
    /// signed-rank test can be significant (6), or the pairs that would
    /// show the change.
    fn runs_to_decide_change(
        &self,
        base: &[f64],
        cand: &[f64],
        pairs: Option<&[f64]>,
    ) -> Option<RunsEstimate> {
        let change = self.change_pct?;
        let within = !self.beyond(change, self.threshold_pct);
        if let Some(p) = pairs {
            let n = if within {
                Some(stats::PAIRED_MIN_PAIRS)
            } else {
                stats::pairs_to_decide(p, 1.0)
            };
            return n.map(|n| RunsEstimate { n, paired: true });
        }
        let n = if within {
            (1..=stats::MAX_RUNS_ESTIMATED).find(|&n| stats::mann_whitney_min_p(n, n) < ALPHA)
        } else {
            stats::runs_to_show_change(base, cand)
        };
        n.map(|n| RunsEstimate { n, paired: false })
    }

    fn decide(&self) -> (Decision, String) {
        let (Some(change), Some(p), Some(min_p)) =
            (self.change_pct, self.p_value, self.min_possible_p)
        else {
            return (
                Decision::Undecided,
                format!(
                    "{} run(s) against {}: nothing to compare",
                    self.runs, self.base_runs
                ),
            );
        };
        if min_p >= ALPHA {
            return (
                Decision::Undecided,
                format!(
                    "{} runs against {} cannot give p below {min_p:.3}: add repetitions",
                    self.runs, self.base_runs
                ),
            );
        }
        let threshold = self.threshold_pct;
        if change.abs() <= threshold {
            return (
                Decision::NoChange,
                format!("{change:+.1}% is within ±{threshold:.0}% (p = {p:.3})"),
            );
        }
        if let Some(n) = self.noise_floor_pct.filter(|n| change.abs() <= *n) {
            return (
                Decision::NoChange,
                format!(
                    "{change:+.1}% is beyond ±{threshold:.0}% but within {} (p = {p:.3})",
                    self.floor_words(n)
                ),
            );
        }
        let beyond = match self.noise_floor_pct {
            Some(n) => format!("beyond ±{threshold:.0}% and {}", self.floor_words(n)),
            None => format!("beyond ±{threshold:.0}%"),
        };
        if p >= ALPHA {
            return (
                Decision::Undecided,
                format!("{change:+.1}% is {beyond} but p = {p:.3} ≥ {ALPHA}: add repetitions"),
            );
        }
        let d = if change > 0.0 {
            Decision::Higher
        } else {
            Decision::Lower
        };
        (d, format!("{change:+.1}% is {beyond}, p = {p:.3}"))
    }

    /// Is the change no worse than `allowed_pct` (negative: the drop a
    /// higher-is-better metric may take; for a cost, the rise it may take
    /// is -allowed_pct)? Shown when the interval of the change, at 95%
    /// coverage or more, lies wholly on the good side of the allowed
    /// change, refuted when it lies wholly on the bad side, open
    /// otherwise; the words say which, with the numbers.
    pub fn non_inferiority(
        &self,
        allowed_pct: f64,
        higher_is_better: bool,
    ) -> (NonInferiority, String) {
        // the allowed change as a change of the metric
        let limit = if higher_is_better {
            allowed_pct
        } else {
            -allowed_pct
        };
        let Some(i) = self.ratio_interval else {
            return (
                NonInferiority::Open,
                format!(
                    "no interval of the change ({} runs against {}, or values without a ratio)",
                    self.runs, self.base_runs
                ),
            );
        };
        let (lo, hi) = ((i.lo - 1.0) * 100.0, (i.hi - 1.0) * 100.0);
        let interval = format!(
            "the interval of the change, {lo:+.1}% to {hi:+.1}% ({})",
            i.coverage_words()
        );
        if !i.reaches(LEVEL) {
            return (
                NonInferiority::Open,
                format!(
                    "{interval}, is the widest {} runs against {} allow and covers less than {}: it decides nothing",
                    self.runs,
                    self.base_runs,
                    stats::percent(LEVEL)
                ),
            );
        }
        let (good_side, bad_side) = if higher_is_better {
            ("above", "below")
        } else {
            ("below", "above")
        };
        let (shown, refuted) = if higher_is_better {
            (lo > limit, hi < limit)
        } else {
            (hi < limit, lo > limit)
        };
        let limit = limit_words(limit);
        if shown {
            (
                NonInferiority::Shown,
                format!("{interval}, lies {good_side} the allowed {limit}"),
            )
        } else if refuted {
            (
                NonInferiority::Refuted,
                format!("{interval}, lies {bad_side} the allowed {limit}"),
            )
        } else {
            (
                NonInferiority::Open,
                format!("{interval}, reaches across the allowed {limit}"),
            )
        }
    }
}

/// Everything reports show, computed once from the results.
pub struct Analysis<'a> {
    pub manifest: Manifest,
    pub results: &'a [RunResult],
    /// in report order: tree, workload, threads, variant (matrix order,
    /// baseline first)
    pub cells: Vec<CellRuns<'a>>,
    /// QPS of every non-baseline cell against its tree's baseline
    pub comparisons: Vec<(Cell, Comparison)>,
    /// the revision of the tool that renders the reports, when known
    /// (`results::manifest::Reported`); the runs carry their own
    pub reported_by: Option<String>,
    /// the folded stacks of the profile passes, by their file (relative to
    /// the results directory, as the runs name them)
    pub stacks: BTreeMap<String, FoldedStacks>,
}

impl<'a> Analysis<'a> {
    pub fn new(manifest: Manifest, results: &'a [RunResult]) -> Analysis<'a> {
        let mut groups: BTreeMap<Cell, CellRuns<'a>> = BTreeMap::new();
        for r in results {
            let cell = r.key.cell();
            let g = groups.entry(cell.clone()).or_insert_with(|| CellRuns {
                cell,
                counted: Vec::new(),
                busy: Vec::new(),
                failed: Vec::new(),
            });
            if !r.ok() {
                g.failed.push(r);
            } else if metric::busy(r, manifest.busy_cpu_bound) {
                g.busy.push(r);
            } else {
                g.counted.push(r);
            }
        }
        let mut cells: Vec<CellRuns> = groups.into_values().collect();
        cells.sort_by_key(|c| {
            (
                manifest.tree_rank(&c.cell.tree),
                manifest.workload_rank(&c.cell.workload),
                c.cell.threads,
                manifest.variant_rank(&c.cell.variant),
            )
        });
        let mut a = Analysis {
            manifest,
            results,
            cells,
            comparisons: Vec::new(),
            reported_by: None,
            stacks: BTreeMap::new(),
        };
        let mut comparisons = Vec::new();
        for c in &a.cells {
            let Some(base) = a.baseline_of(&c.cell) else {
                continue;
            };
            if base.cell == c.cell {
                continue;
            }
            comparisons.push((
                c.cell.clone(),
                a.compare(&c.cell, &base.cell.variant, Metric::Qps),
            ));
        }
        a.comparisons = comparisons;
        a
    }

    /// The same analysis, rendered by the tool of `revision`.
    pub fn reported_by(mut self, revision: Option<String>) -> Analysis<'a> {
        self.reported_by = revision;
        self
    }

    pub fn with_stacks(mut self, stacks: BTreeMap<String, FoldedStacks>) -> Analysis<'a> {
        self.stacks = stacks;
        self
    }

    /// The tool revisions that made the runs, in the order first seen.
    pub fn run_revisions(&self) -> Vec<String> {
        let mut revs: Vec<String> = Vec::new();
        for r in self.results {
            if !revs.contains(&r.tool_revision) {
                revs.push(r.tool_revision.clone());
            }
        }
        revs
    }

    pub fn cell(&self, cell: &Cell) -> Option<&CellRuns<'a>> {
        self.cells.iter().find(|c| &c.cell == cell)
    }

    /// The tree's baseline cell for the same workload and threads: `base`,
    /// else `fixed`.
    pub fn baseline_of(&self, cell: &Cell) -> Option<&CellRuns<'a>> {
        let ran = [dims::BASE, dims::FIXED]
            .into_iter()
            .filter(|v| self.cell(&cell.with_variant(v)).is_some());
        self.cell(&cell.with_variant(dims::baseline_among(ran)?))
    }

    /// The role of `cell`'s variant among the variants of its tree that ran
    /// its workload and thread count.
    pub fn role_of(&self, cell: &Cell) -> dims::Role {
        let baseline = self.baseline_of(cell).map(|b| b.cell.variant.as_str());
        dims::role_of(&cell.variant, baseline)
    }

    /// |change| of `metric` between the control's two runs of this tree,
    /// workload and thread count.
    pub fn noise_floor(&self, cell: &Cell, metric: Metric) -> Option<f64> {
        let (first, again) = self.control_labels(&cell.tree)?;
        let first = self.cell(&cell.with_variant(&first))?;
        let again = self.cell(&cell.with_variant(&again))?;
        let (a, b) = (first.median(metric)?, again.median(metric)?);
        stats::change_pct(a, b).map(f64::abs)
    }

    /// |change| of `metric` between the baseline and its rebuild
    /// (`base-rebuilt`) on this tree, workload and thread count.
    pub fn rebuild_floor(&self, cell: &Cell, metric: Metric) -> Option<f64> {
        let rebuilt = self.cell(&cell.with_variant(REBUILT_CONTROL))?;
        let base = self.baseline_of(cell)?;
        stats::change_pct(base.median(metric)?, rebuilt.median(metric)?).map(f64::abs)
    }

    /// The build a cell's runs ran, by its key.
    fn build_key(&self, cell: &Cell) -> Option<&str> {
        self.cell(cell)?
            .all()
            .find_map(|r| Some(r.build.as_ref()?.key_hash.as_str()))
    }

    /// The floor `cell` is held against beside `base`: the control's two
    /// runs of one build, or base against its rebuild where that is
    /// larger and `cell` is another build than `base` (then its layout
    /// moved too); a settings-only variant runs base's binary.
    pub fn noise_floor_for(&self, cell: &Cell, base: &Cell, metric: Metric) -> Option<NoiseFloor> {
        let same_build = self
            .noise_floor(base, metric)
            .map(|pct| NoiseFloor { pct, from: None });
        let other_build = match (self.build_key(cell), self.build_key(base)) {
            (Some(a), Some(b)) => a != b,
            _ => true,
        };
        let rebuilt = self
            .rebuild_floor(base, metric)
            .filter(|_| other_build)
            .map(|pct| NoiseFloor {
                pct,
                from: Some(REBUILT_CONTROL.to_string()),
            });
        match (same_build, rebuilt) {
            (Some(a), Some(b)) if b.pct > a.pct => Some(b),
            (Some(a), _) => Some(a),
            (None, b) => b,
        }
    }

    /// The labels of the control's two runs on `tree`: `base` is run as
    /// `fixed` on a tree that carries the fix.
    pub fn control_labels(&self, tree: &str) -> Option<(String, String)> {
        let control = self.manifest.control.as_ref()?;
        let suffix = crate::dims::CONTROL_SUFFIX;
        let mut names = vec![control.clone()];
        if control == "base" {
            names.push("fixed".into());
        }
        names.into_iter().find_map(|c| {
            let again = format!("{c}{suffix}");
            self.cells
                .iter()
                .any(|x| x.cell.tree == tree && x.cell.variant == again)
                .then(|| (c.clone(), again))
        })
    }

    /// `cell` against the same tree, workload and threads of `against`.
    pub fn compare(&self, cell: &Cell, against: &str, metric: Metric) -> Comparison {
        self.compare_cells(cell, &cell.with_variant(against), metric)
    }

    /// The hosts whose counted runs make up `cell`, sorted.
    pub fn hosts(&self, cell: &Cell) -> Vec<String> {
        let mut h: Vec<String> = self
            .cell(cell)
            .map(|c| c.counted.iter().map(|r| r.host.hostname.clone()).collect())
            .unwrap_or_default();
        h.sort();
        h.dedup();
        h
    }

    /// Whether the counted runs of both cells come from one host (or
    /// either has none): only then are they compared.
    pub fn one_host(&self, cell: &Cell, base: &Cell) -> bool {
        let (hosts, base_hosts) = (self.hosts(cell), self.hosts(base));
        let mixed = hosts.len() > 1 || base_hosts.len() > 1;
        let either_empty = hosts.is_empty() || base_hosts.is_empty();
        !mixed && (either_empty || hosts == base_hosts)
    }

    /// `cell` against `base` (another variant, or another tree's); never
    /// across hosts: throughput is only compared between runs of one host
    /// (merged shards keep whole comparison groups on one host).
    pub fn compare_cells(&self, cell: &Cell, base: &Cell, metric: Metric) -> Comparison {
        let values = |c: &Cell| self.cell(c).map(|r| r.values(metric)).unwrap_or_default();
        let (hosts, base_hosts) = (self.hosts(cell), self.hosts(base));
        if !self.one_host(cell, base) {
            let mut c = Comparison::new(
                &base.variant,
                metric,
                &values(base),
                &values(cell),
                None,
                self.manifest.threshold_pct,
            );
            c.verdict = Decision::Undecided;
            c.why = format!(
                "runs from different hosts ({} against {}): not compared",
                hosts.join(", "),
                base_hosts.join(", ")
            );
            return c;
        }
        let is_control_pair = base.tree == cell.tree
            && self
                .control_labels(&cell.tree)
                .is_some_and(|(first, again)| base.variant == first && cell.variant == again);
        let is_rebuilt_pair = base.tree == cell.tree
            && self.role_of(cell) == dims::Role::RebuildControl
            && self.baseline_of(cell).is_some_and(|b| b.cell == *base);
        let control = if is_control_pair {
            Some(Control::SameBuild)
        } else if is_rebuilt_pair {
            Some(Control::Rebuilt)
        } else {
            None
        };
        // a control's own change is the noise measurement itself; across
        // trees the baseline tree's noise floor applies
        let noise = if control.is_some() {
            None
        } else {
            self.noise_floor_for(cell, base, metric)
        };
        let against = if base.tree == cell.tree {
            base.variant.clone()
        } else {
            format!("{} {}", base.tree, base.variant)
        };
        let pairs = self.pair_ratios(cell, base, metric);
        Comparison::build(
            &against,
            metric,
            &values(base),
            &values(cell),
            pairs.as_deref(),
            noise,
            self.manifest.threshold_pct,
            control,
        )
    }

    /// The ratio of `cell`'s run to `base`'s in every repetition where
    /// both were counted (a pair with a busy or failed run drops out),
    /// when the two cells ran interleaved by repetition on one host: in
    /// the order the runs started, every run of repetition r came after
    /// every run of an earlier repetition of either cell (the matrix runs
    /// each repetition's servers one after the other, so a slow spell of
    /// the host hits both runs of a pair). None otherwise: runs of other
    /// results directories, or of other hosts, are strangers.
    pub fn pair_ratios(&self, cell: &Cell, base: &Cell, metric: Metric) -> Option<Vec<f64>> {
        let (c, b) = (self.cell(cell)?, self.cell(base)?);
        if cell == base || !self.one_host(cell, base) {
            return None;
        }
        pair_ratios_of(b, c, metric)
    }

    /// About how many runs would decide whether `cell` against `base`
    /// lies beyond `boundary` (a factor), by the interval the tool would
    /// then make: in pairs where the cells ran interleaved (at least
    /// `stats::PAIRED_MIN_PAIRS`, from where the interval is paired), else
    /// in runs a side.
    pub fn runs_to_decide(
        &self,
        cell: &Cell,
        base: &Cell,
        metric: Metric,
        boundary: f64,
    ) -> Option<RunsEstimate> {
        estimate_runs(
            self.cell(base)?,
            self.cell(cell)?,
            metric,
            boundary,
            self.pair_ratios(cell, base, metric),
        )
    }

    pub fn counts(&self) -> (usize, usize, usize) {
        let mut n = (0, 0, 0);
        for c in &self.cells {
            n.0 += c.counted.len();
            n.1 += c.busy.len();
            n.2 += c.failed.len();
        }
        n
    }
}

/// The pair ratios of two cells' runs when they ran interleaved by
/// repetition (`Analysis::pair_ratios`; the host is the caller's check).
pub fn pair_ratios_of(base: &CellRuns, cand: &CellRuns, metric: Metric) -> Option<Vec<f64>> {
    let mut starts: Vec<(u64, u32)> = base
        .all()
        .chain(cand.all())
        .map(|r| (r.started_unix, r.key.repetition))
        .collect();
    starts.sort();
    if starts.windows(2).any(|w| w[1].1 < w[0].1) {
        return None;
    }
    let by_rep = |c: &CellRuns| -> BTreeMap<u32, f64> {
        c.taken(metric)
            .filter_map(|r| Some((r.key.repetition, metric.of(r)?)))
            .collect()
    };
    let (b, c) = (by_rep(base), by_rep(cand));
    Some(
        c.iter()
            .filter_map(|(rep, v)| b.get(rep).map(|bv| v / bv))
            .filter(|r| r.is_finite())
            .collect(),
    )
}

/// An estimate of the repetitions a decision would take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunsEstimate {
    pub n: usize,
    /// in pairs (repetitions of both), not runs a side
    pub paired: bool,
}

impl RunsEstimate {
    /// `about 12 pairs (repetitions of both) would decide it`
    pub fn words(&self) -> String {
        if self.paired {
            format!(
                "about {} pairs (repetitions of both) would decide it",
                self.n
            )
        } else {
            format!("about {} runs a side would decide it", self.n)
        }
    }
}

/// The factor of a metric at an allowed change written as a drop
/// (`allowed_pct` -5 for QPS, -1 for a cost: a no-slower question's
/// threshold): 0.95 for QPS, where higher is better; 1.01 for
/// instructions, where lower is.
pub fn boundary_factor(metric: Metric, allowed_pct: f64) -> f64 {
    if metric.higher_is_better() {
        1.0 + allowed_pct / 100.0
    } else {
        1.0 - allowed_pct / 100.0
    }
}

/// Pairs where the runs were interleaved (two or more ratios), else runs
/// a side: the estimate for the interval the tool would use.
pub fn estimate_runs(
    base: &CellRuns,
    cand: &CellRuns,
    metric: Metric,
    boundary: f64,
    pairs: Option<Vec<f64>>,
) -> Option<RunsEstimate> {
    match pairs.filter(|p| p.len() >= 2) {
        Some(p) => stats::pairs_to_decide(&p, boundary).map(|n| RunsEstimate { n, paired: true }),
        None => stats::runs_to_decide(&base.values(metric), &cand.values(metric), boundary)
            .map(|n| RunsEstimate { n, paired: false }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_against_three_is_undecided_whatever_the_numbers() {
        let c = Comparison::new(
            "base",
            Metric::Qps,
            &[100.0, 101.0, 102.0],
            &[50.0, 51.0, 52.0],
            None,
            5.0,
        );
        assert_eq!(c.verdict, Decision::Undecided);
        assert_eq!(c.min_possible_p, Some(0.1));
        assert!(c.why.contains("cannot give p below 0.100"), "{}", c.why);
    }

    #[test]
    fn no_slower_is_decided_by_the_interval_never_by_the_noise_floor() {
        let base = [1000.0, 1100.0, 900.0, 1050.0, 950.0];
        // +4% of the median, but the interval reaches far below -5%
        let wide = [1040.0, 1150.0, 850.0, 1100.0, 1000.0];
        for noise in [None, Some(25.0)] {
            let c = Comparison::new("base", Metric::Qps, &base, &wide, noise, 5.0);
            let (ni, words) = c.non_inferiority(-5.0, true);
            assert_eq!(ni, NonInferiority::Open, "{words}");
            assert!(words.contains("reaches across the allowed -5%"), "{words}");
        }
        let tight = [1030.0, 1031.0, 1032.0, 1033.0, 1034.0];
        let close = [1000.0, 1001.0, 1002.0, 1003.0, 1004.0];
        let c = Comparison::new("base", Metric::Qps, &close, &tight, None, 5.0);
        let (ni, words) = c.non_inferiority(-5.0, true);
        assert_eq!(ni, NonInferiority::Shown, "{words}");
        assert!(words.contains("lies above the allowed -5%"), "{words}");
        let slow: Vec<f64> = close.iter().map(|q| q * 0.8).collect();
        let c = Comparison::new("base", Metric::Qps, &close, &slow, Some(30.0), 5.0);
        assert_eq!(c.non_inferiority(-5.0, true).0, NonInferiority::Refuted);
        // within a 30% noise floor the comparison shows no change, and says why
        assert_eq!(c.verdict, Decision::NoChange);
        assert!(
            c.why
                .contains("-20.0% is beyond ±5% but within the noise floor of 30.0%"),
            "{}",
            c.why
        );
        // for a cost the allowed change is a rise: -20% CPU is fine
        assert_eq!(c.non_inferiority(-5.0, false).0, NonInferiority::Shown);
        // 3 against 3 reach 90% at most: nothing is decided by it
        let c = Comparison::new("base", Metric::Qps, &close[..3], &tight[..3], None, 5.0);
        let (ni, words) = c.non_inferiority(-5.0, true);
        assert_eq!(ni, NonInferiority::Open);
        assert!(
            words.contains("(Hodges-Lehmann, exact 90%)") && words.contains("decides nothing"),
            "{words}"
        );
    }

    #[test]
    fn an_undecided_comparison_says_about_how_many_runs_would_decide_it() {
        let base = [100.0, 101.0, 102.0];
        let c = Comparison::new("base", Metric::Qps, &base, &[80.0, 81.0, 82.0], None, 5.0);
        assert_eq!(c.verdict, Decision::Undecided);
        assert_eq!(c.runs_to_decide, Some(4), "{}", c.why);
        assert!(
            c.why.ends_with("(about 4 runs a side would decide it)"),
            "{}",
            c.why
        );
    }

    #[test]
    fn a_change_counts_beyond_threshold_noise_and_chance() {
        let base = [100.0, 101.0, 102.0, 103.0, 104.0];
        let lower = [80.0, 81.0, 82.0, 83.0, 84.0];
        let c = Comparison::new("base", Metric::Qps, &base, &lower, None, 5.0);
        assert_eq!(c.verdict, Decision::Lower, "{}", c.why);
        assert!((c.p_value.unwrap() - 2.0 / 252.0).abs() < 1e-9);
        // inside a 25% noise floor it does not count
        let c = Comparison::new("base", Metric::Qps, &base, &lower, Some(25.0), 5.0);
        assert_eq!(c.verdict, Decision::NoChange, "{}", c.why);
        // inside the threshold neither
        let c = Comparison::new(
            "base",
            Metric::Qps,
            &base,
            &[98.0, 99.0, 100.0, 101.0, 102.0],
            None,
            5.0,
        );
        assert_eq!(c.verdict, Decision::NoChange, "{}", c.why);
        // beyond the threshold but not significant
        let c = Comparison::new(
            "base",
            Metric::Qps,
            &base,
            &[70.0, 130.0, 60.0, 140.0, 90.0],
            None,
            5.0,
        );
        assert_eq!(c.verdict, Decision::Undecided, "{}", c.why);
        assert!(
            Comparison::new("base", Metric::Qps, &[], &lower, None, 5.0).verdict
                == Decision::Undecided
        );
    }
}
