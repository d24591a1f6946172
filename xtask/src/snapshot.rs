//! Snapshots: a text compared with the committed file it must equal, one
//! mechanism for every snapshot of the workspace. `UPDATE_SNAPSHOTS=1`
//! rewrites a snapshot that differs, and the check then fails all the same
//! (saying what it rewrote), so no run that blesses passes on what it just
//! wrote; run again to see it pass. Evidence under `reports/` is never
//! rewritten here: `cargo xtask report DIR` renders it (and records who
//! did in `reported.json`), `cargo xtask mtr report DIR` an mtr report.

use std::path::Path;

/// The variable that blesses.
use crate::environment::UPDATE_SNAPSHOTS;

/// The folder of committed evidence, which only `cargo xtask report`
/// writes.
fn is_evidence(path: &Path) -> bool {
    let reports = crate::util::repo_root().join("reports");
    path.starts_with(&reports)
        || std::fs::canonicalize(path)
            .ok()
            .zip(std::fs::canonicalize(&reports).ok())
            .is_some_and(|(p, r)| p.starts_with(r))
}

/// The snapshot at `path` that `now` is compared with. While blessing, a
/// snapshot that is missing or differs is rewritten with `now` and the
/// call panics, naming the file.
pub fn expected(now: &str, path: &Path) -> String {
    let before = std::fs::read_to_string(path);
    let blessing = crate::environment::current().update_snapshots;
    match before {
        Ok(text) if text == now => text,
        _ if blessing && is_evidence(path) => panic!(
            "{} differs from what its runs render now; evidence is rendered by its \
             command (`cargo xtask report {}`, or `cargo xtask mtr report` for mtr results), \
             not by {UPDATE_SNAPSHOTS}",
            path.display(),
            path.parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ),
        _ if blessing => {
            std::fs::create_dir_all(path.parent().expect("a snapshot lives in a folder"))
                .and_then(|()| std::fs::write(path, now))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            panic!(
                "{UPDATE_SNAPSHOTS}: rewrote {}; review its diff, then run again without {UPDATE_SNAPSHOTS}",
                path.display()
            )
        }
        Ok(text) => text,
        Err(e) => panic!("{}: {e} ({UPDATE_SNAPSHOTS}=1 writes it)", path.display()),
    }
}

/// Panics unless `now` is byte for byte the snapshot at `path`, showing the
/// first differences as a line diff.
pub fn assert_matches(now: &str, path: &Path) {
    let want = expected(now, path);
    if want != now {
        panic!(
            "{} differs from the snapshot (- snapshot, + now; {UPDATE_SNAPSHOTS}=1 rewrites it):\n{}",
            path.display(),
            line_diff(&want, now, 60)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_difference_is_shown_as_a_line_diff() {
        let d = line_diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\nh\n", 60);
        assert_eq!(d, "@@ line 2\n  b\n  c\n- d\n+ D\n  e\n  f\n  g\n+ h");
        assert_eq!(line_diff("x\n", "x\n", 60), "");
    }

    #[test]
    fn a_snapshot_under_reports_is_evidence() {
        assert!(is_evidence(
            &crate::util::repo_root().join("reports/smoke-10.11.18/report.md")
        ));
        assert!(!is_evidence(
            &crate::util::repo_root().join("xtask/tests/snapshots/qps.svg")
        ));
    }
}
