//! The model's declared field map of the InnoDB block descriptors.
//!
//! The model reasons about `buf_page_t` and `buf_block_t` (the size of a
//! descriptor, where the LRU fields live, how wide the clock stamp and the
//! access time are). This module writes those assumptions down per series so
//! that the `ffi` crate can check them against the real headers of a tree,
//! compiled twice (bindgen/libclang and g++ with the server's flags).
//!
//! All values are for x86_64 release builds (`UNIV_DEBUG` off) with
//! `BTR_CUR_HASH_ADAPT`, configured with the project's cmake options.
//! Offsets and sizes are in bytes; bit offsets count from bit 0 of the first
//! byte of the structure (little-endian) and widths are in bits.

use std::fmt;

/// A descriptor layout the model knows: a tree generation's, or ours on a
/// series we ported the fix to (the `ffi` crate detects a tree's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// 10.5 (for example Debian's 10.5.23): per-block `rw_lock_t` in `buf_block_t`.
    V10_5,
    /// 10.6 .. 10.11 (for example Debian's 10.11.18): `block_lock` and `frame`
    /// moved into `buf_page_t`, state/io-fix/buffer-fix merged into `zip.fix`.
    V10_11,
    /// 10.11 with our port of the MDEV-33966 fix (patches/10.11/fixed.patch):
    /// `old:1`/`freed_page_clock:31` removed, the 16-bit `access_time` in
    /// their place, PROMOTE and OLD in `page_zip_des_t::state`;
    /// `modify_clock` stays in `buf_block_t`.
    V10_11Fixed,
    /// 11.8 (for example Debian's 11.8.6): 10.11's `buf_page_t`; in
    /// `buf_block_t` the adaptive hash index fields were rewritten
    /// (`ahi_left_bytes_fields` replaces `n_bytes`, `n_fields`, `left_side`
    /// and the `curr_*` bitfields), 152 bytes instead of 160.
    V11_8,
    /// 11.8 with our port (patches/11.8/fixed.patch): the `buf_page_t` and
    /// `page_zip_des_t` of [`Layout::V10_11Fixed`], 11.8's `buf_block_t`.
    V11_8Fixed,
    /// After MDEV-33966 / MDEV-37992 upstream: `old:1`/`freed_page_clock:31`
    /// removed, 16-bit `access_time` (seconds clock), `modify_clock` moved
    /// into `buf_page_t`.
    PostFix,
    /// MySQL 9.7 (for example Debian's 9.7.2): the descriptor MySQL kept
    /// from 5.7/8.0, with `old` a `bool`, the stamp a plain `uint32_t`
    /// `freed_page_clock` and `access_time` a 64-bit
    /// `std::chrono::steady_clock::time_point`; its own lock and mutex
    /// types in `buf_block_t`.
    MySql9_7,
}

impl Layout {
    /// Every layout, oldest first.
    pub fn all() -> [Layout; 7] {
        [
            Layout::V10_5,
            Layout::V10_11,
            Layout::V10_11Fixed,
            Layout::V11_8,
            Layout::V11_8Fixed,
            Layout::PostFix,
            Layout::MySql9_7,
        ]
    }

    /// The field map the model declares for this layout.
    pub fn field_map(self) -> &'static FieldMap {
        match self {
            Layout::V10_5 => &FIELD_MAP_10_5,
            Layout::V10_11 => &FIELD_MAP_10_11,
            Layout::V10_11Fixed => &FIELD_MAP_10_11_FIXED,
            Layout::V11_8 => &FIELD_MAP_11_8,
            Layout::V11_8Fixed => &FIELD_MAP_11_8_FIXED,
            Layout::PostFix => &FIELD_MAP_POST_FIX,
            Layout::MySql9_7 => &FIELD_MAP_MYSQL_9_7,
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layout::V10_5 => "10.5",
            Layout::V10_11 => "10.11",
            Layout::V10_11Fixed => "10.11+fixed.patch",
            Layout::V11_8 => "11.8",
            Layout::V11_8Fixed => "11.8+fixed.patch",
            Layout::PostFix => "post-fix",
            Layout::MySql9_7 => "mysql-9.7",
        })
    }
}

/// One measurable property of a structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Quantity {
    /// `sizeof(ty)` in bytes.
    Size(&'static str),
    /// `offsetof(ty, member)` in bytes.
    Offset(&'static str, &'static str),
    /// Position of the lowest bit of a bitfield, in bits from the start of `ty`.
    BitOffset(&'static str, &'static str),
    /// Width of a bitfield, in bits.
    BitWidth(&'static str, &'static str),
    /// Width of a (non-bitfield) member, in bits: `8 * sizeof(member)`.
    Width(&'static str, &'static str),
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Quantity::Size(ty) => write!(f, "sizeof({ty})"),
            Quantity::Offset(ty, m) => write!(f, "offsetof({ty}, {m})"),
            Quantity::BitOffset(ty, m) => write!(f, "bit offset of {ty}::{m}"),
            Quantity::BitWidth(ty, m) => write!(f, "bit width of {ty}::{m}"),
            Quantity::Width(ty, m) => write!(f, "width of {ty}::{m} in bits"),
        }
    }
}

/// A declared value of one [`Quantity`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fact {
    /// What is declared.
    pub what: Quantity,
    /// Its value (bytes for sizes and offsets, bits otherwise).
    pub value: u64,
}

/// The model's field map for one series.
#[derive(Debug)]
pub struct FieldMap {
    /// The series this map describes.
    pub series: Layout,
    /// Whether the values were confirmed by compiling real headers (false for
    /// the post-fix map, which was computed by hand from the sources).
    pub compiled: bool,
    /// The declared facts.
    pub facts: &'static [Fact],
}

impl FieldMap {
    /// The declared value of `what`, if the map declares it.
    pub fn get(&self, what: Quantity) -> Option<u64> {
        self.facts.iter().find(|f| f.what == what).map(|f| f.value)
    }

    /// `sizeof(buf_page_t)`.
    pub fn page_size(&self) -> u64 {
        self.get(Quantity::Size(PAGE))
            .expect("every map declares sizeof(buf_page_t)")
    }

    /// `sizeof(buf_block_t)`.
    pub fn block_size(&self) -> u64 {
        self.get(Quantity::Size(BLOCK))
            .expect("every map declares sizeof(buf_block_t)")
    }

    /// Width of `buf_page_t::access_time` in bits (32: milliseconds; 16:
    /// seconds clock; 64: MySQL's nanoseconds of `steady_clock`).
    pub fn access_time_bits(&self) -> u64 {
        self.get(Quantity::Width(PAGE, "access_time"))
            .expect("every map declares the width of access_time")
    }

    /// Width of `buf_page_t::freed_page_clock` in bits, if the series has
    /// it (a 31-bit bitfield in MariaDB, a `uint32_t` in MySQL).
    pub fn freed_page_clock_bits(&self) -> Option<u64> {
        self.get(Quantity::BitWidth(PAGE, "freed_page_clock"))
            .or_else(|| self.get(Quantity::Width(PAGE, "freed_page_clock")))
    }
}

const PAGE: &str = "buf_page_t";
const BLOCK: &str = "buf_block_t";
const ZIP: &str = "page_zip_des_t";

const fn size(ty: &'static str, value: u64) -> Fact {
    Fact {
        what: Quantity::Size(ty),
        value,
    }
}
const fn off(ty: &'static str, m: &'static str, value: u64) -> Fact {
    Fact {
        what: Quantity::Offset(ty, m),
        value,
    }
}
const fn bit_off(ty: &'static str, m: &'static str, value: u64) -> Fact {
    Fact {
        what: Quantity::BitOffset(ty, m),
        value,
    }
}
const fn bit_width(ty: &'static str, m: &'static str, value: u64) -> Fact {
    Fact {
        what: Quantity::BitWidth(ty, m),
        value,
    }
}
const fn width(ty: &'static str, m: &'static str, value: u64) -> Fact {
    Fact {
        what: Quantity::Width(ty, m),
        value,
    }
}

/// 10.11.18, include/buf0buf.h:478-1009 (research notes, part B.1/B.2).
static FIELD_MAP_10_11: FieldMap = FieldMap {
    series: Layout::V10_11,
    compiled: true,
    facts: &[
        size(PAGE, 112),
        off(PAGE, "id_", 0),
        off(PAGE, "hash", 8),
        off(PAGE, "oldest_modification_", 16),
        off(PAGE, "lock", 24),
        off(PAGE, "frame", 48),
        off(PAGE, "zip", 56),
        off(PAGE, "list", 72),
        off(PAGE, "LRU", 88),
        // `unsigned old:1; unsigned freed_page_clock:31;` share the word at 104.
        bit_off(PAGE, "old", 104 * 8),
        bit_width(PAGE, "old", 1),
        bit_off(PAGE, "freed_page_clock", 104 * 8 + 1),
        bit_width(PAGE, "freed_page_clock", 31),
        off(PAGE, "access_time", 108),
        width(PAGE, "access_time", 32),
        size(BLOCK, 160),
        off(BLOCK, "page", 0),
        off(BLOCK, "unzip_LRU", 112),
        off(BLOCK, "modify_clock", 128),
        off(BLOCK, "n_bytes", 136),
        off(BLOCK, "n_fields", 138),
        off(BLOCK, "n_hash_helps", 140),
        off(BLOCK, "left_side", 142),
        bit_off(BLOCK, "curr_n_fields", 144 * 8),
        bit_width(BLOCK, "curr_n_fields", 10),
        bit_off(BLOCK, "curr_n_bytes", 144 * 8 + 10),
        bit_width(BLOCK, "curr_n_bytes", 15),
        bit_off(BLOCK, "curr_left_side", 144 * 8 + 25),
        bit_width(BLOCK, "curr_left_side", 1),
        off(BLOCK, "index", 152),
    ],
};

/// 10.11.18 with patches/10.11/fixed.patch (fixed.md, "Differences from
/// upstream's API and layout"): `buf_page_t` keeps 10.11's members up to
/// `LRU`; the 32-bit word of `old:1`/`freed_page_clock:31` at 104 now holds
/// the private `Atomic_relaxed<uint16_t> access_time` (2 bytes of padding
/// follow, so the size stays 112). `page_zip_des_t` is `data` (8),
/// `uint16_t m_end` (8), the private `Atomic_relaxed<uint16_t> state` (10:
/// ssize, NONEMPTY, PROMOTE, OLD, n_blobs) and `fix` (12): 16 bytes, as
/// before. `buf_block_t` is unchanged from 10.11.18.
static FIELD_MAP_10_11_FIXED: FieldMap = FieldMap {
    series: Layout::V10_11Fixed,
    compiled: true,
    facts: &[
        size(PAGE, 112),
        off(PAGE, "id_", 0),
        off(PAGE, "hash", 8),
        off(PAGE, "oldest_modification_", 16),
        off(PAGE, "lock", 24),
        off(PAGE, "frame", 48),
        off(PAGE, "zip", 56),
        off(PAGE, "list", 72),
        off(PAGE, "LRU", 88),
        off(PAGE, "access_time", 104),
        width(PAGE, "access_time", 16),
        size(ZIP, 16),
        off(ZIP, "state", 10),
        width(ZIP, "state", 16),
        off(ZIP, "fix", 12),
        size(BLOCK, 160),
        off(BLOCK, "page", 0),
        off(BLOCK, "unzip_LRU", 112),
        off(BLOCK, "modify_clock", 128),
        off(BLOCK, "n_bytes", 136),
        off(BLOCK, "n_fields", 138),
        off(BLOCK, "n_hash_helps", 140),
        off(BLOCK, "left_side", 142),
        bit_off(BLOCK, "curr_n_fields", 144 * 8),
        bit_width(BLOCK, "curr_n_fields", 10),
        bit_off(BLOCK, "curr_n_bytes", 144 * 8 + 10),
        bit_width(BLOCK, "curr_n_bytes", 15),
        bit_off(BLOCK, "curr_left_side", 144 * 8 + 25),
        bit_width(BLOCK, "curr_left_side", 1),
        off(BLOCK, "index", 152),
    ],
};

/// 11.8.6, include/buf0buf.h (shared/research/mariadb-11.8.md, "Layout"):
/// `buf_page_t` as in 10.11.18; `buf_block_t` ends with the 32-bit
/// `ahi_left_bytes_fields`, the 16-bit `n_hash_helps` and `index`.
static FIELD_MAP_11_8: FieldMap = FieldMap {
    series: Layout::V11_8,
    compiled: true,
    facts: &[
        size(PAGE, 112),
        off(PAGE, "id_", 0),
        off(PAGE, "hash", 8),
        off(PAGE, "oldest_modification_", 16),
        off(PAGE, "lock", 24),
        off(PAGE, "frame", 48),
        off(PAGE, "zip", 56),
        off(PAGE, "list", 72),
        off(PAGE, "LRU", 88),
        bit_off(PAGE, "old", 104 * 8),
        bit_width(PAGE, "old", 1),
        bit_off(PAGE, "freed_page_clock", 104 * 8 + 1),
        bit_width(PAGE, "freed_page_clock", 31),
        off(PAGE, "access_time", 108),
        width(PAGE, "access_time", 32),
        size(BLOCK, 152),
        off(BLOCK, "page", 0),
        off(BLOCK, "unzip_LRU", 112),
        off(BLOCK, "modify_clock", 128),
        off(BLOCK, "ahi_left_bytes_fields", 136),
        off(BLOCK, "n_hash_helps", 140),
        off(BLOCK, "index", 144),
    ],
};

/// 11.8.6 with patches/11.8/fixed.patch: the descriptor change of
/// [`FIELD_MAP_10_11_FIXED`] (the 16-bit `access_time` at 104, PROMOTE and
/// OLD in `page_zip_des_t::state` at 10) on 11.8's `buf_block_t`.
static FIELD_MAP_11_8_FIXED: FieldMap = FieldMap {
    series: Layout::V11_8Fixed,
    compiled: true,
    facts: &[
        size(PAGE, 112),
        off(PAGE, "id_", 0),
        off(PAGE, "hash", 8),
        off(PAGE, "oldest_modification_", 16),
        off(PAGE, "lock", 24),
        off(PAGE, "frame", 48),
        off(PAGE, "zip", 56),
        off(PAGE, "list", 72),
        off(PAGE, "LRU", 88),
        off(PAGE, "access_time", 104),
        width(PAGE, "access_time", 16),
        size(ZIP, 16),
        off(ZIP, "state", 10),
        width(ZIP, "state", 16),
        off(ZIP, "fix", 12),
        size(BLOCK, 152),
        off(BLOCK, "page", 0),
        off(BLOCK, "unzip_LRU", 112),
        off(BLOCK, "modify_clock", 128),
        off(BLOCK, "ahi_left_bytes_fields", 136),
        off(BLOCK, "n_hash_helps", 140),
        off(BLOCK, "index", 144),
    ],
};

/// 10.5.23, include/buf0buf.h:751-1049 and the following `buf_block_t`
/// (research notes, part B.3), built with performance_schema (the project's
/// build options keep it), so `rw_lock_t` is 88 bytes.
static FIELD_MAP_10_5: FieldMap = FieldMap {
    series: Layout::V10_5,
    compiled: true,
    facts: &[
        size(PAGE, 112),
        off(PAGE, "id_", 0),
        off(PAGE, "buf_fix_count_", 8),
        off(PAGE, "oldest_modification_", 16),
        off(PAGE, "io_fix_", 24),
        off(PAGE, "state_", 28),
        off(PAGE, "hash", 32),
        off(PAGE, "zip", 40),
        off(PAGE, "slot", 56),
        off(PAGE, "list", 64),
        off(PAGE, "LRU", 80),
        bit_off(PAGE, "old", 96 * 8),
        bit_width(PAGE, "old", 1),
        bit_off(PAGE, "freed_page_clock", 96 * 8 + 1),
        bit_width(PAGE, "freed_page_clock", 31),
        off(PAGE, "access_time", 100),
        width(PAGE, "access_time", 32),
        off(PAGE, "ibuf_exist", 104),
        off(PAGE, "status", 108),
        size(BLOCK, 256),
        off(BLOCK, "page", 0),
        off(BLOCK, "frame", 112),
        off(BLOCK, "lock", 120),
        off(BLOCK, "unzip_LRU", 208),
        off(BLOCK, "modify_clock", 224),
        off(BLOCK, "n_bytes", 232),
        off(BLOCK, "n_fields", 234),
        off(BLOCK, "n_hash_helps", 236),
        off(BLOCK, "left_side", 238),
        bit_off(BLOCK, "curr_n_fields", 240 * 8),
        bit_width(BLOCK, "curr_n_fields", 10),
        bit_off(BLOCK, "curr_n_bytes", 240 * 8 + 10),
        bit_width(BLOCK, "curr_n_bytes", 15),
        bit_off(BLOCK, "curr_left_side", 240 * 8 + 25),
        bit_width(BLOCK, "curr_left_side", 1),
        off(BLOCK, "index", 248),
    ],
};

/// Post-fix (MariaDB/server commit 180a9db4, include/buf0buf.h; research
/// notes, part B.5). Computed by hand, not compiled: no post-fix tree was
/// available to configure.
static FIELD_MAP_POST_FIX: FieldMap = FieldMap {
    series: Layout::PostFix,
    compiled: false,
    facts: &[
        size(PAGE, 112),
        off(PAGE, "id_", 0),
        off(PAGE, "hash", 8),
        off(PAGE, "oldest_modification_", 16),
        off(PAGE, "modify_clock_low", 24),
        off(PAGE, "modify_clock_high", 28),
        off(PAGE, "access_time", 30),
        width(PAGE, "access_time", 16),
        off(PAGE, "lock", 32),
        off(PAGE, "frame", 56),
        off(PAGE, "zip", 64),
        off(PAGE, "list", 80),
        off(PAGE, "LRU", 96),
        size(BLOCK, 144),
        off(BLOCK, "page", 0),
        off(BLOCK, "unzip_LRU", 112),
        off(BLOCK, "ahi_left_bytes_fields", 128),
        off(BLOCK, "n_hash_helps", 132),
        off(BLOCK, "index", 136),
    ],
};

/// MySQL 9.7.2, include/buf0buf.h:1380-1730 (`buf_page_t`) and :1764 on
/// (`buf_block_t`), a release build (`UNIV_DEBUG` off) with
/// performance_schema, as `cargo xtask ffi check` compiles it (bindgen and
/// g++ agreed on every value): a 136-byte descriptor (MariaDB's is 112),
/// its 16-byte `page_zip_des_t` at 80, the 32-bit stamp at 112, the 64-bit
/// access time at 120 and `old` a byte of its own at 130; the 120-byte
/// `BPageLock` puts the frame pointer at 256 of a 368-byte `buf_block_t`.
static FIELD_MAP_MYSQL_9_7: FieldMap = FieldMap {
    series: Layout::MySql9_7,
    compiled: true,
    facts: &[
        size(PAGE, 136),
        off(PAGE, "id", 0),
        off(PAGE, "size", 8),
        off(PAGE, "buf_fix_count", 16),
        off(PAGE, "io_fix", 20),
        off(PAGE, "state", 21),
        off(PAGE, "flush_type", 22),
        off(PAGE, "buf_pool_index", 23),
        off(PAGE, "hash", 24),
        off(PAGE, "list", 32),
        off(PAGE, "newest_modification", 48),
        off(PAGE, "oldest_modification", 56),
        off(PAGE, "LRU", 64),
        off(PAGE, "zip", 80),
        off(PAGE, "m_flush_observer", 96),
        off(PAGE, "m_space", 104),
        off(PAGE, "freed_page_clock", 112),
        width(PAGE, "freed_page_clock", 32),
        off(PAGE, "m_version", 116),
        off(PAGE, "access_time", 120),
        width(PAGE, "access_time", 64),
        off(PAGE, "m_dblwr_id", 128),
        off(PAGE, "old", 130),
        width(PAGE, "old", 8),
        size(BLOCK, 368),
        off(BLOCK, "page", 0),
        off(BLOCK, "lock", 136),
        off(BLOCK, "frame", 256),
        off(BLOCK, "unzip_LRU", 264),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_are_self_consistent() {
        for s in Layout::all() {
            let m = s.field_map();
            assert_eq!(m.series, s);
            let mut seen = std::collections::BTreeSet::new();
            for f in m.facts {
                assert!(seen.insert(f.what), "{s}: {} declared twice", f.what);
                if let Quantity::Offset(ty, _) = f.what {
                    let sz = m.get(Quantity::Size(ty)).unwrap();
                    assert!(f.value < sz, "{s}: {} beyond {ty}", f.what);
                }
            }
            assert!(matches!(m.access_time_bits(), 16 | 32 | 64));
        }
    }
}
