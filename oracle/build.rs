//! Builds the oracle for one configured tree.
//!
//! The tree comes from `INNODB_SRC` and `INNODB_BUILD`, as for the `ffi`
//! crate (`cargo xtask oracle check --tree <spec>` sets them). Without them
//! the crate builds with no tree and its tests fail, saying how to build one
//! in. With a MariaDB tree of 10.11's or 11.8's read path, before the
//! MDEV-33966 fix or with our port of it:
//! 1. the tree's own `buf/buf0lru.cc` and `ut/ut0rnd.cc` are compiled whole,
//!    with the server's flags for each (from `compile_commands.json`);
//! 2. the definitions the LRU needs from files that cannot be compiled whole
//!    here (the page cleaner's LRU batch from `buf0flu.cc`, the free-block
//!    allocator, the page hash and `buf_page_create_low()` from
//!    `buf0buf.cc`, the read path's `buf_page_init_for_read()` from
//!    `buf0rea.cc`) are copied verbatim into
//!    `copied.inc`, each after a `#line` that names the tree's file;
//! 3. the glue (`shim/oracle_10_11.cc`, with `ORACLE_POST_FIX` for the
//!    port, whose access path is `touch()`) includes them with the stubs
//!    and offers the events and the snapshot as `extern "C"` functions.
//!
//! The glue turns the wait for a free block into a synchronous LRU batch;
//! the link wraps `pthread_cond_timedwait()` so that the wait after it
//! returns at once.
//!
//! A 10.5 tree has a glue of its own (`shim/oracle_10_5.cc`): its blocks
//! carry the old `rw_lock_t`, its reader runs the LRU batch itself
//! (`buf_flush_LRU()` is not static there) and its page cleaner runs none,
//! and its reads, creations and accesses take 10.5's forms
//! (`COPIED_10_5`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

use tree_source::Generation;

fn main() {
    println!("cargo::rerun-if-changed=shim");
    println!(
        "cargo::rustc-check-cfg=cfg(oracle, values(\"none\", \"unsupported\", \"10.5\", \"10.11\", \"post-fix\"))"
    );
    println!("cargo::rustc-check-cfg=cfg(oracle_lookup_touch)");
    println!("cargo::rustc-check-cfg=cfg(oracle_looked_up)");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let configured = tree_source::tree_from_env("cargo xtask oracle check --tree <spec>")
        .unwrap_or_else(|e| panic!("oracle: {e}"));
    let tree = match configured {
        None => {
            println!("cargo::rustc-cfg=oracle=\"none\"");
            "pub(crate) const TREE: Option<TreeInfo> = None;\n".to_string()
        }
        Some((src, build)) => {
            build_tree(&out, &src, &build).unwrap_or_else(|e| panic!("oracle: {e}"))
        }
    };
    write(out.join("tree.rs"), &tree);
}

/// The definitions every oracle copies from the tree, first: the page
/// cleaner's LRU batch (static in buf0flu.cc), the free list and the page
/// hash: `(file, the part of the head that names it)`.
const COPIED: &[(&str, &str)] = &[
    (
        "storage/innobase/buf/buf0flu.cc",
        "static ulint buf_free_from_unzip_LRU_list_batch(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "ATTRIBUTE_COLD static size_t buf_flush_LRU_to_withdraw(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "static void buf_flush_LRU_list_batch(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "static void buf_do_LRU_batch(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "static ulint buf_flush_LRU(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "ATTRIBUTE_COLD void buf_pool_t::LRU_warn()",
    ),
    (
        "storage/innobase/buf/buf0buf.cc",
        "buf_block_t *buf_pool_t::allocate()",
    ),
    (
        "storage/innobase/buf/buf0buf.cc",
        "void buf_pool_t::page_hash_table::create(",
    ),
    // what the creation of a page asks its mini-transaction: whether it
    // holds the page
    (
        "storage/innobase/mtr/mtr0mtr.cc",
        "bool mtr_t::have_x_latch(",
    ),
];

/// Then what the read and the creation of a page take, in the form of the
/// tree's read path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReadPath {
    /// 10.6 up to 11.4: `buf_page_init_for_read()` takes its block itself
    V10_11,
    /// 11.8: the caller takes the block and hands it over
    V11_8,
}

impl ReadPath {
    fn detect(buf0rea_cc: &str) -> Option<ReadPath> {
        if buf0rea_cc.contains("static buf_page_t* buf_page_init_for_read(ulint mode") {
            Some(ReadPath::V10_11)
        } else if buf0rea_cc.contains("static buf_page_t *buf_page_init_for_read(const page_id_t") {
            Some(ReadPath::V11_8)
        } else {
            None
        }
    }

    fn copied(self) -> &'static [(&'static str, &'static str)] {
        match self {
            ReadPath::V10_11 => &[
                (
                    "storage/innobase/buf/buf0buf.cc",
                    "UNIV_INLINE\nvoid\nbuf_block_init_low(",
                ),
                (
                    "storage/innobase/buf/buf0buf.cc",
                    "void buf_block_t::initialise(",
                ),
                (
                    "storage/innobase/buf/buf0rea.cc",
                    "TRANSACTIONAL_TARGET\nstatic buf_page_t* buf_page_init_for_read(",
                ),
                (
                    "storage/innobase/buf/buf0buf.cc",
                    "TRANSACTIONAL_TARGET\nstatic buf_block_t *buf_page_create_low(",
                ),
            ],
            ReadPath::V11_8 => &[
                (
                    "storage/innobase/buf/buf0buf.cc",
                    "static void buf_block_init_low(",
                ),
                (
                    "storage/innobase/buf/buf0buf.cc",
                    "void buf_block_t::initialise(",
                ),
                (
                    "storage/innobase/buf/buf0buf.cc",
                    "void\nbuf_pool_t::page_hash_table::append(",
                ),
                (
                    "storage/innobase/buf/buf0rea.cc",
                    "static buf_page_t *buf_page_init_for_read(const page_id_t",
                ),
                (
                    "storage/innobase/buf/buf0buf.cc",
                    "static buf_block_t *buf_page_create_low(",
                ),
            ],
        }
    }
}

/// What a 10.5 tree's oracle copies: the reader's LRU batch (10.5's page
/// cleaner runs none), the block's initialisation, the page hash, the read
/// path's `buf_page_init_for_read()`, `buf_page_create()` and the start of
/// its mini-transaction.
const COPIED_10_5: &[(&str, &str)] = &[
    (
        "storage/innobase/buf/buf0flu.cc",
        "static ulint buf_free_from_unzip_LRU_list_batch(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "static void buf_flush_LRU_list_batch(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "static ulint buf_do_LRU_batch(",
    ),
    (
        "storage/innobase/buf/buf0flu.cc",
        "ulint buf_flush_LRU(ulint max_n)",
    ),
    (
        "storage/innobase/buf/buf0buf.cc",
        "UNIV_INLINE\nvoid\nbuf_block_init_low(",
    ),
    (
        "storage/innobase/buf/buf0buf.cc",
        "void buf_block_t::initialise(",
    ),
    (
        "storage/innobase/buf/buf0buf.cc",
        "void buf_pool_t::page_hash_table::create(",
    ),
    (
        "storage/innobase/buf/buf0rea.cc",
        "static buf_page_t* buf_page_init_for_read(ulint mode",
    ),
    ("storage/innobase/mtr/mtr0mtr.cc", "void mtr_t::start()"),
    (
        "storage/innobase/buf/buf0buf.cc",
        "buf_block_t*\nbuf_page_create(fil_space_t *space",
    ),
];

/// What a 10.11 tree with our port of the fix (patches/10.11/fixed.patch)
/// adds: the access path's `touch()` (`touch(bool lookup)` in our lookup
/// remedies), the threshold in clock ticks and the access clock.
const COPIED_POST_FIX_10_11: &[(&str, &str)] = &[
    ("storage/innobase/buf/buf0buf.cc", "bool buf_page_t::touch("),
    (
        "storage/innobase/buf/buf0buf.cc",
        "void buf_pool_t::set_old_threshold_ms(",
    ),
    (
        "storage/innobase/buf/buf0buf.cc",
        "void buf_pool_t::update_old_threshold()",
    ),
    (
        "storage/innobase/srv/srv0srv.cc",
        "inline uint16_t buf_pool_t::now()",
    ),
    (
        "storage/innobase/srv/srv0srv.cc",
        "void buf_pool_t::refresh_clock()",
    ),
];

/// Our port of the fix keeps `LRU_old_threshold` at 0 while there is no
/// old sublist (`lru_model::ShortLru::FlagEveryAccess`); upstream's has
/// no such function.
const PORT_SHORT_LRU: &str = "void update_old_threshold() noexcept;";

/// Our remedies whose access path tells a lookup from other accesses
/// (`touch(bool lookup)`: fixed-lookup, -lookup-boundary, -young-boundary,
/// -looked-up, -lookup-mark and the traced build of -lookup-boundary).
const LOOKUP_TOUCH: &str = "bool touch(bool lookup= false) noexcept;";

/// Our looked-up remedies (patches/10.11/fixed-looked-up.patch,
/// fixed-lookup-mark.patch): a block carries a lookup's mark.
const LOOKED_UP: &str = "Atomic_relaxed<bool> looked_up;";

/// Types the copied definitions use, defined in a `.cc` file: a struct
/// definition ends in `;`, which the glue adds after the include.
const COPIED_TYPES: &[(&str, &str)] =
    &[("storage/innobase/buf/buf0flu.cc", "struct flush_counters_t")];

/// The tree's files compiled whole into the oracle.
const COMPILED: &[&str] = &[
    "storage/innobase/buf/buf0lru.cc",
    "storage/innobase/ut/ut0rnd.cc",
];

fn build_tree(out: &Path, src: &Path, build: &Path) -> Result<String, String> {
    println!(
        "cargo::rerun-if-changed={}",
        build.join("compile_commands.json").display()
    );
    let (generation, text) = tree_source::read_generation(src, |header| {
        println!("cargo::rerun-if-changed={}", header.display())
    })?;
    let version = tree_source::read_version(src, generation.engine());
    let read_path = src.join("storage/innobase/buf/buf0rea.cc");
    let read_path_form = ReadPath::detect(
        &fs::read_to_string(&read_path)
            .map_err(|e| format!("cannot read {}: {e}", read_path.display()))?,
    );
    let port = text.contains(PORT_SHORT_LRU);
    let lookup_touch = port && text.contains(LOOKUP_TOUCH);
    let looked_up = port && text.contains(LOOKED_UP);
    // which oracle the tree has, and why not where it has none; the model
    // policy of the tree as it is (a remedy's comes from its variant)
    let (cfg, policy, unsupported) = match generation {
        _ if read_path_form.is_none() => (
            "unsupported",
            "Eager",
            Some("its buf_page_init_for_read() has neither 10.11's form nor 11.8's"),
        ),
        Generation::V10_11 => ("10.11", "Eager", None),
        Generation::PostFix if port => ("post-fix", "LazyPort", None),
        Generation::PostFix => (
            "unsupported",
            "Lazy",
            Some("only our ports of the fix (update_old_threshold()) have an oracle yet"),
        ),
        Generation::V10_5 => ("10.5", "Eager10_5", None),
        Generation::MySql => (
            "unsupported",
            "Classic",
            Some("MySQL's LRU_list_mutex and per-block mutexes need its sync subsystem"),
        ),
    };
    let mut tree = String::new();
    write!(
        tree,
        "pub(crate) const TREE: Option<TreeInfo> = Some(TreeInfo {{ generation: Generation::{:?}, \
         version: {:?}, src: {:?}, build: {:?}, model: lru_model::ModelPolicy::{policy}, \
         lookup_touch: {lookup_touch}, looked_up: {looked_up}, unsupported: {:?} }});",
        generation,
        version,
        src.display().to_string(),
        build.display().to_string(),
        unsupported,
    )
    .unwrap();
    println!("cargo::rustc-cfg=oracle=\"{cfg}\"");
    if lookup_touch {
        println!("cargo::rustc-cfg=oracle_lookup_touch");
    }
    if looked_up {
        println!("cargo::rustc-cfg=oracle_looked_up");
    }
    if unsupported.is_some() {
        // the tests say why the tree has no oracle
        return Ok(tree);
    }
    let read = |path: &Path| println!("cargo::rerun-if-changed={}", path.display());
    write(
        out.join("copied_types.inc"),
        &tree_source::copy_definitions(src, COPIED_TYPES, read)?,
    );
    let read_path_form = read_path_form.expect("refused above");
    let mut copied = if generation == Generation::V10_5 {
        tree_source::copy_definitions(src, COPIED_10_5, read)?
    } else {
        let mut c = tree_source::copy_definitions(src, COPIED, read)?;
        c.push_str(&tree_source::copy_definitions(
            src,
            read_path_form.copied(),
            read,
        )?);
        c
    };
    if generation == Generation::PostFix {
        copied.push_str(&tree_source::copy_definitions(
            src,
            COPIED_POST_FIX_10_11,
            read,
        )?);
    }
    write(out.join("copied.inc"), &copied);
    let flags = tree_source::server_flags(build, "storage/innobase/buf/buf0lru.cc")?;
    let mut cc = compiler(&flags);
    let glue = if generation == Generation::V10_5 {
        "shim/oracle_10_5.cc"
    } else {
        "shim/oracle_10_11.cc"
    };
    cc.file(glue).include("shim").include(out);
    if generation == Generation::PostFix {
        cc.define("ORACLE_POST_FIX", "1");
    }
    if lookup_touch {
        cc.define("ORACLE_TOUCH_LOOKUP", "1");
    }
    if looked_up {
        cc.define("ORACLE_LOOKED_UP", "1");
    }
    if read_path_form == ReadPath::V11_8 {
        cc.define("ORACLE_READ_11_8", "1");
    }
    for file in COMPILED {
        let path = src.join(file);
        read(&path);
        // each file with its own flags, as the server compiles it
        let own = tree_source::server_flags(build, file)?;
        let mut one = compiler(&own);
        one.file(&path).compile(&format!(
            "oracle_tree_{}",
            Path::new(file).file_stem().unwrap().to_string_lossy()
        ));
    }
    cc.compile("oracle_glue");
    // the wait for a free block that follows the glue's synchronous batch
    println!("cargo::rustc-link-arg=-Wl,--wrap=pthread_cond_timedwait");
    Ok(tree)
}

fn compiler(flags: &[String]) -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .compiler("g++")
        .warnings(false)
        .extra_warnings(false)
        // the server's optimisation level for these files (last -O wins)
        .flag("-O2");
    for f in flags {
        b.flag(f);
    }
    b
}

fn write(path: impl AsRef<Path>, text: &str) {
    let path = path.as_ref();
    fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}
