//! The header-inline decision rules of InnoDB's buffer pool LRU, as pure functions.
//!
//! Each function reproduces one C++ rule bit for bit, including the integer
//! widths and the wrap-around of the C++ arithmetic, so that the ffi crate can
//! check it against the real headers and the policies in [`crate::policy`]
//! can run exactly the code that was checked.
//!
//! References without a prefix are to MariaDB 10.11.18 `storage/innobase/`.
//! References prefixed with `P:` are to the post-fix (MDEV-33966) tree at
//! MariaDB/server commit 180a9db4087015ef903fdd9865cc8e880e067635, and those
//! prefixed with `Q:` to commit 0e4aec4058440075a00f415cea6225cc591eb9b2; they
//! name the function because that tree was read without line numbers.

pub mod mysql;

/// `BUF_LRU_OLD_RATIO_DIV` (include/buf0lru.h:147): the old-sublist ratio is in 1/1024 units.
pub const OLD_RATIO_DIV: u64 = 1024;

/// The 31 bits of `buf_page_t::freed_page_clock` (include/buf0buf.h:580).
pub const FREED_PAGE_CLOCK_MASK: u32 = (1 << 31) - 1;

/// 10.5/10.11 `buf_page_t::set_accessed()`: returns (not_first_access, new_access_time).
///
/// Reproduces include/buf0buf.h:855-860 (10.5: include/buf0buf.h:1040-1044):
/// the first access stores `uint32_t(ut_time_ms())`; a later one keeps the
/// stamp. A clock that reads 0 (mod 2^32) leaves the block "never accessed",
/// exactly as in the server.
pub fn set_accessed(access_time: u32, now_ms: u32) -> (bool, u32) {
    if access_time != 0 {
        (true, access_time)
    } else {
        (false, now_ms)
    }
}

/// Which form of `buf_page_peek_if_young()` a tree carries. The rule changed
/// between releases (MDEV-41036, MariaDB/server PR 5678), so the form is
/// chosen per tree from its headers, never assumed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum YoungRule {
    /// 10.5 .. 10.11.18: `clock < stamp + window`, with no wrap-around
    /// handling (the FIXME in the C++).
    StampPlusWindow,
    /// MDEV-41036: `((clock - stamp) & (2^31-1)) < window`, the age of the
    /// stamp modulo 2^31.
    ModularAge,
}

impl YoungRule {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            YoungRule::StampPlusWindow => "clock < stamp + window",
            YoungRule::ModularAge => "(clock - stamp) mod 2^31 < window, MDEV-41036",
        }
    }
}

/// The young window of `buf_page_peek_if_young()`, in `ulint` as in C++:
/// `curr_size() * (1024 - LRU_old_ratio) / (1024 * 4)`. `LRU_old_ratio` is a
/// `ulint` (include/buf0buf.h:1570), so `1024 - ratio` and the product wrap
/// modulo 2^64.
pub fn young_window(curr_size: u64, old_ratio: u64) -> u64 {
    curr_size.wrapping_mul(OLD_RATIO_DIV.wrapping_sub(old_ratio)) / (OLD_RATIO_DIV * 4)
}

/// `buf_page_peek_if_young()` in the form `rule`: pool_clock is
/// buf_pool.freed_page_clock (u32), block_clock is the 31-bit stamp,
/// curr_size is buf_pool.curr_size() (ulint = u64), old_ratio is
/// buf_pool.LRU_old_ratio (1/1024 units). A `block_clock` wider than 31 bits
/// is truncated as storing it into the bitfield would.
///
/// [`YoungRule::StampPlusWindow`] reproduces include/buf0buf.inl:35-43
/// (10.5: include/buf0buf.inl:82-90): `(freed_page_clock & (2^31-1)) <
/// bpage->freed_page_clock + window`, the 31-bit stamp widened to `ulint`
/// without wrapping. There is deliberately no wrap-around handling: a stamp
/// taken just before the 31-bit clock wraps makes the block look young for
/// about 2^31 evictions.
///
/// [`YoungRule::ModularAge`] reproduces the MDEV-41036 form
/// (patches/10.11/mdev-41036.patch, after MariaDB/server PR 5678):
/// `uint32_t age = (freed_page_clock - bpage->freed_page_clock) & (2^31-1)`
/// (unsigned 32-bit subtraction, then the mask), young iff `age < window`
/// (the 31-bit age widened to `ulint`).
pub fn peek_if_young(
    rule: YoungRule,
    pool_clock: u32,
    block_clock: u32,
    curr_size: u64,
    old_ratio: u32,
) -> bool {
    let stamp = block_clock & FREED_PAGE_CLOCK_MASK;
    let window = young_window(curr_size, u64::from(old_ratio));
    match rule {
        YoungRule::StampPlusWindow => {
            let clock = u64::from(pool_clock & FREED_PAGE_CLOCK_MASK);
            clock < u64::from(stamp).wrapping_add(window)
        }
        YoungRule::ModularAge => {
            let age = pool_clock.wrapping_sub(stamp) & FREED_PAGE_CLOCK_MASK;
            u64::from(age) < window
        }
    }
}

/// Everything `buf_page_peek_if_too_old()` reads, as one snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EagerInput {
    /// `buf_pool.freed_page_clock`
    pub pool_clock: u32,
    /// `bpage->freed_page_clock` (31 bits)
    pub block_clock: u32,
    /// `bpage->old`
    pub block_old: bool,
    /// `bpage->access_time` (ms of the first access, 0 = never)
    pub access_time: u32,
    /// `ut_time_ms()` truncated to 32 bits
    pub now_ms: u32,
    /// `buf_pool.curr_size()`
    pub curr_size: u64,
    /// `buf_pool.LRU_old_ratio`
    pub old_ratio: u32,
    /// `buf_LRU_old_threshold_ms` (innodb_old_blocks_time)
    pub threshold_ms: u32,
}

/// `buf_page_peek_if_too_old()`: (too_old, increment of stat.n_pages_not_made_young: 0 or 1)
///
/// Reproduces include/buf0buf.inl:49-76 (10.5: include/buf0buf.inl:96-123):
/// 1. `freed_page_clock == 0`: false, no statistics (warm-up or in-memory);
/// 2. threshold set and the block old: true if it was accessed and
///    `uint32_t(ut_time_ms() - access_time) >= threshold` (wraps every
///    2^32 ms, about 49.7 days), else one `n_pages_not_made_young`;
/// 3. otherwise `!buf_page_peek_if_young()` in the tree's form `rule`.
pub fn peek_if_too_old(rule: YoungRule, i: &EagerInput) -> (bool, u64) {
    if i.pool_clock == 0 {
        return (false, 0);
    }
    if i.threshold_ms != 0 && i.block_old {
        if i.access_time != 0 && i.now_ms.wrapping_sub(i.access_time) >= i.threshold_ms {
            return (true, 0);
        }
        return (false, 1);
    }
    (
        !peek_if_young(rule, i.pool_clock, i.block_clock, i.curr_size, i.old_ratio),
        0,
    )
}

/// Largest `LRU_old_threshold`: a 16-bit age can never exceed `UINT16_MAX - 1`.
pub const LAZY_THRESHOLD_MAX: u16 = u16::MAX - 1;

/// post-fix: buf_pool_t::set_old_threshold_ms() -> LRU_old_threshold (seconds, u16)
///
/// Reproduces P:buf/buf0buf.cc `buf_pool_t::set_old_threshold_ms()`:
/// `uint16_t(std::min((uint64_t{ms} + 999) / 1000, 65534))`. Rounding up keeps
/// sub-second settings enabled; the cap keeps the threshold below the 16-bit
/// age range.
pub fn lazy_threshold_from_ms(ms: u32) -> u16 {
    lazy_threshold_in_ticks(ms, LAZY_CLOCK_TICK_MS)
}

/// The fix's `buf_pool.access_clock` tick: one second.
pub const LAZY_CLOCK_TICK_MS: u32 = 1000;

/// The tick of innodb-lab's fine-clock remedy (`buf_pool_t::CLOCK_TICK_MS`
/// of patches/10.11/fixed-fine-clock.patch).
pub const FINE_CLOCK_TICK_MS: u32 = 100;

/// `lazy_threshold_from_ms` for a clock of `tick_ms` ticks: the fine-clock
/// remedy's `set_old_threshold_ms()` (patches/10.11/fixed-fine-clock.md)
/// rounds up to whole 100 ms ticks the same way.
pub fn lazy_threshold_in_ticks(ms: u32, tick_ms: u32) -> u16 {
    // The min() makes the narrowing lossless.
    u64::from(ms)
        .div_ceil(u64::from(tick_ms.max(1)))
        .min(u64::from(LAZY_THRESHOLD_MAX)) as u16
}

/// post-fix buf_pool_t::now() mapping of monotonic seconds: uint16 truncation with 0 mapped to 1
///
/// Reproduces P:srv/srv0srv.cc `buf_pool_t::now()`: `t = uint16_t(seconds)`,
/// then `t | ((uint32_t{t} - 1) >> 31)`, which maps 0 (reserved for "never
/// accessed") to 1 without a branch.
pub fn lazy_clock_from_secs(secs: u64) -> u16 {
    let t = secs as u16; // the C++ truncates to uint16_t on purpose
    t | (u32::from(t).wrapping_sub(1) >> 31) as u16
}

/// post-fix touch_no_stamp(): returns the new PROMOTE bit
///
/// Reproduces P:include/buf0buf.h `buf_page_t::touch_no_stamp()`: a block
/// already flagged stays flagged; with `innodb_old_blocks_time=0` every access
/// flags it; otherwise it is flagged only if it has a stamp and its age,
/// modulo 65536, is strictly greater than the threshold (one more tick, since
/// the clock advances about once per second).
pub fn touch_no_stamp(promote: bool, access_time: u16, access_clock: u16, threshold: u16) -> bool {
    if promote {
        return true;
    }
    if threshold != 0 && (access_time == 0 || access_clock.wrapping_sub(access_time) <= threshold) {
        return false;
    }
    true
}

/// Which blocks an access flags only once their stamp is older than
/// `innodb_old_blocks_time` (`LRU_old_threshold`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum YoungTouch {
    /// Upstream's fix (P:include/buf0buf.h `touch_no_stamp()`): every block,
    /// whether it is in the old sublist or not.
    #[default]
    AgeChecked,
    /// innodb-lab's young-touch remedy (patches/10.11/fixed-fine-young.md):
    /// only a block in the old sublist waits; an access to any other block
    /// flags it at once, as base's access promoted a block of the new sublist
    /// by its distance from the head, whatever its age.
    OldOnly,
    /// innodb-lab's second remedy candidate: a block of the old sublist
    /// waits as in the fix; any other block is flagged by an access in a
    /// later tick of the access clock than its stamp (its first access or
    /// its last move). A page that a scan reads and passes over within one
    /// tick is not flagged when the boundary hands it to the new sublist;
    /// a page used again a tick later is.
    NextTick,
    /// innodb-lab's lookup-touch remedy (patches/10.11/fixed-lookup.md): a
    /// lookup (a search from the root of an index, or an adaptive hash index
    /// hit) flags a block outside the old sublist at once; every other
    /// access, and any access to an old block, waits as in the fix. A scan
    /// reaches its pages from a neighbour or by restoring its cursor, so the
    /// pages of a scan that the boundary hands to the new sublist stay
    /// unflagged.
    Lookup,
    /// The lookup rule, and an access of any kind flags a block outside the
    /// old sublist at once if a sweep or the boundary has moved it since it
    /// was read: such a block has proven itself hot, while a scanned page
    /// that the boundary hands to the new sublist was never moved. The
    /// policy folds "moved" into [`Touch::lookup`], so the decision here is
    /// [`YoungTouch::Lookup`]'s.
    LookupOrMoved,
    /// The lookup rule, and any other access flags a block outside the old
    /// sublist once the clock has left the tick of its stamp, as under
    /// [`YoungTouch::NextTick`]: a scan passes over its page within a tick,
    /// a warm page reached by a range or a cursor restore comes back later.
    LookupOrNextTick,
    /// The lookup rule, and any access flags a block outside the old
    /// sublist if a lookup has touched it since it was read (in either
    /// sublist): the page a lookup read into the old sublist and the
    /// boundary then handed to the new one is flagged by the restores of
    /// the lookup's own cursor, where a scan's page, never looked up, is
    /// not. The policy folds "looked up" into [`Touch::lookup`].
    LookedUp,
    /// [`YoungTouch::LookedUp`], except that a move to the head (a sweep's
    /// or the boundary's) spends the mark: only a lookup since the block's
    /// last move lets any access flag it at once. A mark kept for the whole
    /// stay lets every later access re-flag a block that a lookup reached
    /// once, and the boundary then moves many such blocks ahead of the
    /// blocks in use (patches/10.11/fixed-lookup-mark.md). The decision
    /// here is [`YoungTouch::Lookup`]'s; the pool clears the mark.
    LookupMark,
}

impl YoungTouch {
    /// Every rule, the fix's first.
    pub const ALL: [YoungTouch; 8] = [
        YoungTouch::AgeChecked,
        YoungTouch::OldOnly,
        YoungTouch::NextTick,
        YoungTouch::Lookup,
        YoungTouch::LookupOrMoved,
        YoungTouch::LookupOrNextTick,
        YoungTouch::LookedUp,
        YoungTouch::LookupMark,
    ];

    /// The name on the command line and in records (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            YoungTouch::AgeChecked => "age-checked",
            YoungTouch::OldOnly => "old-only",
            YoungTouch::NextTick => "next-tick",
            YoungTouch::Lookup => "lookup",
            YoungTouch::LookupOrMoved => "lookup-or-moved",
            YoungTouch::LookupOrNextTick => "lookup-or-next-tick",
            YoungTouch::LookedUp => "looked-up",
            YoungTouch::LookupMark => "lookup-mark",
        }
    }
}

impl std::str::FromStr for YoungTouch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        rule_named(&YoungTouch::ALL, YoungTouch::name, "rule", s)
    }
}

/// The rule of `all` whose `name` is `s`, for a command line's `FromStr`;
/// else an error calling it an unknown `what` and listing every name
/// ("expected a, b or c").
pub fn rule_named<T: Copy>(
    all: &[T],
    name: fn(T) -> &'static str,
    what: &str,
    s: &str,
) -> Result<T, String> {
    all.iter().copied().find(|&r| name(r) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&r| name(r)).collect();
        let expected = match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        format!("unknown {what} {s:?}: expected {expected}")
    })
}

/// The threshold `touch_no_stamp()` compares a block's age with: the
/// pool's, or 0 (flag at once) for a block outside the old sublist under
/// [`YoungTouch::OldOnly`], and for a lookup of such a block under
/// [`YoungTouch::Lookup`].
pub fn touch_threshold(rule: YoungTouch, old: bool, lookup: bool, threshold: u16) -> u16 {
    match rule {
        YoungTouch::OldOnly if !old => 0,
        YoungTouch::Lookup
        | YoungTouch::LookupOrMoved
        | YoungTouch::LookedUp
        | YoungTouch::LookupMark
            if !old && lookup =>
        {
            0
        }
        _ => threshold,
    }
}

/// What `touch()` and `touch_no_stamp()` read: of the block, of the access
/// and of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touch {
    /// the block is in the old sublist
    pub old: bool,
    /// the access is a lookup's (an index search for a key, or the first
    /// pages of its range), not a scan's
    pub lookup: bool,
    /// the block's PROMOTE bit before the access
    pub promote: bool,
    /// the block's stamp (0: never accessed)
    pub access_time: u16,
    /// `buf_pool.access_clock` now
    pub access_clock: u16,
    /// the pool's threshold in ticks (0: every access flags)
    pub threshold: u16,
}

/// `touch_no_stamp()` under `rule`: returns the new PROMOTE bit. With a
/// threshold, [`YoungTouch::NextTick`] flags a block outside the old
/// sublist once the clock has left the tick it was stamped in (`stamp &&
/// access_clock != stamp`); every other case, and a threshold of 0 (every
/// access flags), is [`touch_no_stamp`] with [`touch_threshold`].
pub fn touch_no_stamp_under(rule: YoungTouch, t: Touch) -> bool {
    match rule {
        YoungTouch::NextTick if !t.old && t.threshold != 0 => {
            t.promote || (t.access_time != 0 && t.access_clock != t.access_time)
        }
        YoungTouch::LookupOrNextTick if !t.old && t.threshold != 0 => {
            t.promote || t.lookup || (t.access_time != 0 && t.access_clock != t.access_time)
        }
        _ => touch_no_stamp(
            t.promote,
            t.access_time,
            t.access_clock,
            touch_threshold(rule, t.old, t.lookup, t.threshold),
        ),
    }
}

/// [`touch`] under `rule`: the stamp as in the fix, the flag by
/// [`touch_no_stamp_under`]. Returns (not first, the stamp after, PROMOTE
/// after).
pub fn touch_under(rule: YoungTouch, t: Touch) -> (bool, u16, bool) {
    let not_first = t.access_time != 0;
    let stamp = if not_first {
        t.access_time
    } else {
        t.access_clock
    };
    let stamped = Touch {
        access_time: stamp,
        ..t
    };
    (not_first, stamp, touch_no_stamp_under(rule, stamped))
}

/// post-fix touch(): returns (not_first, new_access_time, new_promote)
///
/// Reproduces P:buf/buf0buf.cc `buf_page_t::touch()`: stamp `access_time =
/// buf_pool.access_clock` on the first access, then `touch_no_stamp()` with
/// that stamp. No mutex and no list access.
pub fn touch(
    promote: bool,
    access_time: u16,
    access_clock: u16,
    threshold: u16,
) -> (bool, u16, bool) {
    // upstream's rule ignores whether the block is old or looked up
    let t = Touch {
        old: false,
        lookup: false,
        promote,
        access_time,
        access_clock,
        threshold,
    };
    touch_under(YoungTouch::AgeChecked, t)
}

/// What one sweep visit did to a block and to the two status counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SweepOutcome {
    /// whether `make_young()` was called (the block goes to the MRU end)
    pub moved: bool,
    /// increment of `buf_pool.stat.n_pages_made_young` (0 or 1)
    pub made_young: u64,
    /// increment of `buf_pool.stat.n_pages_not_made_young` (0 or 1)
    pub not_made_young: u64,
}

/// post-fix make_young_if_needed<COUNT_NOT_YOUNG, ONLY_OLD>() decision on a snapshot of (promote, old, access_time)
///
/// Reproduces P:include/buf0buf.h `buf_page_t::make_young_if_needed()`:
/// a sweep that visits only old blocks leaves the others; a block without
/// PROMOTE stays, and is counted as not made young when the sweep counts,
/// the block is old and has a stamp; a flagged block is moved, and counted as
/// made young only if it was old.
pub fn make_young_if_needed<const COUNT_NOT_YOUNG: bool, const ONLY_OLD: bool>(
    promote: bool,
    old: bool,
    access_time: u16,
) -> SweepOutcome {
    if ONLY_OLD && !old {
        return SweepOutcome::default();
    }
    if !promote {
        let counted = COUNT_NOT_YOUNG && old && access_time != 0;
        return SweepOutcome {
            moved: false,
            made_young: 0,
            not_made_young: u64::from(counted),
        };
    }
    SweepOutcome {
        moved: true,
        made_young: u64::from(old),
        not_made_young: 0,
    }
}

/// `buf_LRU_old_ratio_update()` (buf/buf0lru.cc:1159-1187): innodb_old_blocks_pct to
/// `LRU_old_ratio`, `pct * 1024 / 100` clamped to [51, 1024] (37% gives 378).
pub fn old_ratio_from_pct(pct: u32) -> u32 {
    // BUF_LRU_OLD_RATIO_MIN (include/buf0lru.h:157), BUF_LRU_OLD_RATIO_MAX (:151)
    (pct.wrapping_mul(1024) / 100).clamp(51, 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A touch from its fields in their declaration order.
    fn t(
        old: bool,
        lookup: bool,
        promote: bool,
        access_time: u16,
        access_clock: u16,
        threshold: u16,
    ) -> Touch {
        Touch {
            old,
            lookup,
            promote,
            access_time,
            access_clock,
            threshold,
        }
    }

    #[test]
    fn rule_names_parse_and_an_unknown_one_lists_them_all() {
        use crate::{Boundary, MoveStamp};
        for r in YoungTouch::ALL {
            assert_eq!(r.name().parse::<YoungTouch>(), Ok(r));
        }
        assert_eq!(
            "lru".parse::<YoungTouch>(),
            Err(
                "unknown rule \"lru\": expected age-checked, old-only, next-tick, lookup, \
                 lookup-or-moved, lookup-or-next-tick, looked-up or lookup-mark"
                    .into()
            )
        );
        assert_eq!(
            "x".parse::<Boundary>(),
            Err("unknown boundary rule \"x\": expected upstream or move-flagged".into())
        );
        assert_eq!("keep".parse::<MoveStamp>(), Ok(MoveStamp::Keep));
        assert_eq!(
            "x".parse::<MoveStamp>(),
            Err("unknown move stamp rule \"x\": expected restamp or keep".into())
        );
    }

    fn eager(pool_clock: u32, block_old: bool, access_time: u32, now_ms: u32) -> EagerInput {
        EagerInput {
            pool_clock,
            block_clock: 0,
            block_old,
            access_time,
            now_ms,
            curr_size: 8192,
            old_ratio: 378,
            threshold_ms: 1000,
        }
    }

    #[test]
    fn set_accessed_stamps_only_the_first_access() {
        assert_eq!(set_accessed(0, 5000), (false, 5000));
        assert_eq!(set_accessed(5000, 9000), (true, 5000));
        // a clock that reads 0 leaves the block unaccessed, as in C++
        assert_eq!(set_accessed(0, 0), (false, 0));
    }

    const SUM: YoungRule = YoungRule::StampPlusWindow;
    const AGE: YoungRule = YoungRule::ModularAge;

    #[test]
    fn peek_if_young_window_is_a_quarter_of_the_new_sublist() {
        // 8192 * (1024 - 378) / 4096 = 1292
        assert_eq!(young_window(8192, 378), 1292);
        for rule in [SUM, AGE] {
            assert!(peek_if_young(rule, 1291, 0, 8192, 378), "{rule:?}");
            assert!(!peek_if_young(rule, 1292, 0, 8192, 378), "{rule:?}");
            assert!(peek_if_young(rule, 100 + 1291, 100, 8192, 378), "{rule:?}");
            assert!(!peek_if_young(rule, 100 + 1292, 100, 8192, 378), "{rule:?}");
            // the pool clock's bit 31 is not part of the 31-bit clock
            assert!(
                peek_if_young(rule, (1 << 31) | 10, 5, 8192, 378),
                "{rule:?}"
            );
            // a window of 0 (empty pool) holds nothing
            assert!(
                !peek_if_young(rule, u32::MAX, 0x7fff_fffe, 0, 378),
                "{rule:?}"
            );
            // ratio > 1024 wraps in ulint, making the window huge
            assert!(peek_if_young(rule, 100, 0, 8192, 2000), "{rule:?}");
        }
    }

    #[test]
    fn stamp_plus_window_has_no_wrap_handling() {
        // 10.11.18: a stamp taken 16 ticks before the 31-bit clock wraps.
        // 1291 ticks later the masked clock reads 1275: 1275 < 2^31-16+1292,
        // young (right); 1292 ticks later it reads 1276, still young (wrong),
        // and 5016 ticks later (masked 5000) too: the FIXME of the C++.
        let stamp = 0x7fff_fff0;
        assert!(peek_if_young(SUM, stamp + 1291, stamp, 8192, 378));
        assert!(peek_if_young(SUM, stamp + 1292, stamp, 8192, 378));
        assert!(peek_if_young(SUM, (1 << 31) + 5000, stamp, 8192, 378));
        assert!(peek_if_young(SUM, 5, stamp, 8192, 378));
        // a stamp of all ones (truncated to 2^31-1) with an empty window:
        // 10 < 2^31-1 + 0 is young
        assert!(peek_if_young(SUM, 10, u32::MAX, 0, 378));
    }

    #[test]
    fn modular_age_leaves_the_window_across_the_wrap() {
        // MDEV-41036: the same stamp, 16 ticks before the 31-bit wrap.
        // 1291 ticks later: age (2^31+1275 - (2^31-16)) & mask = 1291 < 1292, young;
        // 1292 ticks later: age 1292, not young; 5016 ticks later: not young.
        let stamp = 0x7fff_fff0;
        assert!(peek_if_young(AGE, stamp + 1291, stamp, 8192, 378));
        assert!(!peek_if_young(AGE, stamp + 1292, stamp, 8192, 378));
        assert!(!peek_if_young(AGE, (1 << 31) + 5000, stamp, 8192, 378));
        // the 32-bit pool clock wrapped too: 3 - (2^31-2) = 2^31+5 (mod 2^32),
        // masked 5: young
        assert!(peek_if_young(AGE, 3, 0x7fff_fffe, 8192, 378));
        // clock 5 after a stamp of 2^31-16: age 21, young (as the sum form says,
        // here by accident)
        assert!(peek_if_young(AGE, 5, stamp, 8192, 378));
        // the stamp is truncated to 31 bits first: 10 - (2^31-1) masked is 11,
        // not below an empty window
        assert!(!peek_if_young(AGE, 10, u32::MAX, 0, 378));
        // a clock one tick behind its stamp is 2^31-1 ticks old
        assert!(!peek_if_young(AGE, 999, 1000, 8192, 378));
        assert!(peek_if_young(SUM, 999, 1000, 8192, 378));
        // through buf_page_peek_if_too_old(): a block in the new sublist, 5016
        // evictions after its stamp across the wrap, is too old only here
        let mut i = eager((1 << 31) + 5000, false, 1, 2);
        i.block_clock = stamp;
        assert_eq!(peek_if_too_old(SUM, &i), (false, 0));
        assert_eq!(peek_if_too_old(AGE, &i), (true, 0));
    }

    #[test]
    fn peek_if_too_old_rules() {
        assert_eq!(
            peek_if_too_old(SUM, &eager(0, true, 1, 1_000_000)),
            (false, 0)
        );
        assert_eq!(
            peek_if_too_old(SUM, &eager(1, true, 1000, 1999)),
            (false, 1)
        );
        assert_eq!(peek_if_too_old(SUM, &eager(1, true, 1000, 2000)), (true, 0));
        assert_eq!(peek_if_too_old(SUM, &eager(1, true, 0, 2000)), (false, 1));
        // new sublist: young while the clock is inside the window
        assert_eq!(peek_if_too_old(SUM, &eager(1291, false, 1, 2)), (false, 0));
        assert_eq!(peek_if_too_old(SUM, &eager(1292, false, 1, 2)), (true, 0));
        // threshold 0: old blocks are judged like new ones
        let mut i = eager(1292, true, 1000, 1000);
        i.threshold_ms = 0;
        assert_eq!(peek_if_too_old(SUM, &i), (true, 0));
    }

    #[test]
    fn peek_if_too_old_wraps_the_32_bit_milliseconds() {
        // first access 10 ms before the 2^32 ms wrap, re-access 990 ms after it: 1000 ms
        assert_eq!(
            peek_if_too_old(SUM, &eager(1, true, u32::MAX - 9, 990)),
            (true, 0)
        );
        // 2^32 + 15 ms later looks like 15 ms
        assert_eq!(
            peek_if_too_old(SUM, &eager(1, true, 1000, 1015)),
            (false, 1)
        );
    }

    #[test]
    fn lazy_threshold_rounds_up_and_caps() {
        assert_eq!(lazy_threshold_from_ms(0), 0);
        assert_eq!(lazy_threshold_from_ms(1), 1);
        assert_eq!(lazy_threshold_from_ms(1000), 1);
        assert_eq!(lazy_threshold_from_ms(1001), 2);
        assert_eq!(lazy_threshold_from_ms(65_534_000), 65534);
        assert_eq!(lazy_threshold_from_ms(65_534_001), 65534);
        assert_eq!(lazy_threshold_from_ms(u32::MAX), 65534);
        // the fine clock's 100 ms ticks round the same way
        assert_eq!(lazy_threshold_in_ticks(1000, 100), 10);
        assert_eq!(lazy_threshold_in_ticks(1001, 100), 11);
        assert_eq!(lazy_threshold_in_ticks(1, 100), 1);
        assert_eq!(lazy_threshold_in_ticks(6_553_400, 100), 65534);
        assert_eq!(lazy_threshold_in_ticks(u32::MAX, 100), 65534);
    }

    #[test]
    fn lazy_clock_truncates_and_skips_zero() {
        assert_eq!(lazy_clock_from_secs(0), 1);
        assert_eq!(lazy_clock_from_secs(1), 1);
        assert_eq!(lazy_clock_from_secs(2), 2);
        assert_eq!(lazy_clock_from_secs(65535), 65535);
        assert_eq!(lazy_clock_from_secs(65536), 1);
        assert_eq!(lazy_clock_from_secs(65537), 1);
        assert_eq!(lazy_clock_from_secs(65538), 2);
    }

    #[test]
    fn touch_needs_one_more_tick_than_the_threshold() {
        assert!(!touch_no_stamp(false, 10, 11, 1));
        assert!(touch_no_stamp(false, 10, 12, 1));
        assert!(!touch_no_stamp(false, 0, 12, 1));
        assert!(touch_no_stamp(false, 0, 12, 0));
        assert!(touch_no_stamp(true, 10, 10, 1));
        // 16-bit wrap: stamp 65535, clock 1 is 2 ticks later
        assert!(touch_no_stamp(false, 65535, 1, 1));
        assert!(!touch_no_stamp(false, 65535, 0, 1));
    }

    #[test]
    fn young_touch_names_are_the_serialized_ones() {
        for rule in YoungTouch::ALL {
            let json = serde_json::to_string(&rule).unwrap();
            assert_eq!(json, format!("\"{}\"", rule.name()));
            assert_eq!(rule.name().parse::<YoungTouch>(), Ok(rule));
        }
        assert!("old".parse::<YoungTouch>().is_err());
    }

    #[test]
    fn young_touch_waives_the_threshold_only_outside_the_old_sublist() {
        for lookup in [false, true] {
            assert_eq!(touch_threshold(YoungTouch::AgeChecked, false, lookup, 3), 3);
            assert_eq!(touch_threshold(YoungTouch::AgeChecked, true, lookup, 3), 3);
            assert_eq!(touch_threshold(YoungTouch::OldOnly, true, lookup, 3), 3);
            assert_eq!(touch_threshold(YoungTouch::OldOnly, false, lookup, 3), 0);
            assert_eq!(touch_threshold(YoungTouch::Lookup, true, lookup, 3), 3);
        }
        assert!(touch_no_stamp(
            false,
            0,
            7,
            touch_threshold(YoungTouch::OldOnly, false, false, 3)
        ));
    }

    #[test]
    fn lookup_or_next_tick_flags_a_young_block_on_a_lookup_or_a_tick_after_its_stamp() {
        use YoungTouch::LookupOrNextTick as R;
        // young, stamped in this tick: a lookup flags, a scan's access does not
        assert!(touch_no_stamp_under(R, t(false, true, false, 7, 7, 3)));
        assert!(!touch_no_stamp_under(R, t(false, false, false, 7, 7, 3)));
        // young, a tick later: any access flags
        assert!(touch_no_stamp_under(R, t(false, false, false, 7, 8, 3)));
        // old: the threshold, lookup or not
        assert!(!touch_no_stamp_under(R, t(true, true, false, 7, 10, 3)));
        assert!(touch_no_stamp_under(R, t(true, false, false, 7, 11, 3)));
    }

    #[test]
    fn lookup_touch_waives_the_threshold_for_lookups_of_young_blocks_only() {
        use YoungTouch::Lookup;
        assert_eq!(touch_threshold(Lookup, false, true, 3), 0);
        assert_eq!(touch_threshold(Lookup, false, false, 3), 3);
        // stamped now, not old: a lookup flags, a scan's access does not
        assert!(touch_no_stamp_under(Lookup, t(false, true, false, 7, 7, 3)));
        assert!(!touch_no_stamp_under(
            Lookup,
            t(false, false, false, 7, 7, 3)
        ));
        // an old block waits for the threshold, lookup or not
        assert!(!touch_no_stamp_under(
            Lookup,
            t(true, true, false, 7, 10, 3)
        ));
        assert!(touch_no_stamp_under(Lookup, t(true, true, false, 7, 11, 3)));
        // the first access stamps; a lookup of a young block flags it at once
        assert_eq!(
            touch_under(Lookup, t(false, true, false, 0, 9, 3)),
            (false, 9, true)
        );
        assert_eq!(
            touch_under(Lookup, t(false, false, false, 0, 9, 3)),
            (false, 9, false)
        );
    }

    #[test]
    fn next_tick_flags_a_young_block_in_a_later_tick_only() {
        use YoungTouch::NextTick;
        assert!(!touch_no_stamp_under(
            NextTick,
            t(false, true, false, 7, 7, 10)
        ));
        assert!(touch_no_stamp_under(
            NextTick,
            t(false, false, false, 7, 8, 10)
        ));
        // old blocks wait for the threshold
        assert!(!touch_no_stamp_under(
            NextTick,
            t(true, false, false, 7, 8, 10)
        ));
        // threshold 0: every access flags, as in the fix
        assert!(touch_no_stamp_under(
            NextTick,
            t(false, false, false, 7, 7, 0)
        ));
        // the first access stamps, so it never flags a young block
        assert_eq!(
            touch_under(NextTick, t(false, false, false, 0, 9, 10)),
            (false, 9, false)
        );
    }

    #[test]
    fn touch_stamps_then_judges() {
        assert_eq!(touch(false, 0, 7, 1), (false, 7, false));
        assert_eq!(touch(false, 0, 7, 0), (false, 7, true));
        assert_eq!(touch(false, 5, 7, 1), (true, 5, true));
        assert_eq!(touch(false, 6, 7, 1), (true, 6, false));
    }

    #[test]
    fn make_young_if_needed_counts_like_the_server() {
        let moved_old = SweepOutcome {
            moved: true,
            made_young: 1,
            not_made_young: 0,
        };
        let moved_new = SweepOutcome {
            moved: true,
            made_young: 0,
            not_made_young: 0,
        };
        let counted = SweepOutcome {
            moved: false,
            made_young: 0,
            not_made_young: 1,
        };
        assert_eq!(
            make_young_if_needed::<true, false>(true, true, 3),
            moved_old
        );
        assert_eq!(
            make_young_if_needed::<true, false>(true, false, 3),
            moved_new
        );
        assert_eq!(make_young_if_needed::<true, false>(false, true, 3), counted);
        assert_eq!(
            make_young_if_needed::<true, false>(false, true, 0),
            SweepOutcome::default()
        );
        assert_eq!(
            make_young_if_needed::<false, false>(false, true, 3),
            SweepOutcome::default()
        );
        assert_eq!(
            make_young_if_needed::<false, true>(true, false, 3),
            SweepOutcome::default()
        );
        assert_eq!(
            make_young_if_needed::<false, true>(true, true, 3),
            moved_old
        );
    }

    #[test]
    fn old_ratio_matches_the_sysvar_update() {
        assert_eq!(old_ratio_from_pct(37), 378);
        assert_eq!(old_ratio_from_pct(5), 51);
        assert_eq!(old_ratio_from_pct(95), 972);
        assert_eq!(old_ratio_from_pct(100), 1024);
    }
}
