/* g++ shim for post-fix trees (MDEV-33966 / MDEV-37992: touch_no_stamp(),
   buf_pool.access_clock): upstream's (written against MariaDB/server
   180a9db4 and 0e4aec40, include/buf0buf.h, include/page0types.h; no such
   tree has been configured here yet) and 10.11 with our fixed.patch, whose
   API differs where patches/10.11/fixed.md says; the differences that
   matter here are bridged by overload detection below, not by a copy of
   this file. Links no MariaDB library. */
#include "univ.i"
#include "my_sys.h"
#include "buf0buf.h"
#include "buf0lru.h"
#include "common.h"

buf_pool_t buf_pool;

/* buf_page_t::make_young() is private and out-of-line (buf0lru.cc in the
   server); make_young_if_needed() calls it. Count the calls; the list move
   itself is not part of the decision. */
static uint64_t ffi_make_young_calls;
void buf_page_t::make_young() noexcept { ffi_make_young_calls++; }

/* buf_pool_t::now() reads the monotonic clock; the clock check sets it. */
static ulonglong ffi_timer_ns;
ulonglong my_interval_timer(void) { return ffi_timer_ns; }

/* buf_page_t::touch(), buf_pool_t::set_old_threshold_ms(), now() and
   refresh_clock() are out-of-line in the server: build.rs copies their
   definitions from the tree's buf0buf.cc and srv0srv.cc. */
#include "out_of_line.inc"

/* buf_page_t::access_time is private. */
struct ffi_tag_access_time
{ typedef Atomic_relaxed<uint16_t> buf_page_t::*type;
  friend type ffi_get(ffi_tag_access_time); };
template struct ffi_rob<ffi_tag_access_time, &buf_page_t::access_time>;

/* buf_page_t::init(): upstream's init(state, id, ssize) resets zip.state
   through zip.clear(state, ssize); fixed.patch keeps 10.11's init(state, id).
   The first overload exists only where the three-argument form does. */
template<typename Page>
static auto ffi_init(Page &p, int)
  -> decltype(p.init(buf_page_t::UNFIXED, page_id_t{0}, 0), void())
{ p.init(buf_page_t::UNFIXED, page_id_t{0}, 0); }
template<typename Page>
static void ffi_init(Page &p, long)
{ p.init(buf_page_t::UNFIXED, page_id_t{0}); }

static buf_page_t ffi_page;

/* A tree whose touch_no_stamp() and touch() take whether the access is a
   lookup (innodb-lab's lookup-touch remedy) is asked with it; upstream's
   take nothing, and the argument is dropped. */
template<typename Page>
static auto ffi_touch_no_stamp_of(Page &p, bool lookup, int)
  -> decltype(p.touch_no_stamp(lookup), void())
{ p.touch_no_stamp(lookup); }
template<typename Page>
static void ffi_touch_no_stamp_of(Page &p, bool, long)
{ p.touch_no_stamp(); }
template<typename Page>
static auto ffi_touch_of(Page &p, bool lookup, int)
  -> decltype(p.touch(lookup))
{ return p.touch(lookup); }
template<typename Page>
static bool ffi_touch_of(Page &p, bool, long)
{ return p.touch(); }

static void ffi_set_page(bool promote, bool old, uint16_t access_time)
{
  ffi_init(ffi_page, 0);
  if (promote)
    ffi_page.zip.set_promote();
  if (old)
    ffi_page.zip.set_old<true>();
  ffi_page.*ffi_get(ffi_tag_access_time())= access_time;
}

/* @return the PROMOTE flag after touch_no_stamp() on a block whose OLD bit
   is old */
extern "C" bool ffi_touch_no_stamp(bool promote, bool old, bool lookup,
                                   uint16_t access_time,
                                   uint16_t access_clock, uint16_t threshold)
{
  ffi_set_page(promote, old, access_time);
  buf_pool.access_clock= access_clock;
  buf_pool.LRU_old_threshold= threshold;
  ffi_touch_no_stamp_of(ffi_page, lookup, 0);
  return ffi_page.zip.is_promote();
}

/* @return touch(): whether this was not the first access; the stamp and the
   PROMOTE flag afterwards through the pointers */
extern "C" bool ffi_touch(bool promote, bool old, bool lookup,
                          uint16_t access_time,
                          uint16_t access_clock, uint16_t threshold,
                          uint16_t *new_access_time, bool *promote_after)
{
  ffi_set_page(promote, old, access_time);
  buf_pool.access_clock= access_clock;
  buf_pool.LRU_old_threshold= threshold;
  const bool not_first= ffi_touch_of(ffi_page, lookup, 0);
  *new_access_time= ffi_page.*ffi_get(ffi_tag_access_time());
  *promote_after= ffi_page.zip.is_promote();
  return not_first;
}

/* @return buf_pool.access_clock after refresh_clock() with
   my_interval_timer() returning timer_ns */
extern "C" uint16_t ffi_clock_from_timer_ns(uint64_t timer_ns)
{
  ffi_timer_ns= timer_ns;
  buf_pool.access_clock= 0;
  buf_pool.refresh_clock();
  return buf_pool.access_clock;
}

/* @return buf_pool.LRU_old_threshold after set_old_threshold_ms(ms); the
   stored LRU_old_time_threshold through the pointer */
extern "C" uint16_t ffi_set_old_threshold_ms(uint32_t ms,
                                             uint32_t *time_threshold)
{
  buf_pool.LRU_old_threshold= 0;
  buf_pool.LRU_old_time_threshold= ~ms;
  buf_pool.set_old_threshold_ms(ms);
  *time_threshold= buf_pool.LRU_old_time_threshold;
  return buf_pool.LRU_old_threshold;
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
