//! Compiling a patched checkout with the tree's real compile commands:
//! the `innobase` entries of the configured tree's compile_commands.json,
//! rewritten from the configured source to the checkout and run with
//! `-fsyntax-only` in the configured build directory; which units a
//! changed file needs (a .cc itself, a header through the .cc files of its
//! module that include it directly or through one header).

use anyhow::{anyhow, bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The target whose compile commands are used; its objects are named
/// `CMakeFiles/innobase.dir/<module>/<file>.cc.o` in every series.
const INNOBASE_OBJECTS: &str = "CMakeFiles/innobase.dir/";

/// One compile command of the `innobase` target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Relative to the source tree, e.g. `storage/innobase/buf/buf0lru.cc`.
    pub file: PathBuf,
    /// The build directory the command runs in.
    pub directory: PathBuf,
    /// Program and arguments, as configured (paths into the configured
    /// source).
    pub args: Vec<String>,
}

/// The `innobase` entries of a compile_commands.json, and the source tree
/// their paths point into.
#[derive(Debug, Clone)]
pub struct CompileDb {
    pub src: PathBuf,
    pub units: Vec<Unit>,
}

/// An entry as CMake writes it: `command` (a shell string) or `arguments`.
#[derive(Deserialize)]
struct RawCommand {
    directory: PathBuf,
    file: PathBuf,
    command: Option<String>,
    arguments: Option<Vec<String>>,
}

impl CompileDb {
    /// Reads `path`, keeping the entries of the innobase target (the same
    /// source can also be compiled by other targets, e.g. buf0checksum.cc
    /// by innochecksum, with other flags).
    pub fn load(path: &Path, src: &Path) -> Result<CompileDb> {
        let text = fs::read_to_string(path)
            .with_context(|| format!("cannot read the compile commands {}", path.display()))?;
        let raw: Vec<RawCommand> = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a compile_commands.json", path.display()))?;
        let mut units: Vec<Unit> = Vec::new();
        for r in raw {
            let args = match (r.arguments, r.command) {
                (Some(a), _) => a,
                (None, Some(c)) => split_command(&c).with_context(|| {
                    format!("{}: the command of {}", path.display(), r.file.display())
                })?,
                (None, None) => bail!(
                    "{}: the entry of {} has neither command nor arguments",
                    path.display(),
                    r.file.display()
                ),
            };
            let innobase = args
                .windows(2)
                .any(|w| w[0] == "-o" && w[1].contains(INNOBASE_OBJECTS))
                || args.iter().any(|a| {
                    a.strip_prefix("-o")
                        .is_some_and(|o| o.contains(INNOBASE_OBJECTS))
                });
            let Ok(file) = r.file.strip_prefix(src) else {
                continue;
            };
            if innobase && !units.iter().any(|u| u.file == file) {
                units.push(Unit {
                    file: file.to_path_buf(),
                    directory: r.directory,
                    args,
                });
            }
        }
        if units.is_empty() {
            bail!(
                "{} has no entry of the innobase target under {}",
                path.display(),
                src.display()
            );
        }
        Ok(CompileDb {
            src: src.to_path_buf(),
            units,
        })
    }

    fn unit(&self, file: &Path) -> Option<&Unit> {
        self.units.iter().find(|u| u.file == file)
    }
}

/// Splits a compile command the way the shell would, with `shlex` (as
/// ffi/build.rs does): blanks separate words, quotes group them, a
/// backslash escapes (CMake writes `-DX=\"y\"`), and, as in the shell, a
/// word that starts with `#` starts a comment (`-DX=a#b` stays one word).
pub fn split_command(command: &str) -> Result<Vec<String>> {
    // shlex says only that it failed: an unterminated quote or a trailing
    // backslash
    shlex::split(command).with_context(|| {
        format!("`{command}` is not a shell command line (an unterminated quote or a trailing \\)")
    })
}

/// `arg` with every occurrence of the directory `from` (followed by `/` or
/// the end, so `/src` does not match `/src2`) replaced by `to`.
pub fn rewrite_prefix(arg: &str, from: &Path, to: &Path) -> String {
    let (from, to) = (from.to_string_lossy(), to.to_string_lossy());
    let from = from.trim_end_matches('/');
    let to = to.trim_end_matches('/');
    if from.is_empty() {
        return arg.to_string();
    }
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(i) = rest.find(from) {
        let after = &rest[i + from.len()..];
        out.push_str(&rest[..i]);
        if after.is_empty() || after.starts_with('/') {
            out.push_str(to);
        } else {
            out.push_str(from);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The command that checks `unit` of the patched `checkout`: the configured
/// command with source paths moved to the checkout, `-fsyntax-only` instead
/// of an object file, and no dependency files written into the configured
/// build directory (which other checks share).
pub fn syntax_command(unit: &Unit, configured_src: &Path, checkout: &Path) -> Vec<String> {
    let mut out = Vec::with_capacity(unit.args.len() + 1);
    let mut args = unit.args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-o" | "-MF" | "-MT" | "-MQ" => {
                args.next();
            }
            "-MD" | "-MMD" => {}
            _ if a.starts_with("-o") && a.len() > 2 => {}
            _ => out.push(rewrite_prefix(a, configured_src, checkout)),
        }
    }
    out.push("-fsyntax-only".into());
    out
}

/// The units the changed `files` (relative paths) need compiled, reading
/// includes from `checkout`: a changed source itself; for a changed
/// header, the units of its InnoDB module directory that include it
/// directly or through one header that includes it.
pub fn changed_units(files: &[PathBuf], checkout: &Path, db: &CompileDb) -> Result<Vec<PathBuf>> {
    let mut units = BTreeSet::new();
    for f in files {
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or_default();
        if matches!(ext, "cc" | "c" | "cpp") {
            if db.unit(f).is_none() {
                bail!(
                    "no compile command of the innobase target compiles {}",
                    f.display()
                );
            }
            units.insert(f.clone());
            continue;
        }
        let module = module_dir(f);
        let found: Vec<PathBuf> = db
            .units
            .iter()
            .filter(|u| u.file.parent() == Some(module.as_path()))
            .filter(|u| includes_within_one_header(checkout, &u.file, f))
            .map(|u| u.file.clone())
            .collect();
        if found.is_empty() {
            bail!(
                "no unit of the innobase target in {} includes {} directly or through one header",
                module.display(),
                f.display()
            );
        }
        units.extend(found);
    }
    Ok(units.into_iter().collect())
}

/// The InnoDB module of a header: `include/buf0buf.inl` belongs to `buf/`
/// (InnoDB names files `<module>0<name>`); a header elsewhere belongs to
/// its own directory.
pub fn module_dir(header: &Path) -> PathBuf {
    let parent = header.parent().unwrap_or(Path::new(""));
    let name = header
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match (parent.file_name(), name.split_once('0')) {
        (Some(dir), Some((module, _))) if dir == "include" && !module.is_empty() => {
            parent.parent().unwrap_or(Path::new("")).join(module)
        }
        _ => parent.to_path_buf(),
    }
}

/// Does `unit` include `header` directly, or through one header that
/// includes it directly? (All paths relative to `root`.)
fn includes_within_one_header(root: &Path, unit: &Path, header: &Path) -> bool {
    let direct = resolved_includes(root, unit);
    direct.iter().any(|h| h == header)
        || direct
            .iter()
            .any(|h| resolved_includes(root, h).iter().any(|i| i == header))
}

/// The `#include "..."` files of `file` that exist in the tree, looked up
/// next to `file` and then in InnoDB's include directory (the order of the
/// innobase target's -I flags for quoted includes).
fn resolved_includes(root: &Path, file: &Path) -> Vec<PathBuf> {
    let Ok(text) = fs::read_to_string(root.join(file)) else {
        return Vec::new();
    };
    let here = file.parent().unwrap_or(Path::new(""));
    let innodb_include = Path::new("storage/innobase/include");
    quoted_includes(&text)
        .into_iter()
        .filter_map(|name| {
            [here.join(&name), innodb_include.join(&name)]
                .into_iter()
                .find(|p| root.join(p).is_file())
        })
        .collect()
}

/// The names in `#include "name"` lines (not `<...>`).
pub fn quoted_includes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = l.strip_prefix("include")?.trim_start();
            let rest = rest.strip_prefix('"')?;
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

/// Compiles `units` of the checkout in parallel (one job per core); the
/// result per unit is Ok or the first error lines.
pub(super) fn compile_all(
    db: &CompileDb,
    units: &[PathBuf],
    checkout: &Path,
) -> Result<Vec<(PathBuf, Result<(), String>)>> {
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(units.len().max(1));
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = units.get(i) else { break };
                let r = compile_one(db, file, checkout);
                results.lock().unwrap().push((i, file.clone(), r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _, _)| *i);
    results
        .into_iter()
        .map(|(_, f, r)| r.map(|ok| (f, ok)))
        .collect()
}

/// Ok(Ok) compiled, Ok(Err(lines)) the compiler's first error, Err the
/// compiler could not be started.
fn compile_one(db: &CompileDb, file: &Path, checkout: &Path) -> Result<Result<(), String>> {
    let unit = db
        .unit(file)
        .ok_or_else(|| anyhow!("no compile command for {}", file.display()))?;
    let args = syntax_command(unit, &db.src, checkout);
    let (program, rest) = args
        .split_first()
        .ok_or_else(|| anyhow!("empty compile command for {}", file.display()))?;
    let start = Instant::now();
    let out = crate::util::Command::new(program.as_str())
        .args(rest.iter().map(String::as_str))
        .dir(&unit.directory)
        .output()
        .with_context(|| format!("cannot start `{program}` for {}", file.display()))?;
    let secs = start.elapsed().as_secs_f64();
    if out.status.success() {
        eprintln!("        {} ({secs:.1} s)", file.display());
        Ok(Ok(()))
    } else {
        eprintln!("        {} FAILED ({secs:.1} s)", file.display());
        let mut text = String::from_utf8_lossy(&out.stderr).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stdout));
        Ok(Err(first_error(&text, &out.status.to_string())))
    }
}

/// The first `error:` line of compiler output and the few lines after it
/// (the source line and caret), or the head of the output when no line
/// says error.
pub fn first_error(output: &str, status: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let lines = match lines.iter().position(|l| l.contains("error:")) {
        Some(i) => &lines[i..(i + 4).min(lines.len())],
        None => &lines[..8.min(lines.len())],
    };
    if lines.is_empty() {
        format!("the compiler failed ({status}) without output")
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_like_the_shell() {
        assert_eq!(
            split_command(r#"/usr/bin/c++  -DX=\"a b\" -I/s/include "-DY=1 2" 'q"r' -c a\ b.cc"#)
                .unwrap(),
            [
                "/usr/bin/c++",
                "-DX=\"a",
                "b\"",
                "-I/s/include",
                "-DY=1 2",
                "q\"r",
                "-c",
                "a b.cc"
            ]
        );
        assert!(split_command("c++ \"open").is_err());
        assert!(split_command("c++ 'open").is_err());
        assert!(split_command("c++ trailing\\").is_err());
    }

    #[test]
    fn rewrites_only_whole_directory_prefixes() {
        let (from, to) = (Path::new("/t/src"), Path::new("/p/gate-10.11/"));
        assert_eq!(
            rewrite_prefix("-I/t/src/storage/innobase/include", from, to),
            "-I/p/gate-10.11/storage/innobase/include"
        );
        assert_eq!(rewrite_prefix("/t/src", from, to), "/p/gate-10.11");
        assert_eq!(
            rewrite_prefix("-I/t/src2/include", from, to),
            "-I/t/src2/include"
        );
        assert_eq!(
            rewrite_prefix("-I/t/build/include", from, to),
            "-I/t/build/include"
        );
        assert_eq!(
            rewrite_prefix("-fmacro-prefix-map=/t/src/=/t/src/x", from, to),
            "-fmacro-prefix-map=/p/gate-10.11/=/p/gate-10.11/x"
        );
    }

    #[test]
    fn innodb_modules_of_headers() {
        assert_eq!(
            module_dir(Path::new("storage/innobase/include/buf0buf.inl")),
            PathBuf::from("storage/innobase/buf")
        );
        assert_eq!(
            module_dir(Path::new("storage/innobase/include/univ.i")),
            PathBuf::from("storage/innobase/include")
        );
        assert_eq!(
            module_dir(Path::new("storage/innobase/handler/ha_innodb.h")),
            PathBuf::from("storage/innobase/handler")
        );
    }

    #[test]
    fn quoted_includes_only() {
        let text = "#include \"a0b.h\"\n#  include \"c.inl\" // x\n#include <stdio.h>\n// #include \"no.h\"\n";
        assert_eq!(quoted_includes(text), ["a0b.h", "c.inl"]);
    }

    #[test]
    fn first_error_lines() {
        let out = "In file included from x.cc:1:\nx.h:3:1: warning: w\nx.cc:9:5: error: 'y' was not declared\n    9 | y();\n      | ^\nx.cc:10: error: more\nmore\n";
        assert_eq!(
            first_error(out, "exit status: 1"),
            "x.cc:9:5: error: 'y' was not declared\n    9 | y();\n      | ^\nx.cc:10: error: more"
        );
        assert!(first_error("", "signal: 9").contains("signal: 9"));
    }

    /// A miniature configured tree: sources under `src`, a build directory
    /// with a compile_commands.json of two targets.
    struct Fixture {
        _dir: tempfile::TempDir,
        src: PathBuf,
        build: PathBuf,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        let build = dir.path().join("build");
        let files: &[(&str, &str)] = &[
            // buf0buf.h includes buf0buf.inl at its end, like the real one
            (
                "storage/innobase/include/buf0buf.h",
                "#include \"buf0types.h\"\n#include \"buf0buf.inl\"\n",
            ),
            ("storage/innobase/include/buf0buf.inl", "inline int f();\n"),
            ("storage/innobase/include/buf0types.h", "\n"),
            // two levels away from buf0buf.inl: not picked
            (
                "storage/innobase/include/buf0lru.h",
                "#include \"buf0buf.h\"\n",
            ),
            (
                "storage/innobase/buf/buf0buf.cc",
                "#include \"buf0buf.h\"\n",
            ),
            (
                "storage/innobase/buf/buf0dump.cc",
                "#include <buf0buf.h>\n#include \"buf0types.h\"\n",
            ),
            (
                "storage/innobase/buf/buf0lru.cc",
                "#include \"buf0lru.h\"\n",
            ),
            // directly, but another module
            (
                "storage/innobase/btr/btr0btr.cc",
                "#include \"buf0buf.inl\"\n",
            ),
            (
                "storage/innobase/buf/buf0flu.cc",
                "#include \"buf0buf.inl\"\n",
            ),
            // in the module, including it, but not compiled by innobase
            (
                "storage/innobase/buf/buf0extra.cc",
                "#include \"buf0buf.h\"\n",
            ),
        ];
        for (f, text) in files {
            let p = src.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let inno = build.join("storage/innobase");
        fs::create_dir_all(&inno).unwrap();
        let s = src.display();
        let entry = |file: &str, target: &str| {
            serde_json::json!({
                "directory": inno,
                "command": format!(
                    "/usr/bin/c++ -DHAVE_CONFIG_H -DX=\\\"1\\\" -I{}/include -I{s}/storage/innobase/include -O2 -o CMakeFiles/{target}.dir/{file}.o -c {s}/storage/innobase/{file}",
                    build.display()
                ),
                "file": format!("{s}/storage/innobase/{file}"),
            })
        };
        let db = serde_json::json!([
            entry("buf/buf0buf.cc", "innobase"),
            entry("buf/buf0dump.cc", "innobase"),
            entry("buf/buf0lru.cc", "innobase"),
            entry("buf/buf0flu.cc", "innobase"),
            entry("btr/btr0btr.cc", "innobase"),
            // buf0extra.cc only in another target, and buf0flu.cc twice
            entry("buf/buf0extra.cc", "innochecksum"),
            entry("buf/buf0flu.cc", "innochecksum"),
        ]);
        fs::write(
            build.join("compile_commands.json"),
            serde_json::to_vec_pretty(&db).unwrap(),
        )
        .unwrap();
        Fixture {
            _dir: dir,
            src,
            build,
        }
    }

    #[test]
    fn keeps_the_innobase_entries() {
        let f = fixture();
        let db = CompileDb::load(&f.build.join("compile_commands.json"), &f.src).unwrap();
        let files: Vec<_> = db
            .units
            .iter()
            .map(|u| u.file.display().to_string())
            .collect();
        assert_eq!(
            files,
            [
                "storage/innobase/buf/buf0buf.cc",
                "storage/innobase/buf/buf0dump.cc",
                "storage/innobase/buf/buf0lru.cc",
                "storage/innobase/buf/buf0flu.cc",
                "storage/innobase/btr/btr0btr.cc",
            ]
        );
        assert!(db.units[0].args.contains(&"-DX=\"1\"".to_string()));
        let err = CompileDb::load(
            &f.build.join("compile_commands.json"),
            Path::new("/elsewhere"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("no entry of the innobase target"), "{err}");
    }

    #[test]
    fn picks_units_for_a_changed_header_and_source() {
        let f = fixture();
        let db = CompileDb::load(&f.build.join("compile_commands.json"), &f.src).unwrap();
        let header = PathBuf::from("storage/innobase/include/buf0buf.inl");
        assert_eq!(
            changed_units(std::slice::from_ref(&header), &f.src, &db).unwrap(),
            [
                // through buf0buf.h, and directly; not buf0lru.cc (two
                // headers away), buf0dump.cc (<> include), btr0btr.cc
                // (another module), buf0extra.cc (not in innobase)
                PathBuf::from("storage/innobase/buf/buf0buf.cc"),
                PathBuf::from("storage/innobase/buf/buf0flu.cc"),
            ]
        );
        let lru = PathBuf::from("storage/innobase/buf/buf0lru.cc");
        assert_eq!(
            changed_units(&[lru.clone(), header], &f.src, &db).unwrap(),
            [
                PathBuf::from("storage/innobase/buf/buf0buf.cc"),
                PathBuf::from("storage/innobase/buf/buf0flu.cc"),
                lru,
            ]
        );
        let err = changed_units(
            &[PathBuf::from("storage/innobase/buf/buf0extra.cc")],
            &f.src,
            &db,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("buf0extra.cc"), "{err}");
        // buf0dump.cc includes it directly, buf0buf.cc through buf0buf.h
        assert_eq!(
            changed_units(
                &[PathBuf::from("storage/innobase/include/buf0types.h")],
                &f.src,
                &db,
            )
            .unwrap(),
            [
                PathBuf::from("storage/innobase/buf/buf0buf.cc"),
                PathBuf::from("storage/innobase/buf/buf0dump.cc"),
            ]
        );
        let err = changed_units(
            &[PathBuf::from("storage/innobase/include/fil0fil.h")],
            &f.src,
            &db,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("storage/innobase/fil") && err.contains("fil0fil.h"),
            "{err}"
        );
    }

    #[test]
    fn the_syntax_command_points_into_the_checkout() {
        let f = fixture();
        let db = CompileDb::load(&f.build.join("compile_commands.json"), &f.src).unwrap();
        let checkout = Path::new("/cache/patch-check/abc/gate-10.11");
        let cmd = syntax_command(&db.units[0], &f.src, checkout);
        let build_include = format!("-I{}/include", f.build.display());
        assert_eq!(
            cmd,
            [
                "/usr/bin/c++",
                "-DHAVE_CONFIG_H",
                "-DX=\"1\"",
                build_include.as_str(),
                "-I/cache/patch-check/abc/gate-10.11/storage/innobase/include",
                "-O2",
                "-c",
                "/cache/patch-check/abc/gate-10.11/storage/innobase/buf/buf0buf.cc",
                "-fsyntax-only",
            ]
        );
    }
}
