//! Resuming: which cells of a server are already done, and which are
//! still undecided after the planned repetitions (`--until-decided`).

use super::progress::Progress;
use super::run::{Prepared, Shared};
use crate::record::{Cell, CellKey, RunResult};
use crate::report::analysis::{Analysis, Decision};
use crate::report::verdict::{self, Answer};
use crate::results::manifest::is_baseline;
use crate::results::question::Kind;
use crate::results::store::{self, Inputs};
use crate::results::Manifest;
use std::collections::{BTreeMap, BTreeSet};

/// The cells of `cells` that this repetition of `p` still has to run: a
/// cell with a successful result made from the same inputs is done (and
/// counted as skipped), unless `--force`.
pub(super) fn cells_to_run(
    ctx: &Shared,
    p: &Prepared,
    rep: u32,
    settings: &BTreeMap<String, String>,
    cells: &[(usize, u32)],
    progress: &mut Progress,
) -> Vec<(usize, u32, CellKey)> {
    let mut todo = Vec::new();
    for &(w, threads) in cells {
        let key = CellKey::new(
            &p.tree_label,
            &p.label,
            &ctx.matrix.workloads[w].name,
            threads,
            rep,
        );
        let inputs = Inputs {
            workload: &ctx.matrix.workloads[w],
            build_key: p.build.as_ref().map(|b| b.key_hash.as_str()),
            settings,
        };
        let done = !ctx.opts.force
            && store::previous(&ctx.opts.out, &key).is_some_and(|prev| inputs.done_by(&prev));
        if done {
            eprintln!("--- {} {key}: already done", progress.counter());
            progress.skipped();
        } else {
            todo.push((w, threads, key));
        }
    }
    todo
}

/// The cells a comparison or a question is still undecided on, with the
/// cells they are compared against.
pub fn undecided_cells(manifest: &Manifest, results: &[RunResult]) -> BTreeSet<Cell> {
    let a = Analysis::new(manifest.clone(), results);
    let mut need = BTreeSet::new();
    for (cell, c) in &a.comparisons {
        if c.verdict == Decision::Undecided {
            need.insert(cell.clone());
            need.insert(cell.with_variant(&c.against));
        }
    }
    for q in &manifest.questions {
        if q.kind != Kind::NoSlower {
            continue;
        }
        for c in &a.cells {
            let asked = c.cell.variant == q.variant
                || (q.variant == "base" && is_baseline(&c.cell.variant));
            if asked
                && (q.workloads.is_empty() || q.workloads.contains(&c.cell.workload))
                && (q.trees.is_empty() || q.trees.contains(&c.cell.tree))
            {
                let base = verdict::against_cell(&a, q, &c.cell);
                // the question's own rule (non-inferiority), not the
                // comparison's: a change within the noise floor decides
                // a comparison but not a no-slower question
                if verdict::no_slower(&a, q, &c.cell).answer == Answer::Undecided {
                    need.insert(c.cell.clone());
                    need.insert(base);
                }
            }
        }
    }
    need
}
