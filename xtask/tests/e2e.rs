//! End to end on real parts: Debian's MariaDB 10.11.18 source, our gate
//! patch, real builds (ccache shared), real servers on /dev/shm, real
//! sysbench load, counters read from the servers.
//!
//! It asserts the mechanism, never a time: after the arming phase, base
//! makes pages young on nearly every touch of an old page and takes
//! buf_pool.mutex for it; gate makes almost none (fewer than 1 per 1,000
//! queries: the change buffer can still call buf_page_make_young()
//! directly) and takes the mutex almost never.

use std::collections::BTreeMap;
use xtask::matrix::{self, Matrix, RunOptions, TreeEntry};
use xtask::report;
use xtask::workload::Workload;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

#[test]
fn base_promotes_on_access_and_gate_does_not() {
    let m = Matrix {
        name: "e2e".into(),
        description: "base and gate of 10.11.18, one short cell each".into(),
        repetitions: 1,
        trees: vec![TreeEntry {
            spec: TREE.into(),
            name: Some("10.11.18".into()),
            variants: vec!["base".into(), "gate".into()],
        }],
        workloads: vec![Workload {
            name: "points-covered-pk".into(),
            // about 3,000 pages: well above the 512 that the old sublist needs
            tables: 4,
            table_size: 50_000,
            threads: 2,
            random_points: 100,
            arm_seconds: 8,
            warmup_seconds: 2,
            measure_seconds: 8,
            diagnostic_seconds: 5,
        }],
        variants: BTreeMap::new(),
    };
    let out = tempfile::tempdir().unwrap();
    let failed = matrix::run(
        &m,
        &RunOptions {
            out: out.path().to_path_buf(),
            keep: false,
            force: true,
        },
    )
    .unwrap();
    let results = matrix::read_results(out.path()).unwrap();
    for r in results.iter().filter(|r| !r.ok) {
        eprintln!(
            "{} failed: {:?}\n{:?}",
            r.variant, r.error, r.error_log_tail
        );
    }
    assert_eq!(failed, 0, "every run must succeed");

    let summary = report::summarize(&results);
    let row = |variant: &str| {
        let r = summary
            .iter()
            .find(|r| r.variant == variant)
            .unwrap_or_else(|| panic!("no {variant} row"));
        (
            r.median.clone().expect("medians of a successful run"),
            r.total_queries,
            r.total_pages_made_young,
        )
    };
    let (base, base_queries, _) = row("base");
    let (gate, gate_queries, gate_young) = row("gate");
    eprintln!("base: {base:?}\ngate: {gate:?}");
    assert!(
        base_queries > 1000 && gate_queries > 1000,
        "too few queries to judge"
    );

    // base: most touches of an old page promote it (about 30 per query here)
    assert!(
        base.pages_made_young_per_query > 5.0,
        "base made only {} pages young per query",
        base.pages_made_young_per_query
    );
    // gate: fewer than 1 per 1,000 queries
    assert!(
        gate_young * 1000 < gate_queries,
        "gate made {gate_young} pages young in {gate_queries} queries"
    );
    let base_mutex = base.buf_pool_mutex_per_query.expect("base diagnostic pass");
    let gate_mutex = gate.buf_pool_mutex_per_query.expect("gate diagnostic pass");
    assert!(
        base_mutex > 5.0,
        "base took buf_pool.mutex only {base_mutex} times per query"
    );
    assert!(
        gate_mutex < 0.1,
        "gate took buf_pool.mutex {gate_mutex} times per query"
    );

    // the builds shared ccache: gate recompiled only what includes the patched header
    let gate_build = results
        .iter()
        .find(|r| r.variant == "gate")
        .and_then(|r| r.build.clone())
        .unwrap();
    if !gate_build.reused {
        assert!(
            gate_build.ccache.hits > 0,
            "gate got no ccache hits: {:?}",
            gate_build.ccache
        );
    }
    assert!(out.path().join("summary.json").exists() && out.path().join("report.md").exists());
}
