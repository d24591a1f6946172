//! The report of a directory of mtr results, in Markdown and in Jira
//! markup (report/doc.rs renders both from the same blocks): a pure
//! function of the result files, so `cargo xtask mtr report DIR` rebuilds
//! it.

use super::parse::{Status, TestResult};
use super::MtrRun;
use crate::record::BuildType;
use crate::report::doc::{self, Block};
use crate::util::{human_duration, write_atomic};
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Every mtr result (`*.json`) directly in `dir`, base first, then by
/// variant and build type.
pub fn read_runs(dir: &Path) -> Result<Vec<MtrRun>> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut runs = files
        .iter()
        .map(|f| {
            let text = fs::read_to_string(f)?;
            serde_json::from_str::<MtrRun>(&text)
                .with_context(|| format!("{} is not an mtr result", f.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    runs.sort_by_key(|r| {
        (
            !is_base(r),
            r.variant.clone(),
            r.build_type != BuildType::default(),
        )
    });
    Ok(runs)
}

/// The run others are compared with: base, the default build type.
fn is_base(r: &MtrRun) -> bool {
    r.variant == "base" && r.build_type == BuildType::default()
}

/// The report's files: `report.md`, and `report.jira` to paste into an
/// MDEV, rendered from the same blocks; a Jira text longer than one
/// comment is cut at its headings into `report.jira`, `report-2.jira` and
/// on, as a matrix report's is.
pub fn render(runs: &[MtrRun]) -> Vec<(String, String)> {
    let mut files = vec![(
        "report.md".to_string(),
        doc::markdown(&blocks(runs, EveryTest::All)),
    )];
    files.extend(crate::report::jira_files(
        "report",
        &blocks(runs, EveryTest::Differing),
    ));
    files
}

/// How much of the per-test table a document carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EveryTest {
    /// every test (report.md)
    All,
    /// only the tests whose status differs between the runs: a Jira
    /// comment holds at most 32,767 characters, and the whole innodb suite
    /// on three builds is larger; report.md has the rest
    Differing,
}

/// Writes the report's files in `dir`; returns their paths.
pub fn write(dir: &Path, runs: &[MtrRun]) -> Result<Vec<PathBuf>> {
    let files = render(runs);
    crate::report::remove_stale_outputs(dir, &files)?;
    files
        .into_iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            write_atomic(&path, text.as_bytes())?;
            Ok(path)
        })
        .collect()
}

fn status_cell(t: Option<&TestResult>) -> String {
    let Some(t) = t else {
        return "not run".into();
    };
    match t.status {
        Status::Pass if t.failed_attempts > 0 => {
            format!("pass on retry ({} failed attempt(s))", t.failed_attempts)
        }
        Status::Pass => "pass".into(),
        Status::Fail => "**FAIL**".into(),
        Status::Skipped | Status::Disabled => format!(
            "{}: {}",
            if t.status == Status::Skipped {
                "skipped"
            } else {
                "disabled"
            },
            t.skip_reason.as_deref().unwrap_or("no reason given")
        ),
    }
}

fn by_key(run: &MtrRun) -> BTreeMap<String, &TestResult> {
    run.tests.iter().map(|t| (t.key(), t)).collect()
}

/// The report, in order: the hosts and revisions, the runs, each run's
/// details, the comparison with base, the failures and every test.
pub fn blocks(runs: &[MtrRun], every_test: EveryTest) -> Vec<Block> {
    let trees: Vec<&str> = dedup(runs.iter().map(|r| r.tree.as_str()));
    let mut b = vec![Block::Heading(
        1,
        format!("mtr (mysql-test-run) on {}", trees.join(", ")),
    )];
    let mut about = Vec::new();
    for host in dedup(runs.iter().map(|r| r.host.hostname.as_str())) {
        let h = &runs
            .iter()
            .find(|r| r.host.hostname == host)
            .expect("a run")
            .host;
        about.push(format!("host: `{}` ({})", h.hostname, h.label()));
    }
    for rev in dedup(runs.iter().map(|r| r.tool_revision.as_str())) {
        about.push(format!("innodb-lab revision: `{rev}`"));
    }
    about.push(
        "each run: `cargo xtask mtr`, mtr with `--force --max-test-fail=0 --parallel=<cores>`, \
         vardir on /dev/shm; a test that failed and then passed on one of mtr's retries is \
         \"pass on retry\" (counted as flaky)"
            .into(),
    );
    b.push(Block::Bullets(about));

    b.push(Block::Heading(2, "Runs".into()));
    b.push(runs_table(runs));
    for r in runs {
        b.push(Block::Heading(3, r.label()));
        b.push(Block::Bullets(run_details(r)));
    }

    comparison(&mut b, runs);
    failures(&mut b, runs);
    per_test(&mut b, runs, every_test);
    b
}

/// One row per run: its counts, right-aligned, and what mtr said.
fn runs_table(runs: &[MtrRun]) -> Block {
    let header = [
        "variant", "build", "passed", "failed", "skipped", "disabled", "flaky", "wall", "mtr says",
    ];
    let rows = runs
        .iter()
        .map(|r| {
            vec![
                r.label(),
                format!("`{}` {}", r.build.key_hash, r.build_type),
                r.totals.passed.to_string(),
                r.totals.failed.to_string(),
                r.totals.skipped.to_string(),
                r.totals.disabled.to_string(),
                r.totals.flaky.to_string(),
                human_duration(r.wall_seconds),
                match r.problem() {
                    Some(p) => format!(
                        "{}; {p}",
                        r.totals.mtr_completed.as_deref().unwrap_or("no summary")
                    ),
                    None => r.totals.mtr_completed.clone().unwrap_or_default(),
                },
            ]
        })
        .collect();
    Block::AlignedTable {
        header: header.map(String::from).to_vec(),
        // passed .. wall
        right_aligned: (2..8).collect(),
        rows,
    }
}

/// What one run was: its tree, patch, command, mtr's figures, our test
/// files and its skipped tests by reason.
fn run_details(r: &MtrRun) -> Vec<String> {
    let mut items = vec![format!("tree: `{}` ({})", r.tree_info.spec, r.tree_info.id)];
    if let Some(p) = &r.build.patch {
        items.push(format!(
            "patch: `{}` (sha256 {})",
            p.file.display(),
            &p.sha256[..16]
        ));
    }
    if !r.build.repairs_applied.is_empty() {
        items.push(format!(
            "source repairs of the {} build (`build::repair`: the tree's own patches do not compile \
             or run as one otherwise): {}",
            r.build.build_type,
            r.build
                .repairs_applied
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    items.push(format!("command: `{}`", r.command.join(" ")));
    items.push(format!(
        "MTR_BUILD_THREAD {}, {} worker(s); server restarts: {}; test time {} of mtr's {}",
        r.build_thread,
        r.parallel,
        opt(r.totals.server_restarts),
        opt(r.totals.test_seconds.map(|s| format!("{s:.1} s"))),
        opt(r.totals.mtr_wall_seconds.map(|s| format!("{s:.0} s"))),
    ));
    for f in &r.overlay {
        items.push(format!(
            "our test file `mysql-test/{}` (sha256 {})",
            f.path.display(),
            &f.sha256[..16]
        ));
    }
    let reasons = skip_reasons(&r.tests);
    if !reasons.is_empty() {
        let mut reasons: Vec<_> = reasons.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        // a list inside the item: one line per reason
        let mut item = "skipped, by reason:".to_string();
        for (reason, n) in reasons {
            let _ = write!(item, "\n- {n}: {reason}");
        }
        items.push(item);
    }
    items
}
fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or_else(|| "not reported".into(), |v| v.to_string())
}

fn dedup<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for i in items {
        if !seen.contains(&i) {
            seen.push(i);
        }
    }
    seen
}

/// The same test in the other build type's combination: mtr runs tests
/// with a `release` combination as `debug` on a Debug build and back.
fn counterpart<'a>(
    t: &TestResult,
    other: &BTreeMap<String, &'a TestResult>,
) -> Option<&'a TestResult> {
    let combination = t.combination.as_deref()?;
    let swapped: Vec<&str> = combination
        .split(',')
        .map(|c| match c {
            "release" => "debug",
            "debug" => "release",
            c => c,
        })
        .collect();
    if swapped == combination.split(',').collect::<Vec<_>>() {
        return None;
    }
    let mut sorted = swapped;
    sorted.sort();
    other
        .get(&format!("{} '{}'", t.name, sorted.join(",")))
        .copied()
}

/// Every test that passes on base and not on another run.
fn comparison(b: &mut Vec<Block>, runs: &[MtrRun]) {
    b.push(Block::Heading(2, "Compared with base".into()));
    let Some(base) = runs.iter().find(|r| is_base(r)) else {
        b.push(Block::Para(
            "No base run (RelWithDebInfo) in this directory.".into(),
        ));
        return;
    };
    let base_tests = by_key(base);
    if runs.len() == 1 {
        b.push(Block::Para("Only base ran: nothing to compare.".into()));
    }
    for r in runs.iter().filter(|r| !is_base(r)) {
        let other = by_key(r);
        let regressions: Vec<(&String, Option<&TestResult>)> = base_tests
            .iter()
            .filter(|(_, t)| t.status == Status::Pass)
            .map(|(k, t)| (k, other.get(k).copied().or_else(|| counterpart(t, &other))))
            .filter(|(_, o)| o.is_none_or(|o| o.status != Status::Pass))
            .collect();
        let passed_on_base = base_tests
            .values()
            .filter(|t| t.status == Status::Pass)
            .count();
        b.push(Block::Heading(
            3,
            format!(
                "{}: tests that pass on base and not on {}",
                r.label(),
                r.label()
            ),
        ));
        if regressions.is_empty() {
            b.push(Block::Para(format!(
                "None: all {passed_on_base} tests that pass on base pass on {}.",
                r.label()
            )));
        } else {
            let items = regressions
                .iter()
                .map(|(k, o)| {
                    let on = o.map_or(String::new(), |o| {
                        if &o.key() == *k {
                            String::new()
                        } else {
                            format!(" (as `{}`)", o.key())
                        }
                    });
                    format!("`{k}`: {}{on}", status_cell(*o))
                })
                .collect();
            b.push(Block::Bullets(items));
        }
        // what this run covers beyond base (the Debug build's own tests)
        let extra: Vec<&&TestResult> = other
            .iter()
            .filter(|(k, t)| {
                base_tests
                    .get(*k)
                    .copied()
                    .or_else(|| counterpart(t, &base_tests))
                    .is_none_or(|b| b.status != Status::Pass)
            })
            .map(|(_, t)| t)
            .filter(|t| t.status != Status::Skipped && t.status != Status::Disabled)
            .collect();
        if !extra.is_empty() {
            let failed = extra.iter().filter(|t| t.status == Status::Fail).count();
            b.push(Block::Para(format!(
                "{} ran {} test(s) that did not pass on base (skipped or not run there): {} passed, {} failed.",
                r.label(),
                extra.len(),
                extra.len() - failed,
                failed
            )));
        }
    }
}

fn failures(b: &mut Vec<Block>, runs: &[MtrRun]) {
    let failed: Vec<(&MtrRun, &TestResult)> = runs
        .iter()
        .flat_map(|r| r.tests.iter().map(move |t| (r, t)))
        .filter(|(_, t)| t.failed_attempts > 0)
        .collect();
    if failed.is_empty() {
        return;
    }
    b.push(Block::Heading(2, "Failures".into()));
    for (r, t) in failed {
        b.push(Block::Heading(
            3,
            format!("{} on {}: {}", t.key(), r.label(), status_cell(Some(t))),
        ));
        b.push(Block::Pre(
            t.failure_tail
                .clone()
                .unwrap_or_else(|| "(no failure text)".into()),
        ));
    }
}

fn per_test(b: &mut Vec<Block>, runs: &[MtrRun], every_test: EveryTest) {
    b.push(Block::Heading(2, "Every test".into()));
    let maps: Vec<BTreeMap<String, &TestResult>> = runs.iter().map(by_key).collect();
    let mut keys: Vec<&String> = maps.iter().flat_map(|m| m.keys()).collect();
    keys.sort();
    keys.dedup();
    let header = std::iter::once("test".to_string())
        .chain(runs.iter().map(MtrRun::label))
        .collect();
    let all = keys.len();
    let mut rows: Vec<Vec<String>> = keys
        .into_iter()
        .map(|k| {
            std::iter::once(format!("`{k}`"))
                .chain(maps.iter().map(|m| status_cell(m.get(k).copied())))
                .collect::<Vec<String>>()
        })
        .filter(|row| every_test == EveryTest::All || row[1..].iter().any(|c| *c != row[1]))
        .collect();
    if every_test == EveryTest::Differing {
        let differing = rows.len();
        let (groups, rest) = common_differences(rows, runs);
        rows = rest;
        b.push(Block::Para(format!(
            "The {differing} of {all} tests whose status differs between the runs; the {} with \
             the same status in every run are in report.md.",
            all - differing
        )));
        if !groups.is_empty() {
            b.push(Block::Para(format!(
                "Differing the same way, {COMMON_DIFFERENCE} tests or more at a time (their names \
                 are in report.md):"
            )));
            b.push(Block::Bullets(groups));
        }
        if rows.is_empty() {
            return;
        }
        b.push(Block::Para("The others, test by test:".into()));
    }
    b.push(Block::Table { header, rows });
}

/// How many tests must share one way of differing between the runs for
/// the Jira text to count them in a line instead of listing them: the
/// tests only a debug build runs are two hundred rows that say the same.
const COMMON_DIFFERENCE: usize = 10;

/// The differing rows split into lines that count the tests sharing one
/// pattern of statuses (`COMMON_DIFFERENCE` or more, the largest group
/// first), each saying which runs gave which status, and the rows left, in
/// their order.
fn common_differences(rows: Vec<Vec<String>>, runs: &[MtrRun]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut counts: BTreeMap<&[String], usize> = BTreeMap::new();
    for row in &rows {
        *counts.entry(&row[1..]).or_insert(0) += 1;
    }
    let mut common: Vec<(Vec<String>, usize)> = counts
        .into_iter()
        .filter(|(_, n)| *n >= COMMON_DIFFERENCE)
        .map(|(pattern, n)| (pattern.to_vec(), n))
        .collect();
    // the largest group first; equal ones in the order of their statuses
    common.sort_by_key(|g| std::cmp::Reverse(g.1));
    let mut lines = Vec::new();
    for (pattern, n) in &common {
        // the runs by the status they gave, in the order of the statuses' first run
        let mut by_status: Vec<(&str, Vec<String>)> = Vec::new();
        for (status, run) in pattern.iter().zip(runs) {
            match by_status.iter_mut().find(|(s, _)| s == status) {
                Some((_, labels)) => labels.push(run.label()),
                None => by_status.push((status, vec![run.label()])),
            }
        }
        let said: Vec<String> = by_status
            .into_iter()
            .map(|(status, labels)| format!("{status} on {}", labels.join(", ")))
            .collect();
        lines.push(format!("{n} tests: {}", said.join("; ")));
    }
    let rest = rows
        .into_iter()
        .filter(|r| !common.iter().any(|(p, _)| r[1..] == p[..]))
        .collect();
    (lines, rest)
}

/// Counts of skip reasons, for reports.
fn skip_reasons(tests: &[TestResult]) -> BTreeMap<String, usize> {
    let mut reasons = BTreeMap::new();
    for t in tests.iter().filter(|t| t.status == Status::Skipped) {
        *reasons
            .entry(
                t.skip_reason
                    .clone()
                    .unwrap_or_else(|| "(no reason given)".into()),
            )
            .or_insert(0) += 1;
    }
    reasons
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The result `cargo xtask mtr` wrote for the run in
    /// `base-pass-fail-skip.log` (base 10.11.18).
    fn base() -> MtrRun {
        serde_json::from_str(include_str!("../../testdata/mtr/base-run.json")).unwrap()
    }

    fn set(run: &mut MtrRun, key: &str, status: Status) {
        let t = run.tests.iter_mut().find(|t| t.key() == key).unwrap();
        t.status = status;
        t.failed_attempts = u32::from(status == Status::Fail);
        t.failure_tail = (status == Status::Fail).then(|| "CURRENT_TEST: x\nassertion".into());
        t.skip_reason = None;
    }

    #[test]
    fn the_comparison_lists_every_test_that_passes_on_base_only() {
        let base = base();
        let mut fixed = base.clone();
        fixed.variant = "fixed".into();
        set(&mut fixed, "innodb.flush", Status::Fail);
        fixed
            .tests
            .retain(|t| t.key() != "innodb.alter_copy_bulk 'ON'");
        let mut debug = base.clone();
        debug.variant = "fixed".into();
        debug.build_type = BuildType::Debug;
        set(
            &mut debug,
            "innodb.evict_tables_on_commit_debug",
            Status::Pass,
        );
        let md = doc::markdown(&blocks(&[base, fixed, debug], EveryTest::All));

        let section = |title: &str| {
            let start = md
                .find(title)
                .unwrap_or_else(|| panic!("no {title} in {md}"));
            let rest = &md[start + title.len()..];
            rest[..rest.find("\n#").unwrap_or(rest.len())].to_string()
        };
        let fixed_section = section("### fixed: tests that pass on base and not on fixed");
        assert!(
            fixed_section.contains("- `innodb.flush`: **FAIL**"),
            "{fixed_section}"
        );
        assert!(
            fixed_section.contains("- `innodb.alter_copy_bulk 'ON'`: not run"),
            "{fixed_section}"
        );
        // a test that fails on base too is not a difference
        assert!(
            !fixed_section.contains("lab_fixture_fails"),
            "{fixed_section}"
        );
        assert_eq!(fixed_section.matches("\n- ").count(), 2, "{fixed_section}");

        let debug_section =
            section("### fixed (Debug): tests that pass on base and not on fixed (Debug)");
        assert!(
            debug_section.contains("None: all 5 tests that pass on base pass on fixed (Debug)."),
            "{debug_section}"
        );
        assert!(
            debug_section.contains("ran 2 test(s) that did not pass on base")
                && debug_section.contains("1 passed, 1 failed"),
            "{debug_section}"
        );
        assert!(md.contains(
            "| `innodb.evict_tables_on_commit_debug` | skipped: Requires debug build | skipped: Requires debug build | pass |"
        ), "{md}");
        assert!(
            md.contains("| base | `95005f779829170c` RelWithDebInfo | 5 | 1 | 1 | 0 | 0 |"),
            "{md}"
        );
        assert!(md.contains("### innodb.flush on fixed: **FAIL**"), "{md}");
    }
}
