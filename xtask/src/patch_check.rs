//! `cargo xtask patch check`: every patch of `patches/patches.toml` on
//! every tree, applied to a fresh checkout and compiled with the tree's
//! real compile commands.
//!
//! Every patch is tried on every tree, not only on the series it is made
//! for, so the report also says whether the 10.11 patch would serve 10.5
//! and the other way round. Only a patch of the tree's own series that
//! fails makes the command fail; a foreign patch that does not apply is
//! information.
//!
//! Compiling: the configured tree (`build::configure_only`) has the
//! compile_commands.json of the project's cmake options. The entries of the
//! `innobase` target are rewritten from the configured source to the
//! patched checkout and run with `-fsyntax-only` in the configured build
//! directory, which has the generated headers (my_config.h,
//! mysqld_error.h). A changed .cc file is compiled itself; a changed header
//! through the .cc files of its InnoDB module that include it directly or
//! through one header (buf0buf.inl: the buf/*.cc that include buf0buf.h).

use crate::build;
use crate::dims::Series;
use crate::patch::{self, Entry, Table};
use crate::record::Patch;
use crate::record::Tree;
use crate::tree;
use crate::util::{cache_root, write_json, Stage};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The target whose compile commands are used; its objects are named
/// `CMakeFiles/innobase.dir/<module>/<file>.cc.o` in every series.
const INNOBASE_OBJECTS: &str = "CMakeFiles/innobase.dir/";

/// `cargo xtask patch ...`
#[derive(clap::Subcommand, Debug)]
pub enum PatchCommand {
    /// Apply every patch of patches/patches.toml to every tree and compile
    /// the InnoDB files it changes; print a table and write it as JSON.
    Check {
        /// A tree, e.g. `debian:mariadb=1:10.11.18-0+deb12u1` (repeatable;
        /// default: the Debian 10.11.18 and 10.5.23 trees).
        #[arg(long = "tree")]
        trees: Vec<String>,
        /// Where to write the JSON result (default:
        /// <cache>/patch-check/report.json).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

pub fn run(cmd: PatchCommand) -> Result<()> {
    match cmd {
        PatchCommand::Check { trees, out } => {
            let specs: Vec<String> = if trees.is_empty() {
                tree::DEBIAN_TREES.iter().map(|s| s.to_string()).collect()
            } else {
                trees
            };
            let report = check(&specs)?;
            println!("{}", table(&report));
            let out = out.unwrap_or_else(|| cache_root().join("patch-check").join("report.json"));
            write_json(&out, &report)?;
            eprintln!("result written to {}", out.display());
            let failures = report.failures();
            if !failures.is_empty() {
                bail!(
                    "{} patch(es) of a tree's own series failed: {}",
                    failures.len(),
                    failures.join("; ")
                );
            }
            Ok(())
        }
    }
}

/// What became of one patch on one tree.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// Not tried: the tree carries the upstream fix the patch conflicts with.
    Refused { reason: String },
    /// A hunk (named in the error) does not apply.
    DoesNotApply { error: String },
    /// Applied, but nothing could be compiled (no compile command, no unit
    /// including a changed header, or the tree could not be configured).
    NotCompiled { error: String },
    /// Applied, and some units did not compile.
    CompileFailed {
        units: Vec<PathBuf>,
        failed: Vec<PathBuf>,
        /// The first error of the first failing unit, with its context.
        first_error: String,
        /// The patched checkout, kept for a look.
        checkout: PathBuf,
    },
    /// Applied, and every unit compiled.
    Compiled { units: Vec<PathBuf> },
}

impl Outcome {
    /// The patch is fine on the tree: compiled, or refused on purpose.
    pub fn ok(&self) -> bool {
        matches!(self, Outcome::Compiled { .. } | Outcome::Refused { .. })
    }

    /// One cell of the table: `compiled 5 units`, `does not apply`, ...
    pub fn summary(&self) -> String {
        match self {
            Outcome::Refused { reason } => format!("refused: {reason}"),
            Outcome::DoesNotApply { .. } => "does not apply".into(),
            Outcome::NotCompiled { .. } => "applies, not compiled".into(),
            Outcome::CompileFailed { units, failed, .. } => {
                format!(
                    "applies, {} of {} units fail to compile",
                    failed.len(),
                    units.len()
                )
            }
            Outcome::Compiled { units } => format!(
                "applies, compiles ({} unit{})",
                units.len(),
                if units.len() == 1 { "" } else { "s" }
            ),
        }
    }

    /// The error behind a failure, for the lines under the table.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Outcome::DoesNotApply { error } | Outcome::NotCompiled { error } => Some(error),
            Outcome::CompileFailed { first_error, .. } => Some(first_error),
            _ => None,
        }
    }
}

/// One (tree, patch) cell.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Check {
    pub variant: String,
    /// The series the patch is made for.
    pub series: Vec<Series>,
    pub file: PathBuf,
    pub patch_sha256: String,
    /// The patch is made for the tree's own series: failing fails the check.
    pub own_series: bool,
    pub outcome: Outcome,
    pub seconds: f64,
}

/// One tree and its cells; `error` when the tree itself could not be
/// resolved (then it has no cells and counts as a failure).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TreeChecks {
    pub spec: String,
    pub version: Option<String>,
    pub series: Option<Series>,
    pub id: Option<String>,
    pub has_upstream_fix: Option<bool>,
    pub error: Option<String>,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub trees: Vec<TreeChecks>,
}

impl Report {
    /// What makes the command fail: a tree that cannot be resolved, and a
    /// patch of a tree's own series that is not refused and does not
    /// compile.
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for t in &self.trees {
            let name = t.version.clone().unwrap_or_else(|| t.spec.clone());
            if let Some(e) = &t.error {
                out.push(format!("{}: {}", t.spec, first_line(e)));
            }
            for c in t.checks.iter().filter(|c| c.own_series && !c.outcome.ok()) {
                out.push(format!(
                    "{} on {name}: {}",
                    c.file.display(),
                    c.outcome.summary()
                ));
            }
        }
        out
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or_default()
}

/// Checks every patch of the table on every tree of `specs`.
pub fn check(specs: &[String]) -> Result<Report> {
    let table = Table::load()?;
    let mut trees = Vec::new();
    for spec in specs {
        let t = match tree::resolve(spec) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("    cannot resolve tree `{spec}`: {e:#}");
                trees.push(TreeChecks {
                    spec: spec.clone(),
                    version: None,
                    series: None,
                    id: None,
                    has_upstream_fix: None,
                    error: Some(format!("{e:#}")),
                    checks: Vec::new(),
                });
                continue;
            }
        };
        trees.push(check_tree(&t, &table)?);
    }
    Ok(Report { trees })
}

/// The compile database of a tree, made once and only when a patch applies.
enum Configured {
    NotYet,
    Ready(CompileDb),
    Failed(String),
}

fn check_tree(t: &Tree, table: &Table) -> Result<TreeChecks> {
    eprintln!(
        "patch check: {} ({}, series {}, commit {}{})",
        t.version,
        t.spec,
        t.series,
        &t.id[..12.min(t.id.len())],
        if t.has_upstream_fix {
            ", carries MDEV-33966"
        } else {
            ""
        }
    );
    let mut configured = Configured::NotYet;
    let mut checks = Vec::new();
    for entry in &table.entries {
        let start = Instant::now();
        let p = entry.load()?;
        let outcome = check_one(t, entry, &p, &mut configured)?;
        let seconds = start.elapsed().as_secs_f64();
        eprintln!(
            "    {} ({}) on {}: {}",
            entry.variant,
            crate::patch::series_list(&entry.series),
            t.version,
            outcome.summary()
        );
        if let Some(d) = outcome.detail() {
            for l in d.lines() {
                eprintln!("        {l}");
            }
        }
        checks.push(Check {
            variant: entry.variant.clone(),
            series: entry.series.clone(),
            file: entry.file.clone(),
            patch_sha256: p.sha256.clone(),
            own_series: entry.series.contains(&t.series),
            outcome,
            seconds,
        });
    }
    Ok(TreeChecks {
        spec: t.spec.clone(),
        version: Some(t.version.clone()),
        series: Some(t.series),
        id: Some(t.id.clone()),
        has_upstream_fix: Some(t.has_upstream_fix),
        error: None,
        checks,
    })
}

/// The scratch checkout of one (tree, patch): `<cache>/patch-check/<tree
/// id 12>/<variant>-<series>`.
fn scratch_dir(t: &Tree, entry: &Entry) -> PathBuf {
    cache_root()
        .join("patch-check")
        .join(&t.id[..12.min(t.id.len())])
        .join(format!(
            "{}-{}",
            entry.variant,
            crate::patch::series_list(&entry.series)
        ))
}

/// Errors here are the machinery's (a checkout that cannot be written);
/// what the patch and the compiler say ends up in the outcome.
fn check_one(t: &Tree, entry: &Entry, p: &Patch, configured: &mut Configured) -> Result<Outcome> {
    if matches!(t.kind(), crate::record::TreeKind::Packaged { .. }) {
        return Ok(Outcome::Refused {
            reason: "a packaged server has no source to patch".into(),
        });
    }
    if let Some(reason) = entry.refusal(t) {
        return Ok(Outcome::Refused { reason });
    }
    let dir = scratch_dir(t, entry);
    let stage = Stage::start(format!(
        "check out {} and apply {}",
        t.version,
        p.file.display()
    ));
    let repo = tree::checkout(t, &dir)?;
    let applied = patch::apply(&repo, p);
    stage.done();
    if let Err(e) = applied {
        // nothing was changed: the checkout is of no further interest
        drop(repo);
        fs::remove_dir_all(&dir).ok();
        return Ok(Outcome::DoesNotApply {
            error: format!("{e:#}"),
        });
    }
    if let Configured::NotYet = configured {
        *configured = match build::configure_only(t)
            .and_then(|c| CompileDb::load(&c.build.join("compile_commands.json"), &c.src))
        {
            Ok(db) => Configured::Ready(db),
            Err(e) => Configured::Failed(format!("cannot configure {}: {e:#}", t.version)),
        };
    }
    let db = match configured {
        Configured::Ready(db) => &*db,
        Configured::Failed(e) => return Ok(Outcome::NotCompiled { error: e.clone() }),
        Configured::NotYet => unreachable!("configured just above"),
    };
    let units = match changed_units(&patch::changed_files(p)?, &dir, db) {
        Ok(u) if u.is_empty() => {
            return Ok(Outcome::NotCompiled {
                error: format!("{} changes no file", p.file.display()),
            })
        }
        Ok(u) => u,
        Err(e) => {
            return Ok(Outcome::NotCompiled {
                error: format!("{}: {e:#}", p.file.display()),
            })
        }
    };
    let stage = Stage::start(format!(
        "compile {} unit(s) of {} with {}",
        units.len(),
        t.version,
        p.file.display()
    ));
    let results = compile_all(db, &units, &dir)?;
    stage.done();
    let failed: Vec<(PathBuf, String)> = results
        .into_iter()
        .filter_map(|(unit, r)| r.err().map(|e| (unit, e)))
        .collect();
    if let Some((unit, error)) = failed.first() {
        return Ok(Outcome::CompileFailed {
            first_error: format!("{}:\n{error}", unit.display()),
            failed: failed.iter().map(|(u, _)| u.clone()).collect(),
            units,
            checkout: dir,
        });
    }
    drop(repo);
    fs::remove_dir_all(&dir).ok();
    Ok(Outcome::Compiled { units })
}

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
fn compile_all(
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

/// The table printed at the end: one row per (tree, patch), then the
/// errors behind the rows that are not fine, as plain text.
pub fn table(report: &Report) -> String {
    use crate::report::doc::{self, Block};
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for t in &report.trees {
        let name = t.version.clone().unwrap_or_else(|| t.spec.clone());
        if let Some(e) = &t.error {
            rows.push(vec![
                name.clone(),
                "-".into(),
                "-".into(),
                "tree not resolved".into(),
            ]);
            notes.push(format!("{name}: {e}"));
        }
        for c in &t.checks {
            rows.push(vec![
                name.clone(),
                c.file.display().to_string(),
                format!(
                    "{}{}",
                    crate::patch::series_list(&c.series),
                    if c.own_series { " (own)" } else { "" }
                ),
                c.outcome.summary(),
            ]);
            if let Some(d) = c.outcome.detail() {
                // apply's errors already start with the patch file
                let file = c.file.display().to_string();
                let d = d.strip_prefix(&format!("{file}: ")).unwrap_or(d);
                notes.push(format!("{name} {file}: {d}"));
            }
        }
    }
    let mut blocks = vec![Block::Table {
        header: ["tree", "patch", "made for", "result"]
            .map(String::from)
            .to_vec(),
        rows,
    }];
    if !notes.is_empty() {
        blocks.push(Block::Bullets(notes));
    }
    doc::text(&blocks)
}

#[cfg(test)]
mod tests {
    /// A series from its text, for the tests.
    fn sr(s: &str) -> crate::dims::Series {
        s.parse().unwrap()
    }
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

    #[test]
    fn own_series_failures_fail_and_foreign_ones_do_not() {
        let cell = |own: bool, outcome: Outcome| Check {
            variant: "gate".into(),
            series: vec![Series::V10_5],
            file: "patches/10.5/gate.patch".into(),
            patch_sha256: String::new(),
            own_series: own,
            outcome,
            seconds: 0.0,
        };
        let nope = || Outcome::DoesNotApply {
            error: "hunk".into(),
        };
        let mut report = Report {
            trees: vec![TreeChecks {
                spec: "debian:x".into(),
                version: Some("10.5.23".into()),
                series: Some(Series::V10_5),
                id: Some("0".repeat(40)),
                has_upstream_fix: Some(false),
                error: None,
                checks: vec![
                    cell(false, nope()),
                    cell(
                        true,
                        Outcome::Refused {
                            reason: "tree carries MDEV-33966".into(),
                        },
                    ),
                    cell(true, Outcome::Compiled { units: vec![] }),
                ],
            }],
        };
        assert!(report.failures().is_empty());
        let printed = table(&report);
        assert!(
            printed.contains("refused: tree carries MDEV-33966"),
            "{printed}"
        );
        assert!(printed.contains("10.5 (own)"), "{printed}");
        // the result column starts at one place on every line of the table,
        // the header ruled off; the error behind a row is a note under it
        let lines: Vec<&str> = printed.lines().collect();
        let result_at = lines[0].find("result").unwrap();
        assert!(lines[1].chars().all(|c| c == '-'), "{printed}");
        for row in ["does not apply", "refused:", "applies, compiles"] {
            let line = lines.iter().find(|l| l.contains(row)).unwrap();
            assert_eq!(line.find(row), Some(result_at), "{printed}");
        }
        assert!(
            printed.ends_with("\n\n- 10.5.23 patches/10.5/gate.patch: hunk\n"),
            "{printed}"
        );
        report.trees[0].checks.push(cell(true, nope()));
        let f = report.failures();
        assert_eq!(f.len(), 1);
        assert!(
            f[0].contains("does not apply") && f[0].contains("10.5.23"),
            "{f:?}"
        );
    }

    #[test]
    fn a_fixed_tree_refuses_every_patch_before_checking_out() {
        // a tiny tree whose buf0buf.h has the MDEV-33966 names
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("server");
        fs::create_dir_all(src.join("storage/innobase/include")).unwrap();
        fs::write(
            src.join("VERSION"),
            "MYSQL_VERSION_MAJOR=10\nMYSQL_VERSION_MINOR=11\nMYSQL_VERSION_PATCH=99\n",
        )
        .unwrap();
        fs::write(
            src.join("storage/innobase/include/buf0buf.h"),
            "uint32_t access_clock;\n",
        )
        .unwrap();
        let repo = git2::Repository::init(&src).unwrap();
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        let tree_id = index.write_tree().unwrap();
        let sig = git2::Signature::now("t", "t@localhost").unwrap();
        repo.commit(
            Some("HEAD"),
            &sig,
            &sig,
            "fixed",
            &repo.find_tree(tree_id).unwrap(),
            &[],
        )
        .unwrap();

        let t = tree::resolve(&format!("path:{}", src.display())).unwrap();
        assert!(t.has_upstream_fix);
        let checks = check_tree(&t, &Table::load().unwrap()).unwrap();
        assert_eq!(checks.checks.len(), Table::load().unwrap().entries.len());
        for c in &checks.checks {
            assert_eq!(
                c.outcome,
                Outcome::Refused {
                    reason: "tree carries MDEV-33966".into()
                },
                "{}",
                c.file.display()
            );
        }
        assert!(Report {
            trees: vec![checks]
        }
        .failures()
        .is_empty());
        assert!(!scratch_dir(&t, &Table::load().unwrap().entries[0]).exists());
    }

    /// The real thing on the Debian 10.11.18 tree: the own gate patch
    /// compiles the buf/ units that include buf0buf.h, the 10.5 clock patch
    /// does not apply (its context is 10.5's), and a patch that breaks
    /// buf0lru.cc applies and fails with the compiler's error, which shows
    /// the units really are compiled from the patched checkout.
    #[test]
    #[ignore = "needs the Debian 10.11.18 tree and its configured build (network and \
                ~4 min on first use, ~1 min after); run with -- --ignored"]
    fn the_real_10_11_18_tree() {
        let t = tree::resolve(tree::DEBIAN_TREES[0]).unwrap();
        let table = Table::load().unwrap();
        let mut configured = Configured::NotYet;
        let mut run = |e: &Entry| check_one(&t, e, &e.load().unwrap(), &mut configured).unwrap();

        let gate = table.find(sr("10.11"), "gate").unwrap();
        match run(gate) {
            Outcome::Compiled { units } => {
                for u in ["buf0buf.cc", "buf0lru.cc", "buf0flu.cc"] {
                    assert!(
                        units.contains(&PathBuf::from("storage/innobase/buf").join(u)),
                        "{u} not in {units:?}"
                    );
                }
            }
            other => panic!("{other:?}"),
        }

        match run(table.find(sr("10.5"), "clock").unwrap()) {
            Outcome::DoesNotApply { error } => assert!(
                error.contains("storage/innobase/buf/buf0lru.cc") && error.contains("hunk"),
                "{error}"
            ),
            other => panic!("{other:?}"),
        }

        let dir = tempfile::tempdir().unwrap();
        let broken = dir.path().join("broken.patch");
        let text = fs::read_to_string(crate::util::repo_root().join("patches/10.11/clock.patch"))
            .unwrap()
            .replace(
                "+\t/* innodb-lab clock variant (MDEV-37992): freed_page_clock never\n\
                 +\tadvances, so buf_page_peek_if_too_old() keeps seeing 0. */\n",
                "+\tbuf_pool.no_such_member_for_the_test += 1;\n+\n",
            );
        assert!(text.contains("no_such_member_for_the_test"));
        fs::write(&broken, text).unwrap();
        let entry = Entry {
            variant: "broken".into(),
            series: vec![Series::V10_11],
            file: broken,
            description: "does not compile".into(),
            refuse_on: None,
            line: 0,
        };
        match run(&entry) {
            Outcome::CompileFailed {
                failed,
                first_error,
                checkout,
                ..
            } => {
                assert_eq!(failed, [PathBuf::from("storage/innobase/buf/buf0lru.cc")]);
                assert!(
                    first_error.contains("no_such_member_for_the_test")
                        && first_error.contains("error:"),
                    "{first_error}"
                );
                fs::remove_dir_all(checkout).unwrap();
            }
            other => panic!("{other:?}"),
        }
    }
}
