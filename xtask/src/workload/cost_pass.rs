//! A cell's cost pass, on a server started under callgrind (instrumentation
//! off) whose data `prepare_data` loaded and armed: the warm-up, then one
//! load in which instrumentation is on for exactly `cost_seconds`; or,
//! where the workload asks for `cost_events`, no warm-up and that many
//! seeded events on one connection with instrumentation on around all of
//! them (for a test that writes, with purge caught up and held). The
//! queries are the calls of `dispatch_command` in the same counts, so the
//! counter reads and the switch itself (a few hundred milliseconds each)
//! add nothing to either side of the ratio; the instructions are those of
//! the threads that made those calls, so that background work (flushing,
//! purge), which does not follow the queries' pace, is not divided by it.

use super::cell_run::{cell_log, hold_purge};
use super::idle::{catch_up_purge, PURGE_LIMIT};
use super::sysbench::{self, deadline, lua_dir, sysbench_args, Length};
use crate::dims::WorkloadKind;
use crate::metrics::status_counter;
use crate::profile::callgrind;
use crate::record::{CostCounter, CostPass, EventWindow, FunctionCost, OtherThreads, Workload};
use crate::server::{Callgrind, Server};
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The load runs this long before instrumentation goes on (connected,
/// every thread in its loop), and this long after it goes off (the switch
/// back and the dump, which here take under a second or two each).
const RAMP: Duration = Duration::from_secs(2);
const TAIL: Duration = Duration::from_secs(10);

/// The seed of every event window and of a cost server's data and arming
/// when one of its passes counts events: one constant, so that every pass
/// of every variant runs the same statements on the same pages.
pub const COST_SEED: u64 = 1;

/// An event window's connections: with one, the statements' order is the
/// seed's; with more, which connection takes the next event is a race.
const EVENT_THREADS: u32 = 1;

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
    // a warm-up by the clock would change a different number of rows on
    // every pass before an event window; the arming warmed the pool
    if w.warmup_seconds > 0 && w.cost_events == 0 {
        let args = sysbench_args(
            w,
            server,
            &script,
            Some(kind),
            threads,
            "run",
            Length::Seconds(w.warmup_seconds),
        );
        sysbench::run(&args, deadline(w.warmup_seconds), &log("cost-warmup"))
            .context("the cost pass's warm-up failed")?;
    }

    let counted = if w.cost_events > 0 {
        count_events(w, kind, &script, server, &cg, &mut conn, &log("cost"))?
    } else {
        count_seconds(
            w,
            kind,
            &script,
            threads,
            server,
            &cg,
            &mut conn,
            &log("cost"),
        )?
    };
    let Counted {
        dump,
        seconds,
        young_before,
        young_after,
        events,
    } = counted;
    let threads = callgrind::read_threads(&dump)?;
    let counts = &threads.query;
    if counts.dispatched == 0 {
        bail!(
            "callgrind counted no call of dispatch_command in the window ({} files, {})",
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
        window_seconds: events.is_none().then_some(w.cost_seconds),
        events,
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
}

/// What a window counted: callgrind's dump files, the window's wall time,
/// Innodb_buffer_pool_pages_made_young around it.
struct Counted {
    dump: Vec<PathBuf>,
    seconds: f64,
    young_before: Option<u64>,
    young_after: Option<u64>,
    events: Option<EventWindow>,
}

/// A window of `cost_seconds` in the middle of a longer load at the
/// cell's threads: instrumentation goes on once every connection is in its
/// loop, and off before the load ends.
#[allow(clippy::too_many_arguments)]
fn count_seconds(
    w: &Workload,
    kind: WorkloadKind,
    script: &str,
    threads: u32,
    server: &Server,
    cg: &Callgrind,
    conn: &mut mysql::Conn,
    log: &Path,
) -> Result<Counted> {
    let window = Duration::from_secs(w.cost_seconds);
    let load_seconds = (RAMP + window + TAIL).as_secs();
    let length = Length::Seconds(load_seconds);
    let args = sysbench_args(w, server, script, Some(kind), threads, "run", length);
    std::thread::scope(|s| -> Result<Counted> {
        let load = s.spawn(|| sysbench::run(&args, deadline(load_seconds * 2), log));
        std::thread::sleep(RAMP);
        let counted = count_around(cg, conn, || {
            std::thread::sleep(window);
            Ok(())
        })?;
        load.join()
            .expect("the cost load's thread panicked")
            .context("the cost pass's load failed")?;
        Ok(counted)
    })
}

/// Counts what `during` runs: instrumentation switched on and the counts
/// zeroed (so they start here), `during`, the dump, and instrumentation
/// off whatever happened (so that what follows runs fast), with
/// Innodb_buffer_pool_pages_made_young read on either side.
fn count_around(
    cg: &Callgrind,
    conn: &mut mysql::Conn,
    during: impl FnOnce() -> Result<()>,
) -> Result<Counted> {
    let young_before = status_counter(conn, "Innodb_buffer_pool_pages_made_young")?;
    let counted = cg.instrument(true).and_then(|()| {
        cg.zero()?;
        let on = Instant::now();
        during()?;
        let dump = cg.dump()?;
        Ok((dump, on.elapsed().as_secs_f64()))
    });
    let off = cg.instrument(false);
    let young_after = status_counter(conn, "Innodb_buffer_pool_pages_made_young")?;
    let (dump, seconds) = counted.context("callgrind could not count the window")?;
    off.context("callgrind's instrumentation could not be switched off")?;
    Ok(Counted {
        dump,
        seconds,
        young_before,
        young_after,
        events: None,
    })
}

/// A window of exactly `cost_events` events on one connection from
/// `COST_SEED`: instrumentation is on from before sysbench connects until
/// after it disconnected, so its few setup statements are counted too (the
/// same ones on every pass). For a test that writes, purge first catches
/// up and then a read view holds it for the window.
fn count_events(
    w: &Workload,
    kind: WorkloadKind,
    script: &str,
    server: &Server,
    cg: &Callgrind,
    conn: &mut mysql::Conn,
    log: &Path,
) -> Result<Counted> {
    let purge_held = kind.is_write();
    let holder = if purge_held {
        catch_up_purge(conn, PURGE_LIMIT)?;
        Some(hold_purge(server)?)
    } else {
        None
    };
    let length = Length::Events {
        count: w.cost_events,
        seed: COST_SEED,
    };
    let args = sysbench_args(w, server, script, Some(kind), EVENT_THREADS, "run", length);
    let counted = count_around(cg, conn, || {
        // a second a statement is far beyond Valgrind's pace here (tens a
        // second with instrumentation on): a deadline, not an estimate
        sysbench::run(&args, deadline(w.cost_events.max(300)), log)
            .context("the cost pass's counted load failed")
            .map(|_| ())
    });
    if let Some(mut holder) = holder {
        holder.query_drop("COMMIT").context("releasing purge")?;
    }
    Ok(Counted {
        events: Some(EventWindow {
            events: w.cost_events,
            seed: COST_SEED,
            threads: EVENT_THREADS,
            purge_held,
            // the cost server seeds its data and arming when a pass
            // counts events (matrix/cost_run.rs), and the warm-up is skipped
            seeded_data: true,
        }),
        ..counted?
    })
}
