//! The buffer pool: frames, the free list, the LRU list with its old sublist,
//! the hazard pointers of the sweeps, and the operations of a trace.
//!
//! The list maintenance is the same in every policy and follows 10.11.18
//! buf/buf0lru.cc; what differs between policies is behind [`Policy`].
//! References are to MariaDB 10.11.18 `storage/innobase/` unless prefixed
//! with `P:` (the post-fix tree, see [`crate::decide`]).

mod config;
mod state;

pub use config::{
    kept_stamp, Boundary, CleanerWakeup, Config, Counters, FreeBlocks, ModelError, MoveStamp,
    OldSurplus, ShortLru, BOUNDARY_MOVES, LRU_FLUSH_SIZE, OLD_MIN_LEN,
};
pub use state::{PageState, PoolState};

use std::marker::PhantomData;

use crate::policy::{Policy, PolicyKind};
use config::*;
use state::Frame;

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
                looked_up: fr.looked_up,
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
    /// `buf_page_create_low()` adds it (`buf_LRU_add_block(bpage, false)`),
    /// and is accessed as that function accesses it
    /// ([`Policy::create_access`]); no read is counted.
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
        P::create_access(&mut self.s, f);
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
        if let FreeBlocks::ReaderFlush { lru_flush_size } = self.s.cfg.free_blocks {
            return self.get_free_block_10_5(lru_flush_size);
        }
        if let Some(f) = self.s.free.pop() {
            return Ok(self.got_block(f));
        }
        if self.s.try_lru_scan {
            if self.free_from_common_lru_list(USER_SCAN_LIMIT) {
                if let Some(f) = self.s.free.pop() {
                    return Ok(self.got_block(f));
                }
            }
            // tell other threads that there is no point in scanning the LRU list
            self.s.try_lru_scan = false;
        }
        // The thread waits on buf_pool.done_free and wakes the page cleaner,
        // whose buf_flush_LRU() batch frees blocks.
        self.s.counters.lru_waits += 1;
        self.cleaner_batch();
        let f = self.s.free.pop().ok_or(ModelError::PoolExhausted {
            lru_len: self.s.lru_len,
        })?;
        Ok(self.got_block(f))
    }

    /// `got_block:` of `buf_LRU_get_free_block()` (10.11.18 buf/buf0lru.cc:362-380):
    /// with fewer than `innodb_lru_scan_depth / 2` blocks left free and an
    /// LRU longer than `BUF_LRU_MIN_LEN` the page cleaner is woken; under
    /// [`CleanerWakeup::Early`] its batch runs at once.
    fn got_block(&mut self, f: u32) -> u32 {
        if self.s.cfg.cleaner_wakeup == CleanerWakeup::Early
            && self.s.free.len() < (self.s.cfg.lru_scan_depth / 2) as usize
            && self.s.lru_len as usize > LRU_MIN_LEN
        {
            self.cleaner_batch();
        }
        f
    }

    /// 10.5's `buf_LRU_get_free_block()` (10.5: buf/buf0lru.cc:402-516):
    /// the first try scans 100 blocks from the tail (if a scan may help),
    /// then the reader's own `buf_flush_LRU(innodb_lru_flush_size)` frees
    /// blocks and counts a wait; every later try scans the whole list
    /// first.
    fn get_free_block_10_5(&mut self, lru_flush_size: u32) -> Result<u32, ModelError> {
        let mut n_iterations = 0u32;
        loop {
            if let Some(f) = self.s.free.pop() {
                return Ok(f);
            }
            if n_iterations > 0 || self.s.try_lru_scan {
                let limit = if n_iterations > 0 {
                    u32::MAX
                } else {
                    USER_SCAN_LIMIT
                };
                if self.free_from_common_lru_list(limit) {
                    continue;
                }
                self.s.try_lru_scan = false;
            }
            if n_iterations > 0 && self.s.lru_len == 0 {
                // the server would loop for ever; the model says why
                return Err(ModelError::PoolExhausted {
                    lru_len: self.s.lru_len,
                });
            }
            // buf_flush_LRU() (10.5: buf/buf0flu.cc:1737-1766)
            self.lru_batch(LRU_MIN_LEN, lru_flush_size as usize);
            self.s.try_lru_scan = true;
            n_iterations += 1;
            self.s.counters.lru_waits += 1;
        }
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
    ///
    /// Under [`FreeBlocks::ReaderFlush`] (10.5) the page cleaner runs no LRU
    /// batch: nothing happens.
    pub fn cleaner_batch(&mut self) {
        if self.s.cfg.free_blocks != FreeBlocks::Cleaner {
            return;
        }
        self.s.counters.cleaner_batches += 1;
        let min_len = (self.s.cfg.pool_pages as usize / 20)
            .wrapping_sub(1)
            .min(LRU_MIN_LEN);
        self.lru_batch(min_len, usize::MAX);
    }

    /// `buf_flush_LRU_list_batch()` over clean blocks: from the tail, while
    /// the LRU is longer than `min_len`, the free list shorter than
    /// `innodb_lru_scan_depth` and fewer than `max` blocks were evicted.
    fn lru_batch(&mut self, min_len: usize, max: usize) {
        let free_limit = self.s.cfg.lru_scan_depth as usize;
        let mut scanned: u64 = 0;
        let mut evicted = 0;
        let mut b = self.s.lru_tail;
        while b != NIL
            && self.s.lru_len as usize > min_len
            && self.s.free.len() < free_limit
            && evicted < max
        {
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
            let target = s.old_len_target();
            if u64::from(old_len) + OLD_TOLERANCE < target
                || u64::from(old_len) > s.old_len_most(target)
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
