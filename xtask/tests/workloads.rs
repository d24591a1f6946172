//! Every one of Mark's workloads, once, on one real server (Debian's
//! MariaDB 10.11.18, base build): the data is loaded once, then each kind
//! runs as a cell in Mark's order, as a matrix server does. Very short
//! cells: it checks that each workload does what it says (queries run;
//! write tests change rows, read tests change none), that the wait for an
//! idle server and the post-write flush end idle, and that the host's
//! other CPU was measured. Never a time. Then seed 001's own setting:
//! the server's defaults, a cold table, scans with a pause between passes.

mod common;

use xtask::dims::WorkloadKind;
use xtask::record::MyCnf;
use xtask::record::{Threads, Workload};
use xtask::server::{self, Server};
use xtask::workload;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

fn short(kind: WorkloadKind) -> Workload {
    Workload {
        kind: Some(kind),
        tables: 2,
        table_size: 10_000,
        threads: Threads::One(2),
        // random-points takes Mark's 10, 100 or 1000
        random_points: 100,
        range_size: 10,
        arm_seconds: 2,
        warmup_seconds: 1,
        measure_seconds: 2,
        diagnostic_seconds: 0,
        idle_limit_seconds: 30,
        post_write_limit_seconds: Some(30),
        ..Workload::new(&format!("short-{kind}"))
    }
}

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn every_kind_runs_on_one_server_in_marks_order() {
    let mut server = common::base_build::base_server(TREE, "workloads-test");
    let logs = tempfile::tempdir().unwrap();

    // Mark's tests share one server's tables; scan-loop has its own (e2e)
    let marks: Vec<WorkloadKind> = WorkloadKind::ALL
        .into_iter()
        .filter(|&k| k != WorkloadKind::ScanLoop)
        .collect();
    let workloads: Vec<Workload> = marks.iter().rev().map(|&k| short(k)).collect();
    for w in &workloads {
        w.validate().unwrap();
    }
    let order = workload::run_order(&workloads);
    let kinds: Vec<WorkloadKind> = order
        .iter()
        .map(|&(i, _)| workloads[i].kind().unwrap())
        .collect();
    assert_eq!(kinds, marks, "Mark's order");

    let phases = workload::prepare_data(&workloads[0], &mut server, logs.path(), None).unwrap();
    let names: Vec<&str> = phases.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["prepare", "arm"]);

    let mut failures = Vec::new();
    for (i, threads) in order {
        let w = &workloads[i];
        let kind = w.kind().unwrap();
        let out = workload::execute_cell(w, threads, &mut server, logs.path(), None)
            .unwrap_or_else(|e| panic!("{kind}: {e:#}\n{}", server.error_log_tail()));
        assert_eq!((out.kind, out.threads), (Some(kind), Some(threads)));
        let m = out.measured.as_ref().expect("a measured run");
        let q = m.sysbench.queries;
        let updated = m.rows_updated.expect("Handler_update is read");
        let inserted = m.rows_inserted.expect("Handler_write is read");
        let deleted = m.rows_deleted.expect("Handler_delete is read");
        eprintln!(
            "{kind}: {q} queries, {:.0} qps, rows updated/inserted/deleted {updated}/{inserted}/{deleted}, \
             idle wait {:?}, post-write {:?}, other cpu {:?}",
            m.sysbench.qps, out.idle_wait, out.post_write, m.other_cpu
        );
        let mut check = |ok: bool, what: &str| {
            if !ok {
                failures.push(format!("{kind}: {what}"));
            }
        };
        check(q > 0, "no queries");
        check(
            m.sysbench.ignored_errors * 100 <= q,
            "more than 1% ignored errors",
        );
        match kind {
            WorkloadKind::UpdateIndex | WorkloadKind::UpdateNonindex => {
                check(updated > 0, "no row updated");
                check(inserted == 0 && deleted == 0, "rows inserted or deleted");
            }
            WorkloadKind::ReadWrite => check(
                updated > 0 && inserted > 0 && deleted > 0,
                "not every write kind of row change",
            ),
            _ => check(
                updated == 0 && inserted == 0 && deleted == 0,
                "a read test changed rows",
            ),
        }
        let idle = out
            .idle_wait
            .as_ref()
            .expect("an idle wait before the cell");
        check(idle.reached, "the server was not idle before the cell");
        check(
            idle.dirty_pages.is_some() && idle.history_length.is_some(),
            "idle counters unread",
        );
        match (kind.is_write(), &out.post_write) {
            (true, Some(p)) => check(p.reached, "the post-write flush did not end idle"),
            (false, None) => {}
            (true, None) => check(false, "no post-write step"),
            (false, Some(_)) => check(false, "a post-write step after a read test"),
        }
        match &m.other_cpu {
            Some(o) => {
                check(o.server_cpu_seconds > 0.0, "no server CPU measured");
                check(o.sysbench_cpu_seconds > 0.0, "no sysbench CPU measured");
                check(
                    (0.0..=1.0).contains(&o.share) && o.cores_busy >= 0.0,
                    "other CPU out of range",
                );
            }
            None => check(false, "other CPU not measured"),
        }
    }
    assert!(server.exited().is_none(), "mariadbd died");
    assert!(server.stop().unwrap(), "unclean shutdown");
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The my.cnf the committed mechanism runs got (recorded with each run) is
/// the one `MyCnf::for_series` gives their host and series today, setting
/// for setting and in order: a change of Mark's settings or of their
/// scaling shows here and is made on purpose.
#[test]
fn the_committed_runs_my_cnf_is_what_for_series_gives_today() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/mechanism-lookup-mark");
    let results = xtask::results::read_results(&dir).unwrap();
    let mut seen = std::collections::HashSet::new();
    for r in &results {
        let (Some(recorded), Some(tree)) = (&r.my_cnf, &r.tree_info) else {
            continue;
        };
        let tmpfs = recorded.datadir_on_tmpfs.unwrap_or(true);
        let today = MyCnf::for_series(tree.series, &r.host, tmpfs);
        assert_eq!(&today, recorded, "{}", r.key);
        seen.insert(tree.series);
    }
    assert_eq!(seen.len(), 2, "both series: {seen:?}");
}

/// Seed 001's own setting on a real server: the server's defaults (not
/// Mark's), a hot table whose rest is loaded as a cold table never read,
/// scans that pause between passes, and the cold start (the server
/// restarted after the load, a filler table read before the warm-up). The
/// cold table holds its rows, the restart leaves none of the load's
/// scanned pages in the pool, the pause caps the passes a second, and the
/// residency samples read IS_OLD as the tool's engine-neutral query reads
/// it.
#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_scan_loop_from_a_cold_start_with_a_cold_table_and_paused_scans_on_the_servers_own_defaults() {
    use mysql::prelude::Queryable;
    let (tree, binaries) = common::base_build::base_of(TREE);
    let runs = server::RunRoot::of(Default::default());
    let mut cnf = MyCnf::server_defaults(tree.series, runs.on_tmpfs());
    cnf.set("innodb_buffer_pool_size", "64M");
    let mut server = Server::start(&binaries, &cnf, &runs, "defaults-test", false).unwrap();
    let written = std::fs::read_to_string(&server.dir.cnf).unwrap();
    assert!(
        written.contains("the server's own defaults") && !written.contains("innodb_io_capacity"),
        "{written}"
    );
    let logs = tempfile::tempdir().unwrap();
    let pause_ms = 400;
    let w = Workload {
        kind: Some(WorkloadKind::ScanLoop),
        threads: Threads::One(1),
        scan_threads: 1,
        hot_rows: 20_000,
        cold_rows: 7_000,
        scan_rows: 100_000,
        scan_pause_ms: pause_ms,
        cold_start: true,
        filler_rows: 5_000,
        warmup_seconds: 2,
        residency_seconds: 4,
        sample_seconds: 1,
        measure_seconds: 4,
        diagnostic_seconds: 0,
        idle_limit_seconds: 30,
        ..Workload::new("seed-setting")
    };
    w.validate().unwrap();
    workload::prepare_data(&w, &mut server, logs.path(), None).unwrap();
    let mut conn = server.connect().unwrap();
    let cold: u64 = conn
        .query_first("SELECT COUNT(*) FROM sbtest.cold")
        .unwrap()
        .unwrap();
    assert_eq!(cold, 7_000);
    // the load left scanned pages in the pool: what a warm start keeps
    let spaces = xtask::workload::scan_loop::Spaces::read(&mut conn, server.engine).unwrap();
    let loaded = xtask::workload::scan_loop::sample(&mut conn, spaces, 0.0).unwrap();
    assert!(loaded.scan_resident > 0, "{loaded:?}");
    drop(conn);
    let before = server.pid;
    let out = workload::execute_cell(&w, 1, &mut server, logs.path(), None)
        .unwrap_or_else(|e| panic!("{e:#}\n{}", server.error_log_tail()));
    assert_ne!(server.pid, before, "the server was not restarted");
    let phases: Vec<&str> = out.phases.iter().map(|p| p.name.as_str()).collect();
    let at = |name: &str| phases.iter().position(|p| *p == name);
    assert!(
        at("restart") < at("filler") && at("filler") < at("warm-up") && at("restart").is_some(),
        "{phases:?}"
    );
    let s = out.scan_loop.as_ref().expect("a scan-loop outcome");
    // the cold start: no scanned page in the pool when the scans start
    assert_eq!(s.samples[0].scan_resident, 0, "{:?}", s.samples[0]);
    // a pass of 100,000 rows takes some milliseconds; with the pause each
    // takes at least 0.4 s, so at most 2.5 a second
    let most = 1000.0 / pause_ms as f64;
    assert!(
        s.scans_per_s > 0.0 && s.scans_per_s <= most,
        "{} scans a second, at most {most} with the pause",
        s.scans_per_s
    );
    assert!(s.samples.len() >= 3, "{:?}", s.samples);
    assert!(s.hot_pages > 0, "the warm-up brought no hot page in");
    // the sample's young pages (IS_OLD read as text, for both engines) are
    // those MariaDB's numeric IS_OLD says, on the idle server after the cell
    let mut conn = server.connect().unwrap();
    let now = xtask::workload::scan_loop::sample(&mut conn, spaces, 0.0).unwrap();
    let by_number: Vec<(u64, u64, u64)> = conn
        .query(
            "SELECT SPACE, SUM(IS_OLD = 0), COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE \
             WHERE PAGE_TYPE = 'INDEX' AND SPACE IN (SELECT SPACE FROM \
             information_schema.INNODB_SYS_TABLES WHERE NAME IN ('sbtest/hot', 'sbtest/scan')) \
             GROUP BY SPACE ORDER BY SPACE",
        )
        .unwrap();
    let young: u64 = by_number.iter().map(|r| r.1).sum();
    let resident: u64 = by_number.iter().map(|r| r.2).sum();
    assert_eq!(
        (
            now.hot_young + now.scan_young,
            now.hot_resident + now.scan_resident
        ),
        (young, resident),
        "{now:?} against {by_number:?}"
    );
    assert!(resident > 0, "no page of either table in the pool");
    assert!(server.stop().unwrap(), "unclean shutdown");
}
