//! Checks of rendered documents shared by the report tests: a file against
//! its committed snapshot, and Jira markup that renders as tables.

use std::path::Path;

/// `text` is byte for byte the snapshot at `path` (`xtask::snapshot`).
pub fn check_snapshot(text: &str, path: &Path) {
    xtask::snapshot::assert_matches(text, path);
}

/// Jira wiki markup that renders as tables: header rows `||h||`, body
/// rows `|c|` with as many cells as the header, no Markdown table lines,
/// `{noformat}` blocks closed.
pub fn check_jira_structure(jira: &str) {
    // cells split on `|` that is not escaped
    fn cells(line: &str) -> usize {
        let mut n = 0;
        let mut escaped = false;
        for c in line.chars() {
            match c {
                '\\' if !escaped => escaped = true,
                '|' if !escaped => n += 1,
                _ => escaped = false,
            }
            if c != '\\' {
                escaped = false;
            }
        }
        n
    }
    let mut header: Option<usize> = None;
    let mut in_noformat = false;
    for (i, line) in jira.lines().enumerate() {
        let at = format!("report.jira line {}: {line}", i + 1);
        if line == "{noformat}" {
            in_noformat = !in_noformat;
            continue;
        }
        if in_noformat {
            continue;
        }
        assert!(
            !line.contains("{noformat}"),
            "{at}: noformat not on its own line"
        );
        assert!(
            !line.starts_with("|---") && !line.starts_with("| ---"),
            "{at}: a Markdown table line"
        );
        assert!(
            !line.starts_with('#') && !line.starts_with("```"),
            "{at}: Markdown"
        );
        if line.starts_with("||") {
            assert!(line.ends_with("||"), "{at}");
            // `||a||b||` has 2 cells and 6 pipes
            header = Some(cells(line) / 2 - 1);
        } else if line.starts_with('|') {
            let h = header.unwrap_or_else(|| panic!("{at}: a row without a header"));
            assert!(line.ends_with('|'), "{at}");
            assert_eq!(cells(line) - 1, h, "{at}: cells against the header's {h}");
            assert!(
                !line.contains("||"),
                "{at}: an empty cell collapses the row"
            );
        } else {
            header = None;
        }
    }
    assert!(!in_noformat, "a {{noformat}} block is not closed");
}
