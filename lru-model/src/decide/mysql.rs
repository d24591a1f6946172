//! MySQL's header-inline decision rules, as pure functions with the C++
//! widths, for the ffi check on a MySQL tree.
//!
//! References are to MySQL 9.7.2 `storage/innobase/` (Debian's
//! `mysql-9.7` 9.7.2-4). MySQL kept the classic rule that MariaDB had
//! before 10.5 ([`super::peek_if_too_old`] in the form
//! [`super::YoungRule::StampPlusWindow`]); these are the places where its
//! code decides differently, each shown by a test below:
//!
//! 1. **The clock's width.** `buf_pool->freed_page_clock` is a `ulint` (64
//!    bits) and the block's stamp a plain `uint32_t`, set to the pool's clock
//!    truncated to 32 bits (buf/buf0lru.cc:1667); MariaDB keeps a 32-bit
//!    clock and a 31-bit bitfield stamp. The comparison masks the pool's
//!    clock to 31 bits but not the stamp (the same FIXME), so a block stamped
//!    while the clock's low 32 bits are at or above 2^31 looks young to MySQL
//!    for as long as it keeps that stamp (the masked clock is always below
//!    it), where MariaDB's masked stamp keeps the usual window.
//! 2. **The access time.** `std::chrono::steady_clock::time_point` (signed
//!    64-bit nanoseconds; the epoch, 0, means "never accessed"), where
//!    MariaDB stores 32-bit milliseconds of `ut_time_ms()` that wrap every
//!    2^32 ms (about 49.7 days).
//! 3. **The threshold's unit.** `innodb_old_blocks_time` is compared as
//!    nanoseconds against milliseconds (`now - access_time >=
//!    milliseconds{threshold}`), so an age 1 ns short of the threshold is not
//!    old enough; in whole milliseconds both engines decide alike.

use super::{young_window, FREED_PAGE_CLOCK_MASK};

/// Nanoseconds in a millisecond: `std::chrono`'s conversion of the
/// threshold to the clock's unit.
const NS_PER_MS: i64 = 1_000_000;

/// The stamp a block takes when it is put at the head of the LRU list:
/// `bpage->freed_page_clock = buf_pool->freed_page_clock` (buf/buf0lru.cc:1667),
/// a `ulint` stored into a `uint32_t`.
pub fn stamp(pool_clock: u64) -> u32 {
    pool_clock as u32
}

/// `buf_page_peek_if_young()` (include/buf0buf.ic:161-174):
/// `(freed_page_clock & (2^31-1)) < (ulint)bpage->freed_page_clock +
/// curr_size * (1024 - LRU_old_ratio) / (1024 * 4)`, every operand a
/// `ulint` (the pool's `curr_size` and `LRU_old_ratio` too, so `1024 -
/// ratio`, the product and the sum wrap modulo 2^64).
pub fn peek_if_young(pool_clock: u64, stamp: u32, curr_size: u64, old_ratio: u64) -> bool {
    let clock = pool_clock & u64::from(FREED_PAGE_CLOCK_MASK);
    clock < u64::from(stamp).wrapping_add(young_window(curr_size, old_ratio))
}

/// Everything MySQL's `buf_page_peek_if_too_old()` reads, as one snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EagerInput {
    /// `buf_pool->freed_page_clock` (`ulint`)
    pub pool_clock: u64,
    /// `bpage->freed_page_clock` (`uint32_t`)
    pub stamp: u32,
    /// `bpage->old`
    pub old: bool,
    /// `bpage->access_time` in nanoseconds of `steady_clock` (0: never)
    pub access_ns: i64,
    /// what `std::chrono::steady_clock::now()` returns, in nanoseconds
    pub now_ns: i64,
    /// `buf_pool->curr_size`
    pub curr_size: u64,
    /// `buf_pool->LRU_old_ratio`
    pub old_ratio: u64,
    /// `buf_LRU_old_threshold` (innodb_old_blocks_time, ms)
    pub threshold_ms: u32,
}

/// `buf_page_peek_if_too_old()` (include/buf0buf.ic:180-203): (too old,
/// increment of `stat.n_pages_not_made_young`: 0 or 1).
/// 1. `freed_page_clock == 0` (all 64 bits): false, no statistics;
/// 2. threshold set and the block old: true if it was accessed and `now -
///    access_time >= threshold` in nanoseconds, else one
///    `n_pages_not_made_young`;
/// 3. otherwise `!buf_page_peek_if_young()`.
///
/// The times are those of a running server: `now_ns - access_ns` must not
/// overflow (C++ leaves that undefined).
pub fn peek_if_too_old(i: &EagerInput) -> (bool, u64) {
    if i.pool_clock == 0 {
        return (false, 0);
    }
    if i.threshold_ms != 0 && i.old {
        if i.access_ns != 0 && i.now_ns - i.access_ns >= i64::from(i.threshold_ms) * NS_PER_MS {
            return (true, 0);
        }
        return (false, 1);
    }
    (
        !peek_if_young(i.pool_clock, i.stamp, i.curr_size, i.old_ratio),
        0,
    )
}

/// `buf_page_set_accessed()` (include/buf0buf.ic:570-581): the first
/// access stores `steady_clock::now()`, a later one keeps it; a clock that
/// reads the epoch leaves the block "never accessed", as in the server.
pub fn set_accessed(access_ns: i64, now_ns: i64) -> i64 {
    if access_ns == 0 {
        now_ns
    } else {
        access_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::{self, YoungRule};

    /// MariaDB's classic input for the same block and moment, where the
    /// values fit MariaDB's widths.
    fn classic(i: &EagerInput) -> decide::EagerInput {
        decide::EagerInput {
            pool_clock: u32::try_from(i.pool_clock).unwrap(),
            block_clock: i.stamp,
            block_old: i.old,
            access_time: u32::try_from(i.access_ns / NS_PER_MS).unwrap(),
            now_ms: u32::try_from(i.now_ns / NS_PER_MS).unwrap(),
            curr_size: i.curr_size,
            old_ratio: u32::try_from(i.old_ratio).unwrap(),
            threshold_ms: i.threshold_ms,
        }
    }

    fn input(pool_clock: u64, stamp: u32, old: bool, access_ms: i64, now_ms: i64) -> EagerInput {
        EagerInput {
            pool_clock,
            stamp,
            old,
            access_ns: access_ms * NS_PER_MS,
            now_ns: now_ms * NS_PER_MS,
            curr_size: 8192,
            old_ratio: 378,
            threshold_ms: 1000,
        }
    }

    #[test]
    fn below_2_31_evictions_and_in_whole_milliseconds_both_engines_decide_alike() {
        // the young window of 8192 blocks at the default ratio is 1292
        for (clock, stamp) in [
            (1, 0),
            (5000, 4000),
            (5000, 3000),
            (1 << 30, (1 << 30) - 2000),
        ] {
            for (old, access, now) in [
                (false, 0, 10),
                (true, 0, 10),
                (true, 10, 1009),
                (true, 10, 1010),
                (true, 10, 50_000),
            ] {
                let i = input(clock, stamp, old, access, now);
                assert_eq!(
                    peek_if_too_old(&i),
                    decide::peek_if_too_old(YoungRule::StampPlusWindow, &classic(&i)),
                    "{i:?}"
                );
            }
        }
    }

    #[test]
    fn a_stamp_at_or_above_2_31_keeps_a_block_young_in_mysql_only() {
        // the pool's clock passed 2^31 evictions; the block was stamped at
        // 2^31 + 10 and 5000 blocks were evicted since: far past the window
        let clock: u64 = (1 << 31) + 5010;
        let stamp = stamp((1 << 31) + 10);
        assert_eq!(stamp, (1 << 31) + 10, "a uint32_t keeps the 32nd bit");
        assert!(peek_if_young(clock, stamp, 8192, 378));
        // MariaDB's 31-bit bitfield drops that bit: the age is 5000, old
        assert!(!decide::peek_if_young(
            YoungRule::StampPlusWindow,
            clock as u32,
            stamp,
            8192,
            378
        ));
        // a 64-bit clock stamps its low 32 bits: past 2^32 the two agree again
        let clock: u64 = (1 << 32) + 5010;
        assert_eq!(self::stamp((1 << 32) + 10), 10);
        assert!(!peek_if_young(clock, 10, 8192, 378));
    }

    #[test]
    fn only_a_clock_of_zero_in_all_64_bits_means_no_eviction_yet() {
        // 2^32 evictions: MariaDB's 32-bit clock would read 0 here
        let mut i = input(1 << 32, 0, true, 10, 20);
        assert_eq!(peek_if_too_old(&i), (false, 1), "counted as not made young");
        i.pool_clock = 0;
        assert_eq!(peek_if_too_old(&i), (false, 0));
    }

    #[test]
    fn the_access_time_is_nanoseconds_that_do_not_wrap_at_2_32_milliseconds() {
        // 2^32 ms and a half second after the first access (about 49.7
        // days): MariaDB's 32-bit milliseconds have wrapped to an age of
        // 499 ms, below the threshold; MySQL's nanoseconds have not
        let later_ms: i64 = (1 << 32) + 500;
        let i = input(5000, 4999, true, 1, later_ms);
        assert_eq!(peek_if_too_old(&i), (true, 0));
        let mut wrapped = classic(&input(5000, 4999, true, 1, 0));
        wrapped.now_ms = later_ms as u32;
        assert_eq!(
            decide::peek_if_too_old(YoungRule::StampPlusWindow, &wrapped),
            (false, 1),
            "MariaDB's age wrapped below the threshold"
        );
    }

    #[test]
    fn an_age_one_nanosecond_short_of_the_threshold_is_not_old_enough() {
        let mut i = input(5000, 4999, true, 10, 1010);
        assert_eq!(peek_if_too_old(&i), (true, 0));
        i.now_ns -= 1;
        assert_eq!(peek_if_too_old(&i), (false, 1));
    }

    #[test]
    fn the_first_access_stamps_and_later_ones_keep_it() {
        assert_eq!(set_accessed(0, 77), 77);
        assert_eq!(set_accessed(5, 77), 5);
        assert_eq!(set_accessed(0, 0), 0, "the epoch reads as never accessed");
    }
}
