//! `cargo xtask mtr` end to end on real parts: Debian's MariaDB 10.11.18
//! base build (shared with the other end-to-end tests), made whole for
//! mtr, two tests of ours copied into the tree (one passes, one has a
//! wrong result file on purpose) and one of MariaDB's debug-only tests,
//! run by the tree's own mysql-test-run.

use std::fs;
use std::path::Path;
use std::time::Duration;
use xtask::mtr::{self, parse::Status, Options};
use xtask::record::BuildType;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_real_mtr_run_yields_pass_skip_and_fail_per_test() {
    let dir = tempfile::tempdir().unwrap();
    let overlay = dir.path().join("mtr");
    let suite = overlay.join("suite/innodb");
    write(&suite.join("t/lab_e2e_passes.test"), "SELECT 1 AS x;\n");
    write(
        &suite.join("r/lab_e2e_passes.result"),
        "SELECT 1 AS x;\nx\n1\n",
    );
    write(&suite.join("t/lab_e2e_fails.test"), "SELECT 1 AS x;\n");
    // the result file expects 2: mysqltest must report the difference
    write(
        &suite.join("r/lab_e2e_fails.result"),
        "SELECT 1 AS x;\nx\n2\n",
    );
    let out = dir.path().join("out");
    let opts = Options {
        tree: TREE.parse().unwrap(),
        variant: "base".into(),
        build_type: BuildType::RelWithDebInfo,
        suite: None,
        big_test: false,
        tests: vec![
            "innodb.lab_e2e_passes".into(),
            "innodb.lab_e2e_fails".into(),
            "innodb.evict_tables_on_commit_debug".into(),
        ],
        out: Some(out.clone()),
        overlay,
        deadline: Duration::from_secs(30 * 60),
        keep: false,
        all_pass: false,
        may_skip: Vec::new(),
    };
    let (path, run) = mtr::run(&opts).unwrap();
    let status = |name: &str| {
        run.tests
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("no result for {name} in {:#?}", run.tests))
    };
    assert_eq!(status("innodb.lab_e2e_passes").status, Status::Pass);
    let failed = status("innodb.lab_e2e_fails");
    assert_eq!(failed.status, Status::Fail);
    assert_eq!(failed.failed_attempts, 1);
    let tail = failed.failure_tail.as_deref().unwrap_or_default();
    assert!(tail.contains("+1") && tail.contains("-2"), "{tail}");
    let skipped = status("innodb.evict_tables_on_commit_debug");
    assert_eq!(skipped.status, Status::Skipped);
    assert_eq!(skipped.skip_reason.as_deref(), Some("Requires debug build"));
    assert_eq!(
        (run.totals.passed, run.totals.failed, run.totals.skipped),
        (1, 1, 1)
    );
    assert!(run
        .totals
        .mtr_completed
        .as_deref()
        .unwrap_or_default()
        .contains("Failed 1/2"));
    assert_ne!(run.exit_code, Some(0));
    assert_eq!(run.problem().as_deref(), Some("1 test(s) failed"));
    assert_eq!(run.overlay.len(), 4);

    // the same run without its failed test: a pass as asked by default,
    // a problem naming the skipped test under --all-pass
    let mut passed = run.clone();
    passed.tests.retain(|t| t.status != Status::Fail);
    passed.totals.failed = 0;
    passed.exit_code = Some(0);
    assert_eq!(passed.problem(), None);
    passed.all_pass = true;
    let problem = passed.problem().unwrap_or_default();
    assert!(
        problem.contains("innodb.evict_tables_on_commit_debug (Requires debug build)"),
        "{problem}"
    );
    // named as a test that may skip itself, its skip is reported, allowed
    passed.may_skip = vec!["innodb.evict_tables_on_commit_debug".into()];
    assert_eq!(passed.problem(), None);
    assert_eq!(
        passed.skips().collect::<Vec<_>>(),
        [(
            "innodb.evict_tables_on_commit_debug (Requires debug build)".to_string(),
            true
        )]
    );

    // the result file and the report say the same
    let back: mtr::MtrRun = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(back.tests, run.tests);
    let md = fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("| `innodb.lab_e2e_fails` | **FAIL** |"), "{md}");
    assert!(
        md.contains("| `innodb.evict_tables_on_commit_debug` | skipped: Requires debug build |"),
        "{md}"
    );
}
