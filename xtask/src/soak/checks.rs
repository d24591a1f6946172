//! What a soak checks once its matrix has completed: the results are what
//! a run without faults would have left, and nothing of the soak is left
//! running or lying on /dev/shm.

use super::faults::started_since;
use crate::matrix::{plan::Plan, Matrix};
use crate::record::CellKey;
use crate::report::summary::Summary;
use crate::results;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every problem found, each one line; empty when the soak held.
pub fn problems(matrix: &Matrix, out: &Path, soak_started: u64, shm: &Path) -> Vec<String> {
    let mut found = results_problems(matrix, out);
    found.extend(nothing_left_running(soak_started));
    found.extend(no_run_directory_left(matrix, shm));
    found
}

/// What is wrong with a completed matrix's results directory, each one
/// line; empty when it holds what a run without faults leaves: every file
/// parses, one successful result per planned cell and none other, and a
/// summary with every planned cell and question. (The write-failure test
/// checks its runs with this too.)
pub fn results_problems(matrix: &Matrix, out: &Path) -> Vec<String> {
    let mut found = every_file_parses(out);
    found.extend(one_result_per_planned_cell(matrix, out));
    found.extend(summary_has_the_plan(matrix, out));
    found
}

/// Every JSON file under the results directory parses, and every run file
/// reads as a run result (a torn write would not).
fn every_file_parses(out: &Path) -> Vec<String> {
    let files = results::store::json_files(out);
    let mut found: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).ok()?;
            serde_json::from_str::<serde_json::Value>(&text)
                .err()
                .map(|e| format!("{} does not parse: {e}", f.display()))
        })
        .collect();
    if let Err(e) = results::read_results(out) {
        found.push(format!("the run files do not read back: {e:#}"));
    }
    found
}

/// Each planned cell has exactly one result, a successful one, and no
/// result stands for a cell the plan does not make.
fn one_result_per_planned_cell(matrix: &Matrix, out: &Path) -> Vec<String> {
    let planned: BTreeSet<CellKey> = Plan::of(matrix).keys(matrix).into_iter().collect();
    let Ok(results) = results::read_results(out) else {
        return Vec::new(); // said by every_file_parses
    };
    let mut seen: BTreeMap<&CellKey, usize> = BTreeMap::new();
    let mut found = Vec::new();
    for r in &results {
        *seen.entry(&r.key).or_default() += 1;
        if let Some(f) = &r.failure {
            found.push(format!("{}: failed ({f})", r.key));
        }
        if !planned.contains(&r.key) {
            found.push(format!(
                "{}: a result for a cell the plan does not make",
                r.key
            ));
        }
    }
    for (key, n) in &seen {
        if *n > 1 {
            found.push(format!("{key}: {n} results"));
        }
    }
    for key in &planned {
        if !seen.contains_key(key) {
            found.push(format!("{key}: no result"));
        }
    }
    found
}

/// `summary.json` has a row for every planned cell with all its
/// repetitions and none failed, and a verdict for every question.
fn summary_has_the_plan(matrix: &Matrix, out: &Path) -> Vec<String> {
    let file = out.join("summary.json");
    let summary: Summary = match std::fs::read_to_string(&file)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => return vec![format!("{}: {e}", file.display())],
    };
    let plan = Plan::of(matrix);
    let planned: BTreeSet<(String, String, String, u32)> = plan
        .keys(matrix)
        .into_iter()
        .map(|k| (k.tree, k.variant, k.workload, k.threads))
        .collect();
    let mut found = Vec::new();
    let mut rows = BTreeSet::new();
    for r in &summary.rows {
        let cell = (
            r.tree.clone(),
            r.variant.clone(),
            r.workload.clone(),
            r.threads,
        );
        let runs = r.runs + r.busy_runs;
        if runs != plan.repetitions as usize || r.failed > 0 {
            found.push(format!(
                "summary.json: {} {} {} ({}t) has {runs} runs and {} failed, where {} ran",
                r.tree, r.variant, r.workload, r.threads, r.failed, plan.repetitions
            ));
        }
        rows.insert(cell);
    }
    if rows != planned {
        found.push(format!(
            "summary.json's cells are not the plan's: missing {:?}, extra {:?}",
            planned.difference(&rows).collect::<Vec<_>>(),
            rows.difference(&planned).collect::<Vec<_>>()
        ));
    }
    let asked: BTreeSet<&str> = matrix.questions.iter().map(|q| q.name.as_str()).collect();
    let answered: BTreeSet<&str> = summary.verdicts.iter().map(|v| v.question()).collect();
    if asked != answered {
        found.push(format!(
            "summary.json answers {answered:?}, the matrix asks {asked:?}"
        ));
    }
    found
}

/// No server, sysbench or gdb started since the soak began is alive.
fn nothing_left_running(soak_started: u64) -> Vec<String> {
    crate::dims::Engine::ALL
        .map(|e| e.server_binary())
        .into_iter()
        .chain(["sysbench", "gdb"])
        .flat_map(|comm| {
            started_since(comm, soak_started)
                .into_iter()
                .map(move |pid| format!("process {pid} ({comm}) still runs"))
        })
        .collect()
}

/// No run directory of the matrix's servers is left under the run root.
fn no_run_directory_left(matrix: &Matrix, shm: &Path) -> Vec<String> {
    let plan = Plan::of(matrix);
    let names: BTreeSet<String> = plan
        .units
        .iter()
        .flat_map(|u| {
            let tree = crate::matrix::plan::tree_label(&matrix.trees[u.tree]);
            let label = crate::matrix::plan::run_label(&u.variant, u.again);
            (1..=plan.repetitions).flat_map(move |rep| {
                let workloads: Vec<Option<&str>> = if matrix.fresh_server {
                    matrix
                        .workloads
                        .iter()
                        .map(|w| Some(w.name.as_str()))
                        .collect()
                } else {
                    vec![None]
                };
                let (tree, label) = (tree.clone(), label.clone());
                workloads
                    .into_iter()
                    .map(move |w| crate::matrix::plan::server_name(&tree, &label, rep, w))
            })
        })
        .collect();
    let Ok(entries) = std::fs::read_dir(shm) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let server = crate::server::RunDir::server_of(&name)?;
            names
                .contains(server)
                .then(|| format!("run directory {} left", e.path().display()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::TreeEntry;
    use crate::record::Workload;

    fn matrix() -> Matrix {
        let mut m = Matrix::new(
            "soak-unit",
            vec![TreeEntry {
                spec: "debian:mariadb=1:10.11.18-0+deb12u1".parse().unwrap(),
                name: Some("10.11.18".into()),
                variants: vec!["base".into(), "gate".into()],
            }],
            vec![Workload::new("points-covered-pk")],
        );
        m.repetitions = 2;
        m
    }

    #[test]
    fn a_torn_file_is_named_and_a_missing_cell_is_said() {
        let out = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(out.path().join("runs")).unwrap();
        std::fs::write(out.path().join("matrix.json"), "{\"name\": \"soak-un").unwrap();
        let found = every_file_parses(out.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("matrix.json does not parse"), "{found:?}");
        // no run file at all: every planned cell is missing, and only those
        let found = one_result_per_planned_cell(&matrix(), out.path());
        assert_eq!(found.len(), 4, "{found:?}");
        assert!(
            found.iter().all(|f| f.ends_with(": no result")),
            "{found:?}"
        );
        assert!(
            found[0].starts_with("10.11.18 base points-covered-pk"),
            "{found:?}"
        );
        let found = summary_has_the_plan(&matrix(), out.path());
        assert!(found[0].contains("summary.json"), "{found:?}");
    }

    #[test]
    fn only_the_matrixs_own_run_directories_count_as_left() {
        let shm = tempfile::tempdir().unwrap();
        for name in [
            "10.11.18-gate-rep2-4711-1a",
            "10.11.18-other-rep1-5-0",
            "mtr-slots",
        ] {
            std::fs::create_dir(shm.path().join(name)).unwrap();
        }
        let found = no_run_directory_left(&matrix(), shm.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("10.11.18-gate-rep2-4711-1a"), "{found:?}");
    }
}
