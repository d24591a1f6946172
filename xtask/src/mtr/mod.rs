//! `cargo xtask mtr`: MariaDB's own test runner (mysql-test-run) on one
//! variant's build. The build is the one `cargo xtask build` makes (same
//! key, reused), made whole for mtr (every target: the client tools,
//! `my_safe_process`, ...). The project's own mtr tests (`mtr/suite/`) are
//! copied into the build's source checkout first; mtr runs with a vardir
//! on /dev/shm, ports of its own and a deadline; its output is read into
//! one result per test (`parse.rs`) and a report (`report.rs`).

pub mod parse;
pub mod report;

use crate::build;
use crate::host::Host;
use crate::record::Tree;
use crate::record::{Build, BuildType, WholeBuild};
use crate::tree;
use crate::util::{repo_root, sha256_hex, slug, write_json, Command, Stage};
use crate::variant;
use anyhow::{bail, Context, Result};
use parse::{Status, TestResult, Totals};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Version of the mtr result JSON layout.
pub const SCHEMA_VERSION: u32 = 1;

/// What `run` needs, beyond the command line: where our own tests are.
#[derive(Debug, Clone)]
pub struct Options {
    pub tree: tree::TreeSpec,
    pub variant: String,
    pub build_type: BuildType,
    pub suite: Option<String>,
    pub big_test: bool,
    pub tests: Vec<String>,
    pub out: Option<PathBuf>,
    /// the directory holding `suite/<suite>/{t,r}/` (the repository's `mtr/`)
    pub overlay: PathBuf,
    pub deadline: Duration,
    pub keep: bool,
    /// a skipped test is a problem too
    pub all_pass: bool,
    /// ... except these, whose skip is reported and allowed
    pub may_skip: Vec<String>,
}

/// One mtr run of one variant: written to `<out>/<variant>[-<build type>].json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MtrRun {
    pub schema_version: u32,
    /// the tree's label in reports (its version)
    pub tree: String,
    pub tree_info: Tree,
    pub variant: String,
    pub build_type: BuildType,
    pub build: Build,
    pub whole_build: WholeBuild,
    /// our own test files copied into the tree before the run
    pub overlay: Vec<OverlayFile>,
    pub suite: Option<String>,
    pub big_test: bool,
    pub tests_asked: Vec<String>,
    /// mtr's command line and the MTR_BUILD_THREAD it ran with
    pub command: Vec<String>,
    pub build_thread: u32,
    pub parallel: usize,
    pub host: Host,
    pub tool_revision: String,
    pub started_unix: u64,
    /// mtr's wall time, measured here
    pub wall_seconds: f64,
    /// mtr's exit code; absent when it was killed
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// mtr's whole output (not committed with reports)
    pub log: PathBuf,
    pub totals: Totals,
    pub tests: Vec<TestResult>,
    /// asked with `--all-pass`: a skipped test is a problem too
    #[serde(default)]
    pub all_pass: bool,
    /// with `all_pass`: tests whose skip is reported and allowed
    #[serde(default)]
    pub may_skip: Vec<String>,
}

impl MtrRun {
    /// `fixed`, or `fixed (Debug)` for a build type other than the default.
    pub fn label(&self) -> String {
        label(&self.variant, self.build_type)
    }

    /// Whether mtr ran to its end and no test failed.
    pub fn ok(&self) -> bool {
        self.problem().is_none()
    }

    /// Why the run does not count as passed, if it does not.
    pub fn problem(&self) -> Option<String> {
        if self.timed_out {
            return Some("mtr did not finish before the deadline".into());
        }
        if let Some(e) = &self.totals.mtr_error {
            return Some(format!("mtr stopped: {e}"));
        }
        if self.totals.failed > 0 {
            return Some(format!("{} test(s) failed", self.totals.failed));
        }
        if self.totals.mtr_completed.is_none() {
            return Some("mtr's output has no `Completed:` line".into());
        }
        if self.exit_code != Some(0) {
            return Some(format!("mtr exited with {:?}", self.exit_code));
        }
        if self.totals.passed == 0 {
            return Some("no test passed (none ran?)".into());
        }
        let skipped: Vec<String> = self
            .skips()
            .filter(|(_, allowed)| !allowed)
            .map(|(t, _)| t)
            .collect();
        if self.all_pass && !skipped.is_empty() {
            return Some(format!(
                "{} test(s) skipped where every test must pass: {}",
                skipped.len(),
                skipped.join(", ")
            ));
        }
        None
    }

    /// Each skipped test with its reason, and whether its skip is allowed
    /// (named with --may-skip).
    pub fn skips(&self) -> impl Iterator<Item = (String, bool)> + '_ {
        self.tests
            .iter()
            .filter(|t| t.status == Status::Skipped)
            .map(|t| {
                let allowed = self.may_skip.contains(&t.name);
                (
                    format!("{} ({})", t.key(), t.skip_reason.as_deref().unwrap_or("?")),
                    allowed,
                )
            })
    }
}

fn label(variant: &str, build_type: BuildType) -> String {
    if build_type == BuildType::default() {
        variant.to_string()
    } else {
        format!("{variant} ({build_type})")
    }
}

/// The file name of a run's result: `fixed.json`, `fixed-debug.json`.
pub fn result_file_name(variant: &str, build_type: BuildType) -> String {
    if build_type == BuildType::default() {
        format!("{}.json", slug(variant))
    } else {
        format!(
            "{}-{}.json",
            slug(variant),
            build_type.as_str().to_lowercase()
        )
    }
}

/// A file of ours copied into the tree's `mysql-test/`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverlayFile {
    /// relative to `mysql-test/` (and to the overlay directory)
    pub path: PathBuf,
    pub sha256: String,
}

/// Builds (or reuses) the variant, runs mtr on it, writes its result and
/// the directory's report. Returns the result file and the run; a run
/// with failed tests is a result, not an error.
pub fn run(opts: &Options) -> Result<(PathBuf, MtrRun)> {
    if opts.suite.is_none() && opts.tests.is_empty() {
        bail!("name a --suite or tests (e.g. innodb.flush): mtr's default suites take hours");
    }
    let t = tree::resolve(&opts.tree)?;
    // its overlay and result parser are MariaDB's mtr's
    t.mariadb_only("cargo xtask mtr")?;
    // as `cargo xtask build` does: `base` on a tree with the fix is `fixed`
    let v = variant::resolve(&Default::default(), &t, &opts.variant)?;
    let b = build::build(&t, &v.label, &v.change, opts.build_type)?;
    let whole = build::make_whole(&b)?;
    let overlay = apply_overlay(&opts.overlay, &b.src.join("mysql-test"), &b.build)?;

    let out = opts.out.clone().unwrap_or_else(|| {
        repo_root()
            .join("results")
            .join(format!("mtr-{}", t.version))
    });
    let name = result_file_name(&v.label, opts.build_type);
    let log = out.join("logs").join(name.replace(".json", ".log"));
    let parallel = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(SLOT_WIDTH as usize);
    // the run root must be the tool's own, as for a matrix
    let root = crate::server::trusted_shm_root()?;
    let slot = PortSlot::acquire_in(&root.join("mtr-slots"))?;
    let build_thread = slot.build_thread;
    let vardir = root.join(format!(
        "mtr-{}-{}-{}",
        slug(&t.version),
        name.trim_end_matches(".json"),
        std::process::id()
    ));
    let mtr = b.build.join("mysql-test/mtr");
    if !mtr.exists() {
        bail!(
            "{} is missing: the build directory has no mtr",
            mtr.display()
        );
    }
    let args = mtr_args(opts, parallel, &vardir);

    let started_unix = crate::provenance::unix_now();
    let stage = Stage::start(format!(
        "mtr on {} {} (MTR_BUILD_THREAD {}, --parallel={parallel})",
        t.version,
        label(&v.label, opts.build_type),
        build_thread
    ));
    let outcome = run_mtr(&mtr, &args, build_thread, &log, opts.deadline + KILL_GRACE);
    let wall_seconds = stage.done();
    drop(slot);
    if !opts.keep {
        let _ = fs::remove_dir_all(&vardir);
    }
    let (exit_code, timed_out) = outcome?;
    let text = String::from_utf8_lossy(&fs::read(&log)?).into_owned();
    let parsed = parse::parse(&text);

    let run = MtrRun {
        schema_version: SCHEMA_VERSION,
        tree: t.version.clone(),
        tree_info: t.clone(),
        variant: v.label.clone(),
        build_type: opts.build_type,
        build: b,
        whole_build: whole,
        overlay,
        suite: opts.suite.clone(),
        big_test: opts.big_test,
        tests_asked: opts.tests.clone(),
        command: std::iter::once(mtr.display().to_string())
            .chain(args)
            .collect(),
        build_thread,
        parallel,
        host: Host::detect(),
        tool_revision: crate::provenance::tool_revision(),
        started_unix,
        wall_seconds,
        exit_code,
        timed_out,
        log,
        totals: parsed.totals,
        tests: parsed.tests,
        all_pass: opts.all_pass,
        may_skip: opts.may_skip.clone(),
    };
    let path = out.join(name);
    write_json(&path, &run)?;
    report::write(&out, &report::read_runs(&out)?)?;
    Ok((path, run))
}

/// mtr's arguments: `parallel` workers, every test run even after a
/// failure, the vardir, the suite's deadline, then the suite and tests
/// asked for.
fn mtr_args(opts: &Options, parallel: usize, vardir: &Path) -> Vec<String> {
    let mut args = vec![
        format!("--parallel={parallel}"),
        "--force".to_string(),
        "--max-test-fail=0".to_string(),
        format!("--vardir={}", vardir.display()),
        format!("--suite-timeout={}", opts.deadline.as_secs().div_ceil(60)),
    ];
    if let Some(s) = &opts.suite {
        args.push(format!("--suite={s}"));
    }
    if opts.big_test {
        args.push("--big-test".into());
    }
    args.extend(opts.tests.iter().cloned());
    args
}

/// How long mtr gets after its own suite timeout before it is killed.
const KILL_GRACE: Duration = Duration::from_secs(300);

/// Runs mtr (util::Command: its own process group, registered for
/// SIGINT/SIGTERM, stopped at the deadline) with its output (stdout and
/// stderr) in `log`, printing each test result as it comes. Returns the
/// exit code (absent when killed) and whether the deadline was reached.
fn run_mtr(
    mtr: &Path,
    args: &[String],
    build_thread: u32,
    log: &Path,
    deadline: Duration,
) -> Result<(Option<i32>, bool)> {
    let mut results = 0usize;
    let finished = Command::new(mtr.display().to_string())
        .args(args.iter().cloned())
        .env("MTR_BUILD_THREAD", build_thread.to_string())
        .deadline(deadline)
        .stream(Some(log), |line| {
            let progress = line.contains("[ pass ]")
                || line.contains("fail ]")
                || line.starts_with("Completed:")
                || line.contains("*** ERROR");
            if progress {
                results += 1;
                eprintln!("    [{results}] {line}");
            }
        })
        .with_context(|| format!("cannot run {}", mtr.display()))?;
    if finished.timed_out {
        eprintln!("    mtr passed its deadline and was stopped");
    }
    Ok((finished.status.code(), finished.timed_out))
}

/// Copies `<overlay>/suite/<suite>/{t,r}/*` into `<mysql_test>/suite/<suite>/`.
/// A file that would replace one of the tree's own (one we did not copy
/// there before) with other content is refused; files we copied before
/// and no longer have are removed. What was copied is remembered in
/// `<build>/../mtr-overlay.json`.
pub fn apply_overlay(
    overlay: &Path,
    mysql_test: &Path,
    build_dir: &Path,
) -> Result<Vec<OverlayFile>> {
    let record = build_dir
        .parent()
        .unwrap_or(build_dir)
        .join("mtr-overlay.json");
    let previous: Vec<OverlayFile> = fs::read_to_string(&record)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let files = overlay_files(overlay)?;
    for old in &previous {
        if !files.iter().any(|(p, _)| p == &old.path) {
            let _ = fs::remove_file(mysql_test.join(&old.path));
        }
    }
    let mut copied = Vec::new();
    for (rel, bytes) in files {
        let dest = mysql_test.join(&rel);
        let sha256 = sha256_hex(&bytes);
        if let Ok(existing) = fs::read(&dest) {
            let ours_before = previous.iter().any(|p| p.path == rel);
            if !ours_before && existing != bytes {
                bail!(
                    "{} would replace the tree's own {} with other content; rename it",
                    overlay.join(&rel).display(),
                    dest.display()
                );
            }
        }
        if let Some(dir) = dest.parent() {
            fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        }
        fs::write(&dest, &bytes).with_context(|| format!("cannot write {}", dest.display()))?;
        copied.push(OverlayFile { path: rel, sha256 });
    }
    write_json(&record, &copied)?;
    if !copied.is_empty() {
        eprintln!(
            "    copied {} test file(s) of ours into {}",
            copied.len(),
            mysql_test.display()
        );
    }
    Ok(copied)
}

/// The files of `<overlay>/suite/<suite>/{t,r}/`, relative to `overlay`,
/// sorted.
fn overlay_files(overlay: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files = Vec::new();
    let Ok(suites) = fs::read_dir(overlay.join("suite")) else {
        return Ok(files);
    };
    for suite in suites.flatten().filter(|e| e.path().is_dir()) {
        for sub in ["t", "r"] {
            let Ok(entries) = fs::read_dir(suite.path().join(sub)) else {
                continue;
            };
            for e in entries.flatten().filter(|e| e.path().is_file()) {
                let rel = PathBuf::from("suite")
                    .join(suite.file_name())
                    .join(sub)
                    .join(e.file_name());
                let bytes = fs::read(e.path())
                    .with_context(|| format!("cannot read {}", e.path().display()))?;
                files.push((rel, bytes));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// mtr's ports: worker i of a run uses MTR_BUILD_THREAD + i - 1, and each
/// build thread reserves 30 ports from 10000 + 30 x thread. Runs of this
/// tool take a slot of SLOT_WIDTH threads under a lock file, from 610 up:
/// above the 300-604 that mtr's own `auto` mode picks from for up to 2
/// workers, and below 757, the last thread whose ports stay under 32767.
const FIRST_BUILD_THREAD: u32 = 610;
const SLOT_WIDTH: u32 = 10;
const SLOTS: u32 = 14;

/// A slot of build threads held for one mtr run (released when dropped:
/// the lock file is closed).
struct PortSlot {
    _lock: fs::File,
    build_thread: u32,
}

impl PortSlot {
    fn acquire_in(dir: &Path) -> Result<PortSlot> {
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        for k in 0..SLOTS {
            let path = dir.join(format!("{k}.lock"));
            let file = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            // released when the file closes
            let operation = rustix::fs::FlockOperation::NonBlockingLockExclusive;
            if rustix::fs::flock(&file, operation).is_ok() {
                return Ok(PortSlot {
                    _lock: file,
                    build_thread: FIRST_BUILD_THREAD + k * SLOT_WIDTH,
                });
            }
        }
        bail!(
            "all {SLOTS} mtr port slots under {} are held by other runs",
            dir.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_slots_do_not_overlap_and_stay_in_mtrs_range() {
        let dir = tempfile::tempdir().unwrap();
        let a = PortSlot::acquire_in(dir.path()).unwrap();
        let b = PortSlot::acquire_in(dir.path()).unwrap();
        assert_eq!(a.build_thread, FIRST_BUILD_THREAD);
        assert_eq!(b.build_thread, FIRST_BUILD_THREAD + SLOT_WIDTH);
        drop(a);
        // a released slot is taken again
        let c = PortSlot::acquire_in(dir.path()).unwrap();
        assert_eq!(c.build_thread, FIRST_BUILD_THREAD);
        // the last worker of the last slot: ports below 32767 (mtr refuses more)
        let last = FIRST_BUILD_THREAD + SLOTS * SLOT_WIDTH - 1;
        assert!(last * 30 + 10000 + 30 < 32767, "{last}");
        let held: Vec<PortSlot> = (2..SLOTS)
            .map(|_| PortSlot::acquire_in(dir.path()).unwrap())
            .collect();
        let err = PortSlot::acquire_in(dir.path()).err().unwrap().to_string();
        assert!(err.contains("held by other runs"), "{err}");
        drop((b, c, held));
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn overlay_copies_ours_refuses_to_replace_upstream_and_removes_stale_files() {
        let dir = tempfile::tempdir().unwrap();
        let (ours, mysql_test, build_dir) = (
            dir.path().join("mtr"),
            dir.path().join("src/mysql-test"),
            dir.path().join("build"),
        );
        fs::create_dir_all(&build_dir).unwrap();
        write(&mysql_test.join("suite/innodb/t/flush.test"), "upstream\n");
        write(&ours.join("suite/innodb/t/lab.test"), "SELECT 1;\n");
        write(
            &ours.join("suite/innodb/t/lab.opt"),
            "--innodb-buffer-pool-size=8m\n",
        );
        write(&ours.join("suite/innodb/r/lab.result"), "SELECT 1;\n1\n1\n");
        write(
            &ours.join("suite/innodb/include/ignored.inc"),
            "not t or r\n",
        );

        let copied = apply_overlay(&ours, &mysql_test, &build_dir).unwrap();
        let paths: Vec<String> = copied
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        assert_eq!(
            paths,
            [
                "suite/innodb/r/lab.result",
                "suite/innodb/t/lab.opt",
                "suite/innodb/t/lab.test"
            ]
        );
        assert_eq!(copied[2].sha256, sha256_hex(b"SELECT 1;\n"));
        assert_eq!(
            fs::read_to_string(mysql_test.join("suite/innodb/t/lab.test")).unwrap(),
            "SELECT 1;\n"
        );
        assert!(!mysql_test.join("suite/innodb/include/ignored.inc").exists());

        // a changed file of ours replaces its earlier copy; a removed one goes
        write(&ours.join("suite/innodb/t/lab.test"), "SELECT 2;\n");
        fs::remove_file(ours.join("suite/innodb/t/lab.opt")).unwrap();
        let copied = apply_overlay(&ours, &mysql_test, &build_dir).unwrap();
        assert_eq!(copied.len(), 2);
        assert!(!mysql_test.join("suite/innodb/t/lab.opt").exists());
        assert_eq!(
            fs::read_to_string(mysql_test.join("suite/innodb/t/lab.test")).unwrap(),
            "SELECT 2;\n"
        );

        // one of ours named like a test of the tree's own
        write(&ours.join("suite/innodb/t/flush.test"), "ours\n");
        let err = apply_overlay(&ours, &mysql_test, &build_dir)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("flush.test") && err.contains("the tree's own"),
            "{err}"
        );
        assert_eq!(
            fs::read_to_string(mysql_test.join("suite/innodb/t/flush.test")).unwrap(),
            "upstream\n"
        );
    }

    #[test]
    fn result_files_and_labels_name_the_build_type_unless_default() {
        assert_eq!(
            result_file_name("fixed", BuildType::RelWithDebInfo),
            "fixed.json"
        );
        assert_eq!(
            result_file_name("fixed", BuildType::Debug),
            "fixed-debug.json"
        );
        assert_eq!(label("fixed", BuildType::Debug), "fixed (Debug)");
        assert_eq!(label("base", BuildType::default()), "base");
    }
}
