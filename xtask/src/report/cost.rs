//! Where the cost goes: the cost passes of a report's cells (instructions
//! per query counted by an instruction counter, `record::CostPass`), how
//! far one cell's passes spread, each variant's cost against its tree's
//! baseline, and the functions whose own instructions per query changed
//! most. Pure: a function of the records.

use super::doc::Block;
use super::words::num;
use crate::decide::analysis::{median, Analysis, CellRuns};
use crate::dims::Metric;
use crate::record::{Cell, CostCounter, CostPass, EventWindow};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Functions listed per cell against its baseline.
pub const SHIFTS_PER_CELL: usize = 8;

/// One cell's cost passes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostRow {
    #[serde(flatten)]
    pub cell: Cell,
    pub counter: CostCounter,
    pub passes: usize,
    /// median, min and max over the passes
    pub instructions_per_query: f64,
    pub min: f64,
    pub max: f64,
    /// (max - min) / median, in percent: how far one binary's passes move
    pub spread_pct: f64,
    /// the baseline's variant and this cell's median over the baseline's;
    /// absent for a baseline or where the baseline had no cost pass
    pub against: Option<String>,
    pub ratio: Option<f64>,
    /// medians over the passes that read them: pages made young per query
    /// and queries a second under the counter
    pub pages_made_young_per_query: Option<f64>,
    pub qps_counted: f64,
    /// the passes' window when it was a count of events (`cost_events`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<EventWindow>,
}

/// A function's own instructions per query in a cell and in its baseline
/// (median over the passes whose listing holds it). A function missing
/// from every listing of a side cost less than that side's `listed_above`
/// (the largest of its passes' smallest listed costs per query): unknown,
/// not 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionShift {
    #[serde(flatten)]
    pub cell: Cell,
    pub against: String,
    pub function: String,
    pub per_query: Option<f64>,
    pub baseline_per_query: Option<f64>,
    /// per_query - baseline_per_query, when both are known
    pub change: Option<f64>,
    pub listed_above: f64,
    pub baseline_listed_above: f64,
}

fn passes<'a>(c: &'a CellRuns) -> Vec<&'a CostPass> {
    c.taken(Metric::InstructionsPerQuery)
        .filter_map(|r| r.outcome.as_ref()?.cost.as_ref())
        .collect()
}

pub fn rows(a: &Analysis) -> Vec<CostRow> {
    a.cells
        .iter()
        .filter_map(|c| {
            let p = passes(c);
            let counter = p.first()?.counter;
            let values: Vec<f64> = p.iter().map(|x| x.instructions_per_query).collect();
            let spread = crate::stats::spread(&values)?;
            let baseline = a
                .baseline_of(&c.cell)
                .filter(|b| b.cell != c.cell)
                .filter(|b| passes(b).iter().all(|x| x.counter == counter));
            let ratio = baseline
                .and_then(|b| b.median(Metric::InstructionsPerQuery))
                .filter(|b| *b > 0.0)
                .map(|b| spread.median / b);
            let young: Vec<f64> = p
                .iter()
                .filter_map(|x| x.pages_made_young_per_query)
                .collect();
            Some(CostRow {
                cell: c.cell.clone(),
                counter,
                passes: p.len(),
                instructions_per_query: spread.median,
                min: spread.min,
                max: spread.max,
                spread_pct: if spread.median > 0.0 {
                    (spread.max - spread.min) / spread.median * 100.0
                } else {
                    0.0
                },
                against: ratio.and(baseline.map(|b| b.cell.variant.clone())),
                ratio,
                pages_made_young_per_query: median(&young),
                qps_counted: median(&p.iter().map(|x| x.qps).collect::<Vec<_>>())?,
                events: p.first()?.events,
            })
        })
        .collect()
}

/// The workload, with the window when it was a count of events.
fn workload_and_window(r: &CostRow) -> String {
    match r.events {
        None => r.cell.workload.clone(),
        Some(e) => format!(
            "{} ({} events, {} connection{}{}{})",
            r.cell.workload,
            e.events,
            e.threads,
            if e.threads == 1 { "" } else { "s" },
            if e.purge_held { ", purge held" } else { "" },
            if e.seeded_data { ", seeded data" } else { "" }
        ),
    }
}

/// One side's listings: per function the median own cost per query over
/// the passes that list it, and the bound below which an unlisted
/// function lies.
fn per_query_costs(p: &[&CostPass]) -> (BTreeMap<String, f64>, f64) {
    let mut seen: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut listed_above: f64 = 0.0;
    for pass in p.iter().filter(|x| x.queries > 0) {
        let q = pass.queries as f64;
        for f in &pass.top_functions {
            seen.entry(&f.function)
                .or_default()
                .push(f.instructions as f64 / q);
        }
        if let Some(last) = pass.top_functions.last() {
            listed_above = listed_above.max(last.instructions as f64 / q);
        }
    }
    let medians = seen
        .into_iter()
        .filter_map(|(f, v)| Some((f.to_string(), median(&v)?)))
        .collect();
    (medians, listed_above)
}

/// Per cell with a baseline, the `SHIFTS_PER_CELL` functions whose own
/// cost per query moved most (a function listed on one side only ranks
/// by what that side lists), largest first.
pub fn shifts(a: &Analysis) -> Vec<FunctionShift> {
    let mut out = Vec::new();
    for c in &a.cells {
        let Some(base) = a.baseline_of(&c.cell).filter(|b| b.cell != c.cell) else {
            continue;
        };
        let (mine, theirs) = (passes(c), passes(base));
        if mine.is_empty() || theirs.is_empty() {
            continue;
        }
        let (mine, mine_above) = per_query_costs(&mine);
        let (theirs, theirs_above) = per_query_costs(&theirs);
        let names: BTreeSet<&String> = mine.keys().chain(theirs.keys()).collect();
        let mut cell_shifts: Vec<(f64, FunctionShift)> = names
            .into_iter()
            .map(|f| {
                let (v, b) = (mine.get(f).copied(), theirs.get(f).copied());
                let rank = (v.unwrap_or(0.0) - b.unwrap_or(0.0)).abs();
                let shift = FunctionShift {
                    cell: c.cell.clone(),
                    against: base.cell.variant.clone(),
                    function: f.clone(),
                    per_query: v,
                    baseline_per_query: b,
                    change: v.zip(b).map(|(v, b)| v - b),
                    listed_above: mine_above,
                    baseline_listed_above: theirs_above,
                };
                (rank, shift)
            })
            .collect();
        cell_shifts.sort_by(|x, y| {
            y.0.total_cmp(&x.0)
                .then_with(|| x.1.function.cmp(&y.1.function))
        });
        out.extend(
            cell_shifts
                .into_iter()
                .take(SHIFTS_PER_CELL)
                .map(|(_, s)| s),
        );
    }
    out
}

/// How many functions the passes list (the most any pass does).
pub fn listed_functions(a: &Analysis) -> usize {
    a.cells
        .iter()
        .flat_map(|c| passes(c))
        .map(|p| p.top_functions.len())
        .max()
        .unwrap_or(0)
}

fn side_words(v: Option<f64>, above: f64) -> String {
    match v {
        Some(v) => format!("{v:.0}"),
        None => format!("under {above:.0} (not listed)"),
    }
}

/// The report's blocks: the passes' table, then (Markdown only) the
/// functions; none without cost passes.
pub fn blocks(rows: &[CostRow], shifts: &[FunctionShift], listed: usize) -> Vec<Block> {
    let Some(first) = rows.first() else {
        return Vec::new();
    };
    let mut b = vec![
        Block::Heading(2, "Where the cost goes (cost passes)".into()),
        Block::Para(format!(
            "Each cost pass is a second server of the same build run under an instruction counter \
             ({}) with counting off while it loads and arms its data, then on for a window of each \
             workload; a query is a client command the server dispatched in that window. \
             Instructions do not depend on the host's load, so busy-flagged runs count here. The \
             spread is (max - min) / median of one cell's passes: what this metric moves by between \
             runs of one binary. Pages made young and queries a second are those of the counted \
             window: the counter slows the server tens of times over (55 to 130 times on the \
             2-core hosts this tool was built on), so its pace is not the timed runs'.",
            first.counter.words()
        )),
    ];
    if rows.iter().any(|r| r.events.is_some()) {
        b.push(Block::Para(
            "A workload with a count of events counted exactly that many sysbench events on one \
             connection from a fixed seed instead of a window of seconds, so every pass ran the \
             same statements; where purge was held, it had caught up before the window and a \
             read view kept it from running during it; with seeded data, the server's rows and \
             arming came from one seed and the pass had no warm-up, so that every pass would \
             start from the same pages (its spread says how far they still differ)."
                .into(),
        ));
    }
    b.push(cost_table(rows));
    if shifts.is_empty() {
        return b;
    }
    b.push(Block::MarkdownOnly {
        blocks: shift_blocks(shifts, listed),
        jira_note: "The functions whose own cost per query moved most are in report.md (left out \
                    here: a Jira comment holds 32,767 characters)."
            .into(),
    });
    b
}

/// One row per cost cell: instructions per query, their spread and the
/// change against the baseline.
fn cost_table(rows: &[CostRow]) -> Block {
    Block::AlignedTable {
        header: [
            "tree",
            "workload",
            "threads",
            "variant",
            "passes",
            "instructions / query (median)",
            "min - max",
            "spread",
            "against baseline",
            "pages made young / query",
            "queries / s counted",
        ]
        .map(String::from)
        .to_vec(),
        right_aligned: vec![4, 5, 7, 8, 9, 10],
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.cell.tree.clone(),
                    workload_and_window(r),
                    r.cell.threads.to_string(),
                    r.cell.variant.clone(),
                    r.passes.to_string(),
                    format!("{:.0}", r.instructions_per_query),
                    format!("{:.0} - {:.0}", r.min, r.max),
                    format!("{:.2}%", r.spread_pct),
                    match (&r.against, r.ratio) {
                        (Some(against), Some(x)) => {
                            format!("{:+.2}% vs {against}", (x - 1.0) * 100.0)
                        }
                        _ => "n/a".into(),
                    },
                    num(r.pages_made_young_per_query, 2),
                    format!("{:.0}", r.qps_counted),
                ]
            })
            .collect(),
    }
}

/// The functions whose own cost per query moved most, per cell.
fn shift_blocks(shifts: &[FunctionShift], listed: usize) -> Vec<Block> {
    let mut detail = vec![
        Block::Heading(
            3,
            "The functions whose own cost per query moved most".into(),
        ),
        Block::Para(format!(
            "Per cell against its baseline, the {SHIFTS_PER_CELL} functions whose own instructions \
             per query (self cost: their own code, not what they call; the median over the passes) \
             moved most. A pass lists its {listed} costliest functions; one not listed on a side \
             cost less there than the smallest listed, so only a bound is known."
        )),
    ];
    detail.push(Block::AlignedTable {
        header: [
            "tree",
            "workload",
            "threads",
            "variant",
            "function",
            "own instructions / query",
            "baseline's",
            "change",
        ]
        .map(String::from)
        .to_vec(),
        right_aligned: vec![5, 6, 7],
        rows: shifts
            .iter()
            .map(|s| {
                vec![
                    s.cell.tree.clone(),
                    s.cell.workload.clone(),
                    s.cell.threads.to_string(),
                    format!("{} vs {}", s.cell.variant, s.against),
                    format!("`{}`", s.function),
                    side_words(s.per_query, s.listed_above),
                    side_words(s.baseline_per_query, s.baseline_listed_above),
                    s.change
                        .map(|x| format!("{x:+.0}"))
                        .unwrap_or_else(|| "n/a".into()),
                ]
            })
            .collect(),
    });
    detail
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::FunctionCost;

    fn pass(instructions: u64, queries: u64, top: &[(&str, u64)]) -> CostPass {
        CostPass {
            counter: CostCounter::CallgrindIrQueryThreads,
            window_seconds: Some(10),
            events: None,
            instructions,
            other_threads: None,
            queries,
            instructions_per_query: instructions as f64 / queries as f64,
            pages_made_young_per_query: None,
            qps: queries as f64 / 10.0,
            top_functions: top
                .iter()
                .map(|(f, n)| FunctionCost {
                    function: f.to_string(),
                    instructions: *n,
                })
                .collect(),
            wall_seconds: 1.0,
        }
    }

    #[test]
    fn a_function_listed_on_one_side_has_a_bound_on_the_other_not_a_zero() {
        let a = pass(1000, 10, &[("f", 500), ("g", 100)]);
        let b = pass(2000, 20, &[("f", 600), ("g", 400)]);
        let (costs, above) = per_query_costs(&[&a, &b]);
        // f: 50 and 30 a query, median 40; g: 10 and 20, median 15
        assert_eq!(costs.get("f"), Some(&40.0));
        assert_eq!(costs.get("g"), Some(&15.0));
        // the larger of the two smallest listed: 10 (a) and 20 (b)
        assert_eq!(above, 20.0);
        assert_eq!(side_words(None, above), "under 20 (not listed)");
    }

    #[test]
    fn a_row_counted_over_events_says_so_and_one_counted_over_seconds_does_not() {
        let row = |events: Option<EventWindow>| CostRow {
            cell: Cell {
                tree: "11.8.6".into(),
                variant: "base".into(),
                workload: "update-index".into(),
                threads: 2,
            },
            counter: CostCounter::CallgrindIrQueryThreads,
            passes: 4,
            instructions_per_query: 1.0,
            min: 1.0,
            max: 1.0,
            spread_pct: 0.0,
            against: None,
            ratio: None,
            pages_made_young_per_query: None,
            qps_counted: 1.0,
            events,
        };
        let held = EventWindow {
            events: 2000,
            seed: 1,
            threads: 1,
            purge_held: true,
            seeded_data: true,
        };
        assert_eq!(
            workload_and_window(&row(Some(held))),
            "update-index (2000 events, 1 connection, purge held, seeded data)"
        );
        assert_eq!(workload_and_window(&row(None)), "update-index");
        let paras = |rows: &[CostRow]| {
            blocks(rows, &[], 0)
                .into_iter()
                .filter(|b| matches!(b, Block::Para(_)))
                .count()
        };
        // the sentence on event windows only where a row has one
        assert_eq!(paras(&[row(None)]), 1);
        assert_eq!(paras(&[row(None), row(Some(held))]), 2);
    }
}
