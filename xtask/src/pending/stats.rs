//! TEMPORARY copy of the statistics of issue 10 (branch stats-svg) until they land on main.
//! Statistics over repetitions: medians and spread per cell, and a
//! rank test of each variant against base (QPS moves by up to 20% between
//! consecutive runs on 2 cores, so one run proves nothing).

use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, DiscreteCDF};
use statrs::statistics::{Data, Distribution, Max, Median, Min};
use statrs::stats_tests::mannwhitneyu::{mannwhitneyu, MannWhitneyUMethod};
use statrs::stats_tests::Alternative;

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

/// A variant against base on one metric.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    /// (median of variant / median of base - 1) * 100
    pub change_pct: f64,
    /// two-sided Mann-Whitney U p-value (normal approximation, continuity
    /// corrected)
    pub p_value: Option<f64>,
    /// the smallest p-value these sample sizes could give
    pub min_possible_p: f64,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Higher,
    Lower,
    /// no difference shown at the 5% level (which may only mean too few runs)
    NotShown,
}

pub const ALPHA: f64 = 0.05;

pub fn compare(base: &[f64], variant: &[f64]) -> Option<Comparison> {
    let b = spread(base)?;
    let v = spread(variant)?;
    // The normal approximation with continuity correction: statrs 0.19.1's
    // exact method is wrong for separated samples (two-sided p of 1.0 for
    // five runs each, all lower; see the test below), and its automatic
    // choice takes the exact method for small samples like ours.
    let p_value = rank_test(variant, base);
    let verdict = match p_value {
        Some(p) if p < ALPHA && v.median > b.median => Verdict::Higher,
        Some(p) if p < ALPHA && v.median < b.median => Verdict::Lower,
        _ => Verdict::NotShown,
    };
    Some(Comparison {
        change_pct: if b.median != 0.0 {
            (v.median / b.median - 1.0) * 100.0
        } else {
            f64::NAN
        },
        p_value,
        min_possible_p: min_possible_p(base.len(), variant.len()),
        verdict,
    })
}

fn rank_test(x: &[f64], y: &[f64]) -> Option<f64> {
    mannwhitneyu(
        x,
        y,
        MannWhitneyUMethod::AsymptoticInclContinuityCorrection,
        Alternative::TwoSided,
    )
    .ok()
    .map(|(_, p)| p.min(1.0))
}

/// The p-value of complete separation (every run of one side above every
/// run of the other) with the same test: no data of these sizes can give
/// less.
pub fn min_possible_p(n1: usize, n2: usize) -> f64 {
    let low: Vec<f64> = (0..n1).map(|i| i as f64).collect();
    let high: Vec<f64> = (0..n2).map(|i| (n1 + i) as f64).collect();
    rank_test(&low, &high).unwrap_or(1.0)
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

/// An interval for a statistic, with the confidence level it has.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    /// the confidence level of this interval (see each constructor for
    /// whether it is the requested or the achieved one)
    pub level: f64,
}

/// Distribution-free confidence interval for the median: the order
/// statistics x(k) and x(n+1-k) of the sorted values, with the largest k
/// whose exact coverage 1 - 2 P(Binomial(n, 1/2) <= k - 1) is at least
/// `level`.
///
/// `level` of the result is that exact coverage, which is at least the
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
    // coverage falls as k grows; k = 1 is (min, max)
    let mut k = 1;
    while k < n.div_ceil(2) && coverage(k + 1) >= level {
        k += 1;
    }
    Some(Interval {
        lo: sorted[k - 1],
        hi: sorted[n - k],
        level: coverage(k),
    })
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
/// `level` of the result is the requested (nominal) level. A resample whose
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
        level,
    })
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
pub fn change_pct(base_median: f64, candidate_median: f64) -> Option<f64> {
    if base_median == 0.0 || !base_median.is_finite() || !candidate_median.is_finite() {
        return None;
    }
    Some((candidate_median / base_median - 1.0) * 100.0)
}
