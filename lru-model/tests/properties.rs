//! Property tests over random traces: the list invariants, monotone
//! counters, and deterministic replay.

use lru_model::pool::Counters;
use lru_model::trace::{replay, to_line, ReplayOutput};
use lru_model::{new_model, Config, Event, LruModel, Op, PolicyKind, ShortLru};
use proptest::prelude::*;

/// A raw step: which op, which page, how much time passes before it.
#[derive(Clone, Debug)]
struct Step {
    op: u8,
    page: u64,
    dt_ms: u64,
}

fn steps(n: usize, pages: u64) -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        (
            0u8..100,
            0..pages,
            prop_oneof![3 => Just(0u64), 2 => 0u64..400, 1 => 0u64..5000],
        )
            .prop_map(|(op, page, dt_ms)| Step { op, page, dt_ms }),
        1..n,
    )
}

fn policy() -> impl Strategy<Value = PolicyKind> {
    prop_oneof![
        Just(PolicyKind::Classic),
        Just(PolicyKind::Eager),
        Just(PolicyKind::Lazy)
    ]
}

/// Turn raw steps into a valid trace for this model, as it evolves: a read of a
/// resident page becomes an access, an access or free of a missing page a read.
fn valid_events(model: &mut dyn LruModel, steps: &[Step]) -> Vec<Event> {
    let mut t_ms = 1;
    let mut events = Vec::with_capacity(steps.len());
    let mut prev = model.counters();
    for (i, s) in steps.iter().enumerate() {
        t_ms += s.dt_ms;
        let resident = model.is_resident(s.page);
        let op = match s.op {
            0..=1 => Op::Cleaner,
            2..=6 if resident => Op::Free(s.page),
            _ if !resident => Op::Read(s.page),
            _ => Op::Access(s.page),
        };
        let event = Event { t_ms, op };
        model
            .apply(&event)
            .unwrap_or_else(|e| panic!("step {i} {event:?}: {e}"));
        let now = model.counters();
        assert_monotone(&prev, &now);
        prev = now;
        if i % 64 == 0 || i + 1 == steps.len() {
            model
                .check_invariants()
                .unwrap_or_else(|e| panic!("after step {i} {event:?}: {e}"));
        }
        events.push(event);
    }
    events
}

fn assert_monotone(a: &Counters, b: &Counters) {
    let pairs = [
        (a.made_young, b.made_young),
        (a.not_made_young, b.not_made_young),
        (a.access_mutex_acquisitions, b.access_mutex_acquisitions),
        (a.evictions, b.evictions),
        (a.frees, b.frees),
        (a.reads, b.reads),
        (a.accesses, b.accesses),
    ];
    for (before, after) in pairs {
        assert!(after >= before, "a counter went down: {a:?} -> {b:?}");
    }
}

fn config(pool_pages: u32, old_pct: u32, time_ms: u32, depth: u32) -> Config {
    Config {
        pool_pages,
        old_pct,
        old_blocks_time_ms: time_ms,
        lru_scan_depth: depth,
        short_lru: ShortLru::Upstream,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Long enough lists to have an old sublist, pools small enough to evict.
    #[test]
    fn invariants_hold_and_counters_never_go_down(
        kind in policy(),
        pool_pages in 520u32..700,
        old_pct in 5u32..=95,
        time_ms in prop_oneof![Just(0u32), Just(1000u32), 0u32..3000],
        depth in 100u32..300,
        trace in steps(3000, 900),
    ) {
        let mut model = new_model(kind, config(pool_pages, old_pct, time_ms, depth)).unwrap();
        valid_events(model.as_mut(), &trace);
    }

    /// Small pools: lists that cross 512 never, and the page cleaner's minimum length.
    #[test]
    fn invariants_hold_in_small_pools(
        kind in policy(),
        pool_pages in 1u32..80,
        trace in steps(400, 120),
    ) {
        let mut model = new_model(kind, config(pool_pages, 37, 1000, 100)).unwrap();
        valid_events(model.as_mut(), &trace);
    }

    /// The same trace gives the same output, and the trace's text gives it too.
    #[test]
    fn replay_is_deterministic(
        kind in policy(),
        pool_pages in 500u32..600,
        trace in steps(1500, 700),
    ) {
        let cfg = config(pool_pages, 37, 1000, 128);
        let mut model = new_model(kind, cfg).unwrap();
        let events = valid_events(model.as_mut(), &trace);
        let direct = ReplayOutput::of(model.as_ref());
        let lines: Vec<String> = events.iter().map(to_line).collect();
        let first = replay(kind, cfg, lines.iter().map(String::as_str)).unwrap();
        let second = replay(kind, cfg, lines.iter().map(String::as_str)).unwrap();
        prop_assert_eq!(&first, &direct);
        prop_assert_eq!(&first, &second);
        prop_assert_eq!(first.lru.len(), first.lru_len as usize);
        prop_assert_eq!(first.lru_len + first.free_len, pool_pages);
    }
}
