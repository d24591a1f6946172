//! Checks of rendered documents shared by the report tests: a file against
//! its committed snapshot, and Jira markup that renders as tables.

use std::path::Path;

/// `text` is byte for byte the file at `path`; `UPDATE_SNAPSHOTS=1`
/// rewrites the file first (review the diff before committing). A
/// difference names the first line that differs.
pub fn check_snapshot(text: &str, path: &Path) {
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let want = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_SNAPSHOTS=1 writes it)", path.display()));
    if text != want {
        panic!(
            "{} differs from the snapshot (- snapshot, + now; UPDATE_SNAPSHOTS=1 rewrites it):\n{}",
            path.display(),
            line_diff(&want, text, 60)
        );
    }
}

/// A line diff of `old` against `new` (longest common subsequence), as
/// `-`/`+` lines with two lines of context around each change and `@@ line`
/// markers, at most `limit` lines.
pub fn line_diff(old: &str, new: &str, limit: usize) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    // lcs[i][j]: common lines of a[i..] and b[j..]
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // (tag, line number in old, text)
    let mut ops: Vec<(char, usize, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', i, a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', i, a[i]));
            i += 1;
        } else {
            ops.push(('+', i, b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| {
        let lo = k.saturating_sub(2);
        let hi = (k + 2).min(ops.len() - 1);
        ops[lo..=hi].iter().any(|o| o.0 != ' ')
    };
    let mut out = Vec::new();
    let mut last_shown: Option<usize> = None;
    for (k, (tag, line, text)) in ops.iter().enumerate() {
        if !near_change(k) {
            continue;
        }
        if last_shown.is_none_or(|l| l + 1 != k) {
            out.push(format!("@@ line {}", line + 1));
        }
        out.push(format!("{tag} {text}"));
        last_shown = Some(k);
        if out.len() >= limit {
            out.push("... (more differences)".into());
            break;
        }
    }
    out.join("\n")
}

#[test]
fn a_snapshot_difference_is_shown_as_a_line_diff() {
    let d = line_diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\nh\n", 60);
    assert_eq!(d, "@@ line 2\n  b\n  c\n- d\n+ D\n  e\n  f\n  g\n+ h");
    assert_eq!(line_diff("x\n", "x\n", 60), "");
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
