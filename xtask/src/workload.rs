//! Workloads: sysbench prepare, the arming phase, an unmeasured warm-up,
//! the measured run and an optional diagnostic pass with the buf_pool.mutex
//! instrument on.

use crate::children;
use crate::metrics::{self, Measured, Snapshot};
use crate::server::Server;
use crate::util::{human_duration, repo_root};
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A workload as a matrix describes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// One of Mark's test names: points-covered-pk, points-notcovered-pk,
    /// points-covered-si, points-notcovered-si.
    pub name: String,
    #[serde(default = "defaults::tables")]
    pub tables: u32,
    #[serde(default = "defaults::table_size")]
    pub table_size: u64,
    #[serde(default = "defaults::threads")]
    pub threads: u32,
    /// Ids per IN-list.
    #[serde(default = "defaults::random_points")]
    pub random_points: u32,
    /// oltp_read_write with innodb_max_dirty_pages_pct(_lwm)=1 before the
    /// read test, as Mark's write tests and load do: it starts
    /// freed_page_clock. 0 skips it.
    #[serde(default = "defaults::arm_seconds")]
    pub arm_seconds: u64,
    #[serde(default = "defaults::warmup_seconds")]
    pub warmup_seconds: u64,
    #[serde(default = "defaults::measure_seconds")]
    pub measure_seconds: u64,
    /// A separate pass with the buf_pool.mutex instrument on (it changes
    /// the timing, so it is never the measured run). 0 skips it.
    #[serde(default = "defaults::diagnostic_seconds")]
    pub diagnostic_seconds: u64,
}

mod defaults {
    pub fn tables() -> u32 {
        8
    }
    pub fn table_size() -> u64 {
        100_000
    }
    pub fn threads() -> u32 {
        2
    }
    pub fn random_points() -> u32 {
        100
    }
    pub fn arm_seconds() -> u64 {
        10
    }
    pub fn warmup_seconds() -> u64 {
        5
    }
    pub fn measure_seconds() -> u64 {
        20
    }
    pub fn diagnostic_seconds() -> u64 {
        10
    }
}

impl Workload {
    /// A workload with every parameter at its default.
    pub fn new(name: &str) -> Workload {
        Workload {
            name: name.to_string(),
            tables: defaults::tables(),
            table_size: defaults::table_size(),
            threads: defaults::threads(),
            random_points: defaults::random_points(),
            arm_seconds: defaults::arm_seconds(),
            warmup_seconds: defaults::warmup_seconds(),
            measure_seconds: defaults::measure_seconds(),
            diagnostic_seconds: defaults::diagnostic_seconds(),
        }
    }

    /// Script options for the workload's name.
    fn script_options(&self) -> Result<Vec<String>> {
        let opts: &[&str] = match self.name.as_str() {
            "points-covered-pk" => &["--on-id=true", "--covered=true"],
            "points-notcovered-pk" => &["--on-id=true", "--covered=false"],
            "points-covered-si" => &["--on-id=false", "--covered=true"],
            "points-notcovered-si" => &["--on-id=false", "--covered=false"],
            other => bail!(
                "unknown workload `{other}` (known: points-covered-pk, points-notcovered-pk, \
                 points-covered-si, points-notcovered-si)"
            ),
        };
        Ok(opts.iter().map(|s| s.to_string()).collect())
    }

    pub fn validate(&self) -> Result<()> {
        self.script_options()?;
        if self.tables == 0 || self.table_size == 0 || self.threads == 0 || self.random_points == 0
        {
            bail!(
                "workload `{}`: tables, table_size, threads and random_points must be at least 1",
                self.name
            );
        }
        if self.measure_seconds == 0 {
            bail!(
                "workload `{}`: measure_seconds must be at least 1",
                self.name
            );
        }
        Ok(())
    }
}

/// Wall time of one phase of a run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Phase {
    pub name: String,
    pub seconds: f64,
}

/// The diagnostic pass: same workload, instrument on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Diagnostic {
    pub measured: Measured,
    pub buf_pool_mutex_acquisitions: u64,
    pub buf_pool_mutex_wait_ms: f64,
}

/// Everything a workload produced on one server.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Outcome {
    pub sysbench_commands: Vec<String>,
    pub phases: Vec<Phase>,
    pub measured: Option<Measured>,
    pub diagnostic: Option<Diagnostic>,
    /// sysbench's full output of the measured run
    pub measured_output: String,
}

fn lua_dir() -> PathBuf {
    repo_root().join("workloads/lua")
}

/// The sysbench command line of a phase.
fn sysbench_args(
    w: &Workload,
    server: &Server,
    script: &str,
    command: &str,
    seconds: u64,
) -> Result<Vec<String>> {
    let mut args = vec![
        script.to_string(),
        "--db-driver=mysql".into(),
        format!("--mysql-socket={}", server.dir.socket.display()),
        "--mysql-user=root".into(),
        "--mysql-db=sbtest".into(),
        format!("--tables={}", w.tables),
        format!("--table-size={}", w.table_size),
        "--rand-type=uniform".into(),
        "--mysql-storage-engine=innodb".into(),
    ];
    if script.ends_with("oltp_points_covered.lua") {
        args.extend(w.script_options()?);
        args.push(format!("--random-points={}", w.random_points));
        args.push("--skip-trx".into());
    }
    if command == "prepare" {
        // prepare loads tables in parallel, one thread per table at most
        args.push(format!("--threads={}", w.tables.min(w.threads.max(2))));
    } else {
        args.push(format!("--threads={}", w.threads));
        args.push(format!("--time={seconds}"));
        args.push("--events=0".into());
        args.push("--report-interval=0".into());
    }
    args.push(command.to_string());
    Ok(args)
}

/// Runs sysbench in its own process group, registered for Ctrl-C, with a
/// deadline; returns its output, or an error with the output's tail.
fn sysbench(args: &[String], timeout: Duration, log: &Path) -> Result<String> {
    let mut cmd = std::process::Command::new("sysbench");
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    // sysbench finds oltp_common.lua in its own pkgdatadir, our scripts by path
    children::in_own_group(&mut cmd);
    let mut child = cmd
        .spawn()
        .context("cannot start sysbench (apt-get install sysbench)")?;
    let pgid = child.id() as i32;
    children::register(pgid);
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
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if Instant::now() > deadline {
            children::terminate_group(pgid, Duration::from_secs(5));
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    children::unregister(pgid);
    let output = out_reader.join().unwrap_or_default() + &err_reader.join().unwrap_or_default();
    let _ = std::fs::write(log, format!("$ sysbench {}\n{output}", args.join(" ")));
    match status {
        Some(s) if s.success() => Ok(output),
        other => {
            let tail: Vec<&str> = output.lines().rev().take(15).collect();
            bail!(
                "sysbench {} {}; output tail:\n{}",
                args.last().map(String::as_str).unwrap_or(""),
                match other {
                    Some(s) => format!("failed ({s})"),
                    None => format!("did not finish within {} s", timeout.as_secs()),
                },
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            )
        }
    }
}

/// Runs all phases of `w` on `server`, logging sysbench output into `logs`.
pub fn execute(w: &Workload, server: &mut Server, logs: &Path) -> Result<Outcome> {
    std::fs::create_dir_all(logs)?;
    let mut out = Outcome::default();
    let script = lua_dir()
        .join("oltp_points_covered.lua")
        .display()
        .to_string();
    let slack = Duration::from_secs(300);
    let mut conn = server.connect()?;
    conn.query_drop("CREATE DATABASE IF NOT EXISTS sbtest")?;

    let phase = |out: &mut Outcome,
                 name: &str,
                 f: &mut dyn FnMut(&mut Outcome) -> Result<()>|
     -> Result<()> {
        let start = Instant::now();
        eprintln!("    {name} ...");
        f(out).with_context(|| format!("phase `{name}`"))?;
        let seconds = start.elapsed().as_secs_f64();
        eprintln!("    {name} done ({})", human_duration(seconds));
        out.phases.push(Phase {
            name: name.to_string(),
            seconds,
        });
        Ok(())
    };

    phase(&mut out, "prepare", &mut |out| {
        let args = sysbench_args(w, server, &script, "prepare", 0)?;
        out.sysbench_commands
            .push(format!("sysbench {}", args.join(" ")));
        sysbench(&args, Duration::from_secs(3600), &logs.join("prepare.log")).map(|_| ())
    })?;

    if w.arm_seconds > 0 {
        phase(&mut out, "arm", &mut |out| {
            let saved: (f64, f64) = conn
                .query_first(
                    "SELECT @@innodb_max_dirty_pages_pct, @@innodb_max_dirty_pages_pct_lwm",
                )?
                .context("cannot read innodb_max_dirty_pages_pct")?;
            // lwm first: it may not exceed the pct
            conn.query_drop("SET GLOBAL innodb_max_dirty_pages_pct_lwm = 1")?;
            conn.query_drop("SET GLOBAL innodb_max_dirty_pages_pct = 1")?;
            let args = sysbench_args(w, server, "oltp_read_write", "run", w.arm_seconds)?;
            out.sysbench_commands
                .push(format!("sysbench {}", args.join(" ")));
            let result = sysbench(
                &args,
                Duration::from_secs(w.arm_seconds) + slack,
                &logs.join("arm.log"),
            );
            // numeric literals: these variables refuse a string argument
            conn.query_drop(format!(
                "SET GLOBAL innodb_max_dirty_pages_pct = {}",
                saved.0
            ))?;
            conn.query_drop(format!(
                "SET GLOBAL innodb_max_dirty_pages_pct_lwm = {}",
                saved.1
            ))?;
            result.map(|_| ())
        })?;
    }

    if w.warmup_seconds > 0 {
        phase(&mut out, "warm-up", &mut |out| {
            let args = sysbench_args(w, server, &script, "run", w.warmup_seconds)?;
            out.sysbench_commands
                .push(format!("sysbench {}", args.join(" ")));
            sysbench(
                &args,
                Duration::from_secs(w.warmup_seconds) + slack,
                &logs.join("warmup.log"),
            )
            .map(|_| ())
        })?;
    }

    let pid = server.pid;
    phase(&mut out, "measured", &mut |out| {
        let args = sysbench_args(w, server, &script, "run", w.measure_seconds)?;
        out.sysbench_commands
            .push(format!("sysbench {}", args.join(" ")));
        let before = Snapshot::take(&mut conn, pid, false)?;
        let output = sysbench(
            &args,
            Duration::from_secs(w.measure_seconds) + slack,
            &logs.join("measured.log"),
        )?;
        let after = Snapshot::take(&mut conn, pid, false)?;
        out.measured = Some(Measured::from(
            metrics::parse_sysbench(&output)?,
            &before,
            &after,
        ));
        out.measured_output = output;
        Ok(())
    })?;

    if w.diagnostic_seconds > 0 {
        phase(&mut out, "diagnostic", &mut |out| {
            metrics::instrument_buf_pool_mutex(&mut conn, true)?;
            let args = sysbench_args(w, server, &script, "run", w.diagnostic_seconds)?;
            out.sysbench_commands
                .push(format!("sysbench {}", args.join(" ")));
            let before = Snapshot::take(&mut conn, pid, true)?;
            let output = sysbench(
                &args,
                Duration::from_secs(w.diagnostic_seconds) + slack,
                &logs.join("diagnostic.log"),
            )?;
            let after = Snapshot::take(&mut conn, pid, true)?;
            metrics::instrument_buf_pool_mutex(&mut conn, false)?;
            let measured = Measured::from(metrics::parse_sysbench(&output)?, &before, &after);
            let (c0, w0) = before.buf_pool_mutex.unwrap_or_default();
            let (c1, w1) = after.buf_pool_mutex.unwrap_or_default();
            out.diagnostic = Some(Diagnostic {
                measured,
                buf_pool_mutex_acquisitions: c1.saturating_sub(c0),
                buf_pool_mutex_wait_ms: w1.saturating_sub(w0) as f64 / 1e9,
            });
            Ok(())
        })?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_workloads_are_refused_with_the_known_names() {
        let w = Workload::new("points-covered-pkk");
        let err = w.validate().unwrap_err().to_string();
        assert!(
            err.contains("points-covered-pkk") && err.contains("points-covered-pk,"),
            "{err}"
        );
    }

    #[test]
    fn the_lua_script_is_in_the_repository() {
        let text = std::fs::read_to_string(lua_dir().join("oltp_points_covered.lua")).unwrap();
        assert!(text.contains("require(\"oltp_common\")") && text.contains("WHERE %s IN (%s)"));
    }
}
