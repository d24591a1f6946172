//! Running a matrix: resolve every tree and variant (refusing the matrix
//! before anything is built when a variant cannot mean anything on its
//! tree), build, then per repetition one server per (tree, variant) that
//! loads the data once and runs every cell in order (`server_run.rs`,
//! `cell.rs`). Each cell's result is written as soon as it ends; a failure
//! is recorded with its step and the rest of the matrix goes on.

use super::manifest::manifest;
use super::plan::Plan;
use super::prepare::{build_all, builds_to_make, check_option_names, prepare};
use super::progress::Progress;
use super::resume::undecided_cells;
use super::run_state::{Prepared, RunOptions, Shared};
use super::server_run::run_server;
use super::Matrix;
use crate::children;
use crate::host::Host;
use crate::provenance;
use crate::record::Cell;
use crate::server;
use crate::util::human_duration;
use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::time::Instant;

/// Refuses an output directory the tool must not fill: the root, the home
/// directory, or a directory with files in it that is not a results
/// directory (one with `matrix.json` or `runs/`, which a run resumes).
pub fn check_out_dir(out: &Path) -> Result<()> {
    check_out_dir_of(out, &["matrix.json", "runs"], "a matrix's results")
}

/// `check_out_dir` for a directory whose own files are `markers` (any one
/// of them present: the directory is resumed), called `what` in errors.
pub fn check_out_dir_of(out: &Path, markers: &[&str], what: &str) -> Result<()> {
    let resolved = out.canonicalize().unwrap_or_else(|_| out.to_path_buf());
    if resolved == Path::new("/") || crate::environment::current().is_home(&resolved) {
        bail!(
            "--out {}: the root or the home directory cannot hold {what}; name a directory of \
             their own",
            out.display()
        );
    }
    let Ok(entries) = fs::read_dir(out) else {
        return Ok(());
    };
    // the lock and the logs a run that stopped early leaves are its own
    let names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".lock" && n != "logs")
        .collect();
    let results_dir = names.iter().any(|n| markers.contains(&n.as_str()));
    if !names.is_empty() && !results_dir {
        let mut shown = names.clone();
        shown.sort();
        shown.truncate(5);
        bail!(
            "--out {}: it holds files that are not {what} ({}{}): name an empty or new \
             directory, or a results directory to resume",
            out.display(),
            shown.join(", "),
            if names.len() > 5 { ", ..." } else { "" }
        );
    }
    Ok(())
}

/// Runs the whole matrix, or its shard; returns the number of failed cells.
pub fn run(full: &Matrix, opts: &RunOptions) -> Result<usize> {
    super::check(full)?;
    if opts
        .until_decided
        .is_some_and(|n| n > super::MAX_REPETITIONS)
    {
        bail!(
            "--until-decided {}: at most {} repetitions",
            opts.until_decided.unwrap_or_default(),
            super::MAX_REPETITIONS
        );
    }
    check_out_dir(&opts.out)?;
    let sharded;
    let matrix = match opts.shard {
        Some(s) => {
            sharded = full.shard(s)?;
            &sharded
        }
        None => full,
    };
    fs::create_dir_all(&opts.out)
        .with_context(|| format!("cannot create {}", opts.out.display()))?;
    // one matrix per results directory; held until this function returns
    let _results_lock = crate::lock::results(&opts.out)?;
    // run directories and servers a dead tool left behind
    crate::stale::clean(&server::trusted_shm_root()?);
    let runs = server::RunRoot::of(matrix.datadir);
    if runs.datadir != crate::dims::Datadir::Tmpfs && runs.path.exists() {
        crate::stale::clean(runs.trusted()?);
    }
    // sysbench, compilers and space: before anything is fetched or built
    super::preflight::check(matrix, opts.keep)?;
    let plan = Plan::of(matrix);
    let ctx = Shared {
        matrix,
        opts,
        host: Host::detect(),
        revision: provenance::tool_revision(),
    };
    let matrix_start = Instant::now();
    let started_unix = provenance::unix_now();
    let mut timings: Vec<(String, f64)> = Vec::new();
    let resolved = prepare(matrix, &plan, &mut timings)?;
    super::preflight::cache_space(&builds_to_make(&resolved)?)?;
    // the whole matrix's: merged shards share it
    let manifest = manifest(full, &resolved, opts)?;
    manifest.write(&opts.out)?;
    let prepared = build_all(&plan, resolved, &mut timings)?;
    check_option_names(matrix, &prepared, &opts.allowed_settings)?;

    let runs_start = Instant::now();
    let cost_servers = super::plan::cost_servers(matrix, &plan, |u| prepared[u].label.clone());
    let mut progress = Progress::new(plan.total_cells(), cost_servers);
    let mut failed = 0;
    for rep in 1..=plan.repetitions {
        for (u, cells) in super::plan::server_groups(matrix, &plan.rotation(rep), &plan.cells) {
            children::check()?;
            failed += run_server(&ctx, &prepared[u], rep, &cells, &mut progress)?;
        }
    }
    // --until-decided: more interleaved repetitions of the undecided cells
    for rep in plan.repetitions + 1..=opts.until_decided.unwrap_or(0) {
        let results = crate::results::read_results(&opts.out)?;
        let need = undecided_cells(&manifest, &results);
        if need.is_empty() {
            break;
        }
        let per_unit = undecided_groups(matrix, &plan, &prepared, rep, &need);
        progress.add(per_unit.iter().map(|(_, cells)| cells.len()).sum());
        eprintln!(
            "==> repetition {rep} (--until-decided): {} undecided cell(s)",
            need.len()
        );
        for (u, cells) in per_unit {
            if !cells.is_empty() {
                children::check()?;
                failed += run_server(&ctx, &prepared[u], rep, &cells, &mut progress)?;
            }
        }
    }
    timings.push(("runs".into(), runs_start.elapsed().as_secs_f64()));

    crate::report::write(&opts.out)?;
    let total_seconds = matrix_start.elapsed().as_secs_f64();
    timings.push(("matrix total".into(), total_seconds));
    eprintln!("\nstage timings:");
    for (label, secs) in &timings {
        eprintln!("  {:>9}  {label}", human_duration(*secs));
    }
    write_timings(&ctx, timings, started_unix, total_seconds)?;
    eprintln!(
        "wrote {} and {}",
        opts.out.join("summary.json").display(),
        opts.out.join("report.md").display()
    );
    Ok(failed)
}

/// The run's costs as numbers beside its results (`timings.json`): its
/// stages, its whole time and its floor from the records it wrote.
fn write_timings(
    ctx: &Shared,
    stages: Vec<(String, f64)>,
    started_unix: u64,
    total_seconds: f64,
) -> Result<()> {
    use super::timings::{Floor, MatrixTimings, StageSeconds, TIMINGS_FILE};
    // a resumed or --until-decided directory holds earlier invocations'
    // runs too, whose work this one's time does not include
    let runs: Vec<_> = crate::results::read_results(&ctx.opts.out)?
        .into_iter()
        .filter(|r| r.started_unix >= started_unix)
        .collect();
    let record = MatrixTimings {
        matrix: ctx.matrix.name.clone(),
        tool_revision: ctx.revision.clone(),
        host: ctx.host.clone(),
        finished_unix: provenance::unix_now(),
        total_seconds,
        stages: stages
            .into_iter()
            .map(|(label, seconds)| StageSeconds { label, seconds })
            .collect(),
        floor: Floor::of(&runs, ctx.matrix.fresh_server),
    };
    let f = &record.floor;
    if f.seconds > 0.0 {
        eprintln!(
            "floor {} ({} build(s) made in {}, the experiment's phases {}): the run took {:.2} \
             times it",
            human_duration(f.seconds),
            f.builds_made,
            human_duration(f.make_seconds),
            human_duration(f.experiment_seconds),
            total_seconds / f.seconds
        );
    }
    crate::util::write_json(&ctx.opts.out.join(TIMINGS_FILE), &record)
}

/// Repetition `rep`'s server groups (as `plan::server_groups` gives them)
/// narrowed to the cells in `need`.
fn undecided_groups(
    matrix: &Matrix,
    plan: &Plan,
    prepared: &[Prepared],
    rep: u32,
    need: &BTreeSet<Cell>,
) -> Vec<(usize, Vec<(usize, u32)>)> {
    super::plan::server_groups(matrix, &plan.rotation(rep), &plan.cells)
        .into_iter()
        .map(|(u, cells)| {
            let p = &prepared[u];
            let cells = cells
                .into_iter()
                .filter(|&(w, t)| {
                    need.contains(&Cell {
                        tree: p.tree_label.clone(),
                        variant: p.label.clone(),
                        workload: matrix.workloads[w].name.clone(),
                        threads: t,
                    })
                })
                .collect();
            (u, cells)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_out_dir_that_holds_other_files_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        check_out_dir(&dir.path().join("new")).unwrap();
        check_out_dir(dir.path()).unwrap();
        std::fs::write(dir.path().join(".lock"), "").unwrap();
        check_out_dir(dir.path()).unwrap();
        std::fs::write(dir.path().join("thesis.tex"), "").unwrap();
        let err = check_out_dir(dir.path()).unwrap_err().to_string();
        assert!(
            err.contains("thesis.tex") && err.contains("not a matrix's results"),
            "{err}"
        );
        std::fs::create_dir(dir.path().join("runs")).unwrap();
        check_out_dir(dir.path()).unwrap();
        for bad in ["/", "/."] {
            let err = check_out_dir(std::path::Path::new(bad))
                .unwrap_err()
                .to_string();
            assert!(err.contains("the root or the home directory"), "{err}");
        }
        if let Some(home) = &crate::environment::current().home {
            assert!(check_out_dir(std::path::Path::new(&home)).is_err());
        }
    }

    use super::*;
    use crate::dims::Step;
    use crate::matrix::TreeEntry;
    use crate::record::Workload;
    use crate::results::Manifest;
    use crate::tree;

    /// A matrix of one packaged tree called `name` under `dir`, whose
    /// install script is `install` (a shell script's body), on 1 and 2
    /// threads: no real server needed.
    fn packaged_matrix(dir: &Path, name: &str, install: &str) -> Matrix {
        use std::os::unix::fs::PermissionsExt;
        let prefix = dir.join("usr");
        for (file, text) in [
            (
                "sbin/mariadbd",
                "#!/bin/sh\necho 'mariadbd  Ver 10.11.18-MariaDB for debian-linux-gnu'\n"
                    .to_string(),
            ),
            ("bin/mariadb-install-db", format!("#!/bin/sh\n{install}")),
        ] {
            let path = prefix.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let mut w = Workload::new("points-covered-pk");
        w.threads = crate::record::Threads::List(vec![1, 2]);
        Matrix::new(
            "x",
            vec![TreeEntry {
                spec: format!("pkg:{}", prefix.join("sbin/mariadbd").display())
                    .parse()
                    .unwrap(),
                name: Some(name.into()),
                variants: vec!["base".into()],
            }],
            vec![w],
        )
    }

    /// A packaged "server" whose install script fails: every cell of every
    /// server fails in the bootstrap step with the script's output as its
    /// tail, each result is written, the report names them, and the matrix
    /// goes on to the end.
    #[test]
    #[ignore = "real parts (the preflight: sysbench, the innodb-lab user, room on /dev/shm): cargo xtask test runs it"]
    fn a_server_that_cannot_bootstrap_fails_its_cells_with_the_step() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = packaged_matrix(
            dir.path(),
            "pkg",
            "echo '[ERROR] cannot create the datadir: fixture' >&2\nexit 1\n",
        );
        m.repetitions = 2;
        m.control = Some("base".into());
        let out = dir.path().join("out");
        let opts = RunOptions::new(out.clone());
        // 2 servers (base, base-again) x 2 thread counts x 2 repetitions
        assert_eq!(run(&m, &opts).unwrap(), 8);
        let results = crate::results::read_results(&out).unwrap();
        assert_eq!(results.len(), 8);
        for r in &results {
            let f = r.failure.as_ref().expect("every cell failed");
            assert_eq!(f.step, Step::Bootstrap, "{f}");
            assert!(f.message.starts_with("bootstrap failed"), "{f}");
            assert!(!f.message.contains("error log tail"), "{f}");
            let tail = f.error_log_tail.as_deref().unwrap_or("");
            assert!(
                tail.contains("[ERROR] cannot create the datadir: fixture"),
                "{f}\n{tail}"
            );
        }
        let keys: Vec<String> = results.iter().map(|r| r.key.to_string()).collect();
        assert!(
            keys.contains(&"pkg base-again points-covered-pk 1 thread rep 2".to_string()),
            "{keys:?}"
        );
        let md = fs::read_to_string(out.join("report.md")).unwrap();
        assert!(
            md.contains("### pkg base points-covered-pk 2 threads rep 1: failed in bootstrap"),
            "{md}"
        );
        let manifest: Manifest =
            serde_json::from_str(&fs::read_to_string(out.join("matrix.json")).unwrap()).unwrap();
        assert_eq!(manifest.variants, ["base", "base-again"]);
        // failures are never "done": a second run tries them again
        assert_eq!(run(&m, &opts).unwrap(), 8);
    }

    /// Two matrices of one process whose servers have the same names, run
    /// at once on two threads (as tests run): each install script waits
    /// until the other has started, so both run directories are in use at
    /// once, and each failure's tail is its own script's output, never the
    /// other's. A run directory named per process rather than per run
    /// made the second remove the first's.
    #[test]
    #[ignore = "real parts (the preflight: sysbench, the innodb-lab user, room on /dev/shm): cargo xtask test runs it"]
    fn two_matrices_with_the_same_server_names_run_at_once_apart() {
        let dir = tempfile::tempdir().unwrap();
        let started = dir.path().join("started");
        fs::create_dir(&started).unwrap();
        let twin = |side: &str, other: &str| {
            let home = dir.path().join(side);
            let install = format!(
                "touch '{s}/{side}'\n\
                 for i in $(seq 200); do\n\
                 [ -e '{s}/{other}' ] && echo '[ERROR] the twin {side}, beside {other}' >&2 && exit 1\n\
                 sleep 0.05\ndone\n\
                 echo '[ERROR] the twin {side}, alone' >&2\nexit 1\n",
                s = started.display()
            );
            let mut m = packaged_matrix(&home, "twin", &install);
            m.repetitions = 1;
            m.workloads[0].threads = crate::record::Threads::List(vec![1]);
            (m, home.join("out"))
        };
        let sides = [twin("left", "right"), twin("right", "left")];
        std::thread::scope(|scope| {
            let runs: Vec<_> = sides
                .iter()
                .map(|(m, out)| scope.spawn(move || run(m, &RunOptions::new(out.clone()))))
                .collect();
            for r in runs {
                assert_eq!(r.join().unwrap().unwrap(), 1);
            }
        });
        for ((_, out), (own, other)) in sides.iter().zip([("left", "right"), ("right", "left")]) {
            let results = crate::results::read_results(out).unwrap();
            assert_eq!(results.len(), 1);
            let f = results[0].failure.as_ref().expect("the cell failed");
            assert_eq!(f.step, Step::Bootstrap, "{f}");
            let tail = f.error_log_tail.as_deref().unwrap_or("");
            assert!(
                tail.contains(&format!("[ERROR] the twin {own}, beside {other}"))
                    && !tail.contains(&format!("the twin {other},")),
                "{own}: {tail}"
            );
        }
    }

    /// The results directory deleted while the run goes on (here by the
    /// first server's install script): the run stops with an error that
    /// names the directory, instead of making it again and ending well.
    #[test]
    #[ignore = "real parts (the preflight: sysbench, the innodb-lab user, room on /dev/shm): cargo xtask test runs it"]
    fn a_results_directory_deleted_mid_run_stops_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let m = packaged_matrix(
            dir.path(),
            "lost",
            &format!("rm -rf '{}'\nexit 1\n", out.display()),
        );
        let err = format!("{:#}", run(&m, &RunOptions::new(out.clone())).unwrap_err());
        assert!(
            err.contains(&format!(
                "the results directory {} lost its matrix.json",
                out.display()
            )) && err.contains("stopped before writing lost base points-covered-pk 1 thread rep 1"),
            "{err}"
        );
        assert!(!out.exists(), "the directory was made again");
    }

    #[test]
    #[ignore = "real parts (the preflight: sysbench, the innodb-lab user, room on /dev/shm): cargo xtask test runs it"]
    fn gate_on_a_fixed_tree_refuses_the_matrix_before_building() {
        let dir = tempfile::tempdir().unwrap();
        let (src, _) = tree::fake_server_tree(dir.path(), "inline void touch_no_stamp();\n");
        let m = Matrix::new(
            "x",
            vec![TreeEntry {
                spec: format!("path:{}", src.display()).parse().unwrap(),
                name: None,
                variants: vec!["base".into(), "gate".into()],
            }],
            vec![Workload::new("points-covered-pk")],
        );
        let out = dir.path().join("out");
        let opts = RunOptions::new(out.clone());
        let err = format!("{:#}", run(&m, &opts).unwrap_err());
        assert!(
            err.contains("nothing was built") && err.contains("gate") && err.contains("MDEV-33966"),
            "{err}"
        );
        assert!(!out.join("runs").exists(), "no run was attempted");
    }
}
