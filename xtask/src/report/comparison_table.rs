//! The comparison section of a matrix report: each variant's QPS against
//! its baseline, with the change, its interval, p and the decision.

use super::doc::Block;
use super::words::p_words;
use crate::decide::analysis::{self, Analysis};

/// How the interval of a change is made, for the paragraph under every
/// table that prints one.
pub const INTERVALS: &str = "Intervals of a change: paired where the cells ran interleaved \
     by repetition on one host and 6 or more repetitions have both runs counted (the log \
     ratios of the variant's run to the baseline's within each repetition: with 6 or 7 pairs \
     the Hodges-Lehmann interval cut by the exact signed-rank distribution, 96.9% for 6; from \
     8 a bootstrap over pairs, nominal 95%); else unpaired (below 8 runs a side the \
     Hodges-Lehmann interval of the ratio cut by the exact Mann-Whitney distribution, 97.1% \
     for 4 against 4 and deciding nothing below 95%, as 3 against 3 at 90%; from 8 a \
     bootstrap of the ratio of medians, nominal 95%). 2000 resamples, fixed seed; the change \
     beside an interval is that of the medians.";

/// How the runs a decision would take are estimated, said wherever an
/// estimate is printed.
pub const RUNS_ESTIMATE: &str = "\"About N pairs (or runs a side) would decide it\": if these \
     runs' change and spread were the true ones, N would give the interval above clearing the \
     boundary 80% of the time (t approximation, widened by the interval's efficiency; a \
     simulation of this rule holds it to at least 75%); for a comparison, N makes its exact \
     test significant.";

/// The noise floor column: the control's own row shows the floor it
/// measures; the others the floor they are held against.
fn noise_floor_cell(c: &analysis::Comparison) -> String {
    if c.control {
        return c
            .change_pct
            .map(|x| format!("measured here: {:.1}%", x.abs()))
            .unwrap_or_else(|| "n/a".into());
    }
    c.noise_floor_pct
        .map(|n| format!("{n:.1}%"))
        .unwrap_or_else(|| "not measured".into())
}

/// The section, where the matrix has comparisons.
pub(super) fn section(a: &Analysis, b: &mut Vec<Block>) {
    if !a.comparisons.is_empty() {
        b.push(Block::Heading(2, "QPS against the baseline".into()));
        let rows = a
            .comparisons
            .iter()
            .map(|(cell, c)| {
                vec![
                    cell.tree.clone(),
                    cell.workload.clone(),
                    cell.threads.to_string(),
                    cell.variant.clone(),
                    c.against.clone(),
                    format!("{} vs {}", c.runs, c.base_runs),
                    c.change_pct
                        .map(|x| format!("{x:+.1}%"))
                        .unwrap_or_else(|| "n/a".into()),
                    c.ratio_interval
                        .map(|i| analysis::change_interval_words(&i))
                        .unwrap_or_else(|| "n/a".into()),
                    p_words(c.p_value),
                    p_words(c.min_possible_p),
                    noise_floor_cell(c),
                    format!("{}: {}", c.verdict.words(), c.why),
                ]
            })
            .collect();
        b.push(Block::Table {
            header: [
                "tree",
                "workload",
                "threads",
                "variant",
                "against",
                "runs",
                "change (paired estimate where paired, else of the medians)",
                "interval of the change (method, coverage)",
                "p",
                "smallest possible p",
                "noise floor",
                "decision",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        });
        b.push(Block::Para(format!(
            "Undecided means these runs cannot tell: with n runs against m the exact test cannot give p \
             below 2/C(n+m, n) (the smallest possible p), so a change can be shown only where that is \
             below {alpha}: never with 3 runs against 3 (0.100) or 3 against 4 (0.057), but with 3 \
             against 5 (0.036) or 4 against 4 (0.029); add repetitions or run with `--until-decided N`. \
             Paired, p is the exact signed-rank test's (at least 2/2^n for n pairs). \
             {INTERVALS} {RUNS_ESTIMATE}",
            alpha = analysis::ALPHA
        )));
    }
}
