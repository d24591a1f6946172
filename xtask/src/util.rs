//! Small helpers shared by the stages: where the cache lives, how a long
//! external command is run and logged, how result files are written.

use anyhow::{Context, Result};
use std::collections::VecDeque;
use std::fs;
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The directory under which sources, builds, ccache and datadir templates
/// live. Never inside the repository: MariaDB source must not be committed.
/// `INNODB_LAB_CACHE` overrides the default `~/.cache/innodb-lab`.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("INNODB_LAB_CACHE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/root".into());
    home.join(".cache").join("innodb-lab")
}

/// The repository root (the workspace), found from this crate's manifest.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// Writes `bytes` to `path` atomically: a temporary file in the same
/// directory, then a rename, so a reader never sees half a result.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot create a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path)
        .with_context(|| format!("cannot rename the temporary file to {}", path.display()))?;
    Ok(())
}

/// Serializes `value` as pretty JSON and writes it atomically.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<()> {
    let mut text = serde_json::to_vec_pretty(value)?;
    text.push(b'\n');
    write_atomic(path, &text)
}

/// The last `n` lines of a text file (lossy UTF-8), for error messages.
pub fn tail_lines(path: &Path, n: usize) -> String {
    let Ok(bytes) = fs::read(path) else {
        return format!("(no file {})", path.display());
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A stage of work whose wall time is printed when it ends, so every log
/// says how long download, configure, build, prepare and each run took.
pub struct Stage {
    label: String,
    start: Instant,
}

impl Stage {
    pub fn start(label: impl Into<String>) -> Stage {
        let label = label.into();
        eprintln!("==> {label}");
        Stage {
            label,
            start: Instant::now(),
        }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Prints the stage's wall time and returns it in seconds.
    pub fn done(self) -> f64 {
        let secs = self.start.elapsed().as_secs_f64();
        eprintln!("<== {} ({})", self.label, human_duration(secs));
        secs
    }
}

pub fn human_duration(secs: f64) -> String {
    if secs < 60.0 {
        format!("{secs:.1} s")
    } else {
        let s = secs.round() as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

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
}

impl Command {
    pub fn new(program: impl Into<String>) -> Command {
        Command {
            program: program.into(),
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
            deadline: None,
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

    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The std command with this argument vector, directory and
    /// environment, and no standard input.
    fn std_command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(&self.program);
        cmd.args(&self.args).stdin(std::process::Stdio::null());
        if let Some(dir) = &self.dir {
            cmd.current_dir(dir);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Starts the command for a caller that owns the child from then on (a
    /// server it talks to, a process it reaps itself with wait4): the same
    /// argument vector, directory, environment, process group, parent-death
    /// signal and registration for SIGINT/SIGTERM as every other run, with
    /// stdout and stderr where the caller says. The caller stops the group
    /// and unregisters it when done; a deadline is the caller's too.
    pub fn start(
        &self,
        stdout: std::process::Stdio,
        stderr: std::process::Stdio,
    ) -> Result<std::process::Child> {
        crate::children::check()?;
        let mut cmd = self.std_command();
        cmd.stdout(stdout).stderr(stderr);
        crate::children::in_own_group(&mut cmd);
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start `{}`", self.display()))?;
        crate::children::register(child.id() as i32);
        Ok(child)
    }

    /// Starts the command with stdout and stderr piped (into one pipe when
    /// `merged`), registered with `children`.
    fn spawn(&self, merged: bool) -> Result<Running> {
        crate::children::check()?;
        let mut cmd = self.std_command();
        let reader = if merged {
            let (r, w) = std::io::pipe()?;
            cmd.stdout(w.try_clone()?).stderr(w);
            Some(r)
        } else {
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            None
        };
        crate::children::in_own_group(&mut cmd);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("cannot start `{}`", self.display()))?;
        // the writing ends live on only in the child
        drop(cmd);
        let pgid = child.id() as i32;
        crate::children::register(pgid);
        let watchdog = self.deadline.map(|limit| Watchdog::start(pgid, limit));
        Ok(Running {
            merged: reader,
            stdout: child.stdout.take(),
            stderr: child.stderr.take(),
            child,
            pgid,
            watchdog,
        })
    }

    /// The error for a finished run: interrupted, past its deadline, or
    /// failed with `tail`.
    fn failure(
        &self,
        status: std::process::ExitStatus,
        run: &Running,
        tail: &str,
        log: Option<&Path>,
    ) -> anyhow::Error {
        if let Some(i) = crate::children::interrupted() {
            return anyhow::Error::new(i).context(format!("`{}` was stopped", self.display()));
        }
        let why = if run.watchdog.as_ref().is_some_and(Watchdog::fired) {
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
    pub fn status(&self) -> Result<std::process::ExitStatus> {
        crate::children::check()?;
        let mut cmd = self.std_command();
        crate::children::in_own_group(&mut cmd);
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start `{}`", self.display()))?;
        let pgid = child.id() as i32;
        crate::children::register(pgid);
        let mut run = Running {
            child,
            pgid,
            merged: None,
            stdout: None,
            stderr: None,
            watchdog: self.deadline.map(|limit| Watchdog::start(pgid, limit)),
        };
        let status = run.wait()?;
        crate::children::check()?;
        Ok(status)
    }

    /// Runs the command to its end with stdout and stderr captured apart.
    fn capture(&self) -> Result<(Running, std::process::Output)> {
        let mut run = self.spawn(false)?;
        let mut stdout = run.stdout.take().expect("piped");
        let mut stderr = run.stderr.take().expect("piped");
        let err_reader = std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stderr, &mut s);
            s
        });
        let mut out = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut out);
        let err = err_reader.join().unwrap_or_default();
        let status = run.wait()?;
        let output = std::process::Output {
            status,
            stdout: out,
            stderr: err,
        };
        Ok((run, output))
    }

    /// Runs the command and returns its status and its captured stdout and
    /// stderr, whatever the status (the caller judges it: a compiler's
    /// error is a finding, not a failure of the tool).
    pub fn output(&self) -> Result<std::process::Output> {
        let (_, output) = self.capture()?;
        crate::children::check()?;
        Ok(output)
    }

    /// Runs the command and returns its standard output; on failure the
    /// error carries the command line and the tail of its standard error.
    pub fn read(&self) -> Result<String> {
        let (run, output) = self.capture()?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
            let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
            return Err(self.failure(output.status, &run, &tail, None));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Runs the command with stdout and stderr merged: each line goes to
    /// `log` (when given, as the bytes came) and to `on_line`. The exit
    /// status is returned whatever it is, with whether the deadline
    /// stopped the command; an interrupt of the tool is an error.
    pub fn stream(&self, log: Option<&Path>, mut on_line: impl FnMut(&str)) -> Result<Streamed> {
        let mut log_file = match log {
            Some(log) => {
                if let Some(dir) = log.parent() {
                    fs::create_dir_all(dir)?;
                }
                let mut f = fs::File::create(log)
                    .with_context(|| format!("cannot create {}", log.display()))?;
                writeln!(f, "$ {}", self.display())?;
                Some(f)
            }
            None => None,
        };
        let mut run = self.spawn(true)?;
        let mut reader = BufReader::new(run.merged.take().expect("merged pipe"));
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match std::io::BufRead::read_until(&mut reader, b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if let Some(f) = &mut log_file {
                f.write_all(&buf)?;
            }
            on_line(String::from_utf8_lossy(&buf).trim_end());
        }
        let status = run.wait()?;
        crate::children::check()?;
        Ok(Streamed {
            status,
            timed_out: run.watchdog.as_ref().is_some_and(Watchdog::fired),
        })
    }

    /// Runs a long command with its output (stdout and stderr merged)
    /// written to `log`. While it runs, a status line shows the label, the
    /// elapsed time and the command's last line: rewritten in place on a
    /// terminal, printed every 30 s otherwise (CI logs stay readable). On
    /// failure the error carries the last 30 lines of the log.
    pub fn run_logged(&self, label: &str, log: &Path) -> Result<()> {
        if let Some(dir) = log.parent() {
            fs::create_dir_all(dir)?;
        }
        let mut log_file =
            fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
        writeln!(log_file, "$ {}", self.display())?;
        let mut run = self.spawn(true)?;
        let reader = run.merged.take().expect("merged pipe");
        let start = Instant::now();
        let tty = std::io::stderr().is_terminal();
        let mut last_report = Instant::now();
        let mut recent: VecDeque<String> = VecDeque::new();
        let mut lines = BufReader::new(reader).lines();
        while let Some(line) = lines.next().transpose().unwrap_or(None) {
            writeln!(log_file, "{line}")?;
            let status = format!(
                "    {label} {} | {}",
                human_duration(start.elapsed().as_secs_f64()),
                truncate(&line, 100)
            );
            if tty {
                eprint!("\r\x1b[2K{status}");
            } else if last_report.elapsed() >= Duration::from_secs(30) {
                eprintln!("{status}");
                last_report = Instant::now();
            }
            recent.push_back(line);
            if recent.len() > 30 {
                recent.pop_front();
            }
        }
        if tty {
            eprintln!();
        }
        let status = run.wait()?;
        if status.success() {
            return Ok(());
        }
        let tail = recent.into_iter().collect::<Vec<_>>().join("\n");
        Err(self.failure(status, &run, &tail, Some(log)))
    }
}

/// How a streamed command ended.
#[derive(Debug, Clone, Copy)]
pub struct Streamed {
    pub status: std::process::ExitStatus,
    /// the deadline stopped it
    pub timed_out: bool,
}

/// A started command: its child, its pipes, its deadline.
struct Running {
    child: std::process::Child,
    pgid: i32,
    merged: Option<std::io::PipeReader>,
    stdout: Option<std::process::ChildStdout>,
    stderr: Option<std::process::ChildStderr>,
    watchdog: Option<Watchdog>,
}

impl Running {
    /// Waits for the child, then makes sure nothing of its group is left
    /// (a grandchild that kept running after its parent exited).
    fn wait(&mut self) -> Result<std::process::ExitStatus> {
        let status = self.child.wait()?;
        if let Some(w) = &self.watchdog {
            w.finish();
        }
        if crate::children::group_alive(self.pgid) {
            crate::children::terminate_group(self.pgid, Duration::from_secs(5));
        }
        crate::children::unregister(self.pgid);
        Ok(status)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            crate::children::terminate_group(self.pgid, Duration::from_secs(5));
            let _ = self.child.wait();
        }
        crate::children::unregister(self.pgid);
    }
}

/// Stops a process group when it outlives its deadline.
struct Watchdog {
    state: std::sync::Arc<(std::sync::Mutex<(bool, bool)>, std::sync::Condvar)>,
}

impl Watchdog {
    fn start(pgid: i32, limit: Duration) -> Watchdog {
        // (finished, fired)
        let state = std::sync::Arc::new((
            std::sync::Mutex::new((false, false)),
            std::sync::Condvar::new(),
        ));
        let s = state.clone();
        std::thread::spawn(move || {
            let (lock, cv) = &*s;
            let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
            let (mut guard, timeout) = cv
                .wait_timeout_while(guard, limit, |st| !st.0)
                .unwrap_or_else(|e| e.into_inner());
            if timeout.timed_out() && !guard.0 {
                guard.1 = true;
                drop(guard);
                crate::children::terminate_group(pgid, Duration::from_secs(10));
            }
        });
        Watchdog { state }
    }

    fn finish(&self) {
        let (lock, cv) = &*self.state;
        lock.lock().unwrap_or_else(|e| e.into_inner()).0 = true;
        cv.notify_all();
    }

    fn fired(&self) -> bool {
        self.state.0.lock().unwrap_or_else(|e| e.into_inner()).1
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.finish();
    }
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// sha256 of bytes as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Replaces characters that are awkward in paths with `-`.
pub fn slug(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x/result.json");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"second");
        // no temporary file is left behind
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1);
    }

    #[test]
    fn failed_command_reports_its_log_tail() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("step.log");
        let err = Command::new("sh")
            .args(["-c", "echo compiling; echo 'error: boom' >&2; exit 3"])
            .run_logged("test", &log)
            .unwrap_err()
            .to_string();
        assert!(err.contains("error: boom"), "{err}");
        assert!(err.contains("exit status: 3"), "{err}");
        assert!(fs::read_to_string(&log).unwrap().contains("compiling"));
    }

    #[test]
    fn a_command_past_its_deadline_is_stopped_with_its_group() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("step.log");
        let err = Command::new("sh")
            .args(["-c", "echo started; sleep 300 & wait"])
            .deadline(Duration::from_millis(300))
            .run_logged("test", &log)
            .unwrap_err()
            .to_string();
        assert!(err.contains("did not finish within"), "{err}");
        assert!(err.contains("started"), "the tail is in the error: {err}");
    }

    #[test]
    fn slug_keeps_versions_readable() {
        assert_eq!(
            slug("mariadb=1:10.11.18-0+deb12u1"),
            "mariadb-1-10.11.18-0-deb12u1"
        );
    }
}
