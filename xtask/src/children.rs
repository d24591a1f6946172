//! Every long-lived child (mariadbd, sysbench) runs in its own process
//! group and is registered here, so that it is stopped on every exit path:
//! a normal return, an error, a panic (the owners' `Drop`) and Ctrl-C or
//! SIGTERM (the handler below).

use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static DIRS: Mutex<Vec<std::path::PathBuf>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();

/// Remembers a process group to stop if the tool is interrupted.
pub fn register(pgid: i32) {
    install_signal_handler();
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pgid);
}

/// Forgets a process group that its owner has stopped.
pub fn unregister(pgid: i32) {
    GROUPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|&g| g != pgid);
}

/// Remembers a directory (a run's datadir) to remove if the tool is
/// interrupted after its owner stopped the processes using it.
pub fn register_dir(dir: &std::path::Path) {
    install_signal_handler();
    DIRS.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir.to_path_buf());
}

pub fn unregister_dir(dir: &std::path::Path) {
    DIRS.lock()
        .unwrap_or_else(|e| e.into_inner())
        .retain(|d| d != dir);
}

/// Sends SIGTERM to the group, waits up to `grace` for its leader to exit,
/// then SIGKILLs the whole group. Returns true when SIGTERM was enough.
pub fn terminate_group(pgid: i32, grace: Duration) -> bool {
    // SAFETY: plain signal sends to a process group we created
    unsafe { libc::kill(-pgid, libc::SIGTERM) };
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if !group_alive(pgid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    false
}

/// Whether any live (not zombie) process is in the group. Zombies do not
/// count: a killed grandchild may wait for a reaper that never comes when
/// PID 1 of a container does not reap.
fn group_alive(pgid: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        // SAFETY: signal 0 only checks for existence
        return unsafe { libc::kill(-pgid, 0) == 0 };
    };
    entries.flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // fields after the parenthesised name: state, ppid, pgrp
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|p| p.parse::<i32>().ok());
        pgrp == Some(pgid) && state != Some("Z")
    })
}

fn install_signal_handler() {
    HANDLER.call_once(|| {
        let result = ctrlc::set_handler(|| {
            let groups: Vec<i32> = GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
            // not eprintln!: it panics when stderr is a closed pipe
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "\ninterrupted: stopping {} child process group(s)",
                groups.len()
            );
            for pgid in groups {
                terminate_group(pgid, Duration::from_secs(20));
            }
            for dir in DIRS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
                let _ = std::fs::remove_dir_all(dir);
            }
            std::process::exit(130);
        });
        if let Err(e) = result {
            eprintln!("warning: cannot install the Ctrl-C handler: {e}");
        }
    });
}

/// Configures a `std::process::Command` to start in a new process group
/// (its pid is the group id), so that signals reach it and its children.
pub fn in_own_group(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    cmd.process_group(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminate_stops_a_group_with_a_grandchild() {
        let mut cmd = std::process::Command::new("sh");
        // the shell ignores SIGTERM and its grandchild sleeps: SIGKILL must reach both
        cmd.args(["-c", "trap '' TERM; sleep 300 & wait"]);
        in_own_group(&mut cmd);
        let mut child = cmd.spawn().unwrap();
        let pgid = child.id() as i32;
        register(pgid);
        std::thread::sleep(Duration::from_millis(200));
        let graceful = terminate_group(pgid, Duration::from_millis(300));
        assert!(
            !graceful,
            "the shell ignores SIGTERM, so SIGKILL was needed"
        );
        child.wait().unwrap();
        std::thread::sleep(Duration::from_millis(200));
        assert!(!group_alive(pgid), "a process of the group survived");
        unregister(pgid);
    }
}
