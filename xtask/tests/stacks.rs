//! The profile pass on real servers of Debian's 10.11.18: perf's on-CPU
//! stacks of base, after the arming phase, hold the LRU promotion
//! (`buf_page_make_young`) that takes buf_pool.mutex on an access; fixed's
//! (our port of MDEV-33966: an access only flags the block) hold none.
//! The folded files are read back from the results directory, the report
//! draws their flame graphs, and the gdb samples are counted.

#![allow(clippy::disallowed_methods)]

use xtask::matrix::{self, Matrix, RunOptions, TreeEntry};
use xtask::record::{FoldedStacks, Profiler, Workload};
use xtask::report::stacks::PROMOTION;

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

#[test]
fn base_stacks_hold_the_promotion_and_fixed_stacks_do_not() {
    let mut m = Matrix::new(
        "stacks",
        vec![TreeEntry {
            spec: TREE.into(),
            name: Some("10.11.18".into()),
            variants: vec!["base".into(), "fixed".into()],
        }],
        vec![Workload {
            tables: 4,
            table_size: 50_000,
            arm_seconds: 8,
            warmup_seconds: 2,
            measure_seconds: 3,
            diagnostic_seconds: 0,
            profile_seconds: 4,
            pmp_samples: 6,
            ..Workload::new("points-covered-pk")
        }],
    );
    m.repetitions = 1;
    m.busy_cpu_bound = 1e6;
    let out = tempfile::tempdir().unwrap();
    let opts = RunOptions {
        force: true,
        ..RunOptions::new(out.path().to_path_buf())
    };
    let failed = matrix::run(&m, &opts).unwrap();
    let results = xtask::results::read_results(out.path()).unwrap();
    for r in &results {
        if let Some(f) = &r.failure {
            eprintln!("{} {f}\n{:?}", r.key, f.error_log_tail);
        }
    }
    assert_eq!(failed, 0, "every run must succeed");

    let profile = |variant: &str, profiler: Profiler| -> FoldedStacks {
        let r = results
            .iter()
            .find(|r| r.key.variant == variant)
            .unwrap_or_else(|| panic!("no {variant} run"));
        let outcome = r.outcome.as_ref().unwrap();
        let pass = outcome.profile.as_ref().unwrap_or_else(|| {
            panic!(
                "{variant} has no profile pass; not measured: {:?}",
                outcome.not_measured
            )
        });
        let file = pass.folded(profiler).unwrap_or_else(|| {
            panic!(
                "{variant} has no {} profile: {:?}",
                profiler.word(),
                outcome.not_measured
            )
        });
        let text = std::fs::read_to_string(out.path().join(file)).unwrap();
        FoldedStacks::parse(&text).unwrap()
    };

    let base = profile("base", Profiler::OnCpu);
    let fixed = profile("fixed", Profiler::OnCpu);
    let share = |f: &FoldedStacks| f.share_of(PROMOTION).unwrap();
    eprintln!(
        "on-CPU: base {} samples, {PROMOTION} {:.2}%; fixed {} samples, {:.2}%",
        base.total(),
        100.0 * share(&base),
        fixed.total(),
        100.0 * share(&fixed)
    );
    assert!(base.total() > 200, "base: {} samples", base.total());
    assert!(fixed.total() > 200, "fixed: {} samples", fixed.total());
    // symbols resolved: named frames at the leaf, and the page access
    assert!(base.unnamed_leaf_share().unwrap() < 0.2);
    assert!(base.share_of("row_search_mvcc").unwrap() > 0.1);
    assert!(
        share(&base) > 0.0,
        "base's stacks lack {PROMOTION}:\n{}",
        base.top_stacks(5)
            .iter()
            .map(|(s, n)| format!("{n} {}", s.join(";")))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(share(&fixed), 0.0, "fixed's stacks hold {PROMOTION}");

    // gdb sampled every thread the number of times asked
    let r = results.iter().find(|r| r.key.variant == "base").unwrap();
    let waits = r.outcome.as_ref().unwrap().profile.as_ref().unwrap();
    let waits = waits.waits.as_ref().expect("gdb's samples");
    assert_eq!(waits.stops_ms.len(), 6);
    let threads = profile("base", Profiler::Waits);
    assert_eq!(threads.total(), waits.thread_stacks);
    // a connection thread of the workload is among them
    assert!(threads.share_of("do_command").unwrap() > 0.0);

    // the report draws each profile's flame graph and the differential one
    let summary: xtask::report::summary::Summary =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("summary.json")).unwrap())
            .unwrap();
    let row = summary
        .stacks
        .iter()
        .find(|s| s.variant == "fixed" && s.profiler == Profiler::OnCpu)
        .expect("fixed's on-CPU row");
    assert_eq!(row.against.as_deref(), Some("base"));
    for file in [&row.flame_graph, row.differential.as_ref().unwrap()] {
        let svg = std::fs::read_to_string(out.path().join(file)).unwrap();
        assert!(svg.contains("row_search_mvcc"), "{file}");
    }
    let md = std::fs::read_to_string(out.path().join("stacks.md")).unwrap();
    assert!(md.contains(PROMOTION) && md.contains("profiles/"), "{md}");
    // what the run found, for the log
    eprintln!("{md}");
}
