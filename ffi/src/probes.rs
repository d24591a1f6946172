//! What the two layout probes measure, per tree generation.
//!
//! This file is shared by `build.rs` (which turns each list into C++ code for
//! the g++ shim and into Rust code over the bindgen structs) and by the
//! library. It only names members; it declares no values: the expected values
//! are the model's field map (`lru_model::layout`), whose `Layout` names
//! the layouts both sides know.

use lru_model::layout::Layout;
use tree_source::{find_definition, squash, strip_comments, Generation};

/// Whose descriptor layout a tree has: the generation's own, except that a
/// post-fix tree may be 10.11 or 11.8 with our port of the fix, which keeps
/// that series' layout where upstream moved `modify_clock` into
/// `buf_page_t`: the layout of a tree of `generation` whose `buf0buf.h`
/// reads `buf0buf_h`. Upstream's post-fix descriptor is recognised by `modify_clock_low`;
/// any other post-fix tree is taken to be ours (the layout check then
/// says whether that holds). 11.8's `buf_block_t` is recognised by its
/// `ahi_left_bytes_fields`, which replaced `n_bytes`/`n_fields`.
pub fn detect_layout(generation: Generation, buf0buf_h: &str) -> Layout {
    let ahi_of_11 = buf0buf_h.contains("ahi_left_bytes_fields");
    match generation {
        Generation::V10_5 => Layout::V10_5,
        Generation::V10_11 if ahi_of_11 => Layout::V11_8,
        Generation::V10_11 => Layout::V10_11,
        Generation::PostFix if buf0buf_h.contains("modify_clock_low") => Layout::PostFix,
        Generation::PostFix if ahi_of_11 => Layout::V11_8Fixed,
        Generation::PostFix => Layout::V10_11Fixed,
        Generation::MySql => Layout::MySql9_7,
    }
}

/// The form of `buf_page_peek_if_young()` in a pre-fix tree: the rule
/// changed between releases (MDEV-41036, MariaDB/server PR 5678). The
/// variant names are those of `lru_model::decide::YoungRule`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YoungForm {
    /// `clock < bpage->freed_page_clock + window` (10.5.23, 10.11.18)
    StampPlusWindow,
    /// `((clock - bpage->freed_page_clock) & mask) < window` (MDEV-41036)
    ModularAge,
}

impl YoungForm {
    /// The form of `buf_page_peek_if_young()` in `text` (the tree's
    /// `buf0buf.inl`, or `buf0buf.h` where it is defined there): `Ok(None)`
    /// when the function is not defined (post-fix trees), an error when it
    /// is defined but neither form is recognised.
    pub fn detect(text: &str) -> Result<Option<YoungForm>, String> {
        let Some(def) = find_definition(text, "bool buf_page_peek_if_young(") else {
            return Ok(None);
        };
        let code = squash(&strip_comments(def.body));
        let sum = code.contains("bpage->freed_page_clock+");
        let age = code.contains("-bpage->freed_page_clock)");
        match (sum, age) {
            (true, false) => Ok(Some(YoungForm::StampPlusWindow)),
            (false, true) => Ok(Some(YoungForm::ModularAge)),
            _ => Err(format!(
                "buf_page_peek_if_young() is neither `clock < bpage->freed_page_clock + window` \
                 nor `((clock - bpage->freed_page_clock) & mask) < window`: {code}"
            )),
        }
    }
}

/// The access-side rules of a post-fix tree, read from its `buf0buf.h`:
/// the tick of `buf_pool.access_clock` and which blocks an access flags
/// only past `LRU_old_threshold`. Upstream's fix and our port tick once a
/// second and check every block; our remedies change one or both
/// (patches/10.11/fixed-fine-clock.md, patches/10.11/fixed-fine-young.md,
/// patches/10.11/fixed-lookup.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LazyRules {
    /// `buf_pool_t::CLOCK_TICK_MS`, or the fix's whole second where the
    /// header has none
    pub clock_tick_ms: u32,
    /// which blocks `touch_no_stamp()` flags without the age check: none
    /// (the fix), those that are not old (`OldOnly`), those that are not
    /// old when a lookup asks for them (`Lookup`), or those that are not old
    /// when a lookup asks for them or has reached them since their read
    /// (`LookedUp`)
    pub young_touch: lru_model::decide::YoungTouch,
}

impl LazyRules {
    /// The rules of the post-fix header `buf0buf_h`.
    pub fn detect(buf0buf_h: &str) -> Result<LazyRules, String> {
        let code = squash(&strip_comments(buf0buf_h));
        let clock_tick_ms = match code.find("CLOCK_TICK_MS=") {
            None => lru_model::decide::LAZY_CLOCK_TICK_MS,
            Some(at) => {
                let digits: String = code[at + "CLOCK_TICK_MS=".len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                digits
                    .parse()
                    .map_err(|_| format!("CLOCK_TICK_MS is not a number: {digits:?}"))?
            }
        };
        // upstream's takes no argument, the lookup-touch remedy's a bool
        let def = find_definition(buf0buf_h, "void buf_page_t::touch_no_stamp(")
            .ok_or("no definition of buf_page_t::touch_no_stamp()")?;
        let body = squash(&strip_comments(def.body));
        use lru_model::decide::YoungTouch;
        let young_touch = if body.contains("&&page_zip_des_t::old(s)") {
            YoungTouch::OldOnly
        } else if body.contains("&&(!lookup||page_zip_des_t::old(s))") {
            YoungTouch::Lookup
        } else if body.contains("&&(!in_use||page_zip_des_t::old(s))") {
            // the looked-up rule: a lookup sets looked_up, which lets any
            // later access flag the block while it is young
            YoungTouch::LookedUp
        } else {
            YoungTouch::AgeChecked
        };
        Ok(LazyRules {
            clock_tick_ms,
            young_touch,
        })
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
const ZIP: &str = "page_zip_des_t";

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

/// 10.11.18 with patches/10.11/fixed.patch (fixed.md: "Differences from
/// upstream's API and layout"): 10.11's list without `old` and
/// `freed_page_clock`, the private 16-bit `access_time` in their place, and
/// the packed `page_zip_des_t::state` that holds PROMOTE and OLD.
pub const PROBES_10_11_FIXED: &[Probe] = &[
    size(PAGE),
    field(PAGE, "id_"),
    field(PAGE, "hash").rust("__bindgen_anon_1"),
    field(PAGE, "oldest_modification_").private("Atomic_relaxed<lsn_t>"),
    field(PAGE, "lock"),
    field(PAGE, "frame"),
    field(PAGE, "zip"),
    field(PAGE, "list"),
    field(PAGE, "LRU"),
    field(PAGE, "access_time")
        .private("Atomic_relaxed<uint16_t>")
        .width(),
    size(ZIP),
    field(ZIP, "state")
        .private("Atomic_relaxed<uint16_t>")
        .width(),
    field(ZIP, "fix").private("Atomic_relaxed<uint32_t>"),
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

/// 11.8.6 (include/buf0buf.h): 10.11.18's `buf_page_t`; `buf_block_t`
/// with the adaptive hash index fields of 11.x.
pub const PROBES_11_8: &[Probe] = &[
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
    field(BLOCK, "ahi_left_bytes_fields"),
    field(BLOCK, "n_hash_helps"),
    field(BLOCK, "index"),
];

/// 11.8.6 with patches/11.8/fixed.patch: the `buf_page_t` and
/// `page_zip_des_t` of [`PROBES_10_11_FIXED`], the `buf_block_t` of
/// [`PROBES_11_8`].
pub const PROBES_11_8_FIXED: &[Probe] = &[
    size(PAGE),
    field(PAGE, "id_"),
    field(PAGE, "hash").rust("__bindgen_anon_1"),
    field(PAGE, "oldest_modification_").private("Atomic_relaxed<lsn_t>"),
    field(PAGE, "lock"),
    field(PAGE, "frame"),
    field(PAGE, "zip"),
    field(PAGE, "list"),
    field(PAGE, "LRU"),
    field(PAGE, "access_time")
        .private("Atomic_relaxed<uint16_t>")
        .width(),
    size(ZIP),
    field(ZIP, "state")
        .private("Atomic_relaxed<uint16_t>")
        .width(),
    field(ZIP, "fix").private("Atomic_relaxed<uint32_t>"),
    size(BLOCK),
    field(BLOCK, "page"),
    field(BLOCK, "unzip_LRU"),
    field(BLOCK, "modify_clock"),
    field(BLOCK, "ahi_left_bytes_fields"),
    field(BLOCK, "n_hash_helps"),
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

/// MySQL 9.7.2 (include/buf0buf.h:1380-1730, `buf_block_t` from :1764):
/// every member of `buf_page_t` in a release build, and where `buf_block_t`
/// puts its lock, frame and unzip list after it.
pub const PROBES_MYSQL_9_7: &[Probe] = &[
    size(PAGE),
    field(PAGE, "id"),
    field(PAGE, "size"),
    field(PAGE, "buf_fix_count"),
    field(PAGE, "io_fix").private("copyable_atomic_t<buf_io_fix>"),
    field(PAGE, "state"),
    field(PAGE, "flush_type"),
    field(PAGE, "buf_pool_index"),
    field(PAGE, "hash"),
    field(PAGE, "list"),
    field(PAGE, "newest_modification").private("lsn_t"),
    field(PAGE, "oldest_modification").private("lsn_t"),
    field(PAGE, "LRU"),
    field(PAGE, "zip"),
    field(PAGE, "m_flush_observer"),
    field(PAGE, "m_space"),
    field(PAGE, "freed_page_clock").width(),
    field(PAGE, "m_version"),
    field(PAGE, "access_time").width(),
    field(PAGE, "m_dblwr_id").private("uint16_t"),
    field(PAGE, "old").width(),
    size(BLOCK),
    field(BLOCK, "page"),
    field(BLOCK, "lock"),
    field(BLOCK, "frame"),
    field(BLOCK, "unzip_LRU"),
];

/// The probe list of a layout.
pub fn probes(layout: Layout) -> &'static [Probe] {
    match layout {
        Layout::V10_5 => PROBES_10_5,
        Layout::V10_11 => PROBES_10_11,
        Layout::V10_11Fixed => PROBES_10_11_FIXED,
        Layout::V11_8 => PROBES_11_8,
        Layout::V11_8Fixed => PROBES_11_8_FIXED,
        Layout::PostFix => PROBES_POST_FIX,
        Layout::MySql9_7 => PROBES_MYSQL_9_7,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mysql_has_its_layout() {
        let mysql = "  uint32_t freed_page_clock;\n  uint32_t m_version{};\n  \
                     std::chrono::steady_clock::time_point access_time;\n  bool old;";
        assert_eq!(detect_layout(Generation::MySql, mysql), Layout::MySql9_7);
    }

    #[test]
    fn reads_each_young_rule_from_the_condition_of_touch_no_stamp() {
        use lru_model::decide::YoungTouch;
        let header = |condition: &str| {
            format!(
                "static constexpr uint32_t CLOCK_TICK_MS= 100;\n\
                 inline void buf_page_t::touch_no_stamp(bool lookup) noexcept\n{{\n\
                 /* a comment: && page_zip_des_t::old(s) */\n\
                 if (threshold && {condition})\n  {{ return; }}\n}}\n"
            )
        };
        for (condition, rule) in [
            ("page_zip_des_t::old(s)", YoungTouch::OldOnly),
            ("(!lookup || page_zip_des_t::old(s))", YoungTouch::Lookup),
            ("(!in_use || page_zip_des_t::old(s))", YoungTouch::LookedUp),
            ("!old_enough", YoungTouch::AgeChecked),
        ] {
            let rules = LazyRules::detect(&header(condition)).unwrap();
            assert_eq!(
                (rules.young_touch, rules.clock_tick_ms),
                (rule, 100),
                "{condition}"
            );
        }
        assert!(LazyRules::detect("struct buf_page_t {};").is_err());
    }

    #[test]
    fn every_list_measures_both_sizes_and_access_time() {
        for l in Layout::all() {
            let list = probes(l);
            for ty in ["buf_page_t", "buf_block_t"] {
                assert!(
                    list.iter().any(|p| p.kind == Kind::Size && p.ty == ty),
                    "{l:?}: no sizeof({ty})"
                );
            }
            assert!(
                list.iter().any(|p| p.member == "access_time" && p.width),
                "{l:?}: access_time width not measured"
            );
        }
    }

    #[test]
    fn tells_our_post_fix_layout_from_upstreams() {
        let ours = "block_lock lock;\n  Atomic_relaxed<uint16_t> access_time;\n\
                    inline void touch_no_stamp() noexcept;";
        let upstream = "uint32_t modify_clock_low;\n uint16_t modify_clock_high;\n\
                        inline void touch_no_stamp() noexcept;";
        let g = |t| Generation::detect(t).unwrap();
        assert_eq!(detect_layout(g(ours), ours), Layout::V10_11Fixed);
        assert_eq!(detect_layout(g(upstream), upstream), Layout::PostFix);
        let v10_11 = "class buf_page_t {\n  block_lock lock;\n\tunsigned\tfreed_page_clock:31;";
        assert_eq!(detect_layout(g(v10_11), v10_11), Layout::V10_11);
        let ahi = "\n  Atomic_relaxed<uint32_t> ahi_left_bytes_fields;";
        let v11_8 = format!("{v10_11}{ahi}");
        assert_eq!(detect_layout(g(&v11_8), &v11_8), Layout::V11_8);
        let ours_11_8 = format!("{ours}{ahi}");
        assert_eq!(detect_layout(g(&ours_11_8), &ours_11_8), Layout::V11_8Fixed);
        let upstream_ahi = format!("{upstream}{ahi}");
        assert_eq!(
            detect_layout(g(&upstream_ahi), &upstream_ahi),
            Layout::PostFix
        );
    }

    /// 10.11.18's include/buf0buf.inl:35-43, as written there.
    const SUM_FORM: &str = "/** Determine ...\n@return whether bpage is close to MRU end of LRU */\n\
        inline bool buf_page_peek_if_young(const buf_page_t *bpage)\n{\n\
        \t/* FIXME: bpage->freed_page_clock is 31 bits */\n\
        \treturn((buf_pool.freed_page_clock & ((1UL << 31) - 1))\n\
        \t       < (bpage->freed_page_clock\n\
        \t\t  + (buf_pool.curr_size()\n\
        \t\t     * (BUF_LRU_OLD_RATIO_DIV - buf_pool.LRU_old_ratio)\n\
        \t\t     / (BUF_LRU_OLD_RATIO_DIV * 4))));\n}\n\
        inline bool buf_page_peek_if_too_old(const buf_page_t *bpage)\n{ return bpage->freed_page_clock + 1; }\n";

    /// patches/10.11/mdev-41036.patch, as it writes the function.
    const AGE_FORM: &str = "inline bool buf_page_peek_if_young(const buf_page_t *bpage)\n{\n\
        \t/* MDEV-41036: ... clock - bpage->freed_page_clock + x */\n\
        \tconstexpr uint32_t clock_mask= (1U << 31) - 1;\n\
        \tconst uint32_t age= (buf_pool.freed_page_clock\n\
        \t\t\t     - bpage->freed_page_clock) & clock_mask;\n\
        \treturn age < buf_pool.curr_size()\n\
        \t\t* (BUF_LRU_OLD_RATIO_DIV - buf_pool.LRU_old_ratio)\n\
        \t\t/ (BUF_LRU_OLD_RATIO_DIV * 4);\n}\n";

    #[test]
    fn tells_the_two_peek_if_young_forms_apart() {
        // a declaration before the definition is skipped, comments and the
        // next function do not count
        let declared =
            format!("inline bool buf_page_peek_if_young(const buf_page_t *bpage);\n{SUM_FORM}");
        assert_eq!(
            YoungForm::detect(&declared),
            Ok(Some(YoungForm::StampPlusWindow))
        );
        assert_eq!(YoungForm::detect(AGE_FORM), Ok(Some(YoungForm::ModularAge)));
        assert_eq!(YoungForm::detect("void touch_no_stamp();"), Ok(None));
        let neither =
            "inline bool buf_page_peek_if_young(const buf_page_t *b)\n{ return b->x < 3; }";
        let err = YoungForm::detect(neither).unwrap_err();
        assert!(
            err.contains("neither") && err.contains("returnb->x<3;"),
            "{err}"
        );
    }
}
