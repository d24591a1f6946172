//! The committed mtr reports are functions of their result files: rendered
//! again from reports/mtr-<version>/*.json each is byte for byte the
//! committed report.md and Jira comments, so a change of the mtr report or
//! of the document writer that alters them shows here; `cargo xtask mtr
//! report reports/mtr-<version>` renders them again.

mod documents;

use documents::{check_jira_structure, check_snapshot};
use std::path::Path;
use xtask::mtr::report;

/// The runs of both series' reports, base first.
const LABELS: [&str; 7] = [
    "base",
    "fixed",
    "fixed (Debug)",
    "fixed-fine-young",
    "fixed-looked-up",
    "fixed-lookup",
    "fixed-lookup-mark",
];

/// Renders the report of `reports/<name>` again, checks it against the
/// committed files and their Jira structure, and returns its files.
fn rendered_again(name: &str, labels: &[&str], names: &[&str]) -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../reports")
        .join(name);
    let runs = report::read_runs(&dir).unwrap();
    let found: Vec<String> = runs.iter().map(|r| r.label()).collect();
    assert_eq!(found, labels, "{name}: base first");
    let files = report::render(&runs);
    let found: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(found, names, "{name}");
    for (file, text) in &files {
        check_snapshot(text, &dir.join(file));
    }
    for (_, part) in &files[1..] {
        check_jira_structure(part);
        assert!(part.chars().count() <= JIRA_COMMENT_LIMIT, "{}", part.len());
    }
    files
}

#[test]
fn the_committed_mtr_report_of_11_8_6_is_a_function_of_its_results() {
    // the tests only a debug build runs are counted, not listed, so that
    // six runs of the whole suite fit in one comment
    // and the fifth form's Debug run
    let mut labels = LABELS.to_vec();
    labels.push("fixed-lookup-mark (Debug)");
    let files = rendered_again("mtr-11.8.6", &labels, &["report.md", "report.jira"]);
    assert!(
        files[1].1.contains(
            "* 83 tests: skipped: Requires debug build on base, fixed, fixed-fine-young, \
             fixed-looked-up, fixed-lookup, fixed-lookup-mark; pass on fixed (Debug), \
             fixed-lookup-mark (Debug)\n"
        ),
        "{}",
        files[1].1
    );
    // report.md lists each of them
    assert!(
        files[0].1.contains("| `innodb.alloc_fail` |"),
        "{}",
        files[0].1
    );
}

#[test]
fn the_committed_mtr_report_is_a_function_of_its_results() {
    // the fixed-looked-up and fixed-lookup-mark ports' Debug runs too
    let mut labels = LABELS.to_vec();
    labels.insert(5, "fixed-looked-up (Debug)");
    labels.push("fixed-lookup-mark (Debug)");
    let files = rendered_again("mtr-10.11.18", &labels, &["report.md", "report.jira"]);
    let md = &files[0].1;
    for (_, part) in &files[1..] {
        check_jira_structure(part);
        assert!(part.chars().count() <= JIRA_COMMENT_LIMIT, "{}", part.len());
    }
    let jira: String = files[1..].iter().map(|(_, t)| t.as_str()).collect();
    // the counts of the runs table are right-aligned where Markdown can
    assert!(
        md.contains(
            "| variant | build | passed | failed | skipped | disabled | flaky | wall | mtr says |\n\
             |---|---|---:|---:|---:|---:|---:|---:|---|\n\
             | base | `95005f779829170c` RelWithDebInfo | 459 | 0 | 148 | 0 | 0 |"
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

/// The longest comment Jira accepts.
const JIRA_COMMENT_LIMIT: usize = 32_767;

/// Every committed Jira text (`report.jira` and the further comments
/// `report-2.jira` and on) fits in one comment, so that each can be pasted
/// into the MDEV as it is.
#[test]
fn every_committed_jira_report_fits_in_a_comment() {
    let reports = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports");
    let mut seen = 0;
    let jira_files = std::fs::read_dir(&reports)
        .unwrap()
        .filter_map(|d| std::fs::read_dir(d.unwrap().path()).ok())
        .flatten()
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jira"));
    for path in jira_files {
        let text = std::fs::read_to_string(&path).unwrap();
        seen += 1;
        let n = text.chars().count();
        assert!(
            n <= JIRA_COMMENT_LIMIT,
            "{}: {n} characters",
            path.display()
        );
    }
    assert!(
        seen >= 4,
        "only {seen} report.jira files under {}",
        reports.display()
    );
}
