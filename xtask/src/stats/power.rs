//! The estimates of runs (and pairs) to decide, held to what they
//! promise: runs drawn from a lognormal at a stated change and spread, the
//! estimate taken from a large pilot sample (so its spread and change are
//! close to the true ones), and the tool's own rule applied to that many
//! runs again and again. An estimate "would decide it" when the interval
//! the tool then makes reaches 95% and clears the boundary in at least 75%
//! of the trials (it aims at 80%). Seeded, so every run of the test sees
//! the same draws.

use super::*;

/// Independent standard normal draws (Box-Muller on SplitMix64).
struct Normal(SplitMix64);

impl Normal {
    fn draw(&mut self) -> f64 {
        let u = |g: &mut SplitMix64| ((g.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
        let (a, b) = (u(&mut self.0), u(&mut self.0));
        (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
    }
}

/// How the runs of one scenario are drawn: a run is
/// exp(ln 1000 + host + own), host shared by the two runs of a repetition
/// (a slow spell of the host), own the run's own noise; the candidate's
/// runs carry the factor.
#[derive(Debug, Clone, Copy)]
struct PowerCase {
    factor: f64,
    boundary: f64,
    host_sd: f64,
    own_sd: f64,
}

impl PowerCase {
    /// n repetitions: (baseline, candidate) per repetition.
    fn draw(&self, n: usize, g: &mut Normal) -> Vec<(f64, f64)> {
        (0..n)
            .map(|_| {
                let host = self.host_sd * g.draw();
                let base = (1000f64.ln() + host + self.own_sd * g.draw()).exp();
                let cand = (1000f64.ln() + self.factor.ln() + host + self.own_sd * g.draw()).exp();
                (base, cand)
            })
            .collect()
    }
}

fn clears(i: Option<Interval>, boundary: f64) -> bool {
    i.is_some_and(|i| i.reaches(0.95) && (i.lo > boundary || i.hi < boundary))
}

/// The share of `trials` draws of n repetitions that the unpaired rule
/// decides.
fn unpaired_rate(s: PowerCase, n: usize, trials: u32, seed: u64) -> f64 {
    let mut g = Normal(SplitMix64::new(seed));
    let decided = (0..trials)
        .filter(|t| {
            let runs = s.draw(n, &mut g);
            let (b, c): (Vec<f64>, Vec<f64>) = runs.into_iter().unzip();
            clears(ratio_ci(&b, &c, 0.95, 2000, u64::from(*t)), s.boundary)
        })
        .count();
    decided as f64 / f64::from(trials)
}

fn paired_rate(s: PowerCase, n: usize, trials: u32, seed: u64) -> f64 {
    let mut g = Normal(SplitMix64::new(seed));
    let decided = (0..trials)
        .filter(|t| {
            let ratios: Vec<f64> = s.draw(n, &mut g).iter().map(|(b, c)| c / b).collect();
            clears(
                paired_ratio_ci(&ratios, 0.95, 2000, u64::from(*t)),
                s.boundary,
            )
        })
        .count();
    decided as f64 / f64::from(trials)
}

const TRIALS: u32 = 300;
const PILOT: usize = 2000;

#[test]
fn estimates_decide_as_often_as_they_say() {
    // spreads as this host shows them: runs of one build move by 4-10%,
    // slow spells shared by a repetition's runs
    let unpaired = [
        // no change, 5% allowed: the bootstrap tier
        PowerCase {
            factor: 1.0,
            boundary: 0.95,
            host_sd: 0.0,
            own_sd: 0.06,
        },
        PowerCase {
            factor: 1.0,
            boundary: 0.95,
            host_sd: 0.0,
            own_sd: 0.035,
        },
        // a clear loss of 12%: refuted
        PowerCase {
            factor: 0.88,
            boundary: 0.95,
            host_sd: 0.0,
            own_sd: 0.05,
        },
        // tight runs: the Hodges-Lehmann tier
        PowerCase {
            factor: 1.02,
            boundary: 0.95,
            host_sd: 0.0,
            own_sd: 0.02,
        },
    ];
    let mut seed = 1;
    for s in unpaired {
        let pilot: (Vec<f64>, Vec<f64>) = s
            .draw(PILOT, &mut Normal(SplitMix64::new(seed)))
            .into_iter()
            .unzip();
        let n = runs_to_decide(&pilot.0, &pilot.1, s.boundary).unwrap();
        let rate = unpaired_rate(s, n, TRIALS, seed + 100);
        eprintln!("unpaired {s:?}: {n} runs a side decide {rate:.3}");
        assert!(rate >= 0.75, "{s:?}: {n} runs a side decide only {rate:.3}");
        seed += 1;
    }
    let paired = [
        // the release run's case: runs move 10% together, 4% on their own
        PowerCase {
            factor: 1.0,
            boundary: 0.95,
            host_sd: 0.10,
            own_sd: 0.04,
        },
        PowerCase {
            factor: 1.03,
            boundary: 0.95,
            host_sd: 0.10,
            own_sd: 0.04,
        },
        PowerCase {
            factor: 0.9,
            boundary: 0.95,
            host_sd: 0.10,
            own_sd: 0.03,
        },
        PowerCase {
            factor: 1.0,
            boundary: 0.95,
            host_sd: 0.10,
            own_sd: 0.015,
        },
    ];
    for s in paired {
        let pilot: Vec<f64> = s
            .draw(PILOT, &mut Normal(SplitMix64::new(seed)))
            .iter()
            .map(|(b, c)| c / b)
            .collect();
        let n = pairs_to_decide(&pilot, s.boundary).unwrap();
        let rate = paired_rate(s, n, TRIALS, seed + 100);
        eprintln!("paired {s:?}: {n} pairs decide {rate:.3}");
        assert!(rate >= 0.75, "{s:?}: {n} pairs decide only {rate:.3}");
        seed += 1;
    }
}

#[test]
fn pairing_decides_with_fewer_runs_when_the_host_moves_both() {
    // the same scenario as the release run: unpaired needs many times the
    // runs that pairs need, because the host's spells are in both samples
    let s = PowerCase {
        factor: 1.0,
        boundary: 0.95,
        host_sd: 0.10,
        own_sd: 0.04,
    };
    let runs = s.draw(PILOT, &mut Normal(SplitMix64::new(99)));
    let (b, c): (Vec<f64>, Vec<f64>) = runs.iter().copied().unzip();
    let ratios: Vec<f64> = runs.iter().map(|(b, c)| c / b).collect();
    let unpaired = runs_to_decide(&b, &c, 0.95).unwrap();
    let pairs = pairs_to_decide(&ratios, 0.95).unwrap();
    assert!(
        pairs * 3 < unpaired,
        "{pairs} pairs against {unpaired} runs a side"
    );
    // and at that many pairs the unpaired rule decides far less often
    assert!(unpaired_rate(s, pairs, 200, 5) < 0.3);
}

/// A margin question's scenario: runs of a share (a hit ratio in
/// percent) drawn as 90 + host + own points, the candidate's shifted by
/// `shift`; `boundary` is minus the margin.
#[derive(Debug, Clone, Copy)]
struct ShiftCase {
    shift: f64,
    boundary: f64,
    host_sd: f64,
    own_sd: f64,
}

impl ShiftCase {
    fn draw(&self, n: usize, g: &mut Normal) -> Vec<(f64, f64)> {
        (0..n)
            .map(|_| {
                let host = self.host_sd * g.draw();
                let base = 90.0 + host + self.own_sd * g.draw();
                let cand = 90.0 + self.shift + host + self.own_sd * g.draw();
                (base, cand)
            })
            .collect()
    }

    /// The share of `trials` draws of n repetitions whose interval (paired
    /// or not) reaches 95% and clears the boundary.
    fn rate(&self, n: usize, paired: bool, trials: u32, seed: u64) -> f64 {
        let mut g = Normal(SplitMix64::new(seed));
        let decided = (0..trials)
            .filter(|t| {
                let runs = self.draw(n, &mut g);
                let i = if paired {
                    let d: Vec<f64> = runs.iter().map(|(b, c)| c - b).collect();
                    paired_shift_ci(&d, 0.95, 2000, u64::from(*t))
                } else {
                    let (b, c): (Vec<f64>, Vec<f64>) = runs.into_iter().unzip();
                    shift_ci(&b, &c, 0.95, 2000, u64::from(*t))
                };
                clears(i, self.boundary)
            })
            .count();
        decided as f64 / f64::from(trials)
    }
}

#[test]
fn difference_estimates_decide_as_often_as_they_say() {
    // hit ratios as the turnover reports show them: about 0.1 points from
    // run to run, a margin of 0.2 points
    let cases = [
        // the remedy's case: a gap of -0.05 against a margin of 0.2
        ShiftCase {
            shift: -0.05,
            boundary: -0.2,
            host_sd: 0.0,
            own_sd: 0.1,
        },
        // no gap, runs that move together
        ShiftCase {
            shift: 0.0,
            boundary: -0.2,
            host_sd: 0.1,
            own_sd: 0.05,
        },
        // the fix's case: a gap of -1.6 points, refuted
        ShiftCase {
            shift: -1.6,
            boundary: -0.2,
            host_sd: 0.0,
            own_sd: 0.1,
        },
        // a hot set kept: several points from run to run, a margin of 5
        ShiftCase {
            shift: 0.0,
            boundary: -5.0,
            host_sd: 0.0,
            own_sd: 3.0,
        },
    ];
    for (seed, s) in (41..).zip(cases) {
        let pilot = s.draw(PILOT, &mut Normal(SplitMix64::new(seed)));
        let d: Vec<f64> = pilot.iter().map(|(b, c)| c - b).collect();
        let (b, c): (Vec<f64>, Vec<f64>) = pilot.into_iter().unzip();
        let runs = runs_to_decide_shift(&b, &c, s.boundary).unwrap();
        let pairs = pairs_to_decide_shift(&d, s.boundary).unwrap();
        let unpaired = s.rate(runs, false, TRIALS, seed + 100);
        let paired = s.rate(pairs, true, TRIALS, seed + 200);
        eprintln!("{s:?}: {runs} runs a side decide {unpaired:.3}, {pairs} pairs {paired:.3}");
        assert!(
            unpaired >= 0.75,
            "{s:?}: {runs} runs decide only {unpaired:.3}"
        );
        assert!(
            paired >= 0.75,
            "{s:?}: {pairs} pairs decide only {paired:.3}"
        );
    }
}

#[test]
fn two_pairs_decide_no_margin_however_clear_the_gap() {
    // two runs a side reach 66.7% unpaired and 50% paired: a gap of 1.6
    // points with 0.1 points of noise is still undecided at 95%
    let (b, c) = ([90.0, 90.1], [88.4, 88.5]);
    let unpaired = shift_ci(&b, &c, 0.95, 2000, 1).unwrap();
    assert!(!unpaired.reaches(0.95), "{unpaired:?}");
    assert!((unpaired.coverage - (1.0 - 2.0 / 6.0)).abs() < 1e-12);
    let paired = paired_shift_ci(&[-1.6, -1.6], 0.95, 2000, 1).unwrap();
    assert!((paired.coverage - 0.5).abs() < 1e-12, "{paired:?}");
    // and six pairs of it are enough
    let six = paired_shift_ci(&[-1.6, -1.5, -1.7, -1.55, -1.65, -1.6], 0.95, 2000, 1).unwrap();
    assert!(six.reaches(0.95) && six.hi < -0.2, "{six:?}");
}
