//! Small helpers shared by the stages: where the cache lives, how a long
//! external command is run and logged, how result files are written.

use anyhow::{bail, Context, Result};
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
/// string), with its working directory and extra environment.
#[derive(Debug, Clone)]
pub struct Command {
    pub program: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub env: Vec<(String, String)>,
}

impl Command {
    pub fn new(program: impl Into<String>) -> Command {
        Command {
            program: program.into(),
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
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

    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn expression(&self) -> duct::Expression {
        let mut expr = duct::cmd(&self.program, &self.args);
        if let Some(dir) = &self.dir {
            expr = expr.dir(dir);
        }
        for (k, v) in &self.env {
            expr = expr.env(k, v);
        }
        expr
    }

    /// Runs the command and returns its standard output; on failure the
    /// error carries the command line and the tail of its standard error.
    pub fn read(&self) -> Result<String> {
        let out = self
            .expression()
            .stdout_capture()
            .stderr_capture()
            .unchecked()
            .run()
            .with_context(|| format!("cannot start `{}`", self.display()))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
            bail!(
                "`{}` failed ({}):\n{}",
                self.display(),
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
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
        let reader = self
            .expression()
            .stderr_to_stdout()
            .unchecked()
            .reader()
            .with_context(|| format!("cannot start `{}`", self.display()))?;
        let start = Instant::now();
        let tty = std::io::stderr().is_terminal();
        let mut last_report = Instant::now();
        let mut recent: VecDeque<String> = VecDeque::new();
        let mut lines = BufReader::new(&reader).lines();
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
        let output = reader.try_wait()?;
        let status = output.map(|o| o.status);
        match status {
            Some(s) if s.success() => Ok(()),
            other => bail!(
                "`{}` failed ({}); full log: {}\nlast lines:\n{}",
                self.display(),
                other
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| "no exit status".into()),
                log.display(),
                recent.into_iter().collect::<Vec<_>>().join("\n")
            ),
        }
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
    fn slug_keeps_versions_readable() {
        assert_eq!(
            slug("mariadb=1:10.11.18-0+deb12u1"),
            "mariadb-1-10.11.18-0-deb12u1"
        );
    }
}
