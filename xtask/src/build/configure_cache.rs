//! What cmake's checks found for one tree, build type and compiler, kept
//! after the first variant's configure and preloaded into the next ones'
//! (`cmake -C`), so that they skip the checks (most of a configure's 40 s
//! here). It holds only the checks' results (cache entries of type
//! INTERNAL that name neither a directory of the build nor cmake itself):
//! every option still comes from the command line, and every path is
//! found again.
//!
//! It holds while a variant's source change leaves cmake's inputs alone:
//! our patches change InnoDB's C++ and mtr's tests. A patch that touches a
//! `CMakeLists.txt`, a `.cmake` file, a `.in` template or `VERSION` gets a
//! fresh configure, and so does a cherry-pick, whose files are not known
//! before it is applied; neither leaves its checks for others.

use crate::util::{cache_root, sha256_hex, write_atomic, Command};
use crate::variant::SourceChange;
use anyhow::{Context, Result};
use std::fs;
use std::path::{Path, PathBuf};

/// The kept checks of the tree `tree_id` configured with `compile_options`
/// (the build type's) by `compiler` and this host's cmake.
pub fn path_for(tree_id: &str, compile_options: &[String], compiler: &str) -> Result<PathBuf> {
    let cmake = Command::new("cmake").arg("--version").read()?;
    let key = format!(
        "{}\n{}\n{}\n{}",
        tree_id,
        compile_options.join(" "),
        compiler,
        cmake.lines().next().unwrap_or_default()
    );
    Ok(cache_root()
        .join("configure-cache")
        .join(format!("{}.cmake", &sha256_hex(key.as_bytes())[..16])))
}

/// Whether `change` may share the checks of its tree: None when it may,
/// or the reason it may not (the first of cmake's inputs it touches).
pub fn why_not_shared(change: &SourceChange) -> Option<String> {
    match change {
        SourceChange::None => None,
        SourceChange::Patch(p) => patched_files(&String::from_utf8_lossy(&p.bytes))
            .into_iter()
            .find(|f| is_cmake_input(f))
            .map(|f| format!("{} changes {f}, which cmake reads", p.file.display())),
        SourceChange::CherryPick(_) => {
            Some("a cherry-pick's files are known only once it is applied".into())
        }
    }
}

/// The files a unified diff changes: both names of each file header (a
/// `--- ` line followed by a `+++ ` line, so that a hunk's removed line
/// that begins with `-- ` is not taken for one) and of each git rename.
fn patched_files(diff: &str) -> Vec<String> {
    let name = |header: &str| {
        let path = header.split('\t').next().unwrap_or(header);
        let path = path
            .strip_prefix("a/")
            .or_else(|| path.strip_prefix("b/"))
            .unwrap_or(path);
        (path != "/dev/null").then(|| path.to_string())
    };
    let lines: Vec<&str> = diff.lines().collect();
    let mut files = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let (Some(old), Some(new)) = (
            line.strip_prefix("--- "),
            lines.get(i + 1).and_then(|l| l.strip_prefix("+++ ")),
        ) {
            files.extend(name(old));
            files.extend(name(new));
        } else if let Some(path) = line
            .strip_prefix("rename from ")
            .or_else(|| line.strip_prefix("rename to "))
        {
            files.push(path.to_string());
        }
    }
    files
}

/// Files a configure reads: build scripts, their modules, the templates
/// it fills in, and the version it reads.
fn is_cmake_input(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    name == "CMakeLists.txt"
        || crate::dims::Engine::ALL
            .iter()
            .any(|e| name == e.version_file())
        || name.ends_with(".cmake")
        || name.ends_with(".in")
        || file.starts_with("cmake/")
}

/// The checks of a configured `CMakeCache.txt` as a `cmake -C` script:
/// its INTERNAL entries, less cmake's own (`CMAKE_*`), entries that mark
/// another's properties (`NAME-ADVANCED`), and any whose value names one
/// of `dirs` (the directory of this variant's build, which holds its
/// source and build trees, and the directory of every build).
pub fn script_from(cmake_cache: &str, dirs: &[&Path]) -> String {
    let dirs: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    let mut out = String::from(
        "# the results of cmake's checks for one tree and build type, kept by\n\
         # innodb-lab (build/configure_cache.rs) and preloaded with cmake -C\n",
    );
    for line in cmake_cache.lines() {
        if line.starts_with('#') || line.starts_with("//") {
            continue;
        }
        let Some((name_type, value)) = line.split_once('=') else {
            continue;
        };
        let Some((name, kind)) = name_type.split_once(':') else {
            continue;
        };
        if kind != "INTERNAL"
            || name.starts_with("CMAKE_")
            || name.contains('-')
            || dirs.iter().any(|d| value.contains(d.as_str()))
        {
            continue;
        }
        out.push_str(&format!(
            "set({name} \"{}\" CACHE INTERNAL \"\")\n",
            value
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('$', "\\$")
        ));
    }
    out
}

/// Keeps the checks of the configure just made in `build_dir` from `src`,
/// for the next variants of the tree. A failure to keep them costs the
/// next variants their checks, not this build: it is printed, not raised.
pub fn keep(path: &Path, src: &Path, build_dir: &Path) {
    let kept = (|| -> Result<()> {
        let cache_file = build_dir.join("CMakeCache.txt");
        let text = fs::read_to_string(&cache_file)
            .with_context(|| format!("cannot read {}", cache_file.display()))?;
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        let this_build = src.parent().unwrap_or(src);
        let builds = cache_root().join("builds");
        let dirs = [src, build_dir, this_build, builds.as_path()];
        write_atomic(path, script_from(&text, &dirs).as_bytes())
    })();
    if let Err(e) = kept {
        eprintln!("    warning: the configure's checks were not kept for the next variants: {e:#}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_checks_are_kept_and_nothing_that_names_this_build() {
        let cache = "# This is the CMakeCache file.\n\
                     //Have include unistd.h\n\
                     HAVE_UNISTD_H:INTERNAL=1\n\
                     SIZEOF_LONG:INTERNAL=8\n\
                     have_CXX__Wno_unused:INTERNAL=1\n\
                     CMAKE_CACHEFILE_DIR:INTERNAL=/c/builds/k1/build\n\
                     CMAKE_BUILD_TYPE:STRING=RelWithDebInfo\n\
                     MySQL_BINARY_DIR:STATIC=/c/builds/k1/build\n\
                     HAVE_UNISTD_H-ADVANCED:INTERNAL=1\n\
                     GENERATED_FILE:INTERNAL=/c/builds/k1/src/x.h\n\
                     DEBUGBUILDDIR:INTERNAL=/c/builds/k1/debug\n\
                     QUOTED:INTERNAL=a \"b\" $c\n";
        let script = script_from(
            cache,
            &[
                Path::new("/c/builds/k1/src"),
                Path::new("/c/builds/k1/build"),
                Path::new("/c/builds/k1"),
            ],
        );
        let sets: Vec<&str> = script.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            sets,
            [
                "set(HAVE_UNISTD_H \"1\" CACHE INTERNAL \"\")",
                "set(SIZEOF_LONG \"8\" CACHE INTERNAL \"\")",
                "set(have_CXX__Wno_unused \"1\" CACHE INTERNAL \"\")",
                "set(QUOTED \"a \\\"b\\\" \\$c\" CACHE INTERNAL \"\")",
            ]
        );
    }

    #[test]
    fn a_patch_that_touches_what_cmake_reads_configures_afresh() {
        let patch = |text: &str| {
            SourceChange::Patch(crate::record::Patch {
                file: "patches/10.11/x.patch".into(),
                sha256: String::new(),
                bytes: text.as_bytes().to_vec(),
            })
        };
        // a hunk's removed line `-- source include/x.cmake` is no header
        let code = "--- a/storage/innobase/buf/buf0lru.cc\n+++ b/storage/innobase/buf/buf0lru.cc\n@@ -1 +1 @@\n-a\n+b\n\
                    --- /dev/null\n+++ b/mysql-test/suite/innodb/t/lab.test\n@@ -0,0 +1 @@\n+x\n\
                    --- a/mysql-test/suite/innodb/t/old.test\n+++ b/mysql-test/suite/innodb/t/old.test\n@@ -1,2 +1 @@\n--- source include/x.cmake\n x\n";
        assert_eq!(why_not_shared(&patch(code)), None);
        assert_eq!(why_not_shared(&SourceChange::None), None);
        let build = format!(
            "{code}--- a/storage/innobase/CMakeLists.txt\t2026-01-01\n+++ b/storage/innobase/CMakeLists.txt\n@@ -1 +1 @@\n-a\n+b\n"
        );
        assert_eq!(
            why_not_shared(&patch(&build)).as_deref(),
            Some(
                "patches/10.11/x.patch changes storage/innobase/CMakeLists.txt, which cmake reads"
            )
        );
        let removed = "--- a/include/my_config.h.in\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n";
        assert!(why_not_shared(&patch(removed))
            .unwrap()
            .contains("include/my_config.h.in"));
        let renamed = "diff --git a/sql/CMakeLists.txt b/sql/build.txt\nsimilarity index 100%\n\
                       rename from sql/CMakeLists.txt\nrename to sql/build.txt\n";
        assert!(why_not_shared(&patch(renamed))
            .unwrap()
            .contains("sql/CMakeLists.txt"));
        for f in [
            "VERSION",
            "MYSQL_VERSION",
            "cmake/os/Linux.cmake",
            "config.h.cmake",
            "sql/CMakeLists.txt",
        ] {
            assert!(is_cmake_input(f), "{f}");
        }
        assert!(!is_cmake_input("storage/innobase/include/buf0buf.h"));
    }
}
