//! The tree's decision functions == the model's (`lru_model::decide`), on
//! seeded random inputs biased towards the edges: clock wrap-around, the
//! 32-bit millisecond wrap, threshold boundaries (and 0), pool sizes and old
//! ratios. The header-inline ones are called as the headers define them; a
//! post-fix tree's out-of-line `touch()`, `now()`/`refresh_clock()` and
//! `set_old_threshold_ms()` are compiled from the tree's own .cc text.
//! Where the rule changed between releases (`buf_page_peek_if_young()`,
//! MDEV-41036) the model's form is the one the tree's headers carry.
//! `FFI_SEED` and `FFI_CASES` override the seed and the case count.
//!
//! The crate is built for one tree, and each test applies to the
//! generations that have its function: on another generation it is ignored
//! (`#[ignore]` with the reason, from the `innodb` cfg that build.rs sets
//! from the same detection as `ffi::tree()`), so `cargo test` reports it as
//! not run instead of as passed. Without a tree (`innodb = "none"`, a plain
//! `cargo test`) every test is ignored, saying how to configure one; run
//! with `--include-ignored` they fail, saying it too.
//! `--include-ignored` runs the others too, and they fail, saying that the
//! tree does not have the function.

mod common;

use common::{cases, curr_size, old_ratio, threshold, too_old_class, Rng, Tally};
use lru_model::decide;

const MASK31: u32 = (1 << 31) - 1;

fn tree() -> ffi::TreeInfo {
    ffi::tree().unwrap_or_else(|e| panic!("{e}"))
}

fn add(x: u32, d: i64) -> u32 {
    x.wrapping_add(d as u32)
}

/// The pool clock: 0 (no eviction yet), small, around the 31-bit and 32-bit wraps, anything.
fn pool_clock(r: &mut Rng) -> u32 {
    match r.below(6) {
        0 => 0,
        1 => r.below(5000) as u32,
        2 => add(1 << 31, r.below(4000) as i64 - 2000),
        3 => add(0, -(r.below(4000) as i64) - 1),
        _ => r.u32(),
    }
}

fn window(curr_size: u64, ratio: u32) -> u64 {
    curr_size.wrapping_mul(1024u64.wrapping_sub(u64::from(ratio))) / 4096
}

/// The block's 31-bit stamp, often placed so that the pool clock sits right at
/// the edge of the "young" window, or just before the 31-bit wrap.
fn block_clock(r: &mut Rng, pool: u32, size: u64, ratio: u32) -> u32 {
    match r.below(4) {
        0 => r.u32() & MASK31,
        1 => add(MASK31, -(r.below(3000) as i64)) & MASK31,
        _ => {
            add(
                (pool & MASK31).wrapping_sub(window(size, ratio) as u32),
                r.jitter(),
            ) & MASK31
        }
    }
}

/// (access_time, now): never accessed, at the threshold boundary, across the
/// 2^32 ms wrap, or anything; `now` also gets random high bits (ut_time_ms()
/// is a 64-bit ulint that the C++ truncates).
fn access_and_now(r: &mut Rng, threshold: u32) -> (u32, u64) {
    let access = match r.below(8) {
        0 => 0,
        1 => u32::MAX - r.below(2000) as u32,
        _ => r.u32(),
    };
    let low = match r.below(5) {
        0 => r.u32(),
        1 => r.below(2000) as u32,
        _ => add(access.wrapping_add(threshold), r.jitter()),
    };
    let high = if r.chance(50) {
        r.next() & !u64::from(u32::MAX)
    } else {
        0
    };
    (access, high | u64::from(low))
}

fn eager(r: &mut Rng) -> ffi::real::Eager {
    let pool = pool_clock(r);
    let size = curr_size(r);
    let ratio = old_ratio(r);
    let threshold = threshold(r);
    let (access_time, now_ms) = access_and_now(r, threshold);
    ffi::real::Eager {
        pool_clock: pool,
        block_clock: block_clock(r, pool, size, ratio),
        old: r.chance(50),
        access_time,
        now_ms,
        curr_size: size,
        old_ratio: u64::from(ratio),
        threshold_ms: threshold,
    }
}

/// Which branch of buf_page_peek_if_too_old() the C++ took.
fn eager_class(i: &ffi::real::Eager, real: (bool, u64)) -> String {
    too_old_class(i.pool_clock == 0, i.threshold_ms != 0 && i.old, real)
}

fn model_input(i: &ffi::real::Eager) -> decide::EagerInput {
    decide::EagerInput {
        pool_clock: i.pool_clock,
        block_clock: i.block_clock,
        block_old: i.old,
        access_time: i.access_time,
        now_ms: i.now_ms as u32,
        curr_size: i.curr_size,
        old_ratio: i.old_ratio as u32,
        threshold_ms: i.threshold_ms,
    }
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    innodb = "post-fix",
    ignore = "the configured tree is post-fix (MDEV-33966): the pre-fix set_accessed(), \
              buf_page_peek_if_young() and buf_page_peek_if_too_old() are gone"
)]
fn set_accessed_matches_the_model() {
    let tree = tree();
    let mut r = Rng::new(1);
    let mut t = Tally::new("buf_page_t::set_accessed");
    for n in 0..cases() {
        let access = if r.chance(40) { 0 } else { r.u32() };
        let now = match n % 8 {
            0 => r.next() & !u64::from(u32::MAX), // low 32 bits 0: stays "never accessed"
            _ => r.next(),
        };
        let real = ffi::real::set_accessed(access, now).unwrap();
        let model = decide::set_accessed(access, now as u32);
        let class = match real {
            (true, _) => "not first",
            (false, 0) => "first, clock reads 0 mod 2^32",
            (false, _) => "first, stamped",
        };
        t.check((access, now), real, model, class);
    }
    t.finish(&tree, 3);
}

/// The form of `buf_page_peek_if_young()` the tree's headers carry.
fn young_rule(tree: &ffi::TreeInfo) -> decide::YoungRule {
    // build.rs detects the form in every pre-fix tree; only a post-fix tree
    // (reached with --include-ignored) has none
    tree.young_rule.unwrap_or_else(|| {
        panic!(
            "{}: the tree's headers have no buf_page_peek_if_young()",
            tree.version
        )
    })
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    innodb = "post-fix",
    ignore = "the configured tree is post-fix (MDEV-33966): the pre-fix set_accessed(), \
              buf_page_peek_if_young() and buf_page_peek_if_too_old() are gone"
)]
fn peek_if_young_matches_the_model() {
    let tree = tree();
    let rule = young_rule(&tree);
    let mut r = Rng::new(2);
    let mut t = Tally::new(format!("buf_page_peek_if_young [{}]", rule.name()));
    for _ in 0..cases() {
        let i = eager(&mut r);
        let real = ffi::real::peek_if_young(i.pool_clock, i.block_clock, i.curr_size, i.old_ratio)
            .unwrap();
        let model = decide::peek_if_young(
            rule,
            i.pool_clock,
            i.block_clock,
            i.curr_size,
            i.old_ratio as u32,
        );
        t.check(
            (i.pool_clock, i.block_clock, i.curr_size, i.old_ratio),
            real,
            model,
            &real.to_string(),
        );
    }
    t.finish(&tree, 2);
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    innodb = "post-fix",
    ignore = "the configured tree is post-fix (MDEV-33966): the pre-fix set_accessed(), \
              buf_page_peek_if_young() and buf_page_peek_if_too_old() are gone"
)]
fn peek_if_too_old_matches_the_model() {
    let tree = tree();
    let rule = young_rule(&tree);
    let mut r = Rng::new(3);
    let mut t = Tally::new(format!(
        "buf_page_peek_if_too_old (decision, n_pages_not_made_young) [{}]",
        rule.name()
    ));
    for _ in 0..cases() {
        let i = eager(&mut r);
        let real = ffi::real::peek_if_too_old(&i).unwrap();
        let model = decide::peek_if_too_old(rule, &model_input(&i));
        t.check(i, real, model, &eager_class(&i, real));
    }
    t.finish(&tree, 5);
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    any(innodb = "10.11", innodb = "post-fix"),
    ignore = "the configured tree is not 10.5-style: buf_page_make_young_if_needed() is \
              header-inline only in 10.5-style trees"
)]
fn make_young_if_needed_10_5_matches_the_model() {
    let tree = tree();
    let mut r = Rng::new(4);
    let rule = young_rule(&tree);
    let mut t = Tally::new(format!(
        "buf_page_make_young_if_needed (make_young calls, n_pages_not_made_young) [{}]",
        rule.name()
    ));
    for _ in 0..cases() {
        let i = eager(&mut r);
        let real = ffi::real::make_young_if_needed_eager(&i).unwrap();
        let (too_old, not_young) = decide::peek_if_too_old(rule, &model_input(&i));
        t.check(
            i,
            real,
            (u64::from(too_old), not_young),
            &eager_class(&i, (real.0 == 1, real.1)),
        );
    }
    t.finish(&tree, 5);
}

fn clock_pair(r: &mut Rng, threshold: u16) -> (u16, u16) {
    let access = match r.below(6) {
        0 => 0,
        1 => u16::MAX - r.below(100) as u16,
        _ => r.next() as u16,
    };
    let clock = match r.below(4) {
        0 => r.next() as u16,
        _ => access
            .wrapping_add(threshold)
            .wrapping_add(r.jitter() as u16),
    };
    (access, clock)
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    any(innodb = "10.5", innodb = "10.11"),
    ignore = "the configured tree is not post-fix: buf_page_t::touch_no_stamp() exists only in \
              post-fix trees"
)]
fn touch_no_stamp_matches_the_model() {
    let tree = tree();
    let rule = young_touch(&tree);
    let mut r = Rng::new(5);
    let mut t = Tally::new(format!(
        "buf_page_t::touch_no_stamp (PROMOTE after; age check: {rule:?})"
    ));
    for _ in 0..cases() {
        let i = draw_touch(&mut r);
        let (promote, old, lookup, threshold) = (i.promote, i.old, i.lookup, i.threshold);
        let real = ffi::real::touch_no_stamp(i).unwrap();
        let model = decide::touch_no_stamp_under(rule, i);
        let waived = decide::touch_threshold(rule, old, lookup, threshold) == 0;
        let class = match (promote, threshold, real) {
            (true, _, _) => "already flagged",
            (false, 0, _) => "threshold 0",
            (false, _, true) if waived => "young: flagged at once",
            (false, _, true) => "flagged: older than threshold",
            (false, _, false) => "not flagged",
        };
        t.check(i, real, model, class);
    }
    let needed = match rule {
        decide::YoungTouch::OldOnly | decide::YoungTouch::Lookup | decide::YoungTouch::LookedUp => {
            5
        }
        _ => 4,
    };
    t.finish(&tree, needed);
}

/// One access-side case at random: the flag and the OLD bit before,
/// whether a lookup asks, the stamp, the clock and the threshold.
fn draw_touch(r: &mut Rng) -> decide::Touch {
    let threshold = lazy_threshold(r);
    let (promote, old, lookup) = (r.chance(20), r.chance(50), r.chance(50));
    let (access_time, access_clock) = clock_pair(r, threshold);
    decide::Touch {
        old,
        lookup,
        promote,
        access_time,
        access_clock,
        threshold,
    }
}

/// The young-touch rule of a post-fix tree, as its header carries it.
fn young_touch(tree: &ffi::TreeInfo) -> decide::YoungTouch {
    tree.lazy_rules
        .map_or(decide::YoungTouch::AgeChecked, |r| r.young_touch)
}

/// The access clock's tick of a post-fix tree, in ms.
fn clock_tick_ms(tree: &ffi::TreeInfo) -> u32 {
    tree.lazy_rules
        .map_or(decide::LAZY_CLOCK_TICK_MS, |r| r.clock_tick_ms)
}

fn lazy_threshold(r: &mut Rng) -> u16 {
    match r.below(5) {
        0 => 0,
        1 => 1,
        2 => decide::LAZY_THRESHOLD_MAX,
        _ => r.below(70_000) as u16,
    }
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    any(innodb = "10.5", innodb = "10.11"),
    ignore = "the configured tree is not post-fix: buf_page_t::touch() exists only in \
              post-fix trees"
)]
fn touch_matches_the_model() {
    let tree = tree();
    let rule = young_touch(&tree);
    let mut r = Rng::new(7);
    let mut t = Tally::new(format!(
        "buf_page_t::touch (not first, access_time, PROMOTE after; age check: {rule:?})"
    ));
    for _ in 0..cases() {
        let i = draw_touch(&mut r);
        let real = ffi::real::touch(i).unwrap();
        let model = decide::touch_under(rule, i);
        let class = match real {
            (false, _, p) => format!("first access, PROMOTE={p}"),
            (true, _, p) => format!("not first, PROMOTE={p}"),
        };
        t.check(i, real, model, &class);
    }
    t.finish(&tree, 4);
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    any(innodb = "10.5", innodb = "10.11"),
    ignore = "the configured tree is not post-fix: buf_pool_t::now()/refresh_clock() exists only in \
              post-fix trees"
)]
fn access_clock_matches_the_model() {
    let tree = tree();
    // one tick of the tree's access clock, in ns: a second in the fix, 100
    // ms in the fine-clock remedies
    let tick_ns = u64::from(clock_tick_ms(&tree)) * 1_000_000;
    let mut r = Rng::new(8);
    let mut t = Tally::new(format!(
        "buf_pool_t::now() via refresh_clock() (access_clock; tick {} ms)",
        tick_ns / 1_000_000
    ));
    for _ in 0..cases() {
        // whole ticks near multiples of 65536 (the clock reads 0 there,
        // mapped to 1), a nanosecond either side, or anything
        let ns = match r.below(4) {
            0 => ((r.below(1 << 12) << 16) * tick_ns)
                .wrapping_add((r.jitter() * tick_ns as i64) as u64),
            1 => (r.below(1 << 30) * tick_ns).wrapping_add(r.jitter() as u64),
            _ => r.next(),
        };
        let real = ffi::real::clock_from_timer_ns(ns).unwrap();
        let model = decide::lazy_clock_from_secs(ns / tick_ns);
        let class = match real {
            1 => "1 (also what 0 maps to)",
            u16::MAX => "65535",
            _ => "other",
        };
        t.check(ns, real, model, class);
    }
    t.finish(&tree, 2);
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    any(innodb = "10.5", innodb = "10.11"),
    ignore = "the configured tree is not post-fix: buf_pool_t::set_old_threshold_ms() exists only in \
              post-fix trees"
)]
fn old_threshold_matches_the_model() {
    let tree = tree();
    let tick = clock_tick_ms(&tree);
    let mut r = Rng::new(9);
    let mut t = Tally::new(format!(
        "buf_pool_t::set_old_threshold_ms (LRU_old_threshold, LRU_old_time_threshold; tick {tick} ms)"
    ));
    for _ in 0..cases() {
        // 0, the rounding edge of each tick, the cap of 65534 ticks, or anything
        let ms = match r.below(6) {
            0 => r.below(3) as u32,
            5 => r.below(70_000_000) as u32,
            1 => (r.below(70_000) as u32)
                .wrapping_mul(tick)
                .wrapping_add(r.jitter() as u32),
            2 => (65_534 * tick).wrapping_add((r.jitter() * 400) as u32),
            3 => u32::MAX - r.below(3) as u32,
            _ => r.u32(),
        };
        let real = ffi::real::set_old_threshold_ms(ms).unwrap();
        let model = (decide::lazy_threshold_in_ticks(ms, tick), ms);
        let class = match real.0 {
            0 => "disabled",
            decide::LAZY_THRESHOLD_MAX => "capped",
            _ => "ticks, rounded up",
        };
        t.check(ms, real, model, class);
    }
    t.finish(&tree, 3);
}

#[test]
#[cfg_attr(
    innodb = "none",
    ignore = "built without a tree (INNODB_SRC, INNODB_BUILD): cargo xtask ffi check --tree SPEC runs it"
)]
#[cfg_attr(
    innodb = "mysql",
    ignore = "the configured tree is MySQL's: its decision functions are checked in decisions_mysql.rs"
)]
#[cfg_attr(
    any(innodb = "10.5", innodb = "10.11"),
    ignore = "the configured tree is not post-fix: buf_page_t::make_young_if_needed<>() exists only in \
              post-fix trees"
)]
fn make_young_if_needed_post_fix_matches_the_model() {
    let tree = tree();
    let mut r = Rng::new(6);
    let mut t = Tally::new("buf_page_t::make_young_if_needed<count_not_young, only_old>");
    for _ in 0..cases() {
        let (count, only_old, promote, old) =
            (r.chance(50), r.chance(50), r.chance(50), r.chance(50));
        let access = if r.chance(30) { 0 } else { r.next() as u16 };
        let real = ffi::real::make_young_if_needed(count, only_old, promote, old, access).unwrap();
        let model = match (count, only_old) {
            (false, false) => decide::make_young_if_needed::<false, false>(promote, old, access),
            (false, true) => decide::make_young_if_needed::<false, true>(promote, old, access),
            (true, false) => decide::make_young_if_needed::<true, false>(promote, old, access),
            (true, true) => decide::make_young_if_needed::<true, true>(promote, old, access),
        };
        let real = (
            real.moved,
            real.make_young_calls,
            real.made_young,
            real.not_made_young,
        );
        let model = (
            model.moved,
            u64::from(model.moved),
            model.made_young,
            model.not_made_young,
        );
        let class = format!(
            "moved={} made_young={} not_made_young={}",
            real.0, real.2, real.3
        );
        t.check((count, only_old, promote, old, access), real, model, &class);
    }
    t.finish(&tree, 4);
}
