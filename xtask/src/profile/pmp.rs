//! The Poor Man's Profiler: gdb attaches to the server, takes a backtrace
//! of every thread and detaches, a set number of times over a window; the
//! backtraces are folded into counted stacks. Unlike a CPU sampler it sees
//! the threads that wait (on a mutex, a condition, a socket), which is
//! where contention shows.
//!
//! One gdb process takes every sample: it reads the server binary's
//! symbols once, before the first attach, so a sample stops the server
//! only for the attach, the backtraces and the detach, and gdb measures
//! that stop itself.

use crate::record::FoldedStacks;
use crate::util::Command;
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// The sampling loop gdb runs (its Python), parameters from the
/// environment. Markers on lines of their own frame each sample's
/// backtraces: `@@ready` once the symbols are read and one attach is done
/// (it then waits for the file `INNODB_LAB_PMP_GO`: `go` samples, anything
/// else calls the samples off), `@@sample <i>
/// <seconds stopped>` before each sample's text, `@@done` at the end.
const SAMPLER: &str = r#"
import os, time
import gdb

pid = int(os.environ["INNODB_LAB_PMP_PID"])
samples = int(os.environ["INNODB_LAB_PMP_SAMPLES"])
spacing = float(os.environ["INNODB_LAB_PMP_SPACING"])
go = os.environ["INNODB_LAB_PMP_GO"]

def sample():
    """One backtrace of every thread; the server runs again whatever happens."""
    began = time.monotonic()
    gdb.execute("attach %d" % pid, to_string=True)
    try:
        return gdb.execute("thread apply all backtrace", to_string=True), began
    finally:
        gdb.execute("detach", to_string=True)
for setting in ("pagination off", "width 0", "height 0", "print frame-arguments none",
                "print thread-events off", "print inferior-events off", "confirm off"):
    gdb.execute("set " + setting)
# one attach before the load: the shared libraries' symbols and the first
# expansion of the binary's are read now, not in the first measured stop
sample()
print("@@ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.02)
with open(go) as f:
    if f.read().strip() != "go":
        raise SystemExit("called off before the first sample")
for i in range(samples):
    text, began = sample()
    stopped = time.monotonic() - began
    print("@@sample %d %.6f" % (i, stopped))
    print(text, flush=True)
    rest = spacing - (time.monotonic() - began)
    if rest > 0 and i + 1 < samples:
        time.sleep(rest)
print("@@done", flush=True)
"#;

/// What the samples gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Samples {
    pub stacks: FoldedStacks,
    /// per sample, how long the server was stopped, in milliseconds
    pub stops_ms: Vec<f64>,
    /// thread stacks folded
    pub thread_stacks: u64,
}

/// When gdb is ready to take its first sample, and when it took its last.
pub enum Signal {
    Ready,
    Done,
}

/// Takes `samples` backtraces of every thread of `pid` (whose binary is
/// `binary`), one every `window / samples`, from the moment the file `go`
/// says `go`. `signal` hears when the symbols are read (gdb then waits for
/// `go`) and when the last sample is taken, so that the caller can time
/// the window the server was sampled in. gdb's output goes to `log`.
/// However gdb ends, the server is sent SIGCONT: a tracer killed while
/// attached must not leave it stopped.
pub fn sample(
    binary: &Path,
    pid: u32,
    (samples, window): (u32, Duration),
    go: &Path,
    log: &Path,
    signal: mpsc::Sender<Signal>,
) -> Result<Samples> {
    let dir = tempfile::tempdir().context("no temporary directory for gdb's script")?;
    let script = dir.path().join("pmp.py");
    std::fs::write(&script, SAMPLER)?;
    let spacing = window.as_secs_f64() / f64::from(samples.max(1));
    let mut text = String::new();
    let run = Command::new("gdb")
        .args(["-nx", "-batch", "-x"])
        .arg(script.display().to_string())
        .arg(binary.display().to_string())
        .env("INNODB_LAB_PMP_PID", pid.to_string())
        .env("INNODB_LAB_PMP_SAMPLES", samples.to_string())
        .env("INNODB_LAB_PMP_SPACING", format!("{spacing:.6}"))
        .env("INNODB_LAB_PMP_GO", go.display().to_string())
        // reading a large binary's symbols, waiting through the windows
        // before its own, then the samples and their stops
        .deadline(Duration::from_secs(900) + window * 6)
        .stream(Some(log), |line| {
            match line {
                "@@ready" => drop(signal.send(Signal::Ready)),
                "@@done" => drop(signal.send(Signal::Done)),
                _ => {}
            }
            text.push_str(line);
            text.push('\n');
        });
    // a no-op for a running server
    crate::children::signal_process(pid as i32, rustix::process::Signal::CONT);
    let run = run?;
    if !run.status.success() || run.timed_out {
        bail!(
            "gdb {} ({}); last lines:\n{}",
            if run.timed_out {
                "did not finish in time"
            } else {
                "failed"
            },
            run.status,
            run.tail
        );
    }
    let parsed = fold(&text);
    if parsed.stops_ms.len() != samples as usize {
        bail!(
            "gdb took {} of {samples} samples; last lines:\n{}",
            parsed.stops_ms.len(),
            run.tail
        );
    }
    if parsed.thread_stacks == 0 {
        bail!(
            "gdb's backtraces named no frame (could it attach?); last lines:\n{}",
            run.tail
        );
    }
    Ok(parsed)
}

/// Folds the sampler's output: every thread of every sample is one stack.
pub fn fold(text: &str) -> Samples {
    let mut out = Samples {
        stacks: FoldedStacks::default(),
        stops_ms: Vec::new(),
        thread_stacks: 0,
    };
    let mut frames: Vec<String> = Vec::new();
    let mut in_sample = false;
    let flush = |frames: &mut Vec<String>, out: &mut Samples| {
        if !frames.is_empty() {
            frames.reverse();
            out.stacks.add(frames, 1);
            out.thread_stacks += 1;
            frames.clear();
        }
    };
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("@@sample ") {
            flush(&mut frames, &mut out);
            in_sample = true;
            let seconds = rest
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse::<f64>().ok());
            out.stops_ms.push(seconds.map_or(f64::NAN, |s| s * 1e3));
        } else if line == "@@done" {
            flush(&mut frames, &mut out);
            in_sample = false;
        } else if !in_sample {
            continue;
        } else if line.starts_with("Thread ") {
            flush(&mut frames, &mut out);
        } else if let Some(name) = frame_name(line) {
            frames.push(name.to_string());
        }
    }
    flush(&mut frames, &mut out);
    out
}

/// The function of one backtrace line, `#3  0x... in name (...) at f.cc:12`
/// or `#4  name (...) at f.h:9` (an inlined frame has no address); `??`
/// where gdb knows none. The name ends at the first ` (` outside angle
/// brackets and parentheses, so `std::function<void (int)>::operator()`
/// and `(anonymous namespace)::f` keep theirs.
pub fn frame_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('#')?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix("0x") {
        Some(addr) => {
            let after = addr.trim_start_matches(|c: char| c.is_ascii_hexdigit());
            after.strip_prefix(" in ")?
        }
        None => rest,
    };
    // `<signal handler called>` is a frame of its own
    if rest.starts_with('<') {
        return Some(rest.trim_end());
    }
    let mut depth = 0i32;
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            // `operator<` and `operator<<` open nothing
            b'<' if !rest[..i].ends_with("operator") && !rest[..i].ends_with("operator<") => {
                depth += 1
            }
            b'>' if depth > 0 && !rest[..i].ends_with('-') => depth -= 1,
            b'(' if i > 0 && bytes[i - 1] == b' ' && depth == 0 => {
                let name = without_parameters(rest[..i - 1].trim_end());
                return (!name.is_empty()).then_some(name);
            }
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {}
        }
    }
    let name = rest.split_whitespace().next()?;
    Some(name)
}

/// A name gdb took from the ELF symbol table rather than the debug info
/// carries its parameters and a clone suffix (`f(int) const [clone
/// .isra.0]`): without them it is the name the debug info gives.
fn without_parameters(name: &str) -> &str {
    let mut s = name;
    if let Some(at) = s.find(" [clone ") {
        s = &s[..at];
    }
    for qualifier in [" const", " volatile", " &&", " &"] {
        if let Some(rest) = s.strip_suffix(qualifier) {
            s = rest;
        }
    }
    if !s.ends_with(')') {
        return s;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    // `(anonymous namespace)` alone is a name, and the `()`
                    // of `operator()` is its name too, not parameters
                    return if i == 0 || s[..i].ends_with("operator") {
                        s
                    } else {
                        &s[..i]
                    };
                }
            }
            _ => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_SAMPLES: &str = "\
[Thread debugging using libthread_db enabled]
@@ready
@@sample 0 0.012500

Thread 2 (Thread 0x7f0 (LWP 11) \"mariadbd\"):
#0  0x00007f1 in __futex_abstimed_wait_common64 (...) at ./nptl/futex-internal.c:57
#1  __futex_abstimed_wait_common (...) at ./nptl/futex-internal.c:87
#2  0x00007f3 in ___pthread_mutex_lock (...) at ./nptl/pthread_mutex_lock.c:93
#3  0x0000555 in inline_mysql_mutex_lock (...) at include/mysql/psi/mysql_thread.h:750
#4  buf_page_make_young (...) at storage/innobase/buf/buf0lru.cc:708
#5  0x0000556 in buf_page_get_low (...) at storage/innobase/buf/buf0buf.cc:2700
#6  0x00007f4 in start_thread (...) at ./nptl/pthread_create.c:442
#7  0x00007f5 in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 1 (Thread 0x7f9 (LWP 10) \"mariadbd\"):
#0  0x00007f6 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x0000557 in main (...) at sql/main.cc:34
@@sample 1 0.010000

Thread 1 (Thread 0x7f9 (LWP 10) \"mariadbd\"):
#0  0x00007f6 in ?? () from /lib/x86_64-linux-gnu/libc.so.6
#1  0x0000557 in main (...) at sql/main.cc:34
@@done
";

    #[test]
    fn every_thread_of_every_sample_is_a_stack() {
        let s = fold(TWO_SAMPLES);
        assert_eq!(s.stops_ms, [12.5, 10.0]);
        assert_eq!(s.thread_stacks, 3);
        assert_eq!(s.stacks.total(), 3);
        assert_eq!(
            s.stacks.to_text(),
            "clone3;start_thread;buf_page_get_low;buf_page_make_young;inline_mysql_mutex_lock;\
             ___pthread_mutex_lock;__futex_abstimed_wait_common;__futex_abstimed_wait_common64 1\n\
             main;?? 2\n"
        );
        assert_eq!(
            s.stacks
                .share_under("___pthread_mutex_lock", "buf_page_make_young"),
            Some(1.0 / 3.0)
        );
    }

    #[test]
    fn frame_names_keep_their_own_parentheses() {
        let name = |l| frame_name(l).unwrap();
        assert_eq!(
            name("#0  0x00007f in epoll_wait () from /lib/libc.so.6"),
            "epoll_wait"
        );
        assert_eq!(
            name("#9  0x1 in std::function<void (int)>::operator() (...) at f.h:1"),
            "std::function<void (int)>::operator()"
        );
        assert_eq!(
            name("#2  (anonymous namespace)::run (...) at a.cc:3"),
            "(anonymous namespace)::run"
        );
        assert_eq!(
            name("#3  0x2 in std::operator<< <char> (...) at o.h:2"),
            "std::operator<< <char>"
        );
        assert_eq!(name("#1  0x3 in ?? ()"), "??");
        assert_eq!(
            name("#5  <signal handler called>"),
            "<signal handler called>"
        );
        // ELF symbols only: parameters and clone suffix in the name
        assert_eq!(
            name("#2  0x4 in buf_page_make_young(buf_page_t*) () from /usr/sbin/mariadbd"),
            "buf_page_make_young"
        );
        assert_eq!(
            name("#3  0x5 in f(int) const [clone .isra.0] () from /x"),
            "f"
        );
        assert_eq!(
            name("#4  0x6 in std::operator()(int) () from /x"),
            "std::operator()"
        );
        assert_eq!(frame_name("Thread 1 (LWP 3):"), None);
        assert_eq!(frame_name("#4  0x12 <garbage"), None);
    }
}
