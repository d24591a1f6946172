//! Statistics over repetitions: medians and spread per cell, and a
//! rank test of each variant against base (QPS moves by up to 20% between
//! consecutive runs on 2 cores, so one run proves nothing).

use serde::{Deserialize, Serialize};
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
}
