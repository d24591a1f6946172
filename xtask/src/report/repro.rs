//! A reproduction without this tool: for one cell of a report and two of
//! its variants, a directory a developer can run with two `mariadbd`
//! binaries and sysbench alone. `run.sh` (the same for every cell) does the
//! phases the tool does: a fresh server a side, the tables loaded, the idle
//! wait, the warm-up, the measured run between two reads of the pool's
//! counters; `cell.env` (written here, from the cell's run records) holds
//! what differs: the sysbench options, the phases' lengths and the report's
//! own figures; `<variant>.cnf` is each side's my.cnf without the lines
//! that place a server's files, which run.sh adds.

use crate::dims::{Metric, WorkloadKind};
use crate::record::RunResult;
use crate::results::manifest::Manifest;
use crate::results::metric;
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

const RUN_SH: &str = include_str!("repro/run.sh");
const LAB_LUA: &str = include_str!("repro/lab.lua");

/// The my.cnf settings that place one server's files or name its user:
/// run.sh writes its own. The lines the server stage writes
/// (`server::my_cnf`); `settings::TOOL_OWNED` is a wider list, of what a
/// variant may not set, and a stage the report layer may not import.
const PLACED_BY_RUN_SH: &[&str] = &[
    "datadir",
    "innodb_data_home_dir",
    "innodb_log_group_home_dir",
    "tmpdir",
    "socket",
    "pid_file",
    "log_error",
    "log_bin",
    "secure_file_priv",
    "skip_networking",
    "lc_messages_dir",
    "character_sets_dir",
    "user",
];

/// The sysbench options that connect to one server or set a phase's
/// length: run.sh gives its own.
const SET_BY_RUN_SH: &[&str] = &[
    "--db-driver=",
    "--mysql-socket=",
    "--mysql-user=",
    "--config-file=",
    "--mysql-db=",
    "--time=",
    "--events=",
];

/// Which cell of a report, and the two variants it compares.
#[derive(Debug, Clone)]
pub struct ReproCell {
    pub tree: String,
    pub workload: String,
    /// None when the report ran the workload at one thread count
    pub threads: Option<u32>,
    /// the first side (the baseline) and the second
    pub sides: [String; 2],
}

/// One side as the report measured it.
#[derive(Debug)]
struct Side {
    variant: String,
    /// the counted run whose my.cnf and sysbench command are copied
    run: RunResult,
    /// the median hit ratio of the side's counted runs
    hit_ratio_pct: f64,
    counted: usize,
}

/// Writes the reproduction of `cell` of the report in `report_dir` into
/// `out`; the files written.
pub fn write(report_dir: &Path, cell: &ReproCell, out: &Path) -> Result<Vec<PathBuf>> {
    let results = crate::results::store::read_results(report_dir)?;
    let manifest = Manifest::read_or_derive(report_dir, &results)?;
    let sides = [
        side(&results, &manifest, report_dir, cell, &cell.sides[0])?,
        side(&results, &manifest, report_dir, cell, &cell.sides[1])?,
    ];
    let measured = measured_command(&sides[0].run)?;
    if measured_command(&sides[1].run)?.options != measured.options {
        bail!(
            "{}: the sysbench options of `{}` and `{}` differ in cell {}/{}; a reproduction runs one command on both",
            report_dir.display(),
            sides[0].variant,
            sides[1].variant,
            cell.tree,
            cell.workload
        );
    }
    std::fs::create_dir_all(out.join("lua"))
        .with_context(|| format!("cannot create {}", out.join("lua").display()))?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: &str| -> Result<()> {
        let path = out.join(name);
        crate::util::write_atomic(&path, text.as_bytes())?;
        written.push(path);
        Ok(())
    };
    put("run.sh", RUN_SH)?;
    make_executable(&out.join("run.sh"))?;
    put("lab.lua", LAB_LUA)?;
    let lua = crate::util::repo_root().join("workloads/lua");
    let prepare_script = WorkloadKind::PointsCoveredPk.script().to_string();
    let mut scripts = vec![prepare_script.clone()];
    if measured.script.ends_with(".lua") {
        scripts.push(measured.script.clone());
    }
    for script in &scripts {
        let from = lua.join(script);
        let text = std::fs::read_to_string(&from)
            .with_context(|| format!("cannot read {}", from.display()))?;
        put(&format!("lua/{script}"), &text)?;
    }
    for s in &sides {
        put(&format!("{}.cnf", s.variant), &placeless_cnf(&s.run)?)?;
    }
    let name = manifest.name.clone();
    put(
        "cell.env",
        &cell_env(&name, cell, &sides, &measured, &prepare_script)?,
    )?;
    put("README.md", &readme(&name, cell, &sides))?;
    Ok(written)
}

/// The counted runs of one side of `cell`, the first of them kept.
fn side(
    results: &[RunResult],
    manifest: &Manifest,
    report_dir: &Path,
    cell: &ReproCell,
    variant: &str,
) -> Result<Side> {
    if variant.is_empty()
        || !variant
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        bail!("`{variant}` is not a variant name");
    }
    let runs: Vec<&RunResult> = results
        .iter()
        .filter(|r| {
            r.key.tree == cell.tree
                && r.key.workload == cell.workload
                && r.key.variant == variant
                && cell.threads.is_none_or(|t| r.key.threads == t)
        })
        .collect();
    let mut threads: Vec<u32> = runs.iter().map(|r| r.key.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    if threads.len() > 1 {
        bail!(
            "{}: {}/{} ran at {threads:?} threads: choose one with --threads",
            report_dir.display(),
            cell.tree,
            cell.workload
        );
    }
    let counted: Vec<&RunResult> = runs
        .into_iter()
        .filter(|r| r.ok() && !metric::busy(r, manifest.busy_cpu_bound))
        .collect();
    let Some(first) = counted.first() else {
        bail!(
            "{}: no counted run of `{variant}` in {}/{} (variants: {})",
            report_dir.display(),
            cell.tree,
            cell.workload,
            manifest.variants.join(", ")
        );
    };
    if first.workload_def.kind()? == WorkloadKind::ScanLoop {
        bail!(
            "{}: {} is a scan-loop workload, whose measure is not one sysbench run; a reproduction script covers sysbench workloads",
            report_dir.display(),
            cell.workload
        );
    }
    let values: Vec<f64> = counted
        .iter()
        .filter_map(|r| Metric::HitRatioPct.of(r))
        .collect();
    let hit_ratio_pct = crate::decide::change::median(&values).with_context(|| {
        format!(
            "{}: the runs of `{variant}` in {}/{} measured no hit ratio",
            report_dir.display(),
            cell.tree,
            cell.workload
        )
    })?;
    Ok(Side {
        variant: variant.to_string(),
        run: (*first).clone(),
        hit_ratio_pct,
        counted: counted.len(),
    })
}

/// The measured sysbench command of a run: its script and the options
/// run.sh does not set itself.
#[derive(Debug, PartialEq)]
struct Command {
    script: String,
    options: Vec<String>,
}

fn measured_command(run: &RunResult) -> Result<Command> {
    let o = run.outcome.as_ref().context("a run without an outcome")?;
    let line = o
        .sysbench_commands
        .last()
        .context("the run recorded no sysbench command")?;
    let mut words = line.split_whitespace();
    if words.next() != Some("sysbench") {
        bail!("not a sysbench command: {line}");
    }
    let script = words
        .next()
        .context("a sysbench command without a script")?;
    let script = Path::new(script)
        .file_name()
        .and_then(|f| f.to_str())
        .unwrap_or(script)
        .to_string();
    let options: Vec<String> = words
        .filter(|w| w.starts_with("--") && !SET_BY_RUN_SH.iter().any(|p| w.starts_with(p)))
        .map(str::to_string)
        .collect();
    Ok(Command { script, options })
}

/// A run's my.cnf without the lines that place its files.
fn placeless_cnf(run: &RunResult) -> Result<String> {
    let text = run
        .my_cnf_text
        .as_ref()
        .context("the run recorded no my.cnf")?;
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| {
            let key = l.split('=').next().unwrap_or("").trim();
            !PLACED_BY_RUN_SH.contains(&key)
        })
        .collect();
    Ok(format!("{}\n", kept.join("\n").trim_end()))
}

/// `value` in single quotes for a shell.
fn quoted(value: &str) -> String {
    format!("'{}'", value.replace('\'', "'\\''"))
}

fn cell_env(
    report: &str,
    cell: &ReproCell,
    sides: &[Side; 2],
    measured: &Command,
    prepare_script: &str,
) -> Result<String> {
    let w = &sides[0].run.workload_def;
    let table_options: Vec<&String> = measured
        .options
        .iter()
        .filter(|o| {
            [
                "--tables=",
                "--table-size=",
                "--rand-type=",
                "--mysql-storage-engine=",
            ]
            .iter()
            .any(|p| o.starts_with(p))
        })
        .collect();
    let joined = |extra: String| {
        let mut v: Vec<String> = table_options.iter().map(|s| s.to_string()).collect();
        v.push(extra);
        v.join(" ")
    };
    // the tool loads with one sysbench thread a table, at least 2
    let most_threads = w.thread_counts().into_iter().max().unwrap_or(1);
    let loaders = w.tables.min(most_threads.max(2));
    let run_script = if measured.script.ends_with(".lua") {
        format!("lua/{}", measured.script)
    } else {
        measured.script.clone()
    };
    let vars = [
        ("REPORT", format!("reports/{report}")),
        (
            "CELL",
            format!(
                "{} {} {} threads",
                cell.tree, cell.workload, sides[0].run.key.threads
            ),
        ),
        ("SIDE_A", sides[0].variant.clone()),
        ("SIDE_B", sides[1].variant.clone()),
        ("PREPARE_SCRIPT", format!("lua/{prepare_script}")),
        ("PREPARE_OPTIONS", joined(format!("--threads={loaders}"))),
        ("ARM_SECONDS", w.arm_seconds.to_string()),
        ("ARM_OPTIONS", joined(format!("--threads={most_threads}"))),
        ("RUN_SCRIPT", run_script),
        ("RUN_OPTIONS", measured.options.join(" ")),
        ("WARMUP_SECONDS", w.warmup_seconds.to_string()),
        ("MEASURE_SECONDS", w.measure_seconds.to_string()),
        ("REPORT_A", format!("{:.2}", sides[0].hit_ratio_pct)),
        ("REPORT_B", format!("{:.2}", sides[1].hit_ratio_pct)),
    ];
    let mut text = format!(
        "# written by `cargo xtask repro` from reports/{report} (innodb-lab {}): the cell\n\
         # run.sh reproduces, and the report's median hit ratio of each side\n",
        sides[0].run.tool_revision
    );
    for (k, v) in vars {
        text.push_str(&format!("{k}={}\n", quoted(&v)));
    }
    Ok(text)
}

/// What the directory is, how to run it, and what the report measured.
fn readme(report: &str, cell: &ReproCell, sides: &[Side; 2]) -> String {
    let r = &sides[0].run;
    let mut text = format!(
        "# Reproduction of reports/{report}: {} {}, `{}` against `{}`\n\n\
         Two `mariadbd` binaries, sysbench and this directory reproduce one cell of the report\n\
         without innodb-lab:\n\n\
         ```\n./run.sh /path/to/{}/mariadbd /path/to/{}/mariadbd [REPETITIONS]\n```\n\n\
         Each repetition runs each side on a fresh server (datadir under /dev/shm, a unix socket\n\
         only): the tables loaded, the warm-up ({} s), then the measured run ({} s) between two\n\
         reads of `Innodb_buffer_pool_read_requests` and `Innodb_buffer_pool_reads`; the hit ratio\n\
         is 100 × (1 − reads / read requests) over the measured run. Run as root, the servers run\n\
         as `$REPRO_USER` (default `mysql`).\n\n\
         What the report measured ({}, {} cores, {}):\n\n",
        cell.tree,
        cell.workload,
        sides[1].variant,
        sides[0].variant,
        sides[0].variant,
        sides[1].variant,
        r.workload_def.warmup_seconds,
        r.workload_def.measure_seconds,
        r.host.hostname,
        r.host.cores,
        r.host.cpu_model,
    );
    for s in sides {
        let built = match &s.run.build {
            Some(b) => format!(
                "{} built {}{}",
                b.tree_spec,
                b.build_type.as_str(),
                b.patch
                    .as_ref()
                    .map(|p| format!(" with `{}`", p.file.display()))
                    .unwrap_or_default()
            ),
            None => "a packaged server".to_string(),
        };
        text.push_str(&format!(
            "- `{}`: median hit ratio {:.2}% of {} counted run(s); {built}\n",
            s.variant, s.hit_ratio_pct, s.counted
        ));
    }
    text.push_str(&format!(
        "- difference: {:+.2} points\n\n\
         `{v0}.cnf` and `{v1}.cnf` are the servers' my.cnf as the report's runs had them, less the\n\
         lines that place a server's files (run.sh writes those); `cell.env` holds the sysbench\n\
         options and the phases' lengths; `lua/` our sysbench scripts; `lab.lua` the statements\n\
         run.sh needs (through sysbench's driver: no client program is needed).\n",
        sides[1].hit_ratio_pct - sides[0].hit_ratio_pct,
        v0 = sides[0].variant,
        v1 = sides[1].variant,
    ));
    text
}

fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turnover_cell(workload: &str) -> ReproCell {
        ReproCell {
            tree: "10.11.18".into(),
            workload: workload.into(),
            threads: None,
            sides: ["base".into(), "fixed".into()],
        }
    }

    #[test]
    fn a_reproduction_of_a_committed_cell_carries_its_options_cnf_and_figures() {
        let report = crate::util::repo_root().join("reports/hit-ratio-turnover");
        let out = tempfile::tempdir().unwrap();
        let written = write(&report, &turnover_cell("pareto-rate-250"), out.path()).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|p| p.strip_prefix(out.path()).unwrap().display().to_string())
            .collect();
        for f in [
            "run.sh",
            "lab.lua",
            "lua/read_only.lua",
            "lua/oltp_points_covered.lua",
            "base.cnf",
            "fixed.cnf",
            "cell.env",
            "README.md",
        ] {
            assert!(names.contains(&f.to_string()), "{f} not in {names:?}");
        }
        let env = std::fs::read_to_string(out.path().join("cell.env")).unwrap();
        assert!(env.contains("RUN_SCRIPT='lua/read_only.lua'"), "{env}");
        assert!(
            env.contains("--rate=250") && env.contains("--threads=2"),
            "{env}"
        );
        assert!(
            !env.contains("--mysql-socket") && !env.contains("--time="),
            "{env}"
        );
        assert!(
            env.contains("WARMUP_SECONDS='30'") && env.contains("MEASURE_SECONDS='30'"),
            "{env}"
        );
        // the report's own medians, as its summary has them
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(report.join("summary.json")).unwrap())
                .unwrap();
        let median = |variant: &str| {
            s["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| {
                    r["tree"] == "10.11.18"
                        && r["variant"] == variant
                        && r["workload"] == "pareto-rate-250"
                })
                .unwrap()["median"]["hit_ratio_pct"]
                .as_f64()
                .unwrap()
        };
        assert!(
            env.contains(&format!("REPORT_A='{:.2}'", median("base"))),
            "{env}"
        );
        assert!(
            env.contains(&format!("REPORT_B='{:.2}'", median("fixed"))),
            "{env}"
        );
        let cnf = std::fs::read_to_string(out.path().join("fixed.cnf")).unwrap();
        assert!(cnf.contains("innodb_buffer_pool_size=128M"), "{cnf}");
        assert!(
            !cnf.contains("datadir") && !cnf.contains("socket") && !cnf.contains("user="),
            "{cnf}"
        );
        let mode = std::fs::metadata(out.path().join("run.sh")).unwrap();
        assert!(std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o111 != 0);
    }

    /// The reproduction committed beside the hit-ratio report stands alone
    /// (copies of run.sh, lab.lua and our Lua scripts): it must be what
    /// `cargo xtask repro` writes today.
    #[test]
    fn a_committed_reproduction_is_what_repro_writes_today() {
        let report = crate::util::repo_root().join("reports/hit-ratio-turnover");
        let committed = report.join("repro-10.11.18-pareto-rate-250");
        let out = tempfile::tempdir().unwrap();
        let written = write(&report, &turnover_cell("pareto-rate-250"), out.path()).unwrap();
        for file in written {
            let name = file.strip_prefix(out.path()).unwrap();
            let kept = std::fs::read_to_string(committed.join(name)).unwrap_or_default();
            assert!(
                kept == std::fs::read_to_string(&file).unwrap(),
                "{} is stale: `cargo xtask repro reports/hit-ratio-turnover --tree 10.11.18 \
                 --workload pareto-rate-250 --sides base,fixed` writes it again",
                committed.join(name).display()
            );
        }
    }

    #[test]
    fn a_cell_or_variant_the_report_lacks_is_refused_by_name() {
        let report = crate::util::repo_root().join("reports/hit-ratio-turnover");
        let out = tempfile::tempdir().unwrap();
        let err = write(&report, &turnover_cell("nope"), out.path())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no counted run of `base` in 10.11.18/nope"),
            "{err}"
        );
        let mut cell = turnover_cell("pareto-rate-250");
        cell.sides[1] = "fixed; rm -rf /".into();
        let err = write(&report, &cell, out.path()).unwrap_err().to_string();
        assert!(err.contains("is not a variant name"), "{err}");
    }
}
