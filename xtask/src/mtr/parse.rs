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
    line.starts_with("The servers were restarted")
        || line.starts_with("Completed:")
        || line.starts_with("Failing test(s):")
        || line.starts_with("Spent ")
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
        } else if line.starts_with("Completed:") {
            totals.mtr_completed = Some(line.trim().to_string());
        } else if let Some((_, msg)) = line.split_once("mysql-test-run: *** ERROR:") {
            totals.mtr_error = Some(msg.trim().to_string());
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
