//! Run directories and servers left by a tool that died (SIGKILL, a
//! crash, a lost machine session): every run directory holds `tool.pid`
//! (the pid and start time of the tool that made it), and every process
//! the tool starts carries the same identity in its environment
//! (`INNODB_LAB_TOOL`). At start, a directory whose tool is gone has the
//! processes that tool started for it killed and is removed, with one line
//! saying so; a directory kept by `--keep` loses only its processes.
//!
//! What it trusts: only a `tool.pid` that is a plain file of the running
//! user's own, in a directory (not a symlink) of the run root, which
//! `server::trusted_shm_root` has already checked is the user's alone; and
//! only a process that carries the dead tool's identity and names the
//! directory on its command line. A planted `tool.pid` (the server's user
//! can write in its own run directory) or a process the tool did not start
//! is left alone.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::procfs;
pub use crate::util::{start_time, tool_identity, TOOL_ENV};

/// The file in each run directory that names its tool.
pub const TOOL_PID_FILE: &str = "tool.pid";

/// The file that marks a run directory kept by `--keep`: a later run stops
/// what a dead tool left running in it, and never removes it.
pub const KEPT_FILE: &str = "kept-by-keep";

/// What `tool.pid` holds for the current process.
pub fn tool_pid_text() -> String {
    format!("{}\n", tool_identity())
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

/// The `tool.pid` of `dir` when the tool may trust it: `dir` a directory
/// and not a symlink, the file a plain file of the running user's own.
fn trusted_tool_pid(dir: &Path) -> Option<String> {
    let dir_meta = fs::symlink_metadata(dir).ok()?;
    if !dir_meta.is_dir() {
        return None;
    }
    let file = dir.join(TOOL_PID_FILE);
    let meta = fs::symlink_metadata(&file).ok()?;
    let me = rustix::process::geteuid().as_raw();
    if !meta.is_file() || meta.uid() != me {
        eprintln!(
            "warning: {} is not a plain file of this user's own: not trusted, its directory is \
             left alone",
            file.display()
        );
        return None;
    }
    fs::read_to_string(&file).ok()
}

/// What a clean-up did.
#[derive(Debug, Default, PartialEq)]
pub struct Cleaned {
    /// directories removed
    pub dirs: Vec<PathBuf>,
    /// directories kept by `--keep`, whose processes were stopped
    pub kept: Vec<PathBuf>,
    /// (pid, name) of every process killed
    pub processes: Vec<(i32, String)>,
}

/// Finds the run directories under `base` whose tool is dead, kills the
/// processes that tool started for them and removes them (a kept one
/// stays, without its `tool.pid`); prints one line when it found any. A
/// directory without a trusted `tool.pid` (being created right now by a
/// live tool, kept earlier, from an older tool, or planted) is left alone.
pub fn clean(base: &Path) -> Cleaned {
    let mut cleaned = Cleaned::default();
    let Ok(entries) = fs::read_dir(base) else {
        return cleaned;
    };
    for e in entries.flatten() {
        let dir = e.path();
        let Some(text) = trusted_tool_pid(&dir) else {
            continue;
        };
        if tool_alive(&text) {
            continue;
        }
        let (killed, unverified) = kill_children_of(text.trim(), &dir);
        cleaned.processes.extend(killed);
        if !unverified.is_empty() {
            // a server started by an older tool, or one whose environment
            // this user may not read: it may still use the directory
            eprintln!(
                "warning: {} is named by process {} that cannot be shown to be the dead tool's \
                 (its environment is unreadable or carries no {TOOL_ENV}): the directory is left \
                 alone; stop the process and remove the directory by hand",
                dir.display(),
                unverified
                    .iter()
                    .map(i32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            continue;
        }
        if dir.join(KEPT_FILE).exists() {
            let _ = fs::remove_file(dir.join(TOOL_PID_FILE));
            cleaned.kept.push(dir);
        } else {
            let _ = fs::remove_dir_all(&dir);
            cleaned.dirs.push(dir);
        }
    }
    if !cleaned.dirs.is_empty() || !cleaned.kept.is_empty() {
        let procs: Vec<String> = cleaned
            .processes
            .iter()
            .map(|(pid, name)| format!("{name} {pid}"))
            .collect();
        let list = |dirs: &[PathBuf]| {
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let n = cleaned.dirs.len() + cleaned.kept.len();
        eprintln!(
            "found {n} run director{} left by a tool that is gone; stopped {}{}{}",
            if n == 1 { "y" } else { "ies" },
            if procs.is_empty() {
                "no process".to_string()
            } else {
                procs.join(", ")
            },
            if cleaned.dirs.is_empty() {
                String::new()
            } else {
                format!("; removed {}", list(&cleaned.dirs))
            },
            if cleaned.kept.is_empty() {
                String::new()
            } else {
                format!("; kept (--keep) {}", list(&cleaned.kept))
            }
        );
    }
    cleaned
}

/// SIGKILLs every process that the tool `identity` started (its
/// environment says so) and whose command line names `dir`; returns their
/// pids and names, and the pids of processes that name `dir` but whose
/// environment cannot say whose they are (unreadable, or without the
/// variable).
fn kill_children_of(identity: &str, dir: &Path) -> (Vec<(i32, String)>, Vec<i32>) {
    // the directory itself or a path inside it: `x-12` must not match
    // the live `x-123`
    let dir_text = dir.display().to_string();
    let inside = format!("{dir_text}/");
    let names_dir = |arg: &str| arg == dir_text || arg.contains(&inside);
    let mark = format!("{TOOL_ENV}={identity}");
    let me = std::process::id() as i32;
    let mut killed = Vec::new();
    let mut unverified = Vec::new();
    let Some(pids) = procfs::pids() else {
        return (killed, unverified);
    };
    for pid in pids {
        if pid == me {
            continue;
        }
        let Ok(cmdline) = procfs::cmdline(pid) else {
            continue;
        };
        if !String::from_utf8_lossy(&cmdline).split('\0').any(names_dir) {
            continue;
        }
        let Ok(environ) = procfs::environ(pid) else {
            unverified.push(pid);
            continue;
        };
        let environ = String::from_utf8_lossy(&environ);
        let mut vars = environ.split('\0');
        if !vars.clone().any(|v| v == mark) {
            if !vars.any(|v| v.starts_with(&format!("{TOOL_ENV}="))) {
                unverified.push(pid);
            }
            continue;
        }
        let name = procfs::comm(pid);
        // a process a dead tool started for its directory
        crate::children::signal_process(pid, rustix::process::Signal::KILL);
        killed.push((pid, name));
    }
    (killed, unverified)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dead tool's directory goes with the processes that tool started
    /// for it; a live tool's stays, as do its processes, a process the
    /// dead tool did not start, a kept directory (which loses its
    /// `tool.pid`), a directory whose `tool.pid` is not the user's own
    /// plain file, and one still named by a process that carries no tool
    /// identity (until that process is gone).
    #[test]
    fn a_dead_tools_directory_and_its_children_go_everything_else_stays() {
        let base = tempfile::tempdir().unwrap();
        let dir = |name: &str| {
            let d = base.path().join(name);
            fs::create_dir_all(&d).unwrap();
            d
        };
        let (dead, live, kept, planted) = (dir("x-1"), dir("x-10"), dir("x-2"), dir("x-3"));
        // a dead tool's directory still named by a process that carries no
        // tool identity at all (an older tool's server): left alone
        let older = dir("x-4");
        fs::write(older.join(TOOL_PID_FILE), "4194307 1\n").unwrap();
        // pids that are not running: pid_max is below 2^22
        let dead_tool = "4194304 1";
        fs::write(dead.join(TOOL_PID_FILE), format!("{dead_tool}\n")).unwrap();
        fs::write(live.join(TOOL_PID_FILE), tool_pid_text()).unwrap();
        fs::write(kept.join(TOOL_PID_FILE), "4194305 1\n").unwrap();
        fs::write(kept.join(KEPT_FILE), "").unwrap();
        let elsewhere = base.path().join("dead-tool.pid");
        fs::write(&elsewhere, "4194306 1\n").unwrap();
        std::os::unix::fs::symlink(&elsewhere, planted.join(TOOL_PID_FILE)).unwrap();
        // processes that name a directory, as mariadbd does (the runner's
        // start returns after exec: their command lines are final). `tail
        // -f /dev/null` waits without ever forking: a shell loop's fork
        // before each `sleep` carries the loop's command line and
        // environment until it execs, and a clean-up that catches one kills
        // a third process
        let null = || fs::File::create("/dev/null").unwrap().into();
        let looping = |arg: String, tool: Option<&str>| {
            let mut c = crate::util::Command::new("tail")
                .args(["-f", "/dev/null"])
                .arg(arg);
            if let Some(t) = tool {
                c = c.env(TOOL_ENV, t);
            }
            c.start(null(), null()).unwrap()
        };
        let mut orphan = looping(dead.display().to_string(), Some(dead_tool));
        let orphan_pid = orphan.id() as i32;
        // not started by the dead tool, though it names its directory
        let mut stranger = looping(format!("{}/my.cnf", dead.display()), None);
        // a live tool's process whose directory name extends the dead one's
        let mut bystander = looping(format!("{}/my.cnf", live.display()), Some(dead_tool));
        let mut kept_server = looping(kept.display().to_string(), Some("4194305 1"));
        let mut old_server = crate::util::Command::new("env")
            .args(["-u", TOOL_ENV, "tail", "-f", "/dev/null"])
            .arg(older.display().to_string())
            .start(null(), null())
            .unwrap();
        // until env has made way for tail, which has no identity
        for _ in 0..100 {
            let text = procfs::environ(old_server.id() as i32).unwrap_or_default();
            if !String::from_utf8_lossy(&text).contains(TOOL_ENV) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let cleaned = clean(base.path());
        assert_eq!(cleaned.dirs, vec![dead.clone()]);
        assert_eq!(cleaned.kept, vec![kept.clone()]);
        let killed: Vec<i32> = cleaned.processes.iter().map(|(p, _)| *p).collect();
        assert_eq!(killed.len(), 2, "{cleaned:?}");
        assert!(killed.contains(&orphan_pid), "{cleaned:?}");
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(orphan.wait().unwrap().signal(), Some(libc::SIGKILL));
        assert_eq!(kept_server.wait().unwrap().signal(), Some(libc::SIGKILL));
        assert!(!dead.exists() && live.exists() && planted.exists());
        assert!(
            older.join(TOOL_PID_FILE).exists(),
            "a directory in use was cleaned"
        );
        assert!(
            old_server.try_wait().unwrap().is_none(),
            "the older server was killed"
        );
        assert!(kept.join(KEPT_FILE).exists() && !kept.join(TOOL_PID_FILE).exists());
        for (what, p) in [("stranger", &mut stranger), ("bystander", &mut bystander)] {
            assert!(p.try_wait().unwrap().is_none(), "the {what} was killed");
            let pid = p.id() as i32;
            crate::children::kill_group(pid);
            p.wait().unwrap();
            crate::children::unregister(pid);
        }
        crate::children::unregister(orphan_pid);
        crate::children::unregister(kept_server.id() as i32);
        // a second clean-up finds nothing: the kept directory is no
        // longer a dead tool's, and the older one is still in use
        assert_eq!(clean(base.path()), Cleaned::default());
        let old_pid = old_server.id() as i32;
        crate::children::kill_group(old_pid);
        old_server.wait().unwrap();
        crate::children::unregister(old_pid);
        // once its process is gone, it goes too
        assert_eq!(clean(base.path()).dirs, vec![older]);
    }
}
