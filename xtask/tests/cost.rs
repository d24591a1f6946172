//! The cost pass on real servers of Debian's 10.11.18: a server of each
//! build under callgrind counts the instructions of a points-covered-pk
//! window; base's promotions run there as in the timed runs (pages made
//! young per query after arming), fixed's do not, and the report's cost
//! section and summary carry what the records hold.

mod common;

use xtask::matrix::{Matrix, TreeEntry};
use xtask::record::{CostCounter, CostPass, Workload};

const TREE: &str = "debian:mariadb=1:10.11.18-0+deb12u1";

#[test]
#[ignore = "real parts (Debian's archive or PyPI, MariaDB builds, servers as innodb-lab): cargo xtask test runs it"]
fn a_cost_pass_counts_instructions_per_query_and_the_report_shows_them() {
    // one server's data and arming for both workloads
    let small = |name: &str| Workload {
        tables: 4,
        table_size: 50_000,
        arm_seconds: 8,
        warmup_seconds: 2,
        measure_seconds: 2,
        diagnostic_seconds: 0,
        idle_limit_seconds: 0,
        ..Workload::new(name)
    };
    let mut m = Matrix::new(
        "cost",
        vec![TreeEntry {
            spec: TREE.parse().unwrap(),
            name: Some("10.11.18".into()),
            variants: vec!["base".into(), "fixed".into()],
        }],
        vec![
            Workload {
                cost_seconds: 5,
                ..small("points-covered-pk")
            },
            Workload {
                cost_events: 300,
                ..small("update-index")
            },
        ],
    );
    m.repetitions = 1;
    m.cost_passes = 1;
    m.busy_cpu_bound = 1e6;
    let (out, results) = common::run_all_successful(&m);

    let cost_of = |variant: &str, workload: &str| -> CostPass {
        let r = results
            .iter()
            .find(|r| r.key.variant == variant && r.key.workload == workload)
            .unwrap_or_else(|| panic!("no {variant} run of {workload}"));
        let o = r.outcome.as_ref().unwrap();
        o.cost.clone().unwrap_or_else(|| {
            panic!(
                "{variant} has no cost pass; not measured: {:?}",
                o.not_measured
            )
        })
    };
    let cost = |variant: &str| cost_of(variant, "points-covered-pk");
    let (base, fixed) = (cost("base"), cost("fixed"));
    for (variant, c) in [("base", &base), ("fixed", &fixed)] {
        eprintln!(
            "{variant}: {} instructions, {} queries, {:.0} a query, young {:?} a query, {:.0} q/s, {:.1} s",
            c.instructions,
            c.queries,
            c.instructions_per_query,
            c.pages_made_young_per_query,
            c.qps,
            c.wall_seconds
        );
        assert_eq!(c.counter, CostCounter::CallgrindIrQueryThreads);
        // the connections' threads dispatched the queries; the page
        // cleaner, purge and the timers did not, and are counted apart
        let other = c.other_threads.expect("the other threads' count");
        assert!(
            other.query_threads >= 1 && other.threads >= 3,
            "{variant}: {other:?}"
        );
        assert!(other.instructions > 0, "{variant}: {other:?}");
        assert_eq!(c.window_seconds, Some(5));
        assert_eq!(c.events, None);
        assert!(c.queries > 50, "{variant}: {} queries", c.queries);
        assert_eq!(
            c.instructions_per_query,
            c.instructions as f64 / c.queries as f64
        );
        // a 100-row IN-list query through the parser, optimizer and
        // InnoDB is hundreds of thousands of instructions, not a handful
        assert!(
            c.instructions_per_query > 100_000.0,
            "{variant}: {}",
            c.instructions_per_query
        );
        // self costs are listed most first and never exceed the whole
        let top = &c.top_functions;
        assert!(top.len() > 50, "{variant}: {} functions", top.len());
        assert!(top
            .windows(2)
            .all(|w| w[0].instructions >= w[1].instructions));
        assert!(top.iter().map(|f| f.instructions).sum::<u64>() <= c.instructions);
    }
    // after arming, base promotes on nearly every touch of an old page
    // under the counter too; the fix's accesses only flag the block
    let young = |c: &CostPass| c.pages_made_young_per_query.unwrap();
    assert!(young(&base) > 1.0, "base: {}", young(&base));
    assert!(
        young(&fixed) < young(&base) / 10.0,
        "fixed: {}",
        young(&fixed)
    );
    let listed = |c: &CostPass, f: &str| c.top_functions.iter().any(|x| x.function.starts_with(f));
    assert!(
        listed(&base, "buf_page_make_young("),
        "base lacks buf_page_make_young"
    );
    assert!(
        !listed(&fixed, "buf_page_make_young("),
        "fixed lists buf_page_make_young"
    );

    // the report: the cost section in report.md, a note in report.jira,
    // the rows and the shifts in summary.json
    let files = xtask::report::render_dir(out.path()).unwrap();
    let get = |name: &str| &files.iter().find(|(n, _)| n == name).unwrap().1;
    let md = get("report.md");
    assert!(md.contains("## Where the cost goes (cost passes)"), "{md}");
    let base_row = format!(
        "| 10.11.18 | points-covered-pk | 2 | base | 1 | {:.0} |",
        base.instructions_per_query
    );
    assert!(md.contains(&base_row), "{base_row} not in\n{md}");
    assert!(md.contains("### The functions whose own cost per query moved most"));
    assert!(get("report.jira").contains("are in report.md"));
    let summary: serde_json::Value = serde_json::from_str(get("summary.json")).unwrap();
    let rows: Vec<&serde_json::Value> = summary["cost"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["workload"] == "points-covered-pk")
        .collect();
    assert_eq!(rows.len(), 2);
    let ratio = rows[1]["ratio"].as_f64().unwrap();
    assert_eq!(rows[1]["variant"], "fixed");
    assert_eq!(
        ratio,
        fixed.instructions_per_query / base.instructions_per_query
    );
    let shifts: Vec<&serde_json::Value> = summary["function_shifts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["workload"] == "points-covered-pk")
        .collect();
    assert_eq!(shifts.len(), xtask::report::cost::SHIFTS_PER_CELL);
    // base's promotion is among the functions whose cost the fix moved
    // (buf_page_make_young_if_needed, or the promotion's cold clone)
    assert!(
        shifts.iter().any(|s| s["function"]
            .as_str()
            .unwrap()
            .starts_with("buf_page_make_young")),
        "{shifts:#?}"
    );

    // update-index counted 300 events on one connection from the fixed
    // seed, purge caught up and held: the queries are those events (one
    // UPDATE each) and the few statements sysbench's connection sends
    // first, and the report says what the window was
    for variant in ["base", "fixed"] {
        let c = cost_of(variant, "update-index");
        let e = c.events.expect("an event window");
        assert_eq!(
            (e.events, e.threads, e.purge_held, e.seeded_data),
            (300, 1, true, true)
        );
        assert_eq!(c.window_seconds, None);
        assert!(
            (300..=340).contains(&c.queries),
            "{variant}: {} queries for 300 events",
            c.queries
        );
        eprintln!(
            "{variant} update-index: {:.0} instructions a query ({} queries)",
            c.instructions_per_query, c.queries
        );
    }
    assert!(
        md.contains("| update-index (300 events, 1 connection, purge held, seeded data) |"),
        "{md}"
    );
}
