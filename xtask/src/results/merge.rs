//! Joining the results directories of a matrix's shards (`--shard K/N`,
//! run on several hosts) into one. Refused unless every directory comes
//! from the same matrix file (its sha256 in `matrix.json`) and the same
//! tool revision, or `allow_mixed` says otherwise; a cell present in two
//! directories is refused too. Each run keeps its host: reports never
//! compare runs of different hosts (`decide::analysis`).

use super::{read_results, Manifest};
use crate::record::RunResult;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What was merged, for the command's closing lines.
#[derive(Debug)]
pub struct Merged {
    pub runs: usize,
    /// host -> the shards it ran
    pub hosts: BTreeMap<String, Vec<String>>,
}

/// Copies the runs of every directory in `dirs` into `out` (its `runs/`
/// and a `matrix.json` without the shard) after the checks above.
pub fn merge(out: &Path, dirs: &[PathBuf], allow_mixed: bool) -> Result<Merged> {
    if dirs.len() < 2 {
        bail!("report merge needs at least two results directories");
    }
    let parts = dirs
        .iter()
        .map(|d| read_part(d))
        .collect::<Result<Vec<_>>>()?;
    refuse_mixed(&parts, allow_mixed)?;
    let first = &parts[0].1;
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut hosts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut runs = 0;
    for (dir, m, results) in &parts {
        for r in results {
            let key = r.key.to_string();
            if let Some(other) = seen.insert(key.clone(), dir.clone()) {
                bail!(
                    "run {key} is in {} and in {}: shards of one matrix hold disjoint cells",
                    other.display(),
                    dir.display()
                );
            }
            let shard = m.shard.clone().unwrap_or_else(|| "whole".into());
            let shards = hosts.entry(r.host.hostname.clone()).or_default();
            if !shards.contains(&shard) {
                shards.push(shard);
            }
        }
        runs += results.len();
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    for (dir, _, results) in &parts {
        for r in results {
            r.write(out)?;
            // the folded stacks a run names go with it
            let Some(pass) = r.outcome.as_ref().and_then(|o| o.profile.as_ref()) else {
                continue;
            };
            for profiler in crate::record::Profiler::ALL {
                let Some(name) = pass.folded(profiler) else {
                    continue;
                };
                let from = super::profiles::inside(dir, name)?;
                let to = super::profiles::inside(out, name)?;
                let text = std::fs::read(&from)
                    .with_context(|| format!("{}: cannot read {}", r.key, from.display()))?;
                crate::util::write_atomic(&to, &text)?;
            }
        }
    }
    let mut manifest = first.clone();
    manifest.shard = None;
    // a setting one shard's command line allowed warns in the merged report
    manifest.allowed_settings = parts
        .iter()
        .flat_map(|(_, m, _)| m.allowed_settings.iter().cloned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    manifest.write(out)?;
    Ok(Merged { runs, hosts })
}

/// One shard's directory: its runs and its manifest.
fn read_part(d: &Path) -> Result<Part> {
    let results = read_results(d)?;
    if results.is_empty() {
        bail!("{}: no run results under runs/", d.display());
    }
    let text = std::fs::read_to_string(d.join(super::manifest::FILE)).with_context(|| {
        format!(
            "{}: no {} (a matrix run writes it; results of an older tool cannot be merged)",
            d.display(),
            super::manifest::FILE
        )
    })?;
    let manifest: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: bad {}", d.display(), super::manifest::FILE))?;
    Ok((d.to_path_buf(), manifest, results))
}

/// A results directory of one shard, its manifest and its runs.
type Part = (PathBuf, Manifest, Vec<RunResult>);

/// Refuses parts of other matrices or tool revisions than the first's,
/// unless `allow_mixed`.
fn refuse_mixed(parts: &[Part], allow_mixed: bool) -> Result<()> {
    let (first_dir, first, _) = &parts[0];
    for (dir, m, results) in parts {
        let same_matrix = m.name == first.name && m.matrix_sha256 == first.matrix_sha256;
        if !same_matrix && !allow_mixed {
            bail!(
                "{} holds results of matrix `{}` (sha256 {}), {} of `{}` (sha256 {}): \
                 refused (--allow-mixed merges them anyway)",
                dir.display(),
                m.name,
                m.matrix_sha256.as_deref().unwrap_or("unknown"),
                first_dir.display(),
                first.name,
                first.matrix_sha256.as_deref().unwrap_or("unknown")
            );
        }
        let first_rev = &parts[0].2[0].tool_revision;
        if let Some(r) = results.iter().find(|r| &r.tool_revision != first_rev) {
            if !allow_mixed {
                bail!(
                    "{}: run {} was made by tool revision {}, {} by {}: refused \
                     (--allow-mixed merges them anyway)",
                    dir.display(),
                    r.key,
                    r.tool_revision,
                    first_dir.display(),
                    first_rev
                );
            }
        }
    }
    Ok(())
}
