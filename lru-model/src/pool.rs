//! The buffer pool: frames, the free list, the LRU list with its old sublist,
//! the hazard pointers of the sweeps, and the operations of a trace.
//!
//! The list maintenance is the same in every policy and follows 10.11.18
//! buf/buf0lru.cc; what differs between policies is behind [`Policy`].
//! References are to MariaDB 10.11.18 `storage/innobase/` unless prefixed
//! with `P:` (the post-fix tree, see [`crate::decide`]).

use std::fmt;
use std::marker::PhantomData;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::decide::{self, YoungTouch};
use crate::policy::{Policy, PolicyKind};

/// `BUF_LRU_OLD_MIN_LEN` (include/buf0lru.h:41): the old sublist exists from this LRU length on.
pub const OLD_MIN_LEN: u32 = 512;
/// `BUF_LRU_OLD_TOLERANCE` (buf/buf0lru.cc:50)
pub const OLD_TOLERANCE: u64 = 20;
/// `BUF_LRU_NON_OLD_MIN_LEN` (buf/buf0lru.cc:55)
pub const NON_OLD_MIN_LEN: u64 = 5;
/// `BUF_LRU_BOUNDARY_MOVES` of patches/10.11/fixed-lookup-boundary.patch:
/// the most flagged blocks one call of `buf_LRU_old_adjust_len()` moves to
/// the head under [`Boundary::MoveFlagged`]
pub const BOUNDARY_MOVES: u32 = 64;
/// `BUF_LRU_MIN_LEN` (include/buf0buf.h:67)
pub const LRU_MIN_LEN: usize = 256;
/// The user thread's first free-block scan looks at this many blocks
/// (`buf_LRU_scan_and_free_block(100)`, buf/buf0lru.cc:406).
pub const USER_SCAN_LIMIT: u32 = 100;

const NIL: u32 = u32::MAX;

/// The server settings the LRU depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Config {
    /// `buf_pool.curr_size()`: frames in the pool
    pub pool_pages: u32,
    /// `innodb_old_blocks_pct`
    pub old_pct: u32,
    /// `innodb_old_blocks_time`, in ms
    pub old_blocks_time_ms: u32,
    /// `innodb_lru_scan_depth`: the free-list target of a page-cleaner LRU batch
    pub lru_scan_depth: u32,
    /// the lazy policy's threshold while the LRU has no old sublist
    pub short_lru: ShortLru,
    /// the lazy policy's `buf_pool.access_clock` tick, in ms: 1000 in the
    /// fix (P:srv/srv0srv.cc `buf_pool_t::now()`), 100 in innodb-lab's
    /// fine-clock remedy (patches/10.11/fixed-fine-clock.md)
    pub clock_tick_ms: u32,
    /// the lazy policy's rule for the age check of a block outside the old
    /// sublist
    pub young_touch: YoungTouch,
    /// what `buf_LRU_old_adjust_len()` does with a flagged block that the
    /// old sublist's boundary is about to take from the new sublist
    pub boundary: Boundary,
    /// what a sweep's move does to the moved block's stamp
    pub move_stamp: MoveStamp,
}

/// What a sweep's move to the head does to the block's stamp (lazy policy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveStamp {
    /// Upstream (P: `buf_page_t::make_young()`): the stamp becomes the
    /// move's tick, so the next flag needs another `innodb_old_blocks_time`.
    #[default]
    Restamp,
    /// innodb-lab's lookup remedy, third form
    /// (patches/10.11/fixed-lookup-boundary.md): the stamp stays, so a moved
    /// block that drifts back to the old sublist unflagged is flagged by its
    /// next access there; a stamp more than half the 16-bit range behind is
    /// brought forward to half the range ([`kept_stamp`]).
    Keep,
}

impl MoveStamp {
    /// Both rules, upstream's first.
    pub const ALL: [MoveStamp; 2] = [MoveStamp::Restamp, MoveStamp::Keep];

    /// The name on the command line and in records (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            MoveStamp::Restamp => "restamp",
            MoveStamp::Keep => "keep",
        }
    }

    /// The stamp of a block that a sweep moves at tick `now`.
    pub fn after_move(self, stamp: u16, now: u16) -> u16 {
        match self {
            MoveStamp::Restamp => now,
            MoveStamp::Keep => kept_stamp(stamp, now),
        }
    }
}

impl std::str::FromStr for MoveStamp {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        decide::rule_named(&MoveStamp::ALL, MoveStamp::name, "move stamp rule", s)
    }
}

/// `buf_page_t::keep_stamp_on_move()` of patches/10.11/fixed-lookup-boundary.patch:
/// the stamp, unless it is more than half the 16-bit clock's range behind
/// `now`, where it is brought forward to half the range (never to 0, which
/// means "never accessed").
pub fn kept_stamp(stamp: u16, now: u16) -> u16 {
    if now.wrapping_sub(stamp) > u16::MAX / 2 {
        now.wrapping_sub(u16::MAX / 2).max(1)
    } else {
        stamp
    }
}

/// What the old sublist's boundary does when it moves toward the head over
/// a block that carries the PROMOTE flag (lazy policy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Boundary {
    /// Upstream (P: `buf_LRU_old_adjust_len()`): the block becomes old like
    /// any other; a sweep moves it when it reaches the tail.
    #[default]
    Upstream,
    /// innodb-lab's boundary rule (patches/10.11/fixed-lookup-boundary.md):
    /// the block is moved to the head instead (`buf_LRU_old_adjust_len()`
    /// holds `buf_pool.mutex`), so a block flagged while young does not
    /// take an old block's room on its way to the tail; at most
    /// [`BOUNDARY_MOVES`] such moves a call, as in the patch.
    MoveFlagged,
}

impl Boundary {
    /// Both rules, upstream's first.
    pub const ALL: [Boundary; 2] = [Boundary::Upstream, Boundary::MoveFlagged];

    /// The name on the command line and in records (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            Boundary::Upstream => "upstream",
            Boundary::MoveFlagged => "move-flagged",
        }
    }
}

impl std::str::FromStr for Boundary {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        decide::rule_named(&Boundary::ALL, Boundary::name, "boundary rule", s)
    }
}

/// What the lazy policy's access path compares with while the LRU is too
/// short for an old sublist (fewer than [`OLD_MIN_LEN`] blocks, as in the
/// 8 MiB pools of mtr), where no block is ever old.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShortLru {
    /// Upstream (P): `innodb_old_blocks_time` applies as usual, so a block
    /// accessed again within it stays unflagged and the sweeps evict the
    /// short LRU in FIFO order.
    #[default]
    Upstream,
    /// Our 10.11 port (patches/10.11/fixed.md): `buf_pool_t::
    /// update_old_threshold()` keeps `LRU_old_threshold` at 0 while
    /// `LRU_old` does not exist, so every access flags the block and a sweep
    /// gives it a second chance, as 10.11's freed_page_clock rule did.
    FlagEveryAccess,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            pool_pages: 8192,
            old_pct: 37,
            old_blocks_time_ms: 1000,
            lru_scan_depth: 1024,
            short_lru: ShortLru::Upstream,
            clock_tick_ms: decide::LAZY_CLOCK_TICK_MS,
            young_touch: YoungTouch::AgeChecked,
            boundary: Boundary::Upstream,
            move_stamp: MoveStamp::Restamp,
        }
    }
}

/// The counters, as the server counts them, plus a few the model adds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// `buf_pool.stat.n_pages_made_young` (Innodb_buffer_pool_pages_made_young)
    pub made_young: u64,
    /// `buf_pool.stat.n_pages_not_made_young` (Innodb_buffer_pool_pages_made_not_young)
    pub not_made_young: u64,
    /// `buf_pool.mutex` acquisitions by `buf_page_make_young()` on the page-access path
    pub access_mutex_acquisitions: u64,
    /// blocks evicted from the LRU tail by a user thread or the page cleaner
    pub evictions: u64,
    /// frames released by `free` events (eager, lazy) or ghost blocks left in the LRU (classic)
    pub frees: u64,
    /// pages read into the pool
    pub reads: u64,
    /// page accesses
    pub accesses: u64,
    /// page-cleaner LRU batches run (by `cleaner` events or for a waiting user thread)
    pub cleaner_batches: u64,
    /// times a user thread found no free block after its scan and waited for the page cleaner
    pub lru_waits: u64,
    /// `buf_pool.mutex` releases inside the lazy LRU batch after every 512 scanned blocks
    pub sweep_mutex_releases: u64,
    /// blocks made young by `buf_LRU_old_adjust_len()` moving the boundary toward the tail
    /// (the way midpoint inserts leak into the young sublist when the list grows)
    pub boundary_made_young: u64,
    /// flagged blocks that the boundary, moving toward the head, moved to
    /// the head instead of making them old ([`Boundary::MoveFlagged`])
    pub boundary_moves: u64,
}

/// A request the model cannot carry out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelError {
    /// `access` or `free` of a page that is not in the pool
    NotResident(u64),
    /// `access` or `free` of a page that was freed; its block is still in the LRU (classic)
    Freed(u64),
    /// `read` of a page that is already in the pool
    AlreadyResident(u64),
    /// a time earlier than the previous one
    TimeWentBack {
        /// the time of the previous event
        previous_ms: u64,
        /// the time of the refused event
        now_ms: u64,
    },
    /// no frame could be freed for a read
    PoolExhausted {
        /// blocks in the LRU list when the read failed
        lru_len: u32,
    },
    /// the configuration cannot describe a buffer pool
    BadConfig(String),
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::NotResident(p) => write!(f, "page {p} is not resident in the buffer pool"),
            ModelError::Freed(p) => write!(f, "page {p} was freed and has not been read again"),
            ModelError::AlreadyResident(p) => write!(f, "page {p} is already resident; it cannot be read again"),
            ModelError::TimeWentBack { previous_ms, now_ms } => {
                write!(f, "t_ms {now_ms} is earlier than the previous t_ms {previous_ms}")
            }
            ModelError::PoolExhausted { lru_len } => write!(
                f,
                "no frame could be freed for a read: the LRU list has {lru_len} blocks and the page cleaner \
                 keeps at least min(pool_pages/20-1, 256); use a larger pool"
            ),
            ModelError::BadConfig(why) => write!(f, "bad configuration: {why}"),
        }
    }
}

impl std::error::Error for ModelError {}

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
}

/// One block descriptor: the fields of `buf_page_t` the LRU uses.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub(crate) page: u64,
    prev: u32,
    next: u32,
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
    /// ([`YoungTouch::LookedUp`])
    pub(crate) looked_up: bool,
    in_lru: bool,
    /// classic only: freed in the tablespace, still in the LRU until evicted
    freed: bool,
}

impl Frame {
    const UNUSED: Frame = Frame {
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
    free: Vec<u32>,
    pages: FxHashMap<u64, u32>,
    lru_head: u32,
    lru_tail: u32,
    lru_len: u32,
    lru_old: u32,
    lru_old_len: u32,
    /// `buf_pool.lru_hp`, the page cleaner's position
    lru_hp: u32,
    /// `buf_pool.lru_scan_itr`, the user threads' position
    lru_scan_itr: u32,
    /// `buf_pool.freed_page_clock` (10.11); never ticks in the lazy policy, which has none
    pub(crate) freed_page_clock: u32,
    pub(crate) old_ratio: u32,
    pub(crate) threshold_ms: u32,
    pub(crate) lazy_threshold: u16,
    now_ms: u64,
    pub(crate) access_clock: u16,
    try_lru_scan: bool,
    pub(crate) counters: Counters,
}

impl PoolState {
    /// Whether `buf_pool.LRU_old` exists: from `OLD_MIN_LEN` blocks on.
    pub(crate) fn has_old_sublist(&self) -> bool {
        self.lru_old != NIL
    }

    fn new(cfg: Config) -> Result<Self, ModelError> {
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

    fn unlink(&mut self, f: u32) {
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

    fn push_front(&mut self, f: u32) {
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

    fn insert_after(&mut self, at: u32, f: u32) {
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

    /// `buf_LRU_old_adjust_len()` (buf/buf0lru.cc:440-501)
    fn old_adjust_len(&mut self) {
        debug_assert_ne!(self.lru_old, NIL);
        let len = u64::from(self.lru_len);
        let new_len = (len * u64::from(self.old_ratio) / decide::OLD_RATIO_DIV)
            .min(len - (OLD_TOLERANCE + NON_OLD_MIN_LEN));
        let mut moves = 0;
        loop {
            let old_len = u64::from(self.lru_old_len);
            let lru_old = self.lru_old;
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
            } else if old_len > new_len + OLD_TOLERANCE {
                self.lru_old = self.frames[lru_old as usize].next;
                self.lru_old_len -= 1;
                self.frames[lru_old as usize].old = false;
                self.counters.boundary_made_young += 1;
            } else {
                return;
            }
        }
    }

    /// The hazard-pointer adjustment of `buf_pool_t::LRU_remove()`
    /// (include/buf0buf.h:1546-1558): the page cleaner's and the user
    /// threads' scan positions step from `f`, about to leave its place, to
    /// the block before it.
    fn step_positions_past(&mut self, f: u32) {
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
    fn move_flagged_to_head(&mut self, f: u32) {
        self.step_positions_past(f);
        self.unlink(f);
        self.push_front(f);
        let now = self.access_clock;
        let frame = &mut self.frames[f as usize];
        frame.promote = false;
        frame.moved = true;
        frame.access_s = kept_stamp(frame.access_s, now);
        self.counters.boundary_moves += 1;
    }

    /// `buf_LRU_old_init()` (buf/buf0lru.cc:505-529)
    fn old_init(&mut self) {
        debug_assert_eq!(self.lru_len, OLD_MIN_LEN);
        let mut f = self.lru_tail;
        while f != NIL {
            self.frames[f as usize].old = true;
            f = self.frames[f as usize].prev;
        }
        self.lru_old = self.lru_head;
        self.lru_old_len = self.lru_len;
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

    fn set_time(&mut self, t_ms: u64) -> Result<(), ModelError> {
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

/// A buffer pool run by one policy.
#[derive(Clone, Debug)]
pub struct BufferPool<P: Policy> {
    pub(crate) s: PoolState,
    _policy: PhantomData<P>,
}

impl<P: Policy> BufferPool<P> {
    /// An empty pool: every frame on the free list.
    pub fn new(cfg: Config) -> Result<Self, ModelError> {
        Ok(BufferPool {
            s: PoolState::new(cfg)?,
            _policy: PhantomData,
        })
    }

    /// The settings.
    pub fn config(&self) -> Config {
        self.s.cfg
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.s.counters
    }

    /// `UT_LIST_GET_LEN(buf_pool.LRU)`
    pub fn lru_len(&self) -> u32 {
        self.s.lru_len
    }

    /// `buf_pool.LRU_old_len`
    pub fn old_len(&self) -> u32 {
        self.s.lru_old_len
    }

    /// `UT_LIST_GET_LEN(buf_pool.free)`
    pub fn free_len(&self) -> u32 {
        self.s.free.len() as u32
    }

    /// `buf_pool.freed_page_clock` (always 0 for the lazy policy)
    pub fn freed_page_clock(&self) -> u32 {
        self.s.freed_page_clock
    }

    /// The time of the last event, in ms.
    pub fn now_ms(&self) -> u64 {
        self.s.now_ms
    }

    /// The resident page ids from the MRU end to the LRU end.
    pub fn lru_pages(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.s.lru_len as usize);
        let mut f = self.s.lru_head;
        while f != NIL {
            out.push(self.s.frames[f as usize].page);
            f = self.s.frames[f as usize].next;
        }
        out
    }

    /// Whether the page is in the pool and not freed.
    pub fn is_resident(&self, page: u64) -> bool {
        self.s
            .pages
            .get(&page)
            .is_some_and(|&f| !self.s.frames[f as usize].freed)
    }

    /// The old flag of a resident page.
    pub fn is_old(&self, page: u64) -> Option<bool> {
        self.s
            .pages
            .get(&page)
            .map(|&f| self.s.frames[f as usize].old)
    }

    /// The LRU fields of a page in the pool (freed classic blocks included).
    pub fn page_state(&self, page: u64) -> Option<PageState> {
        self.s.pages.get(&page).map(|&f| {
            let fr = &self.s.frames[f as usize];
            PageState {
                old: fr.old,
                access_time_ms: fr.access_ms,
                freed_page_clock: fr.freed_page_clock,
                access_time_s: fr.access_s,
                promote: fr.promote,
                freed: fr.freed,
            }
        })
    }

    /// `buf_pool.access_clock` (post-fix), derived from the time of the last event.
    pub fn access_clock(&self) -> u16 {
        self.s.access_clock
    }

    /// The number of blocks carrying the PROMOTE bit (lazy policy), waiting for a sweep.
    pub fn promote_pending(&self) -> u64 {
        self.s
            .frames
            .iter()
            .filter(|f| f.in_lru && f.promote)
            .count() as u64
    }

    /// Advance the clock; times must never decrease.
    pub fn set_time(&mut self, t_ms: u64) -> Result<(), ModelError> {
        self.s.set_time(t_ms)
    }

    fn resident_frame(&self, page: u64) -> Result<u32, ModelError> {
        match self.s.pages.get(&page) {
            None => Err(ModelError::NotResident(page)),
            Some(&f) if self.s.frames[f as usize].freed => Err(ModelError::Freed(page)),
            Some(&f) => Ok(f),
        }
    }

    /// `read`: a page not in the pool is read into a frame and added to the
    /// old sublist, as `buf_page_init_for_read()` does (buf/buf0rea.cc:118-166).
    /// It is not accessed: an `access` follows when the reader uses it.
    pub fn read(&mut self, page: u64) -> Result<(), ModelError> {
        if let Some(&f) = self.s.pages.get(&page) {
            let fr = &mut self.s.frames[f as usize];
            if !fr.freed {
                return Err(ModelError::AlreadyResident(page));
            }
            // classic: the freed page's block was still in the pool and is found there
            fr.freed = false;
            self.s.counters.reads += 1;
            return Ok(());
        }
        let f = self.get_free_block()?;
        let fr = &mut self.s.frames[f as usize];
        // buf_page_t::init() (include/buf0buf.h:614-627; P: init() and zip.clear())
        *fr = Frame {
            page,
            ..Frame::UNUSED
        };
        self.s.pages.insert(page, f);
        self.s.add_block(f, true);
        self.s.counters.reads += 1;
        Ok(())
    }

    /// `create`: a new page gets a frame at the head of the LRU, as
    /// `buf_page_create_low()` adds it (`buf_LRU_add_block(bpage, false)`);
    /// no read is counted.
    pub fn create(&mut self, page: u64) -> Result<(), ModelError> {
        if let Some(&f) = self.s.pages.get(&page) {
            let fr = &mut self.s.frames[f as usize];
            if !fr.freed {
                return Err(ModelError::AlreadyResident(page));
            }
            // classic: the freed page's block is still in the pool
            fr.freed = false;
            return Ok(());
        }
        let f = self.get_free_block()?;
        self.s.frames[f as usize] = Frame {
            page,
            ..Frame::UNUSED
        };
        self.s.pages.insert(page, f);
        self.s.add_block(f, false);
        Ok(())
    }

    /// `access`: a B-tree leaf access to a resident page; returns whether it was not the first access.
    pub fn access(&mut self, page: u64) -> Result<bool, ModelError> {
        let f = self.resident_frame(page)?;
        self.s.counters.accesses += 1;
        Ok(P::access(&mut self.s, f))
    }

    /// `lookup`: an access by a search from the root of an index (or an
    /// adaptive hash index hit) to a resident page; returns whether it was
    /// not the first access.
    pub fn lookup(&mut self, page: u64) -> Result<bool, ModelError> {
        let f = self.resident_frame(page)?;
        self.s.counters.accesses += 1;
        Ok(P::lookup(&mut self.s, f))
    }

    /// `free`: the page is freed in its tablespace and released as the policy releases freed pages.
    pub fn free(&mut self, page: u64) -> Result<(), ModelError> {
        let f = self.resident_frame(page)?;
        self.s.counters.frees += 1;
        if P::FREE_RELEASES_FRAME {
            // P: buf_do_flush_list_batch() visits the freed block before
            // buf_page_t::flush() releases it; a no-op for the eager policy.
            P::sweep_visit::<false, true>(&mut self.s, f);
            self.remove_hashed(f);
        } else {
            self.s.frames[f as usize].freed = true;
        }
        Ok(())
    }

    /// `buf_LRU_free_page()` of a clean, unfixed block: `buf_LRU_block_remove_hashed()`
    /// (buf/buf0lru.cc:1002-1114, the clock tick at :1011) and
    /// `buf_LRU_block_free_non_file_page()` (the block goes first in `buf_pool.free`).
    fn remove_hashed(&mut self, f: u32) {
        if P::HAS_FREED_PAGE_CLOCK {
            self.s.freed_page_clock = self.s.freed_page_clock.wrapping_add(1);
        }
        self.s.remove_block(f);
        let page = self.s.frames[f as usize].page;
        self.s.pages.remove(&page);
        self.s.frames[f as usize] = Frame::UNUSED;
        self.s.free.push(f);
        self.s.try_lru_scan = true;
    }

    fn evict(&mut self, f: u32) {
        self.remove_hashed(f);
        self.s.counters.evictions += 1;
    }

    /// `buf_LRU_get_free_block()` (buf/buf0lru.cc:346-436; P: the same function).
    fn get_free_block(&mut self) -> Result<u32, ModelError> {
        if let Some(f) = self.s.free.pop() {
            return Ok(f);
        }
        if self.s.try_lru_scan {
            if self.free_from_common_lru_list(USER_SCAN_LIMIT) {
                if let Some(f) = self.s.free.pop() {
                    return Ok(f);
                }
            }
            // tell other threads that there is no point in scanning the LRU list
            self.s.try_lru_scan = false;
        }
        // The thread waits on buf_pool.done_free and wakes the page cleaner,
        // whose buf_flush_LRU() batch frees blocks.
        self.s.counters.lru_waits += 1;
        self.cleaner_batch();
        self.s.free.pop().ok_or(ModelError::PoolExhausted {
            lru_len: self.s.lru_len,
        })
    }

    /// `buf_LRU_free_from_common_LRU_list()` (buf/buf0lru.cc:225-261; P: with
    /// `make_young_if_needed<true>()` first): the user thread's scan from
    /// `lru_scan_itr.start()` (include/buf0buf.h:2137-2145).
    fn free_from_common_lru_list(&mut self, limit: u32) -> bool {
        let mut scanned = 0;
        let start = self.s.lru_scan_itr;
        let mut b = if start == NIL || self.s.frames[start as usize].old {
            self.s.lru_tail
        } else {
            start
        };
        self.s.lru_scan_itr = b;
        while b != NIL && scanned < limit {
            self.s.lru_scan_itr = self.s.frames[b as usize].prev;
            if P::sweep_visit::<true, false>(&mut self.s, b) {
                scanned += 1;
                b = self.s.lru_scan_itr;
                continue;
            }
            // every block is clean and unfixed: buf_LRU_free_page() succeeds
            self.evict(b);
            return true;
        }
        false
    }

    /// `cleaner`: one page-cleaner LRU batch, `buf_flush_LRU()` ->
    /// `buf_flush_LRU_list_batch()` (buf/buf0flu.cc:1238-1404; P: with
    /// `make_young_if_needed<true>()` before any state check and a mutex
    /// release every 512 scanned blocks after a move).
    pub fn cleaner_batch(&mut self) {
        self.s.counters.cleaner_batches += 1;
        let free_limit = self.s.cfg.lru_scan_depth as usize;
        let min_len = (self.s.cfg.pool_pages as usize / 20)
            .wrapping_sub(1)
            .min(LRU_MIN_LEN);
        let mut scanned: u64 = 0;
        let mut evicted = 0;
        let mut b = self.s.lru_tail;
        while b != NIL && self.s.lru_len as usize > min_len && self.s.free.len() < free_limit {
            self.s.lru_hp = self.s.frames[b as usize].prev;
            if P::sweep_visit::<true, false>(&mut self.s, b) {
                if scanned != 0 && scanned & 511 == 0 {
                    self.s.counters.sweep_mutex_releases += 1;
                }
            } else {
                self.evict(b);
                evicted += 1;
            }
            scanned += 1;
            b = self.s.lru_hp;
        }
        self.s.lru_hp = NIL;
        if evicted != 0 {
            self.s.try_lru_scan = true;
        }
    }

    /// Check the invariants of the lists; returns what is wrong.
    pub fn check_invariants(&self) -> Result<(), String> {
        let s = &self.s;
        let mut seen = vec![0u8; s.frames.len()];
        for &f in &s.free {
            seen[f as usize] += 1;
            if s.frames[f as usize].in_lru {
                return Err(format!(
                    "frame {f} is on the free list and flagged in the LRU"
                ));
            }
        }
        let (mut len, mut old_len, mut prev, mut f) = (0u32, 0u32, NIL, s.lru_head);
        let mut first_old = NIL;
        while f != NIL {
            let fr = &s.frames[f as usize];
            seen[f as usize] += 1;
            if fr.prev != prev {
                return Err(format!("frame {f} has a wrong prev link"));
            }
            if fr.old {
                if first_old == NIL {
                    first_old = f;
                }
                old_len += 1;
            } else if first_old != NIL {
                return Err(format!("frame {f} is not old but follows an old block"));
            }
            if s.pages.get(&fr.page) != Some(&f) {
                return Err(format!("page {} of frame {f} is not mapped to it", fr.page));
            }
            len += 1;
            prev = f;
            f = fr.next;
        }
        if prev != s.lru_tail {
            return Err("the LRU tail is wrong".into());
        }
        if let Some(f) = seen.iter().position(|&n| n != 1) {
            return Err(format!(
                "frame {f} is in {} of the free and LRU lists",
                seen[f]
            ));
        }
        if len != s.lru_len || s.pages.len() != len as usize {
            return Err(format!(
                "LRU length {} but {len} linked and {} mapped pages",
                s.lru_len,
                s.pages.len()
            ));
        }
        if old_len != s.lru_old_len || first_old != s.lru_old {
            return Err(format!(
                "old sublist: {old_len} flagged blocks but LRU_old_len {}",
                s.lru_old_len
            ));
        }
        if len >= OLD_MIN_LEN {
            let target = (u64::from(len) * u64::from(s.old_ratio) / decide::OLD_RATIO_DIV)
                .min(u64::from(len) - (OLD_TOLERANCE + NON_OLD_MIN_LEN));
            if u64::from(old_len) + OLD_TOLERANCE < target
                || u64::from(old_len) > target + OLD_TOLERANCE
            {
                return Err(format!(
                    "old_len {old_len} is beyond the tolerance of its target {target}"
                ));
            }
        } else if old_len != 0 {
            return Err(format!(
                "{old_len} old blocks in a list shorter than {OLD_MIN_LEN}"
            ));
        }
        Ok(())
    }
}

/// A pool behind an object-safe interface, for callers that choose the policy at run time.
pub trait LruModel {
    /// Which policy runs the pool.
    fn policy(&self) -> PolicyKind;
    /// Apply one trace event.
    fn apply(&mut self, event: &crate::Event) -> Result<(), ModelError>;
    /// The counters so far.
    fn counters(&self) -> Counters;
    /// `UT_LIST_GET_LEN(buf_pool.LRU)`
    fn lru_len(&self) -> u32;
    /// `buf_pool.LRU_old_len`
    fn old_len(&self) -> u32;
    /// `UT_LIST_GET_LEN(buf_pool.free)`
    fn free_len(&self) -> u32;
    /// The resident page ids from the MRU end to the LRU end.
    fn lru_pages(&self) -> Vec<u64>;
    /// Whether the page is resident and not freed.
    fn is_resident(&self, page: u64) -> bool;
    /// The old flag of a resident page.
    fn is_old(&self, page: u64) -> Option<bool>;
    /// Check the list invariants.
    fn check_invariants(&self) -> Result<(), String>;
}

impl<P: Policy> LruModel for BufferPool<P> {
    fn policy(&self) -> PolicyKind {
        P::KIND
    }
    fn apply(&mut self, event: &crate::Event) -> Result<(), ModelError> {
        self.set_time(event.t_ms)?;
        match event.op {
            crate::Op::Read(p) => self.read(p),
            crate::Op::Access(p) => self.access(p).map(|_| ()),
            crate::Op::Lookup(p) => self.lookup(p).map(|_| ()),
            crate::Op::Free(p) => self.free(p),
            crate::Op::Create(p) => self.create(p),
            crate::Op::Cleaner => {
                self.cleaner_batch();
                Ok(())
            }
        }
    }
    fn counters(&self) -> Counters {
        BufferPool::counters(self)
    }
    fn lru_len(&self) -> u32 {
        BufferPool::lru_len(self)
    }
    fn old_len(&self) -> u32 {
        BufferPool::old_len(self)
    }
    fn free_len(&self) -> u32 {
        BufferPool::free_len(self)
    }
    fn lru_pages(&self) -> Vec<u64> {
        BufferPool::lru_pages(self)
    }
    fn is_resident(&self, page: u64) -> bool {
        BufferPool::is_resident(self, page)
    }
    fn is_old(&self, page: u64) -> Option<bool> {
        BufferPool::is_old(self, page)
    }
    fn check_invariants(&self) -> Result<(), String> {
        BufferPool::check_invariants(self)
    }
}
