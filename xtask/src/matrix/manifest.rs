//! What the report needs to know of the matrix (`matrix.json`), with the
//! labels the runs carry.

use super::run_state::{Prepared, RunOptions};
use super::Matrix;
use crate::dims::baseline_first;
use crate::results::Manifest;
use std::fs;

/// What the report needs to know of the matrix, with the labels the runs
/// carry, in the matrix's order (baselines first).
pub(super) fn manifest<S>(
    matrix: &Matrix,
    prepared: &[Prepared<S>],
    opts: &RunOptions,
) -> anyhow::Result<Manifest> {
    let mut trees: Vec<String> = Vec::new();
    let mut variants: Vec<String> = Vec::new();
    for p in prepared {
        if !trees.contains(&p.tree_label) {
            trees.push(p.tree_label.clone());
        }
        if !variants.contains(&p.label) {
            variants.push(p.label.clone());
        }
    }
    baseline_first(&mut variants);
    Ok(Manifest {
        name: matrix.name.clone(),
        description: matrix.description.clone(),
        trees,
        variants,
        workloads: matrix.workloads.iter().map(|w| w.name.clone()).collect(),
        repetitions: matrix.repetitions,
        control: matrix.control.clone(),
        threshold_pct: matrix.threshold_pct,
        busy_cpu_bound: matrix.busy_cpu_bound,
        until_decided: opts.until_decided,
        questions: matrix.questions.clone(),
        published: matrix.published.clone(),
        file: opts.file.as_ref().map(|f| f.display().to_string()),
        matrix_sha256: opts
            .file
            .as_ref()
            .and_then(|f| fs::read(f).ok())
            .map(|bytes| crate::util::sha256_hex(&bytes)),
        shard: opts.shard.map(|s| s.to_string()),
        allowed_settings: allowed_settings(opts)?,
    })
}

/// The settings `--allow-setting` let through, now or in an earlier run
/// of this directory: its results stay in the directory, and so must the
/// report's warning of them when a resumed run does not repeat the flag.
fn allowed_settings(opts: &RunOptions) -> anyhow::Result<Vec<String>> {
    let earlier = Manifest::read(&opts.out)?;
    let mut all: Vec<String> = earlier
        .map(|m| m.allowed_settings)
        .unwrap_or_default()
        .into_iter()
        .chain(opts.allowed_settings.iter().cloned())
        .collect();
    all.sort();
    all.dedup();
    Ok(all)
}
