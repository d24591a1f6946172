//! Every table a report prints holds the figures of the summary.json it
//! was rendered with: each row of the results, comparison, relative and
//! scan-resistance tables of report.md is found in summary.json and each
//! cell is that figure, formatted here (not by the report's own helpers),
//! and each verdict line is the JSON's verdict. So a script reading
//! summary.json reads what the report says. No server.

use serde_json::Value;
use std::path::{Path, PathBuf};
use xtask::dims::{Metric, METRICS};

fn dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    vec![
        root.join("tests/fixtures/mdev-mini"),
        root.join("tests/fixtures/smoke-10.11.18"),
        root.join("../reports/mdev-37992-10.11.18"),
        root.join("../reports/smoke-10.11.18"),
        root.join("../reports/scan-resistance-10.11.18"),
        root.join("../reports/smoke-11.8.6"),
        root.join("../reports/release-11.8-on-11.8.6"),
        root.join("../reports/across-releases"),
        root.join("../reports/io-bound-10.11.18"),
    ]
}

/// The Markdown tables of a document: header cells and rows of cells.
fn tables(md: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let split = |line: &str| -> Vec<String> {
        line.trim()
            .trim_start_matches('|')
            .trim_end_matches('|')
            .split(" | ")
            .map(|c| c.trim().replace("\\|", "|"))
            .collect()
    };
    let lines: Vec<&str> = md.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        if lines[i].starts_with("| ") && lines[i + 1].starts_with("|---") {
            let header = split(lines[i]);
            let mut rows = Vec::new();
            i += 2;
            while i < lines.len() && lines[i].starts_with("| ") {
                rows.push(split(lines[i]));
                i += 1;
            }
            out.push((header, rows));
        } else {
            i += 1;
        }
    }
    out
}

fn fixed(v: &Value, digits: usize) -> String {
    v.as_f64()
        .map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "n/a".into())
}

fn percent(share: f64) -> String {
    let p = share * 100.0;
    if (p - p.round()).abs() < 0.05 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

fn method_words(method: &Value) -> &'static str {
    match method.as_str().unwrap() {
        "order-statistics" => "order statistics",
        "hodges-lehmann" => "Hodges-Lehmann, exact",
        "bootstrap" => "bootstrap, nominal",
        "paired-hodges-lehmann" => "paired Hodges-Lehmann, exact",
        "paired-bootstrap" => "paired bootstrap, nominal",
        other => panic!("unknown interval method {other}"),
    }
}

fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column `{name}` in {header:?}"))
}

fn key_matches(row: &Value, tree: &str, workload: &str, threads: &str, variant: &str) -> bool {
    row["tree"] == tree
        && row["workload"] == workload
        && row["threads"].as_u64().map(|t| t.to_string()).as_deref() == Some(threads)
        && row["variant"] == variant
}

fn check_results_table(header: &[String], rows: &[Vec<String>], s: &Value) {
    for r in rows {
        let at = format!("results row {r:?}");
        let j = s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| key_matches(j, &r[0], &r[1], &r[2], &r[3]))
            .unwrap_or_else(|| panic!("{at}: not in summary.json"));
        let runs = &r[column(header, "runs")];
        assert!(runs.starts_with(&j["runs"].to_string()), "{at}");
        assert_eq!(
            r[column(header, "QPS")],
            fixed(&j["median"]["qps"], 0),
            "{at}"
        );
        let i = &j["qps_interval"];
        let interval = r[column(
            header,
            "QPS interval of the median (order statistics, coverage)",
        )]
        .clone();
        if i.is_null() {
            assert_eq!(interval, "n/a", "{at}");
        } else {
            assert_eq!(i["method"], "order-statistics", "{at}");
            let want = format!(
                "{}-{} ({})",
                fixed(&i["lo"], 0),
                fixed(&i["hi"], 0),
                percent(i["coverage"].as_f64().unwrap())
            );
            assert_eq!(interval, want, "{at}");
        }
        let min_max = format!(
            "{}-{}",
            fixed(&j["qps"]["min"], 0),
            fixed(&j["qps"]["max"], 0)
        );
        let printed = &r[column(header, "QPS min-max")];
        assert!(printed == &min_max || printed == "n/a", "{at}: {min_max}");
        for info in METRICS.iter() {
            let Some((name, digits)) = info.column else {
                continue;
            };
            if info.only_when_pages_read && !header.iter().any(|h| h == name) {
                // left out only where no row read a page into the pool
                for row in s["rows"].as_array().unwrap() {
                    let read = &row["median"]["pages_read_per_query"];
                    assert!(
                        read.is_null() || read.as_f64() == Some(0.0),
                        "{at}: `{name}` left out, but a row read pages: {row}"
                    );
                }
                continue;
            }
            if info.only_when_measured && !header.iter().any(|h| h == name) {
                // left out only where no row has it
                for row in s["rows"].as_array().unwrap() {
                    let v = &row["median"][info.name];
                    assert!(
                        v.is_null(),
                        "{at}: `{name}` left out, but a row has it: {row}"
                    );
                }
                continue;
            }
            let value = fixed(&j["median"][info.name], digits);
            // the fix's pages made young are said for what they count
            let want = match (
                info.metric,
                j["pages_made_young_counts"].as_str(),
                j["sweeps"].as_str(),
            ) {
                (Metric::PagesMadeYoungPerQuery, Some("sweep-moves"), Some("none-ran")) => {
                    "no sweep ran".to_string()
                }
                (Metric::PagesMadeYoungPerQuery, Some("sweep-moves"), Some("may-have-run")) => {
                    format!("{value} (sweep moves)")
                }
                (Metric::PagesMadeYoungPerQuery, Some("sweep-moves"), _) => {
                    format!("{value} (sweep moves; sweeps not counted)")
                }
                _ => value,
            };
            assert_eq!(r[column(header, name)], want, "{at}: {name}");
        }
    }
}

fn check_comparison_table(header: &[String], rows: &[Vec<String>], s: &Value) {
    for r in rows {
        let at = format!("comparison row {r:?}");
        let j = s["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|j| key_matches(j, &r[0], &r[1], &r[2], &r[3]))
            .unwrap_or_else(|| panic!("{at}: not in summary.json"));
        let c = &j["qps_vs_base"];
        assert_eq!(
            r[column(header, "against")],
            c["against"].as_str().unwrap(),
            "{at}"
        );
        assert_eq!(
            r[column(header, "runs")],
            format!("{} vs {}", c["runs"], c["base_runs"]),
            "{at}"
        );
        let change = c["change_pct"]
            .as_f64()
            .map(|x| format!("{x:+.1}%"))
            .unwrap_or_else(|| "n/a".into());
        assert_eq!(
            r[column(
                header,
                "change (paired estimate where paired, else of the medians)"
            )],
            change,
            "{at}"
        );
        let i = &c["ratio_interval"];
        let want = if i.is_null() {
            "n/a".to_string()
        } else {
            format!(
                "{:+.1}% to {:+.1}% ({} {})",
                (i["lo"].as_f64().unwrap() - 1.0) * 100.0,
                (i["hi"].as_f64().unwrap() - 1.0) * 100.0,
                method_words(&i["method"]),
                percent(i["coverage"].as_f64().unwrap())
            )
        };
        assert_eq!(
            r[column(header, "interval of the change (method, coverage)")],
            want,
            "{at}"
        );
        assert_eq!(r[column(header, "p")], fixed(&c["p_value"], 3), "{at}");
        assert_eq!(
            r[column(header, "smallest possible p")],
            fixed(&c["min_possible_p"], 3),
            "{at}"
        );
        let noise = if c["control"] == true {
            format!(
                "measured here: {:.1}%",
                c["change_pct"].as_f64().unwrap().abs()
            )
        } else {
            c["noise_floor_pct"]
                .as_f64()
                .map(|n| format!("{n:.1}%"))
                .unwrap_or_else(|| "not measured".into())
        };
        assert_eq!(r[column(header, "noise floor")], noise, "{at}");
        let words = match c["verdict"].as_str().unwrap() {
            "higher" => "higher",
            "lower" => "lower",
            "no-change" => "no change shown",
            "undecided" => "undecided",
            other => panic!("{at}: decision {other}"),
        };
        assert_eq!(
            r[column(header, "decision")],
            format!("{words}: {}", c["why"].as_str().unwrap()),
            "{at}"
        );
    }
}

fn check_relative_table(header: &[String], rows: &[Vec<String>], s: &Value) {
    let json = s["relative"].as_array().unwrap();
    assert_eq!(rows.len(), json.len(), "every relative row is in the JSON");
    for (r, j) in rows.iter().zip(json) {
        let at = format!("relative row {r:?}");
        assert_eq!(r[0], j["tree"].as_str().unwrap(), "{at}");
        match j["workload"].as_str() {
            Some(w) => {
                assert_eq!(
                    (r[1].as_str(), r[2].clone()),
                    (w, j["threads"].to_string()),
                    "{at}"
                )
            }
            None => assert!(r[1].starts_with("**geometric mean** of "), "{at}"),
        }
        assert_eq!(r[3], j["variant"].as_str().unwrap(), "{at}");
        assert_eq!(r[4], j["against"].as_str().unwrap(), "{at}");
        for info in METRICS.iter() {
            let Some(name) = info.relative else {
                continue;
            };
            assert_eq!(
                r[column(header, name)],
                fixed(&j["ratios"][info.name], 2),
                "{at}: {name}"
            );
        }
    }
}

fn check_scan_table(header: &[String], rows: &[Vec<String>], s: &Value) {
    let json = s["scan_resistance"].as_array().unwrap();
    assert_eq!(rows.len(), json.len(), "every scan row is in the JSON");
    for (r, j) in rows.iter().zip(json) {
        let at = format!("scan row {r:?}");
        assert_eq!(
            r[column(header, "tree")],
            j["tree"].as_str().unwrap(),
            "{at}"
        );
        assert_eq!(
            r[column(header, "variant")],
            j["variant"].as_str().unwrap(),
            "{at}"
        );
        assert_eq!(
            r[column(header, "settings")],
            j["settings"].as_str().unwrap(),
            "{at}"
        );
        assert_eq!(r[column(header, "runs")], j["runs"].to_string(), "{at}");
        for (name, key, digits) in [
            ("hot kept %", "kept_pct", 1),
            ("model %", "model_kept_pct", 1),
            ("scan young", "scan_young", 0),
            ("model scan young", "model_scan_young", 0),
            ("scan young / s", "scan_young_per_s", 1),
            ("model scan young / s", "model_scan_young_per_s", 1),
            ("hot lookups/s", "hot_lookups_per_s", 0),
            ("scans/s", "scans_per_s", 2),
        ] {
            assert_eq!(
                r[column(header, name)],
                fixed(&j[key], digits),
                "{at}: {name}"
            );
        }
        let diff = j["model_minus_measured_pp"]
            .as_f64()
            .map(|d| format!("{d:+.1}"))
            .unwrap_or_else(|| "n/a".into());
        assert_eq!(r[column(header, "model - measured (points)")], diff, "{at}");
    }
}

/// Each verdict's bullet says its answer and question, and for every
/// cell the interval summary.json holds, in the verdict's unit.
fn check_verdict_lines(md: &str, s: &Value) {
    for v in s["verdicts"].as_array().unwrap() {
        let head = format!("- **{}** by ", v["verdict"].as_str().unwrap());
        let question = format!(": {} (", v["question"].as_str().unwrap());
        let line = md
            .lines()
            .find(|l| l.starts_with(&head) && l.contains(&question))
            .unwrap_or_else(|| panic!("no verdict line `{head}…{question}`"));
        let cells = v["cells"].as_array().unwrap();
        for c in cells {
            let place = format!(
                "{} {} {}t: ",
                c["tree"].as_str().unwrap(),
                c["workload"].as_str().unwrap(),
                c["threads"]
            );
            assert!(line.contains(&place), "{place} not in `{line}`");
            let i = &c["interval"];
            if i.is_null() {
                continue;
            }
            let (lo, hi) = (i["lo"].as_f64().unwrap(), i["hi"].as_f64().unwrap());
            let printed = match v["unit"].as_str().unwrap() {
                "change-pct" => format!("{lo:+.1}% to {hi:+.1}%"),
                "points" => format!("{lo:+.2} points to {hi:+.2} points"),
                unit => panic!("an interval in unit {unit}"),
            };
            assert!(line.contains(&printed), "{printed} not in `{line}`");
        }
        if cells.is_empty() {
            assert!(line.contains("no results of variant"), "{line}");
        }
    }
}

#[test]
fn every_report_table_holds_the_figures_of_its_summary_json() {
    for dir in dirs() {
        let files = xtask::report::render_dir(&dir).unwrap();
        let get = |name: &str| &files.iter().find(|(n, _)| n == name).unwrap().1;
        let md = get("report.md");
        let s: Value = serde_json::from_str(get("summary.json")).unwrap();
        let mut seen = Vec::new();
        for (header, rows) in tables(md) {
            let kind = if header
                .iter()
                .any(|h| h.starts_with("QPS interval of the median"))
            {
                check_results_table(&header, &rows, &s);
                "results"
            } else if header
                .iter()
                .any(|h| h == "interval of the change (method, coverage)")
            {
                check_comparison_table(&header, &rows, &s);
                "comparison"
            } else if header.iter().any(|h| h == "server CPU / query") {
                check_relative_table(&header, &rows, &s);
                "relative"
            } else if header.iter().any(|h| h == "hot kept %") {
                check_scan_table(&header, &rows, &s);
                "scan"
            } else {
                continue;
            };
            seen.push(kind);
        }
        check_verdict_lines(md, &s);
        assert!(
            ["results", "comparison", "relative"]
                .iter()
                .all(|k| seen.contains(k)),
            "{}: tables checked {seen:?}",
            dir.display()
        );
        if !s["scan_resistance"].as_array().unwrap().is_empty() {
            assert!(seen.contains(&"scan"), "{}", dir.display());
        }
    }
}
