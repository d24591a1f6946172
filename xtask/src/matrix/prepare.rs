//! Making the plan concrete before any server runs: trees fetched,
//! variants resolved (a variant that cannot mean anything on its tree
//! refuses the matrix), builds made or found, the variants' options checked
//! against the built servers.

use super::plan::{run_label, tree_label, Plan};
use super::run_state::{Failed, Prepared, Ready, ToBuild};
use super::Matrix;
use crate::build;
use crate::children;
use crate::dims::{Engine, ModelPolicy, Step};
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
) -> Result<Vec<Prepared<ToBuild>>> {
    let mut trees: Vec<Result<Tree, String>> = Vec::new();
    for entry in &matrix.trees {
        let stage = Stage::start(format!("tree {}", entry.spec));
        trees.push(tree::resolve(&entry.spec).map_err(|e| format!("{e:#}")));
        timings.push((format!("tree {}", entry.spec), stage.done()));
    }
    let mut prepared: Vec<Prepared<ToBuild>> = Vec::new();
    for unit in &plan.units {
        let entry = &matrix.trees[unit.tree];
        let tree = &trees[unit.tree];
        let tree_label = entry
            .name
            .clone()
            .or_else(|| tree.as_ref().ok().map(|t| t.version.clone()))
            .unwrap_or_else(|| tree_label(entry));
        let failed = |tree: Option<&Tree>, message: String| Failed {
            tree: tree.cloned(),
            resolved: None,
            failure: Failure::new(Step::Tree, message),
        };
        let mut label = run_label(&unit.variant, unit.again);
        let mut state = match tree {
            Err(e) => Err(failed(None, e.clone())),
            Ok(t) => match variant::resolve(&matrix.variants, t, &unit.variant) {
                Ok(r) => {
                    label = run_label(&r.label, unit.again);
                    Ok(ToBuild {
                        tree: t.clone(),
                        resolved: r,
                    })
                }
                Err(e) => Err(failed(Some(t), format!("{e:#}"))),
            },
        };
        if prepared
            .iter()
            .any(|q| q.tree_label == tree_label && q.label == label)
        {
            state = Err(failed(
                tree.as_ref().ok(),
                format!(
                    "variant `{}` of tree `{tree_label}` is the same as another variant listed \
                     for it (`{label}`); list it once",
                    unit.variant
                ),
            ));
        }
        let p = Prepared {
            tree_label,
            variant: unit.variant.clone(),
            label,
            state,
        };
        if let Some(f) = p.failure() {
            eprintln!("error: {} {}: {}", p.tree_label, unit.variant, f.message);
        }
        prepared.push(p);
    }

    // A variant that cannot mean anything on its tree (gate on a tree with
    // the fix, a patch for a packaged server, no patch for the series) is a
    // mistake in the matrix: refuse the whole matrix before building.
    let refused: Vec<String> = prepared
        .iter()
        .filter_map(|p| match &p.state {
            Err(f) if f.tree.is_some() => Some(format!(
                "  {} {}: {}",
                p.tree_label, p.label, f.failure.message
            )),
            _ => None,
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

/// The engine of each distinct build the prepared variants need that the
/// cache does not hold (packaged trees and failed variants need none).
pub(super) fn builds_to_make(prepared: &[Prepared<ToBuild>]) -> Result<Vec<Engine>> {
    let mut missing = std::collections::BTreeMap::new();
    for p in prepared {
        let Ok(ToBuild {
            tree: t,
            resolved: r,
        }) = &p.state
        else {
            continue;
        };
        if matches!(t.kind(), TreeKind::Packaged { .. }) {
            continue;
        }
        let (key, found) = build::cached(t, &r.change, r.build_type)?;
        if !found {
            missing.insert(key, t.series.engine);
        }
    }
    Ok(missing.into_values().collect())
}

/// Builds every prepared (tree, variant) once, or finds its packaged
/// binary; the control's second run shares its variant's build. A failure
/// is recorded on the variant and the others go on.
pub(super) fn build_all(
    plan: &Plan,
    prepared: Vec<Prepared<ToBuild>>,
    timings: &mut Vec<(String, f64)>,
) -> Result<Vec<Prepared>> {
    // unpatched first, so that patched variants find the cache warm
    let mut order: Vec<usize> = (0..prepared.len())
        .filter(|&i| !plan.units[i].again)
        .collect();
    order.sort_by_key(|&i| {
        prepared[i]
            .state
            .as_ref()
            .is_ok_and(|u| !matches!(u.resolved.change, SourceChange::None))
    });
    let mut built: Vec<Option<Result<Ready, Failed>>> = vec![None; prepared.len()];
    for i in order {
        children::check()?;
        let p = &prepared[i];
        let ToBuild {
            tree: t,
            resolved: r,
        } = match &p.state {
            Ok(u) => u,
            Err(f) => {
                built[i] = Some(Err(f.clone()));
                continue;
            }
        };
        let failed = |e: &anyhow::Error| Failed {
            tree: Some(t.clone()),
            resolved: Some(r.clone()),
            failure: Failure::new(Step::Build, format!("{e:#}")),
        };
        let ready = |build: Option<crate::record::Build>, binaries| Ready {
            tree: t.clone(),
            resolved: r.clone(),
            build,
            binaries,
        };
        if let TreeKind::Packaged { mariadbd } = t.kind() {
            built[i] = Some(match ServerBinaries::from_package(mariadbd) {
                Ok(b) => Ok(ready(None, b)),
                Err(e) => Err(failed(&e)),
            });
            continue;
        }
        let label = format!("build {} {}", p.tree_label, p.label);
        let stage = Stage::start(&label);
        let made = build::build(t, &p.label, &r.change, r.build_type)
            .and_then(|b| Ok((ServerBinaries::from_build(&b)?, b)));
        built[i] = Some(match made {
            Ok((binaries, b)) => Ok(ready(Some(b), binaries)),
            Err(e) => {
                if let Some(i) = children::interruption_in(&e) {
                    return Err(e.context(i));
                }
                eprintln!("error: {label}: {e:#}");
                Err(failed(&e))
            }
        });
        timings.push((label, stage.done()));
    }
    // the control's second run: the same build as its first
    for (i, u) in plan.units.iter().enumerate() {
        if !u.again {
            continue;
        }
        let first = plan
            .units
            .iter()
            .position(|o| !o.again && o.tree == u.tree && o.variant == u.variant)
            .expect("a control's second run follows its first");
        built[i] = Some(match (&prepared[i].state, &built[first]) {
            (Err(f), _) => Err(f.clone()),
            (Ok(own), Some(Ok(ready))) => Ok(Ready {
                tree: own.tree.clone(),
                resolved: own.resolved.clone(),
                ..ready.clone()
            }),
            (Ok(_), Some(Err(f))) => Err(f.clone()),
            (Ok(_), None) => unreachable!("every first run is built before its second"),
        });
    }
    Ok(prepared
        .into_iter()
        .zip(built)
        .map(|(p, b)| p.then(b.expect("every unit was built, found or failed")))
        .collect())
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
        let Ok(Ready {
            binaries: b,
            resolved: r,
            ..
        }) = &p.state
        else {
            continue;
        };
        if r.settings.is_empty() {
            continue;
        }
        if !known_of.contains_key(&b.server) {
            let known = crate::settings::known_options(&b.server)
                .with_context(|| format!("cannot list the options of {}", b.server.display()))?;
            known_of.insert(b.server.clone(), known);
        }
        let known = &known_of[&b.server];
        for key in crate::settings::unknown(r.settings.keys(), known) {
            refused.push(format!(
                "  {} {}: settings key `{key}`: {} knows no such option (`--help \
                 --verbose`; a plugin's option must be written loose_{key})",
                p.tree_label,
                p.label,
                b.server.display()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dims::Series;
    use crate::matrix::plan::ServerUnit;
    use crate::variant::Resolved;
    use std::path::Path;

    /// A packaged tree whose server lives under `prefix`: nothing to
    /// build, so `build_all` runs here without a compiler.
    fn packaged(prefix: &Path) -> Tree {
        Tree {
            spec: format!("pkg:{}", prefix.join("sbin/mariadbd").display()),
            id: "0".into(),
            src: prefix.to_path_buf(),
            version: "10.11.18".into(),
            series: Series::V10_11,
            has_upstream_fix: false,
            package: Some(prefix.join("sbin/mariadbd")),
        }
    }

    fn unit(tree: usize, variant: &str, again: bool) -> ServerUnit {
        ServerUnit {
            tree,
            variant: variant.into(),
            again,
        }
    }

    fn prepared(
        tree_label: &str,
        label: &str,
        state: Result<ToBuild, Failed>,
    ) -> Prepared<ToBuild> {
        Prepared {
            tree_label: tree_label.into(),
            variant: label.trim_end_matches("-again").into(),
            label: label.into(),
            state,
        }
    }

    fn to_build(tree: Tree, settings: &[(&str, &str)]) -> ToBuild {
        ToBuild {
            tree,
            resolved: Resolved {
                label: "base".into(),
                change: SourceChange::None,
                settings: settings
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                build_type: Default::default(),
            },
        }
    }

    /// Every unit comes out in its place, ready or failed with the step
    /// that stopped it; the control's second run takes its first run's
    /// binaries (or failure) and keeps its own settings; a unit that
    /// failed before the builds keeps its own failure.
    #[test]
    fn build_all_gives_every_unit_a_server_or_the_failure_that_stops_it() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good");
        std::fs::create_dir_all(good.join("bin")).unwrap();
        std::fs::write(good.join("bin/mariadb-install-db"), "").unwrap();
        let bad = dir.path().join("bad");
        let plan = Plan {
            units: vec![
                unit(0, "base", false),
                unit(0, "base", true),
                unit(1, "base", false),
                unit(1, "base", true),
                unit(2, "base", false),
            ],
            cells: Vec::new(),
            repetitions: 1,
        };
        let fetch_failed = Failed {
            tree: None,
            resolved: None,
            failure: Failure::new(Step::Tree, "no such version"),
        };
        let units = vec![
            prepared("good", "base", Ok(to_build(packaged(&good), &[]))),
            prepared(
                "good",
                "base-again",
                Ok(to_build(packaged(&good), &[("k", "again")])),
            ),
            prepared("bad", "base", Ok(to_build(packaged(&bad), &[]))),
            prepared("bad", "base-again", Ok(to_build(packaged(&bad), &[]))),
            prepared("gone", "base", Err(fetch_failed)),
        ];
        let mut timings = Vec::new();
        let out = build_all(&plan, units, &mut timings).unwrap();
        let names: Vec<String> = out
            .iter()
            .map(|p| format!("{} {}", p.tree_label, p.label))
            .collect();
        assert_eq!(
            names,
            [
                "good base",
                "good base-again",
                "bad base",
                "bad base-again",
                "gone base"
            ]
        );
        let ready = |i: usize| out[i].state.as_ref().ok().expect("ready");
        assert_eq!(ready(0).binaries.server, good.join("sbin/mariadbd"));
        assert_eq!(ready(1).binaries.server, ready(0).binaries.server);
        assert_eq!(ready(1).resolved.settings["k"], "again");
        for i in [2, 3] {
            let f = out[i].failure().expect("failed");
            assert_eq!(f.step, Step::Build, "{}", names[i]);
            assert!(
                f.message.contains("no mariadb-install-db under"),
                "{}",
                f.message
            );
            assert!(out[i].tree().is_some(), "a build failure keeps its tree");
        }
        let f = out[4].failure().expect("failed");
        assert_eq!(
            (f.step, f.message.as_str()),
            (Step::Tree, "no such version")
        );
        assert!(out[4].tree().is_none());
    }
}
