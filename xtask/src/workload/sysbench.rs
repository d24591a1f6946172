//! One sysbench process: started in its own process group, registered for
//! Ctrl-C, stopped at a deadline, reaped with `wait4` so that its own CPU
//! time (all its threads) is known even though its /proc entry is gone.

use crate::children;
use crate::util::Command;
use anyhow::{bail, Context, Result};
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

/// What one sysbench invocation left behind.
#[derive(Debug, Clone)]
pub struct SysbenchRun {
    /// stdout followed by stderr
    pub output: String,
    /// user + system CPU seconds of sysbench (all its threads), from the
    /// kernel's accounting at reaping time; None when it could not be read
    pub cpu_seconds: Option<f64>,
}

/// Runs sysbench with `args` and a deadline; returns its output, or an
/// error with the output's tail. The full output goes to `log`.
pub fn run(args: &[String], timeout: Duration, log: &Path) -> Result<SysbenchRun> {
    // sysbench finds oltp_common.lua in its own pkgdatadir, our scripts by path
    let mut child = Command::new("sysbench")
        .args(args.iter().cloned())
        .start(std::process::Stdio::piped(), std::process::Stdio::piped())
        .context("cannot start sysbench (apt-get install sysbench)")?;
    let pid = child.id() as i32;
    let mut stderr = child.stderr.take().unwrap();
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut stdout = child.stdout.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let deadline = Instant::now() + timeout;
    // reaped here with wait4, not through `child`: std's Child would
    // discard the resource usage
    let (status, cpu_seconds) = loop {
        match try_reap(pid) {
            Ok(Some((status, cpu))) => break (Some(status), Some(cpu)),
            Ok(None) => {}
            Err(e) => {
                children::terminate_group(pid, Duration::from_secs(5));
                children::unregister(pid);
                return Err(e);
            }
        }
        if Instant::now() > deadline {
            children::terminate_group(pid, Duration::from_secs(5));
            let reaped = reap_blocking(pid);
            break (None, reaped.map(|(_, cpu)| cpu));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    children::unregister(pid);
    drop(child);
    let output = out_reader.join().unwrap_or_default() + &err_reader.join().unwrap_or_default();
    let _ = std::fs::write(log, format!("$ sysbench {}\n{output}", args.join(" ")));
    match status {
        Some(0) => Ok(SysbenchRun {
            output,
            cpu_seconds,
        }),
        other => {
            let tail: Vec<&str> = output.lines().rev().take(15).collect();
            bail!(
                "sysbench {} {}; output tail:\n{}",
                args.last().map(String::as_str).unwrap_or(""),
                match other {
                    Some(code) => format!("failed (wait status {code:#x})"),
                    None => format!("did not finish within {} s", timeout.as_secs()),
                },
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )
        }
    }
}

/// The raw wait status and CPU seconds of `pid` once it has exited.
fn try_reap(pid: i32) -> Result<Option<(i32, f64)>> {
    let mut status = 0;
    // SAFETY: rusage is plain data and pid is our own child
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
    match rc {
        0 => Ok(None),
        r if r == pid => Ok(Some((status, rusage_cpu_seconds(&usage)))),
        _ => Err(std::io::Error::last_os_error()).context("wait4 on sysbench"),
    }
}

fn reap_blocking(pid: i32) -> Option<(i32, f64)> {
    let mut status = 0;
    // SAFETY: as in try_reap
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    (rc == pid).then(|| (status, rusage_cpu_seconds(&usage)))
}

fn rusage_cpu_seconds(u: &libc::rusage) -> f64 {
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rusage_adds_user_and_system_time() {
        // SAFETY: plain data
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        u.ru_utime.tv_sec = 2;
        u.ru_utime.tv_usec = 500_000;
        u.ru_stime.tv_sec = 1;
        u.ru_stime.tv_usec = 250_000;
        assert_eq!(rusage_cpu_seconds(&u), 3.75);
    }
}
