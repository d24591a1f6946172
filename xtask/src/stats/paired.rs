//! Paired intervals: the change of a variant against its baseline taken
//! from the repetitions in which both ran one after the other. A slow
//! spell of a shared host hits both runs of a pair, so the ratio within a
//! pair moves much less than either run does; an interval of those ratios
//! is narrower than one that compares the two samples as strangers.
//!
//! Below `BOOTSTRAP_MIN_PAIRS` pairs the interval is the Hodges-Lehmann
//! interval of the log ratios cut from the exact null distribution of
//! Wilcoxon's signed-rank statistic (exact coverage when the log ratios
//! are symmetric about their centre); from there on a percentile bootstrap
//! over pairs of the same estimate (nominal coverage, no symmetry needed).
//! Fewer than `PAIRED_MIN_PAIRS` pairs cannot reach 95% at all, and the
//! caller compares the samples unpaired instead.

use super::*;

/// The fewest pairs whose exact signed-rank interval reaches 95%: with 6
/// the widest interval, the smallest to the largest Walsh average, covers
/// 1 - 2/64 = 96.9%; with 5 only 1 - 2/32 = 93.75%.
pub const PAIRED_MIN_PAIRS: usize = 6;

/// From this many pairs the paired interval is the bootstrap's.
pub const BOOTSTRAP_MIN_PAIRS: usize = 8;

/// counts[t] = how many of the 2^n sign assignments of the ranks 1..=n
/// give a sum of positive ranks of exactly t: the exact null distribution
/// of Wilcoxon's signed-rank statistic T+ (no ties, no zeros). Counted by
/// adding rank r with its sign either way, as a subset-sum count.
pub fn signed_rank_null_counts(n: usize) -> Vec<f64> {
    subset_sum_counts(&(1..=n).collect::<Vec<usize>>())
}

/// counts[s] = how many subsets of `weights` (any size) sum to s: the
/// 2^n sign assignments of the weights by the sum of the positive ones.
fn subset_sum_counts(weights: &[usize]) -> Vec<f64> {
    let top: usize = weights.iter().sum();
    let mut counts = vec![0.0f64; top + 1];
    counts[0] = 1.0;
    let mut reach = 0;
    for &w in weights {
        reach += w;
        for t in (w..=reach).rev() {
            counts[t] += counts[t - w];
        }
    }
    counts
}

/// An exact Wilcoxon signed-rank test of the log ratios of pairs
/// against no change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignedRank {
    /// the sum of the (mid)ranks of |log ratio| whose log ratio is positive
    pub t_plus: f64,
    /// two-sided p: the probability, over all 2^n equally likely signs of
    /// the (mid)ranks of these data, of a sum at least as far from its mean
    pub p_two_sided: f64,
    /// the smallest two-sided p these pairs allow: 2 / 2^n, n the pairs
    /// with a change
    pub min_p: f64,
}

/// The exact signed-rank test of `ratios` (candidate / baseline within
/// each pair): pairs with no change (a ratio of exactly 1) carry no sign
/// and drop out, ties of |log ratio| get midranks, and the distribution
/// is that of these very midranks under every sign assignment (counted on
/// doubled ranks, which are integers), so p stays exact with ties. None
/// when there is no pair or a ratio is not positive and finite.
pub fn signed_rank_exact(ratios: &[f64]) -> Option<SignedRank> {
    let d = log_ratios(ratios).filter(|d| !d.is_empty())?;
    let mut signed: Vec<(f64, bool)> = d
        .iter()
        .filter(|x| **x != 0.0)
        .map(|x| (x.abs(), *x > 0.0))
        .collect();
    signed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = signed.len();
    let doubled = doubled_midranks(&signed.iter().map(|x| x.0).collect::<Vec<f64>>());
    let observed: usize = (0..n).filter(|&k| signed[k].1).map(|k| doubled[k]).sum();
    let total: usize = doubled.iter().sum();
    let ways = subset_sum_counts(&doubled);
    let all: f64 = ways.iter().sum();
    // the mean of the doubled sum is total / 2; compare doubled distances
    let deviation = (2 * observed).abs_diff(total);
    let extreme: f64 = ways
        .iter()
        .enumerate()
        .filter(|(s, _)| (2 * s).abs_diff(total) >= deviation)
        .map(|(_, w)| w)
        .sum();
    Some(SignedRank {
        t_plus: observed as f64 / 2.0,
        p_two_sided: (extreme / all).min(1.0),
        min_p: (2.0 / 2f64.powi(n as i32)).min(1.0),
    })
}

/// The n(n+1)/2 Walsh averages (d_i + d_j) / 2, i <= j, into `into`.
fn push_walsh_averages(d: &[f64], into: &mut Vec<f64>) {
    for (i, a) in d.iter().enumerate() {
        for b in &d[i..] {
            into.push((a + b) / 2.0);
        }
    }
}

/// The Walsh averages, sorted.
fn walsh_averages(d: &[f64]) -> Vec<f64> {
    let mut w = Vec::with_capacity(d.len() * (d.len() + 1) / 2);
    push_walsh_averages(d, &mut w);
    w.sort_by(f64::total_cmp);
    w
}

/// The Hodges-Lehmann estimate of the centre of `d`: the median of its
/// Walsh averages (reordered in place: `scratch` is reused between calls).
fn pseudo_median(d: &[f64], scratch: &mut Vec<f64>) -> f64 {
    scratch.clear();
    push_walsh_averages(d, scratch);
    let m = scratch.len();
    let (_, upper, _) = scratch.select_nth_unstable_by(m / 2, f64::total_cmp);
    let upper = *upper;
    if m % 2 == 1 {
        upper
    } else {
        let lower = scratch[..m / 2]
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        (lower + upper) / 2.0
    }
}

fn log_ratios(ratios: &[f64]) -> Option<Vec<f64>> {
    ratios
        .iter()
        .all(|r| r.is_finite() && *r > 0.0)
        .then(|| ratios.iter().map(|r| r.ln()).collect())
}

/// The factor between candidate and baseline that the pairs show: the
/// exponent of the Hodges-Lehmann estimate of the log ratios. None when
/// there is no pair or a ratio is not positive and finite.
pub fn paired_factor(ratios: &[f64]) -> Option<f64> {
    let d = log_ratios(ratios).filter(|d| !d.is_empty())?;
    Some(pseudo_median(&d, &mut Vec::new()).exp())
}

/// Hodges-Lehmann interval of the factor from `ratios` (candidate /
/// baseline within each pair): the Walsh averages of the log ratios
/// sorted, and those at ranks k and M + 1 - k (M = n(n+1)/2). It misses
/// the true centre exactly when T+ of the log ratios less that centre is
/// at most k - 1 or at least M - k + 1, so its coverage is 1 - 2 P(T+ <=
/// k - 1) under the exact signed-rank distribution, whatever the
/// distribution of the log ratios as long as it is symmetric and
/// continuous. k is the largest whose coverage reaches `level`; with too
/// few pairs for that (5 or fewer for 95%), the whole range with its
/// coverage below `level`, which decides nothing. None when there is no
/// pair, a ratio is not positive and finite, or `level` is not in (0, 1).
pub fn paired_hodges_lehmann_ci(ratios: &[f64], level: f64) -> Option<Interval> {
    let i = paired_centre_ci(&log_ratios(ratios)?, level)?;
    Some(Interval {
        lo: i.lo.exp(),
        hi: i.hi.exp(),
        ..i
    })
}

/// The same interval of the centre of `differences` (candidate - baseline
/// within each pair, in the metric's own unit), with the same exact
/// coverage when the differences are symmetric about their centre. None
/// when there is no pair, a difference is not finite, or `level` is not
/// in (0, 1).
pub fn paired_hodges_lehmann_shift_ci(differences: &[f64], level: f64) -> Option<Interval> {
    paired_centre_ci(&finite(differences)?, level)
}

/// The exact signed-rank interval of the centre of `d`.
fn paired_centre_ci(d: &[f64], level: f64) -> Option<Interval> {
    if d.is_empty() || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let walsh = walsh_averages(d);
    let cdf = cdf_of(&signed_rank_null_counts(d.len()));
    let coverage = |k: usize| (1.0 - 2.0 * cdf[k - 1]).max(0.0);
    Some(narrowest_symmetric(
        &walsh,
        level - 1e-12,
        IntervalMethod::PairedHodgesLehmann,
        coverage,
    ))
}

fn finite(values: &[f64]) -> Option<Vec<f64>> {
    values
        .iter()
        .all(|v| v.is_finite())
        .then(|| values.to_vec())
}

/// Percentile bootstrap of the factor over pairs: `resamples` times, n
/// pairs drawn with replacement (from a generator seeded with `seed`) and
/// their Hodges-Lehmann estimate taken; the interval is the pair of
/// order statistics at (1 - level) / 2 and (1 + level) / 2. Coverage is
/// the nominal `level`. None as `paired_hodges_lehmann_ci`, or when
/// `resamples` is 0.
pub fn paired_bootstrap_ci(
    ratios: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    let i = paired_centre_bootstrap_ci(&log_ratios(ratios)?, level, resamples, seed)?;
    Some(Interval {
        lo: i.lo.exp(),
        hi: i.hi.exp(),
        ..i
    })
}

/// The same bootstrap of the centre of `differences`, in their unit.
pub fn paired_bootstrap_shift_ci(
    differences: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    paired_centre_bootstrap_ci(&finite(differences)?, level, resamples, seed)
}

fn paired_centre_bootstrap_ci(
    d: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    if d.is_empty() || resamples == 0 || !(level > 0.0 && level < 1.0) {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let (mut drawn, mut scratch) = (Vec::with_capacity(d.len()), Vec::new());
    let mut estimates: Vec<f64> = (0..resamples)
        .map(|_| {
            drawn.clear();
            drawn.extend((0..d.len()).map(|_| d[rng.below_exact(d.len() as u64) as usize]));
            pseudo_median(&drawn, &mut scratch)
        })
        .collect();
    estimates.sort_by(f64::total_cmp);
    let last = (estimates.len() - 1) as f64;
    let tail = (1.0 - level) / 2.0;
    Some(Interval {
        lo: estimates[(last * tail).floor() as usize],
        hi: estimates[(last * (1.0 - tail)).ceil() as usize],
        method: IntervalMethod::PairedBootstrap,
        coverage: level,
    })
}

/// The paired interval reports print and decide by: exact below
/// `BOOTSTRAP_MIN_PAIRS` pairs, the bootstrap's from there on.
pub fn paired_ratio_ci(ratios: &[f64], level: f64, resamples: u32, seed: u64) -> Option<Interval> {
    if ratios.len() < BOOTSTRAP_MIN_PAIRS {
        paired_hodges_lehmann_ci(ratios, level)
    } else {
        paired_bootstrap_ci(ratios, level, resamples, seed)
    }
}

/// The paired interval of a difference, tiered as `paired_ratio_ci`.
pub fn paired_shift_ci(
    differences: &[f64],
    level: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    if differences.len() < BOOTSTRAP_MIN_PAIRS {
        paired_hodges_lehmann_shift_ci(differences, level)
    } else {
        paired_bootstrap_shift_ci(differences, level, resamples, seed)
    }
}

/// The difference the pairs show: the Hodges-Lehmann estimate of their
/// differences. None when there is no pair or one is not finite.
pub fn paired_shift(differences: &[f64]) -> Option<f64> {
    let d = finite(differences).filter(|d| !d.is_empty())?;
    Some(pseudo_median(&d, &mut Vec::new()))
}

/// About how many pairs would settle whether the factor lies beyond
/// `boundary`, if the spread of the log ratios and the factor the pairs
/// show were the true ones: the fewest n (at least `PAIRED_MIN_PAIRS`)
/// with n >= (t_0.975 + t_0.8)^2 s^2 / (d^2 * 3/pi), t with n - 1 degrees
/// of freedom, s the standard deviation of the log ratios, d the distance
/// in logs from the factor to the boundary, 3/pi the efficiency of the
/// Hodges-Lehmann estimate against the mean. Held by a simulation of the
/// tool's own rule (`tests::estimates_decide_as_often_as_they_say`).
/// None with fewer than 2 pairs, a ratio that allows no log, a factor on
/// the boundary, or beyond `MAX_RUNS_ESTIMATED`.
pub fn pairs_to_decide(ratios: &[f64], boundary: f64) -> Option<usize> {
    if !(boundary.is_finite() && boundary > 0.0) {
        return None;
    }
    pairs_to_decide_centre(&log_ratios(ratios)?, boundary.ln())
}

/// The same estimate for a difference: whether the centre of
/// `differences` lies beyond `boundary` (in their unit: -0.2 for a
/// margin of 0.2 points).
pub fn pairs_to_decide_shift(differences: &[f64], boundary: f64) -> Option<usize> {
    if !boundary.is_finite() {
        return None;
    }
    pairs_to_decide_centre(&finite(differences)?, boundary)
}

fn pairs_to_decide_centre(d: &[f64], boundary: f64) -> Option<usize> {
    if d.len() < 2 {
        return None;
    }
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let distance = (pseudo_median(d, &mut Vec::new()) - boundary).abs();
    let efficiency = 3.0 / std::f64::consts::PI;
    smallest_n(PAIRED_MIN_PAIRS, |n| {
        let t = t_quantiles(n - 1);
        t * t * var / (distance * distance * efficiency)
    })
}

/// (t_0.975 + t_0.8) with `df` degrees of freedom.
pub(super) fn t_quantiles(df: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    match StudentsT::new(0.0, 1.0, df.max(1) as f64) {
        Ok(t) => t.inverse_cdf(0.975) + t.inverse_cdf(0.8),
        Err(_) => Z_975 + Z_80,
    }
}

/// The fewest n from `from` whose `needed(n)` is at most n; None when no
/// n up to `MAX_RUNS_ESTIMATED` meets it (a distance of 0 makes the need
/// infinite). `needed` falls as n grows (t quantiles shrink), so the n
/// that meet it are all those from the first: a binary search finds it.
pub(super) fn smallest_n(from: usize, needed: impl Fn(usize) -> f64) -> Option<usize> {
    let meets = |n: usize| needed(n) <= n as f64;
    let (mut lo, mut hi) = (from.max(2), MAX_RUNS_ESTIMATED);
    if !meets(hi) {
        return None;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    /// T+ over every sign assignment, listed.
    fn listed_signed_rank_counts(n: usize) -> Vec<f64> {
        let mut counts = vec![0.0; n * (n + 1) / 2 + 1];
        for mask in 0u32..(1 << n) {
            let t: usize = (0..n).filter(|i| mask & (1 << i) != 0).map(|i| i + 1).sum();
            counts[t] += 1.0;
        }
        counts
    }

    #[test]
    fn signed_rank_counts_match_enumeration() {
        for n in 0..=10 {
            assert_eq!(
                signed_rank_null_counts(n),
                listed_signed_rank_counts(n),
                "n = {n}"
            );
        }
        // n = 6: 2^6 sign assignments, one with T+ = 0
        let c = signed_rank_null_counts(6);
        assert_eq!(c.iter().sum::<f64>(), 64.0);
        assert_eq!(&c[..4], &[1.0, 1.0, 1.0, 2.0]);
    }

    #[test]
    fn signed_rank_p_is_exact_and_matches_enumeration() {
        // six pairs all up: 2 of 64 sign assignments are as extreme
        let up = [1.01, 1.02, 1.03, 1.04, 1.05, 1.06];
        let r = signed_rank_exact(&up).unwrap();
        assert_eq!(r.t_plus, 21.0);
        assert!(
            close(r.p_two_sided, 2.0 / 64.0) && close(r.min_p, 2.0 / 64.0),
            "{r:?}"
        );
        // with ties and a zero, against listing every sign assignment
        let ratios = [1.02, 0.98, 1.05, 1.0, 1.02, 0.97, 1.08, 1.05];
        let r = signed_rank_exact(&ratios).unwrap();
        let d: Vec<f64> = ratios
            .iter()
            .map(|x| x.ln())
            .filter(|x| *x != 0.0)
            .collect();
        let midrank = |v: f64| {
            let below = d.iter().filter(|x| x.abs() < v.abs() - 1e-15).count() as f64;
            let equal = d
                .iter()
                .filter(|x| (x.abs() - v.abs()).abs() <= 1e-15)
                .count() as f64;
            below + (equal + 1.0) / 2.0
        };
        let ranks: Vec<f64> = d.iter().map(|&x| midrank(x)).collect();
        let mean = ranks.iter().sum::<f64>() / 2.0;
        let observed: f64 = d
            .iter()
            .zip(&ranks)
            .filter(|(x, _)| **x > 0.0)
            .map(|(_, r)| r)
            .sum();
        let (mut extreme, mut all) = (0u32, 0u32);
        for mask in 0u32..(1 << d.len()) {
            all += 1;
            let t: f64 = (0..d.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| ranks[i])
                .sum();
            if (t - mean).abs() >= (observed - mean).abs() - 1e-9 {
                extreme += 1;
            }
        }
        assert_eq!(r.t_plus, observed);
        assert!(
            close(r.p_two_sided, f64::from(extreme) / f64::from(all)),
            "{r:?}"
        );
        assert!(
            close(r.min_p, 2.0 / 128.0),
            "the pair with no change drops out"
        );
        let none = signed_rank_exact(&[1.0, 1.0]).unwrap();
        assert_eq!(none.p_two_sided, 1.0);
        assert!(signed_rank_exact(&[]).is_none());
    }

    #[test]
    fn paired_interval_coverage_is_exact_and_needs_six_pairs() {
        let six = [1.10, 1.02, 1.05, 0.98, 1.07, 1.04];
        let ci = paired_hodges_lehmann_ci(&six, 0.95).unwrap();
        // k = 1 covers 1 - 2/64; k = 2 only 1 - 4/64 = 93.75%
        assert!(close(ci.coverage, 1.0 - 2.0 / 64.0), "{ci:?}");
        assert!(close(ci.lo, 0.98) && close(ci.hi, 1.10), "{ci:?}");
        assert_eq!(ci.method, IntervalMethod::PairedHodgesLehmann);
        assert!(ci.reaches(0.95));
        let five = paired_hodges_lehmann_ci(&six[..5], 0.95).unwrap();
        assert!(close(five.coverage, 1.0 - 2.0 / 32.0) && !five.reaches(0.95));
        // 10 pairs: T+ <= 8 has probability 25/1024, so k = 9 covers 95.1%
        let ten: Vec<f64> = (0..10).map(|i| 1.0 + f64::from(i) / 100.0).collect();
        let ci = paired_hodges_lehmann_ci(&ten, 0.95).unwrap();
        let c = signed_rank_null_counts(10);
        let below: f64 = c[..9].iter().sum();
        assert_eq!(below, 25.0);
        assert!(close(ci.coverage, 1.0 - 2.0 * 25.0 / 1024.0), "{ci:?}");
        assert!(paired_hodges_lehmann_ci(&[], 0.95).is_none());
        assert!(paired_hodges_lehmann_ci(&[1.0, 0.0], 0.95).is_none());
        assert!(paired_hodges_lehmann_ci(&[1.0, f64::NAN], 0.95).is_none());
    }

    #[test]
    fn paired_interval_is_the_signed_rank_test_inverted() {
        // a centre just outside the interval makes the exact signed-rank
        // test of the log ratios less that centre reject at 1 - coverage;
        // one just inside does not
        let ratios = [1.061, 1.032, 1.118, 0.991, 1.074, 1.045, 1.088, 1.012];
        let ci = paired_hodges_lehmann_ci(&ratios, 0.95).unwrap();
        let counts = signed_rank_null_counts(ratios.len());
        let all: f64 = counts.iter().sum();
        let p_two_sided = |centre: f64| {
            let d: Vec<f64> = ratios.iter().map(|r| r.ln() - centre.ln()).collect();
            let mut by_size: Vec<f64> = d.clone();
            by_size.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
            let t: usize = by_size
                .iter()
                .enumerate()
                .filter(|(_, x)| **x > 0.0)
                .map(|(i, _)| i + 1)
                .sum();
            let top = counts.len() - 1;
            let tail = t.min(top - t);
            let p: f64 = counts[..=tail].iter().sum::<f64>() / all;
            (2.0 * p).min(1.0)
        };
        let alpha = 1.0 - ci.coverage;
        for (inside, outside) in [
            (ci.lo * 1.0001, ci.lo * 0.9999),
            (ci.hi * 0.9999, ci.hi * 1.0001),
        ] {
            assert!(p_two_sided(inside) > alpha + 1e-12, "{inside}: {ci:?}");
            assert!(p_two_sided(outside) <= alpha + 1e-12, "{outside}: {ci:?}");
        }
    }

    #[test]
    fn paired_bootstrap_is_deterministic_and_lies_inside_the_ratios() {
        let ratios = [1.061, 1.032, 1.118, 0.991, 1.074, 1.045, 1.088, 1.012];
        let a = paired_bootstrap_ci(&ratios, 0.95, 2000, 7).unwrap();
        assert_eq!(a, paired_bootstrap_ci(&ratios, 0.95, 2000, 7).unwrap());
        assert_ne!(a, paired_bootstrap_ci(&ratios, 0.95, 2000, 8).unwrap());
        let f = paired_factor(&ratios).unwrap();
        assert!(
            a.lo < f && f < a.hi && a.lo >= 0.991 && a.hi <= 1.118,
            "{a:?}"
        );
        assert_eq!(
            (a.method, a.coverage),
            (IntervalMethod::PairedBootstrap, 0.95)
        );
        // the tier: exact below 8 pairs, bootstrap from 8
        assert_eq!(
            paired_ratio_ci(&ratios[..7], 0.95, 2000, 7).unwrap().method,
            IntervalMethod::PairedHodgesLehmann
        );
        assert_eq!(
            paired_ratio_ci(&ratios, 0.95, 2000, 7).unwrap().method,
            IntervalMethod::PairedBootstrap
        );
    }

    #[test]
    fn the_pseudo_median_is_the_median_of_walsh_averages() {
        let d = [0.3, -0.1, 0.2, 0.5];
        let w = walsh_averages(&d);
        assert_eq!(w.len(), 10);
        let sorted_median = (w[4] + w[5]) / 2.0;
        assert!(close(pseudo_median(&d, &mut Vec::new()), sorted_median));
        // 5 values have 15 Walsh averages: the 8th is the median
        let odd = [0.3, -0.1, 0.2, 0.9, -0.4];
        assert!(close(
            pseudo_median(&odd, &mut Vec::new()),
            walsh_averages(&odd)[7]
        ));
        assert!(close(paired_factor(&[2.0]).unwrap(), 2.0));
    }

    #[test]
    fn smallest_n_walks_to_the_first_n_that_meets_its_need() {
        assert_eq!(smallest_n(6, |_| 10.5), Some(11));
        assert_eq!(smallest_n(6, |_| 2.0), Some(6));
        assert_eq!(smallest_n(4, |n| 40.0 / (n as f64).sqrt()), Some(12));
        assert_eq!(smallest_n(6, |_| f64::INFINITY), None);
        assert_eq!(smallest_n(6, |_| 1e9), None);
    }
}
