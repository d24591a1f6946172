//! From results to numbers: per cell the counted runs (busy-host runs
//! flagged and left out), medians and intervals; which cells are compared
//! with which, paired where they ran interleaved, and the noise floor a
//! control measured. What a comparison decides is `change.rs`.

use crate::dims::{self, Metric, REBUILT_CONTROL};
use crate::record::{Cell, FoldedStacks, RunResult};
use crate::results::metric;
use crate::results::sweeps::{self, Sweeps, YoungCounts};
use crate::results::Manifest;
use crate::stats::{self, Interval};
use std::collections::BTreeMap;

use super::change::Control;
pub use super::change::{
    boundary_factor, change_interval_words, median, Comparison, Decision, NoiseFloor,
    NonInferiority, RunsEstimate, ALPHA, LEVEL,
};
pub use super::difference::Difference;

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
        let (b, c) = self.pairable(cell, base)?;
        pair_ratios_of(b, c, metric)
    }

    /// The runs of `base` and of `cell` when they may be paired: two cells
    /// of one host (whether they ran interleaved is `pairs_of`'s check).
    fn pairable(&self, cell: &Cell, base: &Cell) -> Option<(&CellRuns<'a>, &CellRuns<'a>)> {
        let (c, b) = (self.cell(cell)?, self.cell(base)?);
        (cell != base && self.one_host(cell, base)).then_some((b, c))
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

    /// `cell` minus `base` on `metric`, in the metric's own unit: paired
    /// where the cells ran interleaved on one host, as `pair_ratios`.
    pub fn difference(&self, cell: &Cell, base: &Cell, metric: Metric) -> Difference {
        let values = |c: &Cell| self.cell(c).map(|r| r.values(metric)).unwrap_or_default();
        let pairs = self.pair_differences(cell, base, metric);
        Difference::of(&values(base), &values(cell), pairs.as_deref())
    }

    /// candidate - baseline in every repetition of both, where they ran
    /// interleaved on one host (`pairs_of`).
    pub fn pair_differences(&self, cell: &Cell, base: &Cell, metric: Metric) -> Option<Vec<f64>> {
        let (b, c) = self.pairable(cell, base)?;
        Some(
            pairs_of(b, c, metric)?
                .into_iter()
                .map(|(b, c)| c - b)
                .filter(|d| d.is_finite())
                .collect(),
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
    Some(
        pairs_of(base, cand, metric)?
            .into_iter()
            .map(|(b, c)| c / b)
            .filter(|r| r.is_finite())
            .collect(),
    )
}

/// (baseline, candidate) of `metric` in every repetition where both were
/// counted, when the two cells ran interleaved by repetition: in the
/// order the runs started, no run of a repetition came before a run of an
/// earlier one of either cell. None otherwise.
pub fn pairs_of(base: &CellRuns, cand: &CellRuns, metric: Metric) -> Option<Vec<(f64, f64)>> {
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
            .filter_map(|(rep, v)| b.get(rep).map(|bv| (*bv, *v)))
            .collect(),
    )
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
