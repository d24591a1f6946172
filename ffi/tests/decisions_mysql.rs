//! A MySQL tree's decision functions (`buf0buf.ic`) == the model's
//! (`lru_model::decide::mysql`), on seeded random inputs biased towards the
//! edges: a 64-bit pool clock around the 31- and 32-bit boundaries, stamps
//! at the edge of the young window, ages of exactly the threshold in
//! nanoseconds, pool sizes and old ratios. `FFI_SEED` and `FFI_CASES`
//! override the seed and the case count. On a MariaDB tree (or none) each
//! test is ignored, saying why.

mod common;

use common::{cases, curr_size, old_ratio, threshold, too_old_class, Rng, Tally};
use lru_model::decide::mysql;

/// Nanoseconds in a millisecond.
const NS_PER_MS: i64 = 1_000_000;

/// Times of a server that has run for up to about 146 years: a difference
/// of two never overflows `int64_t`.
const TIME_LIMIT_NS: u64 = 1 << 62;

fn tree() -> ffi::TreeInfo {
    ffi::tree().unwrap_or_else(|e| panic!("{e}"))
}

/// The pool's 64-bit clock: 0, small, around 2^31 and 2^32, large, anything.
fn pool_clock(r: &mut Rng) -> u64 {
    let near = |r: &mut Rng, at: u64| (at + r.below(4000)).saturating_sub(2000);
    match r.below(7) {
        0 => 0,
        1 => r.below(5000),
        2 => near(r, 1 << 31),
        3 => near(r, 1 << 32),
        4 => r.below(1 << 40),
        5 => u64::MAX - r.below(4000),
        _ => r.next(),
    }
}

/// The block's stamp: taken a window ago (give or take a few evictions),
/// from an earlier clock at random, near 2^31, or anything.
fn stamp(r: &mut Rng, pool: u64, size: u64, ratio: u64) -> u32 {
    let window = size.wrapping_mul(1024u64.wrapping_sub(ratio)) / 4096;
    match r.below(5) {
        0 | 1 => mysql::stamp(
            (pool & ((1 << 31) - 1))
                .wrapping_sub(window)
                .wrapping_add(r.jitter() as u64),
        ),
        2 => mysql::stamp(pool.wrapping_sub(r.below(1 << 33))),
        3 => ((1u32 << 31) - 2000).wrapping_add(r.below(4000) as u32),
        _ => r.u32(),
    }
}

/// (access_ns, now_ns): never accessed, exactly the threshold apart give
/// or take a few nanoseconds, apart by anything, or both anywhere.
fn access_and_now(r: &mut Rng, threshold: u32) -> (i64, i64) {
    let access = if r.chance(20) {
        0
    } else {
        r.below(TIME_LIMIT_NS / 2) as i64
    };
    let now = match r.below(4) {
        0 | 1 => access + i64::from(threshold) * NS_PER_MS + r.jitter(),
        2 => access + r.below(1 << 40) as i64,
        _ => r.below(TIME_LIMIT_NS) as i64,
    };
    (access, now)
}

fn eager(r: &mut Rng) -> mysql::EagerInput {
    let pool = pool_clock(r);
    let size = curr_size(r);
    let ratio = u64::from(old_ratio(r));
    let threshold = threshold(r);
    let (access_ns, now_ns) = access_and_now(r, threshold);
    mysql::EagerInput {
        pool_clock: pool,
        stamp: stamp(r, pool, size, ratio),
        old: r.chance(50),
        access_ns,
        now_ns,
        curr_size: size,
        old_ratio: ratio,
        threshold_ms: threshold,
    }
}

#[test]
#[cfg_attr(
    not(innodb = "mysql"),
    ignore = "not built with a MySQL tree: cargo xtask ffi check --tree debian:mysql-9.7=9.7.2-4 runs it"
)]
fn set_accessed_matches_the_model() {
    let tree = tree();
    let mut r = Rng::new(11);
    let mut t = Tally::new("buf_page_set_accessed");
    for n in 0..cases() {
        let access = if r.chance(40) {
            0
        } else {
            r.below(TIME_LIMIT_NS) as i64
        };
        // a clock at the epoch leaves the block "never accessed"
        let now = if n % 8 == 0 {
            0
        } else {
            r.below(TIME_LIMIT_NS) as i64
        };
        let real = ffi::real::mysql_set_accessed(access, now).unwrap();
        let model = mysql::set_accessed(access, now);
        let class = match (access, real) {
            (0, 0) => "first, clock at the epoch",
            (0, _) => "first, stamped",
            _ => "not first",
        };
        t.check((access, now), real, model, class);
    }
    t.finish(&tree, 3);
}

#[test]
#[cfg_attr(
    not(innodb = "mysql"),
    ignore = "not built with a MySQL tree: cargo xtask ffi check --tree debian:mysql-9.7=9.7.2-4 runs it"
)]
fn peek_if_young_matches_the_model() {
    let tree = tree();
    let mut r = Rng::new(12);
    let mut t = Tally::new("buf_page_peek_if_young [MySQL: 64-bit clock, 32-bit stamp]");
    for _ in 0..cases() {
        let i = eager(&mut r);
        let real = ffi::real::mysql_peek_if_young(i.pool_clock, i.stamp, i.curr_size, i.old_ratio)
            .unwrap();
        let model = mysql::peek_if_young(i.pool_clock, i.stamp, i.curr_size, i.old_ratio);
        t.check(
            (i.pool_clock, i.stamp, i.curr_size, i.old_ratio),
            real,
            model,
            &real.to_string(),
        );
    }
    t.finish(&tree, 2);
}

#[test]
#[cfg_attr(
    not(innodb = "mysql"),
    ignore = "not built with a MySQL tree: cargo xtask ffi check --tree debian:mysql-9.7=9.7.2-4 runs it"
)]
fn peek_if_too_old_matches_the_model() {
    let tree = tree();
    let mut r = Rng::new(13);
    let mut t = Tally::new(
        "buf_page_peek_if_too_old (decision, n_pages_not_made_young) [MySQL: nanoseconds]",
    );
    for _ in 0..cases() {
        let i = eager(&mut r);
        let real = ffi::real::mysql_peek_if_too_old(&i).unwrap();
        let model = mysql::peek_if_too_old(&i);
        t.check(
            i,
            real,
            model,
            &too_old_class(i.pool_clock == 0, i.threshold_ms != 0 && i.old, real),
        );
    }
    t.finish(&tree, 5);
}
