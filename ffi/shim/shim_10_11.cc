/* g++ shim for 10.6..10.11-style trees (for example 10.11.18): the real
   header-inline decision functions, driven with globals defined here.
   Compiled with the defines and include directories of the server's own
   buf0buf.cc (from compile_commands.json). Links no MariaDB library. */
#include "univ.i"
#include "buf0buf.h"
#include "buf0lru.h"
#include "common.h"

/* The three definitions the inline code needs (research notes, D.1). */
buf_pool_t buf_pool;
uint buf_LRU_old_threshold_ms;
static ulint ffi_now;
ulint ut_time_ms() { return ffi_now; }

/* buf_pool_t::n_blocks (= curr_size()) is private in 10.11. */
struct ffi_tag_n_blocks { typedef size_t buf_pool_t::*type;
                          friend type ffi_get(ffi_tag_n_blocks); };
template struct ffi_rob<ffi_tag_n_blocks, &buf_pool_t::n_blocks>;

/* The block the decisions look at: a real descriptor, zeroed by its own
   constructor, in a file state (UNFIXED) as in buf_pool.LRU. */
static buf_page_t ffi_page;

static void ffi_set_pool(uint32_t pool_clock, uint64_t curr_size,
                         uint64_t old_ratio)
{
  buf_pool.freed_page_clock= pool_clock;
  buf_pool.*ffi_get(ffi_tag_n_blocks())= curr_size;
  buf_pool.LRU_old_ratio= old_ratio;
}

static void ffi_set_page(uint32_t block_clock, bool old, uint32_t access_time)
{
  ffi_page.init(buf_page_t::UNFIXED, page_id_t{0});
  ffi_page.freed_page_clock= block_clock & ((1U << 31) - 1);
  ffi_page.old= old;
  ffi_page.access_time= access_time;
}

extern "C" bool ffi_set_accessed(uint32_t access_time, uint64_t now,
                                 uint32_t *new_access_time)
{
  ffi_set_page(0, false, access_time);
  ffi_now= now;
  bool not_first= ffi_page.set_accessed();
  *new_access_time= ffi_page.is_accessed();
  return not_first;
}

extern "C" bool ffi_peek_if_young(uint32_t pool_clock, uint32_t block_clock,
                                  uint64_t curr_size, uint64_t old_ratio)
{
  ffi_set_pool(pool_clock, curr_size, old_ratio);
  ffi_set_page(block_clock, false, 0);
  return buf_page_peek_if_young(&ffi_page);
}

extern "C" bool ffi_peek_if_too_old(uint32_t pool_clock, uint32_t block_clock,
                                    bool old, uint32_t access_time,
                                    uint64_t now, uint64_t curr_size,
                                    uint64_t old_ratio, uint32_t threshold_ms,
                                    uint64_t *not_made_young)
{
  ffi_set_pool(pool_clock, curr_size, old_ratio);
  ffi_set_page(block_clock, old, access_time);
  ffi_now= now;
  buf_LRU_old_threshold_ms= threshold_ms;
  const ulint before= buf_pool.stat.n_pages_not_made_young;
  bool too_old= buf_page_peek_if_too_old(&ffi_page);
  *not_made_young= buf_pool.stat.n_pages_not_made_young - before;
  return too_old;
}

#include "probes.inc"
