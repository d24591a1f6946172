//! Reports: pure functions from run results to `summary.json` rows and a
//! Markdown report shaped like the Testing table of the MDEV-37992 post.

use crate::host::Host;
use crate::results::{self, Cell, RunResult};
use crate::stats::{self, Comparison, Spread};
use crate::util::{write_atomic, write_json};
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Medians over the successful runs of a cell; a metric no run measured
/// is null, never 0.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Medians {
    pub qps: Option<f64>,
    pub p95_ms: Option<f64>,
    pub pages_made_young_per_query: Option<f64>,
    pub pages_made_not_young_per_query: Option<f64>,
    pub read_requests_per_query: Option<f64>,
    pub cs_per_query: Option<f64>,
    pub cpu_ms_per_query: Option<f64>,
    /// from the diagnostic pass (instrument on); null without one
    pub buf_pool_mutex_per_query: Option<f64>,
    pub buf_pool_mutex_wait_us_per_query: Option<f64>,
}

/// One object of `summary.json`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SummaryRow {
    pub tree: String,
    pub variant: String,
    pub workload: String,
    pub threads: u32,
    /// successful runs
    pub runs: usize,
    pub failed: usize,
    pub median: Option<Medians>,
    pub qps: Option<Spread>,
    /// QPS against the same tree's base, same workload
    pub qps_vs_base: Option<Comparison>,
    pub total_queries: u64,
    pub total_pages_made_young: u64,
    pub build_key: Option<String>,
    pub patch_sha256: Option<String>,
}

fn median_of(values: impl Iterator<Item = f64>) -> Option<f64> {
    let v: Vec<f64> = values.collect();
    stats::spread(&v).map(|s| s.median)
}

/// Groups results by (tree, variant, workload): base first within a tree,
/// then the other variants in first-seen order.
pub fn summarize(results: &[RunResult]) -> Vec<SummaryRow> {
    let mut keys: Vec<Cell> = Vec::new();
    let mut groups: BTreeMap<Cell, Vec<&RunResult>> = BTreeMap::new();
    for r in results {
        let key = r.key.cell();
        if !groups.contains_key(&key) {
            keys.push(key.clone());
        }
        groups.entry(key).or_default().push(r);
    }
    let trees: Vec<String> = keys
        .iter()
        .map(|k| k.tree.clone())
        .fold(Vec::new(), |mut v, t| {
            if !v.contains(&t) {
                v.push(t);
            }
            v
        });
    // stable: the other variants keep their order
    keys.sort_by_key(|k| {
        (
            trees.iter().position(|t| *t == k.tree),
            k.variant != "base" && k.variant != "fixed",
        )
    });
    let qps_of = |runs: &[&RunResult]| -> Vec<f64> {
        runs.iter()
            .filter_map(|r| r.outcome.as_ref()?.measured.as_ref())
            .map(|m| m.sysbench.qps)
            .collect()
    };
    keys.iter()
        .map(|key| {
            let runs = &groups[key];
            let ok: Vec<&RunResult> = runs.iter().copied().filter(|r| r.ok()).collect();
            let measured: Vec<_> = ok
                .iter()
                .filter_map(|r| r.outcome.as_ref()?.measured.as_ref())
                .collect();
            let diagnostic: Vec<_> = ok
                .iter()
                .filter_map(|r| r.outcome.as_ref()?.diagnostic.as_ref())
                .collect();
            let median = (!measured.is_empty()).then(|| Medians {
                qps: median_of(measured.iter().map(|m| m.sysbench.qps)),
                p95_ms: median_of(measured.iter().map(|m| m.sysbench.p95_ms)),
                pages_made_young_per_query: median_of(
                    measured.iter().map(|m| m.pages_made_young_per_query),
                ),
                pages_made_not_young_per_query: median_of(
                    measured.iter().map(|m| m.pages_made_not_young_per_query),
                ),
                read_requests_per_query: median_of(
                    measured.iter().map(|m| m.read_requests_per_query),
                ),
                cs_per_query: median_of(measured.iter().map(|m| m.cs_per_query)),
                cpu_ms_per_query: median_of(measured.iter().map(|m| m.cpu_ms_per_query)),
                buf_pool_mutex_per_query: median_of(
                    diagnostic
                        .iter()
                        .filter_map(|d| d.measured.buf_pool_mutex_per_query),
                ),
                buf_pool_mutex_wait_us_per_query: median_of(
                    diagnostic
                        .iter()
                        .filter_map(|d| d.measured.buf_pool_mutex_wait_us_per_query),
                ),
            });
            let base_key = key.with_variant("base");
            let qps = qps_of(&ok);
            let qps_vs_base = match groups.get(&base_key) {
                Some(base) if key.variant != "base" => {
                    let base_ok: Vec<&RunResult> =
                        base.iter().copied().filter(|r| r.ok()).collect();
                    stats::compare(&qps_of(&base_ok), &qps)
                }
                _ => None,
            };
            let build = ok.first().or(runs.first()).and_then(|r| r.build.as_ref());
            SummaryRow {
                tree: key.tree.clone(),
                variant: key.variant.clone(),
                workload: key.workload.clone(),
                threads: key.threads,
                runs: ok.len(),
                failed: runs.len() - ok.len(),
                median,
                qps: stats::spread(&qps),
                qps_vs_base,
                total_queries: measured.iter().map(|m| m.sysbench.queries).sum(),
                total_pages_made_young: measured.iter().map(|m| m.pages_made_young).sum(),
                build_key: build.map(|b| b.key_hash.clone()),
                patch_sha256: build.and_then(|b| b.patch.as_ref().map(|p| p.sha256.clone())),
            }
        })
        .collect()
}

/// Rewrites `summary.json` and `report.md` in `out` from every result
/// under `out/runs` (this invocation's and earlier ones').
pub fn write(out: &Path) -> Result<()> {
    let results = results::read_results(out)?;
    let Some(first) = results.first() else {
        bail!("no run results under {}", out.join("runs").display());
    };
    let summary = summarize(&results);
    write_json(&out.join("summary.json"), &summary)?;
    let md = markdown(
        &first.matrix,
        &first.host,
        &first.tool_revision,
        &summary,
        &results,
    );
    write_atomic(&out.join("report.md"), md.as_bytes())
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "n/a".into())
}

/// The Markdown report: what produced the numbers, the table, the
/// comparison with base, and every failure with its error-log tail.
pub fn markdown(
    matrix: &str,
    host: &Host,
    revision: &str,
    summary: &[SummaryRow],
    results: &[RunResult],
) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# innodb-lab report: {matrix}\n");
    let _ = writeln!(md, "- host: `{}` ({})", host.hostname, host.label());
    let _ = writeln!(md, "- innodb-lab revision: `{revision}`");
    let mut workloads_seen: Vec<&str> = Vec::new();
    for r in results.iter().filter(|r| r.ok()) {
        let w = &r.workload_def;
        if workloads_seen.contains(&w.name.as_str()) {
            continue;
        }
        workloads_seen.push(&w.name);
        let _ = writeln!(
            md,
            "- workload `{}`: {} tables x {} rows, {} threads, {} ids per IN-list; arming {} s of \
             oltp_read_write with innodb_max_dirty_pages_pct(_lwm)=1, warm-up {} s (not measured), \
             measured {} s, diagnostic pass {} s",
            w.name,
            w.tables,
            w.table_size,
            w.threads,
            w.random_points,
            w.arm_seconds,
            w.warmup_seconds,
            w.measure_seconds,
            w.diagnostic_seconds
        );
    }
    // What produced each tree's numbers: the tree, each variant's build or
    // settings, and the my.cnf scaling (which depends on the series).
    let mut trees_seen: Vec<&str> = Vec::new();
    for r in results {
        let Some(t) = &r.tree_info else { continue };
        if trees_seen.contains(&r.key.tree.as_str()) {
            continue;
        }
        trees_seen.push(&r.key.tree);
        let _ = writeln!(
            md,
            "\n### Tree `{}`: {} `{}`\n",
            r.key.tree, t.version, t.spec
        );
        let _ = writeln!(md, "- id: `{}`", t.id);
        let mut variants_seen: Vec<&str> = Vec::new();
        let tree_runs = || results.iter().filter(|v| v.key.tree == r.key.tree);
        for v in tree_runs() {
            if variants_seen.contains(&v.key.variant.as_str()) {
                continue;
            }
            variants_seen.push(&v.key.variant);
            let mut what = Vec::new();
            if let Some(b) = &v.build {
                what.push(format!("build `{}`", b.key_hash));
                if let Some(p) = &b.patch {
                    what.push(format!(
                        "patch `{}` (sha256 `{}`)",
                        p.file.display(),
                        &p.sha256[..16]
                    ));
                }
                if let Some(c) = &b.cherry_pick {
                    what.push(format!(
                        "cherry-picked {} from {}",
                        c.commits.join(", "),
                        c.remote
                    ));
                }
            } else if t.package.is_some() {
                what.push("packaged binary".to_string());
            }
            for (k, val) in &v.variant_settings {
                what.push(format!("`{k}={val}`"));
            }
            let _ = writeln!(md, "- variant `{}`: {}", v.key.variant, what.join("; "));
        }
        if let Some(b) = tree_runs().find_map(|v| v.build.as_ref()) {
            let _ = writeln!(
                md,
                "- cmake: `{}`; compiler: {}",
                b.key.cmake_options.join(" "),
                b.key.compiler
            );
        }
        if let Some(cnf) = tree_runs().find_map(|v| v.my_cnf.as_ref()) {
            let _ = writeln!(
                md,
                "- my.cnf: Mark Callaghan's z12 settings for series {}, scaled to this host:",
                t.series
            );
            for s in &cnf.scaled {
                let _ = writeln!(
                    md,
                    "  - `{}` = {} (Mark: {}): {}",
                    s.name, s.here, s.mark, s.why
                );
            }
        }
    }
    let _ = writeln!(md, "\n## Results (median of the successful runs)\n");
    let _ = writeln!(
        md,
        "| tree | variant | workload | runs | QPS | QPS min-max | p95 (ms) | pages made young / query | \
         made not young / query | cs / query | CPU ms / query | buf_pool.mutex / query | mutex wait µs / query |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for row in summary {
        let runs = if row.failed > 0 {
            format!("{} (+{} failed)", row.runs, row.failed)
        } else {
            row.runs.to_string()
        };
        match &row.median {
            Some(m) => {
                let range = row
                    .qps
                    .map(|s| format!("{:.0}-{:.0}", s.min, s.max))
                    .unwrap_or_default();
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    row.tree,
                    row.variant,
                    row.workload,
                    runs,
                    opt(m.qps, 0),
                    range,
                    opt(m.p95_ms, 2),
                    opt(m.pages_made_young_per_query, 4),
                    opt(m.pages_made_not_young_per_query, 3),
                    opt(m.cs_per_query, 2),
                    opt(m.cpu_ms_per_query, 3),
                    opt(m.buf_pool_mutex_per_query, 2),
                    opt(m.buf_pool_mutex_wait_us_per_query, 2),
                );
            }
            None => {
                let _ = writeln!(
                    md,
                    "| {} | {} | {} | {} | failed | | | | | | | | |",
                    row.tree, row.variant, row.workload, runs
                );
            }
        }
    }
    let _ = writeln!(
        md,
        "\nPages made young, context switches and CPU are counter deltas over the measured interval only \
         (the warm-up is not counted). buf_pool.mutex acquisitions and wait time come from a separate \
         diagnostic pass with the performance_schema instrument `wait/synch/mutex/innodb/buf_pool_mutex` \
         enabled, because timing that instrument slows the hot path; its QPS is not reported."
    );
    let compared: Vec<&SummaryRow> = summary.iter().filter(|r| r.qps_vs_base.is_some()).collect();
    if !compared.is_empty() {
        let _ = writeln!(md, "\n## QPS against base (two-sided Mann-Whitney U)\n");
        let _ = writeln!(
            md,
            "| tree | variant | workload | change of median | p | smallest possible p | verdict |"
        );
        let _ = writeln!(md, "|---|---|---|---|---|---|---|");
        for row in compared {
            let c = row.qps_vs_base.as_ref().unwrap();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:+.1}% | {} | {:.3} | {:?} |",
                row.tree,
                row.variant,
                row.workload,
                c.change_pct,
                opt(c.p_value, 3),
                c.min_possible_p,
                c.verdict
            );
        }
        let _ = writeln!(
            md,
            "\nA verdict other than NotShown needs p < {}. When the smallest possible p is above that, \
             these repetitions cannot show a difference in throughput whatever the numbers: add repetitions.",
            stats::ALPHA
        );
    }
    let failures: Vec<(&RunResult, &results::Failure)> = results
        .iter()
        .filter_map(|r| Some((r, r.failure.as_ref()?)))
        .collect();
    if !failures.is_empty() {
        let _ = writeln!(md, "\n## Failures\n");
        for (r, f) in failures {
            let _ = writeln!(
                md,
                "### {}: failed in {}\n\n```\n{}\n```\n",
                r.key, f.step, f.message
            );
            if let Some(tail) = &f.error_log_tail {
                let _ = writeln!(md, "error log tail:\n\n```\n{tail}\n```\n");
            }
        }
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{Measured, SysbenchReport};
    use crate::workload::{Outcome, Workload};

    fn result(variant: &str, rep: u32, qps: f64, young_per_query: f64, ok: bool) -> RunResult {
        let measured = Measured {
            sysbench: SysbenchReport {
                qps,
                queries: 1000,
                p95_ms: 1.0,
                ..Default::default()
            },
            pages_made_young: (young_per_query * 1000.0) as u64,
            pages_made_young_per_query: young_per_query,
            ..Default::default()
        };
        RunResult {
            schema_version: results::SCHEMA_VERSION,
            matrix: "m".into(),
            key: results::CellKey::new("10.11.18", variant, "points-covered-pk", 2, rep),
            failure: (!ok).then(|| results::Failure {
                step: results::Step::Measured,
                message: "mariadbd died".into(),
                error_log_tail: Some("[ERROR] InnoDB: boom".into()),
            }),
            tree_info: None,
            build: None,
            variant_settings: Default::default(),
            my_cnf: None,
            my_cnf_text: None,
            workload_def: Workload::new("points-covered-pk"),
            host: Host {
                hostname: "h".into(),
                cores: 2,
                memory_bytes: 1,
                kernel: "k".into(),
                cpu_model: "c".into(),
            },
            tool_revision: "r".into(),
            started_unix: 0,
            wall_seconds: 0.0,
            data_phases: Vec::new(),
            outcome: ok.then(|| Outcome {
                measured: Some(measured),
                ..Default::default()
            }),
            clean_shutdown: Some(ok),
        }
    }

    #[test]
    fn summary_takes_medians_and_counts_failures() {
        let results = vec![
            result("gate", 1, 210.0, 0.0, true),
            result("base", 1, 100.0, 30.0, true),
            result("base", 2, 300.0, 32.0, true),
            result("base", 3, 200.0, 31.0, true),
            result("gate", 2, 0.0, 0.0, false),
        ];
        let s = summarize(&results);
        assert_eq!(s.len(), 2);
        let base = &s[0];
        assert_eq!(
            (base.variant.as_str(), base.runs, base.failed),
            ("base", 3, 0)
        );
        let m = base.median.as_ref().unwrap();
        assert_eq!(
            (m.qps, m.pages_made_young_per_query),
            (Some(200.0), Some(31.0))
        );
        assert!(base.qps_vs_base.is_none());
        let gate = &s[1];
        assert_eq!((gate.runs, gate.failed), (1, 1));
        assert!((gate.qps_vs_base.as_ref().unwrap().change_pct - 5.0).abs() < 1e-9);
        // summary.json keys the issue names
        let json = serde_json::to_value(&s).unwrap();
        for key in [
            "qps",
            "p95_ms",
            "pages_made_young_per_query",
            "cs_per_query",
            "buf_pool_mutex_per_query",
        ] {
            assert!(json[0]["median"].get(key).is_some(), "missing median.{key}");
        }
    }

    #[test]
    fn markdown_has_the_table_and_the_failure_tail() {
        let results = vec![
            result("base", 1, 100.0, 30.0, true),
            result("gate", 1, 0.0, 0.0, false),
        ];
        let host = Host {
            hostname: "box".into(),
            cores: 2,
            memory_bytes: 1 << 30,
            kernel: "6.1".into(),
            cpu_model: "cpu".into(),
        };
        let md = markdown("smoke", &host, "abc", &summarize(&results), &results);
        assert!(
            md.contains("| 10.11.18 | base | points-covered-pk | 1 | 100 |"),
            "{md}"
        );
        assert!(
            md.contains("| 10.11.18 | gate | points-covered-pk | 0 (+1 failed) | failed |"),
            "{md}"
        );
        assert!(md.contains("[ERROR] InnoDB: boom") && md.contains("host: `box`"));
    }
}
