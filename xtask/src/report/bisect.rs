//! A bisection's report (`report.md`, `report.jira`): a pure function of
//! its record (`bisect.json`). The first line is the answer a ticket
//! needs; the table shows every measured candidate with the figures and
//! the rule that decided it.

use super::doc::{self, Block};
use crate::record::{BisectOutcome, BisectRecord, CandidateDecision, Rule};
use crate::util::human_duration;

/// `report.md` and `report.jira` of a bisection.
pub fn render(r: &BisectRecord) -> Vec<(String, String)> {
    let blocks = blocks(r);
    vec![
        ("report.md".to_string(), doc::markdown(&blocks)),
        ("report.jira".to_string(), doc::jira(&blocks)),
    ]
}

fn answer(r: &BisectRecord) -> String {
    let named = |i: usize| {
        let c = &r.candidates[i];
        match (&c.commit, &c.subject) {
            (Some(id), Some(s)) => format!("`{id}` {s}"),
            (Some(id), None) => format!("`{id}`"),
            _ => format!("`{}`", c.spec),
        }
    };
    match &r.outcome {
        Some(BisectOutcome::Found { first_bad, .. }) => format!(
            "**first bad {}**: {}",
            if r.candidates[*first_bad].commit.is_some() {
                "commit"
            } else {
                "tree"
            },
            named(*first_bad)
        ),
        Some(BisectOutcome::NoDifference { why }) => {
            format!("**Nothing to bisect**: the endpoints do not differ ({why}).")
        }
        Some(BisectOutcome::Undecided {
            last_good,
            first_bad,
            why,
        }) => format!(
            "**Undecided**: the first bad one is after {} and no later than {} ({why}).",
            named(*last_good),
            named(*first_bad)
        ),
        None => "**Not finished**: the bisection stopped before it decided.".to_string(),
    }
}

fn blocks(r: &BisectRecord) -> Vec<Block> {
    let rule = match r.rule {
        Rule::Counter => format!(
            "a counter: the endpoints' runs must not overlap and their medians must differ by \
             more than {}%; a candidate is good or bad by the side of the cut between them that \
             all its runs fall on, else it gets more runs and, still split, is skipped",
            r.threshold_pct
        ),
        Rule::Statistical => format!(
            "a timing: each candidate runs interleaved with both endpoints; it is good when it \
             differs from the bad one (exact Mann-Whitney p < 0.05 and beyond {}%) and not from \
             the good one, bad the other way round, else UNKNOWN: more runs, then skipped",
            r.threshold_pct
        ),
    };
    let midpoints = r.steps.iter().filter(|s| !s.endpoint).count();
    let builds_made = r
        .steps
        .iter()
        .filter(|s| s.build_reused == Some(false))
        .count();
    let mut blocks = vec![
        Block::Heading(
            1,
            format!(
                "Bisection `{}`: {} on {} ({})",
                r.matrix,
                r.metric.words(),
                r.workload,
                r.variant
            ),
        ),
        Block::Para(answer(r)),
        Block::Bullets(vec![
            format!(
                "{} candidates, {} midpoints measured (at most {} by halving), {} builds made \
                 and {} reused, {} in all on host `{}`",
                r.candidates.len(),
                midpoints,
                ceil_log2(r.candidates.len().saturating_sub(2) + 1),
                builds_made,
                r.steps
                    .iter()
                    .filter(|s| s.build_reused == Some(true))
                    .count(),
                human_duration(r.wall_seconds),
                r.host
            ),
            format!("rule: {rule}"),
            format!("tool revision `{}`", r.tool_revision),
        ]),
    ];
    blocks.push(Block::Heading(2, "Steps".into()));
    blocks.push(steps_table(r));
    blocks
}

/// One row per step: the candidate, its runs and median, the decision,
/// whether its build was made or reused, and why.
fn steps_table(r: &BisectRecord) -> Block {
    let rows: Vec<Vec<String>> = r
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let c = &r.candidates[s.candidate];
            vec![
                (i + 1).to_string(),
                format!(
                    "`{}`{}",
                    c.label(s.candidate),
                    if s.endpoint { " (endpoint)" } else { "" }
                ),
                c.subject.clone().unwrap_or_else(|| c.spec.clone()),
                s.values.len().to_string(),
                super::words::num(s.median, 4),
                match s.decision {
                    CandidateDecision::Good => "good",
                    CandidateDecision::Bad => "bad",
                    CandidateDecision::Skipped => "skipped",
                }
                .to_string(),
                match s.build_reused {
                    Some(true) => "reused",
                    Some(false) => "made",
                    None => "none",
                }
                .to_string(),
                human_duration(s.wall_seconds),
                s.why.clone(),
            ]
        })
        .collect();
    Block::AlignedTable {
        header: [
            "step",
            "candidate",
            "subject",
            "runs",
            "median",
            "decision",
            "build",
            "time",
            "why",
        ]
        .map(String::from)
        .to_vec(),
        right_aligned: vec![0, 3, 4, 7],
        rows,
    }
}

/// ⌈log2 n⌉ for n ≥ 1.
fn ceil_log2(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_bounds() {
        assert_eq!([1, 2, 3, 4, 5, 8, 9].map(ceil_log2), [0, 1, 2, 2, 3, 3, 4]);
    }
}
