//! Where a result comes from besides its inputs: the tool's own revision
//! and the time, as every record carries them.

use crate::util::repo_root;
use std::time::{SystemTime, UNIX_EPOCH};

/// The commit of this repository that ran, `+dirty` with local changes.
pub fn tool_revision() -> String {
    let Ok(repo) = git2::Repository::open(repo_root()) else {
        return "unknown".into();
    };
    let head = repo
        .head()
        .ok()
        .and_then(|h| h.target())
        .map(|o| o.to_string())
        .unwrap_or_else(|| "none".into());
    if has_local_changes(&repo) {
        format!("{head}+dirty")
    } else {
        head
    }
}

/// The committed evidence: reports the tool writes (and renders again),
/// never part of what a run or a build does.
const EVIDENCE_DIR: &str = "reports/";

/// Whether tracked files of `repo` differ from its HEAD (untracked files
/// do not count: builds and results never read them; nor do the
/// committed reports, which rendering a report rewrites).
pub fn has_local_changes(repo: &git2::Repository) -> bool {
    repo.statuses(Some(git2::StatusOptions::new().include_untracked(false)))
        .map(|s| {
            s.iter().any(|e| {
                e.status() != git2::Status::CURRENT
                    && !e.path().is_ok_and(|p| p.starts_with(EVIDENCE_DIR))
            })
        })
        .unwrap_or(false)
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_changed_report_leaves_the_revision_clean_and_a_changed_source_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let repo = git2::Repository::init(dir.path()).unwrap();
        fs::create_dir_all(dir.path().join("reports/x")).unwrap();
        fs::write(dir.path().join("reports/x/report.md"), "a\n").unwrap();
        fs::write(dir.path().join("lib.rs"), "a\n").unwrap();
        let mut index = repo.index().unwrap();
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .unwrap();
        let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@localhost").unwrap();
        repo.commit(Some("HEAD"), &sig, &sig, "one", &tree, &[])
            .unwrap();
        assert!(!has_local_changes(&repo));
        fs::write(dir.path().join("reports/x/report.md"), "b\n").unwrap();
        assert!(!has_local_changes(&repo), "a rewritten report");
        fs::write(dir.path().join("lib.rs"), "b\n").unwrap();
        assert!(has_local_changes(&repo), "a changed source");
    }
}
