//! Every child process runs in its own process group, with a parent-death
//! signal, and is registered here from the moment it starts, so that it
//! is stopped on every exit path: a normal return, an error, a panic (the
//! owners' `Drop`), SIGINT or SIGTERM (the handler below) and the tool's
//! own death (SIGKILL: the kernel sends the parent-death signal; what
//! escapes it is found by `stale` at the next start).
//!
//! Signals: `install_signal_handler` runs first in `main`, before any
//! build. The handler records the signal and stops the registered
//! children (TERM, grace, KILL); the main thread then sees its child fail,
//! asks `interrupted()`, records the current cell as interrupted, removes
//! its run directory through the owners' `Drop` and exits with 128 +
//! signal. Only if the main thread does not get there in time does the
//! handler remove the registered directories and exit itself.

use rustix::process::{Pid, Signal};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static DIRS: Mutex<Vec<std::path::PathBuf>> = Mutex::new(Vec::new());
static HANDLER: Once = Once::new();
/// The signal that interrupted the tool, 0 while none has.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// ctrlc's own signal handlers, called after ours has noted the signal.
static CHAINED: [AtomicUsize; 3] = [
    AtomicUsize::new(0),
    AtomicUsize::new(0),
    AtomicUsize::new(0),
];
const CAUGHT: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// How long children get between SIGTERM and SIGKILL after a signal.
const GRACE: Duration = Duration::from_secs(10);
/// How long the main thread gets to record and clean up after the
/// children are stopped, before the handler exits on its own.
const MAIN_THREAD_LIMIT: Duration = Duration::from_secs(60);

/// The error a stage returns when the tool was interrupted; `main` turns
/// it into exit status 128 + signal (130 for SIGINT, 143 for SIGTERM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted(pub i32);

impl Interrupted {
    pub fn exit_code(self) -> i32 {
        128 + self.0
    }
}

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "interrupted by {}", signal_name(self.0))
    }
}

impl std::error::Error for Interrupted {}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "a signal",
    }
}

/// The signal that interrupted the tool, if one has.
pub fn interrupted() -> Option<Interrupted> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        sig => Some(Interrupted(sig)),
    }
}

/// An error when the tool was interrupted: stages call it between steps
/// so that nothing new starts after a signal.
pub fn check() -> anyhow::Result<()> {
    match interrupted() {
        Some(i) => Err(i.into()),
        None => Ok(()),
    }
}

/// The interruption inside an error chain, if any.
pub fn interruption_in(e: &anyhow::Error) -> Option<Interrupted> {
    e.downcast_ref::<Interrupted>()
        .copied()
        .or_else(interrupted)
}

/// Remembers a process group to stop if the tool is interrupted. A group
/// registered after a signal is stopped at once.
pub fn register(pgid: i32) {
    install_signal_handler();
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(pgid);
    if interrupted().is_some() {
        terminate_group(pgid, GRACE);
    }
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

/// Sends SIGTERM to the group, waits up to `grace` for it to exit, then
/// SIGKILLs the whole group. Returns true when SIGTERM was enough.
pub fn terminate_group(pgid: i32, grace: Duration) -> bool {
    signal_group(pgid, Signal::TERM);
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        if !group_alive(pgid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    kill_group(pgid);
    false
}

/// SIGKILL to the whole group (also reaches a stopped process, which a
/// SIGTERM would not until it is continued).
pub fn kill_group(pgid: i32) {
    signal_group(pgid, Signal::KILL);
}

/// `sig` to every process of the group `pgid` (a group we created); a
/// group that is gone already is no error here.
fn signal_group(pgid: i32, sig: Signal) {
    if let Some(group) = Pid::from_raw(pgid) {
        let _ = rustix::process::kill_process_group(group, sig);
    }
}

/// `sig` to the one process `pid`; a process that is gone already is no
/// error here.
pub fn signal_process(pid: i32, sig: Signal) {
    if let Some(pid) = Pid::from_raw(pid) {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// Whether any live (not zombie) process is in the group. Zombies do not
/// count: a killed grandchild may wait for a reaper that never comes when
/// PID 1 of a container does not reap.
pub fn group_alive(pgid: i32) -> bool {
    let Some(pids) = crate::procfs::pids() else {
        return Pid::from_raw(pgid)
            .is_some_and(|group| rustix::process::test_kill_process_group(group).is_ok());
    };
    pids.into_iter().any(|pid| {
        crate::procfs::ProcStat::of(pid)
            .is_some_and(|st| st.process_group == pgid && !st.is_zombie())
    })
}

/// Notes the signal, then hands over to ctrlc's handler (which wakes its
/// thread). Only async-signal-safe work here: an atomic store and a call.
extern "C" fn note_signal(sig: libc::c_int) {
    let _ = SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    if let Some(i) = CAUGHT.iter().position(|&s| s == sig) {
        let chained = CHAINED[i].load(Ordering::SeqCst);
        if chained > libc::SIG_IGN {
            // SAFETY: the value is the handler ctrlc installed for `sig`
            let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(chained) };
            f(sig);
        }
    }
}

/// Installs the SIGINT/SIGTERM/SIGHUP handler (once). `main` calls it
/// before anything else, so that a build or a bootstrap is covered too.
pub fn install_signal_handler() {
    HANDLER.call_once(|| {
        if let Err(e) = ctrlc::set_handler(on_signal) {
            eprintln!("warning: cannot install the signal handler: {e}");
            return;
        }
        // ctrlc does not say which signal came: put a recorder in front
        for (i, &sig) in CAUGHT.iter().enumerate() {
            // SAFETY: sigaction with a zeroed, then filled, struct; the old
            // action is only read
            unsafe {
                let mut new: libc::sigaction = std::mem::zeroed();
                let mut old: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = note_signal as extern "C" fn(libc::c_int) as usize;
                new.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut new.sa_mask);
                if libc::sigaction(sig, &new, &mut old) == 0 {
                    CHAINED[i].store(old.sa_sigaction, Ordering::SeqCst);
                }
            }
        }
    });
}

/// ctrlc's thread: stop every child, give the main thread time to record
/// the cell and clean up, and only then exit on its own.
fn on_signal() {
    let sig = SIGNAL.load(Ordering::SeqCst);
    let sig = if sig == 0 { libc::SIGINT } else { sig };
    let groups: Vec<i32> = GROUPS.lock().unwrap_or_else(|e| e.into_inner()).clone();
    // not eprintln!: it panics when stderr is a closed pipe
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\ninterrupted by {}: stopping {} child process group(s)",
        signal_name(sig),
        groups.len()
    );
    for pgid in groups {
        terminate_group(pgid, GRACE);
    }
    std::thread::sleep(MAIN_THREAD_LIMIT);
    let _ = writeln!(
        std::io::stderr(),
        "the main thread did not finish within {} s: removing the run directories and exiting",
        MAIN_THREAD_LIMIT.as_secs()
    );
    for pgid in GROUPS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        kill_group(*pgid);
    }
    for dir in DIRS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        let _ = std::fs::remove_dir_all(dir);
    }
    std::process::exit(128 + sig);
}

/// Configures a `std::process::Command` to start in a new process group
/// (its pid is the group id), so that signals reach it and its children,
/// with SIGKILL as its parent-death signal. The runner (`util::Command`)
/// hands it to duct as a `before_spawn` hook, so every child gets it. Linux sends that signal when
/// the *thread* that spawned the child exits, not the process: spawn only
/// from threads that outlive the child (the main thread, a test's thread
/// that stops its servers before it ends).
pub fn in_own_group(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    let parent = rustix::process::getpid();
    cmd.process_group(0);
    // SAFETY: the closure runs between fork and exec and makes only two
    // system calls (prctl, getppid), which are async-signal-safe
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
            // the parent died before prctl: nobody would stop this child
            if rustix::process::getppid() != Some(parent) {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            Ok(())
        })
    };
    cmd
}

#[cfg(test)]
// children is below the runner (util::Command calls in_own_group and
// registers with it), so its tests start their children with std as the
// runner's hook would, not through the runner
#[allow(clippy::disallowed_methods)]
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

    #[test]
    fn a_child_leads_its_group_and_dies_with_the_thread_that_spawned_it() {
        // the parent-death signal: a child spawned by a thread that then
        // ends is killed by the kernel
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut cmd = std::process::Command::new("sleep");
            cmd.arg("300");
            in_own_group(&mut cmd);
            let child = cmd.spawn().unwrap();
            tx.send(child.id() as i32).unwrap();
            // the thread ends without waiting: the kernel sends SIGKILL
            std::mem::forget(child);
        });
        let pid = rx.recv().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while group_alive(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !group_alive(pid),
            "sleep {pid} (its own group leader) outlived the thread that spawned it"
        );
        // reap it
        let _ = rustix::process::waitpid(Pid::from_raw(pid), rustix::process::WaitOptions::empty());
    }
}
