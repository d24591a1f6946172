/*!
Checks the LRU model against the real InnoDB headers of one configured tree.

`build.rs` reads the tree from `INNODB_SRC`/`INNODB_BUILD`, detects its
generation, runs bindgen on `buf0buf.h` and compiles a g++ shim with the
server's own flags for `buf0buf.cc`. This crate keeps the bindgen output, the
shim's `extern "C"` functions and all `unsafe` private, and offers:

* [`tree`]: which tree was built in, or an error telling how to build one in;
* [`bindgen_layout`] and [`shim_layout`]: the descriptor layout as seen by
  libclang and by g++ (sizes, offsets, bitfield positions and widths), to
  compare with `lru_model::layout`;
* [`real`]: the header-inline decision functions of the tree, callable with
  plain values, to compare with `lru_model::decide`.

The shim drives the C++ through globals (`buf_pool`, the threshold, the
clock), so every call into it holds one process-wide lock.

Run it through `cargo xtask ffi check --tree <spec>`, which configures the
tree and sets the environment.
*/

#![deny(missing_docs)]

use std::fmt;
use std::sync::{Mutex, MutexGuard};

use lru_model::layout::Quantity;

#[allow(dead_code)]
mod probes;

pub use lru_model::layout::Layout;
pub use probes::{detect_layout, LazyRules};
pub use tree_source::Generation;

/// The tree this build of the crate was compiled against.
#[derive(Debug, Clone, Copy)]
pub struct TreeInfo {
    /// Generation detected from `buf0buf.h`.
    pub generation: Generation,
    /// Descriptor layout detected from `buf0buf.h`.
    pub layout: Layout,
    /// The form of `buf_page_peek_if_young()` its headers carry (detected
    /// from `buf0buf.inl`, MySQL's `buf0buf.ic`); `None` in post-fix trees,
    /// which do not have it.
    pub young_rule: Option<lru_model::decide::YoungRule>,
    /// The access clock's tick and the young-touch rule of a post-fix tree
    /// (detected from `buf0buf.h`); `None` in pre-fix trees.
    pub lazy_rules: Option<LazyRules>,
    /// Version from the tree's `VERSION` file, e.g. `10.11.18` (MySQL's
    /// `MYSQL_VERSION`, e.g. `9.7.2`).
    pub version: &'static str,
    /// `INNODB_SRC`
    pub src: &'static str,
    /// `INNODB_BUILD`
    pub build: &'static str,
    /// The flags taken from the server's compile command for `buf0buf.cc`.
    pub flags: &'static [&'static str],
}

include!(concat!(env!("OUT_DIR"), "/tree.rs"));

/// Why a check cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
}

/// The kinds of [`Error`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The crate was built without `INNODB_SRC`/`INNODB_BUILD`.
    NoTree,
    /// The tree's generation does not have this function inline.
    NotInTree {
        /// the C++ function
        function: &'static str,
        /// the tree's version
        version: &'static str,
    },
}

impl Error {
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::NoTree => f.write_str(
                "the ffi crate was built without a tree (INNODB_SRC and INNODB_BUILD unset); \
                 run `cargo xtask ffi check --tree <spec>`",
            ),
            ErrorKind::NotInTree { function, version } => {
                write!(f, "{function} is not header-inline in the {version} tree")
            }
        }
    }
}

impl std::error::Error for Error {}

/// The tree this crate was built against.
pub fn tree() -> Result<TreeInfo, Error> {
    TREE.ok_or(Error {
        kind: ErrorKind::NoTree,
    })
}

/// One measured layout value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured {
    /// what was measured
    pub what: Quantity,
    /// the value (bytes for sizes and offsets, bits otherwise)
    pub value: u64,
}

/// The layout as bindgen (libclang) computed it for the allowlisted structs.
pub fn bindgen_layout() -> Result<Vec<Measured>, Error> {
    tree()?;
    Ok(sys::bindgen_facts()
        .into_iter()
        .map(|(what, value)| Measured { what, value })
        .collect())
}

/// The layout as g++ computed it, with the server's flags, in the shim.
pub fn shim_layout() -> Result<Vec<Measured>, Error> {
    tree()?;
    let _g = lock();
    Ok(sys::shim_facts())
}

fn lock() -> MutexGuard<'static, ()> {
    static SHIM: Mutex<()> = Mutex::new(());
    SHIM.lock().unwrap_or_else(|p| p.into_inner())
}

/// The tree's header-inline decision functions, run by the shim.
///
/// Each function sets up `buf_pool`, the globals and one block descriptor
/// from its arguments, calls the real inline C++ and reports what it decided
/// and how it changed the status counters.
pub mod real {
    use super::{lock, tree, Error, ErrorKind};
    use lru_model::decide::Touch;

    /// Inputs of `buf_page_peek_if_too_old()` (and of 10.5's inline
    /// `buf_page_make_young_if_needed()`), with C++ widths.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Eager {
        /// `buf_pool.freed_page_clock` (unsigned)
        pub pool_clock: u32,
        /// `bpage->freed_page_clock` (31-bit bitfield: higher bits are dropped on store)
        pub block_clock: u32,
        /// `bpage->old`
        pub old: bool,
        /// `bpage->access_time` (ms)
        pub access_time: u32,
        /// what `ut_time_ms()` returns (`ulint`, all 64 bits)
        pub now_ms: u64,
        /// `buf_pool.curr_size()` (10.11: `n_blocks`; 10.5: `curr_size`)
        pub curr_size: u64,
        /// `buf_pool.LRU_old_ratio` (`ulint`)
        pub old_ratio: u64,
        /// `buf_LRU_old_threshold_ms`
        pub threshold_ms: u32,
    }

    fn not_in_tree(function: &'static str) -> Error {
        let version = tree().map(|t| t.version).unwrap_or("unconfigured");
        Error {
            kind: ErrorKind::NotInTree { function, version },
        }
    }

    /// `buf_page_t::set_accessed()` on a block with `access_time`, with
    /// `ut_time_ms()` returning `now_ms`: (not first access, new access_time).
    pub fn set_accessed(access_time: u32, now_ms: u64) -> Result<(bool, u32), Error> {
        tree()?;
        let _g = lock();
        super::sys::set_accessed(access_time, now_ms)
            .ok_or_else(|| not_in_tree("buf_page_t::set_accessed"))
    }

    /// `buf_page_peek_if_young()`.
    pub fn peek_if_young(
        pool_clock: u32,
        block_clock: u32,
        curr_size: u64,
        old_ratio: u64,
    ) -> Result<bool, Error> {
        tree()?;
        let _g = lock();
        super::sys::peek_if_young(pool_clock, block_clock, curr_size, old_ratio)
            .ok_or_else(|| not_in_tree("buf_page_peek_if_young"))
    }

    /// `buf_page_peek_if_too_old()`: (too old, increment of
    /// `buf_pool.stat.n_pages_not_made_young`).
    pub fn peek_if_too_old(i: &Eager) -> Result<(bool, u64), Error> {
        tree()?;
        let _g = lock();
        super::sys::peek_if_too_old(i).ok_or_else(|| not_in_tree("buf_page_peek_if_too_old"))
    }

    /// 10.5's inline `buf_page_make_young_if_needed()`: (number of
    /// `buf_page_make_young()` calls, increment of `n_pages_not_made_young`).
    pub fn make_young_if_needed_eager(i: &Eager) -> Result<(u64, u64), Error> {
        tree()?;
        let _g = lock();
        super::sys::make_young_if_needed_eager(i)
            .ok_or_else(|| not_in_tree("buf_page_make_young_if_needed"))
    }

    /// Post-fix `buf_page_t::touch_no_stamp()` on a block whose OLD bit is
    /// `old`, by a `lookup` or not (a tree whose rule does not tell them
    /// apart ignores it): the PROMOTE flag afterwards.
    pub fn touch_no_stamp(t: Touch) -> Result<bool, Error> {
        tree()?;
        let _g = lock();
        super::sys::touch_no_stamp(
            t.promote,
            t.old,
            t.lookup,
            t.access_time,
            t.access_clock,
            t.threshold,
        )
        .ok_or_else(|| not_in_tree("buf_page_t::touch_no_stamp"))
    }

    /// Post-fix `buf_page_t::touch()` (out-of-line, copied from the tree's
    /// buf0buf.cc), by a `lookup` or not: (not first access, access_time
    /// after, PROMOTE after).
    pub fn touch(t: Touch) -> Result<(bool, u16, bool), Error> {
        tree()?;
        let _g = lock();
        super::sys::touch(
            t.promote,
            t.old,
            t.lookup,
            t.access_time,
            t.access_clock,
            t.threshold,
        )
        .ok_or_else(|| not_in_tree("buf_page_t::touch"))
    }

    /// Post-fix `buf_pool.refresh_clock()` with `my_interval_timer()`
    /// returning `timer_ns`: the `buf_pool.access_clock` it stores (the
    /// tree's `buf_pool_t::now()`).
    pub fn clock_from_timer_ns(timer_ns: u64) -> Result<u16, Error> {
        tree()?;
        let _g = lock();
        super::sys::clock_from_timer_ns(timer_ns).ok_or_else(|| not_in_tree("buf_pool_t::now"))
    }

    /// Post-fix `buf_pool.set_old_threshold_ms(ms)`: (`LRU_old_threshold`,
    /// `LRU_old_time_threshold`) afterwards.
    pub fn set_old_threshold_ms(ms: u32) -> Result<(u16, u32), Error> {
        tree()?;
        let _g = lock();
        super::sys::set_old_threshold_ms(ms)
            .ok_or_else(|| not_in_tree("buf_pool_t::set_old_threshold_ms"))
    }

    /// MySQL's `buf_page_set_accessed()` on a block whose `access_time` is
    /// `access_ns` nanoseconds of `steady_clock`, the clock reading
    /// `now_ns`: the access time afterwards.
    pub fn mysql_set_accessed(access_ns: i64, now_ns: i64) -> Result<i64, Error> {
        tree()?;
        let _g = lock();
        super::sys::mysql_set_accessed(access_ns, now_ns)
            .ok_or_else(|| not_in_tree("MySQL's buf_page_set_accessed"))
    }

    /// MySQL's `buf_page_peek_if_young()`: the pool's 64-bit clock, the
    /// block's 32-bit stamp.
    pub fn mysql_peek_if_young(
        pool_clock: u64,
        stamp: u32,
        curr_size: u64,
        old_ratio: u64,
    ) -> Result<bool, Error> {
        tree()?;
        let _g = lock();
        super::sys::mysql_peek_if_young(pool_clock, stamp, curr_size, old_ratio)
            .ok_or_else(|| not_in_tree("MySQL's buf_page_peek_if_young"))
    }

    /// MySQL's `buf_page_peek_if_too_old()`: (too old, increment of
    /// `stat.n_pages_not_made_young`).
    pub fn mysql_peek_if_too_old(
        i: &lru_model::decide::mysql::EagerInput,
    ) -> Result<(bool, u64), Error> {
        tree()?;
        let _g = lock();
        super::sys::mysql_peek_if_too_old(i)
            .ok_or_else(|| not_in_tree("MySQL's buf_page_peek_if_too_old"))
    }

    /// What post-fix `make_young_if_needed<count_not_young, only_old>()` did.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Sweep {
        /// its return value
        pub moved: bool,
        /// number of `buf_page_t::make_young()` calls
        pub make_young_calls: u64,
        /// increment of `n_pages_made_young`
        pub made_young: u64,
        /// increment of `n_pages_not_made_young`
        pub not_made_young: u64,
    }

    /// Post-fix `buf_page_t::make_young_if_needed<count_not_young, only_old>()`.
    pub fn make_young_if_needed(
        count_not_young: bool,
        only_old: bool,
        promote: bool,
        old: bool,
        access_time: u16,
    ) -> Result<Sweep, Error> {
        tree()?;
        let _g = lock();
        super::sys::make_young_if_needed(count_not_young, only_old, promote, old, access_time)
            .ok_or_else(|| not_in_tree("buf_page_t::make_young_if_needed"))
    }
}

/// The unsafe side: bindgen output, the shim's functions, generated probes.
mod sys {
    #[allow(unused_imports)]
    use super::{real::Eager, Measured};
    #[allow(unused_imports)]
    use lru_model::layout::Quantity;

    #[cfg(not(innodb = "none"))]
    #[allow(
        non_camel_case_types,
        non_snake_case,
        non_upper_case_globals,
        dead_code,
        clippy::all,
        unnecessary_transmutes,
        unsafe_op_in_unsafe_fn
    )]
    mod bindings {
        include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
    }

    #[cfg(not(innodb = "none"))]
    include!(concat!(env!("OUT_DIR"), "/probes_bindgen.rs"));

    #[cfg(innodb = "none")]
    pub(crate) fn bindgen_facts() -> Vec<(Quantity, u64)> {
        Vec::new()
    }

    /// `8 * size_of` the field that `f` selects.
    #[cfg(not(innodb = "none"))]
    #[allow(dead_code)]
    fn field_size<T, F>(_f: fn(&T) -> &F) -> u64 {
        std::mem::size_of::<F>() as u64
    }

    /// Lowest set bit and number of set bits after `set` stores all ones into
    /// one bitfield of a zeroed `T` (bindgen's own bitfield accessors).
    // (unused for generations without bitfield probes, such as post-fix)
    #[cfg(not(innodb = "none"))]
    #[allow(dead_code)]
    fn bitfield_bits<T>(set: fn(&mut T)) -> (u64, u64) {
        // SAFETY: only instantiated with bindgen structs of integers, raw
        // pointers and opaque byte arrays, for which all-zero bytes are valid.
        let mut x: T = unsafe { std::mem::zeroed() };
        set(&mut x);
        // SAFETY: reading the bytes of a fully initialised plain struct.
        let bytes = unsafe {
            std::slice::from_raw_parts((&x as *const T).cast::<u8>(), std::mem::size_of::<T>())
        };
        scan_bits(bytes)
    }

    #[cfg(not(innodb = "none"))]
    #[allow(dead_code)]
    fn scan_bits(bytes: &[u8]) -> (u64, u64) {
        let mut lowest = u64::MAX;
        let mut count = 0;
        for i in 0..bytes.len() * 8 {
            if bytes[i / 8] >> (i % 8) & 1 == 1 {
                lowest = lowest.min(i as u64);
                count += 1;
            }
        }
        (lowest, count)
    }

    #[repr(C)]
    #[allow(dead_code)]
    struct Fact {
        kind: u32,
        ty: *const std::ffi::c_char,
        member: *const std::ffi::c_char,
        value: u64,
    }

    #[cfg(not(innodb = "none"))]
    #[link(name = "innodb_shim", kind = "static")]
    unsafe extern "C" {
        fn ffi_layout(out: *mut Fact, cap: usize) -> usize;
    }

    #[cfg(not(innodb = "none"))]
    pub(crate) fn shim_facts() -> Vec<Measured> {
        // SAFETY: a null buffer with capacity 0 only counts.
        let n = unsafe { ffi_layout(std::ptr::null_mut(), 0) };
        let mut raw = Vec::with_capacity(n);
        // SAFETY: `raw` has room for `n` facts; the shim writes at most `cap`.
        unsafe {
            let written = ffi_layout(raw.as_mut_ptr(), n);
            assert_eq!(written, n);
            raw.set_len(n);
        }
        raw.iter()
            .map(|f| {
                // SAFETY: the shim points at string literals.
                let (ty, member) = unsafe { (c_str(f.ty), c_str(f.member)) };
                let what = match f.kind {
                    0 => Quantity::Size(ty),
                    1 => Quantity::Offset(ty, member),
                    2 => Quantity::BitOffset(ty, member),
                    3 => Quantity::BitWidth(ty, member),
                    4 => Quantity::Width(ty, member),
                    k => panic!("shim reported unknown fact kind {k}"),
                };
                Measured {
                    what,
                    value: f.value,
                }
            })
            .collect()
    }

    #[cfg(innodb = "none")]
    pub(crate) fn shim_facts() -> Vec<Measured> {
        Vec::new()
    }

    /// # Safety
    /// `p` points at a NUL-terminated string literal of the shim.
    #[cfg(not(innodb = "none"))]
    unsafe fn c_str(p: *const std::ffi::c_char) -> &'static str {
        // SAFETY: per the contract, a 'static C string literal.
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_str()
            .expect("ASCII member names")
    }

    // --- pre-fix decision functions (10.5 and 10.11 shims) ---

    #[cfg(any(innodb = "10.5", innodb = "10.11"))]
    #[link(name = "innodb_shim", kind = "static")]
    unsafe extern "C" {
        fn ffi_set_accessed(access_time: u32, now: u64, new_access_time: *mut u32) -> bool;
        fn ffi_peek_if_young(
            pool_clock: u32,
            block_clock: u32,
            curr_size: u64,
            old_ratio: u64,
        ) -> bool;
        #[allow(clippy::too_many_arguments)]
        fn ffi_peek_if_too_old(
            pool_clock: u32,
            block_clock: u32,
            old: bool,
            access_time: u32,
            now: u64,
            curr_size: u64,
            old_ratio: u64,
            threshold_ms: u32,
            not_made_young: *mut u64,
        ) -> bool;
    }

    #[cfg(any(innodb = "10.5", innodb = "10.11"))]
    pub(crate) fn set_accessed(access_time: u32, now: u64) -> Option<(bool, u32)> {
        let mut new = 0;
        // SAFETY: plain values and one valid out pointer; the caller holds the shim lock.
        let not_first = unsafe { ffi_set_accessed(access_time, now, &mut new) };
        Some((not_first, new))
    }

    #[cfg(any(innodb = "10.5", innodb = "10.11"))]
    pub(crate) fn peek_if_young(
        pool_clock: u32,
        block_clock: u32,
        curr_size: u64,
        old_ratio: u64,
    ) -> Option<bool> {
        // SAFETY: plain values; the caller holds the shim lock.
        Some(unsafe { ffi_peek_if_young(pool_clock, block_clock, curr_size, old_ratio) })
    }

    #[cfg(any(innodb = "10.5", innodb = "10.11"))]
    pub(crate) fn peek_if_too_old(i: &Eager) -> Option<(bool, u64)> {
        let mut n = 0;
        // SAFETY: plain values and one valid out pointer; the caller holds the shim lock.
        let r = unsafe {
            ffi_peek_if_too_old(
                i.pool_clock,
                i.block_clock,
                i.old,
                i.access_time,
                i.now_ms,
                i.curr_size,
                i.old_ratio,
                i.threshold_ms,
                &mut n,
            )
        };
        Some((r, n))
    }

    #[cfg(not(any(innodb = "10.5", innodb = "10.11")))]
    pub(crate) fn set_accessed(_: u32, _: u64) -> Option<(bool, u32)> {
        None
    }

    #[cfg(not(any(innodb = "10.5", innodb = "10.11")))]
    pub(crate) fn peek_if_young(_: u32, _: u32, _: u64, _: u64) -> Option<bool> {
        None
    }

    #[cfg(not(any(innodb = "10.5", innodb = "10.11")))]
    pub(crate) fn peek_if_too_old(_: &Eager) -> Option<(bool, u64)> {
        None
    }

    // --- MySQL ---

    #[cfg(innodb = "mysql")]
    #[link(name = "innodb_shim", kind = "static")]
    unsafe extern "C" {
        fn ffi_mysql_set_accessed(access_ns: i64, now_ns: i64) -> i64;
        fn ffi_mysql_peek_if_young(
            pool_clock: u64,
            stamp: u32,
            curr_size: u64,
            old_ratio: u64,
        ) -> bool;
        #[allow(clippy::too_many_arguments)]
        fn ffi_mysql_peek_if_too_old(
            pool_clock: u64,
            stamp: u32,
            old: bool,
            access_ns: i64,
            now_ns: i64,
            curr_size: u64,
            old_ratio: u64,
            threshold_ms: u32,
            not_made_young: *mut u64,
        ) -> bool;
    }

    #[cfg(innodb = "mysql")]
    pub(crate) fn mysql_set_accessed(access_ns: i64, now_ns: i64) -> Option<i64> {
        // SAFETY: plain values; the caller holds the shim lock.
        Some(unsafe { ffi_mysql_set_accessed(access_ns, now_ns) })
    }

    #[cfg(innodb = "mysql")]
    pub(crate) fn mysql_peek_if_young(
        pool_clock: u64,
        stamp: u32,
        curr_size: u64,
        old_ratio: u64,
    ) -> Option<bool> {
        // SAFETY: plain values; the caller holds the shim lock.
        Some(unsafe { ffi_mysql_peek_if_young(pool_clock, stamp, curr_size, old_ratio) })
    }

    #[cfg(innodb = "mysql")]
    pub(crate) fn mysql_peek_if_too_old(
        i: &lru_model::decide::mysql::EagerInput,
    ) -> Option<(bool, u64)> {
        let mut n = 0;
        // SAFETY: plain values and one valid out pointer; the caller holds the shim lock.
        let r = unsafe {
            ffi_mysql_peek_if_too_old(
                i.pool_clock,
                i.stamp,
                i.old,
                i.access_ns,
                i.now_ns,
                i.curr_size,
                i.old_ratio,
                i.threshold_ms,
                &mut n,
            )
        };
        Some((r, n))
    }

    #[cfg(not(innodb = "mysql"))]
    pub(crate) fn mysql_set_accessed(_: i64, _: i64) -> Option<i64> {
        None
    }

    #[cfg(not(innodb = "mysql"))]
    pub(crate) fn mysql_peek_if_young(_: u64, _: u32, _: u64, _: u64) -> Option<bool> {
        None
    }

    #[cfg(not(innodb = "mysql"))]
    pub(crate) fn mysql_peek_if_too_old(
        _: &lru_model::decide::mysql::EagerInput,
    ) -> Option<(bool, u64)> {
        None
    }

    // --- 10.5: inline buf_page_make_young_if_needed() ---

    #[cfg(innodb = "10.5")]
    #[link(name = "innodb_shim", kind = "static")]
    unsafe extern "C" {
        #[allow(clippy::too_many_arguments)]
        fn ffi_make_young_if_needed(
            pool_clock: u32,
            block_clock: u32,
            old: bool,
            access_time: u32,
            now: u64,
            curr_size: u64,
            old_ratio: u64,
            threshold_ms: u32,
            not_made_young: *mut u64,
        ) -> u64;
    }

    #[cfg(innodb = "10.5")]
    pub(crate) fn make_young_if_needed_eager(i: &Eager) -> Option<(u64, u64)> {
        let mut n = 0;
        // SAFETY: plain values and one valid out pointer; the caller holds the shim lock.
        let calls = unsafe {
            ffi_make_young_if_needed(
                i.pool_clock,
                i.block_clock,
                i.old,
                i.access_time,
                i.now_ms,
                i.curr_size,
                i.old_ratio,
                i.threshold_ms,
                &mut n,
            )
        };
        Some((calls, n))
    }

    #[cfg(not(innodb = "10.5"))]
    pub(crate) fn make_young_if_needed_eager(_: &Eager) -> Option<(u64, u64)> {
        None
    }

    // --- post-fix ---

    #[cfg(innodb = "post-fix")]
    #[link(name = "innodb_shim", kind = "static")]
    unsafe extern "C" {
        fn ffi_touch_no_stamp(
            promote: bool,
            old: bool,
            lookup: bool,
            access_time: u16,
            access_clock: u16,
            threshold: u16,
        ) -> bool;
        #[allow(clippy::too_many_arguments)]
        fn ffi_make_young_if_needed(
            count_not_young: bool,
            only_old: bool,
            promote: bool,
            old: bool,
            access_time: u16,
            calls: *mut u64,
            made_young: *mut u64,
            not_made_young: *mut u64,
        ) -> bool;
    }

    #[cfg(innodb = "post-fix")]
    #[link(name = "innodb_shim", kind = "static")]
    unsafe extern "C" {
        fn ffi_touch(
            promote: bool,
            old: bool,
            lookup: bool,
            access_time: u16,
            access_clock: u16,
            threshold: u16,
            new_access_time: *mut u16,
            promote_after: *mut bool,
        ) -> bool;
        fn ffi_clock_from_timer_ns(timer_ns: u64) -> u16;
        fn ffi_set_old_threshold_ms(ms: u32, time_threshold: *mut u32) -> u16;
    }

    #[cfg(innodb = "post-fix")]
    pub(crate) fn touch(
        promote: bool,
        old: bool,
        lookup: bool,
        access_time: u16,
        access_clock: u16,
        threshold: u16,
    ) -> Option<(bool, u16, bool)> {
        let (mut stamp, mut flagged) = (0, false);
        // SAFETY: plain values and valid out pointers; the caller holds the shim lock.
        let not_first = unsafe {
            ffi_touch(
                promote,
                old,
                lookup,
                access_time,
                access_clock,
                threshold,
                &mut stamp,
                &mut flagged,
            )
        };
        Some((not_first, stamp, flagged))
    }

    #[cfg(innodb = "post-fix")]
    pub(crate) fn clock_from_timer_ns(timer_ns: u64) -> Option<u16> {
        // SAFETY: a plain value; the caller holds the shim lock.
        Some(unsafe { ffi_clock_from_timer_ns(timer_ns) })
    }

    #[cfg(innodb = "post-fix")]
    pub(crate) fn set_old_threshold_ms(ms: u32) -> Option<(u16, u32)> {
        let mut time = 0;
        // SAFETY: a plain value and a valid out pointer; the caller holds the shim lock.
        let threshold = unsafe { ffi_set_old_threshold_ms(ms, &mut time) };
        Some((threshold, time))
    }

    #[cfg(not(innodb = "post-fix"))]
    pub(crate) fn touch(
        _: bool,
        _: bool,
        _: bool,
        _: u16,
        _: u16,
        _: u16,
    ) -> Option<(bool, u16, bool)> {
        None
    }

    #[cfg(not(innodb = "post-fix"))]
    pub(crate) fn clock_from_timer_ns(_: u64) -> Option<u16> {
        None
    }

    #[cfg(not(innodb = "post-fix"))]
    pub(crate) fn set_old_threshold_ms(_: u32) -> Option<(u16, u32)> {
        None
    }

    #[cfg(innodb = "post-fix")]
    pub(crate) fn touch_no_stamp(
        promote: bool,
        old: bool,
        lookup: bool,
        access_time: u16,
        access_clock: u16,
        threshold: u16,
    ) -> Option<bool> {
        // SAFETY: plain values; the caller holds the shim lock.
        Some(unsafe {
            ffi_touch_no_stamp(promote, old, lookup, access_time, access_clock, threshold)
        })
    }

    #[cfg(innodb = "post-fix")]
    pub(crate) fn make_young_if_needed(
        count_not_young: bool,
        only_old: bool,
        promote: bool,
        old: bool,
        access_time: u16,
    ) -> Option<super::real::Sweep> {
        let (mut calls, mut y, mut n) = (0, 0, 0);
        // SAFETY: plain values and valid out pointers; the caller holds the shim lock.
        let moved = unsafe {
            ffi_make_young_if_needed(
                count_not_young,
                only_old,
                promote,
                old,
                access_time,
                &mut calls,
                &mut y,
                &mut n,
            )
        };
        Some(super::real::Sweep {
            moved,
            make_young_calls: calls,
            made_young: y,
            not_made_young: n,
        })
    }

    #[cfg(not(innodb = "post-fix"))]
    pub(crate) fn touch_no_stamp(
        _: bool,
        _: bool,
        _: bool,
        _: u16,
        _: u16,
        _: u16,
    ) -> Option<bool> {
        None
    }

    #[cfg(not(innodb = "post-fix"))]
    pub(crate) fn make_young_if_needed(
        _: bool,
        _: bool,
        _: bool,
        _: bool,
        _: u16,
    ) -> Option<super::real::Sweep> {
        None
    }
}
