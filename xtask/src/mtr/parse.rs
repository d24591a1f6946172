//! mtr's console output, read into per-test results. A pure function of
//! the text, so it is tested on output captured from real runs
//! (`xtask/testdata/mtr/`).
//!
//! A result line is `<suite.test> ['<combinations>'] [w<worker>] [ <status> ] <rest>`
//! (mysql-test/lib/mtr_report.pm). A failure is followed by its report
//! (the diff, the server log excerpt, the retry notice) up to the next
//! result line or the summary.

use serde::{Deserialize, Serialize};

/// What became of a test in the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Skipped,
    Disabled,
}

/// One test (one combination of it) of one mtr run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// `suite.test`
    pub name: String,
    /// mtr's combination (`'innodb,16k'`), absent when the test has none
    pub combination: Option<String>,
    /// the final status; a test that failed and then passed on mtr's retry
    /// is `pass` with `failed_attempts` > 0
    pub status: Status,
    pub failed_attempts: u32,
    /// the reason mtr gave for a skipped or disabled test
    pub skip_reason: Option<String>,
    /// the last lines of the (last) failure report
    pub failure_tail: Option<String>,
    /// mtr's timer for a passed test
    pub milliseconds: Option<u64>,
}

impl TestResult {
    /// The name with its combination, unique within a run.
    pub fn key(&self) -> String {
        match &self.combination {
            Some(c) => format!("{} '{c}'", self.name),
            None => self.name.clone(),
        }
    }
}

/// Counts over the parsed tests, and what mtr's own summary says.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub disabled: usize,
    /// passed only on a retry
    pub flaky: usize,
    /// mtr's closing line (`Completed: All 6 tests were successful.`)
    pub mtr_completed: Option<String>,
    /// from `The servers were restarted N times`
    pub server_restarts: Option<u64>,
    /// from `Spent X of Y seconds executing testcases`: X and Y
    pub test_seconds: Option<f64>,
    pub mtr_wall_seconds: Option<f64>,
    /// `mysql-test-run: *** ERROR: ...`: mtr gave up
    pub mtr_error: Option<String>,
}

/// Everything read from one run's output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Parsed {
    pub tests: Vec<TestResult>,
    pub totals: Totals,
}

/// How many lines of a failure report are kept.
pub const FAILURE_TAIL_LINES: usize = 40;

/// A result line taken apart.
#[derive(Debug, PartialEq)]
struct ResultLine<'a> {
    name: &'a str,
    combination: Option<&'a str>,
    status: &'a str,
    rest: &'a str,
}

fn result_line(line: &str) -> Option<ResultLine<'_>> {
    let open = line.find("[ ")?;
    let close = open + line[open..].find(" ]")?;
    let status = &line[open + 2..close];
    let known = [
        "pass",
        "fail",
        "skipped",
        "disabled",
        "retry-pass",
        "retry-fail",
        "exp-fail",
        "retry-exp-fail",
    ];
    // `[ 3 pass ]` when --repeat is used
    let bare = status.rsplit(' ').next().unwrap_or(status);
    if !known.contains(&status) && !known.contains(&bare) {
        return None;
    }
    let mut head = line[..open].split_whitespace();
    let name = head.next()?;
    // a test name is suite.test; anything else is a line that quotes one
    if !name.contains('.') || name.starts_with('-') {
        return None;
    }
    let mut combination = None;
    for token in head {
        if let Some(c) = token.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
            combination = Some(c);
        } else if !(token.starts_with('w') && token[1..].chars().all(|c| c.is_ascii_digit())) {
            return None;
        }
    }
    Some(ResultLine {
        name,
        combination,
        status: bare,
        rest: line[close + 2..].trim(),
    })
}

/// Lines that end a failure report: mtr's summary.
fn ends_failure_report(line: &str) -> bool {
    // the rule under the last result (a diff's header is `--- file`)
    line.starts_with("----------")
        || line.starts_with("The servers were restarted")
        || line.starts_with("Completed:")
        || line.starts_with("Failing test(s):")
        || line.starts_with("Spent ")
        || line.contains("Test suite timeout!")
        || line.contains("mysql-test-run: *** ERROR")
}

fn tail(lines: &[&str], n: usize) -> String {
    let lines: Vec<&str> = lines
        .iter()
        .copied()
        .skip_while(|l| l.trim().is_empty())
        .collect();
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    lines[end.saturating_sub(n)..end].join("\n")
}

/// Reads mtr's output. Tests are listed in the order mtr first reported
/// them; a retried test is one entry.
pub fn parse(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let lines: Vec<&str> = output.lines().collect();
    let mut failure: Option<(usize, usize)> = None; // (test index, first line)
    let close_failure = |parsed: &mut Parsed, failure: &mut Option<(usize, usize)>, end: usize| {
        if let Some((i, start)) = failure.take() {
            parsed.tests[i].failure_tail = Some(tail(&lines[start..end], FAILURE_TAIL_LINES));
        }
    };
    for (n, line) in lines.iter().enumerate() {
        if let Some(r) = result_line(line) {
            close_failure(&mut parsed, &mut failure, n);
            let key_matches =
                |t: &TestResult| t.name == r.name && t.combination.as_deref() == r.combination;
            let i = match parsed.tests.iter().position(key_matches) {
                Some(i) => i,
                None => {
                    parsed.tests.push(TestResult {
                        name: r.name.to_string(),
                        combination: r.combination.map(str::to_string),
                        status: Status::Pass,
                        failed_attempts: 0,
                        skip_reason: None,
                        failure_tail: None,
                        milliseconds: None,
                    });
                    parsed.tests.len() - 1
                }
            };
            let t = &mut parsed.tests[i];
            match r.status {
                "pass" | "retry-pass" => {
                    t.status = Status::Pass;
                    t.milliseconds = r
                        .rest
                        .split_whitespace()
                        .next()
                        .and_then(|s| s.parse().ok());
                }
                "skipped" | "disabled" => {
                    t.status = if r.status == "skipped" {
                        Status::Skipped
                    } else {
                        Status::Disabled
                    };
                    t.skip_reason = Some(r.rest.to_string()).filter(|s| !s.is_empty());
                }
                _ => {
                    t.status = Status::Fail;
                    t.failed_attempts += 1;
                    // the report starts on the result line itself
                    // (`[ fail ]  timeout after 900 seconds`)
                    failure = Some((i, n));
                }
            }
            continue;
        }
        if ends_failure_report(line) {
            close_failure(&mut parsed, &mut failure, n);
        }
        let totals = &mut parsed.totals;
        if let Some(rest) = line.strip_prefix("The servers were restarted ") {
            totals.server_restarts = rest.split_whitespace().next().and_then(|s| s.parse().ok());
        } else if let Some(rest) = line.strip_prefix("Spent ") {
            // Spent 4.863 of 26 seconds executing testcases
            let words: Vec<&str> = rest.split_whitespace().collect();
            totals.test_seconds = words.first().and_then(|s| s.parse().ok());
            totals.mtr_wall_seconds = words.get(2).and_then(|s| s.parse().ok());
        } else if line.contains("Test suite timeout! Terminating") {
            // --suite-timeout: the summary that follows says `Timeout:`
            totals.mtr_error = Some("suite timeout: mtr stopped before every test ran".into());
        } else if line.starts_with("Completed:") {
            totals.mtr_completed = Some(line.trim().to_string());
        } else if let Some((_, msg)) = line.split_once("mysql-test-run: *** ERROR:") {
            // mtr's last line after failed tests is not an abort
            if msg.trim() != "there were failing test cases" {
                totals.mtr_error = Some(msg.trim().to_string());
            }
        }
    }
    close_failure(&mut parsed, &mut failure, lines.len());
    // the report of a failure that passed on retry stays: it says why it
    // was retried
    let count = |s: Status| parsed.tests.iter().filter(|t| t.status == s).count();
    parsed.totals.passed = count(Status::Pass);
    parsed.totals.failed = count(Status::Fail);
    parsed.totals.skipped = count(Status::Skipped);
    parsed.totals.disabled = count(Status::Disabled);
    parsed.totals.flaky = parsed
        .tests
        .iter()
        .filter(|t| t.status == Status::Pass && t.failed_attempts > 0)
        .count();
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real run on base 10.11.18: three tests of MariaDB's (one with
    /// two combinations), one debug-only test, and two of ours, one with a
    /// wrong result file.
    const BASE_RUN: &str = include_str!("../../testdata/mtr/base-pass-fail-skip.log");

    #[test]
    fn a_real_run_with_a_failure_parses_per_test() {
        let p = parse(BASE_RUN);
        let got: Vec<(String, Status)> = p.tests.iter().map(|t| (t.key(), t.status)).collect();
        let want = [
            ("innodb.evict_tables_on_commit_debug", Status::Skipped),
            ("innodb.flush", Status::Pass),
            ("innodb.purge", Status::Pass),
            ("innodb.alter_copy_bulk 'OFF'", Status::Pass),
            ("innodb.lab_fixture_fails", Status::Fail),
            ("innodb.lab_fixture_passes", Status::Pass),
            ("innodb.alter_copy_bulk 'ON'", Status::Pass),
        ]
        .map(|(k, s)| (k.to_string(), s));
        assert_eq!(got, want);
        assert_eq!(
            p.tests[0].skip_reason.as_deref(),
            Some("Requires debug build")
        );
        assert_eq!(p.tests[2].milliseconds, Some(170));
        let failed = &p.tests[4];
        assert_eq!(failed.failed_attempts, 1);
        let tail = failed.failure_tail.as_deref().unwrap();
        assert!(tail.starts_with("innodb.lab_fixture_fails"), "{tail}");
        assert!(
            tail.contains("\n-2\n+1\n") && tail.contains("Result content mismatch"),
            "{tail}"
        );
        // the report stops at the next test's result line
        assert!(!tail.contains("lab_fixture_passes"), "{tail}");
        let t = &p.totals;
        assert_eq!(
            (t.passed, t.failed, t.skipped, t.disabled, t.flaky),
            (5, 1, 1, 0, 0)
        );
        assert_eq!(
            t.mtr_completed.as_deref(),
            Some("Completed: Failed 1/6 tests, 83.33% were successful.")
        );
        assert_eq!(t.server_restarts, Some(4));
        assert_eq!((t.test_seconds, t.mtr_wall_seconds), (Some(6.3), Some(8.0)));
        // "there were failing test cases" is the failures' doing, not an abort
        assert_eq!(t.mtr_error, None);
    }

    #[test]
    fn the_same_run_without_the_failure_is_all_passed() {
        // the run's output with the failing test's report cut out
        let start = BASE_RUN.find("\ninnodb.lab_fixture_fails ").unwrap();
        let end = BASE_RUN.find("\ninnodb.lab_fixture_passes ").unwrap();
        let text = format!("{}{}", &BASE_RUN[..start], &BASE_RUN[end..]);
        let p = parse(&text);
        assert_eq!((p.totals.passed, p.totals.failed), (5, 0));
        assert!(p.tests.iter().all(|t| t.failure_tail.is_none()));
    }

    #[test]
    fn a_retry_that_passes_is_a_pass_with_its_failure_kept_and_an_abort_is_kept() {
        // lines in the formats of mysql-test/lib/mtr_report.pm
        let text = "innodb.x 'innodb'                        w1 [ fail ]  timeout after 900 seconds\n        Test ended at 2026-11-30 08:12:24\n\nTest case timeout after 900 seconds\n\nRetrying test innodb.x, attempt(2/2)...\n\ninnodb.x 'innodb'                        w2 [ retry-pass ]   1234\ninnodb.y                                 w1 [ fail ]\ninnodb.y                                 w1 [ retry-fail ]\n        Test ended at 2026-11-30 08:13:00\n\nmysqltest: At line 1: query 'x' failed\n--------------------------------------------------------------------------\nThe servers were restarted 1 times\nmysql-test-run: *** ERROR: Could not get a unique build thread id\n";
        let p = parse(text);
        assert_eq!(p.tests.len(), 2);
        let x = &p.tests[0];
        assert_eq!(
            (x.status, x.failed_attempts, x.milliseconds),
            (Status::Pass, 1, Some(1234))
        );
        assert!(x
            .failure_tail
            .as_deref()
            .unwrap()
            .contains("timeout after 900 seconds"));
        let y = &p.tests[1];
        assert_eq!((y.status, y.failed_attempts), (Status::Fail, 2));
        let tail = y.failure_tail.as_deref().unwrap();
        assert!(
            tail.contains("query 'x' failed") && !tail.contains("-----"),
            "{tail}"
        );
        assert_eq!(
            (p.totals.passed, p.totals.failed, p.totals.flaky),
            (1, 1, 1)
        );
        assert_eq!(
            p.totals.mtr_error.as_deref(),
            Some("Could not get a unique build thread id")
        );
        assert_eq!(p.totals.mtr_completed, None);
    }

    #[test]
    fn a_suite_timeout_is_an_abort() {
        // mysql-test-run.pl's run_test_server when --suite-timeout expires
        let text = "innodb.a                                 w1 [ pass ]     12\nTest suite timeout! Terminating...\nThe servers were restarted 1 times\nTimeout: All 1 tests were successful.\n";
        let p = parse(text);
        assert_eq!(p.totals.passed, 1);
        assert_eq!(p.totals.mtr_completed, None);
        assert!(p
            .totals
            .mtr_error
            .as_deref()
            .unwrap()
            .contains("suite timeout"));
    }

    #[test]
    fn result_lines_are_taken_apart() {
        let r = result_line("innodb.flush 'innodb'                    w2 [ pass ]    812").unwrap();
        assert_eq!(
            r,
            ResultLine {
                name: "innodb.flush",
                combination: Some("innodb"),
                status: "pass",
                rest: "812"
            }
        );
        let r = result_line(
            "innodb.alter_debug                       [ skipped ]  Requires debug build",
        )
        .unwrap();
        assert_eq!(
            (r.name, r.combination, r.status, r.rest),
            (
                "innodb.alter_debug",
                None,
                "skipped",
                "Requires debug build"
            )
        );
        let r = result_line(
            "innodb.x '16k,innodb'                    w1 [ retry-fail ]  timeout after 900 seconds",
        )
        .unwrap();
        assert_eq!(
            (r.combination, r.status, r.rest),
            (
                Some("16k,innodb"),
                "retry-fail",
                "timeout after 900 seconds"
            )
        );
        // not result lines
        assert!(result_line(
            "worker[1] Using MTR_BUILD_THREAD 610, with reserved ports 28300..28329"
        )
        .is_none());
        assert!(result_line(
            "TEST                                  WORKER RESULT   TIME (ms) or COMMENT"
        )
        .is_none());
        assert!(result_line("mysqltest: At line 3: query 'x' failed [ fail ]").is_none());
    }
}
