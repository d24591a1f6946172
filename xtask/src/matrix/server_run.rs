//! One server of a repetition: start it, load the data once, run its cells
//! in order, stop it. A server that cannot start fails all its cells with
//! the same reason; one lost mid-way fails the cells left.

use super::cell::{self, After};
use super::progress::Progress;
use super::resume::cells_to_run;
use super::run_state::{Prepared, Shared};
use crate::children;
use crate::dims::{CnfBase, Step};
use crate::record::{CellKey, Failure, MyCnf, Phase, RunResult, Tree, Workload};
use crate::server::{self, Server};
use crate::workload;
use anyhow::Result;
use std::fs;
use std::path::Path;

/// Runs `cells` of repetition `rep` of `p` on one server; returns the
/// number of failed cells.
pub(super) fn run_server(
    ctx: &Shared,
    p: &Prepared,
    rep: u32,
    cells: &[(usize, u32)],
    progress: &mut Progress,
) -> Result<usize> {
    let matrix = ctx.matrix;
    let settings = p.resolved().map(|r| r.settings.clone()).unwrap_or_default();
    let runs = server::RunRoot::of(matrix.datadir);
    let my_cnf = |tree: &Tree| server_cnf(ctx, tree, &runs, &settings);
    let planned_cnf = p.tree().map(my_cnf);
    let todo = cells_to_run(
        ctx,
        p,
        rep,
        &settings,
        planned_cnf.as_ref(),
        cells,
        progress,
    )?;
    // the cost pass, on a server of its own under callgrind
    let costs = matrix.cost_server_after(rep, &p.label);
    if todo.is_empty() {
        if costs {
            progress.cost_skipped();
        }
        return Ok(0);
    }
    let blank = |w: usize, key: &CellKey| cell::blank_record(ctx, p, &settings, w, key);
    // every cell of a server that cannot run fails with the same reason
    let fail_all = |failure: Failure, progress: &mut Progress| -> Result<usize> {
        for (w, _, key) in &todo {
            eprintln!("error: {} {key}: {failure}", progress.counter());
            let mut r = blank(*w, key);
            r.failure = Some(failure.clone());
            ctx.save(&r)?;
            progress.finished();
        }
        if costs {
            progress.cost_skipped();
        }
        Ok(todo.len())
    };
    let (binaries, cnf) = match &p.state {
        Ok(ready) => (&ready.binaries, my_cnf(&ready.tree)),
        Err(failed) => return fail_all(failed.failure.clone(), progress),
    };

    progress.restart_clock();
    let server_label = format!("{} {} rep {rep}", p.tree_label, p.label);
    eprintln!("==> server {server_label}: {} cell(s)", todo.len());
    // a server of its own per workload: named for it
    let workload = matrix
        .fresh_server
        .then(|| matrix.workloads[todo[0].0].name.as_str());
    let name = super::plan::server_name(&p.tree_label, &p.label, rep, workload);
    let mut server = match Server::start(binaries, &cnf, &runs, &name, ctx.opts.keep) {
        Ok(s) => s,
        Err(e) if children::interruption_in(&e).is_some() => return Err(e),
        // the bootstrap carries its own step; anything else is the start
        Err(e) => {
            let f = Failure::from_error(&e, Step::Start);
            let said = f.error_log_tail.clone().unwrap_or_default();
            return fail_all(cell::with_room_note(f, &runs.path, &said), progress);
        }
    };
    let cnf_text = fs::read_to_string(&server.dir.cnf).ok();
    let logs = ctx.opts.out.join("logs").join(&name);
    // every workload of a matrix has the same tables (checked on load)
    let first_workload = &matrix.workloads[todo[0].0];
    let data_phases = match prepare(ctx, first_workload, &mut server, &logs)? {
        Ok(phases) => phases,
        Err(f) => return fail_all(f, progress),
    };
    let new_record = |w: usize, key: &CellKey| {
        let mut r = blank(w, key);
        r.my_cnf = Some(cnf.clone());
        r.my_cnf_text = cnf_text.clone();
        r.data_phases = data_phases.clone();
        r
    };
    let (mut written, failed, lost) =
        run_cells(ctx, p, &mut server, &todo, &logs, &new_record, progress)?;

    stop(
        ctx,
        server,
        lost.is_some(),
        &server_label,
        &cnf,
        &mut written,
    )?;
    match p.tree().map(|t| t.series) {
        Some(series) if costs && lost.is_none() => {
            let started = std::time::Instant::now();
            let cost_cnf = super::cost_run::cost_cnf(&cnf, series);
            super::cost_run::run_cost_server(ctx, binaries, &cost_cnf, &name, &logs, &mut written)?;
            progress.cost_finished(started.elapsed().as_secs_f64());
        }
        _ if costs => progress.cost_skipped(),
        _ => {}
    }
    Ok(failed)
}

/// The my.cnf a server gets: Mark's settings scaled to this host and to
/// where its datadir is (or the server's defaults, as the matrix says),
/// then the variant's (the resume check compares it).
fn server_cnf(
    ctx: &Shared,
    tree: &Tree,
    runs: &server::RunRoot,
    settings: &std::collections::BTreeMap<String, String>,
) -> MyCnf {
    let mut cnf = match ctx.matrix.my_cnf {
        CnfBase::Mark => MyCnf::for_series(tree.series, &ctx.host, runs.on_tmpfs()),
        CnfBase::Defaults => MyCnf::server_defaults(tree.series, runs.on_tmpfs()),
    };
    for (k, v) in settings {
        cnf.set(k, v);
    }
    cnf
}

/// Stops the server (a lost one is not clean) and rewrites every cell's
/// record with how it shut down, and with its page trace replayed where
/// the build traces (its page stream is complete once it stopped).
fn stop(
    ctx: &Shared,
    mut server: Server,
    lost: bool,
    server_label: &str,
    cnf: &MyCnf,
    written: &mut [RunResult],
) -> Result<()> {
    if ctx.opts.keep {
        server.keep_files();
    }
    let clean = Some(!lost && server.stop_keeping_files());
    if clean == Some(false) {
        eprintln!("warning: {server_label}: the server did not shut down cleanly");
    }
    super::trace_replay::replay_cells(&server.dir.page_trace(), cnf, written);
    drop(server);
    for r in written.iter_mut() {
        r.clean_shutdown = clean;
        ctx.save(r)?;
    }
    Ok(())
}

/// Loads the matrix's data into the server once. The inner error is a
/// failure of the load, which every cell of the server records; the
/// outer one an interruption, which stops the matrix.
fn prepare(
    ctx: &Shared,
    first_workload: &Workload,
    server: &mut Server,
    logs: &Path,
) -> Result<std::result::Result<Vec<Phase>, Failure>> {
    match workload::prepare_data(first_workload, server, logs, None) {
        Ok(phases) => Ok(Ok(phases)),
        Err(e) if children::interruption_in(&e).is_some() => Err(e),
        Err(e) => {
            let f = Failure::from_error(&e, Step::Prepare);
            let tail = server.error_log_tail();
            let mut f = cell::with_room_note(f, &server.dir.root, &tail);
            f.error_log_tail = Some(tail);
            if let Some(what) = cell::lost(server) {
                f.message = format!("{what}: {}", f.message);
            }
            if ctx.opts.keep {
                server.keep_files();
            }
            Ok(Err(f))
        }
    }
}

/// Runs the cells in order on `server`, saving each record as it ends;
/// once the server is lost, the cells left fail with its reason. Returns
/// the records, how many failed, and the loss.
fn run_cells(
    ctx: &Shared,
    p: &Prepared,
    server: &mut Server,
    todo: &[(usize, u32, CellKey)],
    logs: &Path,
    new_record: &dyn Fn(usize, &CellKey) -> RunResult,
    progress: &mut Progress,
) -> Result<(Vec<RunResult>, usize, Option<Failure>)> {
    let mut written: Vec<RunResult> = Vec::new();
    let mut failed = 0;
    let mut lost: Option<Failure> = None;
    for (w, threads, key) in todo {
        let mut r = new_record(*w, key);
        if let Some(f) = &lost {
            r.failure = Some(f.clone());
        } else {
            eprintln!("==> {} {key}", progress.counter());
            match cell::run_cell(ctx, p, server, (*w, *threads), logs, &mut r) {
                Ok(After::GoOn) => {}
                Ok(After::ServerLost(f)) => lost = Some(f),
                Err(e) => {
                    if ctx.opts.keep {
                        server.keep_files();
                    }
                    return Err(e);
                }
            }
        }
        if r.failure.is_some() {
            failed += 1;
        }
        cell::print_end(&r, ctx.matrix.busy_cpu_bound);
        ctx.save(&r)?;
        written.push(r);
        progress.finished();
        eprintln!("    {}", progress.status());
    }
    Ok((written, failed, lost))
}
