//! The generation of a tree's buffer pool, read from its `buf0buf.h`.

use std::path::Path;

/// The tree's `storage/innobase/include/buf0buf.h` and the generation it
/// shows; `read` is told the file (a build script's `rerun-if-changed`).
pub fn read_generation(
    src: &Path,
    read: impl FnOnce(&Path),
) -> Result<(Generation, String), String> {
    let header = src.join("storage/innobase/include/buf0buf.h");
    read(&header);
    let text = std::fs::read_to_string(&header)
        .map_err(|e| format!("cannot read {}: {e}", header.display()))?;
    let generation = Generation::detect(&text).ok_or_else(|| {
        format!(
            "cannot tell the generation of {}: none of the 10.5, 10.11, post-fix or MySQL markers \
             found",
            header.display()
        )
    })?;
    Ok((generation, text))
}

/// The generation of a tree, detected from its `buf0buf.h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generation {
    /// 10.5-style: inline `buf_page_make_young_if_needed()`, `rw_lock_t` in `buf_block_t`.
    V10_5,
    /// 10.6..11.8-style (before the fix): `block_lock` in `buf_page_t`,
    /// out-of-line make-young; 11.8's descriptors differ in `buf_block_t`
    /// only, which [`detect_layout`] tells apart.
    V10_11,
    /// Post-fix (MDEV-33966): `touch_no_stamp()` and `buf_pool.access_clock`.
    PostFix,
    /// MySQL (9.7): the classic rule in `buf0buf.ic`, a
    /// `std::chrono::steady_clock::time_point` access time, a buffer pool of
    /// instances reached through `buf_pool_ptr`.
    MySql,
}

impl Generation {
    /// The `cfg(innodb = "...")` value, also the series name of the model.
    pub fn name(self) -> &'static str {
        match self {
            Generation::V10_5 => "10.5",
            Generation::V10_11 => "10.11",
            Generation::PostFix => "post-fix",
            Generation::MySql => "mysql",
        }
    }

    /// The engine whose trees have this generation.
    pub fn engine(self) -> lru_model::series::Engine {
        match self {
            Generation::MySql => lru_model::series::Engine::MySql,
            _ => lru_model::series::Engine::MariaDb,
        }
    }

    /// Tell the generation from the text of `storage/innobase/include/buf0buf.h`.
    pub fn detect(buf0buf_h: &str) -> Option<Generation> {
        if buf0buf_h.contains(MYSQL_ACCESS_TIME) {
            Some(Generation::MySql)
        } else if lru_model::series::carries_upstream_fix(buf0buf_h) {
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

/// MySQL's `buf_page_t::access_time`, which no MariaDB tree declares.
const MYSQL_ACCESS_TIME: &str = "std::chrono::steady_clock::time_point access_time;";

#[cfg(test)]
mod tests {
    use super::Generation;

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
        let mysql = "  uint32_t freed_page_clock;\n  uint32_t m_version{};\n  \
                     std::chrono::steady_clock::time_point access_time;\n  bool old;";
        assert_eq!(Generation::detect(mysql), Some(Generation::MySql));
        assert_eq!(Generation::detect("struct buf_page_t {};"), None);
    }
}
