//! Running a matrix: resolve every tree and variant (refusing the matrix
//! before anything is built when a variant cannot mean anything on its
//! tree), build, then per repetition one server per (tree, variant) that
//! loads the data once and runs every cell in order. Each cell's result is
//! written as soon as it ends; a failure is recorded with its step and the
//! rest of the matrix goes on.

use super::plan::{run_label, tree_label, Plan};
use super::progress::Progress;
use super::Matrix;
use crate::build;
use crate::children;
use crate::dims::ModelPolicy;
use crate::dims::Step;
use crate::host::Host;
use crate::provenance;
use crate::record::Build;
use crate::record::MyCnf;
use crate::record::Tree;
use crate::record::{Cell, CellKey, Failure, RunResult, SCHEMA_VERSION};
use crate::report::analysis::{Analysis, Decision};
use crate::results::manifest::{baseline_first, is_baseline};
use crate::results::question::Kind;
use crate::results::store::Inputs;
use crate::results::{store, Manifest};
use crate::server::{self, Lost, Server, ServerBinaries};
use crate::tree;
use crate::util::{human_duration, slug, Stage};
use crate::variant::SourceChange;
use crate::variant::{self, Resolved};
use crate::workload;
use anyhow::{bail, Context, Result};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Options of `cargo xtask matrix`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub out: PathBuf,
    /// keep each run's datadir on /dev/shm
    pub keep: bool,
    /// re-run cells that already have a matching successful result
    pub force: bool,
    /// after the planned repetitions, repeat the cells whose comparison
    /// is still undecided, up to this many repetitions each
    pub until_decided: Option<u32>,
    /// the matrix file, as given (for the report's reproduction block)
    pub file: Option<PathBuf>,
    /// run only this part of the matrix (`--shard K/N`)
    pub shard: Option<super::Shard>,
}

/// A unit of the plan made concrete: its tree, resolved variant and
/// build, or the failure that stops its cells.
struct Prepared {
    tree_label: String,
    tree: Option<Tree>,
    /// the label its results carry (`fixed`, `base-again`, ...)
    label: String,
    resolved: Option<Resolved>,
    build: Option<Build>,
    binaries: Option<ServerBinaries>,
    failure: Option<Failure>,
}

/// What every result of this invocation shares.
struct Shared<'a> {
    matrix: &'a Matrix,
    opts: &'a RunOptions,
    host: Host,
    revision: String,
}

/// Runs the whole matrix, or its shard; returns the number of failed cells.
pub fn run(full: &Matrix, opts: &RunOptions) -> Result<usize> {
    super::check(full)?;
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
    crate::stale::clean(&server::shm_root());
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
    let mut timings: Vec<(String, f64)> = Vec::new();
    let mut prepared = prepare(matrix, &plan, &mut timings)?;
    // the whole matrix's: merged shards share it
    let manifest = manifest(full, &prepared, opts);
    manifest.write(&opts.out)?;
    build_all(&plan, &mut prepared, &mut timings)?;
    check_option_names(matrix, &prepared)?;

    let runs_start = Instant::now();
    let mut progress = Progress::new(plan.total_cells());
    let mut failed = 0;
    for rep in 1..=plan.repetitions {
        for u in plan.rotation(rep) {
            children::check()?;
            failed += run_server(&ctx, &prepared[u], rep, &plan.cells, &mut progress)?;
        }
    }
    // --until-decided: more interleaved repetitions of the undecided cells
    for rep in plan.repetitions + 1..=opts.until_decided.unwrap_or(0) {
        let results = crate::results::read_results(&opts.out)?;
        let need = undecided_cells(&manifest, &results);
        if need.is_empty() {
            break;
        }
        let mut per_unit = Vec::new();
        for u in plan.rotation(rep) {
            let p = &prepared[u];
            let cells: Vec<(usize, u32)> = plan
                .cells
                .iter()
                .copied()
                .filter(|&(w, t)| {
                    need.contains(&Cell {
                        tree: p.tree_label.clone(),
                        variant: p.label.clone(),
                        workload: matrix.workloads[w].name.clone(),
                        threads: t,
                    })
                })
                .collect();
            progress.add(cells.len());
            per_unit.push((u, cells));
        }
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
    timings.push(("matrix total".into(), matrix_start.elapsed().as_secs_f64()));
    eprintln!("\nstage timings:");
    for (label, secs) in &timings {
        eprintln!("  {:>9}  {label}", human_duration(*secs));
    }
    eprintln!(
        "wrote {} and {}",
        opts.out.join("summary.json").display(),
        opts.out.join("report.md").display()
    );
    Ok(failed)
}

/// What the report needs to know of the matrix, with the labels the runs
/// carry, in the matrix's order (baselines first).
fn manifest(matrix: &Matrix, prepared: &[Prepared], opts: &RunOptions) -> Manifest {
    let mut trees: Vec<String> = Vec::new();
    let mut variants: Vec<String> = Vec::new();
    for p in prepared {
        if !trees.contains(&p.tree_label) {
            trees.push(p.tree_label.clone());
        }
        if !variants.contains(&p.label) {
            variants.push(p.label.clone());
        }
    }
    baseline_first(&mut variants);
    Manifest {
        name: matrix.name.clone(),
        description: matrix.description.clone(),
        trees,
        variants,
        workloads: matrix.workloads.iter().map(|w| w.name.clone()).collect(),
        repetitions: matrix.repetitions,
        control: matrix.control.clone(),
        threshold_pct: matrix.threshold_pct,
        busy_cpu_bound: matrix.busy_cpu_bound,
        until_decided: opts.until_decided,
        questions: matrix.questions.clone(),
        file: opts.file.as_ref().map(|f| f.display().to_string()),
        matrix_sha256: opts
            .file
            .as_ref()
            .and_then(|f| fs::read(f).ok())
            .map(|bytes| crate::util::sha256_hex(&bytes)),
        shard: opts.shard.map(|s| s.to_string()),
    }
}

/// The cells a comparison or a question is still undecided on, with the
/// cells they are compared against.
pub fn undecided_cells(manifest: &Manifest, results: &[RunResult]) -> BTreeSet<Cell> {
    let a = Analysis::new(manifest.clone(), results);
    let mut need = BTreeSet::new();
    for (cell, c) in &a.comparisons {
        if c.verdict == Decision::Undecided {
            need.insert(cell.clone());
            need.insert(cell.with_variant(&c.against));
        }
    }
    for q in &manifest.questions {
        if q.kind != Kind::NoSlower {
            continue;
        }
        for c in &a.cells {
            let asked = c.cell.variant == q.variant
                || (q.variant == "base" && is_baseline(&c.cell.variant));
            if asked && (q.workloads.is_empty() || q.workloads.contains(&c.cell.workload)) {
                let base = crate::report::verdict::against_cell(&a, q, &c.cell);
                if a.compare_cells(&c.cell, &base, q.metric()).verdict == Decision::Undecided {
                    need.insert(c.cell.clone());
                    need.insert(base);
                }
            }
        }
    }
    need
}

/// Resolves every tree and variant of the plan. A variant that cannot
/// mean anything on its tree refuses the whole matrix here, before
/// anything is built; a tree that cannot be fetched fails only its cells.
fn prepare(
    matrix: &Matrix,
    plan: &Plan,
    timings: &mut Vec<(String, f64)>,
) -> Result<Vec<Prepared>> {
    let mut trees: Vec<Result<Tree, String>> = Vec::new();
    for entry in &matrix.trees {
        let stage = Stage::start(format!("tree {}", entry.spec));
        trees.push(tree::resolve(&entry.spec).map_err(|e| format!("{e:#}")));
        timings.push((format!("tree {}", entry.spec), stage.done()));
    }
    let mut prepared: Vec<Prepared> = Vec::new();
    for unit in &plan.units {
        let entry = &matrix.trees[unit.tree];
        let tree = &trees[unit.tree];
        let tree_label = entry
            .name
            .clone()
            .or_else(|| tree.as_ref().ok().map(|t| t.version.clone()))
            .unwrap_or_else(|| tree_label(entry));
        let mut p = Prepared {
            tree_label: tree_label.clone(),
            tree: tree.as_ref().ok().cloned(),
            label: run_label(&unit.variant, unit.again),
            resolved: None,
            build: None,
            binaries: None,
            failure: None,
        };
        match tree {
            Err(e) => p.failure = Some(Failure::new(Step::Tree, e.clone())),
            Ok(t) => match variant::resolve(&matrix.variants, t, &unit.variant) {
                Ok(r) => {
                    p.label = run_label(&r.label, unit.again);
                    p.resolved = Some(r);
                }
                Err(e) => p.failure = Some(Failure::new(Step::Tree, format!("{e:#}"))),
            },
        }
        if prepared
            .iter()
            .any(|q| q.tree_label == p.tree_label && q.label == p.label)
        {
            p.failure = Some(Failure::new(
                Step::Tree,
                format!(
                    "variant `{}` of tree `{tree_label}` is the same as another variant listed \
                     for it (`{}`); list it once",
                    unit.variant, p.label
                ),
            ));
        }
        if let Some(f) = &p.failure {
            eprintln!("error: {tree_label} {}: {}", unit.variant, f.message);
        }
        prepared.push(p);
    }

    // A variant that cannot mean anything on its tree (gate on a tree with
    // the fix, a patch for a packaged server, no patch for the series) is a
    // mistake in the matrix: refuse the whole matrix before building.
    let refused: Vec<String> = prepared
        .iter()
        .filter(|p| p.tree.is_some() && p.failure.is_some())
        .map(|p| {
            format!(
                "  {} {}: {}",
                p.tree_label,
                p.label,
                p.failure.as_ref().map(|f| f.message.as_str()).unwrap_or("")
            )
        })
        .collect();
    if !refused.is_empty() {
        bail!(
            "the matrix asks for variants that cannot be built; nothing was built:\n{}",
            refused.join("\n")
        );
    }
    Ok(prepared)
}

/// Builds every prepared (tree, variant) once, or finds its packaged
/// binary; the control's second run shares its variant's build. A failure
/// is recorded on the variant and the others go on.
fn build_all(
    plan: &Plan,
    prepared: &mut [Prepared],
    timings: &mut Vec<(String, f64)>,
) -> Result<()> {
    // unpatched first, so that patched variants find the cache warm
    let mut order: Vec<usize> = (0..prepared.len())
        .filter(|&i| !plan.units[i].again)
        .collect();
    order.sort_by_key(|&i| {
        prepared[i]
            .resolved
            .as_ref()
            .is_some_and(|r| !matches!(r.change, SourceChange::None))
    });
    for i in order {
        children::check()?;
        let p = &mut prepared[i];
        let (Some(t), Some(r), None) = (&p.tree, &p.resolved, &p.failure) else {
            continue;
        };
        if let Some(pkg) = &t.package {
            match ServerBinaries::from_package(pkg) {
                Ok(b) => p.binaries = Some(b),
                Err(e) => p.failure = Some(Failure::new(Step::Build, format!("{e:#}"))),
            }
            continue;
        }
        let label = format!("build {} {}", p.tree_label, p.label);
        let stage = Stage::start(&label);
        let built = build::build(t, &p.label, &r.change, r.build_type)
            .and_then(|b| Ok((ServerBinaries::from_build(&b)?, b)));
        match built {
            Ok((binaries, b)) => {
                p.build = Some(b);
                p.binaries = Some(binaries);
            }
            Err(e) => {
                if let Some(i) = children::interruption_in(&e) {
                    return Err(e.context(i));
                }
                eprintln!("error: {label}: {e:#}");
                p.failure = Some(Failure::new(Step::Build, format!("{e:#}")));
            }
        }
        timings.push((label, stage.done()));
    }
    // the control's second run: the same build as its first
    for i in 0..prepared.len() {
        let u = &plan.units[i];
        if !u.again || prepared[i].failure.is_some() {
            continue;
        }
        let first = plan
            .units
            .iter()
            .position(|o| !o.again && o.tree == u.tree && o.variant == u.variant)
            .expect("a control's second run follows its first");
        let (build, binaries, failure) = (
            prepared[first].build.clone(),
            prepared[first].binaries.clone(),
            prepared[first].failure.clone(),
        );
        let p = &mut prepared[i];
        p.build = build;
        p.binaries = binaries;
        p.failure = failure;
    }
    Ok(())
}

/// Refuses the matrix, before any server runs, when a variant sets an
/// option its built server does not know (asked of the binary itself).
fn check_option_names(matrix: &Matrix, prepared: &[Prepared]) -> Result<()> {
    let mut refused = Vec::new();
    let mut known_of = std::collections::BTreeMap::new();
    for p in prepared {
        let (Some(b), Some(r)) = (&p.binaries, &p.resolved) else {
            continue;
        };
        if r.settings.is_empty() {
            continue;
        }
        if !known_of.contains_key(&b.mariadbd) {
            let known = crate::settings::known_options(&b.mariadbd)
                .with_context(|| format!("cannot list the options of {}", b.mariadbd.display()))?;
            known_of.insert(b.mariadbd.clone(), known);
        }
        for key in crate::settings::unknown(r.settings.keys(), &known_of[&b.mariadbd]) {
            refused.push(format!(
                "  {} {}: settings key `{key}`: {} knows no such option (`mariadbd --help \
                 --verbose`; a plugin's option must be written loose_{key})",
                p.tree_label,
                p.label,
                b.mariadbd.display()
            ));
        }
    }
    if !refused.is_empty() {
        bail!(
            "matrix `{}` sets options its servers do not know; nothing was run:\n{}",
            matrix.name,
            refused.join("\n")
        );
    }
    Ok(())
}

/// One server: start, load the data, run `cells` in order; returns the
/// number of failed cells.
fn run_server(
    ctx: &Shared,
    p: &Prepared,
    rep: u32,
    cells: &[(usize, u32)],
    progress: &mut Progress,
) -> Result<usize> {
    let matrix = ctx.matrix;
    let settings = p
        .resolved
        .as_ref()
        .map(|r| r.settings.clone())
        .unwrap_or_default();
    let key_of = |w: usize, threads: u32| {
        CellKey::new(
            &p.tree_label,
            &p.label,
            &matrix.workloads[w].name,
            threads,
            rep,
        )
    };
    // the resume check: cells with a matching successful result are done
    let mut todo = Vec::new();
    for &(w, threads) in cells {
        let key = key_of(w, threads);
        let inputs = Inputs {
            workload: &matrix.workloads[w],
            build_key: p.build.as_ref().map(|b| b.key_hash.as_str()),
            settings: &settings,
        };
        let done = !ctx.opts.force
            && store::previous(&ctx.opts.out, &key).is_some_and(|prev| inputs.done_by(&prev));
        if done {
            eprintln!("--- {} {key}: already done", progress.counter());
            progress.skipped();
        } else {
            todo.push((w, threads, key));
        }
    }
    if todo.is_empty() {
        return Ok(0);
    }
    let blank = |w: usize, key: &CellKey| RunResult {
        schema_version: SCHEMA_VERSION,
        matrix: matrix.name.clone(),
        key: key.clone(),
        failure: None,
        tree_info: p.tree.clone(),
        build: p.build.clone(),
        variant_settings: settings.clone(),
        my_cnf: None,
        my_cnf_text: None,
        workload_def: matrix.workloads[w].clone(),
        host: ctx.host.clone(),
        tool_revision: ctx.revision.clone(),
        started_unix: provenance::unix_now(),
        wall_seconds: 0.0,
        data_phases: Vec::new(),
        outcome: None,
        clean_shutdown: None,
    };
    // every cell of a server that cannot run fails with the same reason
    let fail_all = |failure: Failure, progress: &mut Progress| -> Result<usize> {
        for (w, _, key) in &todo {
            eprintln!("error: {} {key}: {failure}", progress.counter());
            let mut r = blank(*w, key);
            r.failure = Some(failure.clone());
            r.write(&ctx.opts.out)?;
            progress.finished();
        }
        Ok(todo.len())
    };
    let (Some(tree), Some(binaries), None) = (&p.tree, &p.binaries, &p.failure) else {
        let failure = p
            .failure
            .clone()
            .unwrap_or_else(|| Failure::new(Step::Build, "not built"));
        return fail_all(failure, progress);
    };

    progress.restart_clock();
    let server_label = format!("{} {} rep {rep}", p.tree_label, p.label);
    eprintln!("==> server {server_label}: {} cell(s)", todo.len());
    let shm = Path::new("/dev/shm");
    let mut cnf = MyCnf::for_series(tree.series, &ctx.host, server::is_tmpfs(shm));
    for (k, v) in &settings {
        cnf.set(k, v);
    }
    let name = slug(&format!("{}-{}-rep{rep}", p.tree_label, p.label));
    let mut server = match Server::start(binaries, &cnf, &name, ctx.opts.keep) {
        Ok(s) => s,
        Err(e) if children::interruption_in(&e).is_some() => return Err(e),
        // the bootstrap carries its own step; anything else is the start
        Err(e) => return fail_all(Failure::from_error(&e, Step::Start), progress),
    };
    let cnf_text = fs::read_to_string(&server.dir.cnf).ok();
    let logs = ctx.opts.out.join("logs").join(&name);
    // every workload of a matrix has the same tables (checked on load)
    let first_workload = &matrix.workloads[todo[0].0];
    let data_phases = match workload::prepare_data(first_workload, &mut server, &logs) {
        Ok(phases) => phases,
        Err(e) if children::interruption_in(&e).is_some() => return Err(e),
        Err(e) => {
            let mut f = Failure::from_error(&e, Step::Prepare);
            f.error_log_tail = Some(server.error_log_tail());
            match server.lost() {
                Some(Lost::Hung) => {
                    f.message = format!(
                        "mariadbd stopped answering (hung) and was killed: {}",
                        f.message
                    )
                }
                Some(Lost::Died(status)) => {
                    f.message = format!("mariadbd died ({status}): {}", f.message)
                }
                None => {}
            }
            if ctx.opts.keep {
                server.keep_files();
            }
            return fail_all(f, progress);
        }
    };

    let mut written: Vec<RunResult> = Vec::new();
    let mut failed = 0;
    // after the server died, the cells left fail with this
    let mut dead: Option<Failure> = None;
    for (w, threads, key) in &todo {
        let mut r = blank(*w, key);
        r.my_cnf = Some(cnf.clone());
        r.my_cnf_text = cnf_text.clone();
        r.data_phases = data_phases.clone();
        if let Some(f) = &dead {
            r.failure = Some(f.clone());
        } else {
            eprintln!("==> {} {key}", progress.counter());
            let start = Instant::now();
            let cell_logs = logs.join(slug(&format!("{}-t{threads}", matrix.workloads[*w].name)));
            match workload::execute_cell(&matrix.workloads[*w], *threads, &mut server, &cell_logs) {
                Ok(mut o) => {
                    if let (Some(sl), Some(t), Some(res)) = (&mut o.scan_loop, &p.tree, &p.resolved)
                    {
                        sl.model_policy = model_policy(t, &res.change);
                    }
                    r.outcome = Some(o)
                }
                Err(e) if children::interruption_in(&e).is_some() => {
                    // the current cell is recorded as interrupted; the
                    // server's Drop removes its run directory
                    let i = children::interruption_in(&e).expect("checked");
                    let mut f = Failure::from_error(&e, Step::Measured);
                    f.message = format!("{i} during {}", f.step);
                    r.failure = Some(f);
                    r.wall_seconds = start.elapsed().as_secs_f64();
                    r.write(&ctx.opts.out)?;
                    eprintln!("error: {key}: {i}: recorded as interrupted");
                    if ctx.opts.keep {
                        server.keep_files();
                    }
                    drop(server);
                    return Err(i.into());
                }
                Err(e) => {
                    let mut f = Failure::from_error(&e, Step::Measured);
                    // died, or stopped/deadlocked (then killed): the
                    // cells left on this server fail, the matrix goes on
                    let gone = match server.lost() {
                        Some(Lost::Died(status)) => Some(format!("mariadbd died ({status})")),
                        Some(Lost::Hung) => {
                            Some("mariadbd stopped answering (hung) and was killed".into())
                        }
                        None => None,
                    };
                    if let Some(what) = gone {
                        f.message = format!("{what}: {}", f.message);
                        f.error_log_tail = Some(server.error_log_tail());
                        dead = Some(Failure {
                            message: format!(
                                "the server was lost in an earlier cell ({key}): {}",
                                f.message
                            ),
                            ..f.clone()
                        });
                    }
                    r.failure = Some(f);
                }
            }
            r.wall_seconds = start.elapsed().as_secs_f64();
        }
        match &r.failure {
            Some(f) => {
                failed += 1;
                eprintln!("error: {key}: {f}");
            }
            None => {
                if let Some(m) = r.measured() {
                    eprintln!(
                        "    qps {:.0}, p95 {:.2} ms, pages made young/query {:.3}, cs/query {:.2}",
                        m.sysbench.qps,
                        m.sysbench.p95_ms,
                        m.pages_made_young_per_query,
                        m.cs_per_query
                    );
                    if crate::results::metric::busy(&r, matrix.busy_cpu_bound) {
                        eprintln!(
                            "    busy host: other processes used {:.2} cores (bound {}): \
                             this run is flagged and left out of comparisons",
                            crate::results::metric::other_cores_busy(&r).unwrap_or(f64::NAN),
                            matrix.busy_cpu_bound
                        );
                    }
                }
            }
        }
        r.write(&ctx.opts.out)?;
        written.push(r);
        progress.finished();
        eprintln!("    {}", progress.status());
    }

    if ctx.opts.keep {
        server.keep_files();
    }
    let clean = if dead.is_some() {
        Some(false)
    } else {
        server.stop().ok()
    };
    if clean == Some(false) {
        eprintln!("warning: {server_label}: the server did not shut down cleanly");
    }
    // the shutdown is part of every cell's record: rewrite them with it
    for mut r in written {
        r.clean_shutdown = clean;
        r.write(&ctx.opts.out)?;
    }
    Ok(failed)
}

/// The LRU model's policy for a variant of a tree (report::scan reads
/// it): the tree as it is follows its series' rule, our fixed patch the
/// lazy policy with its rule for a short LRU; other patches (gate, clock)
/// change rules the model does not have.
fn model_policy(t: &Tree, change: &SourceChange) -> Option<ModelPolicy> {
    match change {
        _ if t.has_upstream_fix => Some(ModelPolicy::Lazy),
        SourceChange::None if !t.series.has_eager_promotion() => Some(ModelPolicy::Classic),
        SourceChange::None => Some(ModelPolicy::Eager),
        SourceChange::Patch(p) if p.file.file_name().is_some_and(|f| f == "fixed.patch") => {
            Some(ModelPolicy::LazyPort)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::TreeEntry;
    use crate::record::Workload;

    /// A packaged "server" whose install script fails: every cell of every
    /// server fails in the bootstrap step with the script's output as its
    /// tail, each result is written, the report names them, and the matrix
    /// goes on to the end (no real server needed).
    #[test]
    fn a_server_that_cannot_bootstrap_fails_its_cells_with_the_step() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("usr");
        for (file, text) in [
            (
                "sbin/mariadbd",
                "#!/bin/sh\necho 'mariadbd  Ver 10.11.18-MariaDB for debian-linux-gnu'\n",
            ),
            (
                "bin/mariadb-install-db",
                "#!/bin/sh\necho '[ERROR] cannot create the datadir: fixture' >&2\nexit 1\n",
            ),
        ] {
            let path = prefix.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(&path, text).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let mut w = Workload::new("points-covered-pk");
        w.threads = crate::record::Threads::List(vec![1, 2]);
        let mut m = Matrix::new(
            "x",
            vec![TreeEntry {
                spec: format!("pkg:{}", prefix.join("sbin/mariadbd").display()),
                name: Some("pkg".into()),
                variants: vec!["base".into()],
            }],
            vec![w],
        );
        m.repetitions = 2;
        m.control = Some("base".into());
        let out = dir.path().join("out");
        let opts = RunOptions {
            out: out.clone(),
            keep: false,
            force: false,
            until_decided: None,
            file: None,
            shard: None,
        };
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

    #[test]
    fn gate_on_a_fixed_tree_refuses_the_matrix_before_building() {
        let dir = tempfile::tempdir().unwrap();
        let (src, _) = tree::fake_server_tree(dir.path(), "inline void touch_no_stamp();\n");
        let m = Matrix::new(
            "x",
            vec![TreeEntry {
                spec: format!("path:{}", src.display()),
                name: None,
                variants: vec!["base".into(), "gate".into()],
            }],
            vec![Workload::new("points-covered-pk")],
        );
        let out = dir.path().join("out");
        let opts = RunOptions {
            out: out.clone(),
            keep: false,
            force: false,
            until_decided: None,
            file: None,
            shard: None,
        };
        let err = format!("{:#}", run(&m, &opts).unwrap_err());
        assert!(
            err.contains("nothing was built") && err.contains("gate") && err.contains("MDEV-33966"),
            "{err}"
        );
        assert!(!out.join("runs").exists(), "no run was attempted");
    }
}
