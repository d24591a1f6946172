/* What every generation's glue (oracle_10_11.cc, oracle_10_5.cc) defines
   alike, included by each after the server's headers: the way to a
   private member, the stop for a path that must not run, the server's
   globals that the copied code reads and that no generation sets, the
   logging, the clock, the pool's memory, and the events' and the
   snapshot's shapes, which
   the Rust side (src/lib.rs) declares once for every glue. */

/* Access to a private member without touching the class: the template
   arguments of an explicit instantiation are not access-checked
   ([temp.spec]/6), so the instantiation hands out the member pointer
   through a friend function. */
template<typename Tag, typename Tag::type M>
struct oracle_rob { friend typename Tag::type oracle_get(Tag) { return M; } };

/* A path the oracle's events must never reach: stop loudly. */
[[noreturn]] static void oracle_unreachable(const char *what)
{
  fprintf(stderr, "oracle: unreachable path taken: %s\n", what);
  abort();
}

/* ---- the server's globals this code reads ---- */
/* recv_sys zeroed, never constructed (its constructor allocates through
   the performance schema): recv_recovery_is_on() reads false */
alignas(recv_sys_t) unsigned char oracle_recv_sys[sizeof(recv_sys_t)]
  __asm__("recv_sys") __attribute__((used));
decltype(monitor_set_tbl) monitor_set_tbl;
decltype(innodb_counter_value) innodb_counter_value;
decltype(srv_monitor_timer) srv_monitor_timer;
decltype(srv_print_innodb_monitor) srv_print_innodb_monitor;
decltype(mem_key_std) mem_key_std;
decltype(mem_key_other) mem_key_other;
decltype(my_cpu_relax_multiplier) my_cpu_relax_multiplier= 200;
decltype(srv_page_size) srv_page_size= UNIV_PAGE_SIZE_DEF;
decltype(srv_page_size_shift) srv_page_size_shift= UNIV_PAGE_SIZE_SHIFT_DEF;
extern const size_t alloc_max_retries= 60;
PSI *PSI_server;
decltype(srv_undo_space_id_start) srv_undo_space_id_start;
decltype(srv_undo_tablespaces_open) srv_undo_tablespaces_open;

/* ---- logging: printed, as the server would ---- */
void sql_print_warning(const char *format, ...)
{
  va_list a; va_start(a, format); vfprintf(stderr, format, a); va_end(a);
  fputc('\n', stderr);
}
void sql_print_error(const char *format, ...)
{
  va_list a; va_start(a, format); vfprintf(stderr, format, a); va_end(a);
  fputc('\n', stderr);
}
void ut_print_buf(FILE *, const void *, ulint) {}
PSI_memory_key ut_new_get_key_by_file(uint32_t) { return PSI_NOT_INSTRUMENTED; }
my_hrtime_t my_hrtime() { return {0}; }
ib::error::~error() { fprintf(stderr, "%s\n", m_oss.str().c_str()); }
ib::fatal_or_error::~fatal_or_error()
{ fprintf(stderr, "%s\n", m_oss.str().c_str()); if (m_fatal) abort(); }
void ut_dbg_assertion_failed(const char *expr, const char *file, unsigned line)
{
  fprintf(stderr, "oracle: assertion %s failed at %s:%u\n", expr ? expr : "",
          file, line);
  abort();
}

/* ---- the clock, driven by the events ---- */
static ulint oracle_now_ms;
ulint ut_time_ms() { return oracle_now_ms; }

/* ---- the pool: buf_pool_t::create() in small, our own memory ---- */
static buf_block_t *oracle_blocks;
static byte *oracle_frames;

/* buf_pool's latches and condition variables without the performance
   schema, and n_blocks zeroed descriptors with their frames: 0; -1 when a
   pool exists already, -3 for no blocks, -2 when the memory cannot be
   had (oracle_init()'s codes). */
static int oracle_pool_alloc(uint64_t n_blocks)
{
  if (oracle_blocks)
    return -1;
  if (!n_blocks)
    return -3;
  buf_pool.mutex.m_psi= nullptr;
  pthread_mutex_init(&buf_pool.mutex.m_mutex, nullptr);
  buf_pool.flush_list_mutex.m_psi= nullptr;
  pthread_mutex_init(&buf_pool.flush_list_mutex.m_mutex, nullptr);
  pthread_cond_init(&buf_pool.done_flush_LRU, nullptr);
  pthread_cond_init(&buf_pool.done_flush_list, nullptr);
  pthread_cond_init(&buf_pool.do_flush_list, nullptr);
  pthread_cond_init(&buf_pool.done_free, nullptr);
  oracle_blocks= static_cast<buf_block_t*>
    (aligned_alloc(CPU_LEVEL1_DCACHE_LINESIZE, n_blocks * sizeof(buf_block_t)));
  oracle_frames= static_cast<byte*>
    (aligned_alloc(srv_page_size, n_blocks * srv_page_size));
  if (!oracle_blocks || !oracle_frames)
    return -2;
  memset(static_cast<void*>(oracle_blocks), 0, n_blocks * sizeof(buf_block_t));
  return 0;
}

/* The empty LRU, flush and compressed-page lists, and the page hash for a
   pool of n_blocks, as buf_pool_t::create() makes them (the free list is
   the glue's: its blocks are each generation's). */
static void oracle_pool_lists(uint64_t n_blocks)
{
  UT_LIST_INIT(buf_pool.LRU, &buf_page_t::LRU);
  UT_LIST_INIT(buf_pool.flush_list, &buf_page_t::list);
  UT_LIST_INIT(buf_pool.unzip_LRU, &buf_block_t::unzip_LRU);
  for (size_t i= 0; i < UT_ARR_SIZE(buf_pool.zip_free); ++i)
    UT_LIST_INIT(buf_pool.zip_free[i], &buf_buddy_free_t::list);
  buf_pool.page_hash.create(2 * n_blocks);
}

/* What oracle_pool_alloc() and the page hash's create() took, given back;
   buf_pool zeroed and constructed again as a global is. */
static void oracle_pool_release()
{
  aligned_free(buf_pool.page_hash.array);
  pthread_mutex_destroy(&buf_pool.mutex.m_mutex);
  pthread_mutex_destroy(&buf_pool.flush_list_mutex.m_mutex);
  pthread_cond_destroy(&buf_pool.done_flush_LRU);
  pthread_cond_destroy(&buf_pool.done_flush_list);
  pthread_cond_destroy(&buf_pool.do_flush_list);
  pthread_cond_destroy(&buf_pool.done_free);
  free(oracle_blocks);
  free(oracle_frames);
  oracle_blocks= nullptr;
  oracle_frames= nullptr;
  memset(static_cast<void*>(&buf_pool), 0, sizeof buf_pool);
  new (&buf_pool) buf_pool_t;
}

/* ---- the events and the state after them ---- */
enum { ORACLE_OK= 0, ORACLE_NOT_RESIDENT= 1, ORACLE_RESIDENT= 2,
       ORACLE_NO_BLOCK= 3 };

/* A trace's page is (tablespace id << 32) | page number, as page_id_t's own
   raw() value is. */
static const page_id_t oracle_id(uint64_t page)
{ return page_id_t{uint32_t(page >> 32), uint32_t(page)}; }

struct oracle_block
{
  uint64_t page;
  uint32_t old;
  uint32_t freed_page_clock; /* before the fix */
  uint32_t access_time;      /* ms before the fix, clock ticks after it */
  uint32_t promote;          /* after the fix */
  uint32_t looked_up;        /* our looked-up remedies (ORACLE_LOOKED_UP) */
};

struct oracle_pool
{
  uint64_t lru_len, old_len, free_len, freed_page_clock;
  uint64_t first_old_page; /* UINT64_MAX without an old sublist */
  uint64_t made_young, not_made_young, lru_waits, pages_read;
};
