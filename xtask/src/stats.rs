//! Statistics over repetitions: medians and spread per cell, the exact
//! Mann-Whitney test of a variant against its baseline, intervals that
//! say their coverage (order statistics of a median, Hodges-Lehmann or
//! bootstrap of a ratio) and an estimate of the runs a decision needs (QPS
//! moves by up to 20% between consecutive runs on 2 cores, so one run
//! proves nothing).

use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};
use statrs::statistics::{Data, Distribution, Max, Median, Min};

/// Summary of one metric over the repetitions of a cell.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Spread {
    pub n: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// coefficient of variation (sample stddev / mean); 0 for one value
    pub cv: f64,
}

pub fn spread(values: &[f64]) -> Option<Spread> {
    if values.is_empty() || values.iter().any(|v| v.is_nan()) {
        return None;
    }
    let data = Data::new(values.to_vec());
    let mean = data.mean()?;
    let sd = if values.len() > 1 {
        data.std_dev().unwrap_or(0.0)
    } else {
        0.0
    };
    Some(Spread {
        n: values.len(),
        median: data.median(),
        min: data.min(),
        max: data.max(),
        mean,
        cv: if mean != 0.0 { sd / mean } else { 0.0 },
    })
}

/// An exact Mann-Whitney U test of `a` against `b`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct MannWhitney {
    /// U of `a`: the pairs (a_i, b_j) with a_i > b_j, ties counting one half
    pub u: f64,
    /// two-sided p: the probability, over all equally likely assignments of
    /// the pooled (mid)ranks to the two samples, of a rank sum at least as
    /// far from its mean as the observed one
    pub p_two_sided: f64,
    /// the smallest two-sided p these sample sizes allow, 2 / C(n + m, n):
    /// complete separation without ties (0.1 for 3 vs 3, 2/252 for 5 vs 5)
    pub min_p: f64,
}

/// Exact two-sided Mann-Whitney U test; None when a sample is empty or a
/// value is NaN.
///
/// The p-value comes from the exact permutation distribution of the rank
/// sum, counted by dynamic programming, not from the normal approximation
/// (which says 0.081 for 3 vs 3 fully separated runs, where the truth is
/// 0.1). Ties get midranks, and the distribution is that of the midrank sum
/// of these very data under all C(n + m, n) splits, so the p-value stays
/// exact with ties too. Midranks are halves at worst, so twice the rank
/// sum is an integer and the counting works on integers. Cost is
/// O(min(n, m) * (n + m)^3) additions: instant for the tens of runs a
/// matrix makes.
pub fn mann_whitney_exact(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|v| v.is_nan()) {
        return None;
    }
    let (n, m) = (a.len(), b.len());
    let total = n + m;
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&v| (v, true))
        .chain(b.iter().map(|&v| (v, false)))
        .collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    // twice the midrank of each pooled value (ranks from 1)
    let mut doubled_ranks = vec![0usize; total];
    let mut i = 0;
    while i < total {
        let mut j = i;
        while j + 1 < total && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        // positions i..=j share the ranks i+1..=j+1, whose mean doubled is i+j+2
        for r in &mut doubled_ranks[i..=j] {
            *r = i + j + 2;
        }
        i = j + 1;
    }
    let observed_a: usize = (0..total)
        .filter(|&k| pooled[k].1)
        .map(|k| doubled_ranks[k])
        .sum();
    // U_a = W_a - n(n+1)/2, with W_a the (mid)rank sum of a
    let u = (observed_a as f64 - (n * (n + 1)) as f64) / 2.0;

    // Count the subsets of the smaller sample's size by their doubled rank
    // sum; the smaller side's sum deviates from its mean exactly as much
    // as the other side's does, so either side gives the same p.
    let k = n.min(m);
    let observed = if k == n {
        observed_a
    } else {
        total * (total + 1) - observed_a
    };
    let counts = doubled_rank_sum_counts(&doubled_ranks, k);
    let all: f64 = counts.iter().sum();
    // the mean of the doubled sum is k(N+1), an integer
    let mean = k * (total + 1);
    let deviation = observed.abs_diff(mean);
    let extreme: f64 = counts
        .iter()
        .enumerate()
        .filter(|(s, _)| s.abs_diff(mean) >= deviation)
        .map(|(_, c)| c)
        .sum();
    Some(MannWhitney {
        u,
        p_two_sided: (extreme / all).min(1.0),
        min_p: mann_whitney_min_p(n, m),
    })
}

/// The smallest two-sided p of the exact Mann-Whitney test for samples of
/// n and m: 2 / C(n + m, n) (each of the two complete separations is one
/// of C(n + m, n) equally likely splits); 1 when a sample is empty.
pub fn mann_whitney_min_p(n: usize, m: usize) -> f64 {
    if n == 0 || m == 0 {
        return 1.0;
    }
    (2.0 / binomial_coefficient(n + m, n)).min(1.0)
}

fn binomial_coefficient(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// counts[s] = the number of k-element subsets of `doubled_ranks` whose sum
/// is s. The counts reach C(N, k), so they are kept as f64 (exact up to
/// 2^53, relatively exact beyond, which is all a p-value needs).
fn doubled_rank_sum_counts(doubled_ranks: &[usize], k: usize) -> Vec<f64> {
    let max_sum: usize = doubled_ranks.iter().sum();
    // ways[j][s]: subsets of j elements of the items seen so far summing to s
    let mut ways = vec![vec![0.0f64; max_sum + 1]; k + 1];
    ways[0][0] = 1.0;
    let mut reach = 0; // the largest sum reachable so far
    for &r in doubled_ranks {
        reach += r;
        for j in (1..=k).rev() {
            let (lower, upper) = ways.split_at_mut(j);
            let (from, to) = (&lower[j - 1], &mut upper[0]);
            for s in (r..=reach).rev() {
                to[s] += from[s - r];
            }
        }
    }
    ways.swap_remove(k)
}

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
}

impl IntervalMethod {
    pub fn words(self) -> &'static str {
        match self {
            IntervalMethod::OrderStatistics => "order statistics",
            IntervalMethod::HodgesLehmann => "Hodges-Lehmann, exact",
            IntervalMethod::Bootstrap => "bootstrap, nominal",
        }
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
fn narrowest_symmetric(
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
fn half_binomial_cdf(n: usize, j: usize) -> f64 {
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
    if base.is_empty()
        || candidate.is_empty()
        || base.iter().chain(candidate).any(|v| v.is_nan())
        || resamples == 0
        || !(level > 0.0 && level < 1.0)
    {
        return None;
    }
    let mut rng = SplitMix64(seed);
    let mut draw = |sample: &[f64], into: &mut Vec<f64>| {
        into.clear();
        into.extend((0..sample.len()).map(|_| sample[rng.below(sample.len())]));
        into.sort_by(f64::total_cmp);
        median_of_sorted(into)
    };
    let (mut b, mut c) = (Vec::new(), Vec::new());
    let mut ratios: Vec<f64> = (0..resamples)
        .filter_map(|_| {
            let base_median = draw(base, &mut b);
            let candidate_median = draw(candidate, &mut c);
            (base_median != 0.0).then(|| candidate_median / base_median)
        })
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f64::total_cmp);
    let last = (ratios.len() - 1) as f64;
    let tail = (1.0 - level) / 2.0;
    Some(Interval {
        lo: ratios[(last * tail).floor() as usize],
        hi: ratios[(last * (1.0 - tail)).ceil() as usize],
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
    if base.is_empty()
        || candidate.is_empty()
        || !base.iter().chain(candidate).all(positive)
        || !(level > 0.0 && level < 1.0)
    {
        return None;
    }
    let mut ratios: Vec<f64> = base
        .iter()
        .flat_map(|b| candidate.iter().map(move |c| c / b))
        .collect();
    ratios.sort_by(f64::total_cmp);
    let counts = mann_whitney_null_counts(base.len(), candidate.len());
    let all: f64 = counts.iter().sum();
    // cdf[u] = P(U <= u)
    let cdf: Vec<f64> = counts
        .iter()
        .scan(0.0, |acc, c| {
            *acc += c;
            Some(*acc / all)
        })
        .collect();
    let coverage = |k: usize| (1.0 - 2.0 * cdf[k - 1]).max(0.0);
    Some(narrowest_symmetric(
        &ratios,
        level - 1e-12,
        IntervalMethod::HodgesLehmann,
        coverage,
    ))
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
const Z_975: f64 = 1.959_963_984_540_054;
/// The normal quantile for 80%: the power asked of an estimate of runs.
const Z_80: f64 = 0.841_621_233_572_914_3;
/// Runs a side the estimate never goes beyond.
pub const MAX_RUNS_ESTIMATED: usize = 100_000;

/// About how many runs a side (the same number on both) would settle
/// whether the factor between candidate and base lies beyond
/// `boundary` (a factor: 0.95 for a drop of 5%, 1 for "any change"),
/// estimated as a sample-size formula does: if the runs' spread (the
/// pooled standard deviation s of the logs of both samples) and the
/// factor they show (the ratio of medians) were the true ones, the
/// smallest n with 2 (z_0.975 + z_0.8)^2 s^2 / (n d^2) <= 3/pi, d the
/// distance in logs between the factor and the boundary: the normal
/// approximation of a 95% interval that clears the boundary 80% of the
/// time, widened by the Hodges-Lehmann interval's efficiency of 3/pi
/// against the t interval. At least 4 (fewer a side give no exact 95%
/// interval); None beyond `MAX_RUNS_ESTIMATED`, when the factor lies on
/// the boundary, or when the values do not allow logs.
pub fn runs_to_decide(base: &[f64], candidate: &[f64], boundary: f64) -> Option<usize> {
    let positive = |v: &f64| v.is_finite() && *v > 0.0;
    if base.len() < 2
        || candidate.len() < 2
        || !base.iter().chain(candidate).all(positive)
        || !(boundary.is_finite() && boundary > 0.0)
    {
        return None;
    }
    let logs = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<f64>>();
    let (lb, lc) = (logs(base), logs(candidate));
    let ss = |v: &[f64]| {
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>()
    };
    let pooled_var = (ss(&lb) + ss(&lc)) / (lb.len() + lc.len() - 2) as f64;
    let factor = {
        let (mut b, mut c) = (base.to_vec(), candidate.to_vec());
        b.sort_by(f64::total_cmp);
        c.sort_by(f64::total_cmp);
        median_of_sorted(&c) / median_of_sorted(&b)
    };
    let distance = (factor.ln() - boundary.ln()).abs();
    if distance == 0.0 {
        return None;
    }
    let efficiency = 3.0 / std::f64::consts::PI;
    let n = 2.0 * (Z_975 + Z_80).powi(2) * pooled_var / (distance.powi(2) * efficiency);
    let n = (n.ceil() as usize).max(4);
    (n <= MAX_RUNS_ESTIMATED).then_some(n)
}

fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny generator with a fixed,
/// documented output sequence, so a bootstrap seed means the same thing
/// on every build and every version of every crate.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// uniform in 0..n (n > 0), by rejection so no index is favoured
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

/// (candidate / base - 1) * 100; None when base is 0 or a median is not
/// finite (a change from nothing has no percentage).
/// The least-squares slope of y over x; None with fewer than two
/// distinct x.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    if points.len() < 2 || sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = points.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    Some(sxy / sxx)
}

pub fn change_pct(base_median: f64, candidate_median: f64) -> Option<f64> {
    if base_median == 0.0 || !base_median.is_finite() || !candidate_median.is_finite() {
        return None;
    }
    Some((candidate_median / base_median - 1.0) * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_of_runs() {
        let s = spread(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!(
            (s.n, s.median, s.min, s.max, s.mean),
            (3, 2.0, 1.0, 3.0, 2.0)
        );
        assert!((s.cv - 0.5).abs() < 1e-12);
        assert!(spread(&[]).is_none());
        assert_eq!(spread(&[5.0]).unwrap().cv, 0.0);
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn exact_mann_whitney_of_three_separated_runs_is_one_tenth() {
        // 2 of the C(6,3) = 20 splits are as extreme: p = 0.1 exactly
        let r = mann_whitney_exact(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert_eq!(r.u, 0.0);
        assert!(close(r.p_two_sided, 0.1), "{r:?}");
        assert!(close(r.min_p, 0.1), "{r:?}");
        let flipped = mann_whitney_exact(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(flipped.u, 9.0);
        assert!(close(flipped.p_two_sided, 0.1), "{flipped:?}");
    }

    #[test]
    fn exact_mann_whitney_of_five_separated_runs() {
        let base = [100.0, 101.0, 102.0, 103.0, 104.0];
        let lower = [90.0, 91.0, 92.0, 93.0, 94.0];
        let r = mann_whitney_exact(&lower, &base).unwrap();
        assert_eq!(r.u, 0.0);
        assert!(close(r.p_two_sided, 2.0 / 252.0), "{r:?}");
        assert!(close(r.min_p, 2.0 / 252.0), "{r:?}");
    }

    #[test]
    fn exact_mann_whitney_textbook_example() {
        // scipy.stats.mannwhitneyu's documented example (ages of males and
        // females): U = 17, exact two-sided p = 0.1111 = 14/126, since
        // P(U <= 3) for 5 vs 4 is (1 + 1 + 2 + 3) / C(9, 4)
        let males = [19.0, 22.0, 16.0, 29.0, 24.0];
        let females = [20.0, 11.0, 17.0, 12.0];
        let r = mann_whitney_exact(&males, &females).unwrap();
        assert_eq!(r.u, 17.0);
        assert!(close(r.p_two_sided, 14.0 / 126.0), "{r:?}");
        assert!(close(r.min_p, 2.0 / 126.0), "{r:?}");
        let other_way = mann_whitney_exact(&females, &males).unwrap();
        assert_eq!(other_way.u, 3.0);
        assert_eq!(other_way.p_two_sided, r.p_two_sided);
    }

    #[test]
    fn exact_mann_whitney_of_symmetric_or_empty_samples() {
        let r = mann_whitney_exact(&[1.0, 4.0], &[2.0, 3.0]).unwrap();
        assert_eq!((r.u, r.p_two_sided), (2.0, 1.0));
        let same = mann_whitney_exact(&[7.0, 7.0, 7.0], &[7.0, 7.0, 7.0]).unwrap();
        assert_eq!((same.u, same.p_two_sided), (4.5, 1.0));
        assert!(mann_whitney_exact(&[], &[1.0]).is_none());
        assert!(mann_whitney_exact(&[1.0], &[]).is_none());
        assert!(mann_whitney_exact(&[1.0, f64::NAN], &[2.0]).is_none());
    }

    /// The p-value by listing every split of the pooled values, with
    /// midranks, as an independent check of the counting.
    fn brute_force_p(a: &[f64], b: &[f64]) -> f64 {
        let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
        let total = pooled.len();
        let midrank = |v: f64| {
            let below = pooled.iter().filter(|&&x| x < v).count() as f64;
            let equal = pooled.iter().filter(|&&x| x == v).count() as f64;
            below + (equal + 1.0) / 2.0
        };
        let ranks: Vec<f64> = pooled.iter().map(|&v| midrank(v)).collect();
        let mean = a.len() as f64 * (total as f64 + 1.0) / 2.0;
        let observed = (ranks[..a.len()].iter().sum::<f64>() - mean).abs();
        let (mut extreme, mut all) = (0u64, 0u64);
        for mask in 0u32..(1 << total) {
            if mask.count_ones() as usize != a.len() {
                continue;
            }
            all += 1;
            let sum: f64 = (0..total)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| ranks[i])
                .sum();
            if (sum - mean).abs() >= observed - 1e-9 {
                extreme += 1;
            }
        }
        extreme as f64 / all as f64
    }

    #[test]
    fn exact_mann_whitney_with_ties_matches_enumeration() {
        let cases: [(&[f64], &[f64]); 5] = [
            (&[1.0, 2.0, 2.0, 3.0], &[2.0, 3.0, 3.0, 4.0, 5.0]),
            (&[10.0, 10.0, 10.0], &[10.0, 11.0, 11.0, 12.0]),
            (
                &[5.0, 6.0, 6.0, 6.0, 7.0, 9.0],
                &[6.0, 7.0, 7.0, 8.0, 9.0, 9.0],
            ),
            (&[1.0, 1.0, 2.0], &[3.0, 3.0, 4.0, 4.0, 4.0, 5.0, 5.0]),
            (&[3.5, 1.5, 2.5, 2.5, 9.0, 1.0, 8.0], &[2.5, 4.0, 7.0, 7.0]),
        ];
        for (a, b) in cases {
            let exact = mann_whitney_exact(a, b).unwrap().p_two_sided;
            let listed = brute_force_p(a, b);
            assert!(close(exact, listed), "{a:?} vs {b:?}: {exact} != {listed}");
        }
        // ties inside each side leave complete separation at 2 / C(6, 3)
        let tied = mann_whitney_exact(&[1.0, 1.0, 1.0], &[2.0, 2.0, 2.0]).unwrap();
        assert!(close(tied.p_two_sided, 0.1), "{tied:?}");
    }

    #[test]
    fn exact_mann_whitney_of_large_samples() {
        // 50 vs 50 separated: 2 / C(100, 50)
        let low: Vec<f64> = (0..50).map(f64::from).collect();
        let high: Vec<f64> = (50..100).map(f64::from).collect();
        let r = mann_whitney_exact(&low, &high).unwrap();
        let expected = 2.0 / 1.008_913_445_455_641_9e29;
        assert!((r.p_two_sided / expected - 1.0).abs() < 1e-9, "{r:?}");
        assert!((r.min_p / expected - 1.0).abs() < 1e-9, "{r:?}");
        // interleaved samples of 20: the normal approximation is close
        let a: Vec<f64> = (0..20).map(|i| f64::from(i * 7 % 40)).collect();
        let b: Vec<f64> = (0..20).map(|i| f64::from(i * 7 % 40) + 5.5).collect();
        let exact = mann_whitney_exact(&a, &b).unwrap().p_two_sided;
        // statrs's normal approximation with continuity correction, as a
        // second opinion
        use statrs::stats_tests::mannwhitneyu::{mannwhitneyu, MannWhitneyUMethod};
        let approx = mannwhitneyu(
            &a,
            &b,
            MannWhitneyUMethod::AsymptoticInclContinuityCorrection,
            statrs::stats_tests::Alternative::TwoSided,
        )
        .unwrap()
        .1;
        assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
        assert!(exact < 1.0 && exact > 0.0);
    }

    #[test]
    fn median_ci_from_order_statistics() {
        // n = 10: x(2)..x(9) covers with 1 - 2 * 11/1024; x(3)..x(8) only 89%
        let values: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let ci = median_ci(&values, 0.95).unwrap();
        assert_eq!((ci.lo, ci.hi), (2.0, 9.0));
        assert!(close(ci.coverage, 1.0 - 22.0 / 1024.0), "{ci:?}");
        let ci80 = median_ci(&values, 0.80).unwrap();
        assert_eq!((ci80.lo, ci80.hi), (3.0, 8.0));
        assert!(close(ci80.coverage, 1.0 - 112.0 / 1024.0), "{ci80:?}");
        // n = 6 just reaches 95% with (min, max)
        let six = median_ci(&[6.0, 1.0, 5.0, 2.0, 4.0, 3.0], 0.95).unwrap();
        assert_eq!((six.lo, six.hi), (1.0, 6.0));
        assert!(close(six.coverage, 1.0 - 2.0 / 64.0), "{six:?}");
    }

    #[test]
    fn half_binomial_cdf_agrees_with_statrs() {
        for (n, j) in [(1, 0), (10, 1), (30, 9), (999, 480), (1000, 500)] {
            let ours = half_binomial_cdf(n, j);
            let statrs = Binomial::new(0.5, n as u64).unwrap().cdf(j as u64);
            assert!(
                (ours - statrs).abs() < 1e-9,
                "n={n} j={j}: {ours} vs {statrs}"
            );
        }
        assert_eq!(half_binomial_cdf(10, 1), 11.0 / 1024.0);
        assert_eq!(half_binomial_cdf(4, 4), 1.0);
    }

    #[test]
    fn median_ci_of_too_few_values_is_the_range_with_its_real_level() {
        let five = median_ci(&[3.0, 1.0, 2.0, 5.0, 4.0], 0.95).unwrap();
        assert_eq!((five.lo, five.hi), (1.0, 5.0));
        assert!(close(five.coverage, 1.0 - 2.0 / 32.0), "{five:?}");
        let one = median_ci(&[7.0], 0.95).unwrap();
        assert_eq!((one.lo, one.hi, one.coverage), (7.0, 7.0, 0.0));
        assert!(median_ci(&[], 0.95).is_none());
        assert!(median_ci(&[1.0, 2.0], 1.0).is_none());
        assert!(median_ci(&[1.0, f64::NAN], 0.9).is_none());
    }

    #[test]
    fn bootstrap_ratio_is_deterministic_per_seed() {
        let base = [100.0, 104.0, 97.0, 101.0, 99.0, 103.0];
        let candidate = [110.0, 108.0, 115.0, 111.0, 107.0, 112.0];
        let a = bootstrap_ratio_ci(&base, &candidate, 0.95, 2000, 42).unwrap();
        let b = bootstrap_ratio_ci(&base, &candidate, 0.95, 2000, 42).unwrap();
        assert_eq!(a, b);
        let other = bootstrap_ratio_ci(&base, &candidate, 0.95, 2000, 43).unwrap();
        assert_ne!(a, other, "the seed changes the resamples");
        // the point estimate 110.5 / 100.5 lies inside, and the interval
        // inside the extreme ratios min(c)/max(b) .. max(c)/min(b)
        let point = 110.5 / 100.5;
        assert!(a.lo < point && point < a.hi, "{a:?}");
        assert!(a.lo >= 107.0 / 104.0 && a.hi <= 115.0 / 97.0, "{a:?}");
        assert_eq!((a.coverage, a.method), (0.95, IntervalMethod::Bootstrap));
    }

    #[test]
    fn bootstrap_ratio_of_constant_samples_is_exact() {
        let ci = bootstrap_ratio_ci(&[100.0; 4], &[125.0; 3], 0.9, 500, 1).unwrap();
        assert_eq!((ci.lo, ci.hi), (1.25, 1.25));
        assert!(bootstrap_ratio_ci(&[0.0, 0.0], &[1.0], 0.9, 100, 1).is_none());
        assert!(bootstrap_ratio_ci(&[], &[1.0], 0.9, 100, 1).is_none());
        assert!(bootstrap_ratio_ci(&[1.0], &[1.0], 0.9, 0, 1).is_none());
        assert!(bootstrap_ratio_ci(&[1.0], &[1.0], 0.0, 10, 1).is_none());
    }

    /// The null distribution of U by listing every split of 1..=n+m into
    /// n and m values, as an independent check of the recursion.
    fn listed_null_counts(n: usize, m: usize) -> Vec<f64> {
        let total = n + m;
        let mut counts = vec![0.0; n * m + 1];
        for mask in 0u32..(1 << total) {
            if mask.count_ones() as usize != n {
                continue;
            }
            let first: Vec<usize> = (0..total).filter(|i| mask & (1 << i) != 0).collect();
            let other: Vec<usize> = (0..total).filter(|i| mask & (1 << i) == 0).collect();
            let u = first
                .iter()
                .map(|a| other.iter().filter(|b| a > b).count())
                .sum::<usize>();
            counts[u] += 1.0;
        }
        counts
    }

    #[test]
    fn mann_whitney_null_counts_match_enumeration() {
        for (n, m) in [(1, 1), (2, 3), (3, 3), (4, 4), (3, 5), (5, 2), (6, 7)] {
            assert_eq!(
                mann_whitney_null_counts(n, m),
                listed_null_counts(n, m),
                "{n} vs {m}"
            );
        }
        let c = mann_whitney_null_counts(4, 4);
        assert_eq!(c.iter().sum::<f64>(), 70.0);
        assert_eq!(&c[..4], &[1.0, 1.0, 2.0, 3.0]);
        assert_eq!(mann_whitney_null_counts(0, 3), vec![1.0]);
    }

    #[test]
    fn hodges_lehmann_coverage_is_the_exact_one() {
        let base = [100.0, 104.0, 97.0, 101.0];
        let cand = [110.0, 108.0, 115.0, 111.0];
        // 4 vs 4: k = 1 covers 1 - 2/70 = 97.1%, k = 2 only 1 - 4/70 = 94.3%
        let ci = hodges_lehmann_ratio_ci(&base, &cand, 0.95).unwrap();
        assert!(close(ci.coverage, 1.0 - 2.0 / 70.0), "{ci:?}");
        assert_eq!((ci.lo, ci.hi), (108.0 / 104.0, 115.0 / 97.0));
        assert_eq!(ci.method, IntervalMethod::HodgesLehmann);
        assert!(ci.reaches(0.95));
        let ci90 = hodges_lehmann_ratio_ci(&base, &cand, 0.90).unwrap();
        // k = 2: 1 - 2 (1 + 1)/70 = 94.3%; k = 3 falls to 1 - 2 * 4/70 = 88.6%
        assert!(close(ci90.coverage, 1.0 - 4.0 / 70.0), "{ci90:?}");
        // 3 vs 5: 1 - 2/56; 3 vs 3 cannot reach 95%: 90% is shown as such
        let ci = hodges_lehmann_ratio_ci(&base[..3], &[1.0, 2.0, 3.0, 4.0, 5.0], 0.95).unwrap();
        assert!(close(ci.coverage, 1.0 - 2.0 / 56.0), "{ci:?}");
        let ci = hodges_lehmann_ratio_ci(&base[..3], &cand[..3], 0.95).unwrap();
        assert!(close(ci.coverage, 0.9) && !ci.reaches(0.95), "{ci:?}");
        assert!(hodges_lehmann_ratio_ci(&[0.0, 1.0], &[1.0], 0.95).is_none());
        assert!(hodges_lehmann_ratio_ci(&[], &[1.0], 0.95).is_none());
        assert!(hodges_lehmann_ratio_ci(&[1.0], &[f64::NAN], 0.95).is_none());
    }

    #[test]
    fn hodges_lehmann_bounds_are_where_the_exact_test_starts_to_reject() {
        // a factor just outside the interval makes the exact test of
        // candidate / factor against base reject at 1 - coverage; one just
        // inside does not: the interval is the test inverted
        let base = [5613.0, 6340.0, 5701.0, 5770.0, 6002.0];
        let cand = [7150.0, 6400.0, 7512.0, 7010.0, 6900.0, 7302.0];
        let ci = hodges_lehmann_ratio_ci(&base, &cand, 0.95).unwrap();
        let alpha = 1.0 - ci.coverage;
        let p_at = |factor: f64| {
            let scaled: Vec<f64> = cand.iter().map(|c| c / factor).collect();
            mann_whitney_exact(&scaled, &base).unwrap().p_two_sided
        };
        for (bound, outward) in [(ci.lo, 1.0 - 1e-9), (ci.hi, 1.0 + 1e-9)] {
            assert!(p_at(bound * outward) <= alpha + 1e-12, "{ci:?}");
            assert!(p_at(bound / outward) > alpha, "{ci:?}");
        }
    }

    #[test]
    fn hodges_lehmann_covers_as_often_as_it_says() {
        // 4 runs against 4, the candidate's the base's times 1.1: the
        // interval holds 1.1 in 97.1% of 20,000 tries (binomial sd 0.12%)
        let mut rng = SplitMix64(19);
        let mut uniform = || (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let tries = 20_000;
        let mut covered = 0;
        for _ in 0..tries {
            let base: Vec<f64> = (0..4).map(|_| 1000.0 * (1.0 + uniform())).collect();
            let cand: Vec<f64> = (0..4).map(|_| 1100.0 * (1.0 + uniform())).collect();
            let ci = hodges_lehmann_ratio_ci(&base, &cand, 0.95).unwrap();
            if ci.lo <= 1.1 && 1.1 <= ci.hi {
                covered += 1;
            }
        }
        let share = covered as f64 / tries as f64;
        assert!((share - (1.0 - 2.0 / 70.0)).abs() < 0.005, "{share}");
    }

    #[test]
    fn ratio_ci_is_exact_below_eight_runs_a_side() {
        let seven: Vec<f64> = (0..7).map(|i| 100.0 + f64::from(i)).collect();
        let eight: Vec<f64> = (0..8).map(|i| 110.0 + f64::from(i)).collect();
        let small = ratio_ci(&seven, &eight, 0.95, 500, 1).unwrap();
        assert_eq!(small.method, IntervalMethod::HodgesLehmann);
        let big = ratio_ci(&eight, &eight, 0.95, 500, 1).unwrap();
        assert_eq!(
            (big.method, big.coverage),
            (IntervalMethod::Bootstrap, 0.95)
        );
    }

    #[test]
    fn runs_to_decide_grows_as_the_change_nears_the_boundary() {
        let base = [100.0, 104.0, 97.0, 101.0];
        let cand = [98.0, 103.0, 94.0, 100.0];
        let near = runs_to_decide(&base, &cand, 0.95).unwrap();
        let far = runs_to_decide(&base, &cand, 0.80).unwrap();
        assert!(near > far, "{near} {far}");
        // the formula by hand: pooled variance of the logs, d = ln(0.99 / 0.95)
        let logs = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<_>>();
        let ss = |v: Vec<f64>| {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            v.iter().map(|x| (x - m).powi(2)).sum::<f64>()
        };
        let var = (ss(logs(&base)) + ss(logs(&cand))) / 6.0;
        let factor = 99.0 / 100.5;
        let d = (factor / 0.95f64).ln();
        let want =
            2.0 * (1.959964 + 0.841621f64).powi(2) * var / (d * d) * std::f64::consts::PI / 3.0;
        assert_eq!(near, (want.ceil() as usize).max(4), "{want}");
        // identical runs need the fewest there are; a factor on the boundary never settles
        assert_eq!(runs_to_decide(&[100.0; 3], &[90.0; 3], 0.95), Some(4));
        assert_eq!(runs_to_decide(&[100.0; 3], &[95.0, 95.0, 95.0], 0.95), None);
        assert_eq!(runs_to_decide(&[100.0], &[95.0, 96.0], 0.95), None);
    }

    #[test]
    fn coverages_print_with_the_digits_they_need() {
        assert_eq!(percent(0.95), "95%");
        assert_eq!(percent(0.875), "87.5%");
        assert_eq!(percent(1.0 - 2.0 / 70.0), "97.1%");
    }

    #[test]
    fn splitmix_reference_output() {
        // the published first outputs of SplitMix64 seeded with 0
        let mut rng = SplitMix64(0);
        assert_eq!(rng.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn change_pct_needs_a_base() {
        assert!(close(change_pct(200.0, 150.0).unwrap(), -25.0));
        assert_eq!(change_pct(0.0, 150.0), None);
        assert_eq!(change_pct(f64::NAN, 1.0), None);
    }
}
