//! The exact Mann-Whitney test: its p, the smallest p a number of runs
//! can give, and the null distribution the Hodges-Lehmann interval cuts.

use super::*;

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
    let doubled_ranks = doubled_midranks(&pooled.iter().map(|p| p.0).collect::<Vec<f64>>());
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

pub(super) fn binomial_coefficient(n: usize, k: usize) -> f64 {
    let k = k.min(n - k);
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Twice the midrank (ranks from 1) of each of `sorted` values: tied
/// values share the mean of their ranks, and twice a mean of consecutive
/// ranks is an integer, so exact tests count on integers.
pub(super) fn doubled_midranks(sorted: &[f64]) -> Vec<usize> {
    let n = sorted.len();
    let mut doubled = vec![0usize; n];
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && sorted[j + 1] == sorted[i] {
            j += 1;
        }
        // positions i..=j share the ranks i+1..=j+1, whose mean doubled is i+j+2
        for r in &mut doubled[i..=j] {
            *r = i + j + 2;
        }
        i = j + 1;
    }
    doubled
}

/// counts[s] = the number of k-element subsets of `doubled_ranks` whose sum
/// is s. The counts reach C(N, k), so they are kept as f64 (exact up to
/// 2^53, relatively exact beyond, which is all a p-value needs).
pub(super) fn doubled_rank_sum_counts(doubled_ranks: &[usize], k: usize) -> Vec<f64> {
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
