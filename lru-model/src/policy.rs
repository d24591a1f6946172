//! The three LRU policies: what a page access does, what a sweep does to a
//! block it visits, and how a freed page leaves the pool.
//!
//! Every decision goes through [`crate::decide`], the functions the ffi crate
//! checks against the C++ headers.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::decide::{self, EagerInput, YoungRule, YoungTouch};

/// The form of `buf_page_peek_if_young()` the classic and eager policies run:
/// 10.11.18's, which they model (the ffi check pins each tree's own form).
pub const EAGER_YOUNG_RULE: YoungRule = YoungRule::StampPlusWindow;
use crate::pool::{PoolState, ShortLru};

/// The policy a pool runs, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PolicyKind {
    /// 10.4 and earlier: promotions wait for the first eviction, freed pages stay in the LRU.
    Classic,
    /// 10.5 up to 11.8.9 (as in 10.11.18): promotion on the access path, under `buf_pool.mutex`.
    Eager,
    /// The MDEV-33966 fix: a PROMOTE bit at access time, the move at sweep time.
    Lazy,
}

impl PolicyKind {
    /// All policies, in the order reports list them.
    pub const ALL: [PolicyKind; 3] = [PolicyKind::Classic, PolicyKind::Eager, PolicyKind::Lazy];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Classic => "classic",
            PolicyKind::Eager => "eager",
            PolicyKind::Lazy => "lazy",
        }
    }
}

impl fmt::Display for PolicyKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PolicyKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        PolicyKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("unknown policy {s:?}: expected classic, eager or lazy"))
    }
}

/// What distinguishes one LRU policy from another.
pub trait Policy: Clone + fmt::Debug + 'static {
    /// The run-time name of this policy.
    const KIND: PolicyKind;
    /// Whether freeing a page releases its frame at once (10.5+: the page
    /// cleaner's `release_freed_page()`) instead of leaving the block in the
    /// LRU until it is evicted (10.4).
    const FREE_RELEASES_FRAME: bool;
    /// Whether removing a block from the LRU ticks `buf_pool.freed_page_clock`.
    const HAS_FREED_PAGE_CLOCK: bool;

    /// A B-tree leaf access to the block in frame `f`; returns whether it
    /// was not the first access (the caller's read-ahead trigger). By
    /// default the pre-fix access path, which promotes under the mutex.
    fn access(pool: &mut PoolState, f: u32) -> bool {
        make_young_if_needed_eager(pool, f)
    }

    /// A lookup (a search from the root of an index, or an adaptive hash
    /// index hit) of the block in frame `f`. Only the lookup-touch rule
    /// tells it from any other access.
    fn lookup(pool: &mut PoolState, f: u32) -> bool {
        Self::access(pool, f)
    }

    /// What creating a page does to its block, just put at the head of the
    /// LRU: before the fix `buf_page_create_low()` calls
    /// `buf_page_t::set_accessed()` (buf/buf0buf.cc:3637), so the page's
    /// first access is its creation, and no promotion is asked for.
    fn create_access(pool: &mut PoolState, f: u32) {
        let now_ms = pool.now_ms32();
        let frame = &mut pool.frames[f as usize];
        frame.access_ms = decide::set_accessed(frame.access_ms, now_ms).1;
    }

    /// A sweep visits the block in frame `f` before judging it for eviction;
    /// returns whether the block was moved to the MRU end (and so skipped).
    /// By default nothing: before the fix, sweeps never promote.
    fn sweep_visit<const COUNT_NOT_YOUNG: bool, const ONLY_OLD: bool>(
        _pool: &mut PoolState,
        _f: u32,
    ) -> bool {
        false
    }
}

/// 10.5/10.11 `buf_page_make_young_if_needed()` (buf/buf0lru.cc:717-723):
/// `set_accessed()`, then `buf_page_peek_if_too_old()`, then
/// `buf_page_make_young()` (:699-715) under `buf_pool.mutex`.
fn make_young_if_needed_eager(pool: &mut PoolState, f: u32) -> bool {
    let (now_ms, curr_size) = (pool.now_ms32(), pool.curr_size());
    let frame = &mut pool.frames[f as usize];
    let (not_first, access_time) = decide::set_accessed(frame.access_ms, now_ms);
    frame.access_ms = access_time;
    let input = EagerInput {
        pool_clock: pool.freed_page_clock,
        block_clock: frame.freed_page_clock,
        block_old: frame.old,
        access_time,
        now_ms,
        curr_size,
        old_ratio: pool.old_ratio,
        threshold_ms: pool.threshold_ms,
    };
    let was_old = frame.old;
    let (too_old, not_made_young) = decide::peek_if_too_old(EAGER_YOUNG_RULE, &input);
    pool.counters.not_made_young += not_made_young;
    if too_old {
        // every block is unfixed, so the is_read_fixed() early return never applies
        pool.counters.access_mutex_acquisitions += 1;
        if was_old {
            pool.counters.made_young += 1;
        }
        pool.move_to_head(f);
    }
    not_first
}

/// 10.4 and earlier: the access path of 10.5 (`buf_page_get_gen()` did
/// `set_accessed()` and `buf_page_make_young_if_needed()`), but freed pages
/// stay in the LRU, so the clock only ticks on eviction and an in-memory
/// workload never promotes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Classic;

impl Policy for Classic {
    const KIND: PolicyKind = PolicyKind::Classic;
    const FREE_RELEASES_FRAME: bool = false;
    const HAS_FREED_PAGE_CLOCK: bool = true;
}

/// 10.5 up to 11.8.9: promotion on the access path; the page cleaner
/// releases freed pages, which ticks the clock (buf/buf0flu.cc:707-727).
#[derive(Clone, Copy, Debug, Default)]
pub struct Eager;

impl Policy for Eager {
    const KIND: PolicyKind = PolicyKind::Eager;
    const FREE_RELEASES_FRAME: bool = true;
    const HAS_FREED_PAGE_CLOCK: bool = true;
}

/// The MDEV-33966 fix: `buf_page_t::touch()` sets PROMOTE without a mutex;
/// sweeps that already hold `buf_pool.mutex` move flagged blocks with
/// `make_young_if_needed<>()` and `make_young()` (P:buf/buf0lru.cc).
#[derive(Clone, Copy, Debug, Default)]
pub struct Lazy;

impl Policy for Lazy {
    const KIND: PolicyKind = PolicyKind::Lazy;
    const FREE_RELEASES_FRAME: bool = true;
    const HAS_FREED_PAGE_CLOCK: bool = false;

    fn access(pool: &mut PoolState, f: u32) -> bool {
        touch(pool, f, false)
    }

    /// P: `buf_page_create_low()` calls `buf_page_t::touch()` (as our ports
    /// of the fix do).
    fn create_access(pool: &mut PoolState, f: u32) {
        touch(pool, f, false);
    }

    fn lookup(pool: &mut PoolState, f: u32) -> bool {
        touch(pool, f, true)
    }

    fn sweep_visit<const COUNT_NOT_YOUNG: bool, const ONLY_OLD: bool>(
        pool: &mut PoolState,
        f: u32,
    ) -> bool {
        let frame = &pool.frames[f as usize];
        let outcome = decide::make_young_if_needed::<COUNT_NOT_YOUNG, ONLY_OLD>(
            frame.promote,
            frame.old,
            frame.access_s,
        );
        pool.counters.made_young += outcome.made_young;
        pool.counters.not_made_young += outcome.not_made_young;
        if outcome.moved {
            // P: buf_page_t::make_young(): clear PROMOTE, re-stamp (or keep
            // the stamp, by the pool's move-stamp rule), move to the head
            let clock = pool.access_clock;
            let move_stamp = pool.cfg.move_stamp;
            let young_touch = pool.cfg.young_touch;
            let frame = &mut pool.frames[f as usize];
            frame.promote = false;
            frame.moved = true;
            frame.spend_lookup_mark(young_touch);
            frame.access_s = move_stamp.after_move(frame.access_s, clock);
            pool.move_to_head(f);
        }
        outcome.moved
    }
}

/// P: `buf_page_t::touch()`: stamp the first access, then flag the block
/// by the pool's young-touch rule (`lookup`: whether a search from the root
/// of an index asked for it). No mutex and no list access.
fn touch(pool: &mut PoolState, f: u32, lookup: bool) -> bool {
    let threshold = match pool.cfg.short_lru {
        ShortLru::FlagEveryAccess if !pool.has_old_sublist() => 0,
        _ => pool.lazy_threshold,
    };
    let clock = pool.access_clock;
    let young_touch = pool.cfg.young_touch;
    let frame = &mut pool.frames[f as usize];
    frame.looked_up |= lookup;
    let lookup = lookup
        || match young_touch {
            YoungTouch::LookupOrMoved => frame.moved,
            YoungTouch::LookedUp | YoungTouch::LookupMark => frame.looked_up,
            _ => false,
        };
    let t = decide::Touch {
        old: frame.old,
        lookup,
        promote: frame.promote,
        access_time: frame.access_s,
        access_clock: clock,
        threshold,
    };
    let (not_first, access_time, promote) = decide::touch_under(young_touch, t);
    frame.access_s = access_time;
    frame.promote = promote;
    not_first
}
