//! Hand-worked traces, one or more per rule of each policy.

use lru_model::{
    kept_stamp, Boundary, BufferPool, Classic, CleanerWakeup, Config, Eager, FreeBlocks, Lazy,
    ModelError, MoveStamp, OldSurplus, Policy, ShortLru, YoungTouch, BOUNDARY_MOVES,
    LRU_FLUSH_SIZE,
};

const OLD_MIN_LEN: u64 = 512;

fn cfg(pool_pages: u32) -> Config {
    Config {
        pool_pages,
        ..Config::default()
    }
}

fn pool<P: Policy>(pool_pages: u32) -> BufferPool<P> {
    BufferPool::<P>::new(cfg(pool_pages)).unwrap()
}

/// Read and access pages `from..to` at time `t_ms`.
fn load<P: Policy>(p: &mut BufferPool<P>, from: u64, to: u64, t_ms: u64) {
    p.set_time(t_ms).unwrap();
    for page in from..to {
        p.read(page).unwrap();
        p.access(page).unwrap();
    }
    p.check_invariants().unwrap();
}

// --- the list, common to every policy --------------------------------------

#[test]
fn short_list_inserts_at_the_head_without_old_blocks() {
    let mut p = pool::<Eager>(100);
    for page in [1, 2, 3] {
        p.read(page).unwrap();
    }
    assert_eq!(p.lru_pages(), vec![3, 2, 1]);
    assert_eq!((p.lru_len(), p.old_len(), p.free_len()), (3, 0, 97));
    assert_eq!(p.is_old(1), Some(false));
}

#[test]
fn a_created_page_is_accessed_by_its_creation() {
    // before the fix buf_page_create_low() calls set_accessed(): the page's
    // access time is its creation, and it is not made young
    let mut eager = pool::<Eager>(100);
    eager.set_time(2500).unwrap();
    eager.create(7).unwrap();
    let s = eager.page_state(7).unwrap();
    assert_eq!((s.access_time_ms, s.old), (2500, false));
    assert_eq!(eager.counters().made_young, 0);
    // so the first access after it is not the first
    eager.set_time(2600).unwrap();
    assert!(eager.access(7).unwrap());
    // after the fix it calls touch(): the access time in clock ticks
    let mut lazy = pool::<Lazy>(100);
    lazy.set_time(2500).unwrap();
    lazy.create(7).unwrap();
    let s = lazy.page_state(7).unwrap();
    assert_ne!(s.access_time_s, 0);
    assert!(!s.promote);
}

#[test]
fn old_sublist_appears_at_512_and_takes_midpoint_inserts() {
    let mut p = pool::<Eager>(1000);
    for page in 0..OLD_MIN_LEN {
        p.read(page).unwrap();
    }
    // buf_LRU_old_init: all old, then adjust to min(512*378/1024, 512-25) = 189,
    // stopping at the tolerance: 189 + 20 = 209 old blocks, pages 208..=0.
    assert_eq!(p.old_len(), 209);
    assert_eq!(p.is_old(208), Some(true));
    assert_eq!(p.is_old(209), Some(false));
    // A read goes right after LRU_old (page 208); old_len 210 > 189 + 20 moves
    // LRU_old one step to the tail, onto the new page, and makes 208 young.
    p.read(512).unwrap();
    assert_eq!(p.old_len(), 209);
    assert_eq!(p.is_old(208), Some(false));
    assert_eq!(p.is_old(512), Some(true));
    let lru = p.lru_pages();
    assert_eq!(lru[303], 208);
    assert_eq!(lru[304], 512);
    // 303 steps of the initial adjustment and one for the insert
    assert_eq!(p.counters().boundary_made_young, 304);
    p.check_invariants().unwrap();
}

#[test]
fn dropping_below_512_clears_every_old_flag() {
    let mut p = pool::<Eager>(1000);
    load(&mut p, 0, 513, 0);
    assert_eq!(p.old_len(), 209);
    p.free(0).unwrap();
    // 512 blocks still have an old sublist: 208 is within 189 +- 20
    assert_eq!(p.old_len(), 208);
    p.free(1).unwrap();
    assert_eq!(p.old_len(), 0);
    assert!((2..513).all(|pg| p.is_old(pg) == Some(false)));
    p.check_invariants().unwrap();
}

#[test]
fn user_thread_evicts_the_tail_when_the_free_list_is_empty() {
    let mut p = pool::<Eager>(600);
    load(&mut p, 0, 600, 0);
    assert_eq!(p.free_len(), 0);
    p.read(600).unwrap();
    assert_eq!(p.counters().evictions, 1);
    assert!(!p.is_resident(0), "page 0 was at the LRU tail");
    assert_eq!(p.freed_page_clock(), 1);
}

#[test]
fn cleaner_refills_the_free_list_up_to_the_scan_depth() {
    let mut p = BufferPool::<Eager>::new(Config {
        pool_pages: 1000,
        lru_scan_depth: 100,
        ..Config::default()
    })
    .unwrap();
    load(&mut p, 0, 1000, 0);
    p.cleaner_batch();
    assert_eq!((p.free_len(), p.counters().evictions), (100, 100));
    assert!((0..100).all(|pg| !p.is_resident(pg)));
    // the batch stops at the target
    p.cleaner_batch();
    assert_eq!(p.counters().evictions, 100);
    p.check_invariants().unwrap();
}

#[test]
fn cleaner_keeps_the_minimum_lru_length() {
    // min(usable/20 - 1, 256) = min(29, 256) = 29 blocks stay
    let mut p = pool::<Lazy>(600);
    load(&mut p, 0, 100, 0);
    p.cleaner_batch();
    assert_eq!(p.lru_len(), 29);
}

#[test]
fn tiny_pool_cannot_evict_below_256_blocks() {
    // usable/20 - 1 wraps in size_t for a pool of fewer than 20 pages: 256 stays the minimum
    let mut p = pool::<Eager>(10);
    load(&mut p, 0, 10, 0);
    // the user thread's own scan still evicts
    p.read(10).unwrap();
    assert_eq!(p.counters().evictions, 1);
    let mut p = pool::<Lazy>(10);
    load(&mut p, 0, 10, 1000);
    p.set_time(10_000).unwrap();
    for page in 0..10 {
        p.access(page).unwrap();
    }
    assert_eq!(p.promote_pending(), 10);
    // The user thread's scan moves every flagged block to the head; its
    // iterator then reaches the first one it moved, now unflagged, and
    // evicts it. No block is old in so short a list, so none counts.
    p.read(10).unwrap();
    let c = p.counters();
    assert_eq!((c.evictions, c.made_young, c.lru_waits), (1, 0, 0));
    assert!(!p.is_resident(0));
    assert_eq!(p.lru_pages(), vec![10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
}

/// A full pool of 2,048 blocks, one page-cleaner batch of 128, then 128
/// reads of new pages into the blocks it freed, each accessed at once (a
/// point read) or not (a read-ahead's page that its scan has not reached):
/// how many blocks the boundary made young during the reads, and how many
/// of the new pages are young afterwards.
fn refill(rule: OldSurplus, accessed: bool) -> (u64, usize) {
    let (p, before) = refilled(rule, accessed);
    let young = (10_000..10_128)
        .filter(|&page| p.is_old(page) == Some(false))
        .count();
    (p.counters().boundary_made_young - before, young)
}

/// The pool of [`refill`] after its reads, and the blocks the boundary had
/// made young before them.
fn refilled(rule: OldSurplus, accessed: bool) -> (BufferPool<Classic>, u64) {
    let mut p = BufferPool::<Classic>::new(Config {
        pool_pages: 2048,
        lru_scan_depth: 128,
        old_surplus: rule,
        ..Config::default()
    })
    .unwrap();
    // at 1 ms: an access time of 0 would read as never accessed
    load(&mut p, 0, 2048, 1);
    p.cleaner_batch();
    assert_eq!(p.free_len(), 128);
    let before = p.counters().boundary_made_young;
    for page in 10_000..10_128 {
        p.read(page).unwrap();
        if accessed {
            p.access(page).unwrap();
        }
    }
    p.check_invariants().unwrap();
    (p, before)
}

#[test]
fn a_refill_makes_just_read_pages_young_unless_the_old_sublist_may_hold_the_surplus() {
    // upstream: the batch left the old sublist 20 blocks (the tolerance)
    // short of its target; 128 midpoint inserts lengthen it by 128 and its
    // target by 47 (old_ratio 378/1024), so the boundary steps toward the
    // tail 128 - 47 - 20 - 20 = 41 times, over the pages just read
    for accessed in [false, true] {
        let (moved, young) = refill(OldSurplus::Upstream, accessed);
        assert!((38..=44).contains(&moved), "{moved}");
        assert!(young > 0 && young as u64 <= moved, "{young} of {moved}");
        // hold: the surplus fits the allowance of one batch, nothing moves
        assert_eq!(refill(OldSurplus::Hold, accessed), (0, 0));
    }
}

#[test]
fn hold_unaccessed_holds_for_a_read_aheads_pages_and_not_for_point_reads() {
    // pages not yet accessed: once the old sublist is over the tolerance,
    // the boundary steps once, over the block that was at its head before
    // the refill (a page of the full pool, accessed), and then holds at
    // the last page read; none of the pages read is made young
    assert_eq!(refill(OldSurplus::HoldUnaccessed, false), (1, 0));
    // pages each accessed as soon as read: the boundary moves as upstream's
    assert_eq!(
        refill(OldSurplus::HoldUnaccessed, true),
        refill(OldSurplus::Upstream, true)
    );
}

#[test]
fn what_hold_unaccessed_held_stays_held_once_the_scan_reaches_it() {
    // a batch, then 128 read-ahead pages into the blocks it freed, then the
    // scan reaches them all, then one point read: the surplus held over the
    // read-ahead pages is not given back by stepping over them (only
    // evictions take it), and the point read moves the boundary by at most
    // one block, as upstream's
    let (mut p, _) = refilled(OldSurplus::HoldUnaccessed, false);
    for page in 10_000..10_128 {
        p.access(page).unwrap();
    }
    p.check_invariants().unwrap();
    let before = p.counters().boundary_made_young;
    p.read(20_000).unwrap();
    p.access(20_000).unwrap();
    p.check_invariants().unwrap();
    assert!(p.counters().boundary_made_young - before <= 1);
    let young = (10_000..10_128)
        .filter(|&page| p.is_old(page) == Some(false))
        .count();
    assert_eq!(young, 0, "the scan's pages stay old");
}

#[test]
fn the_surplus_never_leaves_fewer_than_five_young_blocks() {
    // innodb_old_blocks_pct=95: the target is already the list less 25
    // blocks, and an eighth of the list on top would reach the head
    let mut p = BufferPool::<Classic>::new(Config {
        pool_pages: 2048,
        old_pct: 95,
        lru_scan_depth: 1024,
        old_surplus: OldSurplus::Hold,
        ..Config::default()
    })
    .unwrap();
    load(&mut p, 0, 2048, 0);
    assert_eq!(p.lru_len() - p.old_len(), 5);
    p.cleaner_batch();
    for page in 10_000..11_024 {
        p.read(page).unwrap();
    }
    p.check_invariants().unwrap();
    assert_eq!(p.lru_len() - p.old_len(), 5);
}

#[test]
fn the_surplus_allowance_is_the_scan_depth_and_at_most_an_eighth_of_the_list() {
    assert_eq!(OldSurplus::Upstream.allowance(1024, 16384), 0);
    assert_eq!(OldSurplus::Hold.allowance(1024, 16384), 1024);
    assert_eq!(OldSurplus::Hold.allowance(1024, 4096), 512);
    assert_eq!(OldSurplus::Hold.allowance(100, 4096), 100);
    assert_eq!(OldSurplus::HoldUnaccessed.allowance(1024, 4096), 512);
    assert_eq!("hold".parse::<OldSurplus>(), Ok(OldSurplus::Hold));
    assert_eq!(
        "hold-unaccessed".parse::<OldSurplus>(),
        Ok(OldSurplus::HoldUnaccessed)
    );
    assert_eq!(
        "x".parse::<OldSurplus>(),
        Err("unknown old surplus rule \"x\": expected upstream, hold or hold-unaccessed".into())
    );
}

// --- eager (10.5 .. 11.8.9) -------------------------------------------------

#[test]
fn eager_does_nothing_while_the_clock_is_zero() {
    let mut p = pool::<Eager>(1000);
    load(&mut p, 0, 600, 0);
    p.set_time(5000).unwrap();
    for page in 0..600 {
        p.access(page).unwrap();
    }
    let c = p.counters();
    assert_eq!(
        (c.made_young, c.not_made_young, c.access_mutex_acquisitions),
        (0, 0, 0)
    );
}

#[test]
fn eager_old_block_needs_old_blocks_time_after_its_first_access() {
    let mut p = pool::<Eager>(1000);
    load(&mut p, 0, 600, 100);
    // arm the clock: a freed page ticks it
    p.free(599).unwrap();
    assert_eq!(p.freed_page_clock(), 1);
    assert_eq!(p.is_old(0), Some(true));
    p.set_time(1099).unwrap();
    p.access(0).unwrap();
    let c = p.counters();
    assert_eq!(
        (c.made_young, c.not_made_young, c.access_mutex_acquisitions),
        (0, 1, 0)
    );
    p.set_time(1100).unwrap();
    p.access(0).unwrap();
    let c = p.counters();
    assert_eq!(
        (c.made_young, c.not_made_young, c.access_mutex_acquisitions),
        (1, 1, 1)
    );
    assert_eq!(p.lru_pages()[0], 0);
    assert_eq!(p.is_old(0), Some(false));
}

#[test]
fn eager_new_block_is_promoted_once_a_quarter_of_the_new_sublist_was_evicted() {
    // window = 600 * (1024 - 378) / 4096 = 94 evictions
    let mut p = pool::<Eager>(600);
    load(&mut p, 0, 600, 1);
    // pages 512.. went to the midpoint: page 511 is the head, stamped with clock 0
    let head = 511;
    assert_eq!(p.lru_pages()[0], head);
    p.free(0).unwrap(); // clock 1
    let mut next = 1000;
    let mut read_until_clock = |p: &mut BufferPool<Eager>, clock: u32| {
        while p.freed_page_clock() < clock {
            p.read(next).unwrap();
            next += 1;
        }
    };
    read_until_clock(&mut p, 93);
    p.access(head).unwrap();
    assert_eq!(
        p.counters().access_mutex_acquisitions,
        0,
        "93 < 0 + 94: still young"
    );
    read_until_clock(&mut p, 94);
    p.access(head).unwrap();
    let c = p.counters();
    assert_eq!(
        (c.access_mutex_acquisitions, c.made_young),
        (1, 0),
        "moved, but it was not old"
    );
    // the move re-stamped the block with clock 94
    assert_eq!(p.page_state(head).unwrap().freed_page_clock, 94);
    read_until_clock(&mut p, 187);
    p.access(head).unwrap();
    assert_eq!(p.counters().access_mutex_acquisitions, 1);
    read_until_clock(&mut p, 188);
    p.access(head).unwrap();
    assert_eq!(p.counters().access_mutex_acquisitions, 2);
    p.check_invariants().unwrap();
}

#[test]
fn eager_milliseconds_wrap_at_2_pow_32() {
    let wrap = 1u64 << 32;
    let mut p = pool::<Eager>(1000);
    load(&mut p, 0, 600, wrap - 10);
    p.free(599).unwrap();
    // 999 ms after the first access, across the wrap
    p.set_time(wrap + 989).unwrap();
    p.access(0).unwrap();
    assert_eq!(
        (p.counters().made_young, p.counters().not_made_young),
        (0, 1)
    );
    p.set_time(wrap + 990).unwrap();
    p.access(0).unwrap();
    assert_eq!(p.counters().made_young, 1);
    // 2^32 + 500 ms after a first access looks like 500 ms
    p.set_time(2 * wrap - 10 + 500).unwrap();
    let old_page = (2..598).find(|&pg| p.is_old(pg) == Some(true)).unwrap();
    p.access(old_page).unwrap();
    assert_eq!(
        (p.counters().made_young, p.counters().not_made_young),
        (1, 2)
    );
}

#[test]
fn eager_free_releases_the_frame_and_ticks_the_clock() {
    let mut p = pool::<Eager>(100);
    load(&mut p, 0, 10, 0);
    p.free(3).unwrap();
    assert_eq!(
        (p.lru_len(), p.free_len(), p.freed_page_clock()),
        (9, 91, 1)
    );
    assert_eq!(p.access(3), Err(ModelError::NotResident(3)));
    assert_eq!(p.counters().evictions, 0, "a free is not an eviction");
}

// --- classic (10.4) ---------------------------------------------------------

#[test]
fn classic_free_leaves_the_block_in_the_lru_and_the_clock_at_zero() {
    let mut p = pool::<Classic>(1000);
    load(&mut p, 0, 600, 0);
    p.free(0).unwrap();
    assert_eq!(
        (p.lru_len(), p.free_len(), p.freed_page_clock()),
        (600, 400, 0)
    );
    assert_eq!(p.access(0), Err(ModelError::Freed(0)));
    p.set_time(10_000).unwrap();
    for page in 1..600 {
        p.access(page).unwrap();
    }
    assert_eq!(
        p.counters().access_mutex_acquisitions,
        0,
        "no promotion before an eviction"
    );
    // reading the freed page finds its block in the pool
    p.read(0).unwrap();
    p.access(0).unwrap();
    assert_eq!(p.lru_len(), 600);
}

#[test]
fn classic_promotes_once_eviction_started() {
    let mut p = pool::<Classic>(600);
    load(&mut p, 0, 600, 1);
    p.free(0).unwrap();
    p.set_time(2000).unwrap();
    p.read(600).unwrap();
    // the freed block was at the tail and is evicted like any block, ticking the clock
    assert_eq!((p.counters().evictions, p.freed_page_clock()), (1, 1));
    assert!(!p.is_resident(0));
    let old_page = (1..600).find(|&pg| p.is_old(pg) == Some(true)).unwrap();
    p.access(old_page).unwrap();
    let c = p.counters();
    assert_eq!((c.made_young, c.access_mutex_acquisitions), (1, 1));
}

// --- lazy (MDEV-33966) ------------------------------------------------------

#[test]
fn lazy_access_flags_but_never_moves() {
    let mut p = pool::<Lazy>(1000);
    load(&mut p, 0, 600, 500); // clock 1 (0 s reads as 1)
    let before = p.lru_pages();
    p.set_time(2999).unwrap(); // clock 2: age 1 tick, not more than the threshold
    for page in 0..600 {
        p.access(page).unwrap();
    }
    assert_eq!(p.promote_pending(), 0);
    p.set_time(3000).unwrap(); // clock 3: age 2 > 1
    for page in 0..600 {
        p.access(page).unwrap();
    }
    assert_eq!(p.promote_pending(), 600);
    assert_eq!(p.lru_pages(), before);
    let c = p.counters();
    assert_eq!(
        (c.made_young, c.not_made_young, c.access_mutex_acquisitions),
        (0, 0, 0)
    );
}

#[test]
fn lazy_threshold_zero_flags_the_first_access() {
    let mut p = BufferPool::<Lazy>::new(Config {
        pool_pages: 100,
        old_blocks_time_ms: 0,
        ..Config::default()
    })
    .unwrap();
    p.read(1).unwrap();
    p.access(1).unwrap();
    assert_eq!(p.promote_pending(), 1);
}

#[test]
fn lazy_cleaner_moves_flagged_blocks_and_counts_the_others() {
    let mut p = BufferPool::<Lazy>::new(Config {
        pool_pages: 1000,
        lru_scan_depth: 100,
        ..Config::default()
    })
    .unwrap();
    load(&mut p, 0, 1000, 0);
    // pages 0..=9 are the 10 blocks at the tail, all old; flag 0..5
    p.set_time(3000).unwrap(); // clock 3: 2 ticks after the load (0 s reads as 1)
    for page in 0..5 {
        p.access(page).unwrap();
    }
    assert_eq!(p.promote_pending(), 5);
    p.cleaner_batch();
    let c = p.counters();
    // 5 moved (old: made young), then 100 evicted, each an old block with a stamp
    assert_eq!((c.made_young, c.not_made_young, c.evictions), (5, 100, 100));
    assert_eq!(p.promote_pending(), 0);
    assert!((0..5).all(|pg| p.is_resident(pg) && p.is_old(pg) == Some(false)));
    assert!((5..105).all(|pg| !p.is_resident(pg)));
    assert_eq!(p.lru_pages()[..5], [4, 3, 2, 1, 0]);
    p.check_invariants().unwrap();
}

#[test]
fn lazy_promotion_restamps_so_the_next_needs_a_new_reaccess() {
    let mut p = BufferPool::<Lazy>::new(Config {
        pool_pages: 1000,
        lru_scan_depth: 100,
        ..Config::default()
    })
    .unwrap();
    load(&mut p, 0, 1000, 0);
    p.set_time(5000).unwrap(); // clock 5
    p.access(0).unwrap();
    p.cleaner_batch(); // moves page 0, re-stamped with clock 5
    assert_eq!(p.counters().made_young, 1);
    let state = p.page_state(0).unwrap();
    assert_eq!(
        (state.access_time_s, state.promote, state.old),
        (5, false, false)
    );
    p.set_time(6000).unwrap(); // clock 6: 1 tick after the promotion
    p.access(0).unwrap();
    assert_eq!(p.promote_pending(), 0);
    p.set_time(7000).unwrap();
    p.access(0).unwrap();
    assert_eq!(p.promote_pending(), 1);
}

#[test]
fn lazy_user_thread_scan_moves_flagged_blocks_instead_of_evicting_them() {
    let mut p = pool::<Lazy>(600);
    load(&mut p, 0, 600, 0);
    p.set_time(3000).unwrap();
    for page in 0..3 {
        p.access(page).unwrap();
    }
    p.read(600).unwrap();
    let c = p.counters();
    assert_eq!(
        (c.made_young, c.evictions, c.access_mutex_acquisitions),
        (3, 1, 0)
    );
    assert!((0..3).all(|pg| p.is_resident(pg)));
    assert!(!p.is_resident(3));
}

#[test]
fn lazy_free_passes_the_flush_list_sweep_first() {
    let mut p = pool::<Lazy>(1000);
    load(&mut p, 0, 600, 0);
    p.set_time(3000).unwrap();
    p.access(0).unwrap(); // old and flagged
    p.access(511).unwrap(); // the head: young and flagged
    p.free(0).unwrap();
    p.free(511).unwrap();
    p.free(1).unwrap(); // old, not flagged: the flush-list sweep does not count
    let c = p.counters();
    assert_eq!((c.made_young, c.not_made_young), (1, 0));
    assert_eq!(
        p.freed_page_clock(),
        0,
        "the lazy policy has no freed_page_clock"
    );
    assert_eq!((p.lru_len(), p.free_len()), (597, 403));
}

#[test]
fn lazy_seconds_wrap_at_65536() {
    let s = |secs: u64| secs * 1000;
    let mut p = pool::<Lazy>(100);
    load(&mut p, 0, 3, s(65535)); // stamp 65535
                                  // 65536 s reads as clock 0, mapped to 1: 2 ticks after 65535 though 1 s passed
    p.set_time(s(65536)).unwrap();
    p.access(0).unwrap();
    assert_eq!(p.promote_pending(), 1);
    // a block stamped at clock 10 and re-accessed 65536 s later has age 0
    let mut p = pool::<Lazy>(100);
    load(&mut p, 0, 1, s(10));
    p.set_time(s(10 + 65536)).unwrap();
    p.access(0).unwrap();
    assert_eq!(p.promote_pending(), 0);
    p.set_time(s(12 + 65536)).unwrap();
    p.access(0).unwrap();
    assert_eq!(p.promote_pending(), 1);
}

/// A 100-page pool never has an old sublist. Pages 0..100 are read (not
/// accessed), so page 0 is at the tail; 0.5 s later, within
/// `innodb_old_blocks_time`, page 0 is accessed, then page 100 needs a frame.
fn short_lru_access_then_read(short_lru: ShortLru) -> BufferPool<Lazy> {
    let mut p = BufferPool::<Lazy>::new(Config {
        pool_pages: 100,
        short_lru,
        ..Config::default()
    })
    .unwrap();
    for page in 0..100 {
        p.read(page).unwrap();
    }
    p.set_time(500).unwrap();
    p.access(0).unwrap();
    p.read(100).unwrap();
    p.check_invariants().unwrap();
    assert_eq!(p.old_len(), 0);
    p
}

#[test]
fn lazy_upstream_evicts_a_short_lru_in_fifo_order() {
    let p = short_lru_access_then_read(ShortLru::Upstream);
    assert!(!p.is_resident(0), "{:?}", p.page_state(0));
    assert!(p.is_resident(1));
    assert_eq!(p.counters().evictions, 1);
}

#[test]
fn lazy_port_gives_an_accessed_block_of_a_short_lru_a_second_chance() {
    let p = short_lru_access_then_read(ShortLru::FlagEveryAccess);
    // the free-block scan moved page 0 (flagged, threshold 0) to the head,
    // unflagged and re-stamped, and freed page 1 instead
    assert!(p.is_resident(0));
    assert!(!p.is_resident(1));
    assert_eq!(p.lru_pages()[..2], [100, 0]);
    let state = p.page_state(0).unwrap();
    assert_eq!((state.promote, state.old), (false, false));
    // a move of a block that is not old is not counted, as in the server
    assert_eq!(p.counters().made_young, 0);
    assert_eq!(p.counters().evictions, 1);
}

/// Page 0 is read and first accessed at `first_ms`, then accessed again at
/// `again_ms`: whether that access flagged it, with a clock of `tick_ms`.
fn flagged_on_second_access(tick_ms: u32, first_ms: u64, again_ms: u64) -> bool {
    let mut p = BufferPool::<Lazy>::new(Config {
        pool_pages: 100,
        clock_tick_ms: tick_ms,
        ..Config::default()
    })
    .unwrap();
    p.set_time(first_ms).unwrap();
    p.read(0).unwrap();
    p.access(0).unwrap();
    p.set_time(again_ms).unwrap();
    p.access(0).unwrap();
    p.page_state(0).unwrap().promote
}

#[test]
fn the_fine_clock_flags_a_block_innodb_old_blocks_time_after_its_first_access() {
    // whole-second ticks: stamped in second 5, flagged only from second 7
    // on (the age must exceed 1 tick), 1 to 2 s later
    assert!(!flagged_on_second_access(1000, 5_000, 6_900));
    assert!(flagged_on_second_access(1000, 5_000, 7_000));
    assert!(flagged_on_second_access(1000, 5_950, 7_000));
    // 100 ms ticks: 1.0 to 1.1 s later, never before 1 s
    assert!(!flagged_on_second_access(100, 5_000, 5_950));
    assert!(!flagged_on_second_access(100, 5_000, 6_099));
    assert!(flagged_on_second_access(100, 5_000, 6_100));
    assert!(flagged_on_second_access(100, 5_090, 6_100));
    assert!(!flagged_on_second_access(100, 5_090, 6_000));
}

/// A 1000-page pool (`innodb_lru_scan_depth=100`) that read pages
/// 0..1000 in one instant without accessing them, so about 5/8 of them
/// young and 3/8 old; then each page is accessed once, in the same tick,
/// under `rule`.
fn first_access_at_once(rule: YoungTouch) -> BufferPool<Lazy> {
    first_access_at_once_with(rule, Boundary::Upstream)
}

/// [`first_access_at_once`] with the boundary rule `boundary`.
fn first_access_at_once_with(rule: YoungTouch, boundary: Boundary) -> BufferPool<Lazy> {
    let mut p = BufferPool::<Lazy>::new(Config {
        pool_pages: 1000,
        lru_scan_depth: 100,
        young_touch: rule,
        boundary,
        ..Config::default()
    })
    .unwrap();
    p.set_time(500).unwrap();
    for page in 0..1000 {
        p.read(page).unwrap();
    }
    for page in 0..1000 {
        p.access(page).unwrap();
    }
    p.check_invariants().unwrap();
    p
}

#[test]
fn young_touch_flags_a_young_block_at_once_and_an_old_one_only_past_the_threshold() {
    let upstream = first_access_at_once(YoungTouch::AgeChecked);
    assert_eq!(upstream.promote_pending(), 0, "the fix: every block waits");
    let remedy = first_access_at_once(YoungTouch::OldOnly);
    let young = (0..1000)
        .filter(|&pg| remedy.is_old(pg) == Some(false))
        .count() as u64;
    assert!(young > 500 && young < 1000, "{young} young blocks");
    assert_eq!(
        remedy.promote_pending(),
        young,
        "the remedy: every young block, no old one"
    );
    for page in 0..1000 {
        let s = remedy.page_state(page).unwrap();
        assert_eq!(s.promote, !s.old, "page {page}: {s:?}");
    }
}

#[test]
fn young_touch_lets_a_hot_set_into_a_pool_that_turns_over_within_the_threshold() {
    // After the load, 100 hot pages are used in turn, two between each pair
    // of cold pages read, all within one tick, so no stamp ever gets old
    // enough; a page-cleaner batch refills the free list every 100 cold
    // reads, which moves the old sublist's boundary back and forth as the
    // list shrinks and grows again. Upstream's fix flags nothing: the young
    // sublist keeps the loaded pages and the hot pages cycle through the
    // old sublist, read again and again. The remedy flags the hot pages
    // that the boundary hands to the young sublist; the sweeps move them to
    // the head, and the loaded pages sink and leave.
    let mut hot_misses = Vec::new();
    for rule in [YoungTouch::AgeChecked, YoungTouch::OldOnly] {
        let mut p = first_access_at_once(rule);
        p.set_time(600).unwrap();
        let mut misses = 0;
        for step in 0..60_000u64 {
            for page in [1000 + (2 * step) % 100, 1001 + (2 * step) % 100] {
                if !p.is_resident(page) {
                    misses += u64::from(step >= 40_000);
                    p.read(page).unwrap();
                }
                p.access(page).unwrap();
            }
            p.read(2000 + step).unwrap();
            p.access(2000 + step).unwrap();
            if step % 100 == 99 {
                p.cleaner_batch();
            }
        }
        p.check_invariants().unwrap();
        hot_misses.push(misses);
    }
    assert!(
        hot_misses[0] > 1000,
        "upstream: {hot_misses:?} hot misses in the last 20,000 steps"
    );
    // about half here; not nearly all, since a hot page that the boundary
    // hands back to the old sublist before its next use is not flagged
    assert!(
        hot_misses[1] * 10 < hot_misses[0] * 6,
        "the remedy: {hot_misses:?}"
    );
}

/// The hot-set run of the test above, with the hot pages found by lookups
/// and the cold pages passed over by a scan that reads eight pages ahead
/// (accesses that are not lookups, to pages that the boundary may have
/// handed to the young sublist by then): the hot misses of the last 20,000
/// steps, and how many cold pages were ever flagged.
fn hot_lookups_beside_a_scan(rule: YoungTouch) -> (u64, usize) {
    let mut p = first_access_at_once(rule);
    p.set_time(600).unwrap();
    let (mut misses, mut flagged_cold) = (0, 0);
    for step in 0..60_000u64 {
        for page in [1000 + (2 * step) % 100, 1001 + (2 * step) % 100] {
            if !p.is_resident(page) {
                misses += u64::from(step >= 40_000);
                p.read(page).unwrap();
            }
            p.lookup(page).unwrap();
        }
        let cold = 2000 + step;
        if step % 8 == 0 {
            for ahead in cold..cold + 8 {
                p.read(ahead).unwrap();
            }
        }
        // a scan reads several rows of a page in a row
        for _ in 0..3 {
            p.access(cold).unwrap();
        }
        flagged_cold += usize::from(p.page_state(cold).is_some_and(|s| s.promote));
        if step % 100 == 99 {
            p.cleaner_batch();
        }
    }
    p.check_invariants().unwrap();
    (misses, flagged_cold)
}

#[test]
fn lookup_touch_lets_the_hot_lookups_in_and_leaves_the_scanned_pages_unflagged() {
    let (upstream, upstream_cold) = hot_lookups_beside_a_scan(YoungTouch::AgeChecked);
    let (old_only, old_only_cold) = hot_lookups_beside_a_scan(YoungTouch::OldOnly);
    let (lookup, lookup_cold) = hot_lookups_beside_a_scan(YoungTouch::Lookup);
    assert!(upstream > 1000, "upstream: {upstream} hot misses");
    assert!(
        lookup * 10 < upstream * 6,
        "lookup: {lookup} hot misses, upstream {upstream}"
    );
    assert_eq!(upstream_cold, 0, "upstream flags no scanned page");
    assert!(
        old_only_cold > 0,
        "old-only flags the scanned pages the boundary hands over ({old_only} hot misses)"
    );
    assert_eq!(lookup_cold, 0, "lookup flags no scanned page");
}

#[test]
fn the_boundary_rule_moves_a_flagged_young_block_to_the_head_instead_of_making_it_old() {
    // The 1000-page pool of first_access_at_once(), every young block
    // flagged by the old-only rule; then a page-cleaner batch shortens the
    // list, and the boundary moves toward the head over flagged blocks.
    for (boundary, moved) in [(Boundary::Upstream, false), (Boundary::MoveFlagged, true)] {
        let mut p = first_access_at_once_with(YoungTouch::OldOnly, boundary);
        let flagged_young = p.promote_pending();
        assert!(flagged_young > 500, "{flagged_young} flagged");
        p.cleaner_batch();
        p.check_invariants().unwrap();
        let c = p.counters();
        assert_eq!(c.boundary_moves > 0, moved, "{boundary:?}: {c:?}");
        // every block the boundary took from the new sublist was flagged:
        // upstream they all became old still flagged; under the rule only
        // one a call may, after the call has moved BOUNDARY_MOVES of them
        let old_flagged = p
            .lru_pages()
            .into_iter()
            .filter(|&pg| p.page_state(pg).is_some_and(|s| s.old && s.promote))
            .count() as u64;
        if moved {
            assert!(
                old_flagged * u64::from(BOUNDARY_MOVES) <= c.boundary_moves,
                "{boundary:?}: {old_flagged} old and flagged after {} moves",
                c.boundary_moves
            );
        } else {
            assert!(old_flagged > 0, "{boundary:?}: none old and flagged");
        }
    }
}

#[test]
fn a_move_restamps_upstream_and_keeps_the_stamp_under_the_remedy_unless_the_clock_would_wrap_past_it(
) {
    assert_eq!(MoveStamp::Restamp.after_move(5, 900), 900);
    assert_eq!(MoveStamp::Keep.after_move(5, 900), 5);
    // 32,767 ticks behind is half the range: kept
    assert_eq!(kept_stamp(1, 32_768), 1);
    // 40,000 behind: brought forward to half the range behind
    assert_eq!(MoveStamp::Keep.after_move(10, 40_010), 40_010 - 32_767);
    // and never to 0, which means "never accessed"
    assert_eq!(kept_stamp(65_535, 32_767), 1);
}

#[test]
fn lookup_or_moved_flags_a_moved_young_block_on_any_access_and_one_never_moved_only_on_a_lookup() {
    // The 1000-page pool of first_access_at_once() under the lookup-or-moved
    // rule and the boundary rule: the scan-like first accesses, young
    // blocks among them, flag nothing, since no block was ever moved.
    let mut p = first_access_at_once_with(YoungTouch::LookupOrMoved, Boundary::MoveFlagged);
    assert_eq!(p.promote_pending(), 0, "no lookup yet, no block moved yet");
    // lookups flag every young block; a page-cleaner batch then moves the
    // boundary toward the head over some of them, which moves them
    let moved = lookups_then_boundary_moves(&mut p);
    // the moved blocks are young and unflagged again; a scan-like access
    // flags each of them, since a move has proven them hot
    for &pg in &moved {
        p.access(pg).unwrap();
        assert!(
            p.page_state(pg).unwrap().promote,
            "moved page {pg} not flagged"
        );
    }
}

/// On the pool of first_access_at_once_with(): a lookup of every young
/// block flags it; a page-cleaner batch then moves the boundary toward the
/// head over some of them, which moves them to the head. Returns the moved
/// ones: young and unflagged again, at least one, at most one a move.
fn lookups_then_boundary_moves(p: &mut BufferPool<Lazy>) -> Vec<u64> {
    let young: Vec<u64> = (0..1000)
        .filter(|&pg| p.is_old(pg) == Some(false))
        .collect();
    for &pg in &young {
        p.lookup(pg).unwrap();
    }
    assert_eq!(p.promote_pending(), young.len() as u64);
    p.cleaner_batch();
    p.check_invariants().unwrap();
    let moves = p.counters().boundary_moves;
    assert!(moves > 0, "{:?}", p.counters());
    let moved: Vec<u64> = young
        .iter()
        .copied()
        .filter(|&pg| p.page_state(pg).is_some_and(|s| !s.old && !s.promote))
        .collect();
    assert!(
        !moved.is_empty() && moved.len() as u64 <= moves,
        "{} young unflagged blocks after {moves} moves",
        moved.len()
    );
    moved
}

#[test]
fn looked_up_flags_a_young_block_on_any_access_once_a_lookup_reached_it_even_while_it_was_old() {
    // The 1000-page pool of first_access_at_once() under the looked-up
    // rule: the scan-like first accesses, young blocks among them, flag
    // nothing. A page-cleaner batch frees 100 frames; 100 new pages are
    // each read and looked up at once, while old and freshly stamped, which
    // flags none of them; the later reads move the boundary toward the
    // tail over the earlier ones, which become young.
    let mut p = first_access_at_once_with(YoungTouch::LookedUp, Boundary::MoveFlagged);
    assert_eq!(p.promote_pending(), 0);
    p.cleaner_batch();
    for page in 1000..1100 {
        p.read(page).unwrap();
        p.lookup(page).unwrap();
    }
    p.check_invariants().unwrap();
    assert_eq!(p.promote_pending(), 0, "a lookup of an old block waits");
    let young_unflagged =
        |p: &BufferPool<Lazy>, pg: u64| p.page_state(pg).is_some_and(|s| !s.old && !s.promote);
    // a scan-like access flags each looked-up page that is young now
    let looked_up: Vec<u64> = (1000..1100).filter(|&pg| young_unflagged(&p, pg)).collect();
    assert!(!looked_up.is_empty(), "no looked-up page became young");
    for &pg in &looked_up {
        p.access(pg).unwrap();
        assert!(
            p.page_state(pg).unwrap().promote,
            "looked-up page {pg} not flagged"
        );
    }
    // and leaves a young page that no lookup reached as it was
    let never: Vec<u64> = (0..1000).filter(|&pg| young_unflagged(&p, pg)).collect();
    assert!(!never.is_empty());
    for &pg in &never {
        p.access(pg).unwrap();
        assert!(
            !p.page_state(pg).unwrap().promote,
            "page {pg} flagged without a lookup"
        );
    }
}

#[test]
fn lookup_mark_is_spent_by_a_move_where_looked_up_keeps_it_for_the_whole_stay() {
    // The 1000-page pool of first_access_at_once(): lookups flag every young
    // block and mark it; a page-cleaner batch then moves the boundary toward
    // the head over some of them, which moves them to the head unflagged.
    // A scan-like access within the threshold then flags a moved block
    // under the looked-up rule (the mark lasts the stay) and not under the
    // lookup-mark rule (the move spent it), until a lookup marks it again.
    for (rule, flagged_after_move) in [
        (YoungTouch::LookedUp, true),
        (YoungTouch::LookupMark, false),
    ] {
        let mut p = first_access_at_once_with(rule, Boundary::MoveFlagged);
        let moved = lookups_then_boundary_moves(&mut p);
        for &pg in &moved {
            p.access(pg).unwrap();
            assert_eq!(
                p.page_state(pg).unwrap().promote,
                flagged_after_move,
                "{rule:?}: page {pg} after its move and a scan-like access"
            );
        }
        // a new lookup marks and flags a moved young block under both rules
        let pg = moved[0];
        p.lookup(pg).unwrap();
        assert!(p.page_state(pg).unwrap().promote, "{rule:?}: page {pg}");
    }
}

// --- where free blocks come from: 10.5's readers, 10.6 on the cleaner -------

fn with_free_blocks<P: Policy>(free_blocks: FreeBlocks) -> BufferPool<P> {
    BufferPool::<P>::new(Config {
        pool_pages: 1000,
        lru_scan_depth: 100,
        free_blocks,
        ..Config::default()
    })
    .unwrap()
}

#[test]
fn free_block_rules_are_named_as_the_command_line_takes_them() {
    for rule in [FreeBlocks::Cleaner, FreeBlocks::READER_FLUSH] {
        assert_eq!(rule.name().parse::<FreeBlocks>(), Ok(rule));
    }
    assert_eq!(FreeBlocks::READER_FLUSH.name(), "reader-flush-32");
    for bad in ["reader-flush-0", "reader-flush-", "flush"] {
        let err = bad.parse::<FreeBlocks>().unwrap_err();
        assert!(err.contains(&format!("`{bad}`")), "{err}");
    }
}

#[test]
fn a_10_5_page_cleaner_frees_nothing_and_a_read_evicts_one_block() {
    let mut cleaner = with_free_blocks::<Eager>(FreeBlocks::Cleaner);
    let mut reader = with_free_blocks::<Eager>(FreeBlocks::READER_FLUSH);
    for p in [&mut cleaner, &mut reader] {
        load(p, 0, 1000, 0);
        p.cleaner_batch();
    }
    // 10.6 on: the batch fills the free list to innodb_lru_scan_depth
    assert_eq!(
        (cleaner.free_len(), cleaner.counters().evictions),
        (100, 100)
    );
    // 10.5: its page cleaner runs no LRU batch
    assert_eq!((reader.free_len(), reader.counters().evictions), (0, 0));
    // a read then scans from the tail and evicts the one block it needs
    reader.read(1000).unwrap();
    let c = reader.counters();
    assert_eq!((c.evictions, c.lru_waits, reader.free_len()), (1, 0, 0));
    assert!(!reader.is_resident(0) && reader.is_resident(1));
    reader.check_invariants().unwrap();
}

#[test]
fn a_10_5_reader_that_finds_nothing_to_evict_flushes_lru_flush_size_blocks() {
    // the rule's mechanics, on the lazy policy where a scan can fail: the
    // 150 blocks at the tail are flagged, so the reader's 100-block scan
    // only moves them and the wait's batch must free the blocks
    let mut cleaner = with_free_blocks::<Lazy>(FreeBlocks::Cleaner);
    let mut reader = with_free_blocks::<Lazy>(FreeBlocks::READER_FLUSH);
    for p in [&mut cleaner, &mut reader] {
        load(p, 0, 1000, 0);
        p.set_time(3000).unwrap();
        for page in 0..150 {
            p.access(page).unwrap();
        }
        p.read(1000).unwrap();
        p.check_invariants().unwrap();
    }
    // 10.6 on: one wait, the cleaner's batch frees up to the scan depth
    let c = cleaner.counters();
    assert_eq!((c.lru_waits, c.evictions, c.made_young), (1, 100, 150));
    // 10.5: one wait, the reader's batch frees innodb_lru_flush_size blocks
    let r = reader.counters();
    assert_eq!(
        (r.lru_waits, r.evictions, r.made_young),
        (1, u64::from(LRU_FLUSH_SIZE), 150)
    );
    assert_eq!(reader.free_len(), LRU_FLUSH_SIZE - 1);
    assert!((150..182).all(|pg| !reader.is_resident(pg)));
    assert!(reader.is_resident(182) && (0..150).all(|pg| reader.is_resident(pg)));
}

// --- when the page cleaner runs: on its schedule, or woken early ----------

#[test]
fn an_early_woken_cleaner_refills_the_free_list_once_a_read_leaves_it_half_empty() {
    let cfg = |cleaner_wakeup| Config {
        pool_pages: 1000,
        lru_scan_depth: 100,
        cleaner_wakeup,
        ..Config::default()
    };
    let mut early = BufferPool::<Eager>::new(cfg(CleanerWakeup::Early)).unwrap();
    let mut scheduled = BufferPool::<Eager>::new(cfg(CleanerWakeup::Scheduled)).unwrap();
    // 950 reads leave 50 blocks free: not below innodb_lru_scan_depth / 2
    for p in [&mut early, &mut scheduled] {
        load(p, 0, 950, 0);
        assert_eq!((p.free_len(), p.counters().evictions), (50, 0));
    }
    // the 951st leaves 49: the early cleaner's batch frees the 51 blocks at
    // the tail (the first pages read) before the read's block joins the LRU
    for p in [&mut early, &mut scheduled] {
        load(p, 950, 951, 0);
    }
    assert_eq!(
        (
            scheduled.free_len(),
            scheduled.counters().evictions,
            scheduled.lru_len()
        ),
        (49, 0, 951)
    );
    assert_eq!(
        (
            early.free_len(),
            early.counters().evictions,
            early.lru_len()
        ),
        (100, 51, 900)
    );
    assert!((0..51).all(|pg| !early.is_resident(pg)) && early.is_resident(51));
    // 10.5's page cleaner runs no LRU batch, woken or not
    let mut v10_5 = BufferPool::<Eager>::new(Config {
        free_blocks: FreeBlocks::READER_FLUSH,
        ..cfg(CleanerWakeup::Early)
    })
    .unwrap();
    load(&mut v10_5, 0, 951, 0);
    assert_eq!((v10_5.free_len(), v10_5.counters().evictions), (49, 0));
}

#[test]
fn cleaner_wakeups_are_named_as_the_command_line_takes_them() {
    for w in CleanerWakeup::ALL {
        assert_eq!(w.name().parse::<CleanerWakeup>(), Ok(w));
    }
    let err = "soon".parse::<CleanerWakeup>().unwrap_err();
    assert!(err.contains("\"soon\""), "{err}");
}
