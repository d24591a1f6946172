//! Statistics over repetitions: medians and spread per cell, the exact
//! Mann-Whitney test of a variant against its baseline, intervals that
//! say their coverage (order statistics of a median, Hodges-Lehmann or
//! bootstrap of a ratio) and an estimate of the runs a decision needs (QPS
//! moves by up to 20% between consecutive runs on 2 cores, so one run
//! proves nothing).

mod interval;
mod paired;
#[cfg(test)]
mod power;
mod rank;

pub use interval::*;
/// the bootstraps' and simulations' generator: the LRU model's, one for
/// the whole workspace
use lru_model::rng::SplitMix64;
pub use paired::*;
pub use rank::*;

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
        let mut rng = SplitMix64::new(19);
        let mut uniform = || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
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
        // the formula by hand: pooled variance of the logs, d = ln(0.99 /
        // 0.95), t quantiles of 2n - 2 degrees of freedom, and the
        // efficiency of the tier the interval takes at n
        let logs = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<_>>();
        let ss = |v: Vec<f64>| {
            let m = v.iter().sum::<f64>() / v.len() as f64;
            v.iter().map(|x| (x - m).powi(2)).sum::<f64>()
        };
        let var = (ss(logs(&base)) + ss(logs(&cand))) / 6.0;
        let d = (99.0 / 100.5 / 0.95f64).ln();
        let need = |n: usize, e: f64| {
            use statrs::distribution::{ContinuousCDF, StudentsT};
            let t = StudentsT::new(0.0, 1.0, (2 * n - 2) as f64).unwrap();
            let q = t.inverse_cdf(0.975) + t.inverse_cdf(0.8);
            2.0 * q * q * var / (d * d * e)
        };
        let pi = std::f64::consts::PI;
        let by_hand = (4..)
            .find(|&n| need(n, 3.0 / pi) <= n as f64)
            .filter(|&n| n < BOOTSTRAP_MIN_RUNS)
            .unwrap_or_else(|| (8..).find(|&n| need(n, 2.0 / pi) <= n as f64).unwrap());
        assert_eq!(near, by_hand);
        assert!(
            near >= BOOTSTRAP_MIN_RUNS,
            "this case needs the bootstrap: {near}"
        );
        // identical runs need the fewest there are; a factor on the boundary never settles
        assert_eq!(runs_to_decide(&[100.0; 3], &[90.0; 3], 0.95), Some(4));
        assert_eq!(runs_to_decide(&[100.0; 3], &[95.0, 95.0, 95.0], 0.95), None);
        assert_eq!(runs_to_decide(&[100.0], &[95.0, 96.0], 0.95), None);
        assert_eq!(runs_to_show_change(&[100.0; 3], &[90.0; 3]), Some(4));
    }

    #[test]
    fn a_shift_interval_is_the_ratio_interval_taken_in_logs() {
        // the Hodges-Lehmann shift of the logs is the log of the factor:
        // one exact machinery, on two scales
        let base = [100.0, 104.0, 97.0, 101.0, 99.0];
        let cand = [110.0, 108.0, 115.0, 111.0];
        let ratio = hodges_lehmann_ratio_ci(&base, &cand, 0.95).unwrap();
        let logs = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<f64>>();
        let shift = hodges_lehmann_shift_ci(&logs(&base), &logs(&cand), 0.95).unwrap();
        assert!(
            (shift.lo.exp() / ratio.lo - 1.0).abs() < 1e-12,
            "{shift:?} {ratio:?}"
        );
        assert!(
            (shift.hi.exp() / ratio.hi - 1.0).abs() < 1e-12,
            "{shift:?} {ratio:?}"
        );
        assert_eq!(shift.coverage, ratio.coverage);
        // on the values: differences in their own unit, 4 vs 4 at 97.1%
        let ci =
            hodges_lehmann_shift_ci(&[90.0, 90.2, 89.9, 90.1], &[89.0, 89.1, 88.8, 89.3], 0.95)
                .unwrap();
        assert!(
            close(ci.lo, 88.8 - 90.2) && close(ci.hi, 89.3 - 89.9),
            "{ci:?}"
        );
        assert!(close(ci.coverage, 1.0 - 2.0 / 70.0), "{ci:?}");
        // a share may be 0 or negative: the shift needs no log
        assert!(hodges_lehmann_shift_ci(&[0.0, -1.0], &[0.5], 0.9).is_some());
        assert!(hodges_lehmann_shift_ci(&[f64::INFINITY], &[0.5], 0.9).is_none());
        // from 8 runs a side the bootstrap's, of the difference of medians
        let eight: Vec<f64> = (0..8).map(|i| 90.0 + f64::from(i) / 10.0).collect();
        let lower: Vec<f64> = eight.iter().map(|v| v - 1.0).collect();
        let boot = shift_ci(&eight, &lower, 0.95, 2000, 3).unwrap();
        assert_eq!(boot.method, IntervalMethod::Bootstrap);
        assert!(boot.lo < -1.0 + 1e-9 && boot.hi > -1.0 - 1e-9, "{boot:?}");
    }

    #[test]
    fn runs_to_decide_a_difference_counts_in_its_unit() {
        // the same spread and gap in points as in percent of 100: the same n
        let base = [100.0, 100.3, 99.8, 100.1];
        let cand = [99.5, 99.9, 99.4, 99.7];
        let by_shift = runs_to_decide_shift(&base, &cand, -1.0).unwrap();
        assert!(by_shift >= 4, "{by_shift}");
        // a gap on the boundary never settles; one far from it settles at once
        assert_eq!(runs_to_decide_shift(&[1.0, 1.0], &[0.0, 0.0], -1.0), None);
        assert_eq!(runs_to_decide_shift(&[90.0; 3], &[80.0; 3], -0.2), Some(4));
        assert_eq!(
            pairs_to_decide_shift(&[-10.0, -10.0], -0.2),
            Some(PAIRED_MIN_PAIRS)
        );
        assert_eq!(pairs_to_decide_shift(&[-0.2, -0.2], -0.2), None);
    }

    #[test]
    fn coverages_print_with_the_digits_they_need() {
        assert_eq!(percent(0.95), "95%");
        assert_eq!(percent(0.875), "87.5%");
        assert_eq!(percent(1.0 - 2.0 / 70.0), "97.1%");
    }

    #[test]
    fn change_pct_needs_a_base() {
        assert!(close(change_pct(200.0, 150.0).unwrap(), -25.0));
        assert_eq!(change_pct(0.0, 150.0), None);
        assert_eq!(change_pct(f64::NAN, 1.0), None);
    }
}
