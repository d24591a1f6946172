//! `cargo xtask validate BASELINE CANDIDATE`: is the candidate slower?
//! Each side is a results directory, optionally narrowed to a variant or
//! a tree (`DIR:variant`, `DIR:tree`, `DIR:tree/variant`), or a matrix file
//! with the same narrowing (`matrix/x.toml:gate`, meaning its results under
//! `results/<name>`). Every common (tree, workload, threads) is compared on
//! QPS, the table is printed either way, and the exit code answers:
//! 0 no regression, 1 a regression beyond the threshold, 2 undecided,
//! 3 error.

use crate::dims::Metric;
use crate::record::RunResult;
use crate::report::analysis::{self, Analysis, Comparison, Decision, NonInferiority};
use crate::report::doc::{self, Block};
use crate::report::num;
use crate::results::{self, Manifest};
use anyhow::{bail, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub const NO_REGRESSION: i32 = 0;
pub const REGRESSION: i32 = 1;
pub const UNDECIDED: i32 = 2;
pub const ERROR: i32 = 3;

/// One side as the user named it.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    pub dir: PathBuf,
    pub selector: Option<String>,
}

impl Side {
    pub fn parse(text: &str) -> Result<Side> {
        let (path, selector) = match text.rsplit_once(':') {
            Some((p, s)) if !s.is_empty() && (Path::new(p).is_dir() || p.ends_with(".toml")) => {
                (p, Some(s.to_string()))
            }
            _ => (text, None),
        };
        let dir = if path.ends_with(".toml") {
            let m = crate::matrix::load(Path::new(path))?;
            crate::util::repo_root().join("results").join(&m.name)
        } else {
            PathBuf::from(path)
        };
        if !dir.join("runs").is_dir() {
            bail!(
                "`{text}`: {} has no runs/ directory of results",
                dir.display()
            );
        }
        Ok(Side { dir, selector })
    }
}

/// A side's results and what the directory says about them.
struct Loaded {
    name: String,
    /// the results directory, canonical where it can be
    dir: PathBuf,
    manifest: Manifest,
    results: Vec<RunResult>,
}

fn load(text: &str) -> Result<Loaded> {
    let side = Side::parse(text)?;
    let all = results::read_results(&side.dir)?;
    let manifest = Manifest::read_or_derive(&side.dir, &all)?;
    let trees: BTreeSet<&str> = all.iter().map(|r| r.key.tree.as_str()).collect();
    let variants: BTreeSet<&str> = all.iter().map(|r| r.key.variant.as_str()).collect();
    let (tree, variant) = match side.selector.as_deref() {
        None => (None, None),
        Some(s) => match s.split_once('/') {
            Some((t, v)) => (Some(t), Some(v)),
            None if variants.contains(s) => (None, Some(s)),
            None if trees.contains(s) => (Some(s), None),
            None => bail!(
                "`{text}`: `{s}` is neither a variant ({}) nor a tree ({}) of {}",
                variants.iter().copied().collect::<Vec<_>>().join(", "),
                trees.iter().copied().collect::<Vec<_>>().join(", "),
                side.dir.display()
            ),
        },
    };
    let results: Vec<RunResult> = all
        .iter()
        .filter(|r| tree.is_none_or(|t| r.key.tree == t))
        .filter(|r| variant.is_none_or(|v| r.key.variant == v))
        .cloned()
        .collect();
    if results.is_empty() {
        bail!("`{text}`: no results match in {}", side.dir.display());
    }
    // one variant per tree: otherwise the side is ambiguous
    let mut per_tree: BTreeSet<(&str, &str)> = BTreeSet::new();
    for r in &results {
        per_tree.insert((&r.key.tree, &r.key.variant));
    }
    let mut seen = BTreeSet::new();
    for (t, _) in &per_tree {
        if !seen.insert(*t) {
            let vs: Vec<&str> = per_tree.iter().filter(|x| x.0 == *t).map(|x| x.1).collect();
            bail!(
                "`{text}`: tree `{t}` has several variants ({}); name one: {}:<variant>",
                vs.join(", "),
                side.dir.display()
            );
        }
    }
    Ok(Loaded {
        dir: side.dir.canonicalize().unwrap_or(side.dir.clone()),
        name: text.to_string(),
        manifest,
        results,
    })
}

/// One compared cell.
pub struct Row {
    pub tree: String,
    pub workload: String,
    pub threads: u32,
    pub comparison: Comparison,
    /// about how many repetitions would settle "no slower than
    /// -threshold" (`analysis::estimate_runs`: pairs or runs a side)
    pub runs_to_decide: Option<analysis::RunsEstimate>,
}

/// Compares and prints; returns the exit code.
pub fn run(baseline: &str, candidate: &str, threshold: Option<f64>) -> Result<i32> {
    let base = load(baseline)?;
    let cand = load(candidate)?;
    let threshold = threshold.unwrap_or(base.manifest.threshold_pct);
    if threshold.is_nan() || threshold < 0.0 {
        bail!("--threshold must be 0 or more (percent)");
    }
    let rows = compare(&base, &cand, threshold)?;
    print!("{}", table(&base.name, &cand.name, threshold, &rows));
    let code = exit_code(&rows, threshold);
    println!(
        "\n{}",
        match code {
            REGRESSION => "regression: the candidate is significantly slower beyond the threshold and the noise floor (exit 1)".to_string(),
            UNDECIDED => format!("undecided: not every cell's 95% interval of the change lies above -{threshold}% (exit 2)"),
            _ => format!("no regression: every cell's 95% interval of the change lies above -{threshold}% (exit 0)"),
        }
    );
    Ok(code)
}

/// 1 when a cell dropped significantly beyond the threshold and the
/// noise floor; else 0 when every cell's 95% interval of the change lies
/// above -threshold (non-inferiority, the rule of a no-slower question:
/// the noise floor plays no part); else 2.
pub fn exit_code(rows: &[Row], threshold: f64) -> i32 {
    if rows.iter().any(|r| r.comparison.verdict == Decision::Lower) {
        REGRESSION
    } else if rows
        .iter()
        .all(|r| no_slower(r, threshold).0 == NonInferiority::Shown)
    {
        NO_REGRESSION
    } else {
        UNDECIDED
    }
}

/// A row's non-inferiority at -threshold, with its words.
fn no_slower(r: &Row, threshold: f64) -> (NonInferiority, String) {
    r.comparison.non_inferiority(-threshold, true)
}

fn compare(base: &Loaded, cand: &Loaded, threshold: f64) -> Result<Vec<Row>> {
    let trees =
        |l: &Loaded| -> BTreeSet<String> { l.results.iter().map(|r| r.key.tree.clone()).collect() };
    let (bt, ct) = (trees(base), trees(cand));
    // same trees: compare tree by tree; one tree a side: across trees
    let across = bt != ct;
    if across && (bt.len() != 1 || ct.len() != 1) {
        bail!(
            "the sides have different trees ({} against {}): narrow each to one tree (DIR:tree or DIR:tree/variant)",
            bt.into_iter().collect::<Vec<_>>().join(", "),
            ct.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    let base_a = Analysis::new(base.manifest.clone(), &base.results);
    let cand_a = Analysis::new(cand.manifest.clone(), &cand.results);
    let mut rows = Vec::new();
    for c in &cand_a.cells {
        let Some(b) = base_a.cells.iter().find(|b| {
            b.cell.workload == c.cell.workload
                && b.cell.threads == c.cell.threads
                && (across || b.cell.tree == c.cell.tree)
        }) else {
            continue;
        };
        // the baseline directory's control, where it ran one
        let noise = base_a.noise_floor(&b.cell, Metric::Qps);
        let against = format!("{} {}", b.cell.tree, b.cell.variant);
        let (base_qps, cand_qps) = (b.values(Metric::Qps), c.values(Metric::Qps));
        // pairs only within one results directory, where the matrix
        // interleaved the two by repetition
        let pairs = (same_results(base, cand) && one_host(b, c))
            .then(|| analysis::pair_ratios_of(b, c, Metric::Qps))
            .flatten();
        rows.push(Row {
            runs_to_decide: analysis::estimate_runs(
                b,
                c,
                Metric::Qps,
                1.0 - threshold / 100.0,
                pairs.clone(),
            ),
            tree: if across {
                format!("{} → {}", b.cell.tree, c.cell.tree)
            } else {
                c.cell.tree.clone()
            },
            workload: c.cell.workload.clone(),
            threads: c.cell.threads,
            comparison: Comparison::with_pairs(
                &against,
                Metric::Qps,
                &base_qps,
                &cand_qps,
                pairs.as_deref(),
                noise,
                threshold,
            ),
        });
    }
    if rows.is_empty() {
        bail!(
            "no (tree, workload, threads) in common between {} and {}",
            base.name,
            cand.name
        );
    }
    Ok(rows)
}

/// Both sides read from one results directory.
fn same_results(base: &Loaded, cand: &Loaded) -> bool {
    base.dir == cand.dir
}

/// The counted runs of both cells come from one host, the same.
fn one_host(base: &analysis::CellRuns, cand: &analysis::CellRuns) -> bool {
    let hosts: BTreeSet<&str> = base
        .counted
        .iter()
        .chain(&cand.counted)
        .map(|r| r.host.hostname.as_str())
        .collect();
    hosts.len() == 1
}

fn table(base: &str, cand: &str, threshold: f64, rows: &[Row]) -> String {
    let blocks = vec![
        Block::Para(format!("QPS of `{cand}` against `{base}`; a regression (exit 1) is a significant drop of the median beyond {threshold}% (and beyond the baseline's noise floor where it measured one); no regression (exit 0) needs every cell's 95% interval of the change above -{threshold}% (non-inferiority: the noise floor plays no part); anything else is undecided (exit 2)")),
        Block::Table {
            header: ["tree", "workload", "threads", "runs", "baseline QPS", "candidate QPS", "change", "interval of the change (method, coverage)", "p", "smallest possible p", "change shown?", "no slower?"]
                .map(String::from)
                .to_vec(),
            rows: rows
                .iter()
                .map(|r| {
                    let c = &r.comparison;
                    vec![
                        r.tree.clone(),
                        r.workload.clone(),
                        r.threads.to_string(),
                        format!("{} vs {}", c.runs, c.base_runs),
                        num(c.base_median, 0),
                        num(c.median, 0),
                        c.change_pct.map(|x| format!("{x:+.1}%")).unwrap_or_else(|| "n/a".into()),
                        c.ratio_interval
                            .map(|i| analysis::change_interval_words(&i))
                            .unwrap_or_else(|| "n/a".into()),
                        num(c.p_value, 3),
                        num(c.min_possible_p, 3),
                        format!("{}: {}", c.verdict.words(), c.why),
                        {
                            let (shown, words) = no_slower(r, threshold);
                            let answer = match shown {
                                NonInferiority::Shown => "yes",
                                NonInferiority::Refuted => "no",
                                NonInferiority::Open => "undecided",
                            };
                            let estimate = match (shown, r.runs_to_decide) {
                                (NonInferiority::Open, Some(e)) => format!("; {}", e.words()),
                                _ => String::new(),
                            };
                            format!("{answer}: {words}{estimate}")
                        },
                    ]
                })
                .collect(),
        },
        Block::Para(format!("{} {}", crate::report::INTERVALS, crate::report::RUNS_ESTIMATE)),
    ];
    doc::markdown(&blocks)
}
