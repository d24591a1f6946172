//! A cell's profile pass: after the diagnostic pass, one sysbench load of
//! the cell's workload, never measured, with three windows of
//! `profile_seconds`: no profiler (the reference rate), `perf record`,
//! then gdb's backtraces. Each window's rate comes from the server's
//! `Queries` counter, so the report can say how much each profiler slowed
//! the server. The stacks are folded into files of the results directory.

use super::sysbench;
use crate::profile::{perf, pmp};
use crate::record::{NotMeasured, OnCpuProfile, ProfilePass, Profiler, WaitProfile, Workload};
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where a cell's profile goes: the results directory and the stem of its
/// files there, relative to it (`profiles/<cell>`).
#[derive(Debug, Clone)]
pub struct ProfileTarget {
    pub out: PathBuf,
    pub stem: String,
}

impl ProfileTarget {
    /// `<stem>.<profiler>.folded`, relative to the results directory.
    fn folded(&self, profiler: Profiler) -> String {
        format!("{}.{}.folded", self.stem, profiler.word())
    }
}

/// The load runs this much longer than the three windows: a second to
/// connect and ramp up before the reference window, and time for gdb's
/// samples to overrun their window.
const RAMP: Duration = Duration::from_secs(1);
const OVERRUN: Duration = Duration::from_secs(10);
/// How long gdb may take to read the server's symbols and attach once.
const GDB_READY: Duration = Duration::from_secs(600);

/// Seconds of sysbench load a pass of `w` asks for.
pub fn load_seconds(w: &Workload) -> u64 {
    3 * w.profile_seconds + RAMP.as_secs() + OVERRUN.as_secs()
}

/// Runs the pass on the server `pid` under the sysbench command `args`
/// (`load_seconds` long). What a profiler could not do goes to
/// `not_measured`; a load that fails fails the pass.
pub fn run(
    w: &Workload,
    conn: &mut mysql::Conn,
    pid: u32,
    args: &[String],
    target: &ProfileTarget,
    logs: (&Path, &Path, &Path),
    not_measured: &mut Vec<NotMeasured>,
) -> Result<ProfilePass> {
    let start = Instant::now();
    let window = Duration::from_secs(w.profile_seconds);
    let (load_log, gdb_log, perf_log) = logs;
    std::fs::create_dir_all(target.out.join("profiles"))?;
    let scratch = tempfile::tempdir().context("no temporary directory for the profilers")?;
    let go = scratch.path().join("go");
    let perf_data = scratch.path().join("perf.data");
    let event = perf::SamplingEvent::available();
    // the server's own binary, whichever build or package it is
    let binary = crate::procfs::exe(pid);

    std::thread::scope(|s| -> Result<ProfilePass> {
        // gdb reads the binary's symbols before the load starts, then
        // waits for `go`
        let (signal, heard) = mpsc::channel();
        let gdb =
            s.spawn(|| pmp::sample(&binary, pid, (w.pmp_samples, window), &go, gdb_log, signal));
        let gdb_ready = matches!(heard.recv_timeout(GDB_READY), Ok(pmp::Signal::Ready));
        // from here on `go` must be written whatever happens, or gdb waits:
        // dropped before the samples are asked for, it calls them off
        let mut release = Release {
            go: &go,
            sampled: false,
        };

        let load = s.spawn(|| {
            let deadline = Duration::from_secs(load_seconds(w) + 60);
            sysbench::run(args, deadline, load_log)
        });
        let load_began = Instant::now();
        let load_seconds = Duration::from_secs(load_seconds(w));
        std::thread::sleep(RAMP);
        let rate = Rate::begin(conn)?;
        std::thread::sleep(window);
        let (reference_qps, _) = rate.next(conn)?;

        // perf records in the background for the window; the rate is read
        // inside it, clear of perf's start and end
        let (recorded, perf_qps) = std::thread::scope(|inner| -> Result<_> {
            let perf = inner
                .spawn(|| perf::record(pid, w.profile_seconds, &event, (&perf_data, perf_log)));
            let margin = (window / 8).min(Duration::from_millis(500));
            std::thread::sleep(margin);
            let rate = Rate::begin(conn)?;
            std::thread::sleep(window.saturating_sub(margin * 2));
            let (qps, _) = rate.next(conn)?;
            let recorded = perf.join().expect("perf's thread panicked");
            Ok((recorded, qps))
        })?;

        let gdb_qps = if gdb_ready {
            gdb_window_qps(
                conn,
                &mut release,
                &heard,
                window,
                load_began + load_seconds,
            )?
        } else {
            None
        };
        let load = load.join().expect("the load's thread panicked");
        load.context("the profile pass's load failed")?;

        let on_cpu = on_cpu_profile(
            recorded,
            (&perf_data, perf_log, &event),
            perf_qps,
            target,
            not_measured,
        )?;

        drop(release);
        let waits = match gdb.join().expect("gdb's thread panicked") {
            Err(e) if !gdb_ready => Err(e.context(format!(
                "gdb had not read the server's symbols and attached once within {} s: \
                 no sample was taken",
                GDB_READY.as_secs()
            ))),
            other => other,
        };
        let waits = wait_profile(waits, gdb_qps, target, not_measured)?;
        Ok(ProfilePass {
            window_seconds: w.profile_seconds,
            reference_qps,
            on_cpu,
            waits,
            wall_seconds: start.elapsed().as_secs_f64(),
        })
    })
}

/// Lets gdb take its samples and reads the server's rate meanwhile; the
/// rate counts only if gdb finished and the load (ending at `load_ends`)
/// lasted the whole window.
fn gdb_window_qps(
    conn: &mut mysql::Conn,
    release: &mut Release<'_>,
    heard: &mpsc::Receiver<pmp::Signal>,
    window: Duration,
    load_ends: Instant,
) -> Result<Option<f64>> {
    let rate = Rate::begin(conn)?;
    release.sample()?;
    let Ok(pmp::Signal::Done) = heard.recv_timeout(window * 3 + OVERRUN * 6) else {
        return Ok(None);
    };
    let during_load = Instant::now() < load_ends;
    let (qps, _) = rate.next(conn)?;
    Ok(during_load.then_some(qps).flatten())
}

/// perf's recording folded and written beside the results; what went
/// wrong goes to `not_measured` (the error returned is a write that failed).
fn on_cpu_profile(
    recorded: Result<()>,
    (perf_data, perf_log, event): (&Path, &Path, &perf::SamplingEvent),
    qps: Option<f64>,
    target: &ProfileTarget,
    not_measured: &mut Vec<NotMeasured>,
) -> Result<Option<OnCpuProfile>> {
    let folded_stacks = recorded.and_then(|()| {
        let began = Instant::now();
        let stacks = perf::fold(perf_data)?;
        if stacks.is_empty() {
            // perf's own account: the samples it wrote, the events it lost
            let log = std::fs::read_to_string(perf_log).unwrap_or_default();
            let said: Vec<&str> = log
                .lines()
                .filter(|l| l.starts_with("[ perf record") || l.contains("lost"))
                .collect();
            let said = match said.is_empty() {
                true => "nothing".to_string(),
                false => said.join("; "),
            };
            anyhow::bail!(
                "perf recorded no sample of the server (perf said: {said}; its log: {})",
                perf_log.display()
            );
        }
        Ok((stacks, began.elapsed().as_secs_f64()))
    });
    let Some((stacks, fold_seconds)) =
        or_not_measured(folded_stacks, "on-CPU profile (perf)", not_measured)
    else {
        return Ok(None);
    };
    let folded = target.folded(Profiler::OnCpu);
    crate::util::write_atomic(&target.out.join(&folded), stacks.to_text().as_bytes())?;
    Ok(Some(OnCpuProfile {
        event: event.name.to_string(),
        hardware_event: event.hardware,
        frequency_hz: perf::FREQUENCY_HZ,
        call_graph: perf::CALL_GRAPH.to_string(),
        samples: stacks.total(),
        unnamed_leaf_share: stacks.unnamed_leaf_share(),
        qps,
        folded,
        fold_seconds,
    }))
}

/// `result`'s value, or None with the reason in `not_measured` under
/// `metric`: a profiler that failed leaves its profile absent, never empty.
fn or_not_measured<T>(
    result: Result<T>,
    metric: &str,
    not_measured: &mut Vec<NotMeasured>,
) -> Option<T> {
    result
        .map_err(|e| {
            not_measured.push(NotMeasured {
                metric: metric.into(),
                reason: format!("{e:#}"),
            })
        })
        .ok()
}

/// gdb's samples written beside the results, with the rate under them
/// (absent when they outlasted the load); what went wrong goes to
/// `not_measured`.
fn wait_profile(
    samples: Result<pmp::Samples>,
    qps: Option<f64>,
    target: &ProfileTarget,
    not_measured: &mut Vec<NotMeasured>,
) -> Result<Option<WaitProfile>> {
    let Some(samples) = or_not_measured(samples, "wait profile (gdb)", not_measured) else {
        return Ok(None);
    };
    let folded = target.folded(Profiler::Waits);
    crate::util::write_atomic(
        &target.out.join(&folded),
        samples.stacks.to_text().as_bytes(),
    )?;
    if qps.is_none() {
        not_measured.push(NotMeasured {
            metric: "QPS under gdb".into(),
            reason: "gdb's samples outlasted the load".into(),
        });
    }
    Ok(Some(WaitProfile {
        stops_ms: samples.stops_ms,
        thread_stacks: samples.thread_stacks,
        unnamed_leaf_share: samples.stacks.unnamed_leaf_share(),
        qps,
        folded,
    }))
}

/// The file gdb waits on: `go` starts its samples; dropped before that,
/// it says `cancel`, so that a gdb waiting for it ends whatever path the
/// pass took.
struct Release<'a> {
    go: &'a Path,
    sampled: bool,
}

impl Release<'_> {
    fn sample(&mut self) -> Result<()> {
        std::fs::write(self.go, b"go")?;
        self.sampled = true;
        Ok(())
    }
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        if !self.sampled {
            let _ = std::fs::write(self.go, b"cancel");
        }
    }
}

/// Queries a second between two readings of the server's `Queries`
/// counter.
struct Rate {
    queries: Option<u64>,
    at: Instant,
}

impl Rate {
    fn begin(conn: &mut mysql::Conn) -> Result<Rate> {
        Ok(Rate {
            queries: crate::metrics::status_counter(conn, "Queries")?,
            at: Instant::now(),
        })
    }

    /// The rate since the last reading, and a new reading.
    fn next(self, conn: &mut mysql::Conn) -> Result<(Option<f64>, Rate)> {
        let now = Rate::begin(conn)?;
        let seconds = now.at.duration_since(self.at).as_secs_f64();
        let qps = match (self.queries, now.queries) {
            (Some(a), Some(b)) if b >= a && seconds > 0.0 => Some((b - a) as f64 / seconds),
            _ => None,
        };
        Ok((qps, now))
    }
}
