//! Resuming: which cells of a server are already done, and which are
//! still undecided after the planned repetitions (`--until-decided`).

use super::progress::Progress;
use super::run_state::{Prepared, Shared};
use crate::decide::analysis::{Analysis, Decision};
use crate::decide::verdict::{self, Answer};
use crate::record::{Cell, CellKey, MyCnf, RunResult};
use crate::results::question::Kind;
use crate::results::store::{self, Inputs, Previous};
use crate::results::Manifest;
use anyhow::{bail, Result};
use std::collections::{BTreeMap, BTreeSet};

/// The cells of `cells` that this repetition of `p` still has to run: a
/// cell with a successful result made from the same inputs is done (and
/// counted as skipped), unless `--force`. A success made from other inputs
/// (another tree under the same label, another build, my.cnf or workload)
/// refuses the results directory, naming the field, since its report would
/// mix two things under one name; `--force` runs such cells again.
pub(super) fn cells_to_run(
    ctx: &Shared,
    p: &Prepared,
    rep: u32,
    settings: &BTreeMap<String, String>,
    my_cnf: Option<&MyCnf>,
    cells: &[(usize, u32)],
    progress: &mut Progress,
) -> Result<Vec<(usize, u32, CellKey)>> {
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
            tree_id: p.tree().map(|t| t.id.as_str()),
            workload: &ctx.matrix.workloads[w],
            build_key: p.build().map(|b| b.key_hash.as_str()),
            settings,
            my_cnf: my_cnf.map(|c| c.settings.as_slice()),
        };
        // a variant whose tree or build failed now has no provenance to
        // compare: its cells run and record the failure, as they always did
        let previous = match store::previous(&ctx.opts.out, &key) {
            Some(prev) if !ctx.opts.force && p.state.is_ok() => inputs.compare(&prev),
            _ => Previous::Run,
        };
        match previous {
            Previous::Done => {
                eprintln!("--- {} {key}: already done", progress.counter());
                progress.skipped();
            }
            Previous::Run => todo.push((w, threads, key)),
            Previous::Differs(field) => bail!(
                "{}: {key} was run before with another {field} than this run would use: the \
                 results directory holds another thing under the same name. Use a new --out, \
                 or --force to run such cells again",
                ctx.opts.out.display()
            ),
        }
    }
    Ok(todo)
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
        // a repetition past `cost_passes` runs no cost pass, so repeating
        // cells cannot decide a question on a cost-pass metric
        // a bound is decided by every run and needs none more
        let by_interval = matches!(q.kind, Kind::NoSlower | Kind::NotBelow);
        if !by_interval || q.metric.info().cost_pass {
            continue;
        }
        for c in &a.cells {
            // the one rule of what a question's variant names
            if verdict::names(&a, &c.cell, &q.variant)
                && (q.workloads.is_empty() || q.workloads.contains(&c.cell.workload))
                && (q.trees.is_empty() || q.trees.contains(&c.cell.tree))
            {
                let base = verdict::against_cell(&a, q, &c.cell);
                // the question's own rule (non-inferiority on the change
                // or on the difference), not the comparison's: a change
                // within the noise floor decides a comparison but not a
                // question
                if verdict::cell_answer(&a, q, &c.cell).answer == Answer::Undecided {
                    need.insert(c.cell.clone());
                    need.insert(base);
                }
            }
        }
    }
    need
}
