//! Verdicts: one answer per question of the matrix, with the numbers that
//! decided it.

use super::analysis::{Analysis, CellRuns, ALPHA};
use crate::record::Cell;
use crate::results::manifest::is_baseline;
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
    /// one line per cell asked about, with its numbers
    pub details: Vec<String>,
}

impl Verdict {
    /// `pass: gate removes promotion (…; …)`
    pub fn line(&self) -> String {
        format!(
            "{}: {} ({})",
            self.verdict.word(),
            self.question,
            self.details.join("; ")
        )
    }
}

pub fn evaluate(a: &Analysis, q: &Question) -> Verdict {
    let targets: Vec<&CellRuns> = a
        .cells
        .iter()
        .filter(|c| names(a, &c.cell, &q.variant))
        .filter(|c| q.trees.is_empty() || q.trees.contains(&c.cell.tree))
        .filter(|c| q.workloads.is_empty() || q.workloads.contains(&c.cell.workload))
        .collect();
    if targets.is_empty() {
        return Verdict {
            question: q.name.clone(),
            verdict: Answer::Undecided,
            details: vec![format!("no results of variant `{}`", q.variant)],
        };
    }
    let mut answers = Vec::new();
    let mut details = Vec::new();
    for t in targets {
        let (answer, detail) = match q.kind {
            Kind::Below | Kind::Above => bound(a, q, t),
            Kind::NoSlower => no_slower(a, q, &t.cell),
            Kind::NotBelow => not_below(a, q, t),
        };
        answers.push(answer);
        details.push(format!("{}: {detail}", place(&t.cell)));
    }
    Verdict {
        question: q.name.clone(),
        verdict: Answer::all(answers),
        details,
    }
}

/// `base` in a question names each tree's baseline (`fixed` on a tree
/// with the fix).
fn names(a: &Analysis, cell: &Cell, asked: &str) -> bool {
    cell.variant == asked
        || (asked == "base"
            && is_baseline(&cell.variant)
            // `fixed` is the baseline only where no `base` ran
            && a.baseline_of(cell).is_some_and(|b| b.cell == *cell))
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

/// no-slower: the change against `against` is not below the allowed
/// change, or it is but not beyond the noise floor; a drop beyond it that
/// is not significant, or too few runs, is undecided.
fn no_slower(a: &Analysis, q: &Question, cell: &Cell) -> (Answer, String) {
    let m = q.metric();
    let allowed = q.threshold_pct.unwrap_or(-a.manifest.threshold_pct);
    let base = against_cell(a, q, cell);
    let c = a.compare_cells(cell, &base, m);
    let (Some(change), Some(p), Some(min_p)) = (c.change_pct, c.p_value, c.min_possible_p) else {
        return (
            Answer::Undecided,
            format!(
                "{} against {} `{}`: {}",
                m.words(),
                base.tree,
                base.variant,
                c.why
            ),
        );
    };
    // a change in the bad direction, as a percentage to hold against `allowed`
    let better = if m.higher_is_better() {
        change
    } else {
        -change
    };
    let numbers = format!(
        "{} {change:+.1}% against {} `{}` ({} runs vs {}), p = {p:.3}{}, allowed {allowed:+.0}%",
        m.words(),
        base.tree,
        base.variant,
        c.runs,
        c.base_runs,
        c.noise_floor_pct
            .map(|n| format!(", noise floor {n:.1}%"))
            .unwrap_or_default()
    );
    if min_p >= ALPHA {
        return (
            Answer::Undecided,
            format!(
                "{numbers}; {} runs vs {} cannot give p below {min_p:.3}",
                c.runs, c.base_runs
            ),
        );
    }
    if better >= allowed || c.noise_floor_pct.is_some_and(|n| change.abs() <= n) {
        return (Answer::Pass, numbers);
    }
    if p >= ALPHA {
        return (Answer::Undecided, format!("{numbers}; not significant"));
    }
    (Answer::Fail, numbers)
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
