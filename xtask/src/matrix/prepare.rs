//! Making the plan concrete before any server runs: trees fetched,
//! variants resolved (a variant that cannot mean anything on its tree
//! refuses the matrix), builds made or found, the variants' options checked
//! against the built servers.

use super::plan::{run_label, tree_label, Plan};
use super::prepared::Prepared;
use super::Matrix;
use crate::build;
use crate::children;
use crate::dims::{ModelPolicy, Step};
use crate::record::{Failure, Tree, TreeKind};
use crate::server::ServerBinaries;
use crate::tree;
use crate::util::Stage;
use crate::variant::{self, SourceChange};
use anyhow::{bail, Context, Result};

/// Resolves every tree and variant of the plan. A variant that cannot
/// mean anything on its tree refuses the whole matrix here, before
/// anything is built; a tree that cannot be fetched fails only its cells.
pub(super) fn prepare(
    matrix: &Matrix,
    plan: &Plan,
    timings: &mut Vec<(String, f64)>,
) -> Result<Vec<Prepared>> {
    let mut trees: Vec<Result<Tree, String>> = Vec::new();
    for entry in &matrix.trees {
        let stage = Stage::start(format!("tree {}", entry.spec));
        trees.push(tree::resolve(&entry.spec).map_err(|e| format!("{e:#}")));
        timings.push((format!("tree {}", entry.spec), stage.done()));
    }
    let mut prepared: Vec<Prepared> = Vec::new();
    for unit in &plan.units {
        let entry = &matrix.trees[unit.tree];
        let tree = &trees[unit.tree];
        let tree_label = entry
            .name
            .clone()
            .or_else(|| tree.as_ref().ok().map(|t| t.version.clone()))
            .unwrap_or_else(|| tree_label(entry));
        let mut p = Prepared {
            tree_label: tree_label.clone(),
            tree: tree.as_ref().ok().cloned(),
            variant: unit.variant.clone(),
            label: run_label(&unit.variant, unit.again),
            resolved: None,
            build: None,
            binaries: None,
            failure: None,
        };
        match tree {
            Err(e) => p.failure = Some(Failure::new(Step::Tree, e.clone())),
            Ok(t) => match variant::resolve(&matrix.variants, t, &unit.variant) {
                Ok(r) => {
                    p.label = run_label(&r.label, unit.again);
                    p.resolved = Some(r);
                }
                Err(e) => p.failure = Some(Failure::new(Step::Tree, format!("{e:#}"))),
            },
        }
        if prepared
            .iter()
            .any(|q| q.tree_label == p.tree_label && q.label == p.label)
        {
            p.failure = Some(Failure::new(
                Step::Tree,
                format!(
                    "variant `{}` of tree `{tree_label}` is the same as another variant listed \
                     for it (`{}`); list it once",
                    unit.variant, p.label
                ),
            ));
        }
        if let Some(f) = &p.failure {
            eprintln!("error: {tree_label} {}: {}", unit.variant, f.message);
        }
        prepared.push(p);
    }

    // A variant that cannot mean anything on its tree (gate on a tree with
    // the fix, a patch for a packaged server, no patch for the series) is a
    // mistake in the matrix: refuse the whole matrix before building.
    let refused: Vec<String> = prepared
        .iter()
        .filter(|p| p.tree.is_some() && p.failure.is_some())
        .map(|p| {
            format!(
                "  {} {}: {}",
                p.tree_label,
                p.label,
                p.failure.as_ref().map(|f| f.message.as_str()).unwrap_or("")
            )
        })
        .collect();
    if !refused.is_empty() {
        bail!(
            "the matrix asks for variants that cannot be built; nothing was built:\n{}",
            refused.join("\n")
        );
    }
    Ok(prepared)
}

/// How many distinct builds the prepared variants need that the cache
/// does not hold (packaged trees and failed variants need none).
pub(super) fn builds_to_make(prepared: &[Prepared]) -> Result<usize> {
    let mut missing = std::collections::BTreeSet::new();
    for p in prepared {
        let (Some(t), Some(r), None) = (&p.tree, &p.resolved, &p.failure) else {
            continue;
        };
        if matches!(t.kind(), TreeKind::Packaged { .. }) {
            continue;
        }
        let (key, found) = build::cached(t, &r.change, r.build_type)?;
        if !found {
            missing.insert(key);
        }
    }
    Ok(missing.len())
}

/// Builds every prepared (tree, variant) once, or finds its packaged
/// binary; the control's second run shares its variant's build. A failure
/// is recorded on the variant and the others go on.
pub(super) fn build_all(
    plan: &Plan,
    prepared: &mut [Prepared],
    timings: &mut Vec<(String, f64)>,
) -> Result<()> {
    // unpatched first, so that patched variants find the cache warm
    let mut order: Vec<usize> = (0..prepared.len())
        .filter(|&i| !plan.units[i].again)
        .collect();
    order.sort_by_key(|&i| {
        prepared[i]
            .resolved
            .as_ref()
            .is_some_and(|r| !matches!(r.change, SourceChange::None))
    });
    for i in order {
        children::check()?;
        let p = &mut prepared[i];
        let (Some(t), Some(r), None) = (&p.tree, &p.resolved, &p.failure) else {
            continue;
        };
        if let TreeKind::Packaged { mariadbd } = t.kind() {
            match ServerBinaries::from_package(mariadbd) {
                Ok(b) => p.binaries = Some(b),
                Err(e) => p.failure = Some(Failure::new(Step::Build, format!("{e:#}"))),
            }
            continue;
        }
        let label = format!("build {} {}", p.tree_label, p.label);
        let stage = Stage::start(&label);
        let built = build::build(t, &p.label, &r.change, r.build_type)
            .and_then(|b| Ok((ServerBinaries::from_build(&b)?, b)));
        match built {
            Ok((binaries, b)) => {
                p.build = Some(b);
                p.binaries = Some(binaries);
            }
            Err(e) => {
                if let Some(i) = children::interruption_in(&e) {
                    return Err(e.context(i));
                }
                eprintln!("error: {label}: {e:#}");
                p.failure = Some(Failure::new(Step::Build, format!("{e:#}")));
            }
        }
        timings.push((label, stage.done()));
    }
    // the control's second run: the same build as its first
    for i in 0..prepared.len() {
        let u = &plan.units[i];
        if !u.again || prepared[i].failure.is_some() {
            continue;
        }
        let first = plan
            .units
            .iter()
            .position(|o| !o.again && o.tree == u.tree && o.variant == u.variant)
            .expect("a control's second run follows its first");
        let (build, binaries, failure) = (
            prepared[first].build.clone(),
            prepared[first].binaries.clone(),
            prepared[first].failure.clone(),
        );
        let p = &mut prepared[i];
        p.build = build;
        p.binaries = binaries;
        p.failure = failure;
    }
    Ok(())
}

/// Refuses the matrix, before any server runs, when a variant sets an
/// option its built server does not know (asked of the binary itself).
pub(super) fn check_option_names(
    matrix: &Matrix,
    prepared: &[Prepared],
    allowed: &[String],
) -> Result<()> {
    let allowed: Vec<String> = allowed
        .iter()
        .map(|a| crate::settings::normalise(a))
        .collect();
    let mut refused = Vec::new();
    let mut known_of = std::collections::BTreeMap::new();
    for p in prepared {
        let (Some(b), Some(r)) = (&p.binaries, &p.resolved) else {
            continue;
        };
        if r.settings.is_empty() {
            continue;
        }
        if !known_of.contains_key(&b.mariadbd) {
            let known = crate::settings::known_options(&b.mariadbd)
                .with_context(|| format!("cannot list the options of {}", b.mariadbd.display()))?;
            known_of.insert(b.mariadbd.clone(), known);
        }
        let known = &known_of[&b.mariadbd];
        for key in crate::settings::unknown(r.settings.keys(), known) {
            refused.push(format!(
                "  {} {}: settings key `{key}`: {} knows no such option (`mariadbd --help \
                 --verbose`; a plugin's option must be written loose_{key})",
                p.tree_label,
                p.label,
                b.mariadbd.display()
            ));
        }
        for key in r.settings.keys() {
            if let Some(why) = crate::settings::refused_kind(key, known) {
                if allowed.contains(&crate::settings::normalise(key)) {
                    eprintln!(
                        "warning: {} {}: settings key `{key}` allowed by --allow-setting: {why}",
                        p.tree_label, p.label
                    );
                    continue;
                }
                refused.push(format!(
                    "  {}{} {}: [variant.{}] settings key `{key}`: {why}",
                    matrix.place_of_setting(&p.variant, key),
                    p.tree_label,
                    p.label,
                    p.variant
                ));
            }
        }
    }
    if !refused.is_empty() {
        bail!(
            "matrix `{}` sets options its servers do not know; nothing was run:\n{}",
            matrix.name,
            refused.join("\n")
        );
    }
    Ok(())
}

/// The LRU model's policy for a variant of a tree (report::scan reads
/// it); `results::sweeps::model_policy` decides, for runs and records alike.
pub(super) fn model_policy(t: &Tree, change: &SourceChange) -> Option<ModelPolicy> {
    let patch = match change {
        SourceChange::Patch(p) => Some(p.file.as_path()),
        _ => None,
    };
    crate::results::sweeps::model_policy(t, patch, matches!(change, SourceChange::CherryPick(_)))
}
