//! Builds the two layout probes and the decision shim for one configured tree.
//!
//! The tree comes from `INNODB_SRC` (source root) and `INNODB_BUILD` (a build
//! directory configured with the project's cmake options plus
//! `CMAKE_EXPORT_COMPILE_COMMANDS=ON`, with `make GenError` run). Without them
//! the crate builds with no tree and its tests fail, pointing at
//! `cargo xtask ffi check --tree <spec>`.
//!
//! With a tree:
//! 1. the generation (10.5-style, 10.11-style, post-fix, or MySQL's) is read
//!    from `buf0buf.h`, and only the matching shim is compiled (MySQL's
//!    inline definitions are in `buf0buf.ic`, its version in
//!    `MYSQL_VERSION`, and its one out-of-line function the decisions call,
//!    `get_buf_LRU_old_threshold()`, is copied from `buf0lru.cc`); the layout (a
//!    post-fix tree may be upstream's or 10.11 with our fixed.patch) and the
//!    form of `buf_page_peek_if_young()` (`buf0buf.inl`: before or after
//!    MDEV-41036) are read from the headers too;
//! 2. the defines, include directories and `-std` of the server's own
//!    `storage/innobase/buf/buf0buf.cc` are taken from `compile_commands.json`;
//! 3. bindgen (libclang) generates the descriptor structs, and Rust code that
//!    measures them is generated from `src/probes.rs`;
//! 4. the shim is compiled with g++ and those flags, together with C++ code
//!    generated from the same probe list and, for post-fix trees, the
//!    out-of-line decision functions (`buf_page_t::touch()`,
//!    `buf_pool_t::set_old_threshold_ms()`, `now()`, `refresh_clock()`)
//!    copied verbatim from the tree's own `.cc` files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

#[path = "src/probes.rs"]
#[allow(dead_code)]
mod probes;

use lru_model::series::Engine;
use probes::{detect_layout, Kind, LazyRules, Probe, YoungForm};
use tree_source::Generation;

fn main() {
    println!("cargo::rerun-if-changed=shim");
    println!("cargo::rerun-if-changed=src/probes.rs");
    println!(
        "cargo::rustc-check-cfg=cfg(innodb, values(\"none\", \"10.5\", \"10.11\", \"post-fix\", \"mysql\"))"
    );
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let configured = tree_source::tree_from_env("cargo xtask ffi check --tree <spec>")
        .unwrap_or_else(|e| panic!("ffi: {e}"));
    match configured {
        None => write_no_tree(&out),
        Some((src, build)) => {
            if let Err(e) = build_tree(&out, &src, &build) {
                panic!("ffi: {e}");
            }
        }
    }
}

/// No tree: an empty crate whose API reports "not configured".
fn write_no_tree(out: &Path) {
    println!("cargo::rustc-cfg=innodb=\"none\"");
    write(
        out.join("tree.rs"),
        "pub(crate) const TREE: Option<TreeInfo> = None;\n",
    );
}

fn build_tree(out: &Path, src: &Path, build: &Path) -> Result<(), String> {
    let header = src.join("storage/innobase/include/buf0buf.h");
    let (generation, text) = tree_source::read_generation(src, |_| {})?;
    let layout = detect_layout(generation, &text);
    let engine = generation.engine();
    // MySQL kept InnoDB's old name for the inline definitions
    let inl = src.join(match engine {
        Engine::MariaDb => "storage/innobase/include/buf0buf.inl",
        Engine::MySql => "storage/innobase/include/buf0buf.ic",
    });
    let inl_text = fs::read_to_string(&inl).unwrap_or_default();
    let young = YoungForm::detect(&format!("{inl_text}\n{text}"))
        .map_err(|e| format!("{} / {}: {e}", inl.display(), header.display()))?;
    if young.is_none() && generation != Generation::PostFix {
        return Err(format!(
            "no definition of buf_page_peek_if_young() in {} or {}",
            inl.display(),
            header.display()
        ));
    }
    // lru_model::decide::mysql reproduces the sum form only
    if generation == Generation::MySql && young != Some(YoungForm::StampPlusWindow) {
        return Err(format!(
            "{}: MySQL's buf_page_peek_if_young() is not `clock < stamp + window`, the form \
             lru_model::decide::mysql reproduces",
            inl.display()
        ));
    }
    let lazy_rules = match generation {
        Generation::PostFix => {
            Some(LazyRules::detect(&text).map_err(|e| format!("{}: {e}", header.display()))?)
        }
        _ => None,
    };
    let version = tree_source::read_version(src, engine);
    let flags = tree_source::server_flags(build, "storage/innobase/buf/buf0buf.cc")?;
    println!("cargo::rustc-cfg=innodb=\"{}\"", generation.name());
    println!(
        "cargo::rerun-if-changed={}",
        build.join("compile_commands.json").display()
    );
    println!("cargo::rerun-if-changed={}", header.display());
    println!("cargo::rerun-if-changed={}", inl.display());

    let list = probes::probes(layout);
    write(out.join("probes.inc"), &cxx_probes(list));
    write(out.join("probes_bindgen.rs"), &rust_probes(list));
    match generation {
        Generation::PostFix => write(
            out.join("out_of_line.inc"),
            &out_of_line(src, OUT_OF_LINE_POST_FIX)?,
        ),
        Generation::MySql => write(
            out.join("out_of_line.inc"),
            &out_of_line(src, OUT_OF_LINE_MYSQL)?,
        ),
        Generation::V10_5 | Generation::V10_11 => {}
    }
    run_bindgen(out, engine, &flags)?;
    compile_shim(out, generation, &flags);

    let mut tree = String::new();
    writeln!(
        tree,
        "pub(crate) const TREE: Option<TreeInfo> = Some(TreeInfo {{ generation: Generation::{:?}, \
         layout: Layout::{:?}, young_rule: {}, lazy_rules: {}, version: {:?}, src: {:?}, \
         build: {:?}, flags: &{:?} }});",
        generation,
        layout,
        match young {
            Some(form) => format!("Some(lru_model::decide::YoungRule::{form:?})"),
            None => "None".to_string(),
        },
        match lazy_rules {
            Some(r) => format!(
                "Some(LazyRules {{ clock_tick_ms: {}, young_touch: \
                 lru_model::decide::YoungTouch::{:?} }})",
                r.clock_tick_ms, r.young_touch
            ),
            None => "None".to_string(),
        },
        version,
        src.display().to_string(),
        build.display().to_string(),
        flags
    )
    .unwrap();
    write(out.join("tree.rs"), &tree);
    Ok(())
}

/// The out-of-line functions of a post-fix tree that the decision check
/// runs: (file, the part of the definition's head that names it). Copied
/// verbatim, each after a `#line` that points at its source, so that the
/// shim runs the tree's own code and compile errors name the tree's file.
const OUT_OF_LINE_POST_FIX: &[(&str, &str)] = &[
    ("storage/innobase/buf/buf0buf.cc", "buf_page_t::touch("),
    (
        "storage/innobase/buf/buf0buf.cc",
        "buf_pool_t::set_old_threshold_ms(",
    ),
    ("storage/innobase/srv/srv0srv.cc", "buf_pool_t::now()"),
    (
        "storage/innobase/srv/srv0srv.cc",
        "buf_pool_t::refresh_clock()",
    ),
];

/// MySQL's one out-of-line function that `buf_page_peek_if_too_old()`
/// calls: the threshold as `std::chrono::milliseconds`.
const OUT_OF_LINE_MYSQL: &[(&str, &str)] = &[(
    "storage/innobase/buf/buf0lru.cc",
    "std::chrono::milliseconds get_buf_LRU_old_threshold()",
)];

/// C++ that fills `ffi_fact`s from the probe list (included by the shim).
fn cxx_probes(list: &[Probe]) -> String {
    let mut s = String::from("/* generated by build.rs from src/probes.rs */\n");
    s.push_str("#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Woverflow\"\n");
    s.push_str("#pragma GCC diagnostic ignored \"-Wconversion\"\n");
    for (i, p) in list.iter().enumerate() {
        if let Some(t) = p.private {
            writeln!(
                s,
                "struct ffi_tag_{i} {{ typedef {t} {ty}::*type; friend type ffi_get(ffi_tag_{i}); }};\n\
                 template struct ffi_rob<ffi_tag_{i}, &{ty}::{m}>;",
                ty = p.ty,
                m = p.member
            )
            .unwrap();
        }
    }
    s.push_str("extern \"C\" size_t ffi_layout(ffi_fact *out, size_t cap)\n{\n  size_t n= 0;\n");
    for (i, p) in list.iter().enumerate() {
        let (ty, m) = (p.ty, p.member);
        let member = match p.private {
            Some(_) => format!("(p->*ffi_get(ffi_tag_{i}()))"),
            None => format!("(p->{m})"),
        };
        match p.kind {
            Kind::Size => {
                writeln!(s, "  FFI_PUSH(FFI_SIZE, \"{ty}\", \"\", sizeof({ty}));").unwrap()
            }
            Kind::Offset => {
                writeln!(
                    s,
                    "  {{ {ty} *p= ffi_zeroed<{ty}>();\n    \
                     FFI_PUSH(FFI_OFFSET, \"{ty}\", \"{m}\", ffi_offset(p, &{member}));"
                )
                .unwrap();
                if p.width {
                    writeln!(
                        s,
                        "    FFI_PUSH(FFI_WIDTH, \"{ty}\", \"{m}\", 8 * sizeof {member});"
                    )
                    .unwrap();
                }
                s.push_str("  }\n");
            }
            Kind::Bits => writeln!(
                s,
                "  {{ {ty} *p= ffi_zeroed<{ty}>(); p->{m}= ~0U; uint64_t lo, w;\n    \
                 ffi_scan_bits(p, sizeof *p, &lo, &w);\n    \
                 FFI_PUSH(FFI_BIT_OFFSET, \"{ty}\", \"{m}\", lo);\n    \
                 FFI_PUSH(FFI_BIT_WIDTH, \"{ty}\", \"{m}\", w); }}"
            )
            .unwrap(),
        }
    }
    s.push_str("  return n;\n}\n#pragma GCC diagnostic pop\n");
    s
}

/// Rust that measures the bindgen structs from the probe list (included by
/// the library's private `sys` module).
fn rust_probes(list: &[Probe]) -> String {
    let mut s = String::from(
        "// generated by build.rs from src/probes.rs\n\
         pub(crate) fn bindgen_facts() -> Vec<(Quantity, u64)> {\n    let mut v = Vec::new();\n",
    );
    for p in list {
        let (ty, m, r) = (p.ty, p.member, p.rust_name());
        match p.kind {
            Kind::Size => writeln!(
                s,
                "    v.push((Quantity::Size(\"{ty}\"), std::mem::size_of::<bindings::{ty}>() as u64));"
            )
            .unwrap(),
            Kind::Offset => {
                writeln!(
                    s,
                    "    v.push((Quantity::Offset(\"{ty}\", \"{m}\"), std::mem::offset_of!(bindings::{ty}, {r}) as u64));"
                )
                .unwrap();
                if p.width {
                    writeln!(
                        s,
                        "    v.push((Quantity::Width(\"{ty}\", \"{m}\"), 8 * field_size(|x: &bindings::{ty}| &x.{r})));"
                    )
                    .unwrap();
                }
            }
            Kind::Bits => writeln!(
                s,
                "    {{ let (lo, w) = bitfield_bits(|x: &mut bindings::{ty}| x.set_{m}(!0));\n      \
                 v.push((Quantity::BitOffset(\"{ty}\", \"{m}\"), lo));\n      \
                 v.push((Quantity::BitWidth(\"{ty}\", \"{m}\"), w)); }}"
            )
            .unwrap(),
        }
    }
    s.push_str("    v\n}\n");
    s
}

fn run_bindgen(out: &Path, engine: Engine, flags: &[String]) -> Result<(), String> {
    let wrapper = out.join("wrapper.hpp");
    write(&wrapper, "#include \"univ.i\"\n#include \"buf0buf.h\"\n");
    let builder = bindgen::Builder::default()
        .header(wrapper.display().to_string())
        .clang_args(["-x", "c++", "-O2"])
        .clang_args(flags.iter().map(|f| clang_flag(f)))
        .allowlist_type("buf_page_t|buf_block_t|page_zip_des_t|page_id_t")
        // Locks, atomics, list nodes and library templates only matter by
        // size and alignment here.
        .opaque_type(
            "block_lock|sux_lock.*|ssux_lock.*|srw_.*|rw_lock_t|rw_lock|ib_mutex_t|Atomic_.*",
        )
        .opaque_type("std::.*|ut_list_node.*|dict_index_t|buf_tmp_buffer_t|buf_pool_t|os_event.*");
    let builder = match engine {
        Engine::MariaDb => builder,
        // MySQL's own atomics, mutex policies and the descriptor's nested
        // adaptive-hash state
        Engine::MySql => builder
            .opaque_type("copyable_atomic_t.*|PolicyMutex.*|BPageMutex|BPageLock|page_size_t")
            .opaque_type("buf_block_t_ahi_t|Flush_observer|fil_space_t|btr_search_.*"),
    };
    let bindings = builder
        .with_codegen_config(bindgen::CodegenConfig::TYPES)
        .layout_tests(true)
        .derive_debug(false)
        .derive_default(false)
        .generate_comments(false)
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()))
        .generate()
        .map_err(|e| format!("bindgen failed on {}: {e}", wrapper.display()))?;
    bindings
        .write_to_file(out.join("bindings.rs"))
        .map_err(|e| format!("cannot write bindings: {e}"))
}

/// A server flag as libclang takes it: clang 14 knows C++23 as `c++2b`.
fn clang_flag(flag: &str) -> String {
    match flag {
        "-std=gnu++23" => "-std=gnu++2b".to_string(),
        "-std=c++23" => "-std=c++2b".to_string(),
        other => other.to_string(),
    }
}

fn compile_shim(out: &Path, generation: Generation, flags: &[String]) {
    let shim = match generation {
        Generation::V10_5 => "shim/shim_10_5.cc",
        Generation::V10_11 => "shim/shim_10_11.cc",
        Generation::PostFix => "shim/shim_post_fix.cc",
        Generation::MySql => "shim/shim_mysql.cc",
    };
    let mut b = cc::Build::new();
    b.cpp(true)
        .compiler("g++")
        .file(shim)
        .include("shim")
        .include(out)
        .warnings(false)
        .extra_warnings(false)
        // the server's optimisation level for this file (last -O wins)
        .flag("-O2");
    for f in flags {
        b.flag(f);
    }
    b.compile("innodb_shim");
}

fn write(path: impl AsRef<Path>, text: &str) {
    let path = path.as_ref();
    fs::write(path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// The tree's definitions of `functions`, copied verbatim.
fn out_of_line(src: &Path, functions: &[(&str, &str)]) -> Result<String, String> {
    tree_source::copy_definitions(src, functions, |path| {
        println!("cargo::rerun-if-changed={}", path.display())
    })
}
