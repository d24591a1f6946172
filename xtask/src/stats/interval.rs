//! Intervals that say their coverage: order statistics of a median,
//! Hodges-Lehmann and bootstrap intervals of a ratio, and the runs a
//! decision would take.

use super::*;

/// An interval for a statistic, with how it was made and the coverage it
/// has: reports print both, since a few runs allow only a few coverages.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    pub method: IntervalMethod,
    /// the probability that an interval made this way covers the true
    /// value: exact for order statistics and Hodges-Lehmann (see each),
    /// nominal (asked for, not proven) for the bootstrap
    pub coverage: f64,
}

/// How an interval was made, which says what its coverage means.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalMethod {
    /// order statistics of one sample (the median's interval): exact
    /// binomial coverage for any continuous distribution
    OrderStatistics,
    /// Hodges-Lehmann interval of the shift of log values between two
    /// samples (a ratio), from the exact Mann-Whitney distribution: exact
    /// coverage when the two differ by a factor (continuous, no ties)
    HodgesLehmann,
    /// percentile bootstrap of the ratio of medians: nominal coverage
    Bootstrap,
    /// Hodges-Lehmann interval of the log ratios within pairs (a
    /// repetition's run of each side), from the exact signed-rank
    /// distribution: exact when the log ratios are symmetric
    PairedHodgesLehmann,
    /// percentile bootstrap over pairs of their Hodges-Lehmann estimate:
    /// nominal coverage
    PairedBootstrap,
}

impl IntervalMethod {
    pub fn words(self) -> &'static str {
        match self {
            IntervalMethod::OrderStatistics => "order statistics",
            IntervalMethod::HodgesLehmann => "Hodges-Lehmann, exact",
            IntervalMethod::Bootstrap => "bootstrap, nominal",
            IntervalMethod::PairedHodgesLehmann => "paired Hodges-Lehmann, exact",
            IntervalMethod::PairedBootstrap => "paired bootstrap, nominal",
        }
    }

    /// A few letters for a chart's bar label; the chart's note gives
    /// `words` beside them.
    pub fn short(self) -> &'static str {
        match self {
            IntervalMethod::OrderStatistics => "order stat.",
            IntervalMethod::HodgesLehmann => "HL",
            IntervalMethod::Bootstrap => "bootstrap",
            IntervalMethod::PairedHodgesLehmann => "paired HL",
            IntervalMethod::PairedBootstrap => "paired boot.",
        }
    }

    /// Whether the interval comes from pairs of runs.
    pub fn paired(self) -> bool {
        matches!(
            self,
            IntervalMethod::PairedHodgesLehmann | IntervalMethod::PairedBootstrap
        )
    }
}

impl Interval {
    /// At least `level`, allowing for rounding (1 - 2/40 is 0.95).
    pub fn reaches(&self, level: f64) -> bool {
        self.coverage >= level - 1e-12
    }

    /// `Hodges-Lehmann, exact 97.1%`: the method and the coverage, as
    /// every report prints them beside an interval.
    pub fn coverage_words(&self) -> String {
        format!("{} {}", self.method.words(), percent(self.coverage))
    }
}

/// A coverage as a percentage with the digits it needs: 95%, 87.5%, 97.1%.
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if (p - p.round()).abs() < 0.05 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// Distribution-free confidence interval for the median: the order
/// statistics x(k) and x(n+1-k) of the sorted values, with the largest k
/// whose exact coverage 1 - 2 P(Binomial(n, 1/2) <= k - 1) is at least
/// `level`.
///
/// `coverage` of the result is that exact coverage, which is at least the
/// requested level (order statistics allow only a few coverages). When n is
/// too small for the requested level even with k = 1 (n < 6 for 95%), the
/// result is the widest interval there is, (min, max), with its coverage
/// 1 - 2^(1-n), below the requested level: callers must show it.
/// None when `values` is empty, a value is NaN, or `level` is not in (0, 1).
pub fn median_ci(values: &[f64], level: f64) -> Option<Interval> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let coverage = |k: usize| 1.0 - 2.0 * half_binomial_cdf(n, k - 1);
    Some(narrowest_symmetric(
        &sorted,
        level,
        IntervalMethod::OrderStatistics,
        coverage,
    ))
}

/// The interval (`sorted[k-1]`, `sorted[n-k]`) of the largest k whose
/// `coverage(k)` is still at least `level` (k = 1, the whole range, when
/// none is): coverage falls as k grows.
pub(super) fn narrowest_symmetric(
    sorted: &[f64],
    level: f64,
    method: IntervalMethod,
    coverage: impl Fn(usize) -> f64,
) -> Interval {
    let n = sorted.len();
    let mut k = 1;
    while k < n.div_ceil(2) && coverage(k + 1) >= level {
        k += 1;
    }
    Interval {
        lo: sorted[k - 1],
        hi: sorted[n - k],
        method,
        coverage: coverage(k),
    }
}

/// P(Binomial(n, 1/2) <= j). Summed term by term up to n = 1000, where
/// 2^-n is still a normal f64, so small n get exact dyadic values (statrs
/// goes through the incomplete beta function and gives 1 - 2 * 0.4999...96
/// for n = 1); statrs beyond that.
pub(super) fn half_binomial_cdf(n: usize, j: usize) -> f64 {
    if n > 1000 {
        return Binomial::new(0.5, n as u64).map_or(f64::NAN, |b| b.cdf(j as u64));
    }
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2^n
    let mut sum = term;
    for i in 0..j.min(n) {
        term *= (n - i) as f64 / (i + 1) as f64;
        sum += term;
    }
    sum.min(1.0)
}

/// Percentile bootstrap interval of median(candidate) / median(base): both
/// samples are resampled with replacement, independently, `resamples`
/// times from a generator seeded with `seed` (so the same inputs and seed
/// give the same interval), and the interval is the pair of outer order
/// statistics at (1 - level) / 2 and (1 + level) / 2 of the ratios.
///
/// `coverage` of the result is the requested (nominal) level: the
/// percentile bootstrap's real coverage with a few runs a side is unknown
/// and below it, so reports call it 95% only with 8 runs a side or more
/// (`ratio_ci`). A resample whose
/// base median is 0 has no ratio and is left out. None when a sample is
/// empty, a value is NaN, `resamples` is 0, `level` is not in (0, 1), or no
/// resample had a ratio.
pub fn bootstrap_ratio_ci(
    base: &[f64],
    candidate: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    bootstrap_ci_of(base, candidate, level, resamples, seed, |b, c| {
        (b != 0.0).then(|| c / b)
    })
}

/// Percentile bootstrap interval of median(candidate) - median(base), in
/// the metric's own unit (points for a percentage): resampled as
/// `bootstrap_ratio_ci` does, with the same nominal coverage. None as
/// there.
pub fn bootstrap_shift_ci(
    base: &[f64],
    candidate: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    bootstrap_ci_of(base, candidate, level, resamples, seed, |b, c| Some(c - b))
}

/// The percentile bootstrap of `between(base median, candidate median)`
/// over independent resamples of both samples.
fn bootstrap_ci_of(
    base: &[f64],
    candidate: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
    between: impl Fn(f64, f64) -> Option<f64>,
) -> Option<Interval> {
    if base.is_empty()
        || candidate.is_empty()
        || base.iter().chain(candidate).any(|v| v.is_nan())
        || resamples == 0
        || !(level > 0.0 && level < 1.0)
    {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut draw = |sample: &[f64], into: &mut Vec<f64>| {
        into.clear();
        into.extend(
            (0..sample.len()).map(|_| sample[rng.below_exact(sample.len() as u64) as usize]),
        );
        into.sort_by(f64::total_cmp);
        median_of_sorted(into)
    };
    let (mut b, mut c) = (Vec::new(), Vec::new());
    let mut estimates: Vec<f64> = (0..resamples)
        .filter_map(|_| {
            let base_median = draw(base, &mut b);
            let candidate_median = draw(candidate, &mut c);
            between(base_median, candidate_median)
        })
        .collect();
    if estimates.is_empty() {
        return None;
    }
    estimates.sort_by(f64::total_cmp);
    let last = (estimates.len() - 1) as f64;
    let tail = (1.0 - level) / 2.0;
    Some(Interval {
        lo: estimates[(last * tail).floor() as usize],
        hi: estimates[(last * (1.0 - tail)).ceil() as usize],
        method: IntervalMethod::Bootstrap,
        coverage: level,
    })
}

/// From this many runs a side the interval of a change is the bootstrap's
/// and called by its nominal level; below it the percentile bootstrap
/// covers less than it says (a resample of 4 runs has few distinct
/// medians), so the exact Hodges-Lehmann interval is used instead.
pub const BOOTSTRAP_MIN_RUNS: usize = 8;

/// The interval of candidate / base that reports print and decide by:
/// `hodges_lehmann_ratio_ci` (exact coverage) with fewer than
/// `BOOTSTRAP_MIN_RUNS` runs on either side, `bootstrap_ratio_ci`
/// (nominal coverage) from there on.
pub fn ratio_ci(
    base: &[f64],
    candidate: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    if base.len().min(candidate.len()) < BOOTSTRAP_MIN_RUNS {
        hodges_lehmann_ratio_ci(base, candidate, level)
    } else {
        bootstrap_ratio_ci(base, candidate, level, resamples, seed)
    }
}

/// The interval of candidate - base (a difference in the metric's own
/// unit) that the margin rule decides by, tiered as `ratio_ci`:
/// `hodges_lehmann_shift_ci` below `BOOTSTRAP_MIN_RUNS` runs on either
/// side, `bootstrap_shift_ci` from there on.
pub fn shift_ci(
    base: &[f64],
    candidate: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    if base.len().min(candidate.len()) < BOOTSTRAP_MIN_RUNS {
        hodges_lehmann_shift_ci(base, candidate, level)
    } else {
        bootstrap_shift_ci(base, candidate, level, resamples, seed)
    }
}

/// Hodges-Lehmann confidence interval of the factor between candidate and
/// base (Lehmann, "Nonparametrics", 1975, ch. 2; Bauer, JASA 1972): the
/// n*m ratios c_j / b_i sorted, and the ratios at ranks k and nm + 1 - k.
/// Such an interval misses the true factor exactly when the Mann-Whitney U
/// of the candidate divided by that factor is at most k - 1 or at least
/// nm - k + 1, so its coverage is 1 - 2 P(U <= k - 1) under the exact
/// null distribution of U (`mann_whitney_null_counts`), whatever the
/// distribution, when the candidate's runs are the base's distribution
/// scaled by a factor (continuous, so no ties). Ratios, not differences:
/// a change in percent is a factor, and runs of a faster server spread
/// more in queries per second.
///
/// k is the largest whose coverage is at least `level`, so `coverage` is
/// the smallest achievable at or above it (4 against 4: 97.1%, since the
/// next, 94.3%, is below 95%). When even k = 1 stays below `level` (3
/// against 3 reach 90% at most), the result is the smallest to the largest
/// ratio with its coverage below `level`: callers show it, and decide
/// nothing by it at `level`.
/// None when a sample is empty, a value is not positive and finite, or
/// `level` is not in (0, 1).
pub fn hodges_lehmann_ratio_ci(base: &[f64], candidate: &[f64], level: f64) -> Option<Interval> {
    let positive = |v: &f64| v.is_finite() && *v > 0.0;
    if !base.iter().chain(candidate).all(positive) {
        return None;
    }
    hodges_lehmann_ci_of(base, candidate, level, |b, c| c / b)
}

/// Hodges-Lehmann interval of the shift between candidate and base, in
/// the metric's own unit: the n*m differences c_j - b_i sorted, cut where
/// `hodges_lehmann_ratio_ci` cuts its ratios, with the same exact coverage
/// when the candidate's runs are the base's shifted by a constant. For a
/// share such as a hit ratio, whose runs spread by points whatever its
/// level. None when a sample is empty, a value is not finite, or `level`
/// is not in (0, 1).
pub fn hodges_lehmann_shift_ci(base: &[f64], candidate: &[f64], level: f64) -> Option<Interval> {
    if !base.iter().chain(candidate).all(|v| v.is_finite()) {
        return None;
    }
    hodges_lehmann_ci_of(base, candidate, level, |b, c| c - b)
}

/// The Hodges-Lehmann interval of `between(b, c)` over every pair of a
/// base and a candidate run.
fn hodges_lehmann_ci_of(
    base: &[f64],
    candidate: &[f64],
    level: f64,
    between: impl Fn(f64, f64) -> f64,
) -> Option<Interval> {
    if base.is_empty() || candidate.is_empty() || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let mut all: Vec<f64> = base
        .iter()
        .flat_map(|&b| candidate.iter().map(move |&c| (b, c)))
        .map(|(b, c)| between(b, c))
        .collect();
    all.sort_by(f64::total_cmp);
    // cdf[u] = P(U <= u)
    let cdf = cdf_of(&mann_whitney_null_counts(base.len(), candidate.len()));
    let coverage = |k: usize| (1.0 - 2.0 * cdf[k - 1]).max(0.0);
    Some(narrowest_symmetric(
        &all,
        level - 1e-12,
        IntervalMethod::HodgesLehmann,
        coverage,
    ))
}

/// The cumulative distribution of a statistic from the counts of its
/// values: cdf[v] = P(statistic <= v).
pub(super) fn cdf_of(counts: &[f64]) -> Vec<f64> {
    let all: f64 = counts.iter().sum();
    counts
        .iter()
        .scan(0.0, |acc, c| {
            *acc += c;
            Some(*acc / all)
        })
        .collect()
}

/// counts[u] = how many of the C(n + m, n) orders of n values of one
/// sample and m of the other (no ties) have exactly u pairs with the
/// first sample's value above the other's: the exact null distribution
/// of the Mann-Whitney U, all orders being equally likely. Counted by
/// the last value of an order: one of the first sample's, above all j of
/// the other's (u grows by j), or one of the other's (u unchanged). Kept
/// as f64 as `doubled_rank_sum_counts` does.
pub fn mann_whitney_null_counts(n: usize, m: usize) -> Vec<f64> {
    // by_first[i] = the counts for i values of the first sample and j of
    // the other, for the j reached so far (j = 0: one order, u = 0)
    let mut by_first: Vec<Vec<f64>> = vec![vec![1.0]; n + 1];
    for j in 1..=m {
        let mut next: Vec<Vec<f64>> = Vec::with_capacity(n + 1);
        next.push(vec![1.0]);
        for i in 1..=n {
            let mut f = vec![0.0; i * j + 1];
            for (u, c) in by_first[i].iter().enumerate() {
                f[u] += c;
            }
            for (u, c) in next[i - 1].iter().enumerate() {
                f[u + j] += c;
            }
            next.push(f);
        }
        by_first = next;
    }
    by_first.swap_remove(n)
}

/// The normal quantile for 97.5%, the two-sided 95% z.
pub(super) const Z_975: f64 = 1.959_963_984_540_054;
/// The normal quantile for 80%: the power asked of an estimate of runs.
pub(super) const Z_80: f64 = 0.841_621_233_572_914_3;
/// Runs a side the estimate never goes beyond.
pub const MAX_RUNS_ESTIMATED: usize = 100_000;

/// About how many runs a side (the same number on both) would settle
/// whether the factor between candidate and base lies beyond `boundary`
/// (a factor: 0.95 for a drop of 5%) by the interval `ratio_ci` would
/// then make, if the runs' spread (the pooled standard deviation s of the
/// logs of both samples) and the factor they show (the ratio of medians)
/// were the true ones. The fewest n with
/// n >= 2 (t_0.975 + t_0.8)^2 s^2 / (d^2 e), t with 2n - 2 degrees of
/// freedom and d the distance in logs between the factor and the
/// boundary: a 95% interval that clears the boundary 80% of the time,
/// widened by the efficiency e of the interval against the t interval,
/// which depends on the tier `ratio_ci` uses at n: 3/pi for the
/// Hodges-Lehmann interval below `BOOTSTRAP_MIN_RUNS`, 2/pi for the
/// bootstrap of the ratio of medians from there on (a median wastes more
/// than a Hodges-Lehmann shift). Held by a simulation of the tool's own
/// rule (`tests::estimates_decide_as_often_as_they_say`). At least 4;
/// None beyond `MAX_RUNS_ESTIMATED`, when the factor lies on the
/// boundary, or when the values do not allow logs.
pub fn runs_to_decide(base: &[f64], candidate: &[f64], boundary: f64) -> Option<usize> {
    runs_to_decide_on(Scale::Log, base, candidate, boundary)
}

/// `runs_to_decide` for a difference: whether candidate - base lies
/// beyond `boundary` (in the metric's own unit: -0.2 for a margin of 0.2
/// points) by the interval `shift_ci` would then make, with the pooled
/// standard deviation of the values themselves and the difference of the
/// medians. None as there.
pub fn runs_to_decide_shift(base: &[f64], candidate: &[f64], boundary: f64) -> Option<usize> {
    runs_to_decide_on(Scale::Linear, base, candidate, boundary)
}

fn runs_to_decide_on(
    scale: Scale,
    base: &[f64],
    candidate: &[f64],
    boundary: f64,
) -> Option<usize> {
    let (var, distance) = spread_and_distance(scale, base, candidate, boundary)?;
    let need = |efficiency: f64| {
        move |n: usize| {
            let t = t_quantiles(2 * n - 2);
            2.0 * t * t * var / (distance * distance * efficiency)
        }
    };
    let pi = std::f64::consts::PI;
    match smallest_n(4, need(3.0 / pi))? {
        n if n < BOOTSTRAP_MIN_RUNS => Some(n),
        _ => smallest_n(BOOTSTRAP_MIN_RUNS, need(2.0 / pi)),
    }
}

/// About how many runs a side would make the exact Mann-Whitney test of
/// the change the runs show significant at 5% with 80% power: the normal
/// approximation 2 (z_0.975 + z_0.8)^2 s^2 / (d^2 * 3/pi), d the log of
/// the ratio of medians, 3/pi the test's efficiency against the t test.
/// At least 4; None as `runs_to_decide`.
pub fn runs_to_show_change(base: &[f64], candidate: &[f64]) -> Option<usize> {
    let (var, distance) = spread_and_distance(Scale::Log, base, candidate, 1.0)?;
    let efficiency = 3.0 / std::f64::consts::PI;
    let n = 2.0 * (Z_975 + Z_80).powi(2) * var / (distance.powi(2) * efficiency);
    let n = (n.ceil() as usize).max(4);
    (n <= MAX_RUNS_ESTIMATED).then_some(n)
}

/// Where a comparison is taken: in logs (a factor, a change in percent)
/// or on the values themselves (a difference in their unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scale {
    Log,
    Linear,
}

impl Scale {
    /// The value on this scale; None where it has no place there (a log
    /// of a value that is not positive).
    pub(super) fn of(self, v: f64) -> Option<f64> {
        match self {
            Scale::Log => (v.is_finite() && v > 0.0).then(|| v.ln()),
            Scale::Linear => v.is_finite().then_some(v),
        }
    }
}

/// The pooled variance of both samples on `scale` and the distance on
/// it from the medians' comparison (their ratio, or their difference) to
/// `boundary`; None with fewer than 2 values a side, a value without a
/// place on the scale, or a comparison on the boundary.
fn spread_and_distance(
    scale: Scale,
    base: &[f64],
    candidate: &[f64],
    boundary: f64,
) -> Option<(f64, f64)> {
    if base.len() < 2 || candidate.len() < 2 {
        return None;
    }
    let on_scale = |v: &[f64]| v.iter().map(|x| scale.of(*x)).collect::<Option<Vec<f64>>>();
    let (lb, lc, boundary) = (on_scale(base)?, on_scale(candidate)?, scale.of(boundary)?);
    let ss = |v: &[f64]| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>()
    };
    let pooled_var = (ss(&lb) + ss(&lc)) / (lb.len() + lc.len() - 2) as f64;
    let (mut b, mut c) = (base.to_vec(), candidate.to_vec());
    b.sort_by(f64::total_cmp);
    c.sort_by(f64::total_cmp);
    let (mb, mc) = (median_of_sorted(&b), median_of_sorted(&c));
    let shown = match scale {
        Scale::Log => (mc / mb).ln(),
        Scale::Linear => mc - mb,
    };
    let distance = (shown - boundary).abs();
    (distance > 0.0 && distance.is_finite()).then_some((pooled_var, distance))
}

pub(super) fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}
