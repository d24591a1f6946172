//! The cost server of a repetition (`cost_passes`): after a server's
//! timed cells, the same build and settings under callgrind, its data
//! loaded and armed again, each cell's cost pass in the timed cells'
//! order. What it measures joins the timed cells' records
//! (`Outcome::cost`); what it cannot measure is recorded there as not
//! measured, and never fails a timed cell.

use super::run_state::Shared;
use crate::children;
use crate::dims::Series;
use crate::record::{CostPass, MyCnf, NotMeasured, Outcome, RunResult};
use crate::server::{Launch, RunRoot, Server, ServerBinaries};
use crate::workload;
use anyhow::Result;
use std::path::Path;

/// The name the not-measured entry of a cost pass carries.
const METRIC: &str = "instructions_per_query (cost pass)";

/// The suffix of a cost server's name (its run directory and socket).
pub(super) const NAME_SUFFIX: &str = "-cg";

/// The timed server's my.cnf as the cost server needs it: the pool
/// reserved at its own size (the default reservation of 10.11 and later
/// cannot be mapped under Valgrind), synchronous I/O (Valgrind does not
/// follow io_uring or libaio completions).
pub(super) fn cost_cnf(timed: &MyCnf, series: Series) -> MyCnf {
    let mut cnf = timed.clone();
    cnf.set("innodb_use_native_aio", "0");
    if series >= Series::new(10, 11) {
        if let Some(pool) = timed.get("innodb_buffer_pool_size").map(str::to_string) {
            cnf.set("innodb_buffer_pool_size_max", &pool);
        }
    }
    cnf
}

/// Runs the cost passes of `cells` (the timed server's records, each
/// saved again with its cost) on a server started from `binaries` with
/// `cnf`. An interruption is returned; anything else is recorded.
pub(super) fn run_cost_server(
    ctx: &Shared,
    binaries: &ServerBinaries,
    cnf: &MyCnf,
    name: &str,
    logs: &Path,
    cells: &mut [RunResult],
) -> Result<()> {
    let runs = RunRoot::of(ctx.matrix.datadir);
    let todo: Vec<usize> = (0..cells.len())
        .filter(|&i| cells[i].failure.is_none() && cells[i].outcome.is_some())
        .collect();
    let Some(&first) = todo.first() else {
        return Ok(());
    };
    // a pass that counts events runs the same statements every time; its
    // pages must be the same too, so the data and the arming are seeded,
    // and one purge thread removes the arming's history in its own order
    // (several split it between them as they happen to run)
    let counts_events = todo.iter().any(|&i| cells[i].workload_def.cost_events > 0);
    let seed = counts_events.then_some(workload::COST_SEED);
    let mut cnf = cnf.clone();
    if counts_events {
        cnf.set("innodb_purge_threads", "1");
    }
    let name = format!("{name}{NAME_SUFFIX}");
    let logs = logs.join("cost");
    eprintln!(
        "==> cost pass {name}: {} cell(s) under callgrind",
        todo.len()
    );
    let started = std::time::Instant::now();
    let record_all = |cells: &mut [RunResult], why: &str| -> Result<()> {
        for &i in &todo {
            let o = cells[i].outcome.as_mut().expect("filtered");
            if o.cost.is_none() {
                o.not_measured.push(NotMeasured {
                    metric: METRIC.into(),
                    reason: why.to_string(),
                });
            }
            ctx.save(&cells[i])?;
        }
        Ok(())
    };
    let mut server = match Server::start_as(
        binaries,
        &cnf,
        &runs,
        &name,
        ctx.opts.keep,
        Launch::Callgrind,
    ) {
        Ok(s) => s,
        Err(e) if children::interruption_in(&e).is_some() => return Err(e),
        Err(e) => return record_all(cells, &format!("the server under callgrind: {e:#}")),
    };
    let first_workload = cells[first].workload_def.clone();
    match workload::prepare_data(&first_workload, &mut server, &logs, seed) {
        Ok(_) => {}
        Err(e) if children::interruption_in(&e).is_some() => return Err(e),
        Err(e) => {
            let why = format!("loading the data under callgrind: {e:#}");
            return record_all(cells, &why);
        }
    }
    for &i in &todo {
        let (w, threads) = (cells[i].workload_def.clone(), cells[i].key.threads);
        let key = cells[i].key.clone();
        let result = workload::execute_cost_cell(&w, threads, &server, &logs);
        let o = cells[i].outcome.as_mut().expect("filtered");
        if !record_cost(o, &key.to_string(), result)? && !server.answers() {
            let why = format!("the server under callgrind was lost in the cost pass of {key}");
            ctx.save(&cells[i])?;
            return record_all(cells, &why);
        }
        ctx.save(&cells[i])?;
    }
    if ctx.opts.keep {
        server.keep_files();
    }
    let _ = server.stop();
    eprintln!(
        "    cost server {name}: {}",
        crate::util::human_duration(started.elapsed().as_secs_f64())
    );
    Ok(())
}

/// Puts a cost pass's result on its cell's outcome: the cost, or why it
/// was not measured (false). An interruption is returned as an error.
fn record_cost(o: &mut Outcome, key: &str, result: Result<CostPass>) -> Result<bool> {
    match result {
        Ok(c) => {
            eprintln!(
                "    cost {key}: {:.0} instructions/query ({} queries, {:.0} q/s under callgrind, {:.0} s)",
                c.instructions_per_query, c.queries, c.qps, c.wall_seconds
            );
            o.cost = Some(c);
            Ok(true)
        }
        Err(e) if children::interruption_in(&e).is_some() => Err(e),
        Err(e) => {
            eprintln!("warning: cost {key}: {e:#}");
            o.not_measured.push(NotMeasured {
                metric: METRIC.into(),
                reason: format!("{e:#}"),
            });
            Ok(false)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_server_reserves_its_pool_at_its_size_and_does_synchronous_io() {
        let timed = MyCnf {
            settings: vec![("innodb_buffer_pool_size".into(), "512M".into())],
            scaled: vec![],
            datadir_on_tmpfs: Some(true),
            base: Default::default(),
        };
        let cnf = cost_cnf(&timed, Series::new(11, 8));
        assert_eq!(cnf.get("innodb_buffer_pool_size_max"), Some("512M"));
        assert_eq!(cnf.get("innodb_use_native_aio"), Some("0"));
        // 10.5 has no such variable: the server would refuse to start
        let old = cost_cnf(&timed, Series::new(10, 5));
        assert_eq!(old.get("innodb_buffer_pool_size_max"), None);
        assert_eq!(old.get("innodb_use_native_aio"), Some("0"));
    }
}
