//! The page trace on real servers of Debian's 10.11.18 (the tree the other
//! real-server tests build, so this adds only the traced build): a `traced` build
//! writes its page stream, the matrix reads which records the measured run
//! made and replays them through the LRU model after the server stopped;
//! an untraced build writes none; the server's misses on its own trace are
//! its reads, and the eager model (base's rules) replayed on base's stream
//! gives the server's hit ratio.

mod common;

use xtask::dims::WorkloadKind;
use xtask::matrix::{Matrix, TreeEntry};
use xtask::record::{KeyDistribution, Workload};

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

#[test]
#[ignore = "real parts (Debian's archive, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_traced_server_s_page_stream_is_replayed_and_the_model_gives_its_hit_ratio() {
    let mut m = Matrix::new(
        "page-trace",
        vec![TreeEntry {
            spec: TREE.parse().unwrap(),
            name: Some("10.11.18".into()),
            variants: vec!["base".into(), "traced".into()],
        }],
        vec![Workload {
            kind: Some(WorkloadKind::ReadOnly),
            rand_type: KeyDistribution::Pareto,
            tables: 2,
            table_size: 200_000,
            range_size: 100,
            arm_seconds: 0,
            warmup_seconds: 5,
            measure_seconds: 8,
            diagnostic_seconds: 0,
            ..Workload::new("read-only-pareto")
        }],
    );
    m.repetitions = 1;
    m.fresh_server = true;
    m.busy_cpu_bound = 1e6;
    for v in ["base", "traced"] {
        // data about 3 times the pool, so that pages are read and evicted
        m.variants.insert(
            v.into(),
            toml::from_str(
                "settings = { innodb_buffer_pool_size = \"32M\", innodb_lru_scan_depth = 128 }",
            )
            .unwrap(),
        );
    }
    let (out, results) = common::run_all_successful(&m);
    let run = |variant: &str| {
        results
            .iter()
            .find(|r| r.key.variant == variant)
            .unwrap_or_else(|| panic!("no {variant} run"))
    };
    let base = run("base").outcome.as_ref().unwrap();
    assert!(base.page_trace.is_none(), "an untraced build wrote a trace");

    let traced = run("traced").outcome.as_ref().unwrap();
    let trace = traced.page_trace.as_ref().expect("the traced run's window");
    assert!(trace.records.1 > trace.records.0, "{:?}", trace.records);
    let replayed = trace
        .replayed
        .as_ref()
        .unwrap_or_else(|| panic!("not replayed: {:?}", traced.not_measured));
    assert_eq!(replayed.lost, 0);
    assert_eq!(
        (replayed.lru_scan_depth, replayed.old_blocks_time_ms),
        (128, 1000)
    );
    let measured = traced.measured.as_ref().unwrap();
    assert!(
        measured.reads > 1000,
        "{} reads: the data fit",
        measured.reads
    );
    let policies: Vec<&str> = replayed.replays.iter().map(|r| r.policy.as_str()).collect();
    assert_eq!(policies, ["eager", "lazy"]);
    for r in &replayed.replays {
        eprintln!(
            "{}: {} requests, server {} misses ({:?}%), model {} ({:?}%); counters {} reads",
            r.policy,
            r.requests,
            r.server_misses,
            r.server_hit_ratio_pct,
            r.model_misses,
            r.model_hit_ratio_pct,
            measured.reads
        );
        // the server's misses on its own trace are the reads it counted
        let off = (r.server_misses as f64 - measured.reads as f64).abs() / measured.reads as f64;
        assert!(
            off < 0.05,
            "{} misses against {} reads",
            r.server_misses,
            measured.reads
        );
    }
    // every miss is charged to one class of stay or to a page never held,
    // and base, which flags nothing, has no flagged stay
    let stays = replayed.stays.as_ref().expect("the stays counted");
    assert_eq!(stays.requests, replayed.replays[0].requests);
    assert_eq!(stays.misses, replayed.replays[0].server_misses);
    let charged: u64 = stays.classes.iter().map(|c| c.rereads).sum();
    assert_eq!(charged + stays.first_reads, stays.misses, "{stays:?}");
    let class = |name: &str| stays.classes.iter().find(|c| c.class == name).unwrap();
    assert_eq!(
        (
            class("flagged-unmoved").evictions,
            class("flagged-unmoved").rereads
        ),
        (0, 0)
    );
    // base's moves are counted below; whether a page it moved is also
    // evicted inside the measured window depends on the run (none was, in
    // one run of 2026-12-05: its 1,184 moved pages were the hot ones), so
    // the class of moved stays is held by lru-model's own tests
    assert!(charged > 0, "no page was read again: {stays:?}");
    // the intervals hold every request and miss of the window, and base's
    // moves are counted
    let by_2s: (u64, u64) = stays
        .by_2s
        .iter()
        .fold((0, 0), |(r, m), c| (r + c.requests, m + c.misses));
    assert_eq!(by_2s, (stays.requests, stays.misses));
    assert!(stays.by_2s.len() >= 4, "{:?}", stays.by_2s);
    assert!(stays.moves >= stays.pages_moved && stays.pages_moved > 0);
    let eager = &replayed.replays[0];
    let gap = eager.model_hit_ratio_pct.unwrap() - eager.server_hit_ratio_pct.unwrap();
    assert!(
        gap.abs() < 1.0,
        "eager model {gap:+.2} points from the server"
    );

    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        md.contains("## The model on the server's page stream"),
        "{md}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let row = &summary["model_replay"][0];
    assert_eq!(row["variant"], "traced");
    assert!(row["base_hit_ratio_pct"].is_number(), "{row}");
    assert_eq!(summary["stays"][0]["variant"], "traced");
    assert!(
        md.contains("## What the traced servers did to the pages they lost"),
        "{md}"
    );
}
