/* The oracle's glue for a tree of 10.11's read path (10.6 up to 11.4),
   before the MDEV-33966 fix or, with ORACLE_POST_FIX, with our port of it
   (patches/10.11/fixed.patch): the tree's own buf0lru.cc (compiled whole, apart), the
   definitions build.rs copied from buf0flu.cc, buf0buf.cc and buf0rea.cc,
   the server's globals they read, stubs, and the events of a trace over a
   small pool of our own making. Compiled with the server's flags for
   buf0lru.cc. Every function here runs in one thread at a time (the Rust
   side holds a process-wide lock). */
#include "univ.i"
#include "buf0buf.h"
#include "buf0lru.h"
#include "buf0flu.h"
#include "buf0rea.h"
#include "buf0buddy.h"
#include "ibuf0ibuf.h"
#include "mtr0mtr.h"
#include "log0recv.h"
#include "srv0srv.h"
#include "fil0fil.h"
#include "srv0mon.h"
#include "btr0sea.h"
#include "page0zip.h"
#include "log.h"
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <cstdarg>
#include <new>
#include "my_cpu.h"

#include "oracle_common.h"

/* Definitions the server makes elsewhere (buf0buf.cc, buf0flu.cc). */
buf_pool_t buf_pool;
ulint buf_lru_flush_page_count;
ulint buf_lru_freed_page_count;

/* The dirty-page paths of the LRU batch: our pages are never modified. */
static std::pair<fil_space_t*, uint32_t> buf_flush_space(const uint32_t)
  noexcept
{ oracle_unreachable("buf_flush_space (a dirty page in an LRU batch)"); }
static void buf_flush_discard_page(buf_page_t *) noexcept
{ oracle_unreachable("buf_flush_discard_page"); }
static ulint buf_flush_try_neighbors(fil_space_t *, const page_id_t,
                                     buf_page_t *, bool, ulint, ulint) noexcept
{ oracle_unreachable("buf_flush_try_neighbors"); }

/* The compressed-page path of buf_page_create_low(). */
static void buf_relocate(buf_page_t *, buf_page_t *) noexcept
{ oracle_unreachable("buf_relocate (ROW_FORMAT=COMPRESSED)"); }

#include "copied_types.inc"
;
#include "copied.inc"

/* ---- the server's globals this code reads ---- */
decltype(have_transactional_memory) have_transactional_memory;
decltype(srv_max_io_capacity) srv_max_io_capacity= 2000;

void buf_pool_t::print_flush_info() const noexcept {}

/* ---- paths our events must not reach ---- */
int psi_mutex_lock(mysql_mutex_t *, const char *, uint)
{ oracle_unreachable("psi_mutex_lock (an instrumented mutex)"); }
#ifdef ORACLE_READ_11_8
int psi_mutex_trylock(mysql_mutex_t *, const char *, uint)
{ oracle_unreachable("psi_mutex_trylock (an instrumented mutex)"); }
byte *buf_buddy_alloc_low(ulint, bool *) noexcept
{ oracle_unreachable("buf_buddy_alloc_low (ROW_FORMAT=COMPRESSED)"); }
/* buf0lru.cc's paths for a tablespace being dropped or a corrupted page */
buf_block_t *buf_page_get_gen(const page_id_t, ulint, rw_lock_type_t,
                              buf_block_t *, ulint, mtr_t *, dberr_t *) noexcept
{ oracle_unreachable("buf_page_get_gen"); }
void mtr_t::start() { oracle_unreachable("mtr_t::start"); }
void mtr_t::commit() { oracle_unreachable("mtr_t::commit"); }
/* fil_system zeroed, never constructed: no tablespace is ever looked up */
alignas(fil_system_t) unsigned char oracle_fil_system[sizeof(fil_system_t)]
  __asm__("fil_system") __attribute__((used));
/* the mtr_t of buf_page_create_low()'s caller is constructed here without
   a transaction and never started */
mtr_t::mtr_t(trx_t *trx) : trx(trx) {}
#else
inline uint32_t buf_pool_t::watch_remove(buf_page_t *, hash_chain &) noexcept
{ oracle_unreachable("buf_pool_t::watch_remove (a watch sentinel)"); }
/* buf_page_init_for_read() constructs an mtr_t that only the change
   buffer's read-ahead (BUF_READ_IBUF_PAGES_ONLY) starts */
mtr_t::mtr_t() {}
#endif
mtr_t::~mtr_t() {}
void mem_heap_block_free(mem_heap_t *, mem_block_t *)
{ oracle_unreachable("mem_heap_block_free (an mtr_t that was used)"); }
void mem_heap_free_block_free(mem_heap_t *)
{ oracle_unreachable("mem_heap_free_block_free (an mtr_t that was used)"); }
void my_free(void *p) { free(p); }
/* buf_page_create_low() asks the change buffer to drop what it holds for a
   page it creates, which can read the change buffer's bitmap page even when
   the buffer is empty (ibuf0ibuf.cc): an access of another page, which a
   trace carries as an event of its own if at all; the oracle has no change
   buffer and skips it. */
dberr_t ibuf_merge_or_delete_for_page(buf_block_t *, const page_id_t, ulint)
{ return DB_SUCCESS; }
template<> void srw_mutex_impl<true>::wait_and_lock() noexcept
{ oracle_unreachable("srw_mutex_impl::wait_and_lock (a contended latch)"); }
template<> void srw_mutex_impl<true>::wake() noexcept
{ oracle_unreachable("srw_mutex_impl::wake (a contended latch)"); }
template<> void ssux_lock_impl<true>::wr_wait(uint32_t) noexcept
{ oracle_unreachable("ssux_lock_impl::wr_wait (a contended latch)"); }
void buf_buddy_free_low(void *, ulint) noexcept
{ oracle_unreachable("buf_buddy_free_low (ROW_FORMAT=COMPRESSED)"); }
bool buf_pool_t::withdraw(buf_page_t &) noexcept
{ oracle_unreachable("buf_pool_t::withdraw (a shrinking pool)"); }
void buf_pool_t::delete_from_flush_list(buf_page_t *) noexcept
{ oracle_unreachable("buf_pool_t::delete_from_flush_list (a dirty page)"); }
void buf_flush_relocate_on_flush_list(buf_page_t *, buf_page_t *) noexcept
{ oracle_unreachable("buf_flush_relocate_on_flush_list"); }
void small_vector_base::grow_by_1(void *, size_t) noexcept
{ oracle_unreachable("small_vector_base::grow_by_1 (an mtr_t memo of many latches)"); }
#ifdef ORACLE_READ_11_8
void btr_search_drop_page_hash_index(buf_block_t *, const dict_index_t *)
  noexcept
#else
void btr_search_drop_page_hash_index(buf_block_t *, bool)
#endif
{ oracle_unreachable("btr_search_drop_page_hash_index (the adaptive hash)"); }

/* ---- the clock and the page cleaner, driven by the events ---- */
#ifdef ORACLE_POST_FIX
/* buf_pool_t::now() reads the access clock's seconds from it */
ulonglong my_interval_timer() { return ulonglong{oracle_now_ms} * 1000000; }
#endif

static ulint oracle_waits_seen;

/* Whether a wake-up with a block in hand runs the batch too
   (lru_model::CleanerWakeup::Early): set by the Rust side from the model's
   pool before each run. */
static bool oracle_wake_early;
extern "C" void oracle_set_cleaner_wakeup(bool early)
{
  oracle_wake_early= early;
}

/* buf_LRU_get_free_block() wakes the page cleaner after counting a wait
   (buf_pool.stat.LRU_waits) when no block is free, and, with a block in
   hand, when fewer than innodb_lru_scan_depth / 2 are left free (its
   got_block: path, under the tree's own condition). The oracle runs the
   cleaner's batch at once, in the waking thread, which holds
   buf_pool.mutex as the cleaner would: after a wait always; with a block in
   hand only when the model's pool is given the early wake-up, for the
   trace's own `cleaner` events are otherwise the batches that run then. */
void buf_pool_t::page_cleaner_wakeup(bool) noexcept
{
  if (stat.LRU_waits == oracle_waits_seen && !oracle_wake_early)
    return;
  oracle_waits_seen= stat.LRU_waits;
  buf_flush_LRU(srv_max_io_capacity);
}

/* The wait that follows: the batch above has broadcast done_free already. */
extern "C" int __real_pthread_cond_timedwait(pthread_cond_t*, pthread_mutex_t*,
                                             const struct timespec*);
extern "C" int __wrap_pthread_cond_timedwait(pthread_cond_t *c,
                                             pthread_mutex_t *m,
                                             const struct timespec *t)
{
  if (c == &buf_pool.done_free)
    return 0;
  return __real_pthread_cond_timedwait(c, m, t);
}

/* ---- the pool: buf_pool_t::create() in small, our own memory ---- */
struct oracle_tag_n_blocks { typedef size_t buf_pool_t::*type;
                             friend type oracle_get(oracle_tag_n_blocks); };
template struct oracle_rob<oracle_tag_n_blocks, &buf_pool_t::n_blocks>;
struct oracle_tag_to_withdraw { typedef size_t buf_pool_t::*type;
                                friend type oracle_get(oracle_tag_to_withdraw); };
template struct oracle_rob<oracle_tag_to_withdraw,
                        &buf_pool_t::n_blocks_to_withdraw>;

extern "C" int oracle_init(uint64_t n_blocks, uint64_t lru_scan_depth,
                           uint32_t old_pct, uint32_t old_threshold_ms)
{
  if (int e= oracle_pool_alloc(n_blocks))
    return e;
  buf_pool.*oracle_get(oracle_tag_n_blocks())= n_blocks;
  buf_pool.*oracle_get(oracle_tag_to_withdraw())= 0;
  UT_LIST_INIT(buf_pool.free, &buf_page_t::list);
  for (size_t i= 0; i < n_blocks; i++)
  {
    buf_block_t *block= &oracle_blocks[i];
    block->page.frame= oracle_frames + i * srv_page_size;
    block->page.lock.init();
    UT_LIST_ADD_LAST(buf_pool.free, &block->page);
  }
  /* buf_pool.withdrawn (private) stays as the zeroed global has it: empty */
  oracle_pool_lists(n_blocks);
  buf_pool.try_LRU_scan= true;
  buf_pool.LRU_scan_depth= ulong(lru_scan_depth);
  buf_LRU_old_ratio_update(old_pct, false);
#ifdef ORACLE_POST_FIX
  /* as buf_pool_t::create() ends: the LRU is empty, so LRU_old does not
  exist (update_old_threshold()) */
  buf_pool.set_old_threshold_ms(old_threshold_ms);
  buf_pool.LRU_old_threshold= 0;
  buf_pool.refresh_clock();
#else
  buf_LRU_old_threshold_ms= old_threshold_ms;
#endif
  return 0;
}

/* Back to the state of a process that never called oracle_init(): the
   pool's memory and its page hash released, buf_pool zeroed and constructed
   again as a global is, the counters of this file cleared. */
extern "C" void oracle_reset()
{
  if (!oracle_blocks)
    return;
  oracle_pool_release();
  buf_lru_flush_page_count= 0;
  buf_lru_freed_page_count= 0;
  oracle_waits_seen= 0;
  oracle_wake_early= false;
  oracle_now_ms= 0;
}

/* ---- the events ---- */

static buf_page_t *oracle_find(uint64_t page)
{
  const page_id_t id{oracle_id(page)};
  buf_pool_t::hash_chain &chain= buf_pool.page_hash.cell_get(id.fold());
  return buf_pool.page_hash.get(id, chain);
}

/* The time of the next event. After the fix the access clock is refreshed
   by a timer about once a second; here at every event, from the same
   clock, so that it reads the event's whole second. */
extern "C" void oracle_set_time(uint64_t now_ms)
{
  oracle_now_ms= ulint(now_ms);
#ifdef ORACLE_POST_FIX
  buf_pool.refresh_clock();
#endif
}

/* A page read into the pool (buf_page_init_for_read()) and its read
   completed (the state and latch as buf_page_t::read_complete() leaves them). */
extern "C" int oracle_read(uint64_t page)
{
  if (oracle_find(page))
    return ORACLE_RESIDENT;
#ifdef ORACLE_READ_11_8
  /* buf_read_page(): the block first, then buf_read_page_low() */
  buf_block_t *block= buf_LRU_get_free_block(have_no_mutex);
  const page_id_t id{oracle_id(page)};
  buf_pool_t::hash_chain &chain= buf_pool.page_hash.cell_get(id.fold());
  buf_page_t *bpage= buf_page_init_for_read(id, 0, chain, block);
  if (block)
    buf_pool.free_block(block); /* not consumed */
  if (!bpage || uintptr_t(bpage) & 1)
    return ORACLE_NO_BLOCK;
  /* buf_page_t::read_complete(), then the reader's buffer-fix released */
  bpage->read_unfix(buf_page_t::UNFIXED);
  bpage->lock.x_unlock(true);
  bpage->unfix();
#else
  buf_page_t *bpage= buf_page_init_for_read(BUF_READ_ANY_PAGE,
                                            oracle_id(page), 0, false);
  if (!bpage)
    return ORACLE_NO_BLOCK;
  bpage->read_unfix(buf_page_t::UNFIXED);
  bpage->lock.x_unlock(true);
#endif
  return ORACLE_OK;
}

/* A B-tree leaf access: buf_page_make_young_if_needed() before the fix,
   buf_page_t::touch() after it; a lookup (a search from the root) is
   touch(true) where the tree tells it apart (ORACLE_TOUCH_LOOKUP), the
   same access elsewhere. */
extern "C" int oracle_access(uint64_t page, bool lookup, bool *not_first)
{
  buf_page_t *bpage= oracle_find(page);
  if (!bpage)
    return ORACLE_NOT_RESIDENT;
#ifdef ORACLE_TOUCH_LOOKUP
  *not_first= bpage->touch(lookup);
#elif defined ORACLE_POST_FIX
  (void) lookup;
  *not_first= bpage->touch();
#else
  (void) lookup;
  *not_first= buf_page_make_young_if_needed(bpage);
#endif
  return ORACLE_OK;
}

/* A page freed in its tablespace and its block released, as
   buf_pool_t::release_freed_page() releases a freed page that was never
   written (not on the flush list); after the fix the flush-list batch
   looks at the block first (buf_do_flush_list_batch(),
   make_young_if_needed<false, true>()). */
extern "C" int oracle_free(uint64_t page)
{
  buf_page_t *bpage= oracle_find(page);
  if (!bpage)
    return ORACLE_NOT_RESIDENT;
  bpage->lock.x_lock();
  bpage->set_freed(bpage->state());
  bpage->lock.x_unlock();
  mysql_mutex_lock(&buf_pool.mutex);
#ifdef ORACLE_POST_FIX
  bpage->make_young_if_needed<false, true>();
#endif
  buf_LRU_free_page(bpage, true);
  mysql_mutex_unlock(&buf_pool.mutex);
  return ORACLE_OK;
}

/* A page created as fsp_page_create() creates it: a block taken first,
   buf_page_create() (its buf_page_create_low()), the block given back if the
   page was found in the pool, then the latch and the fix released as the
   mini-transaction's commit releases MTR_MEMO_PAGE_X_FIX. */
extern "C" int oracle_create(uint64_t page)
{
  if (oracle_find(page))
    return ORACLE_RESIDENT;
#ifdef ORACLE_READ_11_8
  mtr_t mtr{nullptr};
  buf_block_t *free_block= buf_LRU_get_free_block(have_no_mutex);
#else
  mtr_t mtr;
  buf_block_t *free_block= buf_LRU_get_free_block(false);
#endif
  buf_block_t *block= buf_page_create_low(oracle_id(page), 0, &mtr, free_block);
  if (block != free_block)
    buf_pool.free_block(free_block);
  block->page.unfix();
  block->page.lock.x_unlock();
  return ORACLE_OK;
}

/* One page-cleaner LRU batch, as buf_flush_page_cleaner() runs it. */
extern "C" void oracle_cleaner()
{
  mysql_mutex_lock(&buf_pool.mutex);
  buf_flush_LRU(srv_max_io_capacity);
  mysql_mutex_unlock(&buf_pool.mutex);
}

/* ---- the state after an event ---- */

#ifdef ORACLE_LOOKED_UP
/* buf_page_t::looked_up is private */
struct oracle_tag_looked_up { typedef Atomic_relaxed<bool> buf_page_t::*type;
                              friend type oracle_get(oracle_tag_looked_up); };
template struct oracle_rob<oracle_tag_looked_up, &buf_page_t::looked_up>;
#endif

extern "C" size_t oracle_lru(oracle_block *out, size_t cap)
{
  size_t n= 0;
  for (const buf_page_t *b= UT_LIST_GET_FIRST(buf_pool.LRU); b;
       b= UT_LIST_GET_NEXT(LRU, b), n++)
    if (n < cap)
#ifdef ORACLE_POST_FIX
      out[n]= oracle_block{b->id().raw(), b->is_old(), 0, b->accessed_at(),
                           b->zip.is_promote(),
#ifdef ORACLE_LOOKED_UP
                           b->*oracle_get(oracle_tag_looked_up())
#else
                           0
#endif
                          };
#else
      out[n]= oracle_block{b->id().raw(), b->old, b->freed_page_clock,
                           b->is_accessed(), 0, 0};
#endif
  return n;
}

extern "C" void oracle_state(oracle_pool *s)
{
  s->lru_len= UT_LIST_GET_LEN(buf_pool.LRU);
  s->old_len= buf_pool.LRU_old_len;
  s->free_len= UT_LIST_GET_LEN(buf_pool.free);
#ifdef ORACLE_POST_FIX
  s->freed_page_clock= 0; /* the fix removed it */
#else
  s->freed_page_clock= buf_pool.freed_page_clock;
#endif
  s->first_old_page= buf_pool.LRU_old ? buf_pool.LRU_old->id().raw()
                                      : UINT64_MAX;
  s->made_young= buf_pool.stat.n_pages_made_young;
  s->not_made_young= buf_pool.stat.n_pages_not_made_young;
  s->lru_waits= buf_pool.stat.LRU_waits;
  s->pages_read= buf_pool.stat.n_pages_read;
}
