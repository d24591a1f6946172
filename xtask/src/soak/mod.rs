//! `cargo xtask soak MATRIX --seed N --faults K`: runs a matrix while
//! seeded faults hit its servers, its sysbench clients and the tool
//! itself, running the same matrix command again each time the tool
//! stops, until it completes; then checks that the results are what a run
//! without faults leaves and that nothing of the soak is left behind.
//!
//! The tool is run as a child process, exactly as a user runs it, so a
//! SIGKILL of the tool is the real thing: its servers and clients are
//! orphaned, and the next run must clean them up. A fault that finds no
//! process to hit (a server between cells, sysbench during a build) hits
//! nothing and is reported so. The schedule depends on the seed alone; the
//! moments the faults land on depend on the host's speed, so a replay is
//! the same faults at the same times, not the same interleaving.

pub mod checks;
pub mod faults;

use crate::procfs::ProcStat;
use crate::util::{Child, Command};
use anyhow::{bail, Context, Result};
use faults::{Action, Fault};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to soak, as the command line says it.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    pub matrix: PathBuf,
    pub seed: u64,
    pub faults: u32,
    /// seconds between faults: uniform in this range
    pub gap: (u64, u64),
    pub out: PathBuf,
    /// runs of the tool at most, the first included
    pub max_runs: u32,
}

/// Runs the soak; an error names the seed that replays it.
pub fn run(opts: &SoakOptions) -> Result<()> {
    let matrix = crate::matrix::load(&opts.matrix)?;
    let schedule = faults::schedule(opts.seed, opts.faults, opts.gap);
    let replay = format!(
        "cargo xtask soak {} --seed {} --faults {} --out {}",
        opts.matrix.display(),
        opts.seed,
        opts.faults,
        opts.out.display()
    );
    eprintln!(
        "==> soak of {} with seed {}:",
        opts.matrix.display(),
        opts.seed
    );
    for (i, f) in schedule.iter().enumerate() {
        eprintln!(
            "    fault {}: {f}, {} s after the one before",
            i + 1,
            f.after.as_secs()
        );
    }
    let soak_started = ProcStat::of(std::process::id() as i32)
        .context("cannot read this process's start time from /proc")?
        .start_time;
    let started = Instant::now();
    let mut pending = schedule.iter().copied().peekable();
    let mut landed;
    let mut runs = 0;
    loop {
        runs += 1;
        if runs > opts.max_runs {
            bail!(
                "the matrix did not complete in {} runs of the tool (replay: {replay})",
                opts.max_runs
            );
        }
        eprintln!(
            "==> run {runs} of the tool ({:.0} s into the soak)",
            started.elapsed().as_secs_f64()
        );
        let mut tool = start_tool(&opts.matrix, &opts.out)?;
        let code = inject_while_running(&mut tool, &mut pending, soak_started, started);
        crate::children::unregister(tool.id() as i32);
        let code = code?;
        landed = schedule.len() - pending.len();
        eprintln!("<== run {runs} of the tool ended: {}", describe_exit(code));
        // complete: faults not landed yet never will
        if code == Some(0) {
            let left = pending.count();
            if left > 0 {
                eprintln!("    {left} fault(s) not landed: the matrix completed first");
            }
            break;
        }
    }
    let shm = crate::server::shm_root();
    let found = checks::problems(&matrix, &opts.out, soak_started, &shm);
    if !found.is_empty() {
        bail!(
            "the soak left {} problem(s) (replay: {replay}):\n  {}",
            found.len(),
            found.join("\n  ")
        );
    }
    eprintln!(
        "soak passed: seed {}, {landed} of {} faults came due (each says above what it hit), {runs} runs of the tool, {:.0} s; every planned cell has \
         one successful result, summary.json has the plan's cells and questions, every file \
         parses, nothing is left running or on {}",
        opts.seed,
        schedule.len(),
        started.elapsed().as_secs_f64(),
        shm.display()
    );
    Ok(())
}

/// The matrix command, run as a user runs it (by the runner: its own
/// process group, stopped with the soak), its output where the soak's goes.
fn start_tool(matrix: &Path, out: &Path) -> Result<Child> {
    use std::os::fd::AsFd;
    let exe = std::env::current_exe().context("cannot find the tool's own executable")?;
    let stdout = std::io::stdout().as_fd().try_clone_to_owned()?;
    let stderr = std::io::stderr().as_fd().try_clone_to_owned()?;
    Command::new(exe.display().to_string())
        .arg("matrix")
        .arg(matrix.display().to_string())
        .arg("--out")
        .arg(out.display().to_string())
        .start(stdout, stderr)
        .context("cannot start the matrix command")
}

/// Lands the pending faults while the tool runs, each at its time; returns
/// the tool's exit status (`None` when a signal ended it).
fn inject_while_running(
    tool: &mut Child,
    pending: &mut std::iter::Peekable<impl Iterator<Item = Fault>>,
    soak_started: u64,
    started: Instant,
) -> Result<Option<i32>> {
    let mut next_at = pending.peek().map(|f| Instant::now() + f.after);
    loop {
        if let Some(status) = tool.try_wait()? {
            return Ok(status.code());
        }
        if let (Some(at), Some(fault)) = (next_at, pending.peek().copied()) {
            if Instant::now() >= at {
                pending.next();
                land(fault, tool.id(), soak_started, started);
                next_at = pending.peek().map(|f| Instant::now() + f.after);
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// One fault on the first process of its target there is; says what it
/// did.
fn land(fault: Fault, tool: u32, soak_started: u64, started: Instant) {
    let at = started.elapsed().as_secs_f64();
    let Some(&pid) = faults::targets(fault.target, tool, soak_started).first() else {
        eprintln!("    !! {at:.0} s: {fault}: no such process running now, nothing hit");
        return;
    };
    eprintln!("    !! {at:.0} s: {fault} (pid {pid})");
    // a stopped tool is continued from a thread of its own, so that the
    // soak goes on watching it
    let hit = move || {
        if let Err(e) = faults::hit(pid, fault.action) {
            eprintln!("    !! {fault} (pid {pid}) could not be sent: {e}");
        }
    };
    if matches!(fault.action, Action::Stop(_)) {
        std::thread::spawn(hit);
    } else {
        hit();
    }
}

fn describe_exit(code: Option<i32>) -> String {
    match code {
        Some(0) => "exit 0 (complete)".into(),
        Some(1) => "exit 1 (a cell failed, or an error)".into(),
        Some(c) => format!("exit {c}"),
        None => "killed by a signal".into(),
    }
}
