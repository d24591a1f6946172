//! `cargo xtask validate BASELINE CANDIDATE`: is the candidate worse?
//! Each side is a results directory, optionally narrowed to a variant or
//! a tree (`DIR:variant`, `DIR:tree`, `DIR:tree/variant`), or a matrix file
//! with the same narrowing (`matrix/x.toml:gate`, meaning its results under
//! `results/<name>`). Every common (tree, workload, threads) is compared on
//! one metric (QPS unless `--metric` names another, such as
//! `instructions_per_query`), the table is printed either way, and the exit
//! code answers: 0 no regression, 1 a regression beyond the threshold,
//! 2 undecided, 3 error.

use crate::decide::analysis::{self, Analysis, Comparison, Decision, NonInferiority};
use crate::dims::Metric;
use crate::record::RunResult;
use crate::report::doc::{self, Block};
use crate::report::num;
use crate::results::question::Kind;
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
pub struct CellChange {
    pub tree: String,
    pub workload: String,
    pub threads: u32,
    pub comparison: Comparison,
    /// about how many repetitions would settle "no slower than
    /// -threshold" (`analysis::estimate_runs`: pairs or runs a side)
    pub runs_to_decide: Option<analysis::RunsEstimate>,
}

/// Compares on `metric` and prints; returns the exit code.
pub fn run(baseline: &str, candidate: &str, threshold: Option<f64>, metric: Metric) -> Result<i32> {
    let base = load(baseline)?;
    let cand = load(candidate)?;
    let threshold = threshold.unwrap_or_else(|| default_threshold(&base.manifest, metric));
    if threshold.is_nan() || threshold < 0.0 {
        bail!("--threshold must be 0 or more (percent)");
    }
    let rows = compare(&base, &cand, threshold, metric)?;
    print!(
        "{}",
        table(&base.name, &cand.name, threshold, metric, &rows)
    );
    let code = exit_code(&rows, threshold, metric);
    let allowed = allowed_side(threshold, metric);
    println!(
        "\n{}",
        match code {
            REGRESSION => format!("regression: the candidate's {metric} is significantly worse beyond the threshold and the noise floor (exit 1)"),
            UNDECIDED => format!("undecided: not every cell's 95% interval of the change lies {allowed} (exit 2)"),
            _ => format!("no regression: every cell's 95% interval of the change lies {allowed} (exit 0)"),
        }
    );
    Ok(code)
}

/// The threshold when `--threshold` is not given: that of the baseline's
/// no-slower (or no-costlier) question on `metric`, where its matrix asked
/// one, else the matrix's threshold.
fn default_threshold(manifest: &Manifest, metric: Metric) -> f64 {
    manifest
        .questions
        .iter()
        .filter(|q| q.kind == Kind::NoSlower && q.metric == metric)
        .find_map(|q| q.threshold_pct)
        .map_or(manifest.threshold_pct, f64::abs)
}

/// Where an interval of the change must lie to show no regression: above
/// a drop for a metric where higher is better (QPS), below a rise for one
/// where lower is (instructions).
fn allowed_side(threshold: f64, metric: Metric) -> String {
    if metric.higher_is_better() {
        format!("above -{threshold}%")
    } else {
        format!("below +{threshold}%")
    }
}

/// 1 when a cell moved significantly the wrong way beyond the threshold
/// and the noise floor; else 0 when every cell's 95% interval of the
/// change lies on the right side of the allowed change (non-inferiority,
/// the rule of a no-slower question: the noise floor plays no part);
/// else 2.
pub fn exit_code(rows: &[CellChange], threshold: f64, metric: Metric) -> i32 {
    let worse = if metric.higher_is_better() {
        Decision::Lower
    } else {
        Decision::Higher
    };
    if rows.iter().any(|r| r.comparison.verdict == worse) {
        REGRESSION
    } else if rows
        .iter()
        .all(|r| no_worse(r, threshold, metric).0 == NonInferiority::Shown)
    {
        NO_REGRESSION
    } else {
        UNDECIDED
    }
}

/// A row's non-inferiority at the threshold, with its words.
fn no_worse(r: &CellChange, threshold: f64, metric: Metric) -> (NonInferiority, String) {
    r.comparison
        .non_inferiority(-threshold, metric.higher_is_better())
}

fn compare(
    base: &Loaded,
    cand: &Loaded,
    threshold: f64,
    metric: Metric,
) -> Result<Vec<CellChange>> {
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
    let boundary = analysis::boundary_factor(metric, -threshold);
    for c in &cand_a.cells {
        let Some(b) = base_a.cells.iter().find(|b| {
            b.cell.workload == c.cell.workload
                && b.cell.threads == c.cell.threads
                && (across || b.cell.tree == c.cell.tree)
        }) else {
            continue;
        };
        // the baseline directory's control, where it ran one
        let noise = base_a.noise_floor(&b.cell, metric);
        let against = format!("{} {}", b.cell.tree, b.cell.variant);
        let (base_values, cand_values) = (b.values(metric), c.values(metric));
        if base_values.is_empty() && cand_values.is_empty() {
            // neither side measured the metric here (a cost pass ran on
            // some workloads only): not a cell of this comparison
            continue;
        }
        // pairs only within one results directory, where the matrix
        // interleaved the two by repetition
        let pairs = (same_results(base, cand) && one_host(b, c))
            .then(|| analysis::pair_ratios_of(b, c, metric))
            .flatten();
        rows.push(CellChange {
            runs_to_decide: analysis::estimate_runs(b, c, metric, boundary, pairs.clone()),
            tree: if across {
                format!("{} → {}", b.cell.tree, c.cell.tree)
            } else {
                c.cell.tree.clone()
            },
            workload: c.cell.workload.clone(),
            threads: c.cell.threads,
            comparison: Comparison::with_pairs(
                &against,
                metric,
                &base_values,
                &cand_values,
                pairs.as_deref(),
                noise,
                threshold,
            ),
        });
    }
    if rows.is_empty() {
        bail!(
            "no (tree, workload, threads) in common between {} and {} where either measured {}",
            base.name,
            cand.name,
            metric.name()
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

fn table(base: &str, cand: &str, threshold: f64, metric: Metric, rows: &[CellChange]) -> String {
    let worse = if metric.higher_is_better() {
        "drop"
    } else {
        "rise"
    };
    let allowed = allowed_side(threshold, metric);
    // the precision of the metric's column in reports; QPS has none there
    let digits = metric.info().column.map_or(0, |(_, digits)| digits);
    let blocks = vec![
        Block::Para(format!("{metric} of `{cand}` against `{base}`; a regression (exit 1) is a significant {worse} of the median beyond {threshold}% (and beyond the baseline's noise floor where it measured one); no regression (exit 0) needs every cell's 95% interval of the change {allowed} (non-inferiority: the noise floor plays no part); anything else is undecided (exit 2)")),
        Block::Table {
            header: ["tree", "workload", "threads", "runs", "baseline", "candidate", "change", "interval of the change (method, coverage)", "p", "smallest possible p", "change shown?", "no worse?"]
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
                        num(c.base_median, digits),
                        num(c.median, digits),
                        c.change_pct.map(|x| format!("{x:+.1}%")).unwrap_or_else(|| "n/a".into()),
                        c.ratio_interval
                            .map(|i| analysis::change_interval_words(&i))
                            .unwrap_or_else(|| "n/a".into()),
                        num(c.p_value, 3),
                        num(c.min_possible_p, 3),
                        format!("{}: {}", c.verdict.words(), c.why),
                        {
                            let (shown, words) = no_worse(r, threshold, metric);
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
