//! The committed mtr report is a function of its result files: rendered
//! again from reports/mtr-10.11.18/*.json it is byte for byte the committed
//! report.md and report.jira, so a change of the mtr report or of the
//! document writer that alters them shows here. `UPDATE_SNAPSHOTS=1`
//! rewrites them, as `cargo xtask mtr report reports/mtr-10.11.18` does.

mod documents;

use documents::{check_jira_structure, check_snapshot};
use std::path::Path;
use xtask::mtr::report;

#[test]
fn the_committed_mtr_report_is_a_function_of_its_results() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/mtr-10.11.18");
    let runs = report::read_runs(&dir).unwrap();
    let labels: Vec<String> = runs.iter().map(|r| r.label()).collect();
    assert_eq!(labels, ["base", "fixed", "fixed (Debug)"], "base first");
    let files = report::render(&runs);
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["report.md", "report.jira"]);
    for (name, text) in &files {
        check_snapshot(text, &dir.join(name));
    }
    let get = |name: &str| &files.iter().find(|(n, _)| n == name).unwrap().1;
    let (md, jira) = (get("report.md"), get("report.jira"));
    check_jira_structure(jira);
    // the counts of the runs table are right-aligned where Markdown can
    assert!(
        md.contains(
            "| variant | build | passed | failed | skipped | disabled | flaky | wall | mtr says |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---|\n\
             | base | `95005f779829170c` RelWithDebInfo | 459 | 0 | 148 | 0 | 0 | 8m14s |"
        ),
        "{md}"
    );
    // the skipped tests by reason: a list inside the run's list, in both
    assert!(
        md.contains(
            "- skipped, by reason:\n  - 101: Requires debug build\n  - 22: Test needs --big-test\n"
        ),
        "{md}"
    );
    assert!(
        jira.contains("* skipped, by reason:\n** 101: Requires debug build\n** 22: Test needs \\-\\-big-test\n"),
        "{jira}"
    );
    assert!(
        jira.contains("h3. fixed (Debug): tests that pass on base and not on fixed (Debug)\n"),
        "{jira}"
    );
}
