/* g++ shim for post-fix trees (MDEV-33966 / MDEV-37992: touch_no_stamp(),
   buf_pool.access_clock). Written against MariaDB/server 180a9db4 and
   0e4aec40 (include/buf0buf.h, include/page0types.h); it builds only when
   the tree's headers are detected as post-fix, and no such tree could be
   configured where this was written, so it has not been compiled yet.
   Links no MariaDB library. */
#include "univ.i"
#include "buf0buf.h"
#include "buf0lru.h"
#include "common.h"

buf_pool_t buf_pool;

/* buf_page_t::make_young() is private and out-of-line (buf0lru.cc in the
   server); make_young_if_needed() calls it. Count the calls; the list move
   itself is not part of the decision. */
static uint64_t ffi_make_young_calls;
void buf_page_t::make_young() noexcept { ffi_make_young_calls++; }

/* buf_page_t::access_time is private. */
struct ffi_tag_access_time
{ typedef Atomic_relaxed<uint16_t> buf_page_t::*type;
  friend type ffi_get(ffi_tag_access_time); };
template struct ffi_rob<ffi_tag_access_time, &buf_page_t::access_time>;

static buf_page_t ffi_page;

static void ffi_set_page(bool promote, bool old, uint16_t access_time)
{
  ffi_page.init(buf_page_t::UNFIXED, page_id_t{0}, 0);
  if (promote)
    ffi_page.zip.set_promote();
  if (old)
    ffi_page.zip.set_old<true>();
  ffi_page.*ffi_get(ffi_tag_access_time())= access_time;
}

/* @return the PROMOTE flag after touch_no_stamp() */
extern "C" bool ffi_touch_no_stamp(bool promote, uint16_t access_time,
                                   uint16_t access_clock, uint16_t threshold)
{
  ffi_set_page(promote, false, access_time);
  buf_pool.access_clock= access_clock;
  buf_pool.LRU_old_threshold= threshold;
  ffi_page.touch_no_stamp();
  return ffi_page.zip.is_promote();
}

/* @return whether make_young_if_needed<count_not_young,only_old>() moved the
   block; the make_young() call count and the two counter increments are
   returned through the pointers */
extern "C" bool ffi_make_young_if_needed(bool count_not_young, bool only_old,
                                         bool promote, bool old,
                                         uint16_t access_time,
                                         uint64_t *calls,
                                         uint64_t *made_young,
                                         uint64_t *not_made_young)
{
  ffi_set_page(promote, old, access_time);
  const ulint y= buf_pool.stat.n_pages_made_young;
  const ulint n= buf_pool.stat.n_pages_not_made_young;
  const uint64_t c= ffi_make_young_calls;
  bool moved;
  if (count_not_young)
    moved= only_old ? ffi_page.make_young_if_needed<true, true>()
                    : ffi_page.make_young_if_needed<true, false>();
  else
    moved= only_old ? ffi_page.make_young_if_needed<false, true>()
                    : ffi_page.make_young_if_needed<false, false>();
  *calls= ffi_make_young_calls - c;
  *made_young= buf_pool.stat.n_pages_made_young - y;
  *not_made_young= buf_pool.stat.n_pages_not_made_young - n;
  return moved;
}

#include "probes.inc"
