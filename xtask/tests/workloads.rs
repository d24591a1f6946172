//! Every one of Mark's workloads, once, on one real server (Debian's
//! MariaDB 10.11.18, base build): the data is loaded once, then each kind
//! runs as a cell in Mark's order, as a matrix server does. Very short
//! cells: it checks that each workload does what it says (queries run;
//! write tests change rows, read tests change none), that the wait for an
//! idle server and the post-write flush end idle, and that the host's
//! other CPU was measured. Never a time.

use xtask::build;
use xtask::dims::WorkloadKind;
use xtask::host::Host;
use xtask::record::MyCnf;
use xtask::record::{Threads, Workload};
use xtask::server::{self, Server, ServerBinaries};
use xtask::variant::SourceChange;
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
    let tree = xtask::tree::resolve(TREE).unwrap();
    let built = build::build(
        &tree,
        "base",
        &SourceChange::None,
        xtask::record::BuildType::default(),
    )
    .unwrap();
    let binaries = ServerBinaries::from_build(&built).unwrap();
    let host = Host::detect();
    let runs = server::RunRoot::of(Default::default());
    let cnf = MyCnf::for_series(tree.series, &host, runs.on_tmpfs());
    let mut server = Server::start(&binaries, &cnf, &runs, "workloads-test", false).unwrap();
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
    let mut seen = std::collections::BTreeSet::new();
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
