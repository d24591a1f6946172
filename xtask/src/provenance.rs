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

/// Whether tracked files of `repo` differ from its HEAD (untracked files
/// do not count: builds and results never read them).
pub fn has_local_changes(repo: &git2::Repository) -> bool {
    repo.statuses(Some(git2::StatusOptions::new().include_untracked(false)))
        .map(|s| s.iter().any(|e| e.status() != git2::Status::CURRENT))
        .unwrap_or(false)
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
