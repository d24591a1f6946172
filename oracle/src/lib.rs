/*!
A configured tree's own LRU code, driven event by event: the oracle the
LRU model is checked against.

`build.rs` compiles the tree's `buf0lru.cc` whole, copies the page
cleaner's LRU batch, the free-block allocator, the page hash and the read
path's `buf_page_init_for_read()` from the tree's other files, and links
them with a glue (`shim/`) that sets up a small pool of its own. This
crate keeps the glue's `extern "C"` functions and all `unsafe` private and
offers:

* [`tree`]: which tree was built in, or why there is no oracle;
* [`Oracle`]: the tree's pool, to which [`Oracle::apply`] gives the events of
  a trace (`lru_model::Event`) and from which [`Oracle::snapshot`] reads the
  LRU list, the free list's length, the clock and the counters;
* [`replay`]: the same events through the model and the oracle, compared
  after every event, with the first difference described;
* [`random`]: seeded random traces with evictions, frees and batches.

The C++ is a pool of globals (`buf_pool` among them), so one [`Oracle`]
exists at a time in a process: [`Oracle::new`] waits for the one before
to be dropped.

Run it through `cargo xtask oracle check --tree <spec>`, which configures
the tree and sets the environment.
*/

#![deny(missing_docs)]

use std::fmt;
use std::sync::{Mutex, MutexGuard};

use lru_model::{Config, Event, ModelPolicy, Op};

pub mod random;
pub mod replay;
mod snapshot;

pub use snapshot::{Block, Snapshot};
pub use tree_source::Generation;

/// The tree this build of the crate was compiled against.
#[derive(Debug, Clone, Copy)]
pub struct TreeInfo {
    /// Generation detected from `buf0buf.h`.
    pub generation: Generation,
    /// Version from the tree's `VERSION` file, e.g. `10.11.18`.
    pub version: &'static str,
    /// `INNODB_SRC`
    pub src: &'static str,
    /// `INNODB_BUILD`
    pub build: &'static str,
    /// the model's policy for the tree as it is: eager before the fix, our
    /// port's lazy one with it (`lazy-10.11-port`: the threshold is 0 while
    /// the LRU has no old sublist); a remedy's comes from the variant
    /// ([`model_policy`])
    pub model: ModelPolicy,
    /// `buf_page_t::touch(bool lookup)`: the access path tells a lookup from
    /// other accesses (our lookup remedies)
    pub lookup_touch: bool,
    /// `buf_page_t::looked_up`: a block carries a lookup's mark (our
    /// looked-up remedies), which the snapshots compare
    pub looked_up: bool,
    /// why the tree has no oracle, if it has none
    pub unsupported: Option<&'static str>,
}

include!(concat!(env!("OUT_DIR"), "/tree.rs"));

/// Why the oracle cannot do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The crate was built without `INNODB_SRC`/`INNODB_BUILD`.
    NoTree,
    /// The tree has no oracle (yet).
    Unsupported {
        /// the tree's generation
        generation: Generation,
        /// the tree's version
        version: &'static str,
        /// why
        why: &'static str,
    },
    /// A setting of the model's pool that the oracle cannot take.
    Config(String),
    /// `ORACLE_MODEL_POLICY` names no model policy.
    Policy(String),
    /// The event cannot be given to the tree's code.
    Refused {
        /// the event
        event: Event,
        /// why
        why: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoTree => write!(
                f,
                "the oracle crate was built without a tree; run `cargo xtask oracle check \
                 --tree <spec>`, which configures one and sets INNODB_SRC and INNODB_BUILD"
            ),
            Error::Unsupported {
                generation,
                version,
                why,
            } => write!(
                f,
                "no oracle for {version} (generation {}) yet: {why}",
                generation.name()
            ),
            Error::Config(why) => write!(f, "the oracle cannot take this pool: {why}"),
            Error::Policy(why) => write!(f, "ORACLE_MODEL_POLICY: {why}"),
            Error::Refused { event, why } => write!(f, "event {event:?}: {why}"),
        }
    }
}

impl std::error::Error for Error {}

/// The tree built in, if it has an oracle.
pub fn tree() -> Result<&'static TreeInfo, Error> {
    match &TREE {
        None => Err(Error::NoTree),
        Some(t) => match t.unsupported {
            Some(why) => Err(Error::Unsupported {
                generation: t.generation,
                version: t.version,
                why,
            }),
            None => Ok(t),
        },
    }
}

/// The environment variable that names the model policy a tree's code is
/// compared with, e.g. `lazy-10.11-port-lookup-mark`.
pub const MODEL_POLICY_ENV: &str = "ORACLE_MODEL_POLICY";

/// The model policy the tree's code is compared with:
/// [`MODEL_POLICY_ENV`], which `cargo xtask oracle check` sets from the
/// variant as a matrix records it, or without it the tree's own
/// ([`TreeInfo::model`]).
pub fn model_policy() -> Result<ModelPolicy, Error> {
    let tree = tree()?;
    match std::env::var(MODEL_POLICY_ENV) {
        Ok(name) => name.parse().map_err(Error::Policy),
        // a remedy's rules are its variant's, which only xtask knows
        Err(_) if tree.lookup_touch || tree.looked_up => Err(Error::Policy(format!(
            "not set, and {} carries one of our remedies, whose model policy its variant \
             names: run `cargo xtask oracle check --variant <remedy>`, or set it",
            tree.version
        ))),
        Err(_) => Ok(tree.model),
    }
}

/// The C++ entry point an event goes through, for messages.
pub fn entry_point(op: &Op) -> &'static str {
    match op {
        Op::Read(_) => "buf_page_init_for_read() (buf/buf0rea.cc), buf_LRU_get_free_block()",
        Op::Lookup(_) if cfg!(oracle = "post-fix") && cfg!(oracle_lookup_touch) => {
            "buf_page_t::touch(true) (buf/buf0buf.cc)"
        }
        Op::Access(_) | Op::Lookup(_) if cfg!(oracle = "post-fix") => {
            "buf_page_t::touch() (buf/buf0buf.cc)"
        }
        Op::Access(_) | Op::Lookup(_) if cfg!(oracle = "10.5") => {
            "buf_page_t::set_accessed(), buf_page_make_young_if_needed() (include/buf0buf.h)"
        }
        Op::Access(_) | Op::Lookup(_) => "buf_page_make_young_if_needed() (buf/buf0lru.cc)",
        Op::Free(_) => "buf_LRU_free_page() (buf/buf0lru.cc) of a FREED page",
        Op::Cleaner if cfg!(oracle = "10.5") => "nothing: 10.5's page cleaner runs no LRU batch",
        Op::Cleaner => "buf_flush_LRU() (buf/buf0flu.cc)",
        Op::Create(_) if cfg!(oracle = "10.5") => {
            "buf_page_create() (buf/buf0buf.cc), buf_LRU_get_free_block()"
        }
        Op::Create(_) => "buf_page_create_low() (buf/buf0buf.cc), buf_LRU_get_free_block()",
    }
}

/// Every use of the C++ globals holds this.
static POOL: Mutex<()> = Mutex::new(());

/// The tree's buffer pool, of a size and settings of the model's
/// [`Config`]; one at a time in a process.
pub struct Oracle {
    _pool: MutexGuard<'static, ()>,
}

impl Oracle {
    /// A pool of `cfg.pool_pages` blocks, all free, with `cfg`'s
    /// `innodb_old_blocks_pct`, `innodb_old_blocks_time` and
    /// `innodb_lru_scan_depth`; on 10.5 also `innodb_lru_flush_size`
    /// (`cfg.free_blocks`' size, the server's default 32 where the model's
    /// rule is the page cleaner's).
    pub fn new(cfg: &Config) -> Result<Oracle, Error> {
        tree()?;
        if cfg.pool_pages == 0 {
            return Err(Error::Config("a pool of 0 pages".into()));
        }
        // a test that panicked while it held the pool left no state that
        // the reset below does not clear
        let guard = POOL.lock().unwrap_or_else(|e| e.into_inner());
        sys::init(cfg).map_err(Error::Config)?;
        Ok(Oracle { _pool: guard })
    }

    /// Give one event to the tree's code (the time first, as the model
    /// takes it). A lookup goes where an access goes (before the fix both
    /// are `buf_page_make_young_if_needed()`, after it `touch()`), but as
    /// `touch(true)` where the tree tells them apart.
    pub fn apply(&mut self, event: &Event) -> Result<(), Error> {
        sys::set_time(event.t_ms);
        let outcome = match event.op {
            Op::Read(p) => sys::read(p),
            Op::Access(p) => sys::access(p, false).map(|_| ()),
            Op::Lookup(p) => sys::access(p, true).map(|_| ()),
            Op::Free(p) => sys::free(p),
            Op::Create(p) => sys::create(p),
            Op::Cleaner => {
                sys::cleaner();
                Ok(())
            }
        };
        outcome.map_err(|why| Error::Refused {
            event: *event,
            why: why.to_string(),
        })
    }

    /// The state after the events so far.
    pub fn snapshot(&self) -> Snapshot {
        sys::snapshot()
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        sys::reset();
    }
}

#[cfg(any(oracle = "10.5", oracle = "10.11", oracle = "post-fix"))]
mod sys {
    //! The glue's functions (shim/oracle_10_11.cc, shim/oracle_10_5.cc).
    use super::{Block, Snapshot};
    use lru_model::Config;

    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct RawBlock {
        page: u64,
        old: u32,
        freed_page_clock: u32,
        access_time: u32,
        promote: u32,
        looked_up: u32,
    }

    #[repr(C)]
    #[derive(Default)]
    struct RawPool {
        lru_len: u64,
        old_len: u64,
        free_len: u64,
        freed_page_clock: u64,
        first_old_page: u64,
        made_young: u64,
        not_made_young: u64,
        lru_waits: u64,
        pages_read: u64,
    }

    extern "C" {
        fn oracle_init(n_blocks: u64, lru_scan_depth: u64, old_pct: u32, threshold_ms: u32) -> i32;
        fn oracle_reset();
        fn oracle_set_time(now_ms: u64);
        fn oracle_read(page: u64) -> i32;
        fn oracle_access(page: u64, lookup: bool, not_first: *mut bool) -> i32;
        fn oracle_free(page: u64) -> i32;
        fn oracle_create(page: u64) -> i32;
        fn oracle_cleaner();
        fn oracle_lru(out: *mut RawBlock, cap: usize) -> usize;
        fn oracle_state(s: *mut RawPool);
        #[cfg(oracle = "10.5")]
        fn oracle_set_lru_flush_size(n: u64);
        fn oracle_set_cleaner_wakeup(early: bool);
    }

    fn outcome(code: i32) -> Result<(), &'static str> {
        match code {
            0 => Ok(()),
            1 => Err("the page is not in the tree's pool"),
            2 => Err("the page is already in the tree's pool"),
            3 => Err("buf_page_init_for_read() returned no block"),
            _ => Err("the glue returned an unknown code"),
        }
    }

    pub(super) fn init(cfg: &Config) -> Result<(), String> {
        // 10.5's reader frees blocks itself, innodb_lru_flush_size at a
        // time: the size the model's rule names, the server's default where
        // the model's rule is another (the tree's code is 10.5's whatever
        // rule the model is given)
        #[cfg(oracle = "10.5")]
        let lru_flush_size = match cfg.free_blocks {
            lru_model::FreeBlocks::ReaderFlush { lru_flush_size } => lru_flush_size,
            lru_model::FreeBlocks::Cleaner => lru_model::LRU_FLUSH_SIZE,
        };
        // when the tree's batch runs besides waits: as the model's pool says
        let early = cfg.cleaner_wakeup == lru_model::CleanerWakeup::Early;
        // SAFETY: the caller holds POOL; the glue allocates its own pool and
        // takes its settings after the reset that clears them
        let code = unsafe {
            oracle_reset();
            oracle_set_cleaner_wakeup(early);
            #[cfg(oracle = "10.5")]
            oracle_set_lru_flush_size(lru_flush_size.into());
            oracle_init(
                cfg.pool_pages.into(),
                cfg.lru_scan_depth.into(),
                cfg.old_pct,
                cfg.old_blocks_time_ms,
            )
        };
        match code {
            0 => Ok(()),
            -2 => Err(format!("cannot allocate {} blocks", cfg.pool_pages)),
            c => Err(format!("oracle_init() returned {c}")),
        }
    }

    pub(super) fn reset() {
        // SAFETY: the caller (Oracle) holds POOL
        unsafe { oracle_reset() }
    }

    pub(super) fn set_time(now_ms: u64) {
        // SAFETY: as above
        unsafe { oracle_set_time(now_ms) }
    }

    pub(super) fn read(page: u64) -> Result<(), &'static str> {
        // SAFETY: as above
        outcome(unsafe { oracle_read(page) })
    }

    pub(super) fn access(page: u64, lookup: bool) -> Result<bool, &'static str> {
        let mut not_first = false;
        // SAFETY: as above; not_first outlives the call
        outcome(unsafe { oracle_access(page, lookup, &mut not_first) }).map(|()| not_first)
    }

    pub(super) fn free(page: u64) -> Result<(), &'static str> {
        // SAFETY: as above
        outcome(unsafe { oracle_free(page) })
    }

    pub(super) fn create(page: u64) -> Result<(), &'static str> {
        // SAFETY: as above
        outcome(unsafe { oracle_create(page) })
    }

    pub(super) fn cleaner() {
        // SAFETY: as above
        unsafe { oracle_cleaner() }
    }

    pub(super) fn snapshot() -> Snapshot {
        let mut pool = RawPool::default();
        // SAFETY: as above; the glue fills at most `cap` blocks
        let lru = unsafe {
            oracle_state(&mut pool);
            let mut raw = vec![RawBlock::default(); pool.lru_len as usize];
            let n = oracle_lru(raw.as_mut_ptr(), raw.len());
            raw.truncate(n);
            raw
        };
        Snapshot {
            lru: lru
                .iter()
                .map(|b| {
                    // milliseconds before the fix, clock ticks after it
                    let (access_time_ms, access_time_s) = if cfg!(oracle = "post-fix") {
                        (0, b.access_time as u16)
                    } else {
                        (b.access_time, 0)
                    };
                    Block {
                        page: b.page,
                        old: b.old != 0,
                        freed_page_clock: b.freed_page_clock,
                        access_time_ms,
                        access_time_s,
                        promote: b.promote != 0,
                        looked_up: cfg!(oracle_looked_up).then_some(b.looked_up != 0),
                    }
                })
                .collect(),
            old_len: pool.old_len,
            free_len: pool.free_len,
            freed_page_clock: pool.freed_page_clock,
            first_old: (pool.first_old_page != u64::MAX).then_some(pool.first_old_page),
            made_young: pool.made_young,
            not_made_young: pool.not_made_young,
            lru_waits: pool.lru_waits,
            pages_read: pool.pages_read,
        }
    }
}

#[cfg(not(any(oracle = "10.5", oracle = "10.11", oracle = "post-fix")))]
mod sys {
    //! No tree with an oracle: [`super::tree`] refuses before any of these runs.
    use super::Snapshot;
    use lru_model::Config;

    const NONE: &str = "no oracle is built in";

    pub(super) fn init(_: &Config) -> Result<(), String> {
        Err(NONE.into())
    }
    pub(super) fn reset() {}
    pub(super) fn set_time(_: u64) {}
    pub(super) fn read(_: u64) -> Result<(), &'static str> {
        Err(NONE)
    }
    pub(super) fn access(_: u64, _: bool) -> Result<bool, &'static str> {
        Err(NONE)
    }
    pub(super) fn free(_: u64) -> Result<(), &'static str> {
        Err(NONE)
    }
    pub(super) fn create(_: u64) -> Result<(), &'static str> {
        Err(NONE)
    }
    pub(super) fn cleaner() {}
    pub(super) fn snapshot() -> Snapshot {
        Snapshot::default()
    }
}
