//! What a results directory was made for: the matrix's name, its trees,
//! variants and workloads in the matrix's order, its control, bounds and
//! questions. Written by the runner as `matrix.json` next to `runs/`, so
//! that reports are functions of the directory alone; derived from the
//! runs for directories written before it existed.

use super::published::Published;
use super::question::Question;
use crate::dims::baseline_first;
use crate::record::RunResult;
use crate::util::write_json;
use anyhow::Result;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FILE: &str = "matrix.json";

/// The default threshold: a change of QPS counts only beyond 5%.
pub const DEFAULT_THRESHOLD_PCT: f64 = 5.0;
/// The default busy-host bound, in cores used by other processes.
pub const DEFAULT_BUSY_CPU_BOUND: f64 = 0.25;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// tree labels in the matrix's order
    pub trees: Vec<String>,
    /// variant labels in the matrix's order, each tree's baseline first,
    /// the control's second run right after its first
    pub variants: Vec<String>,
    pub workloads: Vec<String>,
    pub repetitions: u32,
    /// the variant run twice (its second run is `<control>-again`)
    pub control: Option<String>,
    pub threshold_pct: f64,
    pub busy_cpu_bound: f64,
    /// `--until-decided N` of the run, if given
    pub until_decided: Option<u32>,
    pub questions: Vec<Question>,
    /// figures published elsewhere for its cells (the matrix file's
    /// `[[published]]`)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<Published>,
    /// the matrix file the run was started with
    #[serde(default)]
    pub file: Option<String>,
    /// sha256 of that file's bytes: merged shards must come from one matrix
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matrix_sha256: Option<String>,
    /// `K/N` when the run was one shard of the matrix (`--shard`)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// settings the tool refuses in a matrix file that the command line
    /// allowed (`--allow-setting`): every report warns of them
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_settings: Vec<String>,
}

/// Which tool last wrote a directory's reports: `report::write` records
/// its own revision here, so that a report rendered again by a later tool
/// (`cargo xtask report`) from runs of an earlier one says both.
pub const REPORTED_FILE: &str = "reported.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reported {
    pub tool_revision: String,
}

impl Reported {
    pub fn read(dir: &Path) -> Option<Reported> {
        crate::util::read_json_if_any(&dir.join(REPORTED_FILE))
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join(REPORTED_FILE), self)
    }
}

impl Manifest {
    /// For a directory without `matrix.json`: names in first-seen order
    /// (results come sorted by key), baselines first, default bounds and
    /// no questions.
    pub fn derive(results: &[RunResult]) -> Manifest {
        let mut m = Manifest {
            name: results
                .first()
                .map(|r| r.matrix.clone())
                .unwrap_or_default(),
            description: String::new(),
            trees: Vec::new(),
            variants: Vec::new(),
            workloads: Vec::new(),
            repetitions: results.iter().map(|r| r.key.repetition).max().unwrap_or(0),
            control: None,
            threshold_pct: DEFAULT_THRESHOLD_PCT,
            busy_cpu_bound: DEFAULT_BUSY_CPU_BOUND,
            until_decided: None,
            questions: Vec::new(),
            published: Vec::new(),
            file: None,
            matrix_sha256: None,
            shard: None,
            allowed_settings: Vec::new(),
        };
        for r in results {
            push_new(&mut m.trees, &r.key.tree);
            push_new(&mut m.variants, &r.key.variant);
            push_new(&mut m.workloads, &r.key.workload);
        }
        baseline_first(&mut m.variants);
        m
    }

    /// `matrix.json` of `dir`, else derived from its results.
    pub fn read_or_derive(dir: &Path, results: &[RunResult]) -> Result<Manifest> {
        Ok(Manifest::read(dir)?.unwrap_or_else(|| Manifest::derive(results)))
    }

    /// `dir`'s `matrix.json`, if it has one; one that cannot be read or
    /// parsed is an error naming it.
    pub fn read(dir: &Path) -> Result<Option<Manifest>> {
        crate::util::read_json_if_present(&dir.join(FILE))
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        write_json(&dir.join(FILE), self)
    }

    /// Position of a label in its list, unknown labels last (in name order
    /// among themselves, by the caller's stable sort).
    pub fn tree_rank(&self, tree: &str) -> usize {
        rank(&self.trees, tree)
    }
    pub fn variant_rank(&self, variant: &str) -> usize {
        rank(&self.variants, variant)
    }
    pub fn workload_rank(&self, workload: &str) -> usize {
        rank(&self.workloads, workload)
    }
}

fn rank(list: &[String], x: &str) -> usize {
    list.iter().position(|y| y == x).unwrap_or(list.len())
}

fn push_new(v: &mut Vec<String>, x: &str) {
    if !v.iter().any(|y| y == x) {
        v.push(x.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ordered(names: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        baseline_first(&mut v);
        v
    }

    #[test]
    fn a_matrix_json_torn_anywhere_in_its_first_kilobyte_is_refused_by_name() {
        let report = crate::util::repo_root().join("reports/smoke-10.11.18");
        let whole = Manifest::read(&report)
            .unwrap()
            .expect("the smoke report's matrix.json");
        let dir = tempfile::tempdir().unwrap();
        whole.write(dir.path()).unwrap();
        let path = dir.path().join(FILE);
        let bytes = std::fs::read(&path).unwrap();
        // every cut short of the closing brace (the last byte is the newline)
        for cut in 0..1024.min(bytes.len() - 1) {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let err = format!("{:#}", Manifest::read(dir.path()).unwrap_err());
            assert!(
                err.contains(&path.display().to_string()),
                "cut at {cut}: {err}"
            );
            // torn, it is refused, not replaced by what the results alone
            // would give
            assert!(
                Manifest::read_or_derive(dir.path(), &[]).is_err(),
                "cut at {cut}"
            );
        }
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), Some(whole));
    }

    #[test]
    fn the_baseline_comes_first_and_the_others_keep_the_matrix_order() {
        // our fixed patch on a tree that also runs base: a candidate
        assert_eq!(
            ordered(&["gate", "clock", "base", "fixed"]),
            ["base", "gate", "clock", "fixed"]
        );
        // a tree that carries the fix labels its base `fixed`
        assert_eq!(
            ordered(&["workaround", "fixed", "fixed-again"]),
            ["fixed", "workaround", "fixed-again"]
        );
    }
}
