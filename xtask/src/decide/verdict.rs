//! Verdicts: one answer per question of the matrix, as the numbers that
//! decided it (summary.json writes them; `answers` puts them in words).

use super::analysis::{self, Analysis, RunsEstimate, LEVEL};
use crate::dims::Metric;
use crate::record::Cell;
use crate::results::question::{Kind, Question};
use crate::stats::IntervalMethod;
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
    pub fn all(answers: impl IntoIterator<Item = Answer>) -> Answer {
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

/// What a verdict's estimate and interval are counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// a change against the baseline in percent (no-slower)
    ChangePct,
    /// a difference in percentage points (not-below on a share in percent)
    Points,
    /// the metric's own unit (a bound; not-below on any other metric)
    Metric,
}

/// An interval of a verdict's estimate, in the verdict's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VerdictInterval {
    pub lo: f64,
    pub hi: f64,
    /// exact for the Hodges-Lehmann intervals, nominal for the bootstrap's
    pub coverage: f64,
    pub method: IntervalMethod,
    /// taken within pairs of runs (one repetition of each side)
    pub paired: bool,
    /// pairs where paired, else the fewer runs of the two sides
    pub n: usize,
}

/// Why a cell has no estimate to decide by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "why")]
pub enum Unanswered {
    /// the metric was not measured in the variant's or the baseline's runs
    NotMeasured,
    /// the two sides' counted runs come from different hosts
    OtherHosts {
        hosts: Vec<String>,
        against_hosts: Vec<String>,
    },
    /// runs on both sides, but no ratio between them (a baseline of 0)
    NoRatio,
}

/// One cell's answer to a question, as numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellAnswer {
    pub tree: String,
    pub workload: String,
    pub threads: u32,
    /// the cell it is held against (a bound's baseline, or the one compared)
    pub against_tree: String,
    pub against_variant: String,
    pub answer: Answer,
    /// the variant's runs the rule took, and the baseline's
    pub runs: usize,
    pub against_runs: usize,
    /// a bound: the worst run; no-slower: the change in percent; not-below:
    /// the difference in the verdict's unit (paired estimate where paired)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<VerdictInterval>,
    /// a bound with a baseline bound: the baseline's worst run
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against_worst: Option<f64>,
    /// undecided: about how many repetitions would decide it
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_to_decide: Option<RunsEstimate>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<Unanswered>,
}

impl CellAnswer {
    pub fn cell(&self, variant: &str) -> Cell {
        Cell {
            tree: self.tree.clone(),
            variant: variant.to_string(),
            workload: self.workload.clone(),
            threads: self.threads,
        }
    }
}

/// A question's verdict, as numbers: the renderers (`report::answers`)
/// put it in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub question: String,
    pub kind: Kind,
    pub metric: Metric,
    pub unit: Unit,
    pub variant: String,
    pub against: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub against_tree: Option<String>,
    /// below / above: the bound every run of the variant must keep
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_above: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline_below: Option<f64>,
    /// no-slower: the change allowed in percent as the matrix writes it
    /// (negative: a drop; for a cost, a rise of as much)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_pct: Option<f64>,
    /// not-below: how far below the baseline the variant may lie
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    pub verdict: Answer,
    /// undecided: about how many repetitions (pairs where the cells ran
    /// interleaved, else runs a side) the most demanding cell would need;
    /// null when a cell has no estimate
    #[serde(default)]
    pub runs_to_decide: Option<usize>,
    pub cells: Vec<CellAnswer>,
}

impl Verdict {
    /// The limit the estimate is held to, in the verdict's unit: the
    /// bound, the allowed change as a change of the metric (+1 for "at
    /// most 1% more work"), or minus the margin.
    pub fn limit(&self) -> Option<f64> {
        match self.kind {
            Kind::Below | Kind::Above => self.value,
            Kind::NoSlower => self.allowed_pct.map(|p| {
                if self.metric.higher_is_better() {
                    p
                } else {
                    -p
                }
            }),
            Kind::NotBelow => Some(-self.margin.unwrap_or(0.0)),
        }
    }

    /// Whether a higher estimate is the better side of the limit.
    pub fn higher_is_better(&self) -> bool {
        match self.kind {
            Kind::Below => false,
            Kind::Above | Kind::NotBelow => true,
            Kind::NoSlower => self.metric.higher_is_better(),
        }
    }
}

/// The unit a question's estimate is counted in.
pub fn unit_of(q: &Question) -> Unit {
    match q.kind {
        Kind::NoSlower => Unit::ChangePct,
        Kind::NotBelow if q.metric().info().name.ends_with("_pct") => Unit::Points,
        Kind::NotBelow | Kind::Below | Kind::Above => Unit::Metric,
    }
}

pub fn evaluate(a: &Analysis, q: &Question) -> Verdict {
    let cells: Vec<CellAnswer> = a
        .cells
        .iter()
        .filter(|c| concerns(a, q, &c.cell))
        .map(|t| cell_answer(a, q, &t.cell))
        .collect();
    let verdict = Answer::all(cells.iter().map(|c| c.answer));
    let undecided: Vec<&CellAnswer> = cells
        .iter()
        .filter(|c| c.answer == Answer::Undecided)
        .collect();
    // the most any undecided cell needs; unknown when one cannot say
    let runs_to_decide = (verdict == Answer::Undecided && !undecided.is_empty())
        .then(|| {
            undecided
                .iter()
                .map(|c| c.runs_to_decide.map(|e| e.n))
                .collect::<Option<Vec<usize>>>()
        })
        .flatten()
        .and_then(|v| v.into_iter().max());
    Verdict {
        question: q.name.clone(),
        kind: q.kind,
        metric: q.metric(),
        unit: unit_of(q),
        variant: q.variant.clone(),
        against: q.against().to_string(),
        against_tree: q.against_tree.clone(),
        value: q.value,
        baseline_above: q.baseline_above,
        baseline_below: q.baseline_below,
        allowed_pct: (q.kind == Kind::NoSlower).then(|| allowed_pct(a, q)),
        margin: (q.kind == Kind::NotBelow).then(|| q.margin.unwrap_or(0.0)),
        verdict,
        runs_to_decide,
        cells,
    }
}

/// A question's answer for one cell it concerns, by its kind's rule.
pub fn cell_answer(a: &Analysis, q: &Question, cell: &Cell) -> CellAnswer {
    match q.kind {
        Kind::Below | Kind::Above => bound(a, q, cell),
        Kind::NoSlower => no_slower(a, q, cell),
        Kind::NotBelow => not_below(a, q, cell),
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

/// The allowed change of a no-slower question as a change of the metric in
/// percent: -5 for "at most 5% slower", +1 for "at most 1% more work".
pub fn allowed_change(a: &Analysis, q: &Question) -> f64 {
    let allowed = allowed_pct(a, q);
    if q.metric().higher_is_better() {
        allowed
    } else {
        -allowed
    }
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

/// A cell's answer with nothing decided yet: its place, what it is held
/// against and how many runs each side has.
fn blank(a: &Analysis, q: &Question, cell: &Cell, against: &Cell) -> CellAnswer {
    let m = q.metric();
    let runs = |c: &Cell| a.cell(c).map(|r| r.values(m).len()).unwrap_or(0);
    CellAnswer {
        tree: cell.tree.clone(),
        workload: cell.workload.clone(),
        threads: cell.threads,
        against_tree: against.tree.clone(),
        against_variant: against.variant.clone(),
        answer: Answer::Undecided,
        runs: runs(cell),
        against_runs: runs(against),
        estimate: None,
        interval: None,
        against_worst: None,
        runs_to_decide: None,
        unanswered: None,
    }
}

/// below / above: every counted run of the variant on the right side of
/// `value`, and (when asked) every run of `against` on the other side of
/// its bound; undecided when the baseline does not show the effect.
fn bound(a: &Analysis, q: &Question, cell: &Cell) -> CellAnswer {
    let m = q.metric();
    let value = q.value.unwrap_or(f64::NAN);
    let below = q.kind == Kind::Below;
    let against = against_cell(a, q, cell);
    let mut out = blank(a, q, cell, &against);
    let worst = |values: &[f64], below: bool| -> Option<f64> {
        let fold = if below { f64::max } else { f64::min };
        values.iter().copied().reduce(fold)
    };
    let values = a.cell(cell).map(|c| c.values(m)).unwrap_or_default();
    let Some(w) = worst(&values, below) else {
        out.unanswered = Some(Unanswered::NotMeasured);
        return out;
    };
    out.estimate = Some(w);
    let ok = if below { w < value } else { w > value };
    out.answer = if ok { Answer::Pass } else { Answer::Fail };
    let base_bound = q
        .baseline_above
        .map(|b| (b, false))
        .or(q.baseline_below.map(|b| (b, true)));
    if let Some((limit, base_below)) = base_bound {
        let base = a.cell(&against).map(|c| c.values(m)).unwrap_or_default();
        out.against_worst = worst(&base, base_below);
        let shows = out
            .against_worst
            .is_some_and(|w| if base_below { w < limit } else { w > limit });
        if !shows {
            // not measured, or the baseline does not show the effect:
            // nothing to remove
            out.answer = Answer::all([out.answer, Answer::Undecided]);
        }
    }
    out
}

/// The decision of an interval against a limit, in one unit: pass when
/// the interval reaches `LEVEL` and lies wholly on the good side of the
/// limit, fail when it lies wholly on the bad side, undecided otherwise.
pub fn against_limit(i: &VerdictInterval, limit: f64, higher_is_better: bool) -> Answer {
    // a NaN coverage reaches nothing either
    if i.coverage.is_nan() || i.coverage < LEVEL - 1e-12 {
        return Answer::Undecided;
    }
    let (good, bad) = if higher_is_better {
        (i.lo > limit, i.hi < limit)
    } else {
        (i.hi < limit, i.lo > limit)
    };
    if good {
        Answer::Pass
    } else if bad {
        Answer::Fail
    } else {
        Answer::Undecided
    }
}

/// Runs on both sides from one host, or why not.
fn comparable(a: &Analysis, q: &Question, cell: &Cell, against: &Cell) -> Option<Unanswered> {
    let m = q.metric();
    let measured = |c: &Cell| a.cell(c).is_some_and(|r| !r.values(m).is_empty());
    if !measured(cell) || !measured(against) {
        return Some(Unanswered::NotMeasured);
    }
    (!a.one_host(cell, against)).then(|| Unanswered::OtherHosts {
        hosts: a.hosts(cell),
        against_hosts: a.hosts(against),
    })
}

/// no-slower, by non-inferiority: pass when a 95% interval of the change
/// against `against` lies above the allowed change, fail when it lies
/// below it, undecided otherwise (then `--until-decided` repeats the
/// cell). The noise floor is not consulted: it widens what counts as a
/// change, never what counts as a pass.
pub fn no_slower(a: &Analysis, q: &Question, cell: &Cell) -> CellAnswer {
    let m = q.metric();
    let against = against_cell(a, q, cell);
    let mut out = blank(a, q, cell, &against);
    if let Some(why) = comparable(a, q, cell, &against) {
        out.unanswered = Some(why);
        return out;
    }
    let c = a.compare_cells(cell, &against, m);
    let Some(change) = c.change_pct else {
        out.unanswered = Some(Unanswered::NoRatio);
        return out;
    };
    out.estimate = Some(change);
    out.interval = c.ratio_interval.map(|i| VerdictInterval {
        lo: (i.lo - 1.0) * 100.0,
        hi: (i.hi - 1.0) * 100.0,
        coverage: i.coverage,
        method: i.method,
        paired: i.method.paired(),
        n: c.pairs.unwrap_or(c.runs.min(c.base_runs)),
    });
    let limit = allowed_change(a, q);
    out.answer = out.interval.map_or(Answer::Undecided, |i| {
        against_limit(&i, limit, m.higher_is_better())
    });
    if out.answer == Answer::Undecided {
        let boundary = analysis::boundary_factor(m, allowed_pct(a, q));
        out.runs_to_decide = a.runs_to_decide(cell, &against, m, boundary);
    }
    out
}

/// not-below, by non-inferiority on the difference in the metric's own
/// unit: pass when a 95% interval of variant - baseline lies above minus
/// the margin, fail when it lies below it, undecided otherwise (then
/// `--until-decided` repeats the cell).
pub fn not_below(a: &Analysis, q: &Question, cell: &Cell) -> CellAnswer {
    let m = q.metric();
    let against = against_cell(a, q, cell);
    let mut out = blank(a, q, cell, &against);
    if let Some(why) = comparable(a, q, cell, &against) {
        out.unanswered = Some(why);
        return out;
    }
    let d = a.difference(cell, &against, m);
    let limit = -q.margin.unwrap_or(0.0);
    out.estimate = d.estimate;
    out.interval = d.interval.map(|i| VerdictInterval {
        lo: i.lo,
        hi: i.hi,
        coverage: i.coverage,
        method: i.method,
        paired: i.method.paired(),
        n: d.pairs.unwrap_or(d.runs.min(d.base_runs)),
    });
    out.answer = out
        .interval
        .map_or(Answer::Undecided, |i| against_limit(&i, limit, true));
    if out.answer == Answer::Undecided {
        out.runs_to_decide = d.runs_to_decide(limit);
    }
    out
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
