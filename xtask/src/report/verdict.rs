//! Verdicts: one answer per question of the matrix, with the numbers that
//! decided it.

use super::analysis::{self, Analysis, CellRuns, NonInferiority};
use crate::record::Cell;
use crate::results::question::{Kind, Question};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    Pass,
    Fail,
    Undecided,
}

impl Answer {
    pub fn word(self) -> &'static str {
        match self {
            Answer::Pass => "pass",
            Answer::Fail => "fail",
            Answer::Undecided => "undecided",
        }
    }

    /// Fail wins over undecided, undecided over pass; nothing asked is
    /// undecided.
    fn all(answers: impl IntoIterator<Item = Answer>) -> Answer {
        let v: Vec<Answer> = answers.into_iter().collect();
        if v.is_empty() || (v.contains(&Answer::Undecided) && !v.contains(&Answer::Fail)) {
            Answer::Undecided
        } else if v.contains(&Answer::Fail) {
            Answer::Fail
        } else {
            Answer::Pass
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub question: String,
    pub verdict: Answer,
    /// the rule that decided it, in words (`rule_of`)
    #[serde(default)]
    pub rule: String,
    /// one line per cell asked about, with its numbers
    pub details: Vec<String>,
    /// undecided: about how many repetitions (pairs where the cells ran
    /// interleaved, else runs a side) the most demanding cell would need
    /// for a decision (`Analysis::runs_to_decide`)
    #[serde(default)]
    pub runs_to_decide: Option<usize>,
}

impl Verdict {
    /// `pass by non-inferiority: fixed is no slower (…; …)`
    pub fn line(&self) -> String {
        format!(
            "{} by {}: {} ({})",
            self.verdict.word(),
            rule_name(&self.rule),
            self.question,
            self.details.join("; ")
        )
    }
}

/// The rule a question is decided by, as the README states it.
pub fn rule_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Below => "bound: pass when every counted run of the variant is below the value (and, when asked, every run of the baseline on the other side of its bound), fail when one is not",
        Kind::Above => "bound: pass when every counted run of the variant is above the value (and, when asked, every run of the baseline on the other side of its bound), fail when one is not",
        Kind::NoSlower => "non-inferiority: pass when the lower bound of a 95% interval of the change is above the allowed change, fail when its upper bound is below it, undecided otherwise; the noise floor plays no part",
        Kind::NotBelow => "margin: pass when the median of the variant is at least the median of the baseline less the margin, fail otherwise",
    }
}

/// The rule's name: the words before its colon.
pub fn rule_name(rule: &str) -> &str {
    rule.split(':').next().unwrap_or(rule)
}

pub fn evaluate(a: &Analysis, q: &Question) -> Verdict {
    let targets: Vec<&CellRuns> = a.cells.iter().filter(|c| concerns(a, q, &c.cell)).collect();
    if targets.is_empty() {
        return Verdict {
            question: q.name.clone(),
            verdict: Answer::Undecided,
            rule: rule_of(q.kind).to_string(),
            details: vec![format!("no results of variant `{}`", q.variant)],
            runs_to_decide: None,
        };
    }
    let mut answers = Vec::new();
    let mut details = Vec::new();
    let mut runs_needed: Vec<Option<usize>> = Vec::new();
    for t in targets {
        let (answer, detail) = match q.kind {
            Kind::Below | Kind::Above => bound(a, q, t),
            Kind::NoSlower => {
                let n = no_slower(a, q, &t.cell);
                if n.answer == Answer::Undecided {
                    runs_needed.push(n.runs_to_decide);
                }
                (n.answer, n.detail)
            }
            Kind::NotBelow => not_below(a, q, t),
        };
        answers.push(answer);
        details.push(format!("{}: {detail}", place(&t.cell)));
    }
    let verdict = Answer::all(answers);
    // the most any undecided cell needs; unknown when one cannot say
    let runs_to_decide = (verdict == Answer::Undecided && !runs_needed.is_empty())
        .then(|| runs_needed.iter().copied().collect::<Option<Vec<usize>>>())
        .flatten()
        .and_then(|v| v.into_iter().max());
    Verdict {
        question: q.name.clone(),
        verdict,
        rule: rule_of(q.kind).to_string(),
        details,
        runs_to_decide,
    }
}

/// Whether question `q` asks about `cell`: its variant (`names`), and its
/// trees and workloads where it lists them.
pub fn concerns(a: &Analysis, q: &Question, cell: &Cell) -> bool {
    names(a, cell, &q.variant)
        && (q.trees.is_empty() || q.trees.contains(&cell.tree))
        && (q.workloads.is_empty() || q.workloads.contains(&cell.workload))
}

/// The allowed change of a no-slower question in percent, as the matrix
/// writes it: the question's own, else the matrix's threshold as a drop.
pub fn allowed_pct(a: &Analysis, q: &Question) -> f64 {
    q.threshold_pct.unwrap_or(-a.manifest.threshold_pct)
}

/// Whether a question on `asked` concerns `cell`: `base` in a question
/// names each tree's baseline (`fixed` where no `base` ran).
pub fn names(a: &Analysis, cell: &Cell, asked: &str) -> bool {
    let baseline = a.baseline_of(cell).map(|b| b.cell.variant.as_str());
    crate::dims::asks_about(asked, &cell.variant, baseline)
}

/// The cell a question holds `cell` against: `against` (the baseline for
/// `base`) of `against_tree` or of the same tree.
pub fn against_cell(a: &Analysis, q: &Question, cell: &Cell) -> Cell {
    let base = Cell {
        tree: q.against_tree.clone().unwrap_or_else(|| cell.tree.clone()),
        ..cell.clone()
    };
    if q.against() == "base" {
        if let Some(b) = a.baseline_of(&base) {
            return b.cell.clone();
        }
    }
    base.with_variant(q.against())
}

fn place(c: &Cell) -> String {
    format!("{} {} {}t", c.tree, c.workload, c.threads)
}

fn fmt(v: f64) -> String {
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

/// below / above: every counted run of the variant on the right side of
/// `value`, and (when asked) every run of `against` on the other side of
/// its bound.
fn bound(a: &Analysis, q: &Question, t: &CellRuns) -> (Answer, String) {
    let m = q.metric();
    let value = q.value.unwrap_or(f64::NAN);
    let below = q.kind == Kind::Below;
    let side = |values: &[f64], limit: f64, below: bool| -> (bool, f64) {
        let worst = if below {
            values.iter().copied().fold(f64::MIN, f64::max)
        } else {
            values.iter().copied().fold(f64::MAX, f64::min)
        };
        (if below { worst < limit } else { worst > limit }, worst)
    };
    let values = t.values(m);
    if values.is_empty() {
        return (
            Answer::Undecided,
            format!("{} of `{}` not measured", m.words(), q.variant),
        );
    }
    let (ok, worst) = side(&values, value, below);
    let mut answer = if ok { Answer::Pass } else { Answer::Fail };
    let mut text = format!(
        "{} of `{}` {} {} in {} run{} (bound {})",
        m.words(),
        q.variant,
        if below { "at most" } else { "at least" },
        fmt(worst),
        values.len(),
        if values.len() == 1 { "" } else { "s" },
        fmt(value)
    );
    let base_bound = q
        .baseline_above
        .map(|b| (b, false))
        .or(q.baseline_below.map(|b| (b, true)));
    if let Some((limit, base_below)) = base_bound {
        let base = a
            .cell(&against_cell(a, q, &t.cell))
            .map(|c| c.values(m))
            .unwrap_or_default();
        if base.is_empty() {
            answer = Answer::all([answer, Answer::Undecided]);
            text.push_str(&format!(", `{}` not measured", q.against()));
        } else {
            let (ok, worst) = side(&base, limit, base_below);
            if !ok {
                // the baseline does not show the effect: nothing to remove
                answer = Answer::all([answer, Answer::Undecided]);
            }
            text.push_str(&format!(
                ", `{}` {} {} (bound {})",
                q.against(),
                if base_below { "at most" } else { "at least" },
                fmt(worst),
                fmt(limit)
            ));
        }
    }
    (answer, text)
}

/// not-below: the median of the variant against the median of `against`
/// less the margin; undecided when either has no counted run.
fn not_below(a: &Analysis, q: &Question, t: &CellRuns) -> (Answer, String) {
    let m = q.metric();
    let margin = q.margin.unwrap_or(0.0);
    let base = a
        .cell(&against_cell(a, q, &t.cell))
        .and_then(|c| c.median(m));
    match (t.median(m), base) {
        (Some(v), Some(b)) => (
            if v >= b - margin {
                Answer::Pass
            } else {
                Answer::Fail
            },
            format!(
                "{} of `{}` {} (median of {}) against `{}` {} (margin {})",
                m.words(),
                q.variant,
                fmt(v),
                t.counted.len(),
                q.against(),
                fmt(b),
                fmt(margin)
            ),
        ),
        _ => (
            Answer::Undecided,
            format!(
                "{} of `{}` or `{}` not measured",
                m.words(),
                q.variant,
                q.against()
            ),
        ),
    }
}

/// A no-slower question's answer for one cell.
pub struct NoSlower {
    pub answer: Answer,
    pub detail: String,
    /// undecided: about how many repetitions would decide it (pairs or
    /// runs a side, as `Analysis::runs_to_decide` says)
    pub runs_to_decide: Option<usize>,
}

/// no-slower, by non-inferiority: pass when a 95% interval of the change
/// against `against` lies above the allowed change, fail when it lies
/// below it, undecided otherwise (then `--until-decided` repeats the
/// cell). The noise floor is not consulted: it widens what counts as a
/// change, never what counts as a pass.
pub fn no_slower(a: &Analysis, q: &Question, cell: &Cell) -> NoSlower {
    let m = q.metric();
    let allowed = allowed_pct(a, q);
    let base = against_cell(a, q, cell);
    let c = a.compare_cells(cell, &base, m);
    let Some(change) = c.change_pct else {
        return NoSlower {
            answer: Answer::Undecided,
            detail: format!(
                "{} against {} `{}`: {}",
                m.words(),
                base.tree,
                base.variant,
                c.why
            ),
            runs_to_decide: None,
        };
    };
    let numbers = format!(
        "{} {change:+.1}% against {} `{}` ({} runs vs {}{})",
        m.words(),
        base.tree,
        base.variant,
        c.runs,
        c.base_runs,
        c.pairs.map(|p| format!(", {p} pairs")).unwrap_or_default()
    );
    if !a.one_host(cell, &base) {
        return NoSlower {
            answer: Answer::Undecided,
            detail: format!("{numbers}; {}", c.why),
            runs_to_decide: None,
        };
    }
    let (shown, words) = c.non_inferiority(allowed, m.higher_is_better());
    let answer = match shown {
        NonInferiority::Shown => Answer::Pass,
        NonInferiority::Refuted => Answer::Fail,
        NonInferiority::Open => Answer::Undecided,
    };
    let boundary = analysis::boundary_factor(m, allowed);
    let estimate = (answer == Answer::Undecided)
        .then(|| a.runs_to_decide(cell, &base, m, boundary))
        .flatten();
    let runs_to_decide = estimate.map(|e| e.n);
    let estimate = match (answer, estimate) {
        (Answer::Undecided, Some(e)) => format!("; {}", e.words()),
        (Answer::Undecided, None) => format!(
            "; no estimate of the runs it would take (the change lies at the allowed one, or beyond {} runs a side)",
            crate::stats::MAX_RUNS_ESTIMATED
        ),
        _ => String::new(),
    };
    NoSlower {
        answer,
        detail: format!("{numbers}: {words}{estimate}"),
        runs_to_decide,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_combine_fail_first() {
        use Answer::*;
        assert_eq!(Answer::all([Pass, Pass]), Pass);
        assert_eq!(Answer::all([Pass, Undecided]), Undecided);
        assert_eq!(Answer::all([Undecided, Fail, Pass]), Fail);
        assert_eq!(Answer::all([]), Undecided);
        assert_eq!(serde_json::to_string(&Undecided).unwrap(), "\"undecided\"");
    }
}
