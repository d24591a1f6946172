//! Reading committed reports for the tests that hold prose to figures
//! (`readme_figures`, `notes_figures`): the repository, a report's
//! summary.json, and the rows, verdicts and cost rows in it.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `reports/<report>/summary.json`.
pub fn summary(report: &str) -> Value {
    let path = root().join("reports").join(report).join("summary.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Text on one line as a reader sees it: prose wraps sentences anywhere,
/// and a generated figure shows its rendered text, not its template.
pub fn one_line(text: &str) -> String {
    prose(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` with every generated figure's markers taken out
/// (`report::figures`): its rendered text stays.
pub fn prose(text: &str) -> String {
    use xtask::report::figures::{END, OPEN};
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(close) = after.find(" -->") else {
            break;
        };
        rest = &after[close + " -->".len()..];
        if let Some(end) = rest.find(END) {
            out.push_str(&rest[..end]);
            rest = &rest[end + END.len()..];
        }
    }
    out.push_str(rest);
    out
}

/// summary.json's rows: a list (schema 1, `reports/series/`) or `rows`.
pub fn rows(s: &Value) -> &Vec<Value> {
    s.as_array()
        .or_else(|| s["rows"].as_array())
        .expect("summary rows")
}

/// The verdicts of summary.json's questions, in their order.
pub fn verdicts(s: &Value) -> Vec<&str> {
    s["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["verdict"].as_str().unwrap())
        .collect()
}

/// A row's QPS change against its baseline, in percent.
pub fn change(r: &Value) -> f64 {
    r["qps_vs_base"]["change_pct"].as_f64().unwrap()
}

/// `-9.9% to +13.5%`: the interval of a row's QPS change.
pub fn interval(r: &Value) -> String {
    let i = &r["qps_vs_base"]["ratio_interval"];
    format!(
        "{:+.1}% to {:+.1}%",
        (i["lo"].as_f64().unwrap() - 1.0) * 100.0,
        (i["hi"].as_f64().unwrap() - 1.0) * 100.0
    )
}

/// A cost row of summary.json: one cell's cost passes.
pub fn cost_row<'a>(s: &'a Value, workload: &str, variant: &str) -> &'a Value {
    s["cost"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["workload"] == workload && r["variant"] == variant)
        .unwrap_or_else(|| panic!("no cost row {workload} {variant}"))
}

/// A cost row's change of instructions per query against its baseline, in
/// percent.
pub fn cost_change(r: &Value) -> f64 {
    (r["ratio"].as_f64().unwrap() - 1.0) * 100.0
}

/// The verdict of the question whose name holds `words`.
pub fn verdict_of<'a>(s: &'a Value, words: &str) -> &'a Value {
    s["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["question"].as_str().unwrap().contains(words))
        .unwrap_or_else(|| panic!("no question with `{words}`"))
}

/// A verdict's cell of one workload (its numbers: estimate, interval,
/// answer, runs to decide).
pub fn verdict_cell<'a>(verdict: &'a Value, workload: &str) -> &'a Value {
    verdict["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["workload"] == workload)
        .unwrap_or_else(|| panic!("no cell of {workload} in {}", verdict["question"]))
}

/// `-0.9% to +1.4%`: the interval of a no-slower verdict's change for one
/// workload, as the report prints it.
pub fn detail_interval(verdict: &Value, workload: &str) -> String {
    let i = &verdict_cell(verdict, workload)["interval"];
    format!(
        "{:+.1}% to {:+.1}%",
        i["lo"].as_f64().unwrap(),
        i["hi"].as_f64().unwrap()
    )
}
