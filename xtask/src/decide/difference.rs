//! A difference against a baseline in the metric's own unit (points for
//! a share in percent): what a margin question (`not-below`) decides by.
//! A hit ratio moves by about 0.1 points from run to run whatever its
//! level, so its gap is a difference, not a factor; the interval comes
//! from the machinery of a change (`change.rs`) on that scale: paired
//! where the runs were interleaved by repetition and at least
//! `stats::PAIRED_MIN_PAIRS` pairs were counted, unpaired otherwise.

use super::change::{RunsEstimate, LEVEL, RESAMPLES, SEED};
use crate::stats::{self, Interval};

/// candidate - baseline of one metric, with the interval it is decided by.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    pub base_runs: usize,
    pub runs: usize,
    /// the Hodges-Lehmann estimate of the pairs' differences where the
    /// interval is paired, else the difference of the medians: the
    /// estimate the interval is about
    pub estimate: Option<f64>,
    pub interval: Option<Interval>,
    /// the pairs the interval was taken over, when it is paired
    pub pairs: Option<usize>,
    /// every pair's difference where the runs were interleaved (even too
    /// few for a paired interval): what an estimate of pairs reads
    all_pairs: Option<Vec<f64>>,
    base: Vec<f64>,
    cand: Vec<f64>,
}

impl Difference {
    /// `cand` - `base`, with `pairs` the differences within the
    /// repetitions where both ran interleaved (None where they did not).
    pub fn of(base: &[f64], cand: &[f64], pairs: Option<&[f64]>) -> Difference {
        let paired = pairs.filter(|p| p.len() >= stats::PAIRED_MIN_PAIRS);
        let (estimate, interval) = match paired {
            Some(p) => (
                stats::paired_shift(p),
                stats::paired_shift_ci(p, LEVEL, RESAMPLES, SEED),
            ),
            None => (
                super::change::median(cand)
                    .zip(super::change::median(base))
                    .map(|(c, b)| c - b),
                stats::shift_ci(base, cand, LEVEL, RESAMPLES, SEED),
            ),
        };
        Difference {
            base_runs: base.len(),
            runs: cand.len(),
            estimate,
            interval,
            pairs: paired.map(<[f64]>::len),
            all_pairs: pairs.map(<[f64]>::to_vec),
            base: base.to_vec(),
            cand: cand.to_vec(),
        }
    }

    /// About how many repetitions would settle whether the difference lies
    /// beyond `boundary` (minus the margin): in pairs where the runs were
    /// interleaved (two or more pairs to read a spread from), else in runs
    /// a side; the simulation `stats::power` holds both to what they say.
    pub fn runs_to_decide(&self, boundary: f64) -> Option<RunsEstimate> {
        match self.all_pairs.as_deref().filter(|p| p.len() >= 2) {
            Some(p) => {
                stats::pairs_to_decide_shift(p, boundary).map(|n| RunsEstimate { n, paired: true })
            }
            None => stats::runs_to_decide_shift(&self.base, &self.cand, boundary)
                .map(|n| RunsEstimate { n, paired: false }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_pairs_give_an_estimate_but_decide_nothing() {
        let d = Difference::of(&[90.0, 90.2], &[89.9, 90.0], Some(&[-0.1, -0.2]));
        assert!((d.estimate.unwrap() - -0.15).abs() < 1e-12, "{d:?}");
        // two pairs are too few to pair: the unpaired interval, at 66.7%
        let i = d.interval.unwrap();
        assert_eq!(d.pairs, None);
        assert!(!i.method.paired() && !i.reaches(LEVEL), "{i:?}");
        // but the estimate of what would decide it reads the pairs
        let e = d.runs_to_decide(-0.2).unwrap();
        assert!(e.paired && e.n >= stats::PAIRED_MIN_PAIRS, "{e:?}");
    }

    #[test]
    fn six_pairs_are_paired_and_the_estimate_is_theirs() {
        let base = [90.0, 91.0, 89.0, 90.5, 89.5, 90.2];
        let diffs = [-0.1, -0.12, -0.08, -0.11, -0.09, -0.1];
        let cand: Vec<f64> = base.iter().zip(diffs).map(|(b, d)| b + d).collect();
        let d = Difference::of(&base, &cand, Some(&diffs));
        assert_eq!(d.pairs, Some(6));
        let i = d.interval.unwrap();
        assert!(i.method.paired() && i.reaches(LEVEL), "{i:?}");
        assert!((d.estimate.unwrap() - stats::paired_shift(&diffs).unwrap()).abs() < 1e-12);
        assert!(
            i.lo > -0.2,
            "a gap of 0.1 points clears a margin of 0.2: {i:?}"
        );
        // unpaired, the same runs' spread of 2 points hides it
        let unpaired = Difference::of(&base, &cand, None).interval.unwrap();
        assert!(unpaired.lo < -0.2, "{unpaired:?}");
    }
}
