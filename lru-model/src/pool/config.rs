//! What a pool is set up with (its size, its rules, the knobs of the
//! server it models), the constants of 10.11.18's LRU, the counters a run
//! keeps, and the errors a trace can meet.

use std::fmt;

use serde::Serialize;

use crate::decide::{self, YoungTouch};

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

pub(super) const NIL: u32 = u32::MAX;

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
    /// how far the old sublist may outgrow its target before
    /// `buf_LRU_old_adjust_len()` moves the boundary toward the tail
    pub old_surplus: OldSurplus,
    /// who frees blocks when a read finds the free list empty
    pub free_blocks: FreeBlocks,
    /// when the page cleaner's LRU batch runs besides cleaner events and
    /// waits for a free block
    pub cleaner_wakeup: CleanerWakeup,
}

/// When the page cleaner runs its LRU batch (under
/// [`FreeBlocks::Cleaner`]), besides the trace's `cleaner` events and a
/// read's wait for a free block. Not a rule of a tree (10.11.18 and 11.8.6
/// both wake their cleaner early) but how faithfully a trace's schedule
/// follows the server's. The oracle runs the tree's batch at the same
/// moments (its glue's `page_cleaner_wakeup()`, called by the tree's own
/// `buf_LRU_get_free_block()` under the tree's condition), so it checks
/// both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CleanerWakeup {
    /// Only on `cleaner` events (simulations: once a second) and waits.
    #[default]
    Scheduled,
    /// Also whenever a read or a creation takes a free block and leaves
    /// fewer than `innodb_lru_scan_depth / 2` with an LRU longer than
    /// `BUF_LRU_MIN_LEN`: `buf_LRU_get_free_block()` wakes the page cleaner
    /// then (10.11.18 buf/buf0lru.cc:362-380), whose batch
    /// (`buf_pool_t::need_LRU_eviction()`) refills the free list to
    /// `innodb_lru_scan_depth`; the model runs that batch at once. The free
    /// list, and with it the LRU's length, then swings by about half the
    /// scan depth instead of all of it between scheduled batches.
    Early,
}

impl CleanerWakeup {
    /// Every rule, for checks that try each.
    pub const ALL: [CleanerWakeup; 2] = [CleanerWakeup::Scheduled, CleanerWakeup::Early];

    /// The name on the command line: `scheduled`, `early`.
    pub fn name(self) -> &'static str {
        match self {
            CleanerWakeup::Scheduled => "scheduled",
            CleanerWakeup::Early => "early",
        }
    }
}

impl std::str::FromStr for CleanerWakeup {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        decide::rule_named(
            &CleanerWakeup::ALL,
            CleanerWakeup::name,
            "page-cleaner wake-up",
            s,
        )
    }
}

/// `innodb_lru_flush_size`'s default (10.5: buf/buf0lru.cc:43,
/// handler/ha_innodb.cc): the most blocks a 10.5 reader's own LRU flush
/// frees.
pub const LRU_FLUSH_SIZE: u32 = 32;

/// Who frees blocks when a read finds the free list empty, and what a
/// page-cleaner event does (every policy).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FreeBlocks {
    /// 10.6 on (as in 10.11.18 buf/buf0lru.cc `buf_LRU_get_free_block()`):
    /// the reader wakes the page cleaner and waits; the cleaner's LRU batch
    /// (`buf_flush_LRU()`, also run by a cleaner event) frees blocks from
    /// the tail until the free list holds `innodb_lru_scan_depth`.
    #[default]
    Cleaner,
    /// 10.5 (10.5: buf/buf0lru.cc:402-516, buf/buf0flu.cc:1287-1396 and
    /// 1737-1766): the reader runs `buf_flush_LRU(innodb_lru_flush_size)`
    /// itself, freeing at most `lru_flush_size` blocks from the tail while
    /// the free list is shorter than `innodb_lru_scan_depth` and the LRU
    /// longer than `BUF_LRU_MIN_LEN`; a reader that still finds none then
    /// scans the whole LRU list. 10.5's page cleaner runs no LRU batch, so
    /// a cleaner event does nothing.
    ReaderFlush {
        /// `innodb_lru_flush_size`
        lru_flush_size: u32,
    },
}

impl FreeBlocks {
    /// 10.5's rule with `innodb_lru_flush_size` at its default.
    pub const READER_FLUSH: FreeBlocks = FreeBlocks::ReaderFlush {
        lru_flush_size: LRU_FLUSH_SIZE,
    };

    /// The name on the command line and in messages: `cleaner`,
    /// `reader-flush-32`.
    pub fn name(self) -> String {
        match self {
            FreeBlocks::Cleaner => "cleaner".into(),
            FreeBlocks::ReaderFlush { lru_flush_size } => format!("reader-flush-{lru_flush_size}"),
        }
    }
}

impl std::str::FromStr for FreeBlocks {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let size = s.strip_prefix("reader-flush-").map(str::parse::<u32>);
        match (s, size) {
            ("cleaner", _) => Ok(FreeBlocks::Cleaner),
            (_, Some(Ok(lru_flush_size))) if lru_flush_size > 0 => {
                Ok(FreeBlocks::ReaderFlush { lru_flush_size })
            }
            _ => Err(format!(
                "`{s}` is no free-block rule: `cleaner` (10.6 on) or `reader-flush-N` \
                 (10.5, N = innodb_lru_flush_size, at least 1)"
            )),
        }
    }
}

/// What `buf_LRU_old_adjust_len()` does when the old sublist is longer than
/// its target (every policy).
///
/// A read is inserted at the old sublist's head, so the old sublist grows by
/// one block for every read and its target by only `old_pct`% of one: while
/// the list grows (the reads that take the blocks a page-cleaner batch put
/// on the free list), the boundary steps toward the tail about five times
/// in eight reads, and each step makes young the block at the old
/// sublist's head, most often a page just read. That is how a scanned
/// table's pages enter the young sublist in seed 001.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OldSurplus {
    /// Upstream (P: `buf_LRU_old_adjust_len()`, `BUF_LRU_OLD_TOLERANCE`):
    /// the boundary moves as soon as the old sublist is more than the
    /// tolerance over its target.
    #[default]
    Upstream,
    /// innodb-lab's leak remedy (patches/mysql-9.7/old-surplus.md): the
    /// old sublist may be up to [`OldSurplus::allowance`] over its target
    /// (what one page-cleaner batch can free); evictions from the tail,
    /// which take old blocks, bring it back. A refill then makes no block
    /// young, and the batch before it makes no young block old.
    Hold,
    /// [`OldSurplus::Hold`]'s surplus gained only where the boundary would
    /// step over a block not accessed since its read (a read-ahead's page
    /// that its scan has not reached yet): there it stops, and the blocks
    /// the old sublist then holds over upstream's bound stay held, whatever
    /// is accessed later, until evictions take them back. A page a reader
    /// asked for is accessed as soon as it is read, so under point reads
    /// nothing is held and the boundary moves as upstream's does. (Holding
    /// only while the old sublist's first block is unaccessed is not
    /// enough: once the scan reaches it, the boundary steps over the whole
    /// surplus at once, over the scan's pages.)
    HoldUnaccessed,
}

impl OldSurplus {
    /// Every rule, upstream's first.
    pub const ALL: [OldSurplus; 3] = [
        OldSurplus::Upstream,
        OldSurplus::Hold,
        OldSurplus::HoldUnaccessed,
    ];

    /// The name on the command line and in records (as serialized).
    pub fn name(self) -> &'static str {
        match self {
            OldSurplus::Upstream => "upstream",
            OldSurplus::Hold => "hold",
            OldSurplus::HoldUnaccessed => "hold-unaccessed",
        }
    }

    /// Whether the surplus may grow to hold the boundary at the block at
    /// the old sublist's head (`accessed`: whether it has been accessed
    /// since it was read).
    pub fn holds_at(self, accessed: bool) -> bool {
        match self {
            OldSurplus::Upstream => false,
            OldSurplus::Hold => true,
            OldSurplus::HoldUnaccessed => !accessed,
        }
    }

    /// Blocks the old sublist may hold over its target plus the tolerance
    /// in an LRU list of `lru_len` blocks: `innodb_lru_scan_depth`, at most
    /// an eighth of the list, so that the new sublist keeps at least half
    /// of it at the default `innodb_old_blocks_pct`.
    pub fn allowance(self, lru_scan_depth: u32, lru_len: u32) -> u64 {
        match self {
            OldSurplus::Upstream => 0,
            OldSurplus::Hold | OldSurplus::HoldUnaccessed => {
                u64::from(lru_scan_depth.min(lru_len / 8))
            }
        }
    }
}

impl std::str::FromStr for OldSurplus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        decide::rule_named(&OldSurplus::ALL, OldSurplus::name, "old surplus rule", s)
    }
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
            old_surplus: OldSurplus::Upstream,
            free_blocks: FreeBlocks::Cleaner,
            cleaner_wakeup: CleanerWakeup::Scheduled,
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
