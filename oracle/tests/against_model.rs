//! The model against the tree's own LRU code, event by event.
//!
//! Built with a tree (`cargo xtask oracle check --tree <spec>`); without one
//! every test fails and says how to build one in. Each test prints what it
//! compared, with the tree's version first.

use std::collections::VecDeque;

use lru_model::server_trace::ServerStream;
use lru_model::{
    Boundary, BufferPool, CleanerWakeup, Config, Eager, Event, FreeBlocks, Lazy, ModelRules,
    MoveStamp, OldSurplus, Policy, PolicyKind, ShortLru, YoungTouch,
};
use oracle::random::{RandomTrace, Shape};
use oracle::replay::{compare, compare_with, Agreement, Stop};

/// The tree's version and the model policy it is compared with, e.g.
/// `10.11.18 (lazy-10.11-port)`.
fn tree_version() -> String {
    match oracle::tree().and_then(|t| Ok((t, oracle::model_policy()?))) {
        Ok((t, policy)) => format!("{} ({policy})", t.version),
        Err(e) => panic!("{e}"),
    }
}

/// The pools the random traces run on: an old sublist from 512 blocks on,
/// the page cleaner's free-list target, the old share and the threshold,
/// and when the page cleaner runs (the trace's schedule, or also woken
/// early as `buf_LRU_get_free_block()` wakes it).
fn pools() -> Vec<Config> {
    let pool = |pool_pages, lru_scan_depth, old_pct, old_blocks_time_ms| Config {
        pool_pages,
        lru_scan_depth,
        old_pct,
        old_blocks_time_ms,
        ..Config::default()
    };
    vec![
        // the defaults, small
        pool(1000, 100, 37, 1000),
        // no threshold: every access to an old block past the window promotes
        pool(1000, 100, 37, 0),
        // the smallest and largest old shares
        pool(800, 128, 5, 1000),
        pool(800, 128, 95, 1000),
        // short of an old sublist, then just over it
        pool(400, 100, 37, 1000),
        pool(600, 300, 37, 1000),
        // the page cleaner also woken whenever a read leaves fewer than
        // half the scan depth free, its batch run at once
        Config {
            cleaner_wakeup: CleanerWakeup::Early,
            ..pool(1000, 100, 37, 1000)
        },
        Config {
            cleaner_wakeup: CleanerWakeup::Early,
            ..pool(800, 128, 37, 0)
        },
    ]
}

fn shape(cfg: &Config) -> Shape {
    Shape {
        pages: 2 * u64::from(cfg.pool_pages),
        frees_per_mille: 20,
        cleaners_per_mille: 10,
        creates_per_mille: 50,
        read_ahead_per_mille: 50,
        max_step_ms: 2500,
    }
}

/// The model's rules for the tree (or the variant `cargo xtask oracle check`
/// names): its policy, its rule for a short LRU, its clock, its young-touch,
/// boundary and move-stamp rules.
fn rules() -> ModelRules {
    oracle::model_policy()
        .unwrap_or_else(|e| panic!("{e}"))
        .model()
}

/// `settings` under the tree's rules.
fn for_tree(settings: Config) -> Config {
    rules().config(settings)
}

/// Random events on a pool of `cfg` (the rules included: [`for_tree`]).
fn replay_random(cfg: Config, seed: u64, events: u64) -> Result<Agreement, Stop> {
    let mut trace = RandomTrace::new(seed, shape(&cfg), events);
    match rules().policy {
        PolicyKind::Eager => compare_with::<Eager>(cfg, |pool| trace.next_for(pool)),
        PolicyKind::Lazy => compare_with::<Lazy>(cfg, |pool| trace.next_for(pool)),
        PolicyKind::Classic => panic!("no oracle runs the classic policy"),
    }
}

fn replay(cfg: Config, events: Vec<Event>) -> Result<Agreement, Stop> {
    let cfg = for_tree(cfg);
    match rules().policy {
        PolicyKind::Eager => compare::<Eager>(cfg, events),
        PolicyKind::Lazy => compare::<Lazy>(cfg, events),
        PolicyKind::Classic => panic!("no oracle runs the classic policy"),
    }
}

#[test]
fn random_traces_agree_event_by_event() {
    let version = tree_version();
    let mut total = Agreement::default();
    for (i, cfg) in pools().into_iter().enumerate() {
        let seed = 0x5eed_0000 + i as u64;
        let run = format!(
            "{version}: pool {} depth {} old {}% time {} ms, cleaner {}, seed {seed:#x}",
            cfg.pool_pages,
            cfg.lru_scan_depth,
            cfg.old_pct,
            cfg.old_blocks_time_ms,
            cfg.cleaner_wakeup.name(),
        );
        match replay_random(for_tree(cfg), seed, 20_000) {
            Ok(a) => {
                println!("{run}: {a}");
                assert!(
                    a.evictions > 0 && a.frees > 0 && a.cleaner_batches > 0,
                    "{a:?}"
                );
                // an early wake-up runs batches beyond the trace's (on
                // the scheduled pools the two counts are equal: no read
                // waits; under 10.5's rule the reader frees blocks itself)
                if cfg.cleaner_wakeup == CleanerWakeup::Early
                    && rules().free_blocks == FreeBlocks::Cleaner
                {
                    assert!(
                        a.batches_run > a.cleaner_batches,
                        "no early batch ran: {a:?}"
                    );
                }
                // made young counts old blocks only: none below 512 blocks
                if cfg.pool_pages >= lru_model::pool::OLD_MIN_LEN {
                    assert!(a.made_young > 0, "the trace promotes: {a:?}");
                }
                total.events += a.events;
                total.blocks_compared += a.blocks_compared;
            }
            Err(stop) => panic!("{run}:\n{stop}"),
        }
    }
    println!(
        "{version}: oracle: {} events compared, {} blocks, 0 differences",
        total.events, total.blocks_compared
    );
}

#[test]
fn the_held_trace_agrees() {
    let version = tree_version();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../lru-model/testdata/example.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let events: Vec<_> = text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            lru_model::trace::parse_line(i + 1, line).unwrap_or_else(|e| panic!("{path}: {e}"))
        })
        .collect();
    let cfg = Config {
        pool_pages: 4,
        ..Config::default()
    };
    let a = replay(cfg, events).unwrap_or_else(|stop| panic!("{version}: {path}:\n{stop}"));
    println!("{version}: {path}: {} events agree", a.events);
    assert!(a.events > 0);
}

/// The check can fail: the model with any one rule of its policy changed
/// must differ from the tree's code on a trace where the tree's own rules
/// agree with it. Every policy: who frees blocks (the page cleaner or, in
/// 10.5, the reader), the old sublist's boundary (the leak
/// remedy's rule, which lets the old sublist outgrow its target). A lazy
/// policy also: the rule for a short LRU, the access clock's tick, the
/// young-touch rule (every other one), the boundary rule for flagged blocks
/// and what a move does to the stamp.
#[test]
fn each_changed_rule_is_caught() {
    let version = tree_version();
    let seed = 0x5eed_0000;
    let settings = for_tree(Config {
        pool_pages: 1000,
        lru_scan_depth: 100,
        ..Config::default()
    });
    // below an old sublist's 512 blocks for most of the trace
    let short = Config {
        pool_pages: 600,
        lru_scan_depth: 300,
        ..settings
    };
    // (the rule changed, the pool with the tree's rules, the changed pool)
    let mut cases: Vec<(String, Config, Config)> = others(
        &OldSurplus::ALL,
        settings.old_surplus,
        OldSurplus::name,
        "old surplus",
        |old_surplus| Config {
            old_surplus,
            ..settings
        },
    )
    .map(|(what, changed)| (what, settings, changed))
    .collect();
    // who frees blocks: the page cleaner (10.6 on) or the reader (10.5)
    let free_blocks = match settings.free_blocks {
        FreeBlocks::Cleaner => FreeBlocks::READER_FLUSH,
        FreeBlocks::ReaderFlush { .. } => FreeBlocks::Cleaner,
    };
    cases.push((
        format!("free blocks {}", free_blocks.name()),
        settings,
        Config {
            free_blocks,
            ..settings
        },
    ));
    if rules().policy == PolicyKind::Lazy {
        let short_lru = match settings.short_lru {
            ShortLru::Upstream => ShortLru::FlagEveryAccess,
            ShortLru::FlagEveryAccess => ShortLru::Upstream,
        };
        cases.push((
            format!("short LRU {short_lru:?}"),
            short,
            Config { short_lru, ..short },
        ));
        let tick = if settings.clock_tick_ms == 100 {
            1000
        } else {
            100
        };
        let lazy_rules = [(
            format!("clock tick {tick} ms"),
            Config {
                clock_tick_ms: tick,
                ..settings
            },
        )]
        .into_iter()
        .chain(others(
            &YoungTouch::ALL,
            settings.young_touch,
            YoungTouch::name,
            "young touch",
            |young_touch| Config {
                young_touch,
                ..settings
            },
        ))
        .chain(others(
            &Boundary::ALL,
            settings.boundary,
            Boundary::name,
            "boundary",
            |boundary| Config {
                boundary,
                ..settings
            },
        ))
        .chain(others(
            &MoveStamp::ALL,
            settings.move_stamp,
            MoveStamp::name,
            "move stamp",
            |move_stamp| Config {
                move_stamp,
                ..settings
            },
        ));
        cases.extend(lazy_rules.map(|(what, changed)| (what, settings, changed)));
    }
    for (what, own, changed) in cases {
        if let Err(stop) = replay_random(own, seed, 20_000) {
            panic!("{version}: the tree's own rules differ where {what} is checked:\n{stop}");
        }
        match replay_random(changed, seed, 20_000) {
            Ok(a) => panic!(
                "{version}: {} events agree with a model whose rule differs ({what})",
                a.events
            ),
            Err(Stop::Diverged(d)) => println!(
                "{version}: a changed rule ({what}) is caught at event {}: {}",
                d.index, d.difference.what
            ),
            Err(other) => panic!("{version}: {what}: {other}"),
        }
    }
}

/// Every value of a rule but the tree's own (`current`), each with the pool
/// `with` makes of it and a label such as `boundary move-flagged`.
fn others<'a, T: Copy + PartialEq + 'a>(
    all: &'a [T],
    current: T,
    name: fn(T) -> &'static str,
    rule: &'a str,
    with: impl Fn(T) -> Config + 'a,
) -> impl Iterator<Item = (String, Config)> + 'a {
    all.iter()
        .copied()
        .filter(move |&v| v != current)
        .map(move |v| (format!("{rule} {}", name(v)), with(v)))
}

/// A traced server's own page stream, as the model replays it
/// (`lru_model::server_trace::ServerStream`), through the model and the
/// tree's code: the pool of the trace's header, the run's
/// `innodb_lru_scan_depth` (`ORACLE_LRU_SCAN_DEPTH`, the server's default
/// 1536 without it), the other settings at their defaults.
#[test]
#[ignore = "needs a traced server's page trace: cargo xtask oracle check --tree SPEC --server-trace FILE runs it"]
fn a_traced_servers_page_stream_agrees() {
    let version = tree_version();
    let path = std::env::var("ORACLE_SERVER_TRACE")
        .expect("ORACLE_SERVER_TRACE names a traced server's page-trace.bin");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let trace = lru_model::server_trace::parse(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
    let depth = std::env::var("ORACLE_LRU_SCAN_DEPTH").map_or(1536, |d| {
        d.parse()
            .unwrap_or_else(|_| panic!("ORACLE_LRU_SCAN_DEPTH={d}: not a number"))
    });
    let cfg = for_tree(Config {
        pool_pages: u32::try_from(trace.pool_frames).expect("a pool of fewer than 2^32 frames"),
        lru_scan_depth: depth,
        ..Config::default()
    });
    fn run<P: Policy>(
        cfg: Config,
        trace: &lru_model::server_trace::ServerTrace,
    ) -> Result<Agreement, Stop> {
        let mut stream = ServerStream::new(trace);
        let mut queue: VecDeque<Event> = VecDeque::new();
        compare_with::<P>(cfg, |pool: &BufferPool<P>| loop {
            if let Some(event) = queue.pop_front() {
                return Some(event);
            }
            let step = stream.next_step(|page| pool.is_resident(page))?;
            queue.extend(step.events);
        })
    }
    let outcome = match rules().policy {
        PolicyKind::Eager => run::<Eager>(cfg, &trace),
        PolicyKind::Lazy => run::<Lazy>(cfg, &trace),
        PolicyKind::Classic => panic!("no oracle runs the classic policy"),
    };
    match outcome {
        Ok(a) => {
            println!(
                "{version}: server trace {path} ({} records, pool {} depth {depth}): {a}",
                trace.events.len(),
                cfg.pool_pages,
            );
            assert!(a.reads > 0 && a.accesses > 0, "{a:?}");
        }
        Err(stop) => panic!("{version}: server trace {path}:\n{stop}"),
    }
}
