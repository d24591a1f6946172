//! Reports: pure functions of a results directory (its `runs/` and
//! `matrix.json`). `write` produces `report.md`, `report.jira` (the same
//! blocks in Jira wiki markup), `summary.json` and the SVG charts; a
//! matrix run calls it at its end and `cargo xtask report DIR` at will.

pub mod analysis;
pub mod charts;
pub mod doc;
pub mod relative;
pub mod scan;
pub mod summary;
pub mod verdict;

use crate::dims::{Metric, METRICS};
use crate::record::RunResult;
use crate::results::manifest::Reported;
use crate::results::{self, Manifest};
use crate::util::write_atomic;
use analysis::{Analysis, CellRuns, LEVEL};
use anyhow::{bail, Result};
use doc::Block;
use std::path::Path;
use verdict::Verdict;

pub use summary::{summarize, Medians, SummaryRow};

/// Rewrites every report file in `out` from the results under `out/runs`
/// (this invocation's and earlier ones').
/// The revision of this tool is recorded first (`reported.json`), so the
/// report says which tool rendered it from which tool's runs.
pub fn write(out: &Path) -> Result<()> {
    Reported {
        tool_revision: crate::provenance::tool_revision(),
    }
    .write(out)?;
    let files = render_dir(out)?;
    for (name, text) in &files {
        write_atomic(&out.join(name), text.as_bytes())?;
    }
    Ok(())
}

/// Every report file of the results directory `dir`, as `write` would
/// write them: a function of `runs/`, `matrix.json` and `reported.json`.
pub fn render_dir(dir: &Path) -> Result<Vec<(String, String)>> {
    let results = results::read_results(dir)?;
    if results.is_empty() {
        bail!("no run results under {}", dir.join("runs").display());
    }
    let manifest = Manifest::read_or_derive(dir, &results)?;
    let a =
        Analysis::new(manifest, &results).reported_by(Reported::read(dir).map(|r| r.tool_revision));
    render(&a)
}

/// Which tool made the runs and, when another one rendered this report
/// from them, which.
fn revision_fact(a: &Analysis) -> String {
    revision_words(&a.run_revisions(), a.reported_by.as_deref())
}

fn revision_words(runs: &[String], reported_by: Option<&str>) -> String {
    let quoted: Vec<String> = runs.iter().map(|r| format!("`{r}`")).collect();
    let mut s = match reported_by {
        Some(by) if runs.iter().any(|r| r != by) => format!(
            "innodb-lab revision: runs made by {}; this report rendered again from those runs by `{by}` (`cargo xtask report`)",
            quoted.join(", ")
        ),
        _ => format!("innodb-lab revision: {}", quoted.join(", ")),
    };
    if runs.iter().any(|r| r.ends_with("+dirty")) {
        s.push_str(
            "; `+dirty`: the runs were made from a checkout with local changes, which no commit \
             reproduces exactly",
        );
    }
    s
}

/// Every report file of an analysis: (file name, contents).
pub fn render(a: &Analysis) -> Result<Vec<(String, String)>> {
    let verdicts = verdicts(a);
    let charts = charts::draw(a)?;
    let blocks = blocks(a, &verdicts, &charts);
    let mut files = vec![
        ("report.md".to_string(), doc::markdown(&blocks)),
        ("report.jira".to_string(), doc::jira(&blocks)),
        (
            "summary.json".to_string(),
            serde_json::to_string_pretty(&summary::summary(a, &verdicts))? + "\n",
        ),
    ];
    files.extend(charts.into_iter().map(|c| (c.file, c.svg)));
    Ok(files)
}

pub fn verdicts(a: &Analysis) -> Vec<Verdict> {
    a.manifest
        .questions
        .iter()
        .map(|q| verdict::evaluate(a, q))
        .collect()
}

/// Which host ran which comparison groups, when more than one did (merged
/// shards): comparisons stay within one host.
fn hosts(a: &Analysis, b: &mut Vec<Block>) {
    type Builds = std::collections::BTreeMap<String, crate::record::CcacheUse>;
    let mut by_host: std::collections::BTreeMap<String, (Vec<String>, Builds)> = Default::default();
    for c in &a.cells {
        for r in c.all() {
            let group = format!("{} {}t", c.cell.workload, c.cell.threads);
            let (groups, builds) = by_host.entry(r.host.hostname.clone()).or_default();
            if !groups.contains(&group) {
                groups.push(group);
            }
            // the builds this host compiled (not found made)
            if let Some(b) = r.build.as_ref().filter(|b| !b.reused) {
                builds.insert(b.key_hash.clone(), b.ccache.clone());
            }
        }
    }
    if by_host.len() < 2 {
        return;
    }
    b.push(Block::Heading(2, "Hosts".into()));
    b.push(Block::Para(
        "These results were run on several hosts (shards of the matrix, merged with `report \
         merge`). Each comparison group (a workload at a thread count, every variant) ran on \
         one host; runs of different hosts are never compared."
            .into(),
    ));
    let ccache = |builds: &Builds| {
        if builds.is_empty() {
            return "none (all found made)".to_string();
        }
        let (hits, misses, remote) = builds.values().fold((0, 0, None), |acc, u| {
            let remote = match (acc.2, u.remote_hits) {
                (None, r) => r,
                (Some(x), r) => Some(x + r.unwrap_or(0)),
            };
            (acc.0 + u.hits, acc.1 + u.misses, remote)
        });
        let rate = 100.0 * hits as f64 / (hits + misses).max(1) as f64;
        format!(
            "{}: ccache {hits} hits, {misses} misses ({rate:.1}%){}",
            builds.len(),
            remote
                .map(|r| format!(", {r} from the remote storage"))
                .unwrap_or_default()
        )
    };
    b.push(Block::Table {
        header: ["host", "groups", "builds made here"]
            .map(String::from)
            .to_vec(),
        rows: by_host
            .into_iter()
            .map(|(h, (g, builds))| vec![format!("`{h}`"), g.join(", "), ccache(&builds)])
            .collect(),
    });
}

/// What a host of `cores` can show: on a few cores the contention on
/// buf_pool.mutex that MDEV-33966 removes stays small, so QPS changes are
/// bounded by noise and the counters are the evidence.
fn small_host_note(cores: usize) -> String {
    if cores < 8 {
        format!(
            "on {cores} cores the buf_pool.mutex contention the fix removes is small: pages made \
             young and mutex acquisitions per query show the mechanism exactly, QPS differences \
             of a few percent can be run-to-run noise (up to 20% between consecutive runs on the \
             2-core hosts this tool was built on), and a throughput gain from the fix needs a \
             many-core host"
        )
    } else {
        format!(
            "{cores} cores: throughput comparisons can show buf_pool.mutex contention when \
             the workload keeps them busy"
        )
    }
}

/// How the interval of a change is made, for the paragraph under every
/// table that prints one.
pub const INTERVALS: &str = "The interval of the change is, with fewer than 8 runs a side, the \
     Hodges-Lehmann interval of the ratio (the n*m ratios of a run of the variant to a run of the \
     baseline, sorted, cut where the exact Mann-Whitney distribution puts the smallest coverage at \
     or above 95%; exact when the variant's runs are the baseline's scaled by a factor), and its \
     coverage is printed: 97.1% for 4 runs against 4, below 95% (and deciding nothing) where the \
     runs cannot reach it, as 3 against 3 (90%); from 8 runs a side a percentile bootstrap of the \
     ratio of medians (2000 resamples, fixed seed), at its nominal 95%.";

/// How the runs a decision would take are estimated, said wherever an
/// estimate is printed.
pub const RUNS_ESTIMATE: &str = "\"About N runs a side would decide it\" is an estimate: \
     if the change and the spread of these runs (the pooled standard deviation of the logs of the \
     values) were the true ones, N runs a side would give a 95% interval that clears the boundary \
     (the allowed change for a question, no change for a comparison) 80% of the time, by the \
     normal approximation widened for the Hodges-Lehmann interval's efficiency (3/pi); a change \
     within the threshold or the noise floor is decided once the exact test can be significant \
     (4 runs a side).";

/// The noise floor column: the control's own row shows the floor it
/// measures; the others the floor they are held against.
fn noise_floor_cell(c: &analysis::Comparison) -> String {
    if c.control {
        return c
            .change_pct
            .map(|x| format!("measured here: {:.1}%", x.abs()))
            .unwrap_or_else(|| "n/a".into());
    }
    c.noise_floor_pct
        .map(|n| format!("{n:.1}%"))
        .unwrap_or_else(|| "not measured".into())
}

/// A number for a table: n/a when not measured.
pub fn num(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "n/a".into())
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The report's content, once for every text format.
fn blocks(a: &Analysis, verdicts: &[Verdict], charts: &[charts::Chart]) -> Vec<Block> {
    let m = &a.manifest;
    let first = &a.results[0];
    let mut b = vec![Block::Heading(1, format!("innodb-lab report: {}", m.name))];
    if !m.description.is_empty() {
        b.push(Block::Para(m.description.clone()));
    }
    let (counted, busy, failed) = a.counts();
    let mut facts = vec![
        format!("host: `{}` ({})", first.host.hostname, first.host.label()),
        small_host_note(first.host.cores),
        revision_fact(a),
        format!(
            "{} counted, {} flagged busy and left out, {} failed; {} planned per cell{}",
            plural(counted, "run", "runs"),
            busy,
            failed,
            plural(m.repetitions as usize, "repetition", "repetitions"),
            m.until_decided
                .map(|n| format!(", undecided cells repeated up to {n} times (`--until-decided {n}`)"))
                .unwrap_or_default()
        ),
        format!(
            "a change counts when beyond ±{}%, beyond the noise floor where a control measured one, \
             and significant (exact two-sided Mann-Whitney p < {}); a no-slower question passes only \
             when a {} interval of the change lies above the allowed change (non-inferiority; the \
             noise floor plays no part), fails when it lies below it, and is undecided otherwise; \
             every interval says its method and its coverage",
            m.threshold_pct,
            analysis::ALPHA,
            crate::stats::percent(LEVEL)
        ),
    ];
    if m.until_decided.is_some() {
        let repeated: Vec<String> = a
            .cells
            .iter()
            .filter(|c| c.all().count() > m.repetitions as usize)
            .map(|c| format!("{}: {} runs", c.cell, c.all().count()))
            .collect();
        facts.push(if repeated.is_empty() {
            "no cell needed more than the planned repetitions".to_string()
        } else {
            format!("repeated until decided: {}", repeated.join("; "))
        });
    }
    if let Some(c) = &m.control {
        facts.push(format!(
            "control: `{c}` runs twice per repetition (`{c}` and `{c}{}`, one build); the change between \
             the two is the noise floor of each workload",
            crate::dims::CONTROL_SUFFIX
        ));
    }
    b.push(Block::Bullets(facts));
    hosts(a, &mut b);

    if !verdicts.is_empty() {
        b.push(Block::Heading(2, "Answers".into()));
        b.push(Block::Bullets(
            verdicts
                .iter()
                .map(|v| {
                    format!(
                        "**{}** by {}: {} ({})",
                        v.verdict.word(),
                        verdict::rule_name(&v.rule),
                        v.question,
                        v.details.join("; ")
                    )
                })
                .collect(),
        ));
        let mut rules: Vec<&str> = verdicts.iter().map(|v| v.rule.as_str()).collect();
        rules.dedup();
        rules.sort_unstable();
        rules.dedup();
        // the estimate is explained under the comparisons when they follow
        b.push(Block::Para(format!(
            "Rules: {}.{}",
            rules.join("; "),
            if a.comparisons.is_empty() {
                format!(" {RUNS_ESTIMATE}")
            } else {
                " How the runs a decision would take are estimated: under \"QPS against the \
                 baseline\"."
                    .to_string()
            }
        )));
    }

    b.push(Block::Heading(
        2,
        "Results (median of the counted runs)".into(),
    ));
    b.push(results_table(a));
    b.push(Block::Para(
        "Pages made young, context switches and CPU are counter deltas over the measured interval only \
         (the warm-up is not counted); CPU and context switches are the server process's (all its \
         threads), not sysbench's. The QPS interval of the median is a pair of order statistics with \
         the smallest exact coverage at or above 95%; with fewer than 6 runs no pair reaches 95%, so it \
         is the range, min-max, with the coverage it has (75% for 3 runs, 87.5% for 4, 93.8% for 5). \
         buf_pool.mutex acquisitions and wait time come from a separate \
         diagnostic pass with the performance_schema instrument `wait/synch/mutex/innodb/buf_pool_mutex` \
         enabled, because timing that instrument slows the hot path; its QPS is not reported. \
         n/a: not measured."
            .into(),
    ));
    b.extend(scan::blocks(&scan::rows(a)));

    if !a.comparisons.is_empty() {
        b.push(Block::Heading(2, "QPS against the baseline".into()));
        let rows = a
            .comparisons
            .iter()
            .map(|(cell, c)| {
                vec![
                    cell.tree.clone(),
                    cell.workload.clone(),
                    cell.threads.to_string(),
                    cell.variant.clone(),
                    c.against.clone(),
                    format!("{} vs {}", c.runs, c.base_runs),
                    c.change_pct
                        .map(|x| format!("{x:+.1}%"))
                        .unwrap_or_else(|| "n/a".into()),
                    c.ratio_interval
                        .map(|i| analysis::change_interval_words(&i))
                        .unwrap_or_else(|| "n/a".into()),
                    num(c.p_value, 3),
                    num(c.min_possible_p, 3),
                    noise_floor_cell(c),
                    format!("{}: {}", c.verdict.words(), c.why),
                ]
            })
            .collect();
        b.push(Block::Table {
            header: [
                "tree",
                "workload",
                "threads",
                "variant",
                "against",
                "runs",
                "change of median",
                "interval of the change (method, coverage)",
                "p",
                "smallest possible p",
                "noise floor",
                "decision",
            ]
            .map(String::from)
            .to_vec(),
            rows,
        });
        b.push(Block::Para(format!(
            "Undecided means these runs cannot tell: with n runs against m the exact test cannot give p \
             below 2/C(n+m, n) (the smallest possible p), so a change can be shown only where that is \
             below {alpha}: never with 3 runs against 3 (0.100) or 3 against 4 (0.057), but with 3 \
             against 5 (0.036) or 4 against 4 (0.029); add repetitions or run with `--until-decided N`. \
             {INTERVALS} {RUNS_ESTIMATE}",
            alpha = analysis::ALPHA
        )));
    }

    b.extend(relative::blocks(&relative::rows(a)));

    let busy_runs: Vec<&RunResult> = a
        .cells
        .iter()
        .flat_map(|c| c.busy.iter().copied())
        .collect();
    if !busy_runs.is_empty() {
        b.push(Block::Heading(2, "Busy host".into()));
        b.push(Block::Para(format!(
            "{} used more than {} cores of CPU besides the server and sysbench during the measured \
             interval: flagged and left out of every median and comparison above.",
            plural(busy_runs.len(), "run", "runs"),
            m.busy_cpu_bound
        )));
        b.push(Block::Table {
            header: ["run", "other CPU (cores)", "QPS"]
                .map(String::from)
                .to_vec(),
            rows: busy_runs
                .iter()
                .map(|r| {
                    vec![
                        r.key.to_string(),
                        num(results::metric::other_cores_busy(r), 2),
                        num(Metric::Qps.of(r), 0),
                    ]
                })
                .collect(),
        });
    }

    if !charts.is_empty() {
        b.push(Block::Heading(2, "Charts".into()));
        for c in charts {
            b.push(Block::Image {
                file: c.file.clone(),
                alt: c.title.clone(),
            });
        }
    }

    reproduction(a, &mut b);

    // metrics a run could not measure: absent from the tables (n/a), and why
    let not_measured: Vec<String> = a
        .cells
        .iter()
        .flat_map(|c| c.counted.iter().chain(c.busy.iter()))
        .filter_map(|r| Some((r.key.to_string(), &r.outcome.as_ref()?.not_measured)))
        .flat_map(|(key, list)| {
            list.iter()
                .map(move |n| format!("{key}: {} not measured: {}", n.metric, n.reason))
        })
        .collect();
    if !not_measured.is_empty() {
        b.push(Block::Heading(2, "Not measured".into()));
        b.push(Block::Bullets(not_measured));
    }

    let failures: Vec<(&RunResult, &crate::record::Failure)> = a
        .cells
        .iter()
        .flat_map(|c| c.failed.iter())
        .filter_map(|r| Some((*r, r.failure.as_ref()?)))
        .collect();
    if !failures.is_empty() {
        b.push(Block::Heading(2, "Failures".into()));
        for (r, f) in failures {
            b.push(Block::Heading(
                3,
                format!("{}: failed in {}", r.key, f.step),
            ));
            b.push(Block::Pre(f.message.clone()));
            if let Some(tail) = &f.error_log_tail {
                b.push(Block::Para("error log tail:".into()));
                b.push(Block::Pre(tail.clone()));
            }
        }
    }
    b
}

fn results_table(a: &Analysis) -> Block {
    let rows = a
        .cells
        .iter()
        .map(|c: &CellRuns| {
            let mut runs = c.counted.len().to_string();
            if !c.busy.is_empty() {
                runs.push_str(&format!(" (+{} busy)", c.busy.len()));
            }
            if !c.failed.is_empty() {
                runs.push_str(&format!(" (+{} failed)", c.failed.len()));
            }
            let qps = c.values(Metric::Qps);
            let range = if qps.is_empty() {
                "n/a".to_string()
            } else {
                let (lo, hi) = qps
                    .iter()
                    .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
                format!("{lo:.0}-{hi:.0}")
            };
            // the order statistics of few runs cover less than the level asked for
            let interval = c
                .interval(Metric::Qps)
                .map(|i| {
                    format!(
                        "{:.0}-{:.0} ({})",
                        i.lo,
                        i.hi,
                        crate::stats::percent(i.coverage)
                    )
                })
                .unwrap_or_else(|| "n/a".into());
            vec![
                c.cell.tree.clone(),
                c.cell.workload.clone(),
                c.cell.threads.to_string(),
                c.cell.variant.clone(),
                runs,
                num(c.median(Metric::Qps), 0),
                interval,
                range,
            ]
            .into_iter()
            .chain(
                METRICS
                    .iter()
                    .filter_map(|i| Some((i.metric, i.column?.1)))
                    .map(|(m, decimals)| num(c.median(m), decimals)),
            )
            .collect()
        })
        .collect();
    Block::Table {
        header: [
            "tree",
            "workload",
            "threads",
            "variant",
            "runs",
            "QPS",
            "QPS interval of the median (order statistics, coverage)",
            "QPS min-max",
        ]
        .into_iter()
        .chain(METRICS.iter().filter_map(|i| Some(i.column?.0)))
        .map(String::from)
        .collect(),
        rows,
    }
}

/// What it takes to reproduce the numbers: trees, builds, patches, cmake
/// options, my.cnf, sysbench command lines, host and tool revision.
fn reproduction(a: &Analysis, b: &mut Vec<Block>) {
    let results = a.results;
    b.push(Block::Heading(2, "Reproduction".into()));
    let first = &results[0];
    b.push(Block::Bullets(vec![
        format!(
            "host: `{}`: {} cores, {} bytes of memory, {}, Linux {}",
            first.host.hostname,
            first.host.cores,
            first.host.memory_bytes,
            first.host.cpu_model,
            first.host.kernel
        ),
        format!("innodb-lab revision: `{}`", first.tool_revision),
        match &a.manifest.file {
            Some(f) => format!("command: `cargo xtask matrix {f}`"),
            None => format!(
                "command: `cargo xtask matrix` with the file of matrix `{}`",
                a.manifest.name
            ),
        },
    ]));
    // workloads, in the matrix's order
    let mut workloads = Vec::new();
    for name in &a.manifest.workloads {
        if let Some(r) = results.iter().find(|r| &r.key.workload == name) {
            let w = &r.workload_def;
            if w.kind()
                .is_ok_and(|k| k == crate::dims::WorkloadKind::ScanLoop)
            {
                workloads.push(format!(
                    "workload `{}` (scan-loop): hot table {} rows, scanned table {} rows, {} hot \
                     lookup thread(s) and {} scanning, {}; warm-up {} s, \
                     residency pass {} s sampled every {} s, measured {} s (not sampled)",
                    w.name,
                    w.hot_rows,
                    w.scan_rows,
                    w.threads,
                    w.scan_threads,
                    if w.hot_rate == 0 {
                        "events as fast as they go".to_string()
                    } else {
                        format!("at most {} events a second", w.hot_rate)
                    },
                    w.warmup_seconds,
                    w.residency_seconds,
                    w.sample_seconds,
                    w.measure_seconds
                ));
                continue;
            }
            workloads.push(format!(
                "workload `{}` ({}): {} tables x {} rows, threads {}, {} ids per IN-list, range size {}; \
                 arming {} s, warm-up {} s (not measured), measured {} s, diagnostic pass {} s",
                w.name,
                w.kind().map(|k| k.to_string()).unwrap_or_else(|_| "?".into()),
                w.tables,
                w.table_size,
                w.threads,
                w.random_points,
                w.range_size,
                w.arm_seconds,
                w.warmup_seconds,
                w.measure_seconds,
                w.diagnostic_seconds
            ));
        }
    }
    b.push(Block::Bullets(workloads));
    for tree in &a.manifest.trees {
        let tree_runs: Vec<&RunResult> = results.iter().filter(|r| &r.key.tree == tree).collect();
        let Some(t) = tree_runs.iter().find_map(|r| r.tree_info.as_ref()) else {
            continue;
        };
        b.push(Block::Heading(
            3,
            format!("Tree `{tree}`: {} `{}`", t.version, t.spec),
        ));
        let mut facts = vec![format!("id: `{}`", t.id)];
        for variant in &a.manifest.variants {
            let Some(v) = tree_runs.iter().find(|r| &r.key.variant == variant) else {
                continue;
            };
            let mut what = Vec::new();
            if let Some(build) = &v.build {
                what.push(format!("build `{}`", build.key_hash));
                if let Some(p) = &build.patch {
                    what.push(format!(
                        "patch `{}` (sha256 `{}`)",
                        p.file.display(),
                        p.sha256
                    ));
                }
                if let Some(c) = &build.cherry_pick {
                    what.push(format!(
                        "cherry-picked {} from {}",
                        c.commits.join(", "),
                        c.remote
                    ));
                }
            } else if matches!(t.kind(), crate::record::TreeKind::Packaged { .. }) {
                what.push("packaged binary".to_string());
            }
            for (k, val) in &v.variant_settings {
                what.push(format!("`{k}={val}`"));
            }
            facts.push(format!("variant `{variant}`: {}", what.join("; ")));
        }
        b.push(Block::Bullets(facts));
        if let Some(build) = tree_runs.iter().find_map(|r| r.build.as_ref()) {
            b.push(Block::Para(format!(
                "cmake options (compiler {}):",
                build.key.compiler
            )));
            b.push(Block::Pre(build.key.cmake_options.join(" \\\n  ")));
        }
        if let Some(cnf) = tree_runs.iter().find_map(|r| r.my_cnf.as_ref()) {
            // one item with the scaled settings nested under it
            let mut scaled = format!(
                "my.cnf: Mark Callaghan's z12 settings for series {}, scaled to this host:",
                t.series
            );
            for s in &cnf.scaled {
                scaled.push_str(&format!(
                    "\n- `{}` = {} (Mark: {}): {}",
                    s.name, s.here, s.mark, s.why
                ));
            }
            b.push(Block::Bullets(vec![scaled]));
        }
        // the first variant's my.cnf in full, then each other variant's
        // differences from it: a Jira comment has room for one file
        let mut first: Option<(String, String)> = None;
        for variant in &a.manifest.variants {
            let Some(text) = tree_runs
                .iter()
                .filter(|r| &r.key.variant == variant)
                .find_map(|r| r.my_cnf_text.as_deref())
            else {
                continue;
            };
            let text = strip_run_paths(text);
            match &first {
                None => {
                    b.push(Block::Para(format!(
                        "my.cnf of `{variant}` (run paths shown as <run>):"
                    )));
                    b.push(Block::Pre(text.clone()));
                    first = Some((variant.clone(), text));
                }
                Some((base, base_text)) => {
                    let changed = changed_lines(base_text, &text);
                    if changed.is_empty() {
                        b.push(Block::Para(format!(
                            "my.cnf of `{variant}`: the same as `{base}`'s."
                        )));
                    } else {
                        b.push(Block::Para(format!(
                            "my.cnf of `{variant}`: `{base}`'s with these lines changed (- `{base}`'s, + `{variant}`'s):"
                        )));
                        b.push(Block::Pre(changed.join("\n")));
                    }
                }
            }
        }
    }
    // sysbench command lines, one set per workload
    let mut commands = Vec::new();
    for name in &a.manifest.workloads {
        if let Some(o) = results
            .iter()
            .filter(|r| &r.key.workload == name)
            .find_map(|r| r.outcome.as_ref())
        {
            commands.extend(o.sysbench_commands.iter().map(|c| strip_run_paths(c)));
        }
    }
    if !commands.is_empty() {
        b.push(Block::Para(
            "sysbench command lines (a line with `--time={a,b,...}` stands for one run per value, in \
             that order):"
                .into(),
        ));
        b.push(Block::Pre(collapse_times(&commands).join("\n")));
    }
}

/// Commands that differ only in `--time=N` (a workload's warm-up,
/// measured run and diagnostic pass), as one line with `--time={a,b,c}`,
/// where the first of them stood.
fn collapse_times(commands: &[String]) -> Vec<String> {
    let split = |c: &str| -> Option<(String, String)> {
        let start = c.find("--time=")? + "--time=".len();
        let len = c[start..]
            .find(|ch: char| !ch.is_ascii_digit())
            .unwrap_or(c.len() - start);
        let key = format!("{}{{}}{}", &c[..start], &c[start + len..]);
        Some((key, c[start..start + len].to_string()))
    };
    let mut out: Vec<(Option<String>, Vec<String>, String)> = Vec::new();
    for c in commands {
        match split(c) {
            Some((key, time)) => match out.iter_mut().find(|(k, _, _)| k.as_ref() == Some(&key)) {
                Some((_, times, _)) => times.push(time),
                None => out.push((Some(key), vec![time], c.clone())),
            },
            None => out.push((None, Vec::new(), c.clone())),
        }
    }
    out.into_iter()
        .map(|(key, times, first)| match key {
            Some(k) if times.len() > 1 => k.replacen("{}", &format!("{{{}}}", times.join(",")), 1),
            _ => first,
        })
        .collect()
}

/// The lines of `other` that `base` lacks (`+ `) and those of `base`
/// that `other` lacks (`- `), each in its file's order, removals first:
/// a my.cnf is a list of settings, so which lines differ is what matters.
fn changed_lines(base: &str, other: &str) -> Vec<String> {
    let missing_from = |from: &str, of: &str| -> Vec<String> {
        let mut pool: Vec<&str> = from.lines().collect();
        of.lines()
            .filter(|line| match pool.iter().position(|p| p == line) {
                Some(i) => {
                    pool.remove(i);
                    false
                }
                None => true,
            })
            .map(String::from)
            .collect()
    };
    let removed = missing_from(other, base);
    let added = missing_from(base, other);
    removed
        .into_iter()
        .map(|l| format!("- {l}"))
        .chain(added.into_iter().map(|l| format!("+ {l}")))
        .collect()
}

/// Run directories (`/dev/shm/innodb-lab/<run>/`) differ between runs;
/// the rest of a my.cnf or command line does not.
fn strip_run_paths(text: &str) -> String {
    const SHM: &str = "/dev/shm/innodb-lab/";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(SHM) {
        out.push_str(&rest[..i]);
        out.push_str("<run>");
        let after = &rest[i + SHM.len()..];
        // the run directory's name ends at the next separator
        let end = after
            .find(|c: char| c == '/' || c.is_whitespace())
            .unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_says_which_tool_made_the_runs_and_which_rendered_them() {
        let runs = vec!["aaa".to_string()];
        assert_eq!(revision_words(&runs, None), "innodb-lab revision: `aaa`");
        assert_eq!(
            revision_words(&runs, Some("aaa")),
            "innodb-lab revision: `aaa`"
        );
        assert_eq!(
            revision_words(&runs, Some("bbb")),
            "innodb-lab revision: runs made by `aaa`; this report rendered again from those runs by `bbb` (`cargo xtask report`)"
        );
        let dirty = revision_words(&["ccc+dirty".to_string()], Some("bbb"));
        assert!(
            dirty.contains("runs made by `ccc+dirty`")
                && dirty.contains("checkout with local changes"),
            "{dirty}"
        );
    }

    #[test]
    fn commands_that_differ_in_their_time_only_are_one_line() {
        let c = |t: u32, script: &str| {
            format!("sysbench {script}.lua --threads=2 --time={t} --events=0 run")
        };
        let commands = [
            c(2, "a"),
            c(6, "a"),
            c(3, "a"),
            c(2, "b"),
            "sysbench b.lua prepare".into(),
        ];
        assert_eq!(
            collapse_times(&commands),
            [
                "sysbench a.lua --threads=2 --time={2,6,3} --events=0 run",
                "sysbench b.lua --threads=2 --time=2 --events=0 run",
                "sysbench b.lua prepare"
            ]
        );
    }

    #[test]
    fn a_variants_my_cnf_is_shown_by_its_changed_lines() {
        let base = "[mysqld]\ninnodb_buffer_pool_size=1G\nlc_messages_dir=/b/1/share\n";
        let other = "[mysqld]\ninnodb_buffer_pool_size=1G\ninnodb_old_blocks_time=1000\nlc_messages_dir=/b/2/share\n";
        assert_eq!(
            changed_lines(base, other),
            [
                "- lc_messages_dir=/b/1/share",
                "+ innodb_old_blocks_time=1000",
                "+ lc_messages_dir=/b/2/share"
            ]
        );
        assert!(changed_lines(base, base).is_empty());
        // a repeated line counts as often as it stands
        assert_eq!(changed_lines("a\na\n", "a\n"), ["- a"]);
    }
}
