//! The one child-process runner: every child of the tool starts here, as a
//! duct `Expression`. duct spawns the child, collects captured output on
//! its own threads and is the only one that reaps it; this layer adds what
//! the tool needs around that: a process group of its own with a
//! parent-death signal (`children::in_own_group`, given to duct as a
//! `before_spawn` hook), registration with `children` so that SIGINT and
//! SIGTERM stop every group, a deadline that stops the whole group (duct's
//! `kill` reaches the child only, never a grandchild), log tees with a tail
//! kept for the error, errors that name the argument vector, and the CPU
//! time of a child for the workloads.

use anyhow::{Context, Result};
use std::collections::VecDeque;
use std::fs;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Output};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::human_duration;
use crate::procfs::ProcStat;

/// The variable every child of the tool carries: the tool's identity, so
/// that a clean-up kills only what a dead tool started.
pub const TOOL_ENV: &str = "INNODB_LAB_TOOL";

/// The current process's identity: pid and start time (in clock ticks
/// since boot), so that a reused pid is not taken for the tool.
pub fn tool_identity() -> String {
    let pid = std::process::id() as i32;
    format!("{pid} {}", start_time(pid).unwrap_or(0))
}

/// A process's start time (field 22 of /proc/<pid>/stat).
pub fn start_time(pid: i32) -> Option<u64> {
    ProcStat::of(pid).map(|st| st.start_time)
}

/// How long a group stopped at its deadline gets between SIGTERM and
/// SIGKILL.
const DEADLINE_GRACE: Duration = Duration::from_secs(10);
/// How long what is left of a group after its leader exited (or after its
/// owner gave up on it) gets between SIGTERM and SIGKILL.
const LEFTOVER_GRACE: Duration = Duration::from_secs(5);
/// How many lines of output an error carries.
const LOG_TAIL_LINES: usize = 30;
const STDERR_TAIL_LINES: usize = 20;
const MEASURED_TAIL_LINES: usize = 15;

/// A command given as a program and an argument vector (never a shell
/// string), with its working directory, extra environment and an optional
/// deadline. Every run goes through `children`: its own process group, a
/// parent-death signal, registered for SIGINT/SIGTERM from the moment it
/// starts, stdin from /dev/null.
#[derive(Debug, Clone)]
pub struct Command {
    pub program: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// stopped (TERM, grace, KILL) when it runs longer
    pub deadline: Option<Duration>,
    /// uid and gid the child runs as (set before exec, supplementary
    /// groups dropped); the tool's own when None
    pub user: Option<(u32, u32)>,
}

/// How a streamed command ended.
#[derive(Debug, Clone)]
pub struct Streamed {
    pub status: ExitStatus,
    /// the deadline stopped it
    pub timed_out: bool,
    /// its last lines (stdout and stderr merged), for an error message
    pub tail: String,
}

/// What a metered command (`Command::run_metered`) left behind.
#[derive(Debug, Clone)]
pub struct MeteredRun {
    /// stdout followed by stderr
    pub output: String,
    /// user + system CPU seconds of the command (all its threads, and the
    /// children it reaped itself); None when the kernel's record of it
    /// could not be read
    pub cpu_seconds: Option<f64>,
}

impl Command {
    pub fn new(program: impl Into<String>) -> Command {
        Command {
            program: program.into(),
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
            deadline: None,
            user: None,
        }
    }
    pub fn arg(mut self, arg: impl Into<String>) -> Command {
        self.args.push(arg.into());
        self
    }
    pub fn args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Command {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Command {
        self.dir = Some(dir.into());
        self
    }
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Command {
        self.env.push((key.into(), value.into()));
        self
    }
    pub fn deadline(mut self, limit: Duration) -> Command {
        self.deadline = Some(limit);
        self
    }
    /// Runs the child as this uid and gid: a program that must be the
    /// server's user from its first instruction (Valgrind and its vgdb,
    /// which talk through files only their owner may open).
    pub fn as_user(mut self, uid: u32, gid: u32) -> Command {
        self.user = Some((uid, gid));
        self
    }

    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The program as the kernel should see it. With a working directory
    /// set, duct resolves a relative program path that has a directory part
    /// ("bin/tool") against the tool's own directory, where std (which ran
    /// these commands before) and a shell resolve it against the child's:
    /// joining it to the directory here keeps that meaning.
    fn program(&self) -> PathBuf {
        let program = Path::new(&self.program);
        match &self.dir {
            Some(dir) if program.is_relative() && program.components().count() > 1 => {
                dir.join(program)
            }
            _ => program.to_path_buf(),
        }
    }

    /// This command as a duct expression: argument vector, directory,
    /// environment on top of the tool's, stdin from /dev/null, a process
    /// group of its own with a parent-death signal (the hook runs in the
    /// spawning thread just before the fork), and unchecked, because the
    /// runner judges the exit status itself (its errors name the argument
    /// vector, the deadline and the output's tail).
    fn expression(&self) -> duct::Expression {
        // an OsString program, not a Path: duct prefixes "./" to a relative
        // Path, which would stop the PATH lookup of a bare name
        let program = self.program().into_os_string();
        let user = self.user;
        let mut expr = duct::cmd(program, &self.args)
            .stdin_null()
            .unchecked()
            .before_spawn(move |cmd| {
                crate::children::in_own_group(cmd);
                if let Some((uid, gid)) = user {
                    // std drops the supplementary groups when root sets a uid
                    use std::os::unix::process::CommandExt;
                    cmd.gid(gid).uid(uid);
                }
                Ok(())
            });
        if let Some(dir) = &self.dir {
            expr = expr.dir(dir);
        }
        // every child says which tool started it (crate::stale kills only
        // what a dead tool started), unless the command names another
        if !self.env.iter().any(|(k, _)| k == TOOL_ENV) {
            expr = expr.env(TOOL_ENV, tool_identity());
        }
        for (k, v) in &self.env {
            expr = expr.env(k, v);
        }
        expr
    }

    /// Starts `expr` and registers its group with `children`.
    fn spawn(&self, expr: duct::Expression) -> Result<Child> {
        crate::children::check()?;
        let handle = expr
            .start()
            .with_context(|| format!("cannot start `{}`", self.display()))?;
        let child = Child { handle };
        crate::children::register(child.id() as i32);
        Ok(child)
    }

    /// Starts `expr` as a run of the runner's own, which stops, reaps and
    /// unregisters it on every path.
    fn launch(&self, expr: duct::Expression) -> Result<Running> {
        let child = self.spawn(expr)?;
        Ok(Running {
            // the child leads its group: its pid is the group id
            pgid: child.id() as i32,
            child,
            deadline: self.deadline.map(|limit| Instant::now() + limit),
            timed_out: false,
            finished: false,
        })
    }

    /// Starts the command for a caller that owns the child from then on (a
    /// server it talks to): the same argument vector, directory,
    /// environment, process group, parent-death signal and registration for
    /// SIGINT/SIGTERM as every other run, with stdout and stderr where the
    /// caller says (a file, a pipe, /dev/null). The caller stops the group
    /// and unregisters it when done; a deadline is the caller's too.
    pub fn start(&self, stdout: OwnedFd, stderr: OwnedFd) -> Result<Child> {
        self.spawn(self.expression().stdout_file(stdout).stderr_file(stderr))
    }

    /// The error for a finished run: interrupted, past its deadline, or
    /// failed with `tail`.
    fn failure(
        &self,
        status: ExitStatus,
        timed_out: bool,
        tail: &str,
        log: Option<&Path>,
    ) -> anyhow::Error {
        if let Some(i) = crate::children::interrupted() {
            return anyhow::Error::new(i).context(format!("`{}` was stopped", self.display()));
        }
        let why = if timed_out {
            format!(
                "did not finish within {} s and was stopped",
                self.deadline.unwrap_or_default().as_secs()
            )
        } else {
            format!("failed ({status})")
        };
        match log {
            Some(log) => anyhow::anyhow!(
                "`{}` {why}; full log: {}\nlast lines:\n{tail}",
                self.display(),
                log.display()
            ),
            None => anyhow::anyhow!("`{}` {why}:\n{tail}", self.display()),
        }
    }

    /// Runs the command with its output going where the tool's goes (a
    /// test suite's progress belongs in the CI log); returns its status.
    pub fn status(&self) -> Result<ExitStatus> {
        let mut run = self.launch(self.expression())?;
        let output = run.wait()?;
        crate::children::check()?;
        Ok(output.status)
    }

    /// Runs the command to its end with stdout and stderr captured apart
    /// (by duct's threads).
    fn capture(&self) -> Result<(Output, bool)> {
        let mut run = self.launch(self.expression().stdout_capture().stderr_capture())?;
        let output = run.wait()?;
        Ok((output, run.timed_out))
    }

    /// Runs the command and returns its status and its captured stdout and
    /// stderr, whatever the status (the caller judges it: a compiler's
    /// error is a finding, not a failure of the tool).
    pub fn output(&self) -> Result<Output> {
        let (output, _) = self.capture()?;
        crate::children::check()?;
        Ok(output)
    }

    /// Runs the command and returns its standard output; on failure the
    /// error carries the command line and the tail of its standard error.
    pub fn read(&self) -> Result<String> {
        let (output, timed_out) = self.capture()?;
        if !output.status.success() || timed_out {
            let tail = last_lines(&String::from_utf8_lossy(&output.stderr), STDERR_TAIL_LINES);
            return Err(self.failure(output.status, timed_out, &tail, None));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Runs the command to its end with stdout and stderr captured apart
    /// and measures the CPU time it used; both go to `log` afterwards
    /// (stdout first). A failure, the deadline included, is an error with
    /// the output's tail.
    ///
    /// Where the CPU time comes from: the kernel's record of the exited
    /// child, read from /proc/<pid>/stat between its exit and its reaping.
    /// The runner waits for the exit without reaping (waitid with WNOWAIT,
    /// as duct's own waits do inside), so the pid stays the zombie's and
    /// its counters are final: every thread has ended, nothing runs on. Only
    /// then does duct reap it. The figure is what wait4 gave for the same
    /// pid, in clock ticks (10 ms) instead of microseconds. Not wait4 of our own: duct reaps its
    /// children, and two reapers for one pid race. Not getrusage
    /// (RUSAGE_CHILDREN) deltas around the wait: the counter is the whole
    /// process's, so any child reaped meanwhile by another thread mixes in,
    /// including those duct reaps on its own (a dropped handle's child is
    /// reaped at the next spawn, from whichever thread spawns), which no
    /// mutex of ours can hold back. Not /proc read while it still runs:
    /// whatever it does after the read is lost.
    pub fn run_metered(&self, log: &Path) -> Result<MeteredRun> {
        let mut run = self.launch(self.expression().stdout_capture().stderr_capture())?;
        run.wait_exited_unreaped()?;
        let cpu_seconds = zombie_cpu_seconds(run.pgid);
        let output = run.wait()?;
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        if let Some(dir) = log.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::write(log, format!("$ {}\n{text}", self.display()))
            .with_context(|| format!("cannot write {}", log.display()))?;
        if !output.status.success() || run.timed_out {
            let tail = last_lines(&text, MEASURED_TAIL_LINES);
            return Err(self.failure(output.status, run.timed_out, &tail, Some(log)));
        }
        Ok(MeteredRun {
            output: text,
            cpu_seconds,
        })
    }

    /// Starts the command with stdout and stderr in one pipe and hands each
    /// line (as the bytes came, newline included) to `each` on this thread
    /// until the pipe ends. A thread of its own reads the pipe, so that this
    /// one keeps the deadline even while the command prints nothing.
    fn merged(&self, mut each: impl FnMut(&[u8]) -> Result<()>) -> Result<Running> {
        let (reader, writer) = std::io::pipe()?;
        // The expression keeps the writing end: it is dropped with the
        // expression once the child has its copy, or the pipe never ends.
        // duct applies the outer redirection first, as a shell reads them
        // left to right: stdout to the pipe, then stderr to that stdout.
        let mut run = self.launch(self.expression().stderr_to_stdout().stdout_file(writer))?;
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        let pump = std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if tx.send(line).is_err() => break,
                    Ok(_) => {}
                }
            }
        });
        loop {
            let next = match run.time_left() {
                Some(left) => rx.recv_timeout(left),
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match next {
                Ok(line) => each(&line)?,
                Err(RecvTimeoutError::Timeout) => run.stop_at_deadline(),
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        let _ = pump.join();
        Ok(run)
    }

    /// Runs the command with stdout and stderr merged: each line goes to
    /// `log` (when given, as the bytes came) and to `on_line`. The exit
    /// status is returned whatever it is, with whether the deadline
    /// stopped the command and its last lines; an interrupt of the tool is
    /// an error.
    pub fn stream(&self, log: Option<&Path>, mut on_line: impl FnMut(&str)) -> Result<Streamed> {
        let mut log_file = log.map(|log| self.create_log(log)).transpose()?;
        let mut recent = Tail::new(LOG_TAIL_LINES);
        let mut run = self.merged(|bytes| {
            if let Some(f) = &mut log_file {
                f.write_all(bytes)?;
            }
            let line = String::from_utf8_lossy(bytes);
            let line = line.trim_end();
            on_line(line);
            recent.push(line);
            Ok(())
        })?;
        let output = run.wait()?;
        crate::children::check()?;
        Ok(Streamed {
            status: output.status,
            timed_out: run.timed_out,
            tail: recent.text(),
        })
    }

    /// Runs a long command with its output (stdout and stderr merged)
    /// written to `log`. While it runs, a status line shows the label, the
    /// elapsed time and the command's last line: rewritten in place on a
    /// terminal, printed every 30 s otherwise (CI logs stay readable). On
    /// failure the error carries the last 30 lines of the log.
    pub fn run_logged(&self, label: &str, log: &Path) -> Result<()> {
        let mut log_file = self.create_log(log)?;
        let start = Instant::now();
        let tty = std::io::stderr().is_terminal();
        let mut last_report = Instant::now();
        let mut recent = Tail::new(LOG_TAIL_LINES);
        let mut run = self.merged(|bytes| {
            log_file.write_all(bytes)?;
            let line = String::from_utf8_lossy(bytes);
            let line = line.trim_end();
            let status = format!(
                "    {label} {} | {}",
                human_duration(start.elapsed().as_secs_f64()),
                truncate(line, 100)
            );
            if tty {
                eprint!("\r\x1b[2K{status}");
            } else if last_report.elapsed() >= Duration::from_secs(30) {
                eprintln!("{status}");
                last_report = Instant::now();
            }
            recent.push(line);
            Ok(())
        })?;
        if tty {
            eprintln!();
        }
        let output = run.wait()?;
        if output.status.success() && !run.timed_out {
            return Ok(());
        }
        Err(self.failure(output.status, run.timed_out, &recent.text(), Some(log)))
    }

    /// A new log that begins with the command line.
    fn create_log(&self, log: &Path) -> Result<fs::File> {
        if let Some(dir) = log.parent() {
            fs::create_dir_all(dir)?;
        }
        let mut f =
            fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
        writeln!(f, "$ {}", self.display())?;
        Ok(f)
    }
}

/// A child started for a caller that owns it (`Command::start`): duct's
/// handle behind the three calls such an owner makes. duct reaps it in
/// `wait` and `try_wait`; nothing else may.
#[derive(Debug)]
pub struct Child {
    handle: duct::Handle,
}

impl Child {
    /// Its pid, which is also its process group's id.
    pub fn id(&self) -> u32 {
        self.handle.pids()[0]
    }

    /// Its exit status once it has exited (and is reaped), None while it
    /// runs.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        Ok(self.handle.try_wait()?.map(|o| o.status))
    }

    /// Waits for it to exit, reaps it and returns its exit status.
    pub fn wait(&mut self) -> std::io::Result<ExitStatus> {
        Ok(self.handle.wait()?.status)
    }
}

/// A started command of the runner's own: its child, its group, its
/// deadline. Dropped before it finished (an error, a panic), it stops the
/// group, lets duct reap the child and unregisters the group.
struct Running {
    child: Child,
    pgid: i32,
    /// when the group is stopped; None without one or once it was
    deadline: Option<Instant>,
    /// the deadline stopped it
    timed_out: bool,
    /// reaped and unregistered
    finished: bool,
}

impl Running {
    /// Time left before the deadline, None when there is no deadline (any
    /// more).
    fn time_left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Stops the whole group because the deadline passed.
    fn stop_at_deadline(&mut self) {
        self.deadline = None;
        self.timed_out = true;
        crate::children::terminate_group(self.pgid, DEADLINE_GRACE);
    }

    /// Waits for the child and its captured output, stopping the group at
    /// the deadline (duct's `wait_deadline`); duct reaps it. Then makes
    /// sure nothing of its group is left (a grandchild that kept running
    /// after its parent exited) and unregisters it.
    fn wait(&mut self) -> Result<Output> {
        if let Some(deadline) = self.deadline {
            if self.child.handle.wait_deadline(deadline)?.is_none() {
                self.stop_at_deadline();
            }
        }
        let output = self.child.handle.wait()?.clone();
        self.finish();
        Ok(output)
    }

    /// Waits until the child has exited, stopping the group at the
    /// deadline, without reaping it: its /proc entry stays, final, until
    /// duct reaps it in `wait`. duct cannot wait like this (its waits reap
    /// as they return, and `Handle::try_wait` reaps an exited child even
    /// while it still reports None for output not yet read to its end),
    /// hence waitid with WNOWAIT here, polled, because waitid has no
    /// timeout. Nothing may wait through duct before this returns.
    fn wait_exited_unreaped(&mut self) -> Result<()> {
        loop {
            if exited_unreaped(self.pgid)? {
                return Ok(());
            }
            if self.time_left() == Some(Duration::ZERO) {
                self.stop_at_deadline();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn finish(&mut self) {
        self.finished = true;
        if crate::children::group_alive(self.pgid) {
            crate::children::terminate_group(self.pgid, LEFTOVER_GRACE);
        }
        crate::children::unregister(self.pgid);
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // before any wait: until duct reaps the leader, its pid (the
        // group's id) cannot be given to another process
        crate::children::terminate_group(self.pgid, LEFTOVER_GRACE);
        let _ = self.child.handle.wait();
        self.finish();
    }
}

/// Whether child `pid` has exited, leaving it unreaped (waitid with
/// WNOWAIT and WNOHANG, as duct's shared_child polls).
fn exited_unreaped(pid: i32) -> std::io::Result<bool> {
    use rustix::process::{waitid, Pid, WaitId, WaitIdOptions};
    let pid = Pid::from_raw(pid).ok_or(std::io::ErrorKind::InvalidInput)?;
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
    // no status while the child runs (WNOHANG)
    Ok(waitid(WaitId::Pid(pid), options)?.is_some())
}

/// CPU seconds of an exited, unreaped child from its /proc stat: its own
/// time, all its threads, and that of the children it reaped itself,
/// which is what wait4 reports for it.
fn zombie_cpu_seconds(pid: i32) -> Option<f64> {
    let st = ProcStat::of(pid)?;
    Some(st.ticks_with_reaped_children() as f64 / crate::procfs::clock_ticks_per_second())
}

/// The last lines of a text, kept as they come.
struct Tail {
    lines: VecDeque<String>,
    keep: usize,
}

impl Tail {
    fn new(keep: usize) -> Tail {
        Tail {
            lines: VecDeque::new(),
            keep,
        }
    }

    fn push(&mut self, line: &str) {
        if self.lines.len() == self.keep {
            self.lines.pop_front();
        }
        self.lines.push_back(line.to_string());
    }

    fn text(&self) -> String {
        self.lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

fn last_lines(text: &str, n: usize) -> String {
    let mut tail = Tail::new(n);
    text.lines().for_each(|l| tail.push(l));
    tail.text()
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `pid` is a live process (a zombie waiting for a reaper that
    /// never comes, as PID 1 of a container may leave it, is not).
    fn alive(pid: i32) -> bool {
        ProcStat::of(pid).is_some_and(|st| !st.is_zombie())
    }

    fn wait_gone(pid: i32) -> bool {
        let until = Instant::now() + Duration::from_secs(5);
        while alive(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        !alive(pid)
    }

    /// A shell that starts a grandchild `sleep 30` in its group, says its
    /// pid, and sleeps itself.
    /// How long the sleeper's shell and its grandchild sleep.
    const SLEEP: Duration = Duration::from_secs(30);

    fn sleeper() -> Command {
        let s = SLEEP.as_secs();
        Command::new("sh").args(["-c", &format!("sleep {s} & echo grandchild $!; sleep {s}")])
    }

    fn grandchild_in(text: &str) -> i32 {
        text.lines()
            .find_map(|l| l.strip_prefix("grandchild "))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no grandchild pid in {text:?}"))
    }

    #[test]
    fn a_deadline_stops_the_group_of_every_kind_of_run_in_time_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let limit = Duration::from_millis(500);
        // stopped, not waited for: a run that ends before the group's own
        // sleep would have was ended by the deadline. Not a timing of the
        // stop itself, which a loaded host stretches (5.3 s once, beside a
        // soak and a compile)
        let in_time = SLEEP * 2 / 3;
        let cmd = sleeper().deadline(limit);

        let started = Instant::now();
        let log = dir.path().join("logged.log");
        let err = cmd.run_logged("test", &log).unwrap_err().to_string();
        assert!(started.elapsed() < in_time, "{:?}", started.elapsed());
        assert!(
            err.contains("did not finish within 0 s and was stopped"),
            "{err}"
        );
        let grandchild = grandchild_in(&fs::read_to_string(&log).unwrap());
        assert!(
            wait_gone(grandchild),
            "grandchild {grandchild} outlived the deadline"
        );

        let started = Instant::now();
        let mut seen = String::new();
        let streamed = cmd
            .stream(None, |l| {
                seen.push_str(l);
                seen.push('\n');
            })
            .unwrap();
        assert!(started.elapsed() < in_time, "{:?}", started.elapsed());
        assert!(streamed.timed_out);
        assert!(!streamed.status.success());
        assert!(wait_gone(grandchild_in(&seen)));

        let started = Instant::now();
        let err = cmd.read().unwrap_err().to_string();
        assert!(started.elapsed() < in_time, "{:?}", started.elapsed());
        assert!(err.contains("did not finish within"), "{err}");

        let started = Instant::now();
        let log = dir.path().join("measured.log");
        let err = cmd.run_metered(&log).unwrap_err().to_string();
        assert!(started.elapsed() < in_time, "{:?}", started.elapsed());
        assert!(err.contains("did not finish within"), "{err}");
        assert!(wait_gone(grandchild_in(&fs::read_to_string(&log).unwrap())));

        let started = Instant::now();
        let status = cmd.status().unwrap();
        assert!(started.elapsed() < in_time, "{:?}", started.elapsed());
        assert!(!status.success());
    }

    #[test]
    fn a_grandchild_left_behind_by_a_finished_child_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        // the shell exits at once; its grandchild would sleep on in the group
        let status = Command::new("sh")
            .args([
                "-c",
                &format!(
                    "sleep 30 >/dev/null 2>&1 & echo $! > {}",
                    pid_file.display()
                ),
            ])
            .status()
            .unwrap();
        assert!(status.success());
        let grandchild: i32 = fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(wait_gone(grandchild), "grandchild {grandchild} survived");
    }

    #[test]
    fn a_child_whose_owner_gives_up_is_stopped_with_its_grandchild() {
        // an error in the caller's line handler: the run is dropped midway
        let dir = tempfile::tempdir().unwrap();
        let mut seen = String::new();
        let err = sleeper()
            .merged(|line| {
                seen.push_str(&String::from_utf8_lossy(line));
                anyhow::bail!("the caller gives up")
            })
            .map(|_| ())
            .unwrap_err();
        assert_eq!(err.to_string(), "the caller gives up");
        assert!(wait_gone(grandchild_in(&seen)));
        drop(dir);
    }

    #[test]
    fn a_started_child_leads_its_own_group_until_its_owner_stops_it() {
        let null = || OwnedFd::from(fs::File::create("/dev/null").unwrap());
        let mut child = Command::new("sleep")
            .arg("30")
            .start(null(), null())
            .unwrap();
        let pid = child.id() as i32;
        let group = rustix::process::getpgid(rustix::process::Pid::from_raw(pid)).unwrap();
        assert_eq!(
            group.as_raw_nonzero().get(),
            pid,
            "not its own group's leader"
        );
        assert!(child.try_wait().unwrap().is_none());
        crate::children::kill_group(pid);
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(libc::SIGKILL));
        crate::children::unregister(pid);
    }

    #[test]
    fn stream_tees_every_line_to_the_log_and_returns_the_tail() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("sub/stream.log");
        let script = "i=1; while [ $i -le 40 ]; do echo line $i; i=$((i+1)); done; \
                      echo oops >&2; printf 'no newline'; exit 2";
        let mut lines = Vec::new();
        let streamed = Command::new("sh")
            .args(["-c", script])
            .stream(Some(&log), |l| lines.push(l.to_string()))
            .unwrap();
        assert_eq!(streamed.status.code(), Some(2));
        assert!(!streamed.timed_out);
        assert_eq!(lines.len(), 42, "{lines:?}");
        assert_eq!(lines[0], "line 1");
        assert_eq!(lines[40], "oops");
        let logged = fs::read_to_string(&log).unwrap();
        assert!(logged.starts_with("$ sh -c i=1;"), "{logged}");
        assert!(logged.contains("line 1\nline 2\n"), "{logged}");
        assert!(logged.ends_with("line 40\noops\nno newline"), "{logged}");
        let tail: Vec<&str> = streamed.tail.lines().collect();
        assert_eq!(tail.len(), LOG_TAIL_LINES);
        assert_eq!(tail.first(), Some(&"line 13"));
        assert_eq!(tail.last(), Some(&"no newline"));
    }

    #[test]
    fn a_failing_command_names_its_argv_and_the_tail_of_its_output() {
        let dir = tempfile::tempdir().unwrap();
        let script =
            "echo compiling; i=0; while [ $i -lt 40 ]; do echo step $i; i=$((i+1)); done; \
                      echo 'error: boom' >&2; exit 3";
        let cmd = Command::new("sh").args(["-c", script]);
        let argv = format!("`sh -c {script}`");

        let log = dir.path().join("step.log");
        let err = cmd.run_logged("test", &log).unwrap_err().to_string();
        assert!(err.starts_with(&argv), "{err}");
        assert!(err.contains("failed (exit status: 3)"), "{err}");
        assert!(
            err.contains(&format!("full log: {}", log.display())),
            "{err}"
        );
        assert!(err.ends_with("step 39\nerror: boom"), "{err}");
        // the last 30 lines, not the whole output
        assert!(err.contains("last lines:\nstep 11\n"), "{err}");
        assert!(fs::read_to_string(&log).unwrap().contains("compiling"));

        let err = cmd.read().unwrap_err().to_string();
        assert!(err.starts_with(&argv), "{err}");
        assert!(
            err.ends_with("failed (exit status: 3):\nerror: boom"),
            "{err}"
        );

        let log = dir.path().join("measured.log");
        let err = cmd.run_metered(&log).unwrap_err().to_string();
        assert!(err.starts_with(&argv), "{err}");
        assert!(err.contains("failed (exit status: 3)"), "{err}");
        assert!(err.ends_with("step 39\nerror: boom"), "{err}");

        let err = Command::new("/nonexistent/tool")
            .arg("x")
            .read()
            .unwrap_err();
        assert!(
            format!("{err:#}").contains("cannot start `/nonexistent/tool x`"),
            "{err:#}"
        );
    }

    #[test]
    fn read_and_output_return_what_the_command_printed() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("bin")).unwrap();
        let script = dir.path().join("bin/hello");
        fs::write(
            &script,
            "#!/bin/sh\necho \"$GREETING from $(pwd)\"\necho warn >&2\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        // a relative program with a directory part is found from `dir`, as
        // a shell would
        let cmd = Command::new("bin/hello")
            .dir(dir.path())
            .env("GREETING", "hi");
        let here = dir.path().canonicalize().unwrap();
        assert_eq!(cmd.read().unwrap(), format!("hi from {}\n", here.display()));
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        assert_eq!(out.stderr, b"warn\n");
        // stdin is /dev/null: cat ends at once
        assert_eq!(Command::new("cat").read().unwrap(), "");
    }

    #[test]
    fn the_cpu_time_of_a_busy_child_is_measured() {
        let dir = tempfile::tempdir().unwrap();
        let busy = "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done";
        let started = Instant::now();
        let run = Command::new("sh")
            .args(["-c", &format!("{busy}; echo done")])
            .run_metered(&dir.path().join("busy.log"))
            .unwrap();
        let wall = started.elapsed().as_secs_f64();
        assert_eq!(run.output, "done\n");
        let cpu = run.cpu_seconds.expect("CPU time read");
        eprintln!("one busy shell: {cpu:.2} s CPU in {wall:.2} s");
        assert!(cpu > 0.05 && cpu <= wall + 0.02, "cpu {cpu} s in {wall} s");

        // the children it reaped count too, as wait4 reported them: at
        // least what the shell's own `times` says its reaped children used
        // (a ratio of two runs' CPU time would be a time, and moves with
        // the host's load)
        let run = Command::new("sh")
            .args(["-c", &format!("({busy}) & ({busy}) & wait; times")])
            .run_metered(&dir.path().join("two.log"))
            .unwrap();
        let two = run.cpu_seconds.unwrap();
        let children = shell_times_of_children(&run.output);
        eprintln!("two busy subshells: {two:.2} s CPU, the shell's `times`: {children:.2} s");
        assert!(children > 0.05, "the subshells used {children} s");
        // one clock tick of rounding either way
        assert!(
            two + 0.01 >= children,
            "measured {two} s, the shell's children used {children} s"
        );
    }

    /// The user and system seconds of a shell's reaped children: the
    /// second line of POSIX `times`, `0m0.670000s 0m0.000000s`.
    fn shell_times_of_children(output: &str) -> f64 {
        let line = output.lines().nth(1).expect("two lines of `times`");
        line.split_whitespace()
            .map(|field| {
                let (minutes, seconds) = field
                    .trim_end_matches('s')
                    .split_once('m')
                    .unwrap_or_else(|| panic!("not a `times` field: {field}"));
                minutes.parse::<f64>().unwrap() * 60.0 + seconds.parse::<f64>().unwrap()
            })
            .sum()
    }

    #[test]
    fn a_measured_child_is_not_charged_with_other_threads_children() {
        let dir = tempfile::tempdir().unwrap();
        // a busy child of another thread, reaped while sleep runs: a
        // RUSAGE_CHILDREN delta around the wait would count it
        let other = std::thread::spawn(|| {
            let started = Instant::now();
            Command::new("sh")
                .args([
                    "-c",
                    "sleep 0.1; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done",
                ])
                .status()
                .unwrap();
            started.elapsed()
        });
        let run = Command::new("sleep")
            .arg("1.5")
            .run_metered(&dir.path().join("sleep.log"))
            .unwrap();
        let took = other.join().unwrap();
        assert!(
            took < Duration::from_millis(1500),
            "the busy child took {took:?}"
        );
        let cpu = run.cpu_seconds.unwrap();
        eprintln!("sleep 1.5 beside a busy child of another thread: {cpu:.2} s CPU");
        assert!(cpu < 0.05, "sleep was charged {cpu} s");
    }
}
