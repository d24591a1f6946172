//! The pool's lists as data: the frames, the free list, the LRU list with
//! its old sublist and the hazard pointers, and the list operations every
//! policy shares (10.11.18 buf/buf0lru.cc).

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::config::*;
use crate::decide::{self, YoungTouch};

/// The LRU fields of a resident block, for checks against the C++.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PageState {
    /// `old` (10.11) / the OLD bit (post-fix)
    pub old: bool,
    /// 10.11 `access_time` in ms (0 = never accessed)
    pub access_time_ms: u32,
    /// 10.11 `freed_page_clock` stamp (31 bits)
    pub freed_page_clock: u32,
    /// post-fix `access_time` in `access_clock` seconds (0 = never accessed)
    pub access_time_s: u16,
    /// post-fix PROMOTE bit
    pub promote: bool,
    /// classic only: freed, still in the LRU
    pub freed: bool,
    /// innodb-lab's looked-up remedies (`buf_page_t::looked_up`): a lookup
    /// has reached the block in this stay (under
    /// [`YoungTouch::LookupMark`], since its last move); set by every
    /// lookup whatever the rule
    pub looked_up: bool,
}

/// One block descriptor: the fields of `buf_page_t` the LRU uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub(crate) page: u64,
    pub(super) prev: u32,
    pub(super) next: u32,
    /// 10.11 `access_time`: `ut_time_ms()` of the first access, 0 = never
    pub(crate) access_ms: u32,
    /// 10.11 `freed_page_clock:31`: the pool clock when last put at the MRU head
    pub(crate) freed_page_clock: u32,
    /// post-fix `access_time`: `access_clock` of the first access or last promotion, 0 = never
    pub(crate) access_s: u16,
    /// `old` (10.11) / the OLD bit of `zip.state` (post-fix)
    pub(crate) old: bool,
    /// the PROMOTE bit of `zip.state` (post-fix)
    pub(crate) promote: bool,
    /// a sweep or the boundary moved the block to the head since it was
    /// read ([`YoungTouch::LookupOrMoved`])
    pub(crate) moved: bool,
    /// a lookup touched the block since it was read
    /// ([`YoungTouch::LookedUp`]), or since its last move
    /// ([`YoungTouch::LookupMark`])
    pub(crate) looked_up: bool,
    pub(super) in_lru: bool,
    /// classic only: freed in the tablespace, still in the LRU until evicted
    pub(super) freed: bool,
}

impl Frame {
    /// A move to the head: under [`YoungTouch::LookupMark`] it spends the
    /// mark of the lookups before it (`looked_up= false` in
    /// `buf_page_t::make_young()` and `keep_young_at_boundary()`).
    pub(crate) fn spend_lookup_mark(&mut self, rule: YoungTouch) {
        if rule == YoungTouch::LookupMark {
            self.looked_up = false;
        }
    }

    pub(super) const UNUSED: Frame = Frame {
        page: u64::MAX,
        prev: NIL,
        next: NIL,
        access_ms: 0,
        freed_page_clock: 0,
        access_s: 0,
        old: false,
        promote: false,
        moved: false,
        looked_up: false,
        in_lru: false,
        freed: false,
    };
}

/// The policy-independent state of `buf_pool`.
#[derive(Clone, Debug)]
pub struct PoolState {
    pub(crate) cfg: Config,
    pub(crate) frames: Vec<Frame>,
    /// `buf_pool.free`: `allocate()` takes the first, a freed block is added first, so a stack
    pub(super) free: Vec<u32>,
    pub(super) pages: FxHashMap<u64, u32>,
    pub(super) lru_head: u32,
    pub(super) lru_tail: u32,
    pub(super) lru_len: u32,
    pub(super) lru_old: u32,
    pub(super) lru_old_len: u32,
    /// [`OldSurplus::HoldUnaccessed`]: the blocks the old sublist holds
    /// over its target and tolerance because the boundary stopped at a
    /// block not accessed since its read (`buf_LRU_old_held` in the patch);
    /// evictions, not the boundary, take them back
    pub(super) old_held: u64,
    /// `buf_pool.lru_hp`, the page cleaner's position
    pub(super) lru_hp: u32,
    /// `buf_pool.lru_scan_itr`, the user threads' position
    pub(super) lru_scan_itr: u32,
    /// `buf_pool.freed_page_clock` (10.11); never ticks in the lazy policy, which has none
    pub(crate) freed_page_clock: u32,
    pub(crate) old_ratio: u32,
    pub(crate) threshold_ms: u32,
    pub(crate) lazy_threshold: u16,
    pub(super) now_ms: u64,
    pub(crate) access_clock: u16,
    pub(super) try_lru_scan: bool,
    pub(crate) counters: Counters,
}

impl PoolState {
    /// Whether `buf_pool.LRU_old` exists: from `OLD_MIN_LEN` blocks on.
    pub(crate) fn has_old_sublist(&self) -> bool {
        self.lru_old != NIL
    }

    pub(super) fn new(cfg: Config) -> Result<Self, ModelError> {
        if cfg.pool_pages == 0 || cfg.pool_pages == u32::MAX {
            return Err(ModelError::BadConfig(format!(
                "pool_pages {} is out of range",
                cfg.pool_pages
            )));
        }
        if !(5..=95).contains(&cfg.old_pct) {
            return Err(ModelError::BadConfig(format!(
                "old_pct {} is outside innodb_old_blocks_pct's range 5..=95",
                cfg.old_pct
            )));
        }
        if cfg.lru_scan_depth < 100 {
            return Err(ModelError::BadConfig(format!(
                "lru_scan_depth {} is below innodb_lru_scan_depth's minimum 100",
                cfg.lru_scan_depth
            )));
        }
        let n = cfg.pool_pages as usize;
        let mut pages = FxHashMap::default();
        pages.reserve(n);
        Ok(PoolState {
            cfg,
            frames: vec![Frame::UNUSED; n],
            // the first frame is allocated first
            free: (0..cfg.pool_pages).rev().collect(),
            pages,
            lru_head: NIL,
            lru_tail: NIL,
            lru_len: 0,
            lru_old: NIL,
            lru_old_len: 0,
            old_held: 0,
            lru_hp: NIL,
            lru_scan_itr: NIL,
            freed_page_clock: 0,
            old_ratio: decide::old_ratio_from_pct(cfg.old_pct),
            threshold_ms: cfg.old_blocks_time_ms,
            lazy_threshold: decide::lazy_threshold_in_ticks(
                cfg.old_blocks_time_ms,
                cfg.clock_tick_ms,
            ),
            now_ms: 0,
            access_clock: decide::lazy_clock_from_secs(0),
            try_lru_scan: true,
            counters: Counters::default(),
        })
    }

    /// `buf_pool.curr_size()`
    pub(crate) fn curr_size(&self) -> u64 {
        u64::from(self.cfg.pool_pages)
    }

    /// The current time as `ut_time_ms()` truncated to 32 bits, as the 10.11 code stores it.
    pub(crate) fn now_ms32(&self) -> u32 {
        self.now_ms as u32
    }

    pub(super) fn unlink(&mut self, f: u32) {
        let Frame { prev, next, .. } = self.frames[f as usize];
        if prev == NIL {
            self.lru_head = next;
        } else {
            self.frames[prev as usize].next = next;
        }
        if next == NIL {
            self.lru_tail = prev;
        } else {
            self.frames[next as usize].prev = prev;
        }
        let fr = &mut self.frames[f as usize];
        fr.prev = NIL;
        fr.next = NIL;
        fr.in_lru = false;
        self.lru_len -= 1;
    }

    pub(super) fn push_front(&mut self, f: u32) {
        let head = self.lru_head;
        {
            let fr = &mut self.frames[f as usize];
            fr.prev = NIL;
            fr.next = head;
            fr.in_lru = true;
        }
        if head == NIL {
            self.lru_tail = f;
        } else {
            self.frames[head as usize].prev = f;
        }
        self.lru_head = f;
        self.lru_len += 1;
    }

    pub(super) fn insert_after(&mut self, at: u32, f: u32) {
        let next = self.frames[at as usize].next;
        {
            let fr = &mut self.frames[f as usize];
            fr.prev = at;
            fr.next = next;
            fr.in_lru = true;
        }
        self.frames[at as usize].next = f;
        if next == NIL {
            self.lru_tail = f;
        } else {
            self.frames[next as usize].prev = f;
        }
        self.lru_len += 1;
    }

    /// The old sublist's target length: MySQL's
    /// `calculate_desired_LRU_old_size()`, which MariaDB computes inline in
    /// `buf_LRU_old_adjust_len()` and `buf_LRU_validate()`
    pub(super) fn old_len_target(&self) -> u64 {
        let len = u64::from(self.lru_len);
        (len * u64::from(self.old_ratio) / decide::OLD_RATIO_DIV)
            .min(len - (OLD_TOLERANCE + NON_OLD_MIN_LEN))
    }

    /// The longest the old sublist may be before the boundary moves toward
    /// the tail: the target plus the tolerance, plus the surplus that
    /// [`OldSurplus`] allows; never more than leaves `NON_OLD_MIN_LEN`
    /// blocks in the new sublist (upstream's bound, which keeps `LRU_old`
    /// off the head).
    pub(super) fn old_len_most(&self, target: u64) -> u64 {
        let surplus = self
            .cfg
            .old_surplus
            .allowance(self.cfg.lru_scan_depth, self.lru_len);
        self.old_len_bound(target, surplus)
    }

    /// The target plus the tolerance and `surplus`, never more than leaves
    /// `NON_OLD_MIN_LEN` blocks in the new sublist.
    fn old_len_bound(&self, target: u64, surplus: u64) -> u64 {
        (target + OLD_TOLERANCE + surplus).min(u64::from(self.lru_len) - NON_OLD_MIN_LEN)
    }

    /// `buf_LRU_old_adjust_len()` (buf/buf0lru.cc:440-501), with the
    /// surplus that [`OldSurplus`] allows above the tolerance
    pub(super) fn old_adjust_len(&mut self) {
        debug_assert_ne!(self.lru_old, NIL);
        let new_len = self.old_len_target();
        let most = self.old_len_most(new_len);
        // upstream's bound, which the surplus of OldSurplus::HoldUnaccessed
        // extends by what it holds
        let tolerated = self.old_len_bound(new_len, 0);
        let mut moves = 0;
        loop {
            let old_len = u64::from(self.lru_old_len);
            let lru_old = self.lru_old;
            let over_held = old_len > tolerated + self.old_held;
            if old_len + OLD_TOLERANCE < new_len {
                let prev = self.frames[lru_old as usize].prev;
                if self.cfg.boundary == Boundary::MoveFlagged
                    && moves < BOUNDARY_MOVES
                    && self.frames[prev as usize].promote
                    && prev != self.lru_head
                {
                    moves += 1;
                    self.move_flagged_to_head(prev);
                    continue;
                }
                self.lru_old = prev;
                self.lru_old_len += 1;
                self.frames[prev as usize].old = true;
            } else if old_len > most || (over_held && !self.holds_at(lru_old)) {
                self.lru_old = self.frames[lru_old as usize].next;
                self.lru_old_len -= 1;
                self.frames[lru_old as usize].old = false;
                self.counters.boundary_made_young += 1;
            } else {
                if over_held {
                    // the boundary stops at a block no one has accessed
                    self.old_held = old_len - tolerated;
                }
                // what evictions took is no longer held
                self.old_held = self.old_held.min(old_len.saturating_sub(tolerated));
                return;
            }
        }
    }

    /// Whether the old sublist's surplus holds the boundary at `first_old`
    /// ([`OldSurplus::holds_at`]: whether it has been accessed since its read).
    fn holds_at(&self, first_old: u32) -> bool {
        let frame = &self.frames[first_old as usize];
        let accessed = frame.access_ms != 0 || frame.access_s != 0;
        self.cfg.old_surplus.holds_at(accessed)
    }

    /// The hazard-pointer adjustment of `buf_pool_t::LRU_remove()`
    /// (include/buf0buf.h:1546-1558): the page cleaner's and the user
    /// threads' scan positions step from `f`, about to leave its place, to
    /// the block before it.
    pub(super) fn step_positions_past(&mut self, f: u32) {
        let prev = self.frames[f as usize].prev;
        if self.lru_hp == f {
            self.lru_hp = prev;
        }
        if self.lru_scan_itr == f {
            self.lru_scan_itr = prev;
        }
    }

    /// [`Boundary::MoveFlagged`]: the flagged young block `f` goes to the
    /// head with its flag cleared, without touching the old sublist's
    /// length; the two scan positions step past it as
    /// `buf_pool_t::LRU_remove()` makes them. Unlike a sweep's move it
    /// keeps the stamp (`buf_page_t::keep_young_at_boundary()`), so that
    /// if the block crosses into the old sublist later, unflagged, its next
    /// access there flags it at once; only a stamp more than half the
    /// 16-bit range behind is brought forward to half the range.
    pub(super) fn move_flagged_to_head(&mut self, f: u32) {
        self.step_positions_past(f);
        self.unlink(f);
        self.push_front(f);
        let now = self.access_clock;
        let rule = self.cfg.young_touch;
        let frame = &mut self.frames[f as usize];
        frame.promote = false;
        frame.moved = true;
        frame.spend_lookup_mark(rule);
        frame.access_s = kept_stamp(frame.access_s, now);
        self.counters.boundary_moves += 1;
    }

    /// `buf_LRU_old_init()` (buf/buf0lru.cc:505-529)
    pub(super) fn old_init(&mut self) {
        debug_assert_eq!(self.lru_len, OLD_MIN_LEN);
        let mut f = self.lru_tail;
        while f != NIL {
            self.frames[f as usize].old = true;
            f = self.frames[f as usize].prev;
        }
        self.lru_old = self.lru_head;
        self.lru_old_len = self.lru_len;
        self.old_held = 0;
        self.old_adjust_len();
    }

    /// `buf_LRU_add_block()` (buf/buf0lru.cc:636-696; the stamp at :650)
    pub(crate) fn add_block(&mut self, f: u32, old: bool) {
        if !old || self.lru_len < OLD_MIN_LEN {
            self.push_front(f);
            // The lazy policy has no such field; its clock never ticks, so the stamp stays 0.
            self.frames[f as usize].freed_page_clock =
                self.freed_page_clock & decide::FREED_PAGE_CLOCK_MASK;
        } else {
            self.insert_after(self.lru_old, f);
            self.lru_old_len += 1;
        }
        if self.lru_len > OLD_MIN_LEN {
            self.frames[f as usize].old = old;
            self.old_adjust_len();
        } else if self.lru_len == OLD_MIN_LEN {
            self.old_init();
        } else {
            self.frames[f as usize].old = self.lru_old != NIL;
        }
    }

    /// `buf_LRU_remove_block()` (buf/buf0lru.cc:550-608) with the hazard-pointer
    /// adjustment of `buf_pool_t::LRU_remove()` (include/buf0buf.h:1546-1558).
    pub(crate) fn remove_block(&mut self, f: u32) {
        let prev = self.frames[f as usize].prev;
        self.step_positions_past(f);
        self.unlink(f);
        if f == self.lru_old {
            // the tolerance keeps LRU_old away from the head, so prev exists
            self.lru_old = prev;
            self.frames[prev as usize].old = true;
            self.lru_old_len += 1;
        }
        if self.lru_len < OLD_MIN_LEN {
            // Only the blocks from LRU_old to the tail are old (P: the loop starts at LRU_old;
            // 10.11 walks the whole list to the same effect).
            let mut b = self.lru_old;
            while b != NIL {
                self.frames[b as usize].old = false;
                b = self.frames[b as usize].next;
            }
            self.lru_old = NIL;
            self.lru_old_len = 0;
            return;
        }
        if self.frames[f as usize].old {
            self.lru_old_len -= 1;
        }
        self.old_adjust_len();
    }

    /// `buf_page_make_young()` of 10.11 (buf/buf0lru.cc:699-715) without its
    /// mutex, which the caller counts.
    pub(crate) fn move_to_head(&mut self, f: u32) {
        self.remove_block(f);
        self.add_block(f, false);
    }

    pub(super) fn set_time(&mut self, t_ms: u64) -> Result<(), ModelError> {
        if t_ms < self.now_ms {
            return Err(ModelError::TimeWentBack {
                previous_ms: self.now_ms,
                now_ms: t_ms,
            });
        }
        if t_ms != self.now_ms {
            self.now_ms = t_ms;
            // post-fix: refresh_clock() once a tick (P:srv/srv0srv.cc: about
            // once per second); the model refreshes it on every whole tick of
            // the trace's clock.
            self.access_clock =
                decide::lazy_clock_from_secs(t_ms / u64::from(self.cfg.clock_tick_ms));
        }
        Ok(())
    }
}
