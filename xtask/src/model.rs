//! `cargo xtask model ...`: the command-line glue of the `lru-model` crate.
//! Reads the trace file, runs the model, prints its results; the model
//! itself does no I/O.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::time::Instant;

use crate::profile::page_trace;
use anyhow::{anyhow, bail, Context, Result};
use lru_model::server_trace::ServerReplay;
use lru_model::sim::{
    self, InMemory, InMemoryParams, InMemoryResult, ScanLoopParams, ScanLoopResult,
    ScanResistanceParams, ScanResistanceResult,
};
use lru_model::trace::{self, ReplayOutput};
use lru_model::{
    new_model, Boundary, Classic, CleanerWakeup, Config, Eager, FreeBlocks, Lazy, MoveStamp,
    OldSurplus, Policy, PolicyKind, YoungTouch,
};

/// Subcommands of `cargo xtask model`.
#[derive(clap::Subcommand, Debug)]
pub enum ModelAction {
    /// Replay a JSON Lines trace on one policy and print the counters and the LRU list as one JSON object.
    Replay(ReplayArgs),
    /// Replay a traced server's own page trace (patches/11.8/traced.patch) through the model's policies
    /// at the server's pool size and print, per policy, the server's hit ratio beside the model's.
    ReplayServer(ReplayServerArgs),
    /// What a traced server did to the pages it lost: its evictions and the misses that read a
    /// page again, by what the server had done to the block (flagged, moved, looked up, accessed).
    Stays(StaysArgs),
    /// Run a generated scenario on each policy and print its results.
    Simulate(SimulateArgs),
    /// Measure point reads per second per policy on the in-memory scenario (one thread).
    Bench(BenchArgs),
}

fn parse_policy(s: &str) -> Result<PolicyKind, String> {
    s.parse()
}

/// Server settings shared by the subcommands; unset values take the scenario's defaults.
#[derive(clap::Args, Debug, Clone)]
pub struct PoolArgs {
    /// Frames in the buffer pool (innodb_buffer_pool_size / innodb_page_size).
    #[arg(long)]
    pub pool_pages: Option<u32>,
    /// innodb_old_blocks_pct.
    #[arg(long)]
    pub old_pct: Option<u32>,
    /// innodb_old_blocks_time, in ms.
    #[arg(long)]
    pub old_blocks_time_ms: Option<u32>,
    /// lazy: the access clock's tick in ms (1000 in the fix, 100 in the
    /// fine-clock remedy, patches/10.11/fixed-fine-clock.md).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub clock_tick_ms: Option<u32>,
    /// lazy: which blocks an access flags only past innodb_old_blocks_time:
    /// `age-checked` (every block, the fix) or `old-only` (blocks of the old
    /// sublist; the young-touch rule of patches/10.11/fixed-fine-young.md)
    /// or `next-tick` (blocks of the old sublist; any other block until the
    /// clock has left the tick of its stamp) or `lookup` (blocks of the old
    /// sublist, and any block for an access that is not a lookup: the rule
    /// of patches/10.11/fixed-lookup.md) or `lookup-or-moved` (as `lookup`,
    /// but any access flags a young block that a sweep or the boundary has
    /// moved since its read) or `lookup-or-next-tick` (as `lookup`, but any
    /// access flags a young block once the clock has left its stamp's tick)
    /// or `looked-up` (as `lookup`, but any access flags a young block that
    /// a lookup has reached since its read: patches/10.11/fixed-looked-up.md)
    /// or `lookup-mark` (as `looked-up`, but a move to the head spends the
    /// mark: patches/10.11/fixed-lookup-mark.md).
    #[arg(long, value_parser = parse_young_touch)]
    pub young_touch: Option<YoungTouch>,
    /// lazy: what the old sublist's boundary does with a flagged block it
    /// takes from the new sublist: `upstream` (the block becomes old) or
    /// `move-flagged` (the block goes to the head, keeping its stamp: the
    /// rule of patches/10.11/fixed-lookup-boundary.md).
    #[arg(long, value_parser = parse_boundary)]
    pub boundary: Option<Boundary>,
    /// lazy: what a sweep's move does to the block's stamp: `restamp`
    /// (upstream) or `keep` (patches/10.11/fixed-lookup-boundary.md).
    #[arg(long, value_parser = parse_move_stamp)]
    pub move_stamp: Option<MoveStamp>,
    /// every policy: how far the old sublist may outgrow its target before
    /// the boundary moves toward the tail: `upstream` (the tolerance of 20
    /// blocks), `hold` (also innodb_lru_scan_depth blocks, at most an
    /// eighth of the list: the leak remedy of patches/mysql-9.7/old-surplus.md)
    /// or `hold-unaccessed` (that surplus gained only where the boundary
    /// would step over a block not accessed since its read, a read-ahead's
    /// page, and kept until evictions take it: patches/10.11/old-surplus-unaccessed.md).
    #[arg(long, value_parser = parse_old_surplus)]
    pub old_surplus: Option<OldSurplus>,
    /// every policy: who frees blocks for a read that finds none free:
    /// `cleaner` (10.6 on: the page cleaner's LRU batch, which a cleaner
    /// event runs too) or `reader-flush-N` (10.5: the reader frees at most
    /// N blocks itself, N = innodb_lru_flush_size, 32 by default; a cleaner
    /// event frees nothing).
    #[arg(long, value_parser = parse_free_blocks)]
    pub free_blocks: Option<FreeBlocks>,
    /// under the cleaner's rule, when its LRU batch runs besides cleaner
    /// events and waits: `scheduled` (only then) or `early` (also whenever
    /// a read leaves fewer than innodb_lru_scan_depth/2 blocks free, as
    /// 10.11.18 and 11.8.6 wake it; the batch runs at once).
    #[arg(long, value_parser = parse_cleaner_wakeup)]
    pub cleaner_wakeup: Option<CleanerWakeup>,
}

fn parse_cleaner_wakeup(s: &str) -> Result<CleanerWakeup, String> {
    s.parse()
}

fn parse_free_blocks(s: &str) -> Result<FreeBlocks, String> {
    s.parse()
}

fn parse_old_surplus(s: &str) -> Result<OldSurplus, String> {
    s.parse()
}

fn parse_move_stamp(s: &str) -> Result<MoveStamp, String> {
    s.parse()
}

fn parse_boundary(s: &str) -> Result<Boundary, String> {
    s.parse()
}

fn parse_young_touch(s: &str) -> Result<YoungTouch, String> {
    s.parse()
}

impl PoolArgs {
    fn apply(&self, mut cfg: Config) -> Config {
        if let Some(v) = self.pool_pages {
            cfg.pool_pages = v;
        }
        if let Some(v) = self.old_pct {
            cfg.old_pct = v;
        }
        if let Some(v) = self.old_blocks_time_ms {
            cfg.old_blocks_time_ms = v;
        }
        if let Some(v) = self.clock_tick_ms {
            cfg.clock_tick_ms = v;
        }
        if let Some(v) = self.young_touch {
            cfg.young_touch = v;
        }
        if let Some(v) = self.boundary {
            cfg.boundary = v;
        }
        if let Some(v) = self.move_stamp {
            cfg.move_stamp = v;
        }
        if let Some(v) = self.old_surplus {
            cfg.old_surplus = v;
        }
        if let Some(v) = self.free_blocks {
            cfg.free_blocks = v;
        }
        if let Some(v) = self.cleaner_wakeup {
            cfg.cleaner_wakeup = v;
        }
        cfg
    }
}

/// `cargo xtask model replay`
#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// classic, eager or lazy.
    #[arg(long, value_parser = parse_policy)]
    pub policy: PolicyKind,
    /// The trace: one JSON event a line, {"t_ms":..,"op":"read"|"access"|"lookup"|"free"|"cleaner","page":..}.
    #[arg(long)]
    pub trace: PathBuf,
    #[command(flatten)]
    pub pool: PoolArgs,
    /// innodb_lru_scan_depth: the free-list target of a page-cleaner batch.
    #[arg(long, default_value_t = 1024)]
    pub lru_scan_depth: u32,
}

/// `cargo xtask model replay-server`
#[derive(clap::Args, Debug)]
pub struct ReplayServerArgs {
    /// The trace file the traced server wrote (INNODB_LAB_TRACE).
    #[arg(long)]
    pub trace: PathBuf,
    /// Policies to replay, comma-separated (default: eager and lazy).
    #[arg(long, value_delimiter = ',', value_parser = parse_policy)]
    pub policy: Vec<PolicyKind>,
    /// Defaults: the pool's frames from the trace's header, innodb_old_blocks_pct 37,
    /// innodb_old_blocks_time 1000 ms.
    #[command(flatten)]
    pub pool: PoolArgs,
    /// innodb_lru_scan_depth: the free-list target of a page-cleaner batch.
    #[arg(long, default_value_t = 1024)]
    pub lru_scan_depth: u32,
    /// Count requests from this many ms after the recorder opened (earlier ones warm both sides).
    #[arg(long, default_value_t = 0, conflicts_with = "records")]
    pub from_ms: u32,
    /// Count the requests of these records only, `FIRST..END` (a run result's
    /// `outcome.page_trace.records`: the measured run's window).
    #[arg(long, value_parser = parse_record_range)]
    pub records: Option<std::ops::Range<u64>>,
}

/// `cargo xtask model stays`
#[derive(clap::Args, Debug)]
pub struct StaysArgs {
    /// The trace file the traced server wrote (INNODB_LAB_TRACE).
    #[arg(long)]
    pub trace: PathBuf,
    /// Count from this many ms after the recorder opened.
    #[arg(long, default_value_t = 0, conflicts_with = "records")]
    pub from_ms: u32,
    /// Count the records `FIRST..END` only (a run result's `outcome.page_trace.records`).
    #[arg(long, value_parser = parse_record_range)]
    pub records: Option<std::ops::Range<u64>>,
    /// How to print the table.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

fn parse_record_range(s: &str) -> Result<std::ops::Range<u64>, String> {
    let (first, end) = s
        .split_once("..")
        .ok_or_else(|| format!("{s:?}: expected FIRST..END, record numbers"))?;
    let number = |n: &str| {
        n.trim()
            .parse::<u64>()
            .map_err(|_| format!("{s:?}: {n:?} is not a record number"))
    };
    let (first, end) = (number(first)?, number(end)?);
    if first >= end {
        return Err(format!("{s:?}: the range is empty"));
    }
    Ok(first..end)
}

/// The generated workloads.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// MDEV-37992: data smaller than the pool, a few freed pages, uniform point reads.
    InMemory,
    /// Seed 001: a hot set and a table larger than the pool scanned in a loop.
    ScanLoop,
    /// The upstream test innodb.buf_lru_scan_resistance; its expectations are checked for lazy.
    ScanResistance,
}

/// How results are printed.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// aligned plain text
    Text,
    /// one JSON object
    Json,
}

/// `cargo xtask model simulate`
#[derive(clap::Args, Debug)]
pub struct SimulateArgs {
    /// Which scenario to run.
    #[arg(long, value_enum)]
    pub scenario: Scenario,
    /// Run only this policy (default: classic, eager and lazy).
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<PolicyKind>,
    #[command(flatten)]
    pub pool: PoolArgs,
    /// innodb_lru_scan_depth; scan-loop runs once per value of a comma-separated list.
    #[arg(long, value_delimiter = ',')]
    pub lru_scan_depth: Vec<u32>,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// in-memory: pages of data.
    #[arg(long)]
    pub data_pages: Option<u32>,
    /// in-memory: pages created and freed after the load, to arm freed_page_clock.
    #[arg(long)]
    pub armed_frees: Option<u32>,
    /// in-memory: measured point reads.
    #[arg(long)]
    pub accesses: Option<u64>,
    /// in-memory: point reads per second of simulated time.
    #[arg(long)]
    pub accesses_per_sec: Option<u64>,
    /// scan-loop: pages of the hot set.
    #[arg(long)]
    pub hot_pages: Option<u32>,
    /// scan-loop: pages of the scanned table.
    #[arg(long)]
    pub table_pages: Option<u32>,
    /// scan-loop: pages of a filler table read once before the warm-up (0: start with an empty pool).
    #[arg(long)]
    pub fill_pages: Option<u32>,
    /// scan-loop: hot point reads per second.
    #[arg(long)]
    pub hot_reads_per_sec: Option<u64>,
    /// scan-loop: scanned pages per second during a pass.
    #[arg(long)]
    pub scan_pages_per_sec: Option<u64>,
    /// scan-loop: pause between passes, in ms.
    #[arg(long)]
    pub pause_ms: Option<u64>,
    /// scan-loop: seconds of hot reads before the scans start.
    #[arg(long)]
    pub warmup_s: Option<u64>,
    /// scan-loop: seconds of scanning.
    #[arg(long)]
    pub scan_s: Option<u64>,
    /// scan-loop: print every sample, not only the summary.
    #[arg(long)]
    pub samples: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `cargo xtask model bench`
#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// Run only this policy (default: all three).
    #[arg(long, value_parser = parse_policy)]
    pub policy: Option<PolicyKind>,
    /// Timed point reads per policy.
    #[arg(long, default_value_t = 20_000_000)]
    pub accesses: u64,
    /// Pages of data (smaller than the pool).
    #[arg(long, default_value_t = 4096)]
    pub data_pages: u32,
    #[command(flatten)]
    pub pool: PoolArgs,
    /// Generator seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// Run one `cargo xtask model` subcommand.
pub fn run(cmd: ModelAction) -> Result<()> {
    match cmd {
        ModelAction::Replay(args) => replay(args),
        ModelAction::ReplayServer(args) => replay_server(args),
        ModelAction::Stays(args) => stays(args),
        ModelAction::Simulate(args) => simulate(args),
        ModelAction::Bench(args) => bench(args),
    }
}

fn replay(args: ReplayArgs) -> Result<()> {
    let out = replay_file(&args)?;
    println!("{}", serde_json::to_string(&out)?);
    Ok(())
}

/// Replay the trace file line by line, without holding it in memory.
fn replay_file(args: &ReplayArgs) -> Result<ReplayOutput> {
    let cfg = Config {
        lru_scan_depth: args.lru_scan_depth,
        ..args.pool.apply(Config::default())
    };
    let path = args.trace.display();
    let file = File::open(&args.trace).with_context(|| format!("cannot open trace {path}"))?;
    let mut model = new_model(args.policy, cfg)?;
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line_no = i + 1;
        let line = line.with_context(|| format!("cannot read line {line_no} of {path}"))?;
        let event = trace::parse_line(line_no, &line).map_err(|e| anyhow!("{path}: {e}"))?;
        let Some(event) = event else { continue };
        model.apply(&event).map_err(|e| {
            let kind = trace::TraceErrorKind::Model(e);
            anyhow!(
                "{path}: {}",
                trace::TraceError {
                    line: line_no,
                    kind
                }
            )
        })?;
    }
    Ok(ReplayOutput::of(model.as_ref()))
}

fn replay_server(args: ReplayServerArgs) -> Result<()> {
    for out in replay_server_file(&args)? {
        println!("{}", serde_json::to_string(&out)?);
    }
    Ok(())
}

/// Read the whole trace (16 bytes a record) and replay it once per policy.
fn replay_server_file(args: &ReplayServerArgs) -> Result<Vec<ServerReplay>> {
    let path = &args.trace;
    let trace = page_trace::read(path)?;
    if trace.lost > 0 {
        eprintln!(
            "{}: {} records did not fit in the trace and are lost; \
             raise INNODB_LAB_TRACE_RECORDS",
            path.display(),
            trace.lost
        );
    }
    let cfg = Config {
        pool_pages: page_trace::pool_pages(&trace, path)?,
        lru_scan_depth: args.lru_scan_depth,
        ..Config::default()
    };
    let kinds = if args.policy.is_empty() {
        vec![PolicyKind::Eager, PolicyKind::Lazy]
    } else {
        args.policy.clone()
    };
    let records = match &args.records {
        Some(r) => r.clone(),
        None => trace.records_from_ms(args.from_ms),
    };
    page_trace::replay_each(&trace, path, args.pool.apply(cfg), &kinds, records)
}

fn stays(args: StaysArgs) -> Result<()> {
    let trace = page_trace::read(&args.trace)?;
    let records = match &args.records {
        Some(r) => r.clone(),
        None => trace.records_from_ms(args.from_ms),
    };
    let s = lru_model::stays::stays(&trace, records);
    match args.format {
        Format::Json => println!("{}", serde_json::to_string(&s)?),
        Format::Text => print!("{}", lru_model::stays::stays_text(&s)),
    }
    Ok(())
}

fn policies(only: Option<PolicyKind>) -> Vec<PolicyKind> {
    only.map_or_else(|| PolicyKind::ALL.to_vec(), |k| vec![k])
}

fn simulate(a: SimulateArgs) -> Result<()> {
    let kinds = policies(a.policy);
    match a.scenario {
        Scenario::InMemory => {
            let d = InMemoryParams::default();
            let p = InMemoryParams {
                cfg: depth(a.pool.apply(d.cfg), &a.lru_scan_depth),
                data_pages: a.data_pages.unwrap_or(d.data_pages),
                armed_frees: a.armed_frees.unwrap_or(d.armed_frees),
                accesses: a.accesses.unwrap_or(d.accesses),
                accesses_per_sec: a.accesses_per_sec.unwrap_or(d.accesses_per_sec),
                seed: a.seed,
            };
            let results = kinds
                .iter()
                .map(|&k| sim::in_memory(k, &p).with_context(|| format!("in-memory, policy {k}")))
                .collect::<Result<Vec<_>>>()?;
            match a.format {
                Format::Json => print_json(
                    &serde_json::json!({"scenario": "in-memory", "params": p, "results": results}),
                )?,
                Format::Text => print!("{}", in_memory_text(&p, &results)),
            }
        }
        Scenario::ScanLoop => {
            let d = ScanLoopParams::default();
            let base = ScanLoopParams {
                cfg: a.pool.apply(d.cfg),
                hot_pages: a.hot_pages.unwrap_or(d.hot_pages),
                table_pages: a.table_pages.unwrap_or(d.table_pages),
                fill_pages: a.fill_pages.unwrap_or(d.fill_pages),
                hot_reads_per_sec: a.hot_reads_per_sec.unwrap_or(d.hot_reads_per_sec),
                scan_pages_per_sec: a.scan_pages_per_sec.unwrap_or(d.scan_pages_per_sec),
                pause_ms: a.pause_ms.unwrap_or(d.pause_ms),
                warmup_s: a.warmup_s.unwrap_or(d.warmup_s),
                scan_s: a.scan_s.unwrap_or(d.scan_s),
                seed: a.seed,
                ..d
            };
            let depths = if a.lru_scan_depth.is_empty() {
                vec![base.cfg.lru_scan_depth]
            } else {
                a.lru_scan_depth.clone()
            };
            let mut results = Vec::new();
            for &lru_scan_depth in &depths {
                let p = ScanLoopParams {
                    cfg: Config {
                        lru_scan_depth,
                        ..base.cfg
                    },
                    ..base
                };
                for &k in &kinds {
                    results.push(sim::scan_loop(k, &p).with_context(|| {
                        format!("scan-loop, policy {k}, depth {lru_scan_depth}")
                    })?);
                }
            }
            match a.format {
                Format::Json => print_json(
                    &serde_json::json!({"scenario": "scan-loop", "params": base, "results": results}),
                )?,
                Format::Text => print!("{}", scan_loop_text(&base, &results, a.samples)),
            }
        }
        Scenario::ScanResistance => {
            let d = ScanResistanceParams::default();
            let p = ScanResistanceParams {
                cfg: depth(a.pool.apply(d.cfg), &a.lru_scan_depth),
                ..d
            };
            let results = kinds
                .iter()
                .map(|&k| {
                    sim::scan_resistance(k, &p)
                        .with_context(|| format!("scan-resistance, policy {k}"))
                })
                .collect::<Result<Vec<_>>>()?;
            match a.format {
                Format::Json => print_json(
                    &serde_json::json!({"scenario": "scan-resistance", "params": p, "results": results}),
                )?,
                Format::Text => print!("{}", scan_resistance_text(&results)),
            }
            if let Some(lazy) = results.iter().find(|r| r.policy == PolicyKind::Lazy) {
                if !lazy.passed() {
                    bail!("lazy fails the expectations of innodb.buf_lru_scan_resistance");
                }
            }
        }
    }
    Ok(())
}

fn depth(cfg: Config, depths: &[u32]) -> Config {
    match depths.first() {
        Some(&lru_scan_depth) => Config {
            lru_scan_depth,
            ..cfg
        },
        None => cfg,
    }
}

fn print_json(v: &serde_json::Value) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(())
}

fn in_memory_text(p: &InMemoryParams, results: &[InMemoryResult]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "in-memory: pool {} pages, data {} pages, {} pages freed after the load, {} point reads at {}/s, old_pct {}, old_blocks_time {} ms",
        p.cfg.pool_pages, p.data_pages, p.armed_frees, p.accesses, p.accesses_per_sec, p.cfg.old_pct, p.cfg.old_blocks_time_ms
    );
    let _ = writeln!(
        s,
        "{:<8} {:>11} {:>14} {:>11} {:>12} {:>13} {:>10} {:>10} {:>9}",
        "policy",
        "made_young",
        "not_made_young",
        "young/acc",
        "mutex(acc)",
        "mutex/access",
        "evictions",
        "clock",
        "promote"
    );
    for r in results {
        let _ = writeln!(
            s,
            "{:<8} {:>11} {:>14} {:>11.4} {:>12} {:>13.4} {:>10} {:>10} {:>9}",
            r.policy.name(),
            r.made_young,
            r.not_made_young,
            r.made_young_per_access,
            r.access_mutex_acquisitions,
            r.access_mutex_per_access,
            r.evictions,
            r.freed_page_clock,
            r.promote_pending
        );
    }
    s
}

fn scan_loop_text(p: &ScanLoopParams, results: &[ScanLoopResult], samples: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "scan-loop: pool {} pages, filler {} pages, hot set {} pages at {} reads/s, table {} pages scanned at {} pages/s, \
         pause {} ms, warm-up {} s, scan {} s, kept = hot share resident averaged over the last {} s",
        p.cfg.pool_pages,
        p.fill_pages,
        p.hot_pages,
        p.hot_reads_per_sec,
        p.table_pages,
        p.scan_pages_per_sec,
        p.pause_ms,
        p.warmup_s,
        p.scan_s,
        p.kept_window_s
    );
    let _ = writeln!(
        s,
        "{:<8} {:>6} {:>7} {:>14} {:>15} {:>12} {:>7} {:>10} {:>11} {:>11} {:>10}",
        "policy",
        "depth",
        "kept",
        "scan_young_avg",
        "scan_hits_young",
        "leak/s",
        "passes",
        "hot_misses",
        "made_young",
        "mutex(acc)",
        "evictions"
    );
    for r in results {
        let _ = writeln!(
            s,
            "{:<8} {:>6} {:>6.1}% {:>14.0} {:>15} {:>12.1} {:>7} {:>10} {:>11} {:>11} {:>10}",
            r.policy.name(),
            r.lru_scan_depth,
            r.kept * 100.0,
            r.scan_young_avg,
            r.scan_hits_young,
            r.boundary_young_per_s,
            r.passes,
            r.hot_misses,
            r.made_young,
            r.access_mutex_acquisitions,
            r.evictions
        );
        if samples {
            for x in &r.samples {
                let _ = writeln!(
                    s,
                    "    t={:>6.1}s hot kept {:>5.1}% scan pages young {:>6} made_young {:>9}",
                    x.t_s,
                    x.hot_kept * 100.0,
                    x.scan_young,
                    x.made_young
                );
            }
        }
    }
    s
}

fn scan_resistance_text(results: &[ScanResistanceResult]) -> String {
    let mut s =
        String::from("scan-resistance (innodb.buf_lru_scan_resistance, checked for lazy):\n");
    for r in results {
        let verdict = if r.passed() { "pass" } else { "FAIL" };
        let _ = writeln!(s, "{:<8} {verdict}", r.policy.name());
        for c in &r.checks {
            let _ = writeln!(s, "    [{}] {}", if c.ok { "ok" } else { "no" }, c.what);
        }
    }
    s
}

fn bench(a: BenchArgs) -> Result<()> {
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: a debug build; `cargo xtask` builds in release mode, use it for figures"
        );
    }
    let d = InMemoryParams::default();
    let p = InMemoryParams {
        cfg: a.pool.apply(d.cfg),
        data_pages: a.data_pages,
        accesses: a.accesses,
        seed: a.seed,
        ..d
    };
    println!(
        "bench: in-memory scenario, pool {} pages, data {} pages, {} timed point reads per policy, one thread",
        p.cfg.pool_pages, p.data_pages, p.accesses
    );
    for k in policies(a.policy) {
        let rate = match k {
            PolicyKind::Classic => time_accesses::<Classic>(&p)?,
            PolicyKind::Eager => time_accesses::<Eager>(&p)?,
            PolicyKind::Lazy => time_accesses::<Lazy>(&p)?,
        };
        println!("{:<8} {:>14.0} accesses/s", k.name(), rate);
    }
    Ok(())
}

fn time_accesses<P: Policy>(p: &InMemoryParams) -> Result<f64> {
    let mut sim = InMemory::<P>::prepare(p)?;
    let start = Instant::now();
    sim.run(p.accesses)?;
    let secs = start.elapsed().as_secs_f64();
    // keep the work observable so that it cannot be optimised away
    std::hint::black_box(sim.pool().counters());
    Ok(p.accesses as f64 / secs.max(1e-9))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct ModelCli {
        #[command(subcommand)]
        model: ModelAction,
    }

    fn trace_file(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lru-model-glue-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn replay_args(policy: &str, trace: &std::path::Path) -> ReplayArgs {
        let cli = ModelCli::try_parse_from([
            "model",
            "replay",
            "--policy",
            policy,
            "--trace",
            trace.to_str().unwrap(),
            "--pool-pages",
            "4",
        ])
        .unwrap();
        match cli.model {
            ModelAction::Replay(a) => a,
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn replay_reads_the_file_and_reports_the_lru() {
        let trace = trace_file(
            "ok.jsonl",
            concat!(
                r#"{"t_ms":1000,"op":"read","page":1}"#,
                "\n",
                r#"{"t_ms":1000,"op":"read","page":2}"#,
                "\n\n",
                r#"{"t_ms":1001,"op":"access","page":1}"#,
                "\n",
                r#"{"t_ms":1002,"op":"free","page":2}"#,
                "\n",
            ),
        );
        let out = replay_file(&replay_args("eager", &trace)).unwrap();
        assert_eq!(out.lru, vec![1]);
        assert_eq!((out.lru_len, out.old_len, out.free_len), (1, 0, 3));
        let json = serde_json::to_string(&out).unwrap();
        assert!(json.starts_with(
            r#"{"made_young":0,"not_made_young":0,"access_mutex_acquisitions":0,"evictions":0,"#
        ));
    }

    #[test]
    fn replay_errors_name_the_file_line_and_page() {
        let trace = trace_file(
            "bad.jsonl",
            concat!(
                r#"{"t_ms":1,"op":"read","page":1}"#,
                "\n",
                r#"{"t_ms":2,"op":"access","page":9}"#,
                "\n"
            ),
        );
        let err = replay_file(&replay_args("lazy", &trace))
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.jsonl: trace line 2:"), "{err}");
        assert!(err.contains("page 9 is not resident"), "{err}");
        let missing = PathBuf::from("/nonexistent/trace.jsonl");
        let err = replay_file(&replay_args("classic", &missing))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("cannot open trace /nonexistent/trace.jsonl"),
            "{err}"
        );
    }

    #[test]
    fn a_server_trace_that_is_not_one_is_refused_with_its_name() {
        let trace = trace_file("not-a-trace.bin", &"x".repeat(80));
        let cli = ModelCli::try_parse_from([
            "model",
            "replay-server",
            "--trace",
            trace.to_str().unwrap(),
            "--policy",
            "eager,lazy",
        ])
        .unwrap();
        let ModelAction::ReplayServer(args) = cli.model else {
            panic!("not parsed as replay-server")
        };
        assert_eq!(args.policy, vec![PolicyKind::Eager, PolicyKind::Lazy]);
        let err = replay_server_file(&args).unwrap_err().to_string();
        assert!(
            err.ends_with("not-a-trace.bin: not a server trace: it does not start with ILTRACE1"),
            "{err}"
        );
    }

    #[test]
    fn unknown_policy_is_refused_by_the_parser() {
        let err = ModelCli::try_parse_from(["model", "replay", "--policy", "lru2", "--trace", "x"])
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("unknown policy \"lru2\""), "{err}");
    }

    #[test]
    fn simulate_takes_a_list_of_scan_depths() {
        let cli = ModelCli::try_parse_from([
            "model",
            "simulate",
            "--scenario",
            "scan-loop",
            "--lru-scan-depth",
            "128,1024",
        ])
        .unwrap();
        match cli.model {
            ModelAction::Simulate(a) => {
                assert_eq!(a.scenario, Scenario::ScanLoop);
                assert_eq!(a.lru_scan_depth, vec![128, 1024]);
            }
            other => panic!("parsed as {other:?}"),
        }
    }
}
