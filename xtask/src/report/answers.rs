//! The "Answers" section: each question's verdict (`verdict::Verdict`,
//! numbers only) put in words, and the rules that decided them. The one
//! place a verdict becomes a sentence.

use super::comparison_table::RUNS_ESTIMATE;
use super::doc::Block;
use crate::decide::analysis::{Analysis, RunsEstimate, LEVEL};
use crate::decide::verdict::{Answer, CellAnswer, Unanswered, Unit, Verdict, VerdictInterval};
use crate::results::question::Kind;
use crate::stats::{self, MAX_RUNS_ESTIMATED};

/// The rule a question is decided by, as docs/statistics.md states it.
pub fn rule_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Below => "bound: pass when every counted run of the variant is below the value (and, when asked, every run of the baseline on the other side of its bound), fail when one is not",
        Kind::Above => "bound: pass when every counted run of the variant is above the value (and, when asked, every run of the baseline on the other side of its bound), fail when one is not",
        Kind::NoSlower => "non-inferiority: pass when the lower bound of a 95% interval of the change is above the allowed change, fail when its upper bound is below it, undecided otherwise; the noise floor plays no part",
        Kind::NotBelow => "margin: pass when the lower bound of a 95% interval of the difference (the variant less the baseline, in the metric's unit: points for a percentage) is above minus the margin, fail when its upper bound is below it, undecided otherwise; medians alone decide nothing",
    }
}

/// The rule's name: the words before its colon.
pub fn rule_name(kind: Kind) -> &'static str {
    let rule = rule_of(kind);
    rule.split(':').next().unwrap_or(rule)
}

/// One sentence per cell the question asked about.
pub fn details(v: &Verdict) -> Vec<String> {
    if v.cells.is_empty() {
        return vec![format!("no results of variant `{}`", v.variant)];
    }
    v.cells
        .iter()
        .map(|c| {
            format!(
                "{} {} {}t: {}",
                c.tree,
                c.workload,
                c.threads,
                cell_words(v, c)
            )
        })
        .collect()
}

fn cell_words(v: &Verdict, c: &CellAnswer) -> String {
    let m = v.metric.words();
    let against = if c.against_tree == c.tree {
        format!("`{}`", c.against_variant)
    } else {
        format!("{} `{}`", c.against_tree, c.against_variant)
    };
    match c.unanswered.as_ref() {
        Some(Unanswered::NotMeasured) => {
            return match v.kind {
                Kind::Below | Kind::Above => format!("{m} of `{}` not measured", v.variant),
                _ => format!(
                    "{m} of `{}` or {against} not measured ({} runs against {}): nothing to compare",
                    v.variant, c.runs, c.against_runs
                ),
            };
        }
        Some(Unanswered::OtherHosts {
            hosts,
            against_hosts,
        }) => {
            return format!(
                "{m} against {against}: runs from different hosts ({} against {}): not compared",
                hosts.join(", "),
                against_hosts.join(", ")
            )
        }
        Some(Unanswered::NoRatio) => {
            return format!("{m} against {against}: the runs have no ratio (a median of 0)")
        }
        None => {}
    }
    match v.kind {
        Kind::Below | Kind::Above => bound_words(v, c, &against),
        Kind::NoSlower | Kind::NotBelow => interval_words(v, c, &against),
    }
}

fn bound_words(v: &Verdict, c: &CellAnswer, against: &str) -> String {
    let below = v.kind == Kind::Below;
    let side = |below: bool| if below { "at most" } else { "at least" };
    let mut text = format!(
        "{} of `{}` {} {} in {} run{} (bound {})",
        v.metric.words(),
        v.variant,
        side(below),
        c.estimate.map(figure).unwrap_or_default(),
        c.runs,
        if c.runs == 1 { "" } else { "s" },
        v.value.map(figure).unwrap_or_default()
    );
    let base_bound = v
        .baseline_above
        .map(|b| (b, false))
        .or(v.baseline_below.map(|b| (b, true)));
    if let Some((limit, base_below)) = base_bound {
        match c.against_worst {
            None => text.push_str(&format!(", {against} not measured")),
            Some(w) => text.push_str(&format!(
                ", {against} {} {} (bound {})",
                side(base_below),
                figure(w),
                figure(limit)
            )),
        }
    }
    text
}

/// A no-slower or margin cell: the estimate, the interval with its
/// method and coverage, where it lies against the limit, and what would
/// decide it when nothing does.
fn interval_words(v: &Verdict, c: &CellAnswer, against: &str) -> String {
    let amount = |x: f64| amount(v.unit, x);
    let what = match v.kind {
        Kind::NotBelow => "difference",
        _ => "change",
    };
    let pairs = c
        .interval
        .filter(|i| i.paired)
        .map(|i| format!(", {} pairs", i.n))
        .unwrap_or_default();
    let numbers = format!(
        "{} {} against {against} ({} runs vs {}{pairs})",
        v.metric.words(),
        c.estimate.map(amount).unwrap_or_default(),
        c.runs,
        c.against_runs
    );
    let Some(i) = c.interval else {
        return format!(
            "{numbers}: no interval of the {what} ({} runs against {}, or values without one)",
            c.runs, c.against_runs
        );
    };
    let interval = format!(
        "the interval of the {what}, {} to {} ({})",
        amount(i.lo),
        amount(i.hi),
        coverage_words(&i)
    );
    // the limit as the matrix writes it: -5%, -0.2 points
    let limit = v
        .limit()
        .map(|x| match v.unit {
            Unit::ChangePct => format!("{x:+}%"),
            Unit::Points => format!("{x:+} points"),
            Unit::Metric => format!("{x:+}"),
        })
        .unwrap_or_default();
    let (good, bad) = if v.higher_is_better() {
        ("above", "below")
    } else {
        ("below", "above")
    };
    let verdict = if i.coverage < LEVEL - 1e-12 {
        format!(
            "{interval}, is the widest {} allow and covers less than {}: it decides nothing",
            if i.paired {
                format!("{} pairs", i.n)
            } else {
                format!("{} runs against {}", c.runs, c.against_runs)
            },
            stats::percent(LEVEL)
        )
    } else {
        match c.answer {
            Answer::Pass => format!("{interval}, lies {good} the allowed {limit}"),
            Answer::Fail => format!("{interval}, lies {bad} the allowed {limit}"),
            Answer::Undecided => format!("{interval}, reaches across the allowed {limit}"),
        }
    };
    let estimate = match (c.answer, c.runs_to_decide) {
        (Answer::Undecided, Some(e)) => format!("; {}", e.words()),
        (Answer::Undecided, None) => format!(
            "; no estimate of the runs it would take (the {what} lies at the allowed one, or beyond {MAX_RUNS_ESTIMATED} runs a side)"
        ),
        _ => String::new(),
    };
    format!("{numbers}: {verdict}{estimate}")
}

/// The repetitions the most demanding undecided cell would need, when
/// every undecided cell has an estimate.
fn most_needed(v: &Verdict) -> Option<RunsEstimate> {
    let undecided: Vec<&CellAnswer> = v
        .cells
        .iter()
        .filter(|c| c.answer == Answer::Undecided)
        .collect();
    if undecided.is_empty() {
        return None;
    }
    undecided
        .iter()
        .map(|c| c.runs_to_decide)
        .collect::<Option<Vec<RunsEstimate>>>()?
        .into_iter()
        .max_by_key(|e| e.n)
}

/// A verdict in a few words: `pass`, `fail`, `undecided (about 12 pairs
/// would decide it)`.
pub fn answer_words(v: &Verdict) -> String {
    match v.verdict {
        Answer::Undecided => format!("undecided ({})", needs_words(v)),
        a => a.word().to_string(),
    }
}

fn needs_words(v: &Verdict) -> String {
    match most_needed(v) {
        Some(e) if e.paired => format!("about {} pairs would decide it", e.n),
        Some(e) => format!("about {} runs a side would decide it", e.n),
        None => "no estimate of the runs it would take".to_string(),
    }
}

/// A verdict on one line for a NOTES.md: its answer, its question, the
/// range of its cells' estimates and, undecided, what would decide it.
pub fn in_brief(v: &Verdict) -> String {
    let mut s = format!("**{}**: {}", v.verdict.word(), v.question);
    let estimates: Vec<f64> = v.cells.iter().filter_map(|c| c.estimate).collect();
    let lo = estimates.iter().copied().reduce(f64::min);
    let hi = estimates.iter().copied().reduce(f64::max);
    if let (Some(lo), Some(hi)) = (lo, hi) {
        let range = if lo == hi {
            amount(v.unit, lo)
        } else if v.unit == Unit::Points {
            format!("{lo:+.2} to {}", amount(v.unit, hi))
        } else {
            format!("{} to {}", amount(v.unit, lo), amount(v.unit, hi))
        };
        match v.kind {
            Kind::Below | Kind::Above => s.push_str(&format!(
                ": worst run {range} (bound {})",
                v.value.map(figure).unwrap_or_default()
            )),
            Kind::NoSlower | Kind::NotBelow => s.push_str(&format!(": {range} from {}", v.against)),
        }
    }
    if v.verdict == Answer::Undecided {
        s.push_str(&format!("; {}", needs_words(v)));
    }
    s
}

/// `exact 97.1%` with the method: `paired Hodges-Lehmann, exact 50%`.
fn coverage_words(i: &VerdictInterval) -> String {
    format!("{} {}", i.method.words(), stats::percent(i.coverage))
}

/// A figure in the verdict's unit: `-1.2%`, `-0.18 points`, `0.0012`.
pub fn amount(unit: Unit, x: f64) -> String {
    match unit {
        Unit::ChangePct => format!("{x:+.1}%"),
        Unit::Points => format!("{x:+.2} points"),
        Unit::Metric if x > 0.0 => format!("+{}", figure(x)),
        Unit::Metric => figure(x),
    }
}

/// A value with the digits its size needs.
fn figure(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.4}")
    }
}

/// Each question's verdict, and the rules that decided them.
pub fn section(a: &Analysis, verdicts: &[Verdict], b: &mut Vec<Block>) {
    if verdicts.is_empty() {
        return;
    }
    b.push(Block::Heading(2, "Answers".into()));
    b.push(Block::Bullets(
        verdicts
            .iter()
            .map(|v| {
                format!(
                    "**{}** by {}: {} ({})",
                    v.verdict.word(),
                    rule_name(v.kind),
                    v.question,
                    details(v).join("; ")
                )
            })
            .collect(),
    ));
    let mut rules: Vec<&str> = verdicts.iter().map(|v| rule_of(v.kind)).collect();
    rules.sort_unstable();
    rules.dedup();
    // the estimate is explained under the comparisons when they follow
    b.push(Block::Para(format!(
        "Rules: {}.{}",
        rules.join("; "),
        if a.comparisons.is_empty() {
            format!(" {RUNS_ESTIMATE}")
        } else {
            " How the runs a decision would take are estimated: under \"QPS against the \
             baseline\"."
                .to_string()
        }
    )));
}
