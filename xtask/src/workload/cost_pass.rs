//! A cell's cost pass, on a server started under callgrind (instrumentation
//! off) whose data `prepare_data` loaded and armed: the warm-up, then one
//! load in which instrumentation is on for exactly `cost_seconds`. The
//! queries are the calls of `dispatch_command` in the same counts, so the
//! counter reads and the switch itself (a few hundred milliseconds each)
//! add nothing to either side of the ratio; the instructions are those of
//! the threads that made those calls, so that background work (flushing,
//! purge), which does not follow the queries' pace, is not divided by it.

use super::{cell_log, deadline, idle::status_value, lua_dir, sysbench, sysbench_args};
use crate::profile::callgrind;
use crate::record::{CostCounter, CostPass, FunctionCost, OtherThreads, Workload};
use crate::server::Server;
use anyhow::{bail, Context, Result};
use std::time::{Duration, Instant};

/// The load runs this long before instrumentation goes on (connected,
/// every thread in its loop), and this long after it goes off (the switch
/// back and the dump, which here take under a second or two each).
const RAMP: Duration = Duration::from_secs(2);
const TAIL: Duration = Duration::from_secs(10);

/// Functions a cost pass keeps, most self cost first: enough for the
/// report to say where a difference went, down to the promotion path of
/// base (a few thousand instructions a query of a million and more).
pub const TOP_FUNCTIONS: usize = 300;

/// Runs the cost pass of `w` at `threads`.
pub fn run(
    w: &Workload,
    threads: u32,
    server: &Server,
    logs: &std::path::Path,
) -> Result<CostPass> {
    let started = Instant::now();
    let Some(cg) = server.callgrind.clone() else {
        bail!("the server was not started under callgrind: no cost pass");
    };
    let kind = w.kind()?;
    if w.cost_seconds == 0 {
        bail!("workload `{}`: `cost_seconds` is 0", w.name);
    }
    std::fs::create_dir_all(logs)?;
    let mut conn = server.connect()?;
    let script = lua_dir().join(kind.script()).display().to_string();
    let log = |phase: &str| cell_log(logs, w, threads, phase);
    if w.warmup_seconds > 0 {
        let args = sysbench_args(
            w,
            server,
            &script,
            Some(kind),
            threads,
            "run",
            w.warmup_seconds,
        );
        sysbench::run(&args, deadline(w.warmup_seconds), &log("cost-warmup"))
            .context("the cost pass's warm-up failed")?;
    }

    let window = Duration::from_secs(w.cost_seconds);
    let load_seconds = (RAMP + window + TAIL).as_secs();
    let args = sysbench_args(w, server, &script, Some(kind), threads, "run", load_seconds);
    std::thread::scope(|s| -> Result<CostPass> {
        let load = s.spawn(|| sysbench::run(&args, deadline(load_seconds * 2), &log("cost")));
        std::thread::sleep(RAMP);
        let young_before = status_value(&mut conn, "Innodb_buffer_pool_pages_made_young")?;
        // zeroed after the switch: the counts start with the window
        let counted = cg.instrument(true).and_then(|()| {
            cg.zero()?;
            let on = Instant::now();
            std::thread::sleep(window);
            let dump = cg.dump()?;
            let seconds = on.elapsed().as_secs_f64();
            Ok((dump, seconds))
        });
        // off whatever happened, so that the rest of the load runs fast
        let off = cg.instrument(false);
        let young_after = status_value(&mut conn, "Innodb_buffer_pool_pages_made_young")?;
        let (dump, seconds) = counted.context("callgrind could not count the window")?;
        off.context("callgrind's instrumentation could not be switched off")?;
        load.join()
            .expect("the cost load's thread panicked")
            .context("the cost pass's load failed")?;

        let threads = callgrind::read_threads(&dump)?;
        let counts = &threads.query;
        if counts.dispatched == 0 {
            bail!(
                "callgrind counted no call of dispatch_command in the {} s window ({} files, {})",
                w.cost_seconds,
                dump.len(),
                dump[0].display()
            );
        }
        let queries = counts.dispatched;
        let young = match (young_before, young_after) {
            (Some(a), Some(b)) if b >= a => Some((b - a) as f64 / queries as f64),
            _ => None,
        };
        // the dumps are large (every function's lines); their figures are kept
        for file in &dump {
            let _ = std::fs::remove_file(file);
        }
        Ok(CostPass {
            counter: CostCounter::CallgrindIrQueryThreads,
            window_seconds: w.cost_seconds,
            instructions: counts.instructions,
            other_threads: Some(OtherThreads {
                instructions: threads.other_instructions,
                threads: threads.other_threads as u64,
                query_threads: threads.query_threads as u64,
            }),
            queries,
            instructions_per_query: counts.instructions as f64 / queries as f64,
            pages_made_young_per_query: young,
            qps: queries as f64 / seconds,
            top_functions: counts
                .top(TOP_FUNCTIONS)
                .into_iter()
                .map(|(function, instructions)| FunctionCost {
                    function,
                    instructions,
                })
                .collect(),
            wall_seconds: started.elapsed().as_secs_f64(),
        })
    })
}
