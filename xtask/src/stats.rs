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

    #[test]
    fn three_runs_each_can_never_be_significant() {
        // complete separation of 3 and 3: z = 4 / sqrt(21/4), p = 0.081 > 0.05
        assert!(
            (min_possible_p(3, 3) - 0.0809).abs() < 1e-3,
            "{}",
            min_possible_p(3, 3)
        );
        assert!(min_possible_p(5, 5) < ALPHA);
        let c = compare(&[100.0, 101.0, 102.0], &[200.0, 201.0, 202.0]).unwrap();
        assert_eq!(c.verdict, Verdict::NotShown);
        assert!((c.change_pct - 99.0099).abs() < 1e-3);
        assert!(c.p_value.unwrap() > ALPHA, "{:?}", c.p_value);
    }

    #[test]
    fn separated_samples_of_five_are() {
        let base = [100.0, 101.0, 102.0, 103.0, 104.0];
        let lower = [90.0, 91.0, 92.0, 93.0, 94.0];
        let c = compare(&base, &lower).unwrap();
        assert_eq!(c.verdict, Verdict::Lower, "{c:?}");
        // exact: 2/252 = 0.0079; the approximation is close
        assert!((0.005..0.02).contains(&c.p_value.unwrap()), "{c:?}");
        // the exact method of statrs 0.19.1 gets this case wrong (p = 1.0)
        let exact = mannwhitneyu(
            &lower,
            &base,
            MannWhitneyUMethod::Exact,
            Alternative::TwoSided,
        )
        .unwrap()
        .1;
        assert!(
            exact > 0.5,
            "statrs fixed its exact method ({exact}): reconsider using it"
        );
        let same = compare(&base, &[100.5, 101.5, 102.5, 103.5, 99.5]).unwrap();
        assert_eq!(same.verdict, Verdict::NotShown);
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
        let approx = rank_test(&a, &b).unwrap();
        assert!((exact - approx).abs() < 0.01, "{exact} vs {approx}");
        assert!(exact < 1.0 && exact > 0.0);
    }

    #[test]
    fn median_ci_from_order_statistics() {
        // n = 10: x(2)..x(9) covers with 1 - 2 * 11/1024; x(3)..x(8) only 89%
        let values: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let ci = median_ci(&values, 0.95).unwrap();
        assert_eq!((ci.lo, ci.hi), (2.0, 9.0));
        assert!(close(ci.level, 1.0 - 22.0 / 1024.0), "{ci:?}");
        let ci80 = median_ci(&values, 0.80).unwrap();
        assert_eq!((ci80.lo, ci80.hi), (3.0, 8.0));
        assert!(close(ci80.level, 1.0 - 112.0 / 1024.0), "{ci80:?}");
        // n = 6 just reaches 95% with (min, max)
        let six = median_ci(&[6.0, 1.0, 5.0, 2.0, 4.0, 3.0], 0.95).unwrap();
        assert_eq!((six.lo, six.hi), (1.0, 6.0));
        assert!(close(six.level, 1.0 - 2.0 / 64.0), "{six:?}");
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
        assert!(close(five.level, 1.0 - 2.0 / 32.0), "{five:?}");
        let one = median_ci(&[7.0], 0.95).unwrap();
        assert_eq!((one.lo, one.hi, one.level), (7.0, 7.0, 0.0));
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
        assert_eq!(a.level, 0.95);
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
