//! One cell on a running server: its record (with the provenance every
//! result carries), the workload run, and what a failure means for the
//! cells after it.

use super::prepare::model_policy;
use super::run_state::{Prepared, Shared};
use crate::children;
use crate::dims::Step;
use crate::provenance;
use crate::record::{CellKey, Failure, RunResult, SCHEMA_VERSION};
use crate::server::{Lost, Server};
use crate::util::slug;
use crate::util::space::NO_ROOM;
use crate::workload;
use anyhow::Result;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// The record of a cell before it runs: what made it (tree, build,
/// settings, workload, host, tool revision), nothing measured yet.
pub(super) fn blank_record(
    ctx: &Shared,
    p: &Prepared,
    settings: &BTreeMap<String, String>,
    w: usize,
    key: &CellKey,
) -> RunResult {
    RunResult {
        schema_version: SCHEMA_VERSION,
        matrix: ctx.matrix.name.clone(),
        key: key.clone(),
        failure: None,
        tree_info: p.tree().cloned(),
        build: p.build().cloned(),
        variant_settings: settings.clone(),
        my_cnf: None,
        my_cnf_text: None,
        workload_def: ctx.matrix.workloads[w].clone(),
        host: ctx.host.clone(),
        tool_revision: ctx.revision.clone(),
        started_unix: provenance::unix_now(),
        wall_seconds: 0.0,
        data_phases: Vec::new(),
        outcome: None,
        clean_shutdown: None,
    }
}

/// What the cell's end means for the cells after it on the same server.
pub(super) enum After {
    /// the server is fine: the next cell runs
    GoOn,
    /// the server died or hung (and was killed): the cells left fail with
    /// this failure
    ServerLost(Failure),
}

/// Runs workload `w` at `threads` into `r`. An interruption is recorded in
/// `r` (written) and returned as the error; any other failure is recorded
/// in `r` with its step.
pub(super) fn run_cell(
    ctx: &Shared,
    p: &Prepared,
    server: &mut Server,
    (w, threads): (usize, u32),
    logs: &Path,
    r: &mut RunResult,
) -> Result<After> {
    let workload = &ctx.matrix.workloads[w];
    let start = Instant::now();
    let cell_logs = logs.join(slug(&format!("{}-t{threads}", workload.name)));
    let mut after = After::GoOn;
    // the profile pass runs in the first repetition of a cell only: its
    // stacks describe the cell, and profiling costs time
    let profile = (r.key.repetition == 1).then(|| workload::ProfileTarget {
        out: ctx.opts.out.clone(),
        stem: profile_stem(&r.key),
    });
    match workload::execute_cell(workload, threads, server, &cell_logs, profile.as_ref()) {
        Ok(mut o) => {
            if let (Some(sl), Ok(ready)) = (&mut o.scan_loop, &p.state) {
                sl.model_policy = model_policy(&ready.tree, &ready.resolved.change);
            }
            r.outcome = Some(o)
        }
        Err(e) if children::interruption_in(&e).is_some() => {
            // the current cell is recorded as interrupted; the server's
            // Drop (in the caller) removes its run directory
            let i = children::interruption_in(&e).expect("checked");
            let mut f = Failure::from_error(&e, Step::Measured);
            f.message = format!("{i} during {}", f.step);
            r.failure = Some(f);
            r.wall_seconds = start.elapsed().as_secs_f64();
            ctx.save(r)?;
            eprintln!("error: {}: {i}: recorded as interrupted", r.key);
            return Err(i.into());
        }
        Err(e) => {
            let f = Failure::from_error(&e, Step::Measured);
            let mut f = with_room_note(f, &server.dir.root, &server.error_log_tail());
            // died, or stopped/deadlocked (then killed): the cells left on
            // this server fail, the matrix goes on
            if let Some(what) = lost(server) {
                f.message = format!("{what}: {}", f.message);
                f.error_log_tail = Some(server.error_log_tail());
                after = After::ServerLost(Failure {
                    message: format!(
                        "the server was lost in an earlier cell ({}): {}",
                        r.key, f.message
                    ),
                    ..f.clone()
                });
            }
            r.failure = Some(f);
        }
    }
    r.wall_seconds = start.elapsed().as_secs_f64();
    Ok(after)
}

/// `profiles/<tree>.<variant>.<workload>.t<threads>`: one flat name per
/// cell, so that its files can be attached to a ticket as they are.
fn profile_stem(key: &CellKey) -> String {
    format!(
        "profiles/{}.{}.{}.t{}",
        slug(&key.tree),
        slug(&key.variant),
        slug(&key.workload),
        key.threads
    )
}

/// A failure of a server that found no room (its datadir could not grow:
/// the filesystem of `dir` is full, or its error log `said` so) says so,
/// naming the filesystem, unless the server's start said so already.
pub(super) fn with_room_note(mut f: Failure, dir: &Path, said: &str) -> Failure {
    let said = format!("{said}\n{}", f.message);
    if let Some(note) = crate::util::space::no_room(dir, &said, None) {
        if !f.message.contains(NO_ROOM) {
            f.message = format!("{}; {note}", f.message);
        }
    }
    f
}

/// How the server was lost, in the words a failure message starts with.
pub(super) fn lost(server: &mut Server) -> Option<String> {
    let name = server.engine.server_binary();
    match server.lost() {
        Some(Lost::Died(status)) => Some(format!("{name} died ({status})")),
        Some(Lost::Hung) => Some(format!("{name} stopped answering (hung) and was killed")),
        None => None,
    }
}

/// The line the progress output gives a finished cell.
pub(super) fn print_end(r: &RunResult, busy_cpu_bound: f64) {
    match &r.failure {
        Some(f) => eprintln!("error: {}: {f}", r.key),
        None => {
            let Some(m) = r.measured() else { return };
            eprintln!(
                "    qps {:.0}, p95 {:.2} ms, pages made young/query {:.3}, cs/query {:.2}",
                m.sysbench.qps, m.sysbench.p95_ms, m.pages_made_young_per_query, m.cs_per_query
            );
            if crate::results::metric::busy(r, busy_cpu_bound) {
                eprintln!(
                    "    busy host: other processes used {:.2} cores (bound {}): \
                     this run is flagged and left out of comparisons",
                    crate::results::metric::other_cores_busy(r).unwrap_or(f64::NAN),
                    busy_cpu_bound
                );
            }
        }
    }
}
