//! Builds: cmake with a minimal plugin set, make of the server and what
//! bootstrapping needs, through ccache shared by all variants of a tree.
//!
//! A build lives in `<cache>/builds/<key>/{src,build}`, where the key hashes
//! (the source's git tree after the change, cmake options, compiler
//! version, the build type's source repairs): commits and changes with the
//! same source share a build (`BuildKey::same_build`). Every build
//! has the same relative layout, and ccache runs with `base_dir` at
//! `<cache>/builds` and `hash_dir` off, so the compiler sees the same
//! relative paths in every variant and files the patch does not touch are
//! cache hits.

mod configure_cache;
mod engine;
pub mod repair;

pub use engine::EngineBuild;

use crate::dims::Engine;
use crate::patch;
use crate::record::{Build, BuildKey, BuildType, CcacheUse, Patch, Tree, WholeBuild};
use crate::tree;
use crate::util::{cache_root, sha256_hex, write_json, Command, Stage};
use crate::variant::SourceChange;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Options that do not change what is compiled: the ccache launcher and
/// the compile-commands export (the ffi check reads the real flags there).
const CMAKE_TOOLING: &[&str] = &[
    "-DCMAKE_C_COMPILER_LAUNCHER=ccache",
    "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache",
    "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
];

/// What a build is made of, where its source is known: the source's git
/// tree, what is compiled and with what. The commit and the change that
/// led to that source are not in it.
#[derive(Serialize)]
struct ContentKey<'a> {
    source_tree: &'a str,
    cmake_options: &'a [String],
    compiler: &'a str,
    repairs: &'a [String],
}

impl BuildKey {
    /// The build's name in the cache: of its content where the source is
    /// known, else of the whole key (tree, change, options).
    pub fn hash(&self) -> String {
        let bytes = match &self.content() {
            Some(content) => serde_json::to_vec(content),
            None => serde_json::to_vec(self),
        };
        sha256_hex(&bytes.expect("a key serializes"))[..16].to_string()
    }

    fn content(&self) -> Option<ContentKey<'_>> {
        Some(ContentKey {
            source_tree: self.source_tree.as_deref()?,
            cmake_options: &self.cmake_options,
            compiler: &self.compiler,
            repairs: &self.repairs,
        })
    }

    /// Whether a build made for `self` serves `other`: the same content, or
    /// the same key where the source of either is not known.
    pub fn same_build(&self, other: &BuildKey) -> bool {
        match (self.content(), other.content()) {
            (Some(a), Some(b)) => {
                (a.source_tree, a.cmake_options, a.compiler, a.repairs)
                    == (b.source_tree, b.cmake_options, b.compiler, b.repairs)
            }
            _ => self == other,
        }
    }
}

/// The options that decide what is compiled: the build type, then the
/// engine's fixed set.
pub fn compile_options(engine: Engine, build_type: BuildType) -> Vec<String> {
    std::iter::once(build_type.cmake_option())
        .chain(
            EngineBuild::of(engine)
                .cmake_options
                .iter()
                .map(|s| s.to_string()),
        )
        .collect()
}

/// Every cmake option: what is compiled, and the tooling around it.
pub fn cmake_options(engine: Engine, build_type: BuildType) -> Vec<String> {
    compile_options(engine, build_type)
        .into_iter()
        .chain(CMAKE_TOOLING.iter().map(|s| s.to_string()))
        .collect()
}

/// The environment that makes ccache share objects between variants.
fn ccache_env() -> Vec<(String, String)> {
    let root = cache_root();
    vec![
        (
            "CCACHE_DIR".into(),
            root.join("ccache").display().to_string(),
        ),
        (
            "CCACHE_BASEDIR".into(),
            root.join("builds").display().to_string(),
        ),
        ("CCACHE_NOHASHDIR".into(), "1".into()),
        ("CCACHE_MAXSIZE".into(), "10G".into()),
    ]
    .into_iter()
    .chain(
        crate::environment::current()
            .ccache_remote
            .clone()
            .map(|r| ("CCACHE_REMOTE_STORAGE".to_string(), r)),
    )
    .collect()
}

/// `cmd` with the ccache environment.
fn with_ccache(cmd: Command) -> Command {
    ccache_env()
        .into_iter()
        .fold(cmd, |cmd, (k, v)| cmd.env(k, v))
}

/// cmake of `src` (a tree of `engine`) into `build_dir` with the
/// project's options.
fn cmake(engine: Engine, src: &Path, build_dir: &Path, build_type: BuildType) -> Command {
    cmake_preloaded(engine, src, build_dir, build_type, None)
}

/// `cmake`, with the cache entries of the script `preload` set first
/// (`cmake -C`), so that the options given after it win.
fn cmake_preloaded(
    engine: Engine,
    src: &Path,
    build_dir: &Path,
    build_type: BuildType,
    preload: Option<&Path>,
) -> Command {
    with_ccache(
        Command::new("cmake")
            .args(preload.map(|p| format!("-C{}", p.display())))
            .arg(src.display().to_string())
            .args(cmake_options(engine, build_type))
            .dir(build_dir),
    )
}

/// make of `targets` in `build_dir`.
fn make(build_dir: &Path, targets: &[&str]) -> Command {
    with_ccache(
        Command::new("make")
            .arg(format!("-j{}", jobs()))
            .args(targets.iter().copied())
            .dir(build_dir),
    )
}

pub fn compiler_version() -> Result<String> {
    let out = Command::new("c++")
        .arg("--version")
        .read()
        .context("no C++ compiler (install g++)")?;
    Ok(out.lines().next().unwrap_or_default().to_string())
}

fn ccache_counters() -> Result<BTreeMap<String, u64>> {
    let out = with_ccache(Command::new("ccache").arg("--print-stats"))
        .read()
        .context("ccache is needed for builds (apt-get install ccache)")?;
    Ok(out
        .lines()
        .filter_map(|l| {
            let (k, v) = l.split_once('\t')?;
            Some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect())
}

/// ccache's use since the `before` counters, printed as a build prints it.
fn ccache_since(before: &BTreeMap<String, u64>) -> Result<CcacheUse> {
    let ccache = ccache_use(before, &ccache_counters()?);
    eprintln!(
        "    ccache: {} hits, {} misses ({:.1}% hit rate)",
        ccache.hits,
        ccache.misses,
        100.0 * ccache.hit_rate
    );
    Ok(ccache)
}

fn ccache_use(before: &BTreeMap<String, u64>, after: &BTreeMap<String, u64>) -> CcacheUse {
    let delta = |k: &str| {
        after
            .get(k)
            .unwrap_or(&0)
            .saturating_sub(*before.get(k).unwrap_or(&0))
    };
    let hits = delta("direct_cache_hit") + delta("preprocessed_cache_hit");
    let misses = delta("cache_miss");
    let total = hits + misses;
    CcacheUse {
        hits,
        misses,
        hit_rate: if total == 0 {
            0.0
        } else {
            hits as f64 / total as f64
        },
        remote_hits: crate::environment::current()
            .ccache_remote
            .is_some()
            .then(|| delta("remote_storage_read_hit")),
    }
}

fn jobs() -> String {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .to_string()
}

/// The key a build of `tree` with `change` would have.
pub fn key_for(tree: &Tree, change: &SourceChange, build_type: BuildType) -> Result<BuildKey> {
    Ok(BuildKey {
        tree_id: tree.id.clone(),
        patch_sha256: change.key(),
        source_tree: source_tree(tree, change)?,
        cmake_options: compile_options(tree.series.engine, build_type),
        compiler: compiler_version()?,
        repairs: repair::names_for(build_type),
    })
}

/// The git tree id of `tree`'s source after `change`, computed in memory
/// (nothing is written to the tree's repository, which may be the user's):
/// the commit's own tree, or that tree with the patch applied. None for a
/// cherry-pick, whose commits are fetched only when the build is made, and
/// for a patch that does not apply here (the build's own checkout then
/// names the hunk).
fn source_tree(tree: &Tree, change: &SourceChange) -> Result<Option<String>> {
    let repo = git2::Repository::open(&tree.src)
        .with_context(|| format!("cannot open the repository {}", tree.src.display()))?;
    let commit = git2::Oid::from_str(&tree.id)
        .and_then(|id| repo.find_commit(id))
        .with_context(|| format!("{}: no commit {}", tree.src.display(), tree.id))?;
    let base = commit.tree()?;
    match change {
        SourceChange::None => Ok(Some(base.id().to_string())),
        SourceChange::CherryPick(_) => Ok(None),
        SourceChange::Patch(p) => {
            let diff = crate::patch::parse(p)?;
            // new objects go to memory, before the repository's own store
            let _in_memory = repo.odb()?.add_new_mempack_backend(1000)?;
            let Ok(mut index) = repo.apply_to_tree(&base, &diff, None) else {
                return Ok(None);
            };
            Ok(Some(index.write_tree_to(&repo)?.to_string()))
        }
    }
}

/// The name of a build of `tree` with `change` (the cached build's, where
/// the cache holds one: what `build` would reuse) and whether it is cached.
pub fn cached(tree: &Tree, change: &SourceChange, build_type: BuildType) -> Result<(String, bool)> {
    let key = key_for(tree, change, build_type)?;
    Ok(match in_cache(&key) {
        Some(Cached::Named(b) | Cached::MadeBefore(b)) => (b.key_hash, true),
        None => (key.hash(), false),
    })
}

/// The cache directory of a build with `key`.
fn build_dir_of(key: &BuildKey) -> PathBuf {
    cache_root().join("builds").join(key.hash())
}

/// Where the cache holds a complete build for a key.
enum Cached {
    /// under the key's own name (its content's, where the source is known)
    Named(Build),
    /// made before builds were keyed by their source, under the name of the
    /// same tree and change without it
    MadeBefore(Build),
}

/// The complete build with `key` in the cache, if there is one.
fn in_cache(key: &BuildKey) -> Option<Cached> {
    let found = |dir: &Path, key: &BuildKey| {
        finished::<Build>(&dir.join("build.json"), |b| {
            b.key.same_build(key) && b.mariadbd.exists()
        })
    };
    if let Some(b) = found(&build_dir_of(key), key) {
        return Some(Cached::Named(b));
    }
    key.source_tree.as_ref()?;
    let before = key_before_sources(key);
    found(&build_dir_of(&before), &before).map(Cached::MadeBefore)
}

/// `key` as builds were keyed before their source was part of the key.
fn key_before_sources(key: &BuildKey) -> BuildKey {
    BuildKey {
        source_tree: None,
        ..key.clone()
    }
}

/// Names a build made before builds were keyed by their source by its
/// source too, so that other commits and changes of the same source find
/// it: its record gains the source, and the content's name links to its
/// directory (unless something already has that name).
fn adopt(key: &BuildKey, old: &Build) -> Result<()> {
    let old_dir = build_dir_of(&key_before_sources(key));
    let mut record = old.clone();
    record.key.source_tree = key.source_tree.clone();
    write_json(&old_dir.join("build.json"), &record)?;
    let link = build_dir_of(key);
    match std::os::unix::fs::symlink(&old.key_hash, &link) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
            Err(e).with_context(|| format!("cannot link {} to {}", link.display(), old.key_hash))
        }
        _ => Ok(()),
    }
}

/// Builds `variant` of `tree` with a source change, or returns the existing
/// build with the same key.
pub fn build(
    tree: &Tree,
    variant: &str,
    change: &SourceChange,
    build_type: BuildType,
) -> Result<Build> {
    tree.source_for("there is nothing to build")?;
    let key = key_for(tree, change, build_type)?;
    let key_hash = key.hash();
    let dir = build_dir_of(&key);
    let record = dir.join("build.json");
    // a suite beside this one may be making the same build: wait for it,
    // then reuse it
    let _making = crate::lock::work(
        &dir.with_extension("lock"),
        &format!("build {key_hash} of {} {variant}", tree.version),
    )?;
    if let Some(cached) = in_cache(&key) {
        let mut done = match cached {
            Cached::Named(b) => b,
            Cached::MadeBefore(b) => {
                adopt(&key, &b)?;
                b
            }
        };
        let other_tree_or_change =
            (&done.key.tree_id, &done.key.patch_sha256) != (&key.tree_id, &key.patch_sha256);
        eprintln!(
            "    reusing build {} of {} {variant} ({build_type}){}",
            done.key_hash,
            tree.version,
            if other_tree_or_change {
                format!(
                    ": the same source as {} {} made it",
                    done.tree_spec, done.variant
                )
            } else {
                String::new()
            }
        );
        // the record says what was asked for; the binary is the same
        done.reused = true;
        done.variant = variant.to_string();
        done.key = key;
        done.tree_spec = tree.spec.clone();
        done.tree_version = tree.version.clone();
        done.patch = change.patch().cloned();
        done.cherry_pick = change.cherry_pick().cloned();
        return Ok(done);
    }
    let src = dir.join("src");
    let build_dir = dir.join("build");
    let logs = dir.join("logs");

    let stage = Stage::start(format!("check out {} for {variant}", tree.version));
    let repo = tree::checkout(tree, &src)?;
    change.apply(&repo)?;
    let repairs_applied = repair::apply(&src, build_type)?;
    let checkout_seconds = stage.done();

    let before = ccache_counters()?;
    let stage = Stage::start(format!(
        "configure {} {variant} ({build_type})",
        tree.version
    ));
    let engine = tree.series.engine;
    let configure_preloaded =
        configure(&key, change, (engine, build_type), &src, &build_dir, &logs)?;
    let configure_seconds = stage.done();

    let targets = EngineBuild::of(engine).make_targets;
    let stage = Stage::start(format!(
        "make {} of {} {variant}",
        targets.join(" "),
        tree.version
    ));
    make(&build_dir, targets).run_logged("make", &logs.join("make.log"))?;
    let make_seconds = stage.done();
    let ccache = ccache_since(&before)?;

    let mariadbd = build_dir.join(EngineBuild::of(engine).server_in_build);
    if !mariadbd.exists() {
        bail!("make succeeded but {} is missing", mariadbd.display());
    }
    let done = Build {
        key,
        key_hash,
        tree_spec: tree.spec.clone(),
        tree_version: tree.version.clone(),
        variant: variant.to_string(),
        patch: change.patch().cloned(),
        cherry_pick: change.cherry_pick().cloned(),
        src,
        build: build_dir,
        engine,
        mariadbd,
        build_type,
        repairs_applied,
        checkout_seconds,
        configure_seconds,
        configure_preloaded,
        make_seconds,
        ccache,
        reused: false,
    };
    write_json(&record, &done)?;
    Ok(done)
}

/// cmake of `src` into a new `build_dir`, skipping cmake's checks where an
/// earlier variant of the tree kept them and this variant's change leaves
/// what cmake reads alone (`configure_cache`); true when it skipped them. A
/// configure that fails with the checks preloaded is made again without
/// them, and the kept checks go.
fn configure(
    key: &BuildKey,
    change: &SourceChange,
    (engine, build_type): (Engine, BuildType),
    src: &Path,
    build_dir: &Path,
    logs: &Path,
) -> Result<bool> {
    let fresh_dir = || -> Result<()> {
        if build_dir.exists() {
            fs::remove_dir_all(build_dir)?;
        }
        fs::create_dir_all(build_dir)?;
        Ok(())
    };
    let log = logs.join("configure.log");
    // the build's own key names the tree, the compile options and the
    // compiler; the patch is what the checks are shared across
    let checks = configure_cache::path_for(&key.tree_id, &key.cmake_options, &key.compiler)?;
    let shared = match configure_cache::why_not_shared(change) {
        None => true,
        Some(why) => {
            eprintln!("    a fresh configure: {why}");
            false
        }
    };
    fresh_dir()?;
    if shared && checks.is_file() {
        eprintln!("    cmake's checks preloaded from {}", checks.display());
        let preloaded = cmake_preloaded(engine, src, build_dir, build_type, Some(&checks))
            .run_logged("configure", &log);
        match preloaded {
            Ok(_) => return Ok(true),
            // a signal stops the build; it says nothing of the checks
            Err(e) if crate::children::interrupted().is_some() => return Err(e),
            Err(e) => {
                eprintln!(
                    "    the configure with preloaded checks failed ({e:#}): configuring afresh"
                );
                let _ = fs::remove_file(&checks);
                fresh_dir()?;
            }
        }
    }
    cmake(engine, src, build_dir, build_type).run_logged("configure", &log)?;
    if shared {
        configure_cache::keep(&checks, src, build_dir);
    }
    Ok(false)
}

/// The record at `path` of work done before, when it reads and `matches`
/// what is asked now (the record is written last, so its presence marks
/// the work complete; one that does not parse is work to redo).
fn finished<T: serde::de::DeserializeOwned>(
    path: &Path,
    matches: impl Fn(&T) -> bool,
) -> Option<T> {
    let done: T = crate::util::read_json_if_any(path)?;
    matches(&done).then_some(done)
}

/// Runs a plain `make -jN` in `b`'s build directory, unless its record says
/// it was done for this build key.
pub fn make_whole(b: &Build) -> Result<WholeBuild> {
    let dir = b
        .build
        .parent()
        .with_context(|| format!("{} has no parent", b.build.display()))?;
    let record = dir.join("make-all.json");
    if let Some(mut done) = finished::<WholeBuild>(&record, |w| w.key_hash == b.key_hash) {
        eprintln!("    build {} is already whole", b.key_hash);
        done.reused = true;
        return Ok(done);
    }
    let before = ccache_counters()?;
    let stage = Stage::start(format!(
        "make (everything) of {} {} ({})",
        b.tree_version, b.variant, b.build_type
    ));
    make(&b.build, &[]).run_logged("make", &dir.join("logs/make-all.log"))?;
    let make_seconds = stage.done();
    let ccache = ccache_since(&before)?;
    let done = WholeBuild {
        key_hash: b.key_hash.clone(),
        make_seconds,
        ccache,
        reused: false,
    };
    write_json(&record, &done)?;
    Ok(done)
}

/// A tree configured with the build options, with only the generated
/// headers made (my_config.h by cmake, mysqld_error.h by GenError): enough
/// to compile code against the real InnoDB headers in minutes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConfiguredTree {
    pub src: PathBuf,
    pub build: PathBuf,
    /// The patch applied to `src` (a checkout of its own), if any.
    #[serde(default)]
    pub patch: Option<Patch>,
}

/// The tree as it is, configured headers-only (see `configure_with`).
pub fn configure_only(tree: &Tree) -> Result<ConfiguredTree> {
    configure_with(tree, None)
}

/// `tree` configured headers-only, with `patch` applied first: the patched
/// source is a checkout of its own. Cached under
/// `<cache>/configured/<tree id>` (no patch, the tree's own source) or
/// `<cache>/configured/<tree id>-<patch sha256>` (`src/` and `build/`), so
/// every patch version gets its own directory and an edited patch is never
/// served stale headers.
pub fn configure_with(tree: &Tree, patch: Option<&Patch>) -> Result<ConfiguredTree> {
    let dir = cache_root()
        .join("configured")
        .join(configured_dir_name(&tree.id, patch));
    let build_dir = dir.join("build");
    let marker = dir.join("configured.json");
    let _making = crate::lock::work(
        &dir.with_extension("lock"),
        &format!("the configured tree {}", dir.display()),
    )?;
    let configured = ConfiguredTree {
        src: match patch {
            None => tree.src.clone(),
            Some(_) => dir.join("src"),
        },
        build: build_dir.clone(),
        patch: patch.cloned(),
    };
    let engine = tree.series.engine;
    if marker.exists()
        && build_dir.join("include/mysqld_error.h").exists()
        && configured.src.join(engine.version_file()).exists()
    {
        return Ok(configured);
    }
    // whatever an interrupted run left is redone from scratch
    if dir.exists() {
        fs::remove_dir_all(&dir).with_context(|| format!("cannot remove {}", dir.display()))?;
    }
    if let Some(p) = patch {
        let stage = Stage::start(format!(
            "check out {} and apply {} (headers only)",
            tree.version,
            p.file.display()
        ));
        let repo = tree::checkout(tree, &configured.src)?;
        patch::apply(&repo, p)?;
        stage.done();
    }
    let stage = Stage::start(format!(
        "configure {}{} (headers only)",
        tree.version,
        patch
            .map(|p| format!(" + {}", p.file.display()))
            .unwrap_or_default()
    ));
    fs::create_dir_all(&build_dir)?;
    cmake(engine, &configured.src, &build_dir, BuildType::default())
        .run_logged("configure", &dir.join("configure.log"))?;
    make(&build_dir, &["GenError"]).run_logged("GenError", &dir.join("generr.log"))?;
    write_json(&marker, &configured)?;
    stage.done();
    Ok(configured)
}

/// `<tree id 16>` or `<tree id 16>-<patch sha256 16>`.
fn configured_dir_name(tree_id: &str, patch: Option<&Patch>) -> String {
    let id = &tree_id[..16.min(tree_id.len())];
    match patch {
        None => id.to_string(),
        Some(p) => format!("{id}-{}", &p.sha256[..16.min(p.sha256.len())]),
    }
}

/// Where a MariaDB tree's own bootstrap script is in a build (the name
/// changed from mysql_install_db to mariadb-install-db in 10.4/10.5).
pub fn install_db_script(build: &Path) -> Result<PathBuf> {
    ["scripts/mariadb-install-db", "scripts/mysql_install_db"]
        .iter()
        .map(|p| build.join(p))
        .find(|p| p.exists())
        .with_context(|| format!("no mariadb-install-db in {}/scripts", build.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_changes_with_each_input() {
        let base = BuildKey {
            tree_id: "a".into(),
            patch_sha256: None,
            source_tree: None,
            cmake_options: vec!["-DX=1".into()],
            compiler: "g++ 12".into(),
            repairs: Vec::new(),
        };
        let h = base.hash();
        assert_eq!(h, base.clone().hash(), "the hash is deterministic");
        let mut k = base.clone();
        k.patch_sha256 = Some("p".into());
        assert_ne!(k.hash(), h);
        let mut k = base.clone();
        k.compiler = "g++ 13".into();
        assert_ne!(k.hash(), h);
        let mut k = base.clone();
        k.cmake_options.push("-DY=1".into());
        assert_ne!(k.hash(), h);
        let mut k = base.clone();
        k.repairs.push("r".into());
        assert_ne!(k.hash(), h);

        // keyed by content: the source decides, not the commit or change
        let content = BuildKey {
            source_tree: Some("t".into()),
            ..base.clone()
        };
        let other_commit = BuildKey {
            tree_id: "b".into(),
            patch_sha256: Some("p".into()),
            ..content.clone()
        };
        assert_eq!(content.hash(), other_commit.hash());
        assert!(content.same_build(&other_commit));
        let other_source = BuildKey {
            source_tree: Some("u".into()),
            ..content.clone()
        };
        assert_ne!(content.hash(), other_source.hash());
        assert!(!content.same_build(&other_source));
        let other_compiler = BuildKey {
            compiler: "g++ 13".into(),
            ..content.clone()
        };
        assert!(!content.same_build(&other_compiler));
        // without a known source both sides must match whole
        assert!(!base.same_build(&BuildKey {
            tree_id: "b".into(),
            ..base.clone()
        }));
        assert!(!base.same_build(&content));
    }

    #[test]
    fn builds_of_the_same_source_share_a_key() {
        // a repository with a base commit, a commit that changes one file
        // as a patch would, and a commit that only adds a note
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("server");
        fs::create_dir_all(src.join("storage")).unwrap();
        fs::write(src.join("storage/lru.cc"), "int clock = 1;\n").unwrap();
        let base_id = crate::tree::import_as_commit(&src, "base").unwrap();
        let repo = git2::Repository::open(&src).unwrap();
        let commit_with = |path: &str, text: &str, message: &str| {
            fs::write(src.join(path), text).unwrap();
            let mut index = repo.index().unwrap();
            index.add_path(Path::new(path)).unwrap();
            index.write().unwrap();
            let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
            let sig = git2::Signature::now("t", "t@t").unwrap();
            let parent = repo.head().unwrap().peel_to_commit().unwrap();
            repo.commit(Some("HEAD"), &sig, &sig, message, &tree, &[&parent])
                .unwrap()
        };
        let planted = commit_with("storage/lru.cc", "int clock = 0;\n", "clock never ticks");
        let noted = commit_with("NOTE", "a note\n", "a note");
        let tree_at = |id: git2::Oid| Tree {
            spec: format!("path:{}#{id}", src.display()),
            id: id.to_string(),
            src: src.clone(),
            version: "10.11.18".into(),
            series: crate::dims::Series::V10_11,
            has_upstream_fix: false,
            package: None,
        };
        let text = "diff --git a/storage/lru.cc b/storage/lru.cc\n--- a/storage/lru.cc\n+++ b/storage/lru.cc\n@@ -1 +1 @@\n-int clock = 1;\n+int clock = 0;\n";
        let patch = SourceChange::Patch(Patch {
            file: "patches/10.11/clock.patch".into(),
            sha256: sha256_hex(text.as_bytes()),
            bytes: text.as_bytes().to_vec(),
        });
        let source =
            |id, change: &SourceChange| source_tree(&tree_at(id), change).unwrap().unwrap();
        // the base with the patch is the planted commit's source
        assert_eq!(
            source(base_id, &patch),
            source(planted, &SourceChange::None)
        );
        assert_ne!(
            source(base_id, &SourceChange::None),
            source(planted, &SourceChange::None)
        );
        // a note is part of the source too
        assert_ne!(
            source(noted, &SourceChange::None),
            source(planted, &SourceChange::None)
        );
        // a patch that does not apply has no known source
        assert_eq!(source_tree(&tree_at(planted), &patch).unwrap(), None);
        // a source no commit has is computed in memory: the repository's
        // own store does not get it
        let text = "diff --git a/storage/lru.cc b/storage/lru.cc\n--- a/storage/lru.cc\n+++ b/storage/lru.cc\n@@ -1 +1 @@\n-int clock = 0;\n+int clock = 2;\n";
        let new = SourceChange::Patch(Patch {
            file: "patches/10.11/two.patch".into(),
            sha256: sha256_hex(text.as_bytes()),
            bytes: text.as_bytes().to_vec(),
        });
        let unseen = git2::Oid::from_str(&source(planted, &new)).unwrap();
        assert!(git2::Repository::open(&src)
            .unwrap()
            .find_tree(unseen)
            .is_err());
    }

    #[test]
    fn configured_trees_are_keyed_by_patch() {
        let patch = |bytes: &[u8]| Patch {
            file: "patches/10.11/x.patch".into(),
            sha256: sha256_hex(bytes),
            bytes: bytes.to_vec(),
        };
        let id = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(configured_dir_name(id, None), "0123456789abcdef");
        let (a, b) = (patch(b"a"), patch(b"b"));
        let name_a = configured_dir_name(id, Some(&a));
        assert_eq!(name_a, format!("0123456789abcdef-{}", &a.sha256[..16]));
        assert_ne!(name_a, configured_dir_name(id, Some(&b)));
    }

    #[test]
    fn build_type_is_part_of_the_key_and_the_default_key_is_unchanged() {
        // a RelWithDebInfo key serializes as keys did before build types
        // were selectable, so existing builds are reused
        let old: Vec<String> = std::iter::once("-DCMAKE_BUILD_TYPE=RelWithDebInfo")
            .chain(engine::MARIADB.cmake_options.iter().copied())
            .map(String::from)
            .collect();
        assert_eq!(compile_options(Engine::MariaDb, BuildType::default()), old);
        let key = |t| BuildKey {
            tree_id: "a".into(),
            patch_sha256: None,
            source_tree: None,
            cmake_options: compile_options(Engine::MariaDb, t),
            compiler: "g++ 12".into(),
            repairs: repair::names_for(t),
        };
        assert_ne!(
            key(BuildType::Debug).hash(),
            key(BuildType::default()).hash()
        );
        assert_ne!(key(BuildType::Release).hash(), key(BuildType::Debug).hash());
        assert!(cmake_options(Engine::MariaDb, BuildType::Debug)
            .contains(&"-DCMAKE_BUILD_TYPE=Debug".to_string()));
        assert_eq!("Debug".parse::<BuildType>().unwrap(), BuildType::Debug);
        let err = "debug".parse::<BuildType>().unwrap_err().to_string();
        assert!(
            err.contains("`debug`") && err.contains("RelWithDebInfo, Release, Debug"),
            "{err}"
        );
    }

    #[test]
    fn ccache_rate_from_counter_deltas() {
        let before: BTreeMap<String, u64> = [
            ("direct_cache_hit", 10),
            ("preprocessed_cache_hit", 0),
            ("cache_miss", 100),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .into();
        let after: BTreeMap<String, u64> = [
            ("direct_cache_hit", 100),
            ("preprocessed_cache_hit", 0),
            ("cache_miss", 110),
        ]
        .map(|(k, v)| (k.to_string(), v))
        .into();
        let u = ccache_use(&before, &after);
        assert_eq!((u.hits, u.misses), (90, 10));
        assert!((u.hit_rate - 0.9).abs() < 1e-12);
    }
}
