//! Reports: pure functions of a results directory (its `runs/` and
//! `matrix.json`). `write` produces `report.md`, `report.jira` (the same
//! blocks in Jira wiki markup), `summary.json` and the SVG charts; a
//! matrix run calls it at its end and `cargo xtask report DIR` at will.

pub mod answers;
pub mod bisect;
pub mod charts;
mod comparison_table;
pub use comparison_table::{INTERVALS, RUNS_ESTIMATE};
pub mod cost;
pub mod doc;
pub mod figures;
pub mod jira_parts;
pub mod model_replay;
pub mod relative;
pub mod repro;
mod reproduction;
mod results_table;
pub mod scan;
mod series_style;
pub mod stacks;
pub mod summary;
pub mod ticket;
pub mod trace_stays;
mod words;

use crate::decide::analysis::{self, Analysis, LEVEL};
use crate::decide::verdict::{self, Verdict};
use crate::dims::Metric;
use crate::record::RunResult;
use crate::results::manifest::Reported;
use crate::results::{self, Manifest};
use crate::util::write_atomic;
use anyhow::{bail, Context, Result};
use doc::Block;
use std::path::Path;

pub use summary::{summarize, Medians, SummaryRow};
pub use words::num;
use words::plural;

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
    remove_stale_outputs(out, &files)?;
    write_pngs(out, &files)
}

/// The PNG rendering of every chart written, which report.jira shows. The
/// charts are the SVGs beside the report; the flame graphs under
/// `profiles/` are for a browser (their frames say more on hover) and
/// Jira only lists them.
fn write_pngs(out: &Path, written: &[(String, String)]) -> Result<()> {
    let charts = written
        .iter()
        .filter(|(n, _)| n.ends_with(".svg") && !n.contains('/'));
    for (name, _) in charts {
        crate::charts::png::render(&out.join(name))?;
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
    let stacks = results::profiles::read(dir, &results)?;
    let a = Analysis::new(manifest, &results)
        .reported_by(Reported::read(dir).map(|r| r.tool_revision))
        .with_stacks(stacks);
    let beside = ticket::Beside::read(dir)?;
    render(&a, &beside)
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

/// Every report file of an analysis: (file name, contents). What the
/// report's directory holds beside the runs (`beside`: the NOTES' cause,
/// the reproductions without this tool) goes into the report as well.
pub fn render(a: &Analysis, beside: &ticket::Beside) -> Result<Vec<(String, String)>> {
    let verdicts = verdicts(a);
    let charts = charts::draw(a)?;
    // the stacks' rows once: the report, the summary and stacks.md use them
    let stack_rows = stacks::rows(a);
    let blocks = blocks(a, &verdicts, &charts, &stack_rows, beside);
    let mut files = vec![("report.md".to_string(), doc::markdown(&blocks))];
    files.extend(jira_files("report", &blocks));
    let attached = doc::attached_files(&blocks);
    if let Some((twice, _)) = attached
        .iter()
        .find(|(n, _)| attached.iter().filter(|(m, _)| m == n).count() > 1)
    {
        bail!("two attachments of the report are named {twice}: a tree's and a variant's names run together");
    }
    files.extend(attached);
    files.push((
        "summary.json".to_string(),
        serde_json::to_string_pretty(&summary::summary(a, &verdicts, &stack_rows))? + "\n",
    ));
    files.extend(charts.into_iter().map(|c| (c.file, c.svg)));
    if !stack_rows.is_empty() {
        let detail = stacks::detail(&a.manifest.name, &stack_rows);
        files.push(("stacks.md".into(), doc::markdown(&detail)));
        files.extend(jira_files("stacks", &detail));
        files.extend(stacks::flame_graphs(a, &stack_rows)?);
    }
    Ok(files)
}

/// The Jira comments of `blocks` as files: `stem.jira`, and `stem-2.jira`
/// and on where one comment cannot hold them (`jira_parts::jira_comments`).
pub(crate) fn jira_files(stem: &str, blocks: &[Block]) -> Vec<(String, String)> {
    let parts = jira_parts::jira_comments(blocks, jira_parts::JIRA_COMMENT_LIMIT);
    jira_parts::jira_part_names(stem, parts.len())
        .into_iter()
        .zip(parts)
        .collect()
}

/// Removes what an earlier rendering left in `out` and this one did not
/// write: a chart no longer drawn (an `*.svg` beside the report) and the
/// Jira parts of a longer report (`report-2.jira`, `stacks-3.jira`, …), so
/// that neither an old chart nor a comment of an older report is taken
/// for this one's. The mtr report's `write` calls it too.
pub(crate) fn remove_stale_outputs(out: &Path, written: &[(String, String)]) -> Result<()> {
    // every attachment is an output: one no longer written goes
    if let Ok(entries) = std::fs::read_dir(out.join(doc::ATTACHMENTS)) {
        for entry in entries {
            let path = entry?.path();
            let name = format!(
                "{}/{}",
                doc::ATTACHMENTS,
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            if path.is_file() && !written.iter().any(|(w, _)| *w == name) {
                std::fs::remove_file(&path)
                    .with_context(|| format!("removing the stale attachment {}", path.display()))?;
            }
        }
    }
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_jira_part = ["report-", "stacks-"].iter().any(|stem| {
            name.strip_prefix(stem)
                .and_then(|rest| rest.strip_suffix(".jira"))
                .is_some_and(|k| k.parse::<usize>().is_ok())
        });
        let is_output = is_jira_part || name.ends_with(".svg") || name.ends_with(".png");
        // a PNG stays while its chart is written (`write_pngs` renders it)
        let kept = written.iter().any(|(w, _)| {
            *w == name || (w.ends_with(".svg") && crate::charts::png::png_name(w) == name)
        });
        if is_output && !kept {
            let path = out.join(&name);
            std::fs::remove_file(&path)
                .with_context(|| format!("removing the stale report file {}", path.display()))?;
        }
    }
    Ok(())
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

/// The report's content, once for every text format.
fn blocks(
    a: &Analysis,
    verdicts: &[Verdict],
    charts: &[charts::Chart],
    stack_rows: &[stacks::StackRow],
    beside: &ticket::Beside,
) -> Vec<Block> {
    let mut b = front_matter(a);
    hosts(a, &mut b);
    answers::section(a, verdicts, &mut b);
    b.extend(beside.cause_blocks());
    results_table::section(a, &mut b);
    b.extend(scan::blocks(&scan::rows(a), &a.manifest.published));
    comparison_table::section(a, &mut b);
    b.extend(relative::blocks(&relative::rows(a)));
    b.extend(cost::blocks(
        &cost::rows(a),
        &cost::shifts(a),
        cost::listed_functions(a),
    ));
    b.extend(model_replay::blocks(&model_replay::rows(a)));
    b.extend(trace_stays::blocks(&trace_stays::rows(a)));
    b.extend(stacks::pointer(stack_rows));
    busy_host(a, &mut b);
    chart_images(charts, &mut b);
    reproduction::blocks(a, &mut b);
    b.extend(beside.reproduction_blocks());
    not_measured(a, &mut b);
    failures(a, &mut b);
    b
}

/// The title, the description, a warning for options allowed on the
/// command line, and the facts of the runs (host, revisions, counts, the
/// rules of a change).
fn front_matter(a: &Analysis) -> Vec<Block> {
    let m = &a.manifest;
    let first = &a.results[0];
    let mut b = vec![Block::Heading(1, format!("innodb-lab report: {}", m.name))];
    if !m.description.is_empty() {
        b.push(Block::Para(m.description.clone()));
    }
    let (counted, busy, failed) = a.counts();
    if !m.allowed_settings.is_empty() {
        b.push(Block::Para(format!(
            "**Warning**: these runs set options the tool refuses in a matrix file, allowed on the \
             command line (`--allow-setting`): {}. Such an option may name a file, a directory, a \
             library or a peer outside the run directory.",
            m.allowed_settings
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
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
             and significant (exact two-sided p < {}: signed-rank in pairs, else Mann-Whitney); a no-slower question passes only \
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
    b
}

/// The runs flagged busy and left out of every median.
fn busy_host(a: &Analysis, b: &mut Vec<Block>) {
    let m = &a.manifest;
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
}

fn chart_images(charts: &[charts::Chart], b: &mut Vec<Block>) {
    if !charts.is_empty() {
        b.push(Block::Heading(2, "Charts".into()));
        for c in charts {
            b.push(Block::Image {
                file: c.file.clone(),
                alt: c.title.clone(),
                caption: c.caption.clone(),
            });
        }
    }
}

/// Metrics a run could not measure: absent from the tables (n/a), and why.
fn not_measured(a: &Analysis, b: &mut Vec<Block>) {
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
}

/// Each failed run: the step, the message and the error log's tail.
fn failures(a: &Analysis, b: &mut Vec<Block>) {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use words::p_words;

    #[test]
    fn a_rendering_removes_the_charts_and_jira_parts_it_no_longer_writes() {
        let out = tempfile::tempdir().unwrap();
        for name in [
            "qps.svg",
            "qps-change.svg",
            "report-2.jira",
            "report.jira",
            "NOTES.md",
        ] {
            std::fs::write(out.path().join(name), "x").unwrap();
        }
        std::fs::create_dir(out.path().join("profiles")).unwrap();
        std::fs::write(out.path().join("profiles/a.svg"), "x").unwrap();
        let written = ["qps-change.svg", "report.jira"].map(|n| (n.to_string(), String::new()));
        remove_stale_outputs(out.path(), &written).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(out.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["NOTES.md", "profiles", "qps-change.svg", "report.jira"]
        );
        assert!(out.path().join("profiles/a.svg").exists());
    }

    #[test]
    fn a_small_p_keeps_two_significant_digits() {
        assert_eq!(p_words(Some(1.0 / 6188.0 * 1.0)), "0.00016");
        assert_eq!(p_words(Some(0.0079)), "0.008");
        assert_eq!(p_words(Some(0.312)), "0.312");
        assert_eq!(p_words(Some(0.0)), "0.000");
        assert_eq!(p_words(None), "n/a");
    }

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
}
