//! The figures the hand-written NOTES.md of each committed report quote
//! that `readme_figures.rs` does not already hold: each is worked out here
//! from the report's summary.json (or its run files) and printed the way
//! the NOTES print it, so a report rendered again, or a NOTES edited, that
//! makes prose and numbers part fails here. Figures the summary cannot
//! give (hand replays, logs, other hosts) are not checked.

mod common;

use common::summary_json::{
    self as summary_json, change, cost_change, cost_row, interval, one_line, root, rows, summary,
    verdicts,
};
use serde_json::Value;

/// A report's NOTES.md on one line: the NOTES wrap sentences anywhere.
fn notes(report: &str) -> String {
    let path = root().join("reports").join(report).join("NOTES.md");
    one_line(&std::fs::read_to_string(&path).unwrap())
}

/// Fails naming the report and the sentence its NOTES lack.
fn says(report: &str, text: &str, said: &str) {
    assert!(
        text.contains(said),
        "reports/{report}/NOTES.md does not say `{said}`"
    );
}

/// The runs a report counted and those it flagged busy.
fn counted_and_busy(s: &Value) -> (u64, u64) {
    (
        s["counted_runs"].as_u64().unwrap(),
        s["busy_runs"].as_u64().unwrap(),
    )
}

/// The counted and busy runs, as the NOTES give them.
fn says_counted(report: &str, text: &str, s: &Value) {
    let said = format!(
        "{} runs, {} flagged busy",
        s["counted_runs"], s["busy_runs"]
    );
    says(report, text, &said);
}

/// The row of one cell; `tree` None when the report has one tree.
fn cell<'a>(s: &'a Value, tree: Option<&str>, workload: &str, variant: &str) -> &'a Value {
    rows(s)
        .iter()
        .find(|r| {
            tree.is_none_or(|t| r["tree"] == t)
                && r["workload"] == workload
                && r["variant"] == variant
        })
        .unwrap_or_else(|| panic!("no {tree:?} {workload} {variant}"))
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// A median of one cell.
fn med(s: &Value, tree: Option<&str>, workload: &str, variant: &str, metric: &str) -> f64 {
    num(&cell(s, tree, workload, variant)["median"][metric])
}

/// The interval the detail line of the `question`th verdict gives for one
/// workload.
fn detail_interval(s: &Value, question: usize, workload: &str) -> String {
    summary_json::detail_interval(&s["verdicts"][question], workload)
}

/// `1,552,140`: an integer with thousands separators.
fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The least and the most of some figures.
fn range(xs: impl IntoIterator<Item = f64>) -> (f64, f64) {
    xs.into_iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
            (l.min(x), h.max(x))
        })
}

/// A number rounded to `d` decimals, as the NOTES print it, read back: the
/// NOTES sometimes work a difference out of the figures they print.
fn printed(x: f64, d: usize) -> f64 {
    format!("{x:.d$}").parse().unwrap()
}

/// Every run record of a report, parsed.
fn runs(report: &str) -> Vec<Value> {
    let dir = root().join("reports").join(report).join("runs");
    xtask::results::store::json_files(&dir)
        .iter()
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

/// The counted runs of one cell in repetition order.
fn cell_runs<'a>(runs: &'a [Value], tree: &str, workload: &str, variant: &str) -> Vec<&'a Value> {
    let mut found: Vec<&Value> = runs
        .iter()
        .filter(|r| r["tree"] == tree && r["workload"] == workload && r["variant"] == variant)
        .collect();
    found.sort_by_key(|r| r["repetition"].as_u64());
    found
}

/// A run's hit ratio by the counters, in percent.
fn run_hit_ratio(run: &Value) -> f64 {
    let m = &run["outcome"]["measured"];
    100.0 * (1.0 - num(&m["reads"]) / num(&m["read_requests"]))
}

/// The NOTES of reports/release-11.8-on-11.8.6: every workload's change of
/// instructions per query, the spreads, the QPS changes with their
/// intervals and the smallest p, the pairs the estimates ask for, the
/// mechanism's bounds and the runs.
#[test]
fn the_release_notes_quote_every_answer_of_their_summary() {
    let report = "release-11.8-on-11.8.6";
    let (s, text) = (summary(report), notes(report));
    let work = |w: &str| cost_change(cost_row(&s, w, "fixed"));
    let with_interval = |w: &str| format!("{w} {:+.2}% ({})", work(w), detail_interval(&s, 0, w));
    let bare = |w: &str| format!("{w} {:+.2}%", work(w));
    let said = format!(
        "97.1%): {}, {}, {}, {}, {}, {}, {}, {}.",
        with_interval("points-covered-pk"),
        bare("points-notcovered-pk"),
        bare("random-points-100"),
        bare("hot-points"),
        bare("range-covered-pk"),
        bare("read-only-10"),
        with_interval("update-index"),
        with_interval("read-write")
    );
    says(report, &text, &said);
    let spreads = s["cost"].as_array().unwrap();
    let (lo, hi) = range(spreads.iter().map(|r| num(&r["spread_pct"])));
    let writes = spreads
        .iter()
        .filter(|r| r["workload"] == "update-index" || r["workload"] == "read-write");
    let (wlo, whi) = range(writes.map(|r| num(&r["spread_pct"])));
    says(
        report,
        &text,
        &format!("One binary's passes spread by {lo:.2}% to {hi:.2}% (the writes {wlo:.2}% to {whi:.2}%)"),
    );
    // the time question's changes and intervals are generated figures
    let fixed: Vec<&Value> = rows(&s)
        .iter()
        .filter(|r| r["variant"] == "fixed")
        .collect();
    let least = fixed
        .iter()
        .min_by(|a, b| {
            num(&a["qps_vs_base"]["p_value"]).total_cmp(&num(&b["qps_vs_base"]["p_value"]))
        })
        .unwrap();
    says(
        report,
        &text,
        &format!(
            "(the smallest p is {:.3}, {})",
            num(&least["qps_vs_base"]["p_value"]),
            least["workload"].as_str().unwrap()
        ),
    );
    release_runs_and_mechanism(report, &s, &text);
}

/// The runs of the release matrix, the pairs its time question asks for and
/// what its mechanism question read.
fn release_runs_and_mechanism(report: &str, s: &Value, text: &str) {
    let (counted, busy) = counted_and_busy(s);
    says(
        report,
        text,
        &format!(
            "{} timed runs, {counted} counted, {} failed. {busy} were flagged busy",
            counted + busy,
            s["failed_runs"]
        ),
    );
    // "about N pairs" of each undecided workload
    let cells = s["verdicts"][1]["cells"].as_array().unwrap();
    let pairs = |w: &str| -> u64 {
        cells.iter().find(|c| c["workload"] == w).unwrap()["runs_to_decide"]["n"]
            .as_u64()
            .unwrap()
    };
    // reaching across: neither side of the allowed -5% (undecided, with a
    // 95% interval)
    let across = cells
        .iter()
        .filter(|c| {
            c["answer"] == "undecided"
                && c["interval"]["coverage"].as_f64().unwrap() >= 0.95 - 1e-12
        })
        .count();
    let word = |n: usize| {
        [
            "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
        ]
        .get(n)
        .copied()
        .unwrap_or_else(|| panic!("{n} has no word here"))
    };
    says(
        report,
        text,
        &format!(
            "{} of {} paired intervals reach across -5%.",
            word(across),
            word(cells.len())
        ),
    );
    says(
        report,
        text,
        &format!(
            "run from {} pairs (random-points-100) to {} (read-only-10)",
            pairs("random-points-100"),
            pairs("read-only-10")
        ),
    );
    // the mechanism question's bounds, as its verdict holds them
    let bound = |key: &str| -> Vec<f64> {
        s["verdicts"][2]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c[key].as_f64().unwrap())
            .collect()
    };
    let fixed_most = range(bound("estimate")).1;
    let base_least = range(bound("against_worst")).0;
    let base_median = range(
        ["points-covered-pk", "random-points-100"]
            .map(|w| med(s, None, w, "base", "buf_pool_mutex_per_query")),
    );
    assert_eq!(
        format!("{:.1}", base_median.0),
        format!("{:.1}", base_median.1)
    );
    says(
        report,
        text,
        &format!(
            "fixed took buf_pool.mutex at most {fixed_most:.4} times per query on the IN-list reads \
             in all 8 runs, where base took it at least {base_least:.1} times in every run (median {:.1})",
            base_median.0
        ),
    );
}

/// Whether a run was flagged busy: other processes took more of the host
/// than the report's bound.
fn busy(s: &Value, run: &Value) -> bool {
    num(&run["outcome"]["measured"]["other_cpu"]["cores_busy"]) > num(&s["busy_cpu_bound"])
}

/// `76.34, 76.38, 76.37, 76.38%`: the counted runs' hit ratios in
/// repetition order.
fn run_hit_ratios(s: &Value, runs: &[Value], tree: &str, workload: &str, variant: &str) -> String {
    let ratios: Vec<String> = cell_runs(runs, tree, workload, variant)
        .into_iter()
        .filter(|r| !busy(s, r))
        .map(|r| format!("{:.2}", run_hit_ratio(r)))
        .collect();
    format!("{}%", ratios.join(", "))
}

/// The two io-bound reports (10.11.18, 11.8.6): every table row (each
/// run's hit ratio, the medians, and on 10.11.18 the pages read a second
/// and the turnover they give), and the answers' figures.
#[test]
fn the_io_bound_notes_quote_their_tables_and_answers() {
    for (report, tree) in [
        ("io-bound-10.11.18", "10.11.18"),
        ("io-bound-11.8.6", "11.8.6"),
    ] {
        let (s, text, runs) = (summary(report), notes(report), runs(report));
        for (keys, w) in [
            ("uniform", "read-only-uniform"),
            ("Pareto", "read-only-pareto"),
        ] {
            for v in ["base", "fixed"] {
                let m = |k: &str| med(&s, None, w, v, k);
                let moves = if v == "base" {
                    "promotions"
                } else {
                    "sweep moves"
                };
                let per_s = m("qps") * m("pages_read_per_query");
                // the pool's 16,384 pages over the pages read a second
                let extra = if tree == "10.11.18" {
                    format!(
                        " {} | {:.2} s |",
                        thousands((per_s / 100.0).round() * 100.0),
                        16384.0 / per_s
                    )
                } else {
                    String::new()
                };
                let row = format!(
                    "| {keys} | {v} | {} | {:.3} | {} |{extra} {:.4} ({moves}) |",
                    run_hit_ratios(&s, &runs, tree, w, v),
                    m("pages_read_per_query"),
                    thousands(m("qps")),
                    m("pages_made_young_per_query")
                );
                says(report, &text, &row);
            }
        }
        io_bound_answers_quote(report, &s, &text);
    }
}

fn io_bound_answers_quote(report: &str, s: &Value, text: &str) {
    let (u, p) = ("read-only-uniform", "read-only-pareto");
    let m = |w: &str, v: &str, k: &str| med(s, None, w, v, k);
    let hit = |w: &str, v: &str| m(w, v, "hit_ratio_pct");
    let pages = |v: &str| m(p, v, "pages_read_per_query");
    // worked from the printed pages a query, as the NOTES work it
    let more = 100.0 * (printed(pages("fixed"), 3) / printed(pages("base"), 3) - 1.0);
    let q = |w: &str| {
        let r = cell(s, None, w, "fixed");
        (change(r), interval(r))
    };
    let not_young = |w: &str| m(w, "fixed", "pages_made_not_young_per_query");
    let uniform: Vec<&Value> = rows(s).iter().filter(|r| r["workload"] == u).collect();
    let said = if report == "io-bound-10.11.18" {
        vec![
            format!(
                "fixed's hit ratio is {:.2}% against base's {:.2}%, {:.1} points lower",
                hit(p, "fixed"),
                hit(p, "base"),
                hit(p, "base") - hit(p, "fixed")
            ),
            format!(
                "it reads {more:.0}% more pages per query ({:.3} against {:.3})",
                pages("fixed"),
                pages("base")
            ),
            format!(
                "it is {:.1} points lower ({:.2}% against {:.2}%)",
                hit(u, "base") - hit(u, "fixed"),
                hit(u, "fixed"),
                hit(u, "base")
            ),
            format!(
                "{:+.1}% on uniform (interval {}) and {:+.1}% on Pareto ({})",
                q(u).0,
                q(u).1,
                q(p).0,
                q(p).1
            ),
            {
                // the slowest and the fastest run under uniform keys, and
                // whose they were
                let by = |k: &str| {
                    let mut all: Vec<(f64, &str)> = uniform
                        .iter()
                        .map(|r| (num(&r["qps"][k]), r["variant"].as_str().unwrap()))
                        .collect();
                    all.sort_by(|a, b| a.0.total_cmp(&b.0));
                    all
                };
                let (slowest, fastest) = (by("min")[0], *by("max").last().unwrap());
                format!(
                    "QPS moved from {} ({}'s slowest run) to {} ({}'s fastest) on the uniform workload",
                    thousands(slowest.0),
                    slowest.1,
                    thousands(fastest.0),
                    fastest.1
                )
            },
        ]
    } else {
        vec![
            format!(
                "fixed's hit ratio is {:.2}% against base's {:.2}% (every fixed run below every base \
                 run) and it reads {more:.0}% more pages per query; under uniform keys {:.2}% against {:.2}%",
                hit(p, "fixed"),
                hit(p, "base"),
                hit(u, "fixed"),
                hit(u, "base")
            ),
            format!(
                "{:+.1}% (uniform, interval {}) and {:+.1}% (Pareto, {})",
                q(u).0,
                q(u).1,
                q(p).0,
                q(p).1
            ),
        ]
    };
    for said in said {
        says(report, text, &said);
    }
    says(
        report,
        text,
        &format!(
            "young per query equal its pages read per query ({:.3} and {:.3})",
            not_young(u),
            not_young(p)
        ),
    );
    let (ylo, yhi) = range([u, p].map(|w| m(w, "fixed", "pages_made_young_per_query")));
    let lead = if report == "io-bound-10.11.18" {
        "fixed moved almost nothing:"
    } else {
        "fixed moved"
    };
    says(report, text, &format!("{lead} {ylo:.4} to {yhi:.4}"));
    says(
        report,
        text,
        &format!(
            "({} of {} runs flagged busy)",
            s["busy_runs"], s["counted_runs"]
        ),
    );
}

/// The NOTES of reports/io-bound-threshold-10.11.18: the table of the
/// counted runs, the answers' gaps, the cores the busy repetition had
/// beside it and what that repetition measured.
#[test]
fn the_threshold_notes_quote_their_table_and_busy_repetition() {
    let report = "io-bound-threshold-10.11.18";
    let (s, text, runs) = (summary(report), notes(report), runs(report));
    let w = "read-only-pareto";
    let m = |v: &str, k: &str| med(&s, None, w, v, k);
    for v in ["base", "fixed", "fixed-obt0"] {
        let moves = if v == "base" {
            "promotions"
        } else {
            "sweep moves"
        };
        let row = format!(
            "| {v} | {} | {:.3} | {:.4} ({moves}) | {:.3} | {:.1} s |",
            run_hit_ratios(&s, &runs, "10.11.18", w, v),
            m(v, "pages_read_per_query"),
            m(v, "pages_made_young_per_query"),
            m(v, "pages_made_not_young_per_query"),
            m(v, "pool_turnover_s")
        );
        says(report, &text, &row);
    }
    let hit = |v: &str| m(v, "hit_ratio_pct");
    let pages = |v: &str| m(v, "pages_read_per_query");
    for said in [
        format!(
            "{:.2}% against {:.2}%, {:.1} points lower",
            hit("fixed"),
            hit("base"),
            hit("base") - hit("fixed")
        ),
        format!(
            "{:.2}% against {:.2}%, every run above every base run, with {:.0}% fewer pages read per \
             query than base ({:.3} against {:.3})",
            hit("fixed-obt0"),
            hit("base"),
            100.0 * (1.0 - pages("fixed-obt0") / pages("base")),
            pages("fixed-obt0"),
            pages("base")
        ),
        format!(
            "(`Innodb_buffer_pool_pages_total`, {} here)",
            thousands(num(&runs[0]["outcome"]["measured"]["pool_pages"]))
        ),
    ] {
        says(report, &text, &said);
    }
    let cores = |busy_ones: bool| {
        range(
            runs.iter()
                .filter(|r| busy(&s, r) == busy_ones)
                .map(|r| num(&r["outcome"]["measured"]["other_cpu"]["cores_busy"])),
        )
    };
    let ((blo, bhi), (qlo, qhi)) = (cores(true), cores(false));
    says(report, &text, &format!("{blo:.2} to {bhi:.2} cores busy)"));
    says(
        report,
        &text,
        &format!("on a quiet host ({qlo:.2} to {qhi:.2})"),
    );
    let busy_run = |v: &str| {
        *cell_runs(&runs, "10.11.18", w, v)
            .iter()
            .find(|r| busy(&s, r))
            .unwrap()
    };
    // a run's turnover: the pool's pages over its pages read a second
    let turnover = |r: &Value| {
        let m = &r["outcome"]["measured"];
        num(&m["pool_pages"]) / (num(&m["reads"]) / num(&m["sysbench"]["seconds"]))
    };
    let (fixed, base) = (busy_run("fixed"), busy_run("base"));
    says(
        report,
        &text,
        &format!(
            "the turnover rose to {:.1} s (fixed) and {:.1} s (base); fixed then moved {:.3} blocks a \
             query and lost {:.1} points ({:.2}% against {:.2}%)",
            turnover(fixed),
            turnover(base),
            num(&fixed["outcome"]["measured"]["pages_made_young_per_query"]),
            run_hit_ratio(base) - run_hit_ratio(fixed),
            run_hit_ratio(fixed),
            run_hit_ratio(base)
        ),
    );
}

/// The NOTES of reports/mdev-37992-10.11.18: the runs and verdicts, the
/// questions' figures, the table of QPS against base, the largest moves
/// of the controls and the counters per variant.
#[test]
fn the_mdev_37992_notes_quote_their_answers_and_qps_table() {
    let report = "mdev-37992-10.11.18";
    let (s, text) = (summary(report), notes(report));
    let v = verdicts(&s);
    let count = |x: &str| v.iter().filter(|y| **y == x).count();
    says(
        report,
        &text,
        &format!(
            "Verdicts: {} questions pass, {} fail, {} undecided.",
            count("pass"),
            count("fail"),
            count("undecided")
        ),
    );
    says(
        report,
        &text,
        &format!(
            "{} flagged busy, {} failed",
            s["busy_runs"], s["failed_runs"]
        ),
    );
    // the answers' changes and intervals, the table of every variant's
    // change and the controls' spread are generated figures
    // (tests/figures.rs)
    mdev_counters_quote(report, &s, &text);
}

/// The questions' bounds and the counters per variant of mdev-37992.
fn mdev_counters_quote(report: &str, s: &Value, text: &str) {
    let m = |w: &str, v: &str, k: &str| med(s, None, w, v, k);
    let reads = ["points-covered-pk", "random-points"];
    let young = reads.map(|w| format!("{:.2}", m(w, "base", "pages_made_young_per_query")));
    // the least of base's runs, as the question's verdict holds it
    let least = range(
        s["verdicts"][0]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["against_worst"].as_f64().unwrap()),
    )
    .0;
    says(
        report,
        text,
        &format!(
            "where base makes {} and {} (at least {least:.2} in every run)",
            young[0], young[1]
        ),
    );
    let (wlo, whi) = range(reads.map(|w| m(w, "base", "buf_pool_mutex_wait_us_per_query")));
    says(
        report,
        text,
        &format!(
            "base: {:.1} pages made young and buf_pool.mutex acquisitions per IN-list query ({wlo:.1} \
             to {whi:.1} µs of mutex wait per query), {:.2} on read-only-10 (range scans), {:.2} and \
             {:.2} pages made young on read-write and update-index",
            m("points-covered-pk", "base", "pages_made_young_per_query"),
            m("read-only-10", "base", "pages_made_young_per_query"),
            m("read-write", "base", "pages_made_young_per_query"),
            m("update-index", "base", "pages_made_young_per_query")
        ),
    );
    let no_promotion = ["gate", "clock", "workaround"];
    let rw = range(no_promotion.map(|v| m("read-write", v, "buf_pool_mutex_per_query")));
    let ui = range(no_promotion.map(|v| m("update-index", v, "buf_pool_mutex_per_query")));
    says(
        report,
        text,
        &format!(
            "to {:.2} to {:.2} on read-write and {:.1} to {:.1} on update-index",
            rw.0, rw.1, ui.0, ui.1
        ),
    );
    says(
        report,
        text,
        &format!(
            "on update-index {:.3} sweep moves per query",
            m("update-index", "fixed", "pages_made_young_per_query")
        ),
    );
    let every = rows(s)
        .iter()
        .filter(|r| r["workload"] == "update-index")
        .map(|r| num(&r["median"]["buf_pool_mutex_per_query"]));
    let (lo, hi) = range(every);
    says(
        report,
        text,
        &format!("take buf_pool.mutex in every variant ({lo:.1} to {hi:.1} per query)"),
    );
    // the pairs each undecided no-slower cell needs, as the question's
    // details estimate them
    let fixed = s["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["question"] == "fixed is no slower than base on every workload")
        .unwrap();
    let cells = fixed["cells"].as_array().unwrap();
    let pairs: Vec<f64> = cells
        .iter()
        .filter_map(|c| c["runs_to_decide"]["n"].as_f64())
        .collect();
    let (plo, phi) = range(pairs.iter().copied());
    let how_many = ["none", "one", "two", "three", "four", "five"][pairs.len()];
    says(
        report,
        text,
        &format!(
            "The report estimates {plo} to {phi} pairs (repetitions of both) to \
             decide {how_many} of them"
        ),
    );
    // the cell without an estimate is the one the NOTES name
    let unestimated: Vec<&str> = cells
        .iter()
        .filter(|c| c["runs_to_decide"].is_null())
        .map(|c| c["workload"].as_str().unwrap())
        .collect();
    assert_eq!(unestimated, ["update-index"]);
    says(
        report,
        text,
        "update-index's change lies too near the allowed one for an estimate",
    );
}

/// The stacks of mdev-37992 as its NOTES give them: every variant's share
/// of on-CPU samples in the promotion and its path (the one profile perf
/// did not record named as such), how far the unwinding reached, the
/// samples a profile, gdb's finds and stops, and what each profiler cost.
#[test]
fn the_mdev_37992_notes_quote_their_stacks() {
    let report = "mdev-37992-10.11.18";
    let (s, text) = (summary(report), notes(report));
    let stacks = s["stacks"].as_array().unwrap();
    let of = |profiler: &str| -> Vec<&Value> {
        stacks
            .iter()
            .filter(|r| r["profiler"] == profiler)
            .collect()
    };
    let (on_cpu, waits) = (of("on-cpu"), of("waits"));
    let profile = |w: &str, v: &str| {
        on_cpu
            .iter()
            .find(|r| r["workload"] == w && r["variant"] == v)
            .copied()
    };
    let share = |w: &str, v: &str, field: &str| match profile(w, v) {
        Some(r) => format!("{:.2}%", 100.0 * num(&r[field])),
        None => "not measured".to_string(),
    };
    let (pk, rp) = ("points-covered-pk", "random-points");
    for v in [
        "base",
        "base-again",
        "base-rebuilt",
        "gate",
        "clock",
        "workaround",
        "fixed",
    ] {
        let row = format!(
            "| {v} | {} | {} | {} | {} |",
            share(pk, v, "promotion_share"),
            share(rp, v, "promotion_share"),
            share(pk, v, "promotion_path_share"),
            share(rp, v, "promotion_path_share")
        );
        says(report, &text, &row);
    }
    // the one profile missing is gate's on points-covered-pk, as the NOTES say
    assert_eq!(on_cpu.len(), 13);
    assert!(profile(pk, "gate").is_none());
    says(
        report,
        &text,
        "gate's on-CPU profile on points-covered-pk is missing: perf recorded no sample",
    );
    let (clo, chi) = range(on_cpu.iter().map(|r| num(&r["cut_short_share"])));
    assert!(chi < 0.02, "a profile is cut short by {chi}");
    assert!(on_cpu.iter().all(|r| num(&r["unnamed_leaf_share"]) == 0.0));
    says(
        report,
        &text,
        &format!(
            "all but {:.2}% to {:.2}% of its samples",
            100.0 * clo,
            100.0 * chi
        ),
    );
    // the path against the exact frame, over base and its controls
    let (rlo, rhi) = range(
        ["base", "base-again", "base-rebuilt"]
            .iter()
            .flat_map(|v| [profile(pk, v), profile(rp, v)])
            .map(|r| {
                let r = r.unwrap();
                num(&r["promotion_path_share"]) / num(&r["promotion_share"])
            }),
    );
    says(
        report,
        &text,
        &format!("is {rlo:.1} to {rhi:.1} times the exact frame"),
    );
    let samples = |rows: &[&Value]| range(rows.iter().map(|r| num(&r["samples"])));
    let (lo, hi) = samples(&on_cpu);
    says(
        report,
        &text,
        &format!("{} to {} samples a profile", thousands(lo), thousands(hi)),
    );
    // threads found in the promotion by gdb, and the stacks it took
    let found = range(
        waits
            .iter()
            .map(|r| (num(&r["promotion_share"]) * num(&r["samples"])).round()),
    );
    assert!(waits
        .iter()
        .all(|r| num(&r["promotion_lock_wait_share"]) == 0.0));
    let (slo, shi) = samples(&waits);
    says(
        report,
        &text,
        &format!(
            "in {:.0} to {:.0} of {slo:.0} to {shi:.0} thread stacks per cell, never asleep",
            found.0, found.1
        ),
    );
    let (plo, phi) = range(stacks.iter().map(|r| num(&r["pass_seconds"])));
    says(
        report,
        &text,
        &format!("A pass took {plo:.0} to {phi:.0} s a cell."),
    );
    let (qlo, qhi) = range(on_cpu.iter().map(|r| num(&r["qps_change_pct"])));
    says(
        report,
        &text,
        &format!("perf's window ran between {qlo:.0}% and {qhi:+.0}%"),
    );
    let (glo, ghi) = range(
        waits
            .iter()
            .filter(|r| !r["qps_change_pct"].is_null())
            .map(|r| -num(&r["qps_change_pct"])),
    );
    let (mlo, mhi) = range(waits.iter().map(|r| num(&r["stop_ms_median"])));
    let (_, longest) = range(waits.iter().map(|r| num(&r["stop_ms_max"])));
    says(
        report,
        &text,
        &format!(
            "median of {mlo:.0} to {mhi:.0} ms a sample (the longest {longest:.0} ms), and QPS in \
             its window fell by {glo:.0}% to {ghi:.0}%"
        ),
    );
}

/// The rates of the turnover matrices, fastest first.
const RATES: [&str; 4] = [
    "pareto-unlimited",
    "pareto-rate-500",
    "pareto-rate-250",
    "pareto-rate-120",
];

/// A variant's hit ratio less base's in one cell, in points.
fn gap(s: &Value, tree: Option<&str>, w: &str, v: &str) -> f64 {
    med(s, tree, w, v, "hit_ratio_pct") - med(s, tree, w, "base", "hit_ratio_pct")
}

/// A variant's pages read a query against base's, in percent more.
fn more_read(s: &Value, tree: Option<&str>, w: &str, v: &str) -> f64 {
    let p = |v: &str| med(s, tree, w, v, "pages_read_per_query");
    100.0 * (p(v) / p("base") - 1.0)
}

/// The same from the pages a query as printed (three decimals): some
/// NOTES work the percentage out of the figures they print.
fn more_read_printed(s: &Value, tree: Option<&str>, w: &str, v: &str) -> f64 {
    let p = |v: &str| printed(med(s, tree, w, v, "pages_read_per_query"), 3);
    100.0 * (p(v) / p("base") - 1.0)
}

/// How the remedy reports label the four turnovers, fastest first.
const LABELS: [&str; 4] = ["(no cap)", "(500/s)", "(250/s)", "(120/s)"];

/// The NOTES of reports/hit-ratio-turnover-lookup: its table (its own gaps
/// and those it cites from reports/hit-ratio-turnover), the pages read at
/// the fast end, the moves near 7 s and the scan figures it cites.
#[test]
fn the_lookup_turnover_notes_quote_their_table_and_the_reports_they_cite() {
    let report = "hit-ratio-turnover-lookup";
    let (s, text) = (summary(report), notes(report));
    let first = summary("hit-ratio-turnover");
    let v = "fixed-lookup";
    for ((w, label), time) in RATES
        .iter()
        .zip(LABELS)
        .zip(["0.4 s", "2 s", "7 s", "14 s"])
    {
        let there = |v: &str| {
            format!(
                "{:+.2}, {:+.2}",
                gap(&first, Some("10.11.18"), w, v),
                gap(&first, Some("11.8.6"), w, v)
            )
        };
        let row = format!(
            "| {time} {label} | {:+.2} | {:+.2} | {} | {} |",
            gap(&s, Some("10.11.18"), w, v),
            gap(&s, Some("11.8.6"), w, v),
            there("fixed"),
            there("fixed-fine-young")
        );
        says(report, &text, &row);
    }
    says(
        report,
        &text,
        &format!(
            "pages read per query {:.1}% above base at 0.4 s (the fix: {:.1}%)",
            more_read_printed(&s, Some("10.11.18"), RATES[0], v),
            more_read(&first, Some("10.11.18"), RATES[0], "fixed")
        ),
    );
    let moves = |v: &str| {
        med(
            &s,
            Some("10.11.18"),
            RATES[2],
            v,
            "pages_made_young_per_query",
        )
    };
    says(
        report,
        &text,
        &format!(
            "The remedy makes {:.1} times base's moves of old blocks here ({:.3} against {:.3} a query)",
            moves(v) / moves("base"),
            moves(v),
            moves("base")
        ),
    );
    let scan = summary("scan-resistance-lookup-10.11.18");
    let remedy = summary("scan-resistance-remedy-10.11.18");
    says(
        report,
        &text,
        &format!(
            "has fixed-lookup keep {:.1}% of the hot set under a looping scan, base {:.1}%, \
             fixed-fine-young {:.1}% in its own report, the fix {}%",
            kept(&scan, v),
            kept(&scan, "base"),
            kept(&remedy, "fixed-fine-young"),
            format!("{:.1}", kept(&scan, "fixed")).trim_end_matches(".0")
        ),
    );
    says(
        report,
        &text,
        &format!(
            "{} runs counted, {} flagged busy, {} failed",
            s["counted_runs"], s["busy_runs"], s["failed_runs"]
        ),
    );
    assert_eq!(verdicts(&s), ["undecided"]);
}

/// The hot set a variant keeps under the looping scan, in percent.
fn kept(s: &Value, variant: &str) -> f64 {
    let row = s["scan_resistance"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["variant"] == variant)
        .unwrap_or_else(|| panic!("no scan row of {variant}"));
    num(&row["kept_pct"])
}

/// The NOTES of reports/hit-ratio-turnover-lookup-boundary: its table's
/// own columns and those of the reports it cites, how far short it falls
/// at 0.3 s, the pages read there, and the QPS on 11.8.6.
#[test]
fn the_lookup_boundary_turnover_notes_quote_their_table_and_the_reports_they_cite() {
    let report = "hit-ratio-turnover-lookup-boundary";
    let (s, text) = (summary(report), notes(report));
    let (lookup, first) = (
        summary("hit-ratio-turnover-lookup"),
        summary("hit-ratio-turnover"),
    );
    let v = "fixed-lookup-boundary";
    let t10 = Some("10.11.18");
    for ((w, label), time) in RATES
        .iter()
        .zip(LABELS)
        .zip(["0.3 s", "2 s", "7 s", "14 s"])
    {
        let cells = row_cells(&text, &format!("| {time} {label} |"), 5);
        assert_eq!(
            cells[0],
            format!("{:+.2}", gap(&s, t10, w, v)),
            "{report} {w}"
        );
        assert_eq!(
            cells[1],
            format!("{:+.2}", gap(&s, Some("11.8.6"), w, v)),
            "{report} {w}"
        );
        // cells[2] is the second form's, from runs not committed
        assert_eq!(
            cells[3],
            format!("{:+.2}", gap(&lookup, t10, w, "fixed-lookup")),
            "{report} {w}"
        );
        assert_eq!(
            cells[4],
            format!("{:+.2}", gap(&first, t10, w, "fixed")),
            "{report} {w}"
        );
    }
    let short = |t: &str| -(gap(&s, Some(t), RATES[0], v) + 0.2);
    let pages = |t: &str, v: &str| med(&s, Some(t), RATES[0], v, "pages_read_per_query");
    // worked from the printed pages a query, as the NOTES work it
    let more = |t: &str| more_read_printed(&s, Some(t), RATES[0], v);
    assert_eq!(
        format!("{:.1}", more("10.11.18")),
        format!("{:.1}", more("11.8.6"))
    );
    for said in [
        format!(
            "{:.2} and {:.2} short at 0.3 s",
            short("10.11.18"),
            short("11.8.6")
        ),
        format!(
            "{:.1}% above base's on 10.11.18 ({:.3} against {:.3}) and on 11.8.6 ({:.3} against \
             {:.3}), where `fixed-lookup` read {:.1}% more and the fix {:.1}% (10.11.18)",
            more("10.11.18"),
            pages("10.11.18", v),
            pages("10.11.18", "base"),
            pages("11.8.6", v),
            pages("11.8.6", "base"),
            more_read_printed(&lookup, t10, RATES[0], "fixed-lookup"),
            more_read(&first, t10, RATES[0], "fixed")
        ),
    ] {
        says(report, &text, &said);
    }
    let r = cell(&s, Some("11.8.6"), RATES[0], v);
    let qps = |v: &str| {
        thousands((med(&s, Some("11.8.6"), RATES[0], v, "qps") / 1000.0).round() * 1000.0)
    };
    says(
        report,
        &text,
        &format!(
            "{:.0}% below base's (medians of 2, {} against {} queries a second",
            -change(r),
            qps(v),
            qps("base")
        ),
    );
}

/// The NOTES of reports/hit-ratio-turnover-looked-up beyond its own gaps:
/// the columns cited from the third form and the fix, the runs at the slow
/// end and the fast end, the moves, and the QPS of two cells of 11.8.6.
#[test]
fn the_looked_up_turnover_notes_quote_runs_moves_and_cited_gaps() {
    let report = "hit-ratio-turnover-looked-up";
    let (s, text) = (summary(report), notes(report));
    let (third, first) = (
        summary("hit-ratio-turnover-lookup-boundary"),
        summary("hit-ratio-turnover"),
    );
    let v = "fixed-looked-up";
    let (t10, t11) = (Some("10.11.18"), Some("11.8.6"));
    for ((w, label), time) in RATES
        .iter()
        .zip(LABELS)
        .zip(["0.4 s", "2 s", "7 s", "14 s"])
    {
        let cells = row_cells(&text, &format!("| {time} {label} |"), 4);
        assert_eq!(
            cells[0],
            format!("{:+.2}", gap(&s, t10, w, v)),
            "{report} {w}"
        );
        assert_eq!(
            cells[1],
            format!("{:+.2}", gap(&s, t11, w, v)),
            "{report} {w}"
        );
        let (third10, third11) = cells[2].split_once(" / ").unwrap();
        assert_eq!(
            third10,
            format!("{:+.2}", gap(&third, t10, w, "fixed-lookup-boundary")),
            "{w}"
        );
        assert_eq!(
            third11,
            format!("{:+.2}", gap(&third, t11, w, "fixed-lookup-boundary")),
            "{w}"
        );
        assert_eq!(
            cells[3],
            format!("{:+.2}", gap(&first, t10, w, "fixed")),
            "{report} {w}"
        );
    }
    looked_up_runs_and_moves_quote(report, &s, &text, &third);
}

/// The NOTES of reports/hit-ratio-turnover-lookup-mark beyond its own
/// gaps: the fourth form's column it cites, the pages read at the slow
/// end, and the moves.
#[test]
fn the_lookup_mark_turnover_notes_quote_slow_end_pages_moves_and_cited_gaps() {
    let report = "hit-ratio-turnover-lookup-mark";
    let (s, text) = (summary(report), notes(report));
    let fourth = summary("hit-ratio-turnover-looked-up");
    let v = "fixed-lookup-mark";
    let trees = ["10.11.18", "11.8.6"];
    for w in RATES {
        let row = format!(
            "| {:+.2} | {:+.2} | {:+.2} / {:+.2} |",
            gap(&s, Some(trees[0]), w, v),
            gap(&s, Some(trees[1]), w, v),
            gap(&fourth, Some(trees[0]), w, "fixed-looked-up"),
            gap(&fourth, Some(trees[1]), w, "fixed-looked-up")
        );
        says(report, &text, &row);
    }
    let slow = RATES[3];
    let p = |t: &str, v: &str| med(&s, Some(t), slow, v, "pages_read_per_query");
    says(
        report,
        &text,
        &format!(
            "({:.3} and {:.3} pages a query against {:.3} and {:.3}, {:.1}% and {:.1}% more)",
            p(trees[0], v),
            p(trees[1], v),
            p(trees[0], "base"),
            p(trees[1], "base"),
            more_read(&s, Some(trees[0]), slow, v),
            more_read(&s, Some(trees[1]), slow, v)
        ),
    );
    // one figure stands for both series in each place
    let one = |w: &str, v: &str, d: usize| {
        let f = trees.map(|t| {
            format!(
                "{:.d$}",
                med(&s, Some(t), w, v, "pages_made_young_per_query")
            )
        });
        assert_eq!(f[0], f[1], "{w} {v}");
        f[0].clone()
    };
    assert_eq!(one(RATES[0], v, 4), one(RATES[1], v, 4));
    says(
        report,
        &text,
        &format!(
            "({} at 0.4 and 2 s, {} and {} at 7 and 14 s, base's promotions {} and {})",
            one(RATES[0], v, 4),
            one(RATES[2], v, 3),
            one(RATES[3], v, 3),
            one(RATES[2], "base", 3),
            one(RATES[3], "base", 3)
        ),
    );
}

/// A scan-loop run's outcome, read with the tool's own type so that the
/// kept share and the rate are worked out as the report works them out.
fn scan_outcome(run: &Value) -> xtask::record::ScanLoopOutcome {
    serde_json::from_value(run["outcome"]["scan_loop"].clone()).unwrap()
}

/// The kept share as the first reading of reports/scan-resistance-10.11.18
/// took it, before 80ce4e8: the mean of the samples of the second half of
/// the pass, the one due at its very end included.
/// It gives the hot share kept in percent and the scan pages young.
fn first_reading(run: &Value) -> (f64, f64) {
    let scan = &run["outcome"]["scan_loop"];
    let half = num(&scan["residency_seconds"]) / 2.0;
    let hot = num(&scan["hot_pages"]);
    let window: Vec<&Value> = scan["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| num(&s["t_s"]) >= half)
        .collect();
    let mean =
        |f: &dyn Fn(&Value) -> f64| window.iter().map(|s| f(s)).sum::<f64>() / window.len() as f64;
    (
        100.0 * mean(&|s| num(&s["hot_resident"]) / hot),
        mean(&|s| num(&s["scan_young"])),
    )
}

/// The scanned pages young at one sample of a run.
fn scan_young_at(run: &Value, t: f64) -> f64 {
    let samples = run["outcome"]["scan_loop"]["samples"].as_array().unwrap();
    num(&samples.iter().find(|s| num(&s["t_s"]) == t).unwrap()["scan_young"])
}

/// The NOTES of reports/scan-resistance-10.11.18: the first table (each
/// run's kept share and scan pages young by the first reading, and the
/// model's) and the second (scan pages young at 0 and 35 s, each run's
/// rate and the model's), from its runs and summary.
#[test]
fn the_first_scan_notes_quote_both_tables_from_their_runs() {
    let report = "scan-resistance-10.11.18";
    let (s, text, runs) = (summary(report), notes(report), runs(report));
    let row = |v: &str| {
        s["scan_resistance"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["variant"] == v)
            .unwrap()
            .clone()
    };
    let pct = |x: f64| {
        let p = format!("{x:.1}");
        format!(
            "{}%",
            p.strip_suffix(".0").filter(|_| x >= 99.95).unwrap_or(&p)
        )
    };
    for (name, first) in [("base", "base"), ("fixed", "fixed"), ("gate", "gate")] {
        for (suffix, depth, obt, label) in [
            ("", 1024, 1000, ""),
            ("-d128", 128, 1000, ", depth 128"),
            ("-t0", 1024, 0, ", old_blocks_time 0"),
        ] {
            let v = format!("{first}{suffix}");
            let these = cell_runs(&runs, "10.11.18", "scan-loop", &v);
            let r = row(&v);
            let model = |k: &str| r[k].as_f64().map_or("-".to_string(), |x| format!("{x:.0}"));
            let model_kept = r["model_kept_pct"].as_f64().map_or("-".to_string(), pct);
            let kept: Vec<String> = these.iter().map(|r| pct(first_reading(r).0)).collect();
            let young: Vec<String> = these
                .iter()
                .map(|r| format!("{:.0}", first_reading(r).1))
                .collect();
            let first_row = format!(
                "| {name} | {depth} | {obt} | {} | {model_kept} | {} | {} |",
                kept.join(", "),
                young.join(", "),
                model("model_scan_young")
            );
            says(report, &text, &first_row);
            let rate: Vec<String> = these
                .iter()
                .map(|r| format!("{:.1}", scan_outcome(r).scan_young_per_s().unwrap()))
                .collect();
            let at = |t: f64| {
                these
                    .iter()
                    .map(|r| format!("{:.0}", scan_young_at(r, t)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let model_rate = r["model_scan_young_per_s"]
                .as_f64()
                .map_or("-".to_string(), |x| format!("{x:.1}"));
            let second_row = format!(
                "| {name}{label} | {} | {} | {} | {model_rate} |",
                at(0.0),
                at(35.0),
                rate.join(", ")
            );
            says(report, &text, &second_row);
        }
    }
    says(
        report,
        &text,
        &format!("(0 of {} runs flagged busy)", s["counted_runs"]),
    );
    assert_eq!(s["busy_runs"].as_u64(), Some(0));
}

/// The `n` cells of a table row after its lead (`| 14 s (120/s) |`), trimmed.
fn row_cells(text: &str, lead: &str, n: usize) -> Vec<String> {
    let at = text.find(lead).unwrap_or_else(|| panic!("no row `{lead}`"));
    let cells: Vec<String> = text[at + lead.len()..]
        .split('|')
        .take(n)
        .map(|c| c.trim().to_string())
        .collect();
    assert_eq!(cells.len(), n, "row `{lead}`");
    cells
}

/// The NOTES of reports/hit-ratio-disk-10.11.18 beyond what readme_figures
/// holds: each row's pages read a second, turnover and moves, the extra
/// pages read and p95 at 7 s, and the runs.
#[test]
fn the_disk_notes_quote_their_rates_turnovers_and_moves() {
    let report = "hit-ratio-disk-10.11.18";
    let (s, text) = (summary(report), notes(report));
    for (w, rate) in [("pareto-rate-500", 500), ("pareto-rate-250", 250)] {
        for v in ["base", "fixed", "fixed-fine-young"] {
            let m = |k: &str| med(&s, None, w, v, k);
            let moves = if v == "base" { "" } else { " (sweep moves)" };
            let row = format!(
                "| {rate} | {v} | {:.2} | {:.3} | {:.0} | {:.2} | {:.4}{moves} | {:.2} |",
                m("hit_ratio_pct"),
                m("pages_read_per_query"),
                m("qps") * m("pages_read_per_query"),
                m("pool_turnover_s"),
                m("pages_made_young_per_query"),
                m("p95_ms")
            );
            says(report, &text, &row);
        }
    }
    let m = |v: &str, k: &str| med(&s, None, "pareto-rate-250", v, k);
    says(
        report,
        &text,
        &format!(
            "it reads {:.0}% more pages a query than base ({:.3} against {:.3}); its p95 is {:.0}% \
             higher ({:.2} against {:.2} ms",
            100.0 * (m("fixed", "pages_read_per_query") / m("base", "pages_read_per_query") - 1.0),
            m("fixed", "pages_read_per_query"),
            m("base", "pages_read_per_query"),
            100.0 * (m("fixed", "p95_ms") / m("base", "p95_ms") - 1.0),
            m("fixed", "p95_ms"),
            m("base", "p95_ms")
        ),
    );
    says_counted(report, &text, &s);
}

/// The NOTES of reports/hit-ratio-fast-end-lookup-boundary beyond what
/// readme_figures holds: the runs and how they lie, the turnover, the
/// pages read, the QPS change and the cited turnover report's gaps.
#[test]
fn the_fast_end_notes_quote_their_runs_turnover_and_qps() {
    let report = "hit-ratio-fast-end-lookup-boundary";
    let (s, text, runs) = (summary(report), notes(report), runs(report));
    let (w, v) = ("pareto-unlimited", "fixed-lookup-boundary");
    let hits = |v: &str| {
        range(
            cell_runs(&runs, "10.11.18", w, v)
                .iter()
                .map(|r| run_hit_ratio(r)),
        )
    };
    let ((rlo, rhi), (blo, bhi)) = (hits(v), hits("base"));
    assert!(rhi < blo, "a remedy run is not below every base run");
    says(
        report,
        &text,
        &format!(
            "every one of its {} runs ({rlo:.2}% to {rhi:.2}%) is below every one of base's ({blo:.2}% to {bhi:.2}%)",
            cell(&s, None, w, v)["runs"]
        ),
    );
    let m = |v: &str, k: &str| med(&s, None, w, v, k);
    let turnovers =
        [m("base", "pool_turnover_s"), m(v, "pool_turnover_s")].map(|x| format!("{x:.2}"));
    assert_eq!(
        turnovers[0], turnovers[1],
        "the NOTES give one turnover for both"
    );
    says(
        report,
        &text,
        &format!("the pool turned over in {} s on both sides", turnovers[0]),
    );
    says(
        report,
        &text,
        &format!(
            "It reads {:.3} pages a query where base reads {:.3}",
            m(v, "pages_read_per_query"),
            m("base", "pages_read_per_query")
        ),
    );
    let r = cell(&s, None, w, v);
    says(
        report,
        &text,
        &format!(
            "QPS {:+.1}% (paired, {}, p = {:.3})",
            change(r),
            interval(r),
            num(&r["qps_vs_base"]["p_value"])
        ),
    );
    let turnover = summary("hit-ratio-turnover-lookup-boundary");
    says(
        report,
        &text,
        &format!(
            "gave the same gap ({:.2} on 10.11.18, {:.2} on 11.8.6)",
            gap(&turnover, Some("10.11.18"), w, v),
            gap(&turnover, Some("11.8.6"), w, v)
        ),
    );
    says(
        report,
        &text,
        &format!(
            "{} runs, {} busy, {} failed",
            s["counted_runs"], s["busy_runs"], s["failed_runs"]
        ),
    );
}

/// The fourth form's runs at both ends, its moves at the slow end and the
/// QPS of two cells of 11.8.6, beside the third form's extra pages read.
fn looked_up_runs_and_moves_quote(report: &str, s: &Value, text: &str, third: &Value) {
    let runs = runs(report);
    let v = "fixed-looked-up";
    let (t10, t11) = (Some("10.11.18"), Some("11.8.6"));
    says(
        report,
        text,
        &format!(
            "where the third read {:.1}% more",
            more_read_printed(third, t10, RATES[0], "fixed-lookup-boundary")
        ),
    );
    // every run of the slow end on both series, and the fast end's on 10.11.18
    let hits = |v: &str, ws: &[&str], trees: &[&str]| -> Vec<f64> {
        let mut all = Vec::new();
        for t in trees {
            for w in ws {
                all.extend(cell_runs(&runs, t, w, v).iter().map(|r| run_hit_ratio(r)));
            }
        }
        all
    };
    let slow = [RATES[2], RATES[3]];
    let both = ["10.11.18", "11.8.6"];
    // each cell's remedy runs lie below its base runs
    for tree in both {
        for w in slow {
            let least_base = range(hits("base", &[w], &[tree])).0;
            let most_remedy = range(hits(v, &[w], &[tree])).1;
            assert!(
                most_remedy < least_base,
                "{tree} {w}: a remedy run is not below base's"
            );
        }
    }
    let (rlo, rhi) = range(hits(v, &slow, &both));
    let (blo, bhi) = range(hits("base", &slow, &both));
    says(
        report,
        text,
        &format!("({rlo:.2} to {rhi:.2} against {blo:.2} to {bhi:.2})"),
    );
    let fast = |v: &str| {
        let h = hits(v, &[RATES[0]], &["10.11.18"]);
        format!("{:.2} and {:.2}", h[0], h[1])
    };
    says(
        report,
        text,
        &format!("(10.11.18: {} against {})", fast(v), fast("base")),
    );
    let moves = |v: &str| {
        range(
            both.iter()
                .flat_map(|t| slow.map(|w| med(s, Some(t), w, v, "pages_made_young_per_query"))),
        )
    };
    let ((mlo, mhi), (plo, phi)) = (moves(v), moves("base"));
    says(
        report,
        text,
        &format!("{mlo:.3} to {mhi:.3} at 7 and 14 s, base's promotions {plo:.3} to {phi:.3}"),
    );
    let qps = |w: &str| change(cell(s, t11, w, v));
    says(
        report,
        text,
        &format!(
            "(the 14 s cell of 11.8.6 {:+.1}%, the 7 s cell {:+.1}%",
            qps(RATES[3]),
            qps(RATES[2])
        ),
    );
}

/// The margin of the question a variant answers (summary.json's
/// verdict): the NOTES say by how much a gap clears it.
fn margin_of(s: &Value, variant: &str) -> f64 {
    s["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["variant"] == variant && v["kind"] == "not-below")
        .unwrap_or_else(|| panic!("no margin question on {variant}"))["margin"]
        .as_f64()
        .unwrap()
}

/// The NOTES of reports/hit-ratio-fast-end-young-rule beyond what
/// readme_figures holds: each row's range of run hit ratios, how widely
/// the runs spread, that the third form's runs lie below base's rank by
/// rank, and the turnovers set beside the day before's.
#[test]
fn the_young_rule_notes_quote_their_run_ranges_and_turnovers() {
    let report = "hit-ratio-fast-end-young-rule";
    let (s, text, runs) = (summary(report), notes(report), runs(report));
    let w = "pareto-unlimited";
    let hits = |v: &str| -> Vec<f64> {
        cell_runs(&runs, "10.11.18", w, v)
            .iter()
            .map(|r| run_hit_ratio(r))
            .collect()
    };
    let variants = [
        ("base", "base"),
        ("fixed-fine-young", "fixed-fine-young"),
        ("fixed-lookup-boundary", "fixed-lookup-boundary"),
        ("fixed-young-boundary", "fixed-young-boundary (the probe)"),
    ];
    for (v, label) in variants {
        let (lo, hi) = range(hits(v));
        let row = format!(
            "| {label} | {:.2}% | {lo:.2} to {hi:.2} |",
            med(&s, None, w, v, "hit_ratio_pct")
        );
        says(report, &text, &row);
    }
    // the widest and the narrowest cell, each run's least to its most
    let (slo, shi) = range(variants.map(|(v, _)| {
        let (lo, hi) = range(hits(v));
        hi - lo
    }));
    says(
        report,
        &text,
        &format!("the spreads ({slo:.1} to {shi:.1} points)"),
    );
    // sorted, the third form's runs and base's, rank by rank
    let sorted = |v: &str| {
        let mut h = hits(v);
        h.sort_by(f64::total_cmp);
        h
    };
    let (third, base) = (sorted("fixed-lookup-boundary"), sorted("base"));
    assert_eq!(third.len(), base.len());
    assert!(
        third.iter().zip(&base).all(|(t, b)| t < b),
        "a run of the third form is not below base's of its rank"
    );
    says(
        report,
        &text,
        &format!(
            "Sorted, each of its runs is below base's of the same rank, all {}",
            third.len()
        ),
    );
    let (tlo, thi) = range(variants.map(|(v, _)| med(&s, None, w, v, "pool_turnover_s")));
    let before = summary("hit-ratio-fast-end-lookup-boundary");
    says(
        report,
        &text,
        &format!(
            "the pool turned over in {tlo:.2} to {thi:.2} s (medians; {:.2} s on this host the day before",
            med(&before, None, w, "base", "pool_turnover_s")
        ),
    );
    young_rule_answers_quote(report, &s, &text, &before);
}

/// The young-rule probe's answers: the pages read against base, how far
/// inside its margin the third form passed, and the day before's turnover,
/// gap and runs.
fn young_rule_answers_quote(report: &str, s: &Value, text: &str, before: &Value) {
    let w = "pareto-unlimited";
    let (probe, third) = ("fixed-young-boundary", "fixed-lookup-boundary");
    // the probe reads fewer pages than base, the third form more
    assert!(more_read(s, None, w, probe) < 0.0);
    assert!(more_read(s, None, w, third) > 0.0);
    for v in ["fixed-fine-young", probe] {
        assert!(gap(s, None, w, v) >= 0.0, "{v} is below base");
    }
    for said in [
        format!(
            "({:+.2} points, {:.1}% fewer pages read a query)",
            gap(s, None, w, probe),
            -more_read(s, None, w, probe)
        ),
        format!(
            "{:+.2} points and {:.1}% more pages read a query",
            gap(s, None, w, third),
            more_read(s, None, w, third)
        ),
        format!(
            "`fixed-lookup-boundary` by {:.3}",
            margin_of(s, third) + gap(s, None, w, third)
        ),
    ] {
        says(report, text, &said);
    }
    let (now, then) = (
        med(s, None, w, "base", "pool_turnover_s"),
        med(before, None, w, "base", "pool_turnover_s"),
    );
    // "about": the slowing to the nearest ten percent
    says(
        report,
        text,
        &format!(
            "turned over about {:.0}% more slowly than the day before on this host ({now:.2} s for \
             base against {then:.2} s)",
            (10.0 * (now / then - 1.0)).round() * 10.0
        ),
    );
    let runs_then = cell(before, None, w, third)["runs"].as_u64().unwrap();
    assert_eq!(
        cell(before, None, w, "base")["runs"].as_u64(),
        Some(runs_then)
    );
    says(
        report,
        text,
        &format!(
            "its gap is {:.2} where it was {:.2} with {runs_then} runs a side",
            -gap(s, None, w, third),
            -gap(before, None, w, third)
        ),
    );
    says(
        report,
        text,
        &format!(
            "{} runs counted, {} busy, {} failed",
            s["counted_runs"], s["busy_runs"], s["failed_runs"]
        ),
    );
}

/// The prose of reports/hit-ratio-turnover-10.11.18: the runs, the moves
/// and time in the old sublist at 2 s, the gaps at the slow end and the
/// fast end, and the fine clock's room inside its margin elsewhere.
#[test]
fn the_first_turnover_notes_quote_their_runs_and_gaps() {
    let report = "hit-ratio-turnover-10.11.18";
    let (s, text) = (summary(report), notes(report));
    let per_cell = rows(&s)[0]["runs"].as_u64().unwrap();
    assert!(rows(&s).iter().all(|r| r["runs"] == per_cell));
    says(
        report,
        &text,
        &format!(
            "Medians of {per_cell} runs per cell ({} runs, {} flagged busy",
            s["counted_runs"], s["busy_runs"]
        ),
    );
    let (fc, g) = ("fixed-fine-clock", |w: &str, v: &str| gap(&s, None, w, v));
    let m = |w: &str, k: &str| med(&s, None, w, "base", k);
    let [fast, two, seven, fourteen] = RATES;
    // the old sublist is 3/8 of the pool, so a block spends that share of
    // the turnover in it
    for said in [
        format!(
            "pages made young about {:.4} a query in base too",
            m(two, "pages_made_young_per_query")
        ),
        format!(
            "a block spends about 3/8 of the turnover, {:.1} s,",
            3.0 / 8.0 * m(two, "pool_turnover_s")
        ),
        format!(
            "loses {:.2} points at 7 s and {:.2} at 14 s",
            -g(seven, "fixed"),
            -g(fourteen, "fixed")
        ),
        format!(
            "keeps base's hit ratio there: {:+.2} and {:+.2} points, within the margin",
            g(seven, fc),
            g(fourteen, fc)
        ),
    ] {
        says(report, &text, &said);
    }
    let margin = margin_of(&s, fc);
    assert!(g(seven, fc) >= -margin && g(fourteen, fc) >= -margin);
    // "more than both": the lesser of the two losses at the fast end,
    // which base keeps over each
    let lost = range(["fixed", fc].map(|v| -g(fast, v))).0;
    for said in [
        format!(
            "At {:.1} s (no rate cap) base keeps {lost:.1} points more than both lazy variants",
            m(fast, "pool_turnover_s"),
        ),
        format!("The {lost:.1} points that base keeps over both lazy variants"),
    ] {
        says(report, &text, &said);
    }
    // the fine clock fails at the fast end only; elsewhere the least room
    // it keeps inside the margin, from the printed gaps
    assert!(g(fast, fc) < -margin);
    let room = range(RATES[1..].iter().map(|w| margin + printed(g(w, fc), 2))).0;
    assert!(room > 0.0, "the fine clock fails past the fast end");
    says(
        report,
        &text,
        &format!("(and, by {room:.2} point past the margin, nowhere else)"),
    );
    first_turnover_pair_quote(report, &text);
}

/// The uncapped QPS of fixed and the fine clock against base, from the
/// medians of the two repetitions.
fn first_turnover_pair_quote(report: &str, text: &str) {
    let s = summary(report);
    let qps = |v: &str| med(&s, Some("10.11.18"), RATES[0], v, "qps");
    says(
        report,
        text,
        &format!(
            "uncapped, fixed ran at {:.2} of base and fine-clock at {:.2} (medians of two runs each",
            qps("fixed") / qps("base"),
            qps("fixed-fine-clock") / qps("base")
        ),
    );
}

/// `100%` for a share printed whole, else one decimal, as the per-run
/// scan NOTES print it.
fn whole_pct(x: f64) -> String {
    let p = format!("{x:.1}");
    format!(
        "{}%",
        p.strip_suffix(".0").filter(|_| x >= 99.95).unwrap_or(&p)
    )
}

/// The scan-loop setting the scan NOTES give: the hot table's pages, the
/// scanned table's to the hundred, the pool's pages and the lookups a
/// second to the thousand, each the same in every run.
fn scan_setting(report: &str, s: &Value) -> ((f64, f64), String, String, String) {
    let runs = runs(report);
    let one = |k: &str| range(runs.iter().map(|r| num(&r["outcome"]["scan_loop"][k])));
    let hot = one("hot_pages");
    let (scan, scan_hi) = one("scan_pages");
    assert_eq!(scan, scan_hi, "{report}: scanned tables differ");
    let pools: Vec<String> = s["scan_resistance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let settings = r["settings"].as_str().unwrap();
            let n = settings.strip_prefix("pool ").unwrap().split(' ').next();
            n.unwrap().to_string()
        })
        .collect();
    assert!(
        pools.iter().all(|p| *p == pools[0]),
        "{report}: pools differ"
    );
    let lookups = range(
        s["scan_resistance"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (num(&r["hot_lookups_per_s"]) / 1000.0).round() * 1000.0),
    );
    assert_eq!(lookups.0, lookups.1, "{report}: lookup rates differ");
    (
        hot,
        thousands((scan / 100.0).round() * 100.0),
        thousands(pools[0].parse().unwrap()),
        thousands(lookups.0),
    )
}

/// The NOTES of reports/scan-resistance-lookup-10.11.18: its table (the
/// remedy of reports/scan-resistance-remedy-10.11.18 beside it), how far
/// below the fix it falls, the sweeps' moves, the model's column and the
/// setting and runs.
#[test]
fn the_lookup_scan_notes_quote_their_table_moves_and_model() {
    let report = "scan-resistance-lookup-10.11.18";
    let (s, text) = (summary(report), notes(report));
    let remedy = summary("scan-resistance-remedy-10.11.18");
    let k = |v: &str| kept(&s, v);
    let row = |v: &str| {
        s["scan_resistance"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["variant"] == v)
            .unwrap()
            .clone()
    };
    let model = |v: &str| num(&row(v)["model_kept_pct"]);
    let above = |v: &str| num(&row(v)["model_minus_measured_pp"]);
    let young = |v: &str| med(&s, None, "scan-loop", v, "pages_made_young_per_query");
    let (v, v128) = ("fixed-lookup", "fixed-lookup-d128");
    for said in [
        format!(
            "| 1024 | {:.1}% of the hot set kept | {:.1}% | {:.1}% | {:.1}% |",
            k("base"),
            k("fixed"),
            k(v),
            kept(&remedy, "fixed-fine-young")
        ),
        format!(
            "| 128 | ({:.1}% there) | {:.1}% | {:.1}% | {:.1}% |",
            kept(&remedy, "base-d128"),
            k("fixed-d128"),
            k(v128),
            kept(&remedy, "fixed-fine-young-d128")
        ),
        format!("({:.1}% against {:.1}% at depth 1024)", k(v), k("base")),
        format!(
            "{:.0} points below at depth 1024, {:.0} below at 128",
            k("fixed") - k(v),
            k("fixed-d128") - k(v128)
        ),
        format!(
            "the sweeps moved {:.2} old blocks a query here (fixed: {:.4})",
            young(v),
            young("fixed")
        ),
        format!(
            "{:.1}% for fixed-lookup at depth 1024 and {} at 128, {:.0} and {:.0} points above the measured",
            model(v),
            whole_pct(model(v128)),
            above(v),
            above(v128)
        ),
        format!(
            "{} runs, {} flagged busy, {} failed",
            s["counted_runs"], s["busy_runs"], s["failed_runs"]
        ),
    ] {
        says(report, &text, &said);
    }
    // the hot table's pages differ by a page between runs: "about", to the ten
    let ((hot_lo, hot_hi), scan, pool, lookups) = scan_setting(report, &s);
    let about = |x: f64| thousands((x / 10.0).round() * 10.0);
    assert_eq!(about(hot_lo), about(hot_hi));
    says(
        report,
        &text,
        &format!(
            "a hot table of about {} pages read by point lookups at {lookups} a second while one \
             connection scans a table of about {scan} pages in a loop, a 64 MiB pool of {pool} pages",
            about(hot_hi)
        ),
    );
    assert_eq!(verdicts(&s), ["undecided", "undecided", "undecided"]);
}

/// The hot set each run of one scan cell kept, in repetition order, as
/// the per-run scan NOTES print it (`4.9%, 6.5%`).
fn kept_per_run(runs: &[Value], variant: &str) -> String {
    cell_runs(runs, "10.11.18", "scan-loop", variant)
        .iter()
        .map(|r| whole_pct(100.0 * scan_outcome(r).hot_kept().unwrap()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The scanned pages young at 5 s of each run of one cell, least first.
fn scan_young_at_5s(runs: &[Value], variant: &str) -> Vec<f64> {
    let mut at: Vec<f64> = cell_runs(runs, "10.11.18", "scan-loop", variant)
        .iter()
        .map(|r| scan_young_at(r, 5.0))
        .collect();
    at.sort_by(f64::total_cmp);
    at
}

/// The NOTES of reports/scan-resistance-lookup-boundary-10.11.18: each
/// run's hot set kept in its table (and the second form's medians it sets
/// beside them), the answers, the moves against the second form's, the
/// scanned pages young at 5 s, the model and the setting.
#[test]
fn the_boundary_scan_notes_quote_each_runs_kept_share_and_the_answers() {
    let report = "scan-resistance-lookup-boundary-10.11.18";
    let (s, text, runs) = (summary(report), notes(report), runs(report));
    let lookup = summary("scan-resistance-lookup-10.11.18");
    let v = "fixed-lookup-boundary";
    let v128 = "fixed-lookup-boundary-d128";
    let deep = row_cells(&text, "| 1024 |", 6);
    assert_eq!(deep[0], kept_per_run(&runs, "base"));
    assert_eq!(deep[1], kept_per_run(&runs, "fixed"));
    assert_eq!(deep[2], kept_per_run(&runs, v));
    assert_eq!(deep[5], format!("{:.1}%", kept(&lookup, "fixed-lookup")));
    // the first cell of depth 128 cites base's share in the first
    // remedy's scan report; the rest are this report's runs and the
    // second form's medians
    let shallow = row_cells(&text, "| 128 |", 6);
    let remedy = summary("scan-resistance-remedy-10.11.18");
    assert_eq!(
        shallow[0],
        format!(
            "({:.1}% in `reports/scan-resistance-remedy-10.11.18/`)",
            kept(&remedy, "base-d128")
        )
    );
    assert_eq!(shallow[1], kept_per_run(&runs, "fixed-d128"));
    assert_eq!(shallow[2], kept_per_run(&runs, v128));
    assert_eq!(
        shallow[5],
        format!("{:.1}%", kept(&lookup, "fixed-lookup-d128"))
    );
    // one figure stands for both depths of the remedy and of the fix
    let both = |a: &str, b: &str| {
        let p = [a, b].map(|x| whole_pct(kept(&s, x)));
        assert_eq!(p[0], p[1], "{a} {b}");
        p[0].clone()
    };
    let young = |s: &Value, v: &str| med(s, None, "scan-loop", v, "pages_made_young_per_query");
    let moves = [v, v128, "fixed", "fixed-d128"].map(|x| format!("{:.4}", young(&s, x)));
    assert!(moves.iter().all(|m| *m == moves[0]), "{moves:?}");
    let at5 = scan_young_at_5s(&runs, v128);
    for said in [
        format!(
            "(within {:.0} points: {} against {} at both)",
            margin_of(&s, v),
            both(v, v128),
            both("fixed", "fixed-d128")
        ),
        format!(
            "at 1024 ({} against {:.1}%)",
            whole_pct(kept(&s, v)),
            kept(&s, "base")
        ),
        format!(
            "The sweeps moved {} old blocks a query at both depths, as the fix's did, where \
             `fixed-lookup`'s moved {:.2}",
            moves[0],
            young(&lookup, "fixed-lookup")
        ),
        format!("and {:.0} and {:.0} in this form's two", at5[0], at5[1]),
        format!(
            "{} runs, {} flagged busy, {} failed",
            s["counted_runs"], s["busy_runs"], s["failed_runs"]
        ),
    ] {
        says(report, &text, &said);
    }
    boundary_scan_fix_and_model_quote(report, &s, &text, &runs);
    assert_eq!(verdicts(&s), ["undecided", "undecided", "undecided"]);
}

/// The fix's scanned pages young at 5 s at depth 128 lie in the range the
/// NOTES give with the earlier forms' runs (not committed), the model
/// keeps the whole hot set at both depths, and the setting.
fn boundary_scan_fix_and_model_quote(report: &str, s: &Value, text: &str, runs: &[Value]) {
    let lead = " in the other runs of those forms and of the fix at depth 128";
    let before = &text[..text.find(lead).expect("the range of the other runs")];
    let (lo, hi) = before
        .rsplit("against ")
        .next()
        .unwrap()
        .split_once(" to ")
        .unwrap();
    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
    for x in scan_young_at_5s(runs, "fixed-d128") {
        assert!(lo <= x && x <= hi, "the fix's {x} outside {lo} to {hi}");
    }
    let model = |v: &str| {
        let r = s["scan_resistance"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["variant"] == v)
            .unwrap();
        whole_pct(num(&r["model_kept_pct"]))
    };
    let m = model("fixed-lookup-boundary");
    assert_eq!(m, model("fixed-lookup-boundary-d128"));
    says(
        report,
        text,
        &format!("keeps {m} at both depths, as measured now"),
    );
    let ((hot_lo, hot_hi), scan, pool, lookups) = scan_setting(report, s);
    assert_eq!(hot_lo, hot_hi);
    says(
        report,
        text,
        &format!(
            "a hot table of {} pages read by point lookups at {lookups} a second while one \
             connection scans a table of about {scan} pages in a loop, a 64 MiB pool of {pool} pages",
            thousands(hot_hi)
        ),
    );
}

/// The NOTES of reports/scan-resistance-lookup-mark-10.11.18 on the run
/// that lost hot pages: how many and when, what it held after, the share
/// lost in its title, the fix keeping all in both runs, the scan rates
/// the model's column turned on, and the runs and setting.
#[test]
fn the_mark_scan_notes_quote_the_run_that_lost_hot_pages() {
    // what the fourth form's two runs kept, as the NOTES cite them: the
    // least its hot set held at any sample of each run
    let fourth_form_kept = || {
        let runs = runs("scan-resistance-looked-up-10.11.18");
        let least: Vec<f64> = cell_runs(&runs, "10.11.18", "scan-loop", "fixed-looked-up")
            .iter()
            .map(|r| {
                let samples = r["outcome"]["scan_loop"]["samples"].as_array().unwrap();
                range(samples.iter().map(|x| num(&x["hot_resident"]))).0
            })
            .collect();
        let (lo, hi) = range(least.iter().copied());
        format!(
            "the fourth form all {} in one of its two and {} in the other",
            thousands(hi),
            thousands(lo)
        )
    };
    let report = "scan-resistance-lookup-mark-10.11.18";
    let (s, text, runs) = (summary(report), notes(report), runs(report));
    let cell = |v: &str| cell_runs(&runs, "10.11.18", "scan-loop", v);
    let resident = |r: &Value| -> Vec<(f64, f64)> {
        r["outcome"]["scan_loop"]["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| (num(&x["t_s"]), num(&x["hot_resident"])))
            .collect()
    };
    let hot = |r: &Value| num(&r["outcome"]["scan_loop"]["hot_pages"]);
    let kept_all = |r: &Value| resident(r).iter().all(|(_, h)| *h == hot(r));
    let remedy = cell("fixed-lookup-mark");
    let (all, lost): (Vec<&Value>, Vec<&Value>) = remedy.iter().partition(|r| kept_all(r));
    assert_eq!(
        (all.len(), lost.len()),
        (1, 1),
        "one run kept all, one lost"
    );
    let samples = resident(lost[0]);
    assert_eq!(
        samples[0].1,
        hot(lost[0]),
        "the loss came after the first sample"
    );
    let (lo, hi) = range(samples[1..].iter().map(|x| x.1));
    assert!(cell("fixed").iter().all(|r| kept_all(r)));
    let fix_hot = range(cell("fixed").iter().map(|r| hot(r)));
    assert_eq!(fix_hot.0, fix_hot.1);
    let scans = |r: &Value| num(&r["outcome"]["scan_loop"]["residency_scans_per_s"]);
    for said in [
        format!(
            "one run of two lost {:.0}% of the hot set",
            100.0 * (1.0 - scan_outcome(lost[0]).hot_kept().unwrap())
        ),
        format!(
            "lost {:.0} of {} between its first and second sample ({:.0} s into the scans) and \
             then held {} to {} to the end",
            samples[0].1 - samples[1].1,
            thousands(samples[0].1),
            samples[1].0,
            thousands(lo),
            thousands(hi)
        ),
        format!("the fix kept all {} in both runs", thousands(fix_hot.0)),
        fourth_form_kept(),
        // the rates of the run that lost pages and of the other, in that order
        format!(
            "(at one run's {} scans a second) and about half of it (at the other's {})",
            scans(lost[0]),
            scans(all[0])
        ),
        format!(
            "{} runs, {} flagged busy, {} failed",
            s["counted_runs"], s["busy_runs"], s["failed_runs"]
        ),
    ] {
        says(report, &text, &said);
    }
    let ((hot_lo, hot_hi), scan, pool, lookups) = scan_setting(report, &s);
    assert_eq!(hot_lo, hot_hi);
    says(
        report,
        &text,
        &format!(
            "a hot table of {} pages read by point lookups at {lookups} a second while one \
             connection scans a table of about {scan} pages in a loop, a 64 MiB pool of {pool} pages",
            thousands(hot_hi)
        ),
    );
}

/// A small count as the NOTES spell it.
fn spelled(n: f64) -> &'static str {
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    words[n as usize]
}

/// The NOTES of reports/trace-fixed-lookup-boundary-10.11.18 beyond what
/// readme_figures holds: the runs and turnovers, what each trace cost and
/// by how much the second question fails, the new sublist's moves and the
/// pages moved, and the replays' lazy column and differences.
#[test]
fn the_remedys_trace_notes_quote_their_moves_pages_and_lazy_replays() {
    let report = "trace-fixed-lookup-boundary-10.11.18";
    let (s, text) = (summary(report), notes(report));
    let w = "pareto-fast";
    let hit = |v: &str| med(&s, None, w, v, "hit_ratio_pct");
    let (base, remedy) = ("traced-lookup-boundary", "traced-fixed-lookup-boundary");
    // each trace's cost, to the tenth the NOTES round it to
    let cost = [("base", base), ("fixed-lookup-boundary", remedy)]
        .map(|(plain, traced)| format!("{:.1}", hit(plain) - hit(traced)));
    assert_eq!(cost[0], cost[1]);
    // the second question's shortfall, from the printed hit ratios
    let short =
        printed(hit("fixed-lookup-boundary"), 2) - printed(hit(remedy), 2) - margin_of(&s, remedy);
    let (tlo, thi) = range(
        rows(&s)
            .iter()
            .map(|r| num(&r["median"]["pool_turnover_s"])),
    );
    let stays = |v: &str| {
        s["stays"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["variant"] == v)
            .unwrap()
            .clone()
    };
    let moves = |v: &str| num(&stays(v)["moves_per_k"]);
    let pages = |v: &str| thousands(num(&stays(v)["pages_moved"]));
    for said in [
        format!(
            "{} runs counted, {} busy, {} failed",
            s["counted_runs"], s["busy_runs"], s["failed_runs"]
        ),
        format!("(turnover {tlo:.2} to {thi:.2} s)"),
        format!("each trace cost about {} points in this run", cost[0]),
        format!("so the second question falls short by {short:.2}"),
        format!(
            "The new sublist moves {} times less under the remedy",
            spelled((moves(base) / moves(remedy)).round())
        ),
        format!(
            "over about as many pages ({} and {})",
            pages(base),
            pages(remedy)
        ),
    ] {
        says(report, &text, &said);
    }
    trace_replays_quote(report, &s, &text);
}

/// The replays' lazy column (readme_figures holds the first two), and the
/// differences between the streams, worked from the printed figures.
fn trace_replays_quote(report: &str, s: &Value, text: &str) {
    let replay = |v: &str, k: &str| {
        let r = s["model_replay"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["variant"] == v)
            .unwrap();
        printed(num(&r[k]), 2)
    };
    let (base, remedy) = ("traced-lookup-boundary", "traced-fixed-lookup-boundary");
    for (v, lead) in [
        (base, "| base's (`traced-lookup-boundary`) |"),
        (remedy, "| the remedy's (`traced-fixed-lookup-boundary`) |"),
    ] {
        let cells = row_cells(text, lead, 4);
        assert_eq!(
            cells[3],
            format!("{:.2}", replay(v, "lazy_hit_ratio_pct")),
            "{v}"
        );
    }
    let differ = |k: &str| replay(base, k) - replay(remedy, k);
    says(
        report,
        text,
        &format!(
            "The servers differ by {:.2} on their traces; eager replayed on the two streams differs by {:.2}",
            differ("trace_hit_ratio_pct"),
            differ("eager_hit_ratio_pct")
        ),
    );
}

/// One function's shift under fixed against base on one workload.
fn shift<'a>(s: &'a Value, workload: &str, function: &str) -> &'a Value {
    s["function_shifts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| {
            f["variant"] == "fixed"
                && f["workload"] == workload
                && f["function"].as_str().unwrap().starts_with(function)
        })
        .unwrap_or_else(|| panic!("no shift of {function} on {workload}"))
}

/// Base's own instructions a query in a function fixed no longer runs on
/// `workload`, with thousands separators.
fn gone_under_fixed(s: &Value, workload: &str, function: &str) -> String {
    let r = shift(s, workload, function);
    assert!(
        r["per_query"].is_null(),
        "{function} still runs under fixed"
    );
    thousands(num(&r["baseline_per_query"]))
}

/// How a function's own instructions a query moved under fixed.
fn moved_under_fixed(s: &Value, workload: &str, function: &str) -> String {
    signed_thousands(num(&shift(s, workload, function)["change"]))
}

/// What `buf_page_t::touch()`, which base does not have, costs fixed a
/// query on `workload`.
fn touch_under_fixed(s: &Value, workload: &str) -> String {
    let touch = shift(s, workload, "buf_page_t::touch(");
    assert!(touch["baseline_per_query"].is_null(), "base has no touch()");
    thousands(num(&touch["per_query"]))
}

/// `-798`: a signed count with thousands separators.
fn signed_thousands(x: f64) -> String {
    if x.round() < 0.0 {
        format!("-{}", thousands(-x))
    } else {
        thousands(x)
    }
}

/// The NOTES of reports/cost-10.11.18 on where the cost goes: what fixed
/// saves a query, each function of base's promotion path that is gone,
/// the mutex's shift and what the flag costs instead (points-covered-pk,
/// the summary's `function_shifts`), and the timed QPS beside it.
#[test]
fn the_first_cost_notes_quote_the_functions_whose_cost_moved() {
    let report = "cost-10.11.18";
    let (s, text) = (summary(report), notes(report));
    let pk = "points-covered-pk";
    let gone = |f: &str| gone_under_fixed(&s, pk, f);
    let moved = |f: &str| moved_under_fixed(&s, pk, f);
    let ipq = |v: &str| num(&cost_row(&s, pk, v)["instructions_per_query"]);
    let less = ["points-covered-pk", "random-points"]
        .map(|w| format!("{:.1}", -cost_change(cost_row(&s, w, "fixed"))));
    assert_eq!(less[0], less[1]);
    let timed = range(
        rows(&s)
            .iter()
            .filter(|r| r["workload"] == pk || r["workload"] == "random-points")
            .map(|r| (num(&r["median"]["qps"]) / 10.0).round() * 10.0),
    );
    for said in [
        // "about": the saving to the hundred
        format!(
            "fixed saves about {} instructions per query",
            thousands(((ipq("base") - ipq("fixed")) / 100.0).round() * 100.0)
        ),
        format!(
            "`buf_page_make_young_if_needed()` {} a query, `buf_LRU_old_adjust_len()` {}, \
             `buf_LRU_add_block()` {}, `buf_LRU_remove_block()` {}, the promotion's cold clone {}, \
             and the mutex itself (`pthread_mutex_lock` {}, `psi_mutex_lock` {}) go; fixed pays {} \
             a query in `buf_page_t::touch()`",
            gone("buf_page_make_young_if_needed("),
            gone("buf_LRU_old_adjust_len("),
            gone("buf_LRU_add_block("),
            gone("buf_LRU_remove_block("),
            gone("buf_page_make_young(buf_page_t*) [clone .cold]"),
            moved("pthread_mutex_lock@"),
            moved("psi_mutex_lock"),
            touch_under_fixed(&s, pk)
        ),
        format!(
            "counted in instructions it does {}% less on the same workloads",
            less[0]
        ),
        format!(
            "against {} to {} timed",
            thousands(timed.0),
            thousands(timed.1)
        ),
    ] {
        says(report, &text, &said);
    }
}

/// One committed mtr run (`reports/mtr-<tree>/<variant>.json`).
fn mtr_run(tree: &str, variant: &str) -> Value {
    let path = root()
        .join("reports")
        .join(format!("mtr-{tree}"))
        .join(format!("{variant}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The NOTES of reports/hit-ratio-turnover quote other reports: the
/// remedy's mutex (mechanism-remedy), the hot sets under the scan
/// (scan-resistance-remedy-10.11.18 and the fix's in
/// scan-resistance-10.11.18), old_blocks_time 0 (io-bound-threshold),
/// the second remedy's hot set (scan-resistance-lookup-10.11.18); and
/// their own turnover span and read-ahead.
#[test]
fn the_turnover_notes_quote_the_reports_they_cite() {
    let report = "hit-ratio-turnover";
    let (s, text) = (summary(report), notes(report));
    let mechanism = summary("mechanism-remedy");
    let mutex = |t: &str, v: &str| {
        med(
            &mechanism,
            Some(t),
            "points-covered-pk",
            v,
            "buf_pool_mutex_per_query",
        )
    };
    let remedy_mutex =
        ["10.11.18", "11.8.6"].map(|t| format!("{:.2}", mutex(t, "fixed-fine-young")));
    assert_eq!(remedy_mutex[0], remedy_mutex[1]);
    let (remedy, first) = (
        summary("scan-resistance-remedy-10.11.18"),
        summary("scan-resistance-10.11.18"),
    );
    let threshold = summary("io-bound-threshold-10.11.18");
    let obt = |v: &str| med(&threshold, None, "read-only-pareto", v, "hit_ratio_pct");
    let all = |k: &str| range(rows(&s).iter().map(|r| num(&r["median"][k])));
    let (tlo, thi) = all("pool_turnover_s");
    let (alo, ahi) = all("read_ahead_per_query");
    for said in [
        format!(
            "it takes `buf_pool.mutex` {} times a query on both series, where base takes it {:.2} \
             and {:.2} times",
            remedy_mutex[0],
            mutex("10.11.18", "base"),
            mutex("11.8.6", "base")
        ),
        format!(
            "(`reports/scan-resistance-remedy-10.11.18/`: {:.1}% against the fix's {:.1}% at",
            kept(&remedy, "fixed-fine-young"),
            kept(&first, "fixed")
        ),
        format!(
            "it keeps {:.1}% of the hot set under a looping scan at `innodb_lru_scan_depth=1024` \
             where the fix keeps {:.1}% (base {:.1}%), and {:.1}% at 128 (the fix {}, base {:.1}%)",
            kept(&remedy, "fixed-fine-young"),
            kept(&first, "fixed"),
            kept(&remedy, "base"),
            kept(&remedy, "fixed-fine-young-d128"),
            whole_pct(kept(&first, "fixed-d128")),
            kept(&remedy, "base-d128")
        ),
        format!(
            "`: {:.2}% against base's {:.2}% and the fix's {:.2}%)",
            obt("fixed-obt0"),
            obt("base"),
            obt("fixed")
        ),
        format!(
            "and keeps {:.0}% of the hot set under the scan",
            kept(&summary("scan-resistance-lookup-10.11.18"), "fixed-lookup")
        ),
        format!("the pool turning over in {tlo:.1} to {thi:.0} s"),
        format!("(`Innodb_buffer_pool_read_ahead` {alo} to {ahi:.6} a query)"),
    ] {
        says(report, &text, &said);
    }
    turnover_mtr_quote(report, &text);
}

/// The remedy's innodb suite on both series (RelWithDebInfo, our tests
/// copied in): passed and failed, the one test that failed and the pages
/// its result shows read again.
fn turnover_mtr_quote(report: &str, text: &str) {
    let (new, old) = (
        mtr_run("11.8.6", "fixed-fine-young"),
        mtr_run("10.11.18", "fixed-fine-young"),
    );
    for run in [&new, &old] {
        assert_eq!(run["build_type"], "RelWithDebInfo");
        assert_eq!(run["suite"], "innodb");
    }
    let failed: Vec<&Value> = old["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "fail")
        .collect();
    assert_eq!(
        failed.len() as u64,
        old["totals"]["failed"].as_u64().unwrap()
    );
    // the result's diff: the expected line `-0`, then what the test read
    let tail = failed[0]["failure_tail"].as_str().unwrap();
    let diff = tail.split("catalog_pages_read_again\n").nth(1).unwrap();
    let again = diff.lines().find(|l| l.starts_with('+')).unwrap();
    let total = |run: &Value, k: &str| run["totals"][k].as_u64().unwrap();
    says(
        report,
        text,
        &format!(
            "11.8.6 {} passed, {} failed; 10.11.18 {} passed, {} failed: our own `{}`, whose table \
             used twice was not kept ({} pages read again)",
            total(&new, "passed"),
            total(&new, "failed"),
            total(&old, "passed"),
            total(&old, "failed"),
            failed[0]["name"].as_str().unwrap(),
            again.trim_start_matches('+')
        ),
    );
}

/// The runs of the mechanism reports of the remedy's forms, and for the
/// third form which revision ran which series (readme_figures holds
/// their mutex figures; reports/mechanism-remedy's runs are held above).
#[test]
fn the_mechanism_notes_quote_their_run_counts() {
    for (report, counted) in [
        ("mechanism-lookup", ""),
        ("mechanism-lookup-boundary", " counted"),
        ("mechanism-looked-up", " counted"),
        ("mechanism-lookup-mark", " counted"),
    ] {
        let (s, text, runs) = (summary(report), notes(report), runs(report));
        // every run file is one cell's one run, each counted
        assert_eq!(runs.len() as u64, s["counted_runs"].as_u64().unwrap());
        assert!(rows(&s).iter().all(|r| r["runs"] == 1), "{report}");
        says(
            report,
            &text,
            &format!(
                "{} runs{counted}, {} flagged busy, {} failed",
                s["counted_runs"], s["busy_runs"], s["failed_runs"]
            ),
        );
    }
    let report = "mechanism-lookup-boundary";
    let (text, runs) = (notes(report), runs(report));
    let revision = |tree: &str| {
        let revs: Vec<&str> = runs
            .iter()
            .filter(|r| r["tree"] == tree)
            .map(|r| r["tool_revision"].as_str().unwrap())
            .collect();
        assert!(revs.iter().all(|r| *r == revs[0]), "{tree}");
        revs[0][..7].to_string()
    };
    says(
        report,
        &text,
        &format!(
            "the 10.11.18 cells from `{}` (a copy of the matrix without the 11.8.6 tree;",
            revision("10.11.18")
        ),
    );
    says(
        report,
        &text,
        &format!(
            "then the whole matrix from `{}` into the same results, which ran only the 11.8.6 cells",
            revision("11.8.6")
        ),
    );
}
