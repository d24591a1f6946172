/* The oracle's glue for a 10.5 tree: the tree's own buf0lru.cc (compiled
   whole, apart), the definitions build.rs copied from buf0flu.cc,
   buf0buf.cc, buf0rea.cc and mtr0mtr.cc, the server's globals they read,
   stubs, and the events of a trace over a small pool of our own making,
   with the same extern "C" functions as oracle_10_11.cc. What differs from
   10.11: a block's latch is the old rw_lock_t; a reader that finds no free
   block runs buf_flush_LRU(innodb_lru_flush_size) itself and the page
   cleaner runs no LRU batch; an access is set_accessed() and then the
   inline buf_page_make_young_if_needed(); a read counts itself when it
   completes. Compiled with the server's flags for buf0lru.cc. Every
   function here runs in one thread at a time (the Rust side holds a
   process-wide lock). */
#include "univ.i"
#include "buf0buf.h"
#include "buf0lru.h"
#include "buf0flu.h"
#include "buf0rea.h"
#include "buf0buddy.h"
#include "buf0dblwr.h"
#include "ibuf0ibuf.h"
#include "mtr0mtr.h"
#include "log0log.h"
#include "log0recv.h"
#include "srv0srv.h"
#include "fil0fil.h"
#include "srv0mon.h"
#include "btr0sea.h"
#include "page0zip.h"
#include "sync0rw.h"
#include "sync0arr.h"
#include "os0event.h"
#include "mem0mem.h"
#include "log.h"
#include <cstdio>
#include <cstdlib>
#include <cstdarg>
#include <new>
#include "my_cpu.h"

#include "oracle_common.h"

/* Definitions the server makes elsewhere (buf0buf.cc, buf0flu.cc,
   buf0dblwr.cc, log0log.cc). */
buf_pool_t buf_pool;
ulint buf_lru_flush_page_count;
/* log_sys and buf_dblwr zeroed, never constructed; the two calls the LRU
   batch makes of them (write the redo buffer, write the doublewrite
   buffer) do nothing here: no page is ever modified */
alignas(log_t) unsigned char oracle_log_sys[sizeof(log_t)]
  __asm__("log_sys") __attribute__((used));
alignas(buf_dblwr_t) unsigned char oracle_buf_dblwr[sizeof(buf_dblwr_t)]
  __asm__("buf_dblwr") __attribute__((used));
void log_buffer_flush_to_disk(bool) {}
void buf_dblwr_t::flush_buffered_writes() {}

/* The dirty-page paths of the LRU batch: our pages are never modified. */
static std::pair<fil_space_t*, uint32_t> buf_flush_space(const uint32_t)
{ oracle_unreachable("buf_flush_space (a dirty page in an LRU batch)"); }
static void buf_flush_discard_page(buf_page_t *)
{ oracle_unreachable("buf_flush_discard_page"); }
static ulint buf_flush_try_neighbors(fil_space_t *, const page_id_t, bool,
                                     bool, ulint, ulint)
{ oracle_unreachable("buf_flush_try_neighbors"); }
static bool buf_flush_page(buf_page_t *, bool, fil_space_t *)
{ oracle_unreachable("buf_flush_page (a dirty page in an LRU batch)"); }

/* The compressed-page path of buf_page_create(). */
static void buf_relocate(buf_page_t *, buf_page_t *)
{ oracle_unreachable("buf_relocate (ROW_FORMAT=COMPRESSED)"); }

#include "copied_types.inc"
;
#include "copied.inc"

/* ---- the server's globals this code reads ---- */
decltype(srv_LRU_scan_depth) srv_LRU_scan_depth;
/* innodb_flush_neighbors: the batch reads it, but uses it only for a
   dirty page, which ours never are */
decltype(srv_flush_neighbors) srv_flush_neighbors;
decltype(srv_buf_pool_size) srv_buf_pool_size;
decltype(srv_buf_pool_old_size) srv_buf_pool_old_size;
decltype(fil_n_pending_tablespace_flushes) fil_n_pending_tablespace_flushes;
decltype(os_n_file_reads) os_n_file_reads;
decltype(os_n_file_writes) os_n_file_writes;
decltype(os_n_fsyncs) os_n_fsyncs;

/* the two message kinds 10.5's buf0lru.cc prints beside the common ones */
ib::warn::~warn() { fprintf(stderr, "%s\n", m_oss.str().c_str()); }
ib::fatal::~fatal() { fprintf(stderr, "%s\n", m_oss.str().c_str()); abort(); }

/* ---- the block latch: one thread, never contended ----
   sync0rw.cc's latches register in a global list and wait on os events;
   here a latch is only brought to its unlocked state, and an x-latch
   taken as an uncontended rw_lock_x_lock_low() takes it. The inline
   rw_lock_x_unlock_func() of sync0rw.inl releases it. */
void rw_lock_create_func(rw_lock_t *lock, const char *cfile_name,
                         unsigned cline)
{
  lock->lock_word= X_LOCK_DECR;
  lock->waiters= 0;
  lock->sx_recursive= 0;
  lock->writer_thread= 0;
  lock->cfile_name= cfile_name;
  lock->cline= cline & ((1U << 13) - 1);
  lock->is_block_lock= 0;
}
void rw_lock_x_lock_func(rw_lock_t *lock, ulint pass, const char *, unsigned)
{
  if (lock->lock_word != X_LOCK_DECR)
    oracle_unreachable("rw_lock_x_lock_func (a latch already held)");
  lock->lock_word= 0;
  if (!pass)
    lock->writer_thread= os_thread_get_curr_id();
}

/* ---- paths our events must not reach ---- */
/* a latch released with a waiter (sync_array_object_signalled() counts it) */
decltype(sg_count) sg_count;
void os_event_set(os_event_t)
{ oracle_unreachable("os_event_set (a latch released with a waiter)"); }
/* a mini-transaction's memo beyond its first block */
mem_block_t *mem_heap_create_block_func(mem_heap_t *, ulint, ulint)
{ oracle_unreachable("mem_heap_create_block_func (an mtr_t memo of many latches)"); }
mem_block_t *mem_heap_add_block(mem_heap_t *, ulint)
{ oracle_unreachable("mem_heap_add_block (an mtr_t memo of many latches)"); }
void mem_heap_block_free(mem_heap_t *, mem_block_t *)
{ oracle_unreachable("mem_heap_block_free (an mtr_t memo of many latches)"); }
void mem_heap_free_block_free(mem_heap_t *)
{ oracle_unreachable("mem_heap_free_block_free (an mtr_t memo of many latches)"); }
void os_thread_sleep(ulint)
{ oracle_unreachable("os_thread_sleep (a wait for a page in use)"); }
void page_hash_latch::write_lock_wait()
{ oracle_unreachable("page_hash_latch::write_lock_wait (a contended latch)"); }
void buf_buddy_free_low(void *, ulint)
{ oracle_unreachable("buf_buddy_free_low (ROW_FORMAT=COMPRESSED)"); }
byte *buf_buddy_alloc_low(ulint, bool *)
{ oracle_unreachable("buf_buddy_alloc_low (ROW_FORMAT=COMPRESSED)"); }
void buf_pool_t::delete_from_flush_list(buf_page_t *, bool)
{ oracle_unreachable("buf_pool_t::delete_from_flush_list (a dirty page)"); }
void buf_flush_relocate_on_flush_list(buf_page_t *, buf_page_t *)
{ oracle_unreachable("buf_flush_relocate_on_flush_list"); }
void btr_search_drop_page_hash_index(buf_block_t *, bool)
{ oracle_unreachable("btr_search_drop_page_hash_index (the adaptive hash)"); }
void buf_pool_t::watch_remove(buf_page_t *)
{ oracle_unreachable("buf_pool_t::watch_remove (a watch sentinel)"); }
/* buf_page_create() of a page in the pool: the glue creates only pages
   that are not */
bool mtr_t::have_x_latch(const buf_block_t &) const
{ oracle_unreachable("mtr_t::have_x_latch (a created page found in the pool)"); }
/* the change buffer's read-ahead (BUF_READ_IBUF_PAGES_ONLY) */
void mtr_t::commit() { oracle_unreachable("mtr_t::commit"); }
ibool ibuf_page_low(const page_id_t, ulint, mtr_t *)
{ oracle_unreachable("ibuf_page_low (a change buffer read-ahead)"); }
/* buf_page_create() asks the change buffer to drop what it holds for a
   page it creates. 10.5 reads the change buffer's bitmap page for that
   even when the buffer is empty (ibuf0ibuf.cc): an access of another page,
   which a trace carries as an event of its own if at all; the oracle has no
   change buffer and skips it. */
void ibuf_merge_or_delete_for_page(buf_block_t *, const page_id_t, ulint) {}

/* The link wraps pthread_cond_timedwait() for every glue; 10.5's reader
   never waits on one (it runs the LRU batch itself). */
extern "C" int __real_pthread_cond_timedwait(pthread_cond_t*, pthread_mutex_t*,
                                             const struct timespec*);
extern "C" int __wrap_pthread_cond_timedwait(pthread_cond_t *c,
                                             pthread_mutex_t *m,
                                             const struct timespec *t)
{
  return __real_pthread_cond_timedwait(c, m, t);
}

/* ---- the pool: buf_pool_t::create() in small, our own memory ---- */

/* 10.5's page cleaner runs no LRU batch, woken or not: nothing to set. */
extern "C" void oracle_set_cleaner_wakeup(bool) {}

/* innodb_lru_flush_size, which buf0lru.cc defines: the model's rule
   (lru_model::FreeBlocks::ReaderFlush) says what it is */
extern "C" void oracle_set_lru_flush_size(uint64_t n)
{
  innodb_lru_flush_size= size_t(n);
}

extern "C" int oracle_init(uint64_t n_blocks, uint64_t lru_scan_depth,
                           uint32_t old_pct, uint32_t old_threshold_ms)
{
  if (int e= oracle_pool_alloc(n_blocks))
    return e;
  buf_pool.curr_size= n_blocks;
  buf_pool.old_size= n_blocks;
  srv_buf_pool_size= srv_buf_pool_old_size= n_blocks * srv_page_size;
  UT_LIST_INIT(buf_pool.free, &buf_page_t::list);
  UT_LIST_INIT(buf_pool.withdraw, &buf_page_t::list);
  for (size_t i= 0; i < n_blocks; i++)
  {
    /* buf_block_init() but for the latch's performance-schema probe */
    buf_block_t *block= &oracle_blocks[i];
    block->frame= oracle_frames + i * srv_page_size;
    block->page.init(BUF_BLOCK_NOT_USED, page_id_t(~0ULL));
    page_zip_des_init(&block->page.zip);
    rw_lock_create_func(&block->lock, __FILE__, __LINE__);
    block->lock.is_block_lock= 1;
    UT_LIST_ADD_LAST(buf_pool.free, &block->page);
  }
  oracle_pool_lists(n_blocks);
  buf_pool.try_LRU_scan= true;
  srv_LRU_scan_depth= ulong(lru_scan_depth);
  buf_LRU_old_ratio_update(old_pct, false);
  buf_LRU_old_threshold_ms= old_threshold_ms;
  return 0;
}

/* Back to the state of a process that never called oracle_init(). */
extern "C" void oracle_reset()
{
  if (!oracle_blocks)
    return;
  oracle_pool_release();
  buf_lru_flush_page_count= 0;
  oracle_now_ms= 0;
}

/* ---- the events ---- */
static buf_page_t *oracle_find(uint64_t page)
{
  const page_id_t id{oracle_id(page)};
  return buf_pool.page_hash_get_low(id, id.fold());
}

extern "C" void oracle_set_time(uint64_t now_ms)
{
  oracle_now_ms= ulint(now_ms);
}

/* A page read into the pool (buf_page_init_for_read()) and its read
   completed as buf_page_read_complete() completes it: the latch released,
   the I/O fix cleared, the read counted (buf0buf.cc). */
extern "C" int oracle_read(uint64_t page)
{
  if (oracle_find(page))
    return ORACLE_RESIDENT;
  buf_page_t *bpage= buf_page_init_for_read(BUF_READ_ANY_PAGE,
                                            oracle_id(page), 0, false);
  if (!bpage)
    return ORACLE_NO_BLOCK;
  buf_pool.n_pend_reads--;
  rw_lock_x_unlock_gen(&reinterpret_cast<buf_block_t*>(bpage)->lock,
                       BUF_IO_READ);
  bpage->io_unfix();
  buf_pool.stat.n_pages_read++;
  return ORACLE_OK;
}

/* A B-tree page access as buf_page_get_gen() makes it: set_accessed(),
   then the inline buf_page_make_young_if_needed() (buf0buf.cc, 10.5.23
   lines 3127-3130). 10.5 tells no lookup apart. */
extern "C" int oracle_access(uint64_t page, bool lookup, bool *not_first)
{
  (void) lookup;
  buf_page_t *bpage= oracle_find(page);
  if (!bpage)
    return ORACLE_NOT_RESIDENT;
  *not_first= bpage->set_accessed();
  buf_page_make_young_if_needed(bpage);
  return ORACLE_OK;
}

/* A page freed in its tablespace and its block released, as
   buf_pool_t::release_freed_page() (buf0flu.cc) releases it: the FREED
   status cleared and buf_LRU_free_page() under buf_pool.mutex. */
extern "C" int oracle_free(uint64_t page)
{
  buf_page_t *bpage= oracle_find(page);
  if (!bpage)
    return ORACLE_NOT_RESIDENT;
  bpage->status= buf_page_t::FREED;
  mysql_mutex_lock(&buf_pool.mutex);
  bpage->status= buf_page_t::NORMAL;
  buf_LRU_free_page(bpage, true);
  mysql_mutex_unlock(&buf_pool.mutex);
  return ORACLE_OK;
}

/* fil_space_t's freed ranges, private: the tablespace of a creation */
struct oracle_tag_freed_mutex { typedef std::mutex fil_space_t::*type;
                                friend type oracle_get(oracle_tag_freed_mutex); };
template struct oracle_rob<oracle_tag_freed_mutex,
                           &fil_space_t::freed_range_mutex>;
struct oracle_tag_freed_ranges { typedef range_set fil_space_t::*type;
                                 friend type oracle_get(oracle_tag_freed_ranges); };
template struct oracle_rob<oracle_tag_freed_ranges, &fil_space_t::freed_ranges>;

/* A page created as fsp_page_create() creates it: a block taken first,
   buf_page_create(), then the latch and the fix released as the
   mini-transaction's commit releases MTR_MEMO_PAGE_X_FIX. The tablespace
   is one of ours: buf_page_create() asks it only to forget the page's
   freed range. */
extern "C" int oracle_create(uint64_t page)
{
  if (oracle_find(page))
    return ORACLE_RESIDENT;
  const page_id_t id{oracle_id(page)};
  alignas(fil_space_t) unsigned char space_mem[sizeof(fil_space_t)];
  memset(space_mem, 0, sizeof space_mem);
  fil_space_t *space= reinterpret_cast<fil_space_t*>(space_mem);
  std::mutex &freed_mutex= space->*oracle_get(oracle_tag_freed_mutex());
  range_set &freed_ranges= space->*oracle_get(oracle_tag_freed_ranges());
  new (&freed_mutex) std::mutex;
  new (&freed_ranges) range_set;
  space->id= id.space();
  mtr_t mtr;
  mtr.start();
  buf_block_t *free_block= buf_LRU_get_free_block(false);
  buf_block_t *block= buf_page_create(space, id.page_no(), 0, &mtr,
                                      free_block);
  if (block != free_block)
    oracle_unreachable("buf_page_create() found the page in the pool");
  rw_lock_x_unlock(&block->lock);
  block->unfix();
  freed_ranges.~range_set();
  return ORACLE_OK;
}

/* 10.5's page cleaner runs no LRU batch (buf_flush_page_cleaner() flushes
   the flush list only; buf_flush_LRU() is called by a reader that finds no
   free block, buf0lru.cc): a cleaner event changes nothing. */
extern "C" void oracle_cleaner() {}

/* ---- the state after an event ---- */
extern "C" size_t oracle_lru(oracle_block *out, size_t cap)
{
  size_t n= 0;
  for (const buf_page_t *b= UT_LIST_GET_FIRST(buf_pool.LRU); b;
       b= UT_LIST_GET_NEXT(LRU, b), n++)
    if (n < cap)
      out[n]= oracle_block{b->id().raw(), b->old, b->freed_page_clock,
                           b->is_accessed(), 0, 0};
  return n;
}

extern "C" void oracle_state(oracle_pool *s)
{
  s->lru_len= UT_LIST_GET_LEN(buf_pool.LRU);
  s->old_len= buf_pool.LRU_old_len;
  s->free_len= UT_LIST_GET_LEN(buf_pool.free);
  s->freed_page_clock= buf_pool.freed_page_clock;
  s->first_old_page= buf_pool.LRU_old ? buf_pool.LRU_old->id().raw()
                                      : UINT64_MAX;
  s->made_young= buf_pool.stat.n_pages_made_young;
  s->not_made_young= buf_pool.stat.n_pages_not_made_young;
  s->lru_waits= buf_pool.stat.LRU_waits;
  s->pages_read= buf_pool.stat.n_pages_read;
}
