//! `cargo xtask test`: the README's test command. Runs each suite and
//! prints how long each stage took. Builds are keyed, so a variant is
//! built once and shared by every stage that needs it. The integration
//! suites run two at a time: most of their time is servers running phases
//! of a set length, which a second suite's phases can overlap; a suite
//! beside another has its output kept and printed whole when it ends (CI
//! reads cargo's own closing lines), and two suites asking for one build
//! get one (`lock::work`).

use crate::util::{human_duration, Command, Stage};
use anyhow::{bail, Context, Result};
use std::collections::VecDeque;
use std::sync::Mutex;

/// The tree and the mtr tests the test command runs on its `fixed`
/// variant: MariaDB's own buffer pool tests and ours (mtr/suite/).
const MTR_TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";
const MTR_TESTS: &[&str] = &[
    "innodb.lab_lru_reuse",
    "innodb.flush",
    "innodb.purge",
    "innodb.innodb_buffer_pool_resize",
    "innodb.innodb_information_schema_buffer",
    "innodb.innodb_buffer_pool_dump_pct",
    "innodb.page_cleaner",
    "innodb.innodb-index",
];

/// Tests of MTR_TESTS that may skip themselves: innodb.innodb-index skips
/// itself ("Extra checkpoint") when a redo checkpoint falls inside its
/// no-checkpoint window, which fixed does now and then
/// (patches/10.11/fixed.md). Its skip is printed with its reason; any
/// other skip fails the stage.
const MTR_MAY_SKIP: &[&str] = &["innodb.innodb-index"];

/// (tree, patch variant) pairs that get an ffi check of their own: the
/// patches that change the decision rules or the layout the model checks
/// (our lazy-promotion port, the MDEV-41036 form of buf_page_peek_if_young).
const FFI_PATCH_CHECKS: &[(&str, &str)] = &[
    ("debian:mariadb=1:10.11.18-0+deb12u1", "fixed"),
    ("debian:mariadb=1:10.11.18-0+deb12u1", "mdev-41036"),
    ("debian:mariadb=1:11.8.6-0+deb13u1", "fixed"),
];

/// The MySQL tree whose headers the ffi check reads: configured only (no
/// MySQL build in the test command), its decision functions and layout
/// against `lru_model::decide::mysql` and `Layout::MySql9_7`.
const FFI_MYSQL_TREE: &str = "debian:mysql-9.7=9.7.2-4";

/// (tree, patch variant) pairs whose own LRU code the model is replayed
/// against (the oracle crate), configured only: 10.5.23 as it is (its own
/// glue and the `eager-10.5` policy: the reader frees blocks), 10.11.18 as
/// it is (the eager policy), with our port of the fix (the lazy policy) and
/// with the remedy the README recommends (its own policy,
/// `lazy-10.11-port-lookup-mark`). 11.8.6 and its ports pass the same check
/// (11.8's read path), by hand, to keep the test command's time; upstream's
/// fix has no oracle yet (`oracle::tree()` says why).
const ORACLE_CHECKS: &[(&str, &str)] = &[
    ("debian:mariadb-10.5=1:10.5.23-0+deb11u1", "base"),
    ("debian:mariadb=1:10.11.18-0+deb12u1", "base"),
    ("debian:mariadb=1:10.11.18-0+deb12u1", "fixed"),
    ("debian:mariadb=1:10.11.18-0+deb12u1", "fixed-lookup-mark"),
];

/// `cargo` arguments that run this tool's own subcommand `args`.
fn xtask(args: &[&str]) -> Vec<String> {
    ["run", "--quiet", "--release", "--package", "xtask", "--"]
        .iter()
        .chain(args)
        .map(|s| s.to_string())
        .collect()
}

/// `cargo test` arguments for one suite (`target`: `--lib`, or `--test`
/// and a file of xtask/tests/) with the tests on real parts included.
fn cargo_test(package: &str, target: &[&str]) -> Vec<String> {
    let mut args = vec!["test", "--release", "--package", package];
    args.extend(target);
    // the tests on real parts are ignored by a plain `cargo test`
    // (hermetic); this command runs them too. --nocapture: the end-to-end
    // tests build MariaDB; their progress (stage, elapsed time, last
    // build line) belongs in the CI log
    args.extend(["--", "--include-ignored", "--nocapture"]);
    args.into_iter().map(String::from).collect()
}

/// The integration suites of xtask (`xtask/tests/*.rs`), by name, in
/// the order cargo runs them.
fn xtask_suites() -> Result<Vec<String>> {
    let dir = crate::util::repo_root().join("xtask/tests");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_string());
            }
        }
    }
    names.sort();
    Ok(names)
}

/// How many integration suites run at a time.
const LANES: usize = 2;

/// The suites that took longest in the timed runs (docs/testing.md),
/// started first so that the lanes end at about the same time; the others
/// follow in name order.
const LONGEST_FIRST: &[&str] = &[
    "repro",
    "faults",
    "e2e",
    "bisect",
    "write_failures_matrix",
    "cost",
    "buildbot",
    "workloads",
];

/// Integration suites that run alone: the profile passes' perf and gdb
/// windows are set in time inside a load of a set length, and beside
/// another suite on two cores their start slips past it (a run here lost
/// its perf samples and outlasted its load with gdb).
const SUITES_ALONE: &[&str] = &["stacks"];

/// Integration suites the test command leaves out, each with what it
/// needs and how to run it: a build the command must not make (MySQL's
/// first takes hours on 2 cores; the command stays under its time).
/// Compiled with the others, run by hand.
const SUITES_BY_HAND: &[(&str, &str)] = &[(
    "mysql_server",
    "needs MySQL 9.7.2's base build: cargo test --release -p xtask --test mysql_server -- --ignored",
)];

/// Whether a stage may run beside another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lane {
    /// compiling, the unit tests, the suites of SUITES_ALONE, the ffi
    /// checks, the patch check and mtr
    Alone,
    /// an integration suite: its servers, run directories and results
    /// are its own, and the cached work it shares is locked per piece
    Beside,
}

/// One stage of the test command: a cargo command and how it may run.
#[derive(Debug, Clone)]
struct TestStage {
    label: String,
    args: Vec<String>,
    lane: Lane,
}

/// A stage that ran: its place in the order, label, seconds and success.
struct Ran {
    index: usize,
    label: String,
    seconds: f64,
    passed: bool,
}

/// Where each run of the test command leaves its timings (`Timings`):
/// the figures docs/testing.md and the README quote are copies of it
/// committed under `reports/test-command/`.
pub const TIMINGS_FILE: &str = "target/test-timings.json";

/// What one run of the test command measured, as numbers: the stages in
/// their order with their seconds, the whole run's wall time, and where
/// and at which revision it ran.
#[derive(Debug, serde::Serialize)]
struct Timings {
    tool_revision: String,
    host: crate::host::Host,
    finished_unix: u64,
    total_seconds: f64,
    stages: Vec<StageTime>,
}

#[derive(Debug, serde::Serialize)]
struct StageTime {
    label: String,
    seconds: f64,
    passed: bool,
    /// run beside another stage (two lanes) rather than alone
    beside: bool,
}

pub fn run_all() -> Result<()> {
    let whole = std::time::Instant::now();
    // mtr on the fixed variant: keep its results out of results/
    let mtr_dir = tempfile::tempdir()?;
    let mtr_out = mtr_dir.path().to_str().context("a UTF-8 temporary path")?;
    // the output of the suites that run beside another
    let logs = tempfile::tempdir()?;
    // the stages run under the cache lock this command holds, or under the
    // one its own parent holds for it (a wrapper such as flock)
    let holder = crate::environment::current()
        .lock_parent
        .map_or_else(|| std::process::id().to_string(), |p| p.to_string());
    let stages = stages(mtr_out)?;
    for (suite, how) in SUITES_BY_HAND {
        eprintln!("xtask suite {suite}: by hand, not here ({how})");
    }
    let mut ran = Vec::new();
    let mut i = 0;
    while i < stages.len() {
        if stages[i].lane == Lane::Alone {
            ran.push(run_alone(i, &stages[i], &holder)?);
            i += 1;
            continue;
        }
        let batch: Vec<(usize, TestStage)> = (i..stages.len())
            .take_while(|&j| stages[j].lane == Lane::Beside)
            .map(|j| (j, stages[j].clone()))
            .collect();
        i += batch.len();
        ran.extend(run_beside(batch, &holder, logs.path())?);
    }
    ran.sort_by_key(|r| r.index);
    let timings: Vec<(String, f64)> = ran.iter().map(|r| (r.label.clone(), r.seconds)).collect();
    print_timings(&timings);
    let total_seconds = whole.elapsed().as_secs_f64();
    eprintln!("the whole run: {}", human_duration(total_seconds));
    let record = Timings {
        tool_revision: crate::provenance::tool_revision(),
        host: crate::host::Host::detect(),
        finished_unix: crate::provenance::unix_now(),
        total_seconds,
        stages: ran
            .iter()
            .map(|r| StageTime {
                label: r.label.clone(),
                seconds: r.seconds,
                passed: r.passed,
                beside: stages[r.index].lane == Lane::Beside,
            })
            .collect(),
    };
    let file = crate::util::repo_root().join(TIMINGS_FILE);
    match crate::util::write_json(&file, &record) {
        Ok(()) => eprintln!("timings written to {}", file.display()),
        Err(e) => eprintln!("warning: the timings were not written: {e:#}"),
    }
    let failed: Vec<&str> = ran
        .iter()
        .filter(|r| !r.passed)
        .map(|r| r.label.as_str())
        .collect();
    // the closing line: suites (each a cargo test run or a check), not tests
    println!(
        "suites: {} passed, {} failed",
        ran.len() - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        bail!("failed: {}", failed.join(", "));
    }
    Ok(())
}

/// The cargo command of a stage, under the lock `holder` holds.
fn cargo(stage: &TestStage, holder: &str) -> Command {
    Command::new("cargo")
        .args(stage.args.clone())
        .env(crate::environment::LOCK_PARENT, holder)
}

/// A stage run by itself, its output streamed.
fn run_alone(index: usize, stage: &TestStage, holder: &str) -> Result<Ran> {
    let timer = Stage::start(&stage.label);
    let status = cargo(stage, holder).status()?;
    Ok(Ran {
        index,
        label: stage.label.clone(),
        seconds: timer.done(),
        passed: status.success(),
    })
}

/// Stages run `LANES` at a time, the longest first; each one's output goes
/// to a log under `logs` and is printed whole when it ends.
fn run_beside(
    batch: Vec<(usize, TestStage)>,
    holder: &str,
    logs: &std::path::Path,
) -> Result<Vec<Ran>> {
    let queue = Mutex::new(VecDeque::from(longest_first(batch)));
    let ran = Mutex::new(Vec::new());
    let errors = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..LANES {
            scope.spawn(|| loop {
                let Some((index, stage)) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                match run_logged(index, &stage, holder, logs) {
                    Ok(r) => ran.lock().unwrap().push(r),
                    Err(e) => errors
                        .lock()
                        .unwrap()
                        .push(format!("{}: {e:#}", stage.label)),
                }
            });
        }
    });
    let errors = errors.into_inner().unwrap();
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    Ok(ran.into_inner().unwrap())
}

/// One stage beside others: its output to its log, printed when it ends.
fn run_logged(
    index: usize,
    stage: &TestStage,
    holder: &str,
    logs: &std::path::Path,
) -> Result<Ran> {
    let log = logs.join(format!("{index}.log"));
    let timer = Stage::start(format!(
        "{} (beside another; its output follows at its end)",
        stage.label
    ));
    let streamed = cargo(stage, holder).stream(Some(&log), |_| ())?;
    let output = std::fs::read_to_string(&log).unwrap_or_default();
    // one write, so that a stage's output is not cut by another's lines
    eprint!("{output}");
    let seconds = timer.done();
    Ok(Ran {
        index,
        label: stage.label.clone(),
        seconds,
        passed: streamed.status.success() && !streamed.timed_out,
    })
}

/// `batch` reordered: the suites of LONGEST_FIRST in its order, then the
/// others as they came.
fn longest_first(mut batch: Vec<(usize, TestStage)>) -> Vec<(usize, TestStage)> {
    let rank = |label: &str| {
        LONGEST_FIRST
            .iter()
            .position(|s| label == format!("xtask suite {s}"))
            .unwrap_or(LONGEST_FIRST.len())
    };
    batch.sort_by_key(|(i, st)| (rank(&st.label), *i));
    batch
}

/// Every stage of the test command, in order: one stage per suite, so that
/// the timings say which suite is slow; everything is compiled first, in a
/// stage of its own. The mtr stage writes its results to `mtr_out`.
fn stages(mtr_out: &str) -> Result<Vec<TestStage>> {
    let alone = |label: String, args: Vec<String>| TestStage {
        label,
        args,
        lane: Lane::Alone,
    };
    let mut steps = vec![
        // exactly the package the suites below test, so that they find it
        // built: with --workspace cargo would resolve the dependencies'
        // features with lru-model's dev-dependencies too, and the first
        // suite would compile xtask again
        alone(
            "compile the tests".into(),
            ["test", "--release", "--package", "xtask", "--no-run"]
                .map(String::from)
                .to_vec(),
        ),
        alone("lru-model tests".into(), cargo_test("lru-model", &[])),
        alone(
            "xtask unit tests".into(),
            cargo_test("xtask", &["--lib", "--bins"]),
        ),
    ];
    // the suites that run beside another first, in one batch; then those
    // that run alone
    let (alone_suites, beside): (Vec<String>, Vec<String>) = xtask_suites()?
        .into_iter()
        .filter(|s| !SUITES_BY_HAND.iter().any(|(name, _)| name == s))
        .partition(|s| SUITES_ALONE.contains(&s.as_str()));
    let lanes = beside.iter().map(|s| (s, Lane::Beside));
    for (suite, lane) in lanes.chain(alone_suites.iter().map(|s| (s, Lane::Alone))) {
        steps.push(TestStage {
            label: format!("xtask suite {suite}"),
            args: cargo_test("xtask", &["--test", suite]),
            lane,
        });
    }
    for tree in crate::tree::DEBIAN_TREES {
        steps.push(alone(
            format!("ffi check {tree}"),
            xtask(&["ffi", "check", "--tree", tree]),
        ));
    }
    steps.push(alone(
        format!("ffi check {FFI_MYSQL_TREE}"),
        xtask(&["ffi", "check", "--tree", FFI_MYSQL_TREE]),
    ));
    for (tree, variant) in FFI_PATCH_CHECKS {
        steps.push(alone(
            format!("ffi check {tree} --variant {variant}"),
            xtask(&["ffi", "check", "--tree", tree, "--variant", variant]),
        ));
    }
    for (tree, variant) in ORACLE_CHECKS {
        steps.push(alone(
            format!("oracle check {tree} --variant {variant}"),
            xtask(&["oracle", "check", "--tree", tree, "--variant", variant]),
        ));
    }
    steps.push(alone(
        "patch check (every patch on every Debian tree)".into(),
        xtask(&["patch", "check"]),
    ));
    let mut mtr = vec![
        "mtr",
        "--tree",
        MTR_TREE,
        "--variant",
        "fixed",
        "--all-pass",
        "--out",
        mtr_out,
    ];
    for t in MTR_MAY_SKIP {
        mtr.extend(["--may-skip", t]);
    }
    mtr.extend(MTR_TESTS);
    steps.push(alone(
        format!("mtr on fixed of {MTR_TREE} (buffer pool tests and ours)"),
        xtask(&mtr),
    ));
    Ok(steps)
}

/// Each stage's time, then the three slowest.
fn print_timings(timings: &[(String, f64)]) {
    eprintln!("\ntest stage timings:");
    for (label, secs) in timings {
        eprintln!("  {:>9}  {label}", human_duration(*secs));
    }
    eprintln!("slowest stages:");
    for (label, secs) in slowest(timings, 3) {
        eprintln!("  {:>9}  {label}", human_duration(secs));
    }
}

/// The `n` stages that took longest, longest first.
fn slowest(timings: &[(String, f64)], n: usize) -> Vec<(String, f64)> {
    let mut all = timings.to_vec();
    all.sort_by(|a, b| b.1.total_cmp(&a.1));
    all.truncate(n);
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_suites_start_first_and_the_others_keep_their_order() {
        let stage = |name: &str| TestStage {
            label: format!("xtask suite {name}"),
            args: Vec::new(),
            lane: Lane::Beside,
        };
        let batch: Vec<_> = ["bisect", "layers", "cost", "e2e", "reports"]
            .iter()
            .enumerate()
            .map(|(i, n)| (i, stage(n)))
            .collect();
        let order: Vec<String> = longest_first(batch)
            .into_iter()
            .map(|(_, s)| s.label)
            .collect();
        assert_eq!(
            order,
            ["e2e", "bisect", "cost", "layers", "reports"].map(|n| format!("xtask suite {n}"))
        );
    }

    #[test]
    fn only_the_integration_suites_run_beside_another() {
        let all = stages("/tmp/mtr-out").unwrap();
        for s in &all {
            let suite = s.label.strip_prefix("xtask suite ");
            assert_eq!(
                s.lane == Lane::Beside,
                suite.is_some_and(|n| !SUITES_ALONE.contains(&n)),
                "{}",
                s.label
            );
        }
        // every suite of xtask/tests/ is a stage, and the compile stage
        // builds the package the suites test, alone
        let suites = xtask_suites().unwrap();
        assert_eq!(
            all.iter().filter(|s| s.lane == Lane::Beside).count(),
            suites.len() - SUITES_ALONE.len() - SUITES_BY_HAND.len()
        );
        for name in SUITES_ALONE {
            assert!(suites.iter().any(|s| s == name), "no suite {name}");
        }
        for (name, _) in SUITES_BY_HAND {
            assert!(suites.iter().any(|s| s == name), "no suite {name}");
            let label = format!("xtask suite {name}");
            assert!(all.iter().all(|s| s.label != label), "{label} is a stage");
        }
        // the suites beside another are one batch: no stage alone between
        let lanes: Vec<Lane> = all.iter().map(|s| s.lane).collect();
        let first = lanes.iter().position(|l| *l == Lane::Beside).unwrap();
        let last = lanes.iter().rposition(|l| *l == Lane::Beside).unwrap();
        assert!(lanes[first..=last].iter().all(|l| *l == Lane::Beside));
        for name in LONGEST_FIRST {
            assert!(suites.iter().any(|s| s == name), "no suite {name}");
        }
        assert!(all[0].args.windows(2).any(|w| w == ["--package", "xtask"]));
        assert!(!all[0].args.iter().any(|a| a == "--workspace"));
    }

    #[test]
    fn the_slowest_stages_come_longest_first() {
        let t = |l: &str, s: f64| (l.to_string(), s);
        let timings = [t("a", 3.0), t("b", 90.0), t("c", 0.1), t("d", 12.0)];
        assert_eq!(
            super::slowest(&timings, 3),
            [t("b", 90.0), t("d", 12.0), t("a", 3.0)]
        );
    }
}
