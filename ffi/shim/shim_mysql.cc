/* g++ shim for MySQL trees (9.7): the real header-inline decision functions
   of buf0buf.ic, driven with globals defined here. Compiled with the
   defines and include directories of the server's own buf0buf.cc (from
   compile_commands.json). Links no MySQL library. */
#include "univ.i"
#include "buf0buf.h"
#include "buf0lru.h"
#include "common.h"

#include <chrono>
#include <cstdlib>

/* What the inline code reads: the instances' array (one instance here),
   the threshold behind get_buf_LRU_old_threshold(), and the clock. */
buf_pool_t *buf_pool_ptr;
uint buf_LRU_old_threshold;
static int64_t ffi_now_ns;

/* The server's steady clock, as the decisions read it: this definition
   takes the place of libstdc++'s in the test binary (an executable's
   symbol comes before a shared library's), so that an age is exact. Rust's
   own clocks do not go through it. */
std::chrono::steady_clock::time_point std::chrono::steady_clock::now() noexcept
{
  return time_point(duration(ffi_now_ns));
}

/* ut_a() in the paths checked; never reached with the states set here. */
void ut_dbg_assertion_failed(const char *, const char *, uint64_t)
{
  abort();
}

#include "out_of_line.inc"

/* The pool and the block the decisions look at: zeroed storage, never
   constructed (their mutexes and latches are never used), members set by
   name as the server's code sets them. */
alignas(buf_pool_t) static unsigned char ffi_pool_bytes[sizeof(buf_pool_t)];
alignas(buf_page_t) static unsigned char ffi_page_bytes[sizeof(buf_page_t)];

static buf_pool_t *ffi_pool()
{
  return reinterpret_cast<buf_pool_t*>(ffi_pool_bytes);
}

static buf_page_t *ffi_page()
{
  return reinterpret_cast<buf_page_t*>(ffi_page_bytes);
}

static void ffi_set_pool(uint64_t pool_clock, uint64_t curr_size,
                         uint64_t old_ratio)
{
  buf_pool_ptr= ffi_pool();
  buf_pool_ptr->freed_page_clock= pool_clock;
  buf_pool_ptr->curr_size= curr_size;
  buf_pool_ptr->LRU_old_ratio= old_ratio;
}

/* A file page of instance 0, as buf_LRU_add_block_low() leaves it. */
static void ffi_set_page(uint32_t stamp, bool old, int64_t access_ns)
{
  memset(ffi_page_bytes, 0, sizeof ffi_page_bytes);
  buf_page_t *p= ffi_page();
  p->state= BUF_BLOCK_FILE_PAGE;
  p->buf_pool_index= 0;
  p->freed_page_clock= stamp;
  p->old= old;
  p->access_time= std::chrono::steady_clock::time_point(
      std::chrono::steady_clock::duration(access_ns));
}

extern "C" int64_t ffi_mysql_set_accessed(int64_t access_ns, int64_t now_ns)
{
  ffi_set_pool(0, 0, 0);
  ffi_set_page(0, false, access_ns);
  ffi_now_ns= now_ns;
  buf_page_set_accessed(ffi_page());
  return buf_page_is_accessed(ffi_page()).time_since_epoch().count();
}

extern "C" bool ffi_mysql_peek_if_young(uint64_t pool_clock, uint32_t stamp,
                                        uint64_t curr_size, uint64_t old_ratio)
{
  ffi_set_pool(pool_clock, curr_size, old_ratio);
  ffi_set_page(stamp, false, 0);
  return buf_page_peek_if_young(ffi_page());
}

extern "C" bool ffi_mysql_peek_if_too_old(uint64_t pool_clock, uint32_t stamp,
                                          bool old, int64_t access_ns,
                                          int64_t now_ns, uint64_t curr_size,
                                          uint64_t old_ratio,
                                          uint32_t threshold_ms,
                                          uint64_t *not_made_young)
{
  ffi_set_pool(pool_clock, curr_size, old_ratio);
  ffi_set_page(stamp, old, access_ns);
  ffi_now_ns= now_ns;
  buf_LRU_old_threshold= threshold_ms;
  const uint64_t before= buf_pool_ptr->stat.n_pages_not_made_young;
  bool too_old= buf_page_peek_if_too_old(ffi_page());
  *not_made_young= buf_pool_ptr->stat.n_pages_not_made_young - before;
  return too_old;
}

#include "probes.inc"
