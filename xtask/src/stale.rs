//! Run directories and servers left by a tool that died (SIGKILL, a
//! crash, a lost machine session): every run directory holds `tool.pid`
//! (the pid and start time of the tool that made it); at start, a
//! directory whose tool is gone has its processes (mariadbd, sysbench,
//! mariadb-install-db: whatever names the directory on its command line)
//! killed and is removed, with one line saying so.

use std::fs;
use std::path::{Path, PathBuf};

/// The file in each run directory that names its tool.
pub const TOOL_PID_FILE: &str = "tool.pid";

/// What `tool.pid` holds for the current process: pid and start time (in
/// clock ticks since boot), so that a reused pid is not taken for the tool.
pub fn tool_pid_text() -> String {
    let pid = std::process::id() as i32;
    format!("{pid} {}\n", start_time(pid).unwrap_or(0))
}

/// A process's start time (field 22 of /proc/<pid>/stat).
fn start_time(pid: i32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    // rest starts at field 3 (state): field 22 is the 20th after it
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the tool named by a `tool.pid` text still runs.
fn tool_alive(text: &str) -> bool {
    let mut parts = text.split_whitespace();
    let Some(pid) = parts.next().and_then(|p| p.parse::<i32>().ok()) else {
        return false;
    };
    let started: Option<u64> = parts.next().and_then(|s| s.parse().ok());
    match (start_time(pid), started) {
        (None, _) => false,
        (Some(now), Some(then)) if then != 0 => now == then,
        (Some(_), _) => true,
    }
}

/// What a clean-up did.
#[derive(Debug, Default, PartialEq)]
pub struct Cleaned {
    pub dirs: Vec<PathBuf>,
    /// (pid, name) of every process killed
    pub processes: Vec<(i32, String)>,
}

/// Finds the run directories under `base` whose tool is dead, kills the
/// processes that use them and removes them; prints one line when it
/// found any. A directory without `tool.pid` (being created right now by
/// a live tool, or from an older tool) is left alone.
pub fn clean(base: &Path) -> Cleaned {
    let mut cleaned = Cleaned::default();
    let Ok(entries) = fs::read_dir(base) else {
        return cleaned;
    };
    for e in entries.flatten() {
        let dir = e.path();
        let Ok(text) = fs::read_to_string(dir.join(TOOL_PID_FILE)) else {
            continue;
        };
        if tool_alive(&text) {
            continue;
        }
        cleaned.processes.extend(kill_users_of(&dir));
        let _ = fs::remove_dir_all(&dir);
        cleaned.dirs.push(dir);
    }
    if !cleaned.dirs.is_empty() {
        let procs: Vec<String> = cleaned
            .processes
            .iter()
            .map(|(pid, name)| format!("{name} {pid}"))
            .collect();
        eprintln!(
            "found {} run director{} left by a tool that is gone; stopped {} and removed {}",
            cleaned.dirs.len(),
            if cleaned.dirs.len() == 1 { "y" } else { "ies" },
            if procs.is_empty() {
                "no process".to_string()
            } else {
                procs.join(", ")
            },
            cleaned
                .dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    cleaned
}

/// SIGKILLs every process whose command line names `dir` (and its process
/// group); returns their pids and names.
fn kill_users_of(dir: &Path) -> Vec<(i32, String)> {
    // the directory itself or a path inside it: `x-12` must not match
    // the live `x-123`
    let dir_text = dir.display().to_string();
    let inside = format!("{dir_text}/");
    let names_dir = |arg: &str| arg == dir_text || arg.contains(&inside);
    let me = std::process::id() as i32;
    let mut killed = Vec::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return killed;
    };
    for e in entries.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmdline) = fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline);
        if !cmdline.split('\0').any(names_dir) {
            continue;
        }
        let name = fs::read_to_string(e.path().join("comm"))
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        // SAFETY: SIGKILL to a process that works in a dead tool's directory
        unsafe { libc::kill(pid, libc::SIGKILL) };
        killed.push((pid, name));
    }
    killed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_tools_directory_and_its_processes_go_a_live_ones_stay() {
        let base = tempfile::tempdir().unwrap();
        let dead = base.path().join("x-1");
        let live = base.path().join("x-10");
        fs::create_dir_all(&dead).unwrap();
        fs::create_dir_all(&live).unwrap();
        // a pid that is not running: pid_max is below 2^22
        fs::write(dead.join(TOOL_PID_FILE), "4194304 1\n").unwrap();
        fs::write(live.join(TOOL_PID_FILE), tool_pid_text()).unwrap();
        // a process that names the dead tool's directory, as mariadbd does
        // (the runner's start returns after exec: its command line is final)
        let null = || fs::File::create("/dev/null").unwrap().into();
        let looping = |arg: String| {
            crate::util::Command::new("sh")
                .args(["-c", "while :; do sleep 0.1; done"])
                .arg(arg)
                .start(null(), null())
                .unwrap()
        };
        let mut orphan = looping(dead.display().to_string());
        let orphan_pid = orphan.id() as i32;
        // a live tool's process whose directory name extends the dead one's
        let mut bystander = looping(format!("{}/my.cnf", live.display()));
        let cleaned = clean(base.path());
        assert_eq!(cleaned.dirs, vec![dead.clone()]);
        assert!(
            cleaned.processes.iter().any(|(p, _)| *p == orphan_pid),
            "{cleaned:?}"
        );
        let status = orphan.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        assert!(!dead.exists() && live.exists());
        assert!(
            bystander.try_wait().unwrap().is_none(),
            "a process of a live tool's directory was killed"
        );
        let bystander_pid = bystander.id() as i32;
        crate::children::kill_group(bystander_pid);
        bystander.wait().unwrap();
        crate::children::unregister(orphan_pid);
        crate::children::unregister(bystander_pid);
    }
}
