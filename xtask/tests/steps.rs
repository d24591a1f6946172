//! Typed failure steps on a real server: the test seam
//! `INNODB_LAB_FAIL_STEP` makes a chosen step of a chosen workload fail as
//! it starts, and the recorded failure must carry exactly that step, read
//! back from the result files. Every workload kind fails once, and every
//! step a cell or a server goes through fails in at least one kind: the
//! bootstrap, the start, the data load and the arming phase of a server,
//! and per cell the idle wait, the warm-up, scan-loop's residency pass, the measured run,
//! the diagnostic pass and the post-write flush.
//!
//! Debian's 10.11.18 base build (shared with the other end-to-end tests)
//! runs the servers; the seam is read by this test process's own matrix
//! runner, so the tests here run one at a time.

use std::collections::BTreeMap;
use xtask::dims::{Step, WorkloadKind};
use xtask::environment::FAIL_STEP;
use xtask::matrix::{self, Matrix, RunOptions, TreeEntry};
use xtask::record::Workload;
use xtask::results;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `m` with the seam set to `fail`; returns each cell's workload and
/// recorded failure step (None: the cell succeeded).
fn run_with_failures(m: &Matrix, fail: &str) -> BTreeMap<String, Option<(Step, String)>> {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let out = tempfile::tempdir().unwrap();
    let opts = RunOptions {
        force: true,
        ..RunOptions::new(out.path().to_path_buf())
    };
    // SAFETY of the environment: tests of this binary hold ONE_AT_A_TIME
    // and no other thread reads the variable meanwhile
    std::env::set_var(FAIL_STEP, fail);
    let ran = matrix::run(m, &opts);
    std::env::remove_var(FAIL_STEP);
    ran.expect("the matrix runs (its cells fail)");
    results::read_results(out.path())
        .unwrap()
        .into_iter()
        .map(|r| {
            let failure = r.failure.map(|f| (f.step, f.message));
            (r.key.workload, failure)
        })
        .collect()
}

fn matrix(name: &str, workloads: Vec<Workload>) -> Matrix {
    let mut m = Matrix::new(
        name,
        vec![TreeEntry {
            spec: TREE.parse().unwrap(),
            name: Some("10.11.18".into()),
            variants: vec!["base".into()],
        }],
        workloads,
    );
    m.repetitions = 1;
    m.busy_cpu_bound = 1e6;
    m
}

/// A short cell of Mark's `kind` with every step switched on.
fn short(kind: WorkloadKind) -> Workload {
    Workload {
        tables: 1,
        table_size: 2_000,
        arm_seconds: 1,
        warmup_seconds: 1,
        measure_seconds: 1,
        diagnostic_seconds: 1,
        idle_limit_seconds: 5,
        post_write_limit_seconds: Some(5),
        ..Workload::new(kind.name())
    }
}

fn assert_failed_in(got: &BTreeMap<String, Option<(Step, String)>>, workload: &str, step: Step) {
    let Some(cell) = got.get(workload) else {
        panic!("no result for {workload}: {got:#?}");
    };
    let Some((recorded, message)) = cell else {
        panic!("{workload} succeeded; it was made to fail in {step}");
    };
    assert_eq!(*recorded, step, "{workload}: {message}");
    assert!(
        message.contains("made to fail by a test"),
        "{workload} failed for another reason: {message}"
    );
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn each_of_marks_workloads_fails_in_the_step_it_is_made_to() {
    use Step::*;
    use WorkloadKind as K;
    // every Mark kind once; the cell steps spread over them (post-write
    // only exists for the write kinds; the arming phase is the server's)
    let plan = [
        (K::ReadOnly, WarmUp),
        (K::RandomPoints, IdleWait),
        (K::HotPoints, WarmUp),
        (K::PointsCoveredPk, Measured),
        (K::PointsNotcoveredPk, Diagnostic),
        (K::RangeCoveredPk, Measured),
        (K::PointsCoveredSi, IdleWait),
        (K::PointsNotcoveredSi, WarmUp),
        (K::RangeNotcoveredSi, Measured),
        (K::UpdateIndex, PostWrite),
        (K::UpdateNonindex, Diagnostic),
        (K::ReadWrite, PostWrite),
    ];
    assert_eq!(plan.len(), K::ALL.len() - 1, "every kind but scan-loop");
    let m = matrix("steps", plan.iter().map(|(k, _)| short(*k)).collect());
    let fail: Vec<String> = plan
        .iter()
        .map(|(k, s)| format!("{}:{}", k.name(), s.word()))
        .collect();
    let got = run_with_failures(&m, &fail.join(","));
    assert_eq!(got.len(), plan.len(), "{got:#?}");
    for (k, step) in plan {
        assert_failed_in(&got, k.name(), step);
    }
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn scan_loop_fails_in_its_warm_up_residency_and_measured_steps() {
    let scan = |name: &str| Workload {
        kind: Some(WorkloadKind::ScanLoop),
        threads: 1.into(),
        scan_threads: 1,
        hot_rows: 10_000,
        scan_rows: 40_000,
        rate: 1000,
        warmup_seconds: 1,
        residency_seconds: 2,
        sample_seconds: 1,
        measure_seconds: 1,
        diagnostic_seconds: 0,
        idle_limit_seconds: 5,
        ..Workload::new(name)
    };
    let m = matrix(
        "steps-scan",
        vec![
            scan("scan-warm"),
            scan("scan-residency"),
            scan("scan-measured"),
        ],
    );
    let got = run_with_failures(
        &m,
        "scan-warm:warm-up,scan-residency:residency,scan-measured:measured",
    );
    assert_failed_in(&got, "scan-warm", Step::WarmUp);
    assert_failed_in(&got, "scan-residency", Step::Residency);
    assert_failed_in(&got, "scan-measured", Step::Measured);
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_server_fails_all_its_cells_in_its_bootstrap_start_data_load_or_arming() {
    let m = matrix("steps-server", vec![short(WorkloadKind::PointsCoveredPk)]);
    for step in [Step::Bootstrap, Step::Start, Step::Prepare, Step::Arm] {
        let got = run_with_failures(&m, step.word());
        assert_failed_in(&got, "points-covered-pk", step);
    }
}
