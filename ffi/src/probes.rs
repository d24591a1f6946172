//! What the two layout probes measure, per tree generation.
//!
//! This file is shared by `build.rs` (which turns each list into C++ code for
//! the g++ shim and into Rust code over the bindgen structs) and by the
//! library. It only names members; it declares no values: the expected values
//! are the model's field map (`lru_model::layout`).

/// The generation of a tree, detected from its `buf0buf.h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// 10.5-style: inline `buf_page_make_young_if_needed()`, `rw_lock_t` in `buf_block_t`.
    V10_5,
    /// 10.6..10.11-style: `block_lock` in `buf_page_t`, out-of-line make-young.
    V10_11,
    /// Post-fix (MDEV-33966): `touch_no_stamp()` and `buf_pool.access_clock`.
    PostFix,
}

impl Generation {
    /// The `cfg(innodb = "...")` value, also the series name of the model.
    pub fn name(self) -> &'static str {
        match self {
            Generation::V10_5 => "10.5",
            Generation::V10_11 => "10.11",
            Generation::PostFix => "post-fix",
        }
    }

    /// Tell the generation from the text of `storage/innobase/include/buf0buf.h`.
    pub fn detect(buf0buf_h: &str) -> Option<Generation> {
        if buf0buf_h.contains("touch_no_stamp") || buf0buf_h.contains("access_clock") {
            Some(Generation::PostFix)
        } else if buf0buf_h.contains("inline void buf_page_make_young_if_needed(") {
            Some(Generation::V10_5)
        } else if buf0buf_h.contains("block_lock lock;")
            && buf0buf_h.contains("freed_page_clock:31")
        {
            Some(Generation::V10_11)
        } else {
            None
        }
    }
}

/// Which kind of value a probe reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `sizeof(ty)`
    Size,
    /// `offsetof(ty, member)`, and with `width` also `8 * sizeof(member)`
    Offset,
    /// lowest bit and width of a bitfield (found by setting it to all ones in
    /// a zeroed object and scanning the bytes)
    Bits,
}

/// One member (or the whole type) to measure.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    /// C++ type name (`buf_page_t`, `buf_block_t`)
    pub ty: &'static str,
    /// C++ member name (empty for `Kind::Size`)
    pub member: &'static str,
    /// what to measure
    pub kind: Kind,
    /// bindgen's field name, when it differs from the C++ name (anonymous unions)
    pub rust: Option<&'static str>,
    /// the C++ type of a private member: the shim forms a member pointer to
    /// it through explicit instantiation, which ignores access control and
    /// leaves the class (and its layout) untouched
    pub private: Option<&'static str>,
    /// also measure the width of the member in bits
    pub width: bool,
}

impl Probe {
    const fn new(ty: &'static str, member: &'static str, kind: Kind) -> Probe {
        Probe {
            ty,
            member,
            kind,
            rust: None,
            private: None,
            width: false,
        }
    }
    const fn rust(mut self, name: &'static str) -> Probe {
        self.rust = Some(name);
        self
    }
    const fn private(mut self, cxx_type: &'static str) -> Probe {
        self.private = Some(cxx_type);
        self
    }
    const fn width(mut self) -> Probe {
        self.width = true;
        self
    }
    /// bindgen's name of the member
    pub fn rust_name(&self) -> &'static str {
        self.rust.unwrap_or(self.member)
    }
}

const PAGE: &str = "buf_page_t";
const BLOCK: &str = "buf_block_t";

const fn size(ty: &'static str) -> Probe {
    Probe::new(ty, "", Kind::Size)
}
const fn field(ty: &'static str, m: &'static str) -> Probe {
    Probe::new(ty, m, Kind::Offset)
}
const fn bits(ty: &'static str, m: &'static str) -> Probe {
    Probe::new(ty, m, Kind::Bits)
}

/// 10.11.18 (include/buf0buf.h:478-1009)
pub const PROBES_10_11: &[Probe] = &[
    size(PAGE),
    field(PAGE, "id_"),
    field(PAGE, "hash").rust("__bindgen_anon_1"),
    field(PAGE, "oldest_modification_").private("Atomic_relaxed<lsn_t>"),
    field(PAGE, "lock"),
    field(PAGE, "frame"),
    field(PAGE, "zip"),
    field(PAGE, "list"),
    field(PAGE, "LRU"),
    bits(PAGE, "old"),
    bits(PAGE, "freed_page_clock"),
    field(PAGE, "access_time").width(),
    size(BLOCK),
    field(BLOCK, "page"),
    field(BLOCK, "unzip_LRU"),
    field(BLOCK, "modify_clock"),
    field(BLOCK, "n_bytes"),
    field(BLOCK, "n_fields"),
    field(BLOCK, "n_hash_helps"),
    field(BLOCK, "left_side"),
    bits(BLOCK, "curr_n_fields"),
    bits(BLOCK, "curr_n_bytes"),
    bits(BLOCK, "curr_left_side"),
    field(BLOCK, "index"),
];

/// 10.5.23 (include/buf0buf.h:751-1049 and `buf_block_t` after it)
pub const PROBES_10_5: &[Probe] = &[
    size(PAGE),
    field(PAGE, "id_"),
    field(PAGE, "buf_fix_count_").private("Atomic_counter<uint32_t>"),
    field(PAGE, "oldest_modification_").private("Atomic_relaxed<lsn_t>"),
    field(PAGE, "io_fix_").private("Atomic_relaxed<buf_io_fix>"),
    field(PAGE, "state_").private("buf_page_state"),
    field(PAGE, "hash"),
    field(PAGE, "zip"),
    field(PAGE, "slot"),
    field(PAGE, "list"),
    field(PAGE, "LRU"),
    bits(PAGE, "old"),
    bits(PAGE, "freed_page_clock"),
    field(PAGE, "access_time").width(),
    field(PAGE, "ibuf_exist"),
    field(PAGE, "status"),
    size(BLOCK),
    field(BLOCK, "page"),
    field(BLOCK, "frame"),
    field(BLOCK, "lock"),
    field(BLOCK, "unzip_LRU"),
    field(BLOCK, "modify_clock"),
    field(BLOCK, "n_bytes"),
    field(BLOCK, "n_fields"),
    field(BLOCK, "n_hash_helps"),
    field(BLOCK, "left_side"),
    bits(BLOCK, "curr_n_fields"),
    bits(BLOCK, "curr_n_bytes"),
    bits(BLOCK, "curr_left_side"),
    field(BLOCK, "index"),
];

/// Post-fix (MariaDB/server 180a9db4, include/buf0buf.h). Not compiled here:
/// no post-fix tree was available.
pub const PROBES_POST_FIX: &[Probe] = &[
    size(PAGE),
    field(PAGE, "id_").private("page_id_t"),
    field(PAGE, "hash").rust("__bindgen_anon_1"),
    field(PAGE, "oldest_modification_").private("Atomic_relaxed<lsn_t>"),
    field(PAGE, "modify_clock_low").private("uint32_t"),
    field(PAGE, "modify_clock_high").private("uint16_t"),
    field(PAGE, "access_time")
        .private("Atomic_relaxed<uint16_t>")
        .width(),
    field(PAGE, "lock"),
    field(PAGE, "frame"),
    field(PAGE, "zip"),
    field(PAGE, "list"),
    field(PAGE, "LRU"),
    size(BLOCK),
    field(BLOCK, "page"),
    field(BLOCK, "unzip_LRU"),
    field(BLOCK, "ahi_left_bytes_fields"),
    field(BLOCK, "n_hash_helps"),
    field(BLOCK, "index"),
];

/// The probe list of a generation.
pub fn probes(generation: Generation) -> &'static [Probe] {
    match generation {
        Generation::V10_5 => PROBES_10_5,
        Generation::V10_11 => PROBES_10_11,
        Generation::PostFix => PROBES_POST_FIX,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_generation_from_header_text() {
        let v10_5 = "inline void buf_page_make_young_if_needed(buf_page_t *bpage)\n\
                     unsigned\tfreed_page_clock:31;";
        let v10_11 = "class buf_page_t {\n  block_lock lock;\n\tunsigned\tfreed_page_clock:31;";
        let post = "  block_lock lock;\n  inline void touch_no_stamp() noexcept;\n\
                    Atomic_relaxed<uint16_t> access_clock;";
        assert_eq!(Generation::detect(v10_5), Some(Generation::V10_5));
        assert_eq!(Generation::detect(v10_11), Some(Generation::V10_11));
        assert_eq!(Generation::detect(post), Some(Generation::PostFix));
        assert_eq!(Generation::detect("struct buf_page_t {};"), None);
    }

    #[test]
    fn every_list_measures_both_sizes_and_access_time() {
        for g in [Generation::V10_5, Generation::V10_11, Generation::PostFix] {
            let list = probes(g);
            for ty in ["buf_page_t", "buf_block_t"] {
                assert!(
                    list.iter().any(|p| p.kind == Kind::Size && p.ty == ty),
                    "{}: no sizeof({ty})",
                    g.name()
                );
            }
            assert!(
                list.iter().any(|p| p.member == "access_time" && p.width),
                "{}: access_time width not measured",
                g.name()
            );
        }
    }
}
