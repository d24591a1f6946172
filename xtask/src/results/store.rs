//! Result files: one JSON file per cell repetition under `<out>/runs`,
//! written atomically as soon as the cell ends, read back by reports,
//! `validate` and the resume check. Schema 2 carries the cell key and a
//! typed failure; schema 1 files (before thread counts and typed
//! failures) are read and converted on the way in.

use crate::record::CellKey;
use crate::record::Failure;
use crate::record::Workload;
use crate::record::{RunResult, SCHEMA_VERSION};
use crate::util::write_json;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

impl RunResult {
    /// Writes the result to its place under `out`, atomically.
    pub fn write(&self, out: &Path) -> Result<PathBuf> {
        let path = self.key.path(out);
        write_json(&path, self)?;
        Ok(path)
    }
}

/// Parses one result file of either schema.
pub fn parse(text: &str) -> Result<RunResult> {
    let mut value: serde_json::Value = serde_json::from_str(text)?;
    let version = value
        .get("schema_version")
        .and_then(|v| v.as_u64())
        .context("no schema_version")?;
    match version {
        1 => upgrade_v1(&mut value)?,
        2 => {}
        v => bail!("schema_version {v} is newer than this tool ({SCHEMA_VERSION})"),
    }
    Ok(serde_json::from_value(value)?)
}

/// Schema 1: no `threads` (it was the workload's only thread count), and
/// `ok`, `error` and `error_log_tail` instead of a typed failure.
fn upgrade_v1(v: &mut serde_json::Value) -> Result<()> {
    let obj = v.as_object_mut().context("not a JSON object")?;
    let threads = obj
        .get("workload_def")
        .and_then(|w| w.get("threads"))
        .and_then(|t| t.as_u64())
        .context("schema 1 result without workload_def.threads")?;
    obj.insert("threads".into(), threads.into());
    let ok = obj.remove("ok").and_then(|o| o.as_bool()).unwrap_or(false);
    let error = obj.remove("error");
    let tail = obj
        .remove("error_log_tail")
        .and_then(|t| t.as_str().map(str::to_string));
    let failure = (!ok).then(|| {
        Failure::from_v1(
            error.as_ref().and_then(|e| e.as_str()).unwrap_or("failed"),
            tail,
        )
    });
    obj.insert("failure".into(), serde_json::to_value(failure)?);
    obj.insert("schema_version".into(), SCHEMA_VERSION.into());
    Ok(())
}

/// Every result file under `<out>/runs`, of either schema, in key order.
pub fn read_results(out: &Path) -> Result<Vec<RunResult>> {
    let files = json_files(&out.join("runs"));
    let mut results = files
        .iter()
        .map(|f| {
            let text =
                fs::read_to_string(f).with_context(|| format!("cannot read {}", f.display()))?;
            parse(&text).with_context(|| format!("{} is not a run result", f.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    results.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(results)
}

/// The result already written for `key`, if any.
pub fn previous(out: &Path, key: &CellKey) -> Option<RunResult> {
    parse(&fs::read_to_string(key.path(out)).ok()?).ok()
}

/// What a cell would be run with now: the provenance an earlier result
/// must have to stand for it (the resume check). Not the matrix file or
/// the tool revision, so that a grown matrix, `--until-decided` and a
/// resumed run reuse what is done.
pub struct Inputs<'a> {
    /// the tree's commit id (a packaged server's binary sha256)
    pub tree_id: Option<&'a str>,
    pub workload: &'a Workload,
    pub build_key: Option<&'a str>,
    pub settings: &'a BTreeMap<String, String>,
    /// the my.cnf lines the server would get (Mark's scaled to this host,
    /// then the variant's settings)
    pub my_cnf: Option<&'a [(String, String)]>,
}

/// What an earlier result of a cell says of it now.
#[derive(Debug, PartialEq, Eq)]
pub enum Previous {
    /// made from the same inputs: the cell is done
    Done,
    /// a failure, or no result: run it
    Run,
    /// a success made from other inputs: the named field differs
    Differs(&'static str),
}

impl Inputs<'_> {
    pub fn compare(&self, prev: &RunResult) -> Previous {
        if !prev.ok() {
            return Previous::Run;
        }
        let field = if prev.tree_info.as_ref().map(|t| t.id.as_str()) != self.tree_id {
            Some("tree id")
        } else if prev.build.as_ref().map(|b| b.key_hash.as_str()) != self.build_key {
            Some("build key")
        } else if &prev.workload_def != self.workload {
            Some("workload parameters")
        } else if &prev.variant_settings != self.settings {
            Some("variant settings")
        } else if prev.my_cnf.as_ref().map(|c| c.settings.as_slice()) != self.my_cnf {
            Some("my.cnf")
        } else {
            None
        };
        match field {
            Some(f) => Previous::Differs(f),
            None => Previous::Done,
        }
    }

    pub fn done_by(&self, prev: &RunResult) -> bool {
        self.compare(prev) == Previous::Done
    }
}

/// Every JSON file under `dir`, at any depth (none when `dir` is missing
/// or unreadable).
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, into: &mut Vec<PathBuf>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, into);
            } else if p.extension().is_some_and(|x| x == "json") {
                into.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dims::Step;
    use crate::util::repo_root;

    #[test]
    fn schema_1_reports_in_the_repository_still_read() {
        // the smoke report's schema-1 runs are kept as a test fixture
        for dir in ["xtask/tests/fixtures/smoke-10.11.18", "reports/series"] {
            let results = read_results(&repo_root().join(dir)).unwrap();
            assert!(results.len() >= 9, "{dir}: {}", results.len());
            for r in &results {
                assert_eq!(r.schema_version, SCHEMA_VERSION);
                assert_eq!(vec![r.key.threads], r.workload_def.thread_counts());
                assert!(r.ok(), "{dir}: {}", r.key);
                assert!(r.measured().is_some());
            }
        }
    }

    /// A run result of the smoke fixture.
    fn fixture_result() -> RunResult {
        let text = fs::read_to_string(repo_root().join(
            "xtask/tests/fixtures/smoke-10.11.18/runs/10.11.18/gate/points-covered-pk/rep1.json",
        ))
        .unwrap();
        parse(&text).unwrap()
    }

    #[test]
    fn a_run_file_torn_anywhere_in_its_first_kilobyte_is_refused_by_name_and_run_again() {
        let dir = tempfile::tempdir().unwrap();
        let r = fixture_result();
        let path = r.write(dir.path()).unwrap();
        let whole = fs::read(&path).unwrap();
        for cut in 0..1024.min(whole.len()) {
            fs::write(&path, &whole[..cut]).unwrap();
            // the resume check takes it for no result: the cell runs again
            assert!(previous(dir.path(), &r.key).is_none(), "cut at {cut}");
            // reading the results names it instead of dropping it
            let err = format!("{:#}", read_results(dir.path()).unwrap_err());
            assert!(
                err.contains(&path.display().to_string()),
                "cut at {cut}: {err}"
            );
        }
        fs::write(&path, &whole).unwrap();
        assert_eq!(previous(dir.path(), &r.key).unwrap().key, r.key);
    }

    #[test]
    fn a_written_result_reads_back_and_a_failure_keeps_its_tail() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = fixture_result();
        r.key.repetition = 7;
        r.failure = Some(Failure {
            step: Step::Diagnostic,
            message: "sysbench died".into(),
            error_log_tail: Some("[ERROR] x".into()),
        });
        let path = r.write(dir.path()).unwrap();
        assert!(path.ends_with("runs/10.11.18/gate/points-covered-pk/threads-2/rep7.json"));
        let back = previous(dir.path(), &r.key).unwrap();
        assert_eq!(back.key, r.key);
        assert_eq!(back.failure, r.failure);
        let inputs = Inputs {
            tree_id: r.tree_info.as_ref().map(|t| t.id.as_str()),
            workload: &r.workload_def,
            build_key: r.build.as_ref().map(|b| b.key_hash.as_str()),
            settings: &r.variant_settings,
            my_cnf: r.my_cnf.as_ref().map(|c| c.settings.as_slice()),
        };
        assert_eq!(
            inputs.compare(&back),
            Previous::Run,
            "a failure is never done"
        );
        r.failure = None;
        r.write(dir.path()).unwrap();
        let back = previous(dir.path(), &r.key).unwrap();
        assert!(inputs.done_by(&back));
        let other = BTreeMap::from([("innodb_old_blocks_time".to_string(), "1".to_string())]);
        let changed = Inputs {
            settings: &other,
            ..inputs
        };
        assert_eq!(
            changed.compare(&back),
            Previous::Differs("variant settings")
        );
        let another_tree = Inputs {
            tree_id: Some("0000000000000000000000000000000000000000"),
            ..inputs
        };
        assert_eq!(another_tree.compare(&back), Previous::Differs("tree id"));
        let cnf = vec![("innodb_buffer_pool_size".to_string(), "1G".to_string())];
        let another_cnf = Inputs {
            my_cnf: Some(&cnf),
            ..inputs
        };
        assert_eq!(another_cnf.compare(&back), Previous::Differs("my.cnf"));
        assert!(parse("{\"schema_version\": 9}")
            .unwrap_err()
            .to_string()
            .contains("newer"));
    }
}
