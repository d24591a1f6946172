//! A change against a baseline, as the report decides it: the change of
//! the median, the interval of the ratio (paired or not), the exact p and
//! the smallest p the runs allow, the noise floor a control measured, the
//! decision, and how many runs would decide an undecided one.

use crate::dims::Metric;
use crate::stats::{self, Interval, MannWhitney};
use serde::{Deserialize, Serialize};

/// Significance level of every test.
pub const ALPHA: f64 = 0.05;

/// Level of the intervals.
pub const LEVEL: f64 = 0.95;

pub(super) const RESAMPLES: u32 = 2000;

/// A fixed seed: the same results give the same report.
pub(super) const SEED: u64 = 37992;

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
    /// (median / base median - 1) * 100; where the interval is paired,
    /// (the pairs' Hodges-Lehmann factor - 1) * 100, the estimate the
    /// interval is about
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
pub(super) enum Control {
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
pub(super) fn limit_words(pct: f64) -> String {
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
    pub(super) fn build(
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
        // the change the interval is about: the pairs' own estimate where
        // the interval is theirs (a change of medians would mix in runs
        // that have no pair), else the change of the medians
        let change_pct = match pairs.and_then(stats::paired_factor) {
            Some(factor) => Some((factor - 1.0) * 100.0),
            None => match (base_median, cand_median) {
                (Some(b), Some(c)) => stats::change_pct(b, c),
                _ => None,
            },
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

/// An estimate of the repetitions a decision would take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
