//! The decisions of a bisection, as pure functions of the figures: do the
//! endpoints differ, and is a candidate on the good side or the bad one.
//!
//! A counter (pages made young per query) has next to no noise, so the
//! endpoints' runs must not overlap, their medians must differ beyond the
//! threshold, and a candidate is good or bad by the side of a cut between
//! the two ranges that all its runs fall on. Throughput moves by up to 20%
//! between runs on 2 cores, so there a candidate is compared with both
//! endpoints' interleaved runs by the exact Mann-Whitney test, as
//! Chromium's Pinpoint compares: DIFFERENT from one and not from the other
//! decides; anything else is UNKNOWN and earns more runs.

use crate::record::{CandidateDecision, Rule};
use crate::stats::{change_pct, mann_whitney_exact, spread};

/// The level below which an exact Mann-Whitney p says "different".
pub const ALPHA: f64 = 0.05;

/// What the endpoints' runs say: the cut that separates them (for a
/// counter), or why they do not differ.
#[derive(Debug, Clone, PartialEq)]
pub enum Endpoints {
    Differ {
        /// counter rule: the value between the two ranges; the good side
        /// is below it when `good_below`
        cut: Option<f64>,
        good_below: bool,
        why: String,
    },
    Same {
        why: String,
    },
}

/// A candidate's answer: good, bad, or unknown with the reason (which
/// more runs may change).
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateAnswer {
    Decided(CandidateDecision, String),
    Unknown(String),
}

fn fmt(v: f64) -> String {
    if v == 0.0 || v.abs() >= 100.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

fn range(values: &[f64]) -> String {
    match spread(values) {
        Some(s) if s.n > 1 => format!(
            "{} ({} to {}, {} runs)",
            fmt(s.median),
            fmt(s.min),
            fmt(s.max),
            s.n
        ),
        Some(s) => format!("{} (1 run)", fmt(s.median)),
        None => "no run".to_string(),
    }
}

/// Whether `good` and `bad` differ enough to bisect.
pub fn endpoints(rule: Rule, good: &[f64], bad: &[f64], threshold_pct: f64) -> Endpoints {
    let (Some(g), Some(b)) = (spread(good), spread(bad)) else {
        return Endpoints::Same {
            why: format!(
                "an endpoint has no successful run (good {}, bad {})",
                range(good),
                range(bad)
            ),
        };
    };
    let figures = format!("good {}, bad {}", range(good), range(bad));
    // the change from the good median, relative to the larger of the two
    // (a counter's good median is often 0, which has no percentage)
    let scale = g.median.abs().max(b.median.abs());
    let change = if scale > 0.0 {
        (b.median - g.median).abs() / scale * 100.0
    } else {
        0.0
    };
    if change <= threshold_pct {
        return Endpoints::Same {
            why: format!(
                "{figures}: the medians differ by {change:.1}%, not beyond {threshold_pct}%"
            ),
        };
    }
    let good_below = g.median < b.median;
    match rule {
        Rule::Counter => {
            let (low, high) = if good_below {
                (g.max, b.min)
            } else {
                (b.max, g.min)
            };
            if low >= high {
                return Endpoints::Same {
                    why: format!("{figures}: the two ranges overlap"),
                };
            }
            let cut = (low + high) / 2.0;
            Endpoints::Differ {
                cut: Some(cut),
                good_below,
                why: format!(
                    "{figures}: apart, cut at {} ({} is good)",
                    fmt(cut),
                    if good_below { "below" } else { "above" }
                ),
            }
        }
        Rule::Statistical => match mann_whitney_exact(good, bad) {
            Some(t) if t.p_two_sided < ALPHA => Endpoints::Differ {
                cut: None,
                good_below,
                why: format!("{figures}: p = {:.3}", t.p_two_sided),
            },
            Some(t) => Endpoints::Same {
                why: format!(
                    "{figures}: p = {:.3}, not below {ALPHA} (the smallest p these runs can give \
                     is {:.3})",
                    t.p_two_sided, t.min_p
                ),
            },
            None => Endpoints::Same {
                why: format!("{figures}: no test"),
            },
        },
    }
}

/// Whether `candidate`'s runs are good or bad, given the endpoints' runs
/// (for the statistical rule: those interleaved with the candidate's).
pub fn candidate(
    rule: Rule,
    ends: &Endpoints,
    good: &[f64],
    bad: &[f64],
    candidate: &[f64],
    threshold_pct: f64,
) -> CandidateAnswer {
    let Endpoints::Differ {
        cut, good_below, ..
    } = ends
    else {
        return CandidateAnswer::Unknown("the endpoints do not differ".into());
    };
    if candidate.is_empty() {
        return CandidateAnswer::Unknown("no successful run".into());
    }
    let figures = range(candidate);
    match (rule, cut) {
        (Rule::Counter, Some(cut)) => {
            let on_good_side = |v: f64| if *good_below { v < *cut } else { v > *cut };
            let good_runs = candidate.iter().filter(|v| on_good_side(**v)).count();
            if good_runs == candidate.len() {
                CandidateAnswer::Decided(
                    CandidateDecision::Good,
                    format!("{figures}: every run on the good side of {}", fmt(*cut)),
                )
            } else if good_runs == 0 {
                CandidateAnswer::Decided(
                    CandidateDecision::Bad,
                    format!("{figures}: every run on the bad side of {}", fmt(*cut)),
                )
            } else {
                CandidateAnswer::Unknown(format!(
                    "{figures}: {good_runs} of {} runs on the good side of {}",
                    candidate.len(),
                    fmt(*cut)
                ))
            }
        }
        _ => {
            let differs = |other: &[f64]| -> (bool, String) {
                let (Some(t), Some(o), Some(c)) = (
                    mann_whitney_exact(candidate, other),
                    spread(other),
                    spread(candidate),
                ) else {
                    return (false, "no test".into());
                };
                let change = change_pct(o.median, c.median);
                let beyond = change.is_some_and(|c| c.abs() > threshold_pct);
                let words = format!(
                    "{} p = {:.3}",
                    change.map_or("n/a".into(), |c| format!("{c:+.1}%")),
                    t.p_two_sided
                );
                (t.p_two_sided < ALPHA && beyond, words)
            };
            if good.is_empty() || bad.is_empty() {
                return CandidateAnswer::Unknown(format!(
                    "{figures}: an endpoint has no counted run beside it (good {}, bad {})",
                    range(good),
                    range(bad)
                ));
            }
            let (from_good, good_words) = differs(good);
            let (from_bad, bad_words) = differs(bad);
            let why = format!("{figures}: against good {good_words}, against bad {bad_words}");
            match (from_good, from_bad) {
                (false, true) => CandidateAnswer::Decided(
                    CandidateDecision::Good,
                    format!("{why}: SAME as good"),
                ),
                (true, false) => {
                    CandidateAnswer::Decided(CandidateDecision::Bad, format!("{why}: SAME as bad"))
                }
                _ => CandidateAnswer::Unknown(format!("{why}: UNKNOWN")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_cut_between_the_endpoints_ranges() {
        let good = [0.0, 0.0];
        let bad = [28.9, 29.3];
        let ends = endpoints(Rule::Counter, &good, &bad, 5.0);
        let Endpoints::Differ {
            cut, good_below, ..
        } = &ends
        else {
            panic!("{ends:?}")
        };
        assert_eq!((*cut, *good_below), (Some(14.45), true));
        let answer = |c: &[f64]| candidate(Rule::Counter, &ends, &good, &bad, c, 5.0);
        assert!(matches!(
            answer(&[0.0, 0.001]),
            CandidateAnswer::Decided(CandidateDecision::Good, _)
        ));
        assert!(matches!(
            answer(&[27.0, 30.0]),
            CandidateAnswer::Decided(CandidateDecision::Bad, _)
        ));
        assert!(matches!(answer(&[1.0, 20.0]), CandidateAnswer::Unknown(_)));
        assert!(matches!(answer(&[]), CandidateAnswer::Unknown(_)));
        // a fix bisected the other way round: the good side is below too
        let ends = endpoints(Rule::Counter, &bad, &good, 5.0);
        assert!(matches!(
            ends,
            Endpoints::Differ {
                good_below: false,
                ..
            }
        ));
    }

    #[test]
    fn endpoints_that_overlap_or_barely_move_do_not_differ() {
        let same = endpoints(Rule::Counter, &[29.0, 29.2], &[29.1, 29.3], 5.0);
        assert!(
            matches!(&same, Endpoints::Same { why } if why.contains("not beyond 5%")),
            "{same:?}"
        );
        let overlap = endpoints(Rule::Counter, &[1.0, 20.0], &[10.0, 30.0], 5.0);
        assert!(
            matches!(&overlap, Endpoints::Same { why } if why.contains("overlap")),
            "{overlap:?}"
        );
        let none = endpoints(Rule::Counter, &[], &[1.0], 5.0);
        assert!(matches!(none, Endpoints::Same { .. }));
        // 3 runs a side can never give p < 0.05
        let few = endpoints(
            Rule::Statistical,
            &[100.0, 101.0, 102.0],
            &[80.0, 81.0, 82.0],
            5.0,
        );
        assert!(
            matches!(&few, Endpoints::Same { why } if why.contains("0.100")),
            "{few:?}"
        );
    }

    #[test]
    fn throughput_is_same_as_one_endpoint_and_different_from_the_other() {
        let good = [100.0, 101.0, 99.0, 102.0, 98.0];
        let bad = [80.0, 81.0, 79.0, 82.0, 78.0];
        let ends = endpoints(Rule::Statistical, &good, &bad, 5.0);
        assert!(
            matches!(ends, Endpoints::Differ { cut: None, .. }),
            "{ends:?}"
        );
        let answer = |c: &[f64]| candidate(Rule::Statistical, &ends, &good, &bad, c, 5.0);
        let like_good = answer(&[100.5, 99.5, 101.5, 98.5, 100.0]);
        assert!(
            matches!(&like_good, CandidateAnswer::Decided(CandidateDecision::Good, w) if w.contains("SAME as good")),
            "{like_good:?}"
        );
        let like_bad = answer(&[80.5, 79.5, 81.5, 78.5, 80.0]);
        assert!(
            matches!(
                like_bad,
                CandidateAnswer::Decided(CandidateDecision::Bad, _)
            ),
            "{like_bad:?}"
        );
        // half-way: different from both, so unknown
        let between = answer(&[90.0, 90.5, 89.5, 91.0, 89.0]);
        assert!(
            matches!(&between, CandidateAnswer::Unknown(w) if w.contains("UNKNOWN")),
            "{between:?}"
        );
    }
}
