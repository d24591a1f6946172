//! On-CPU stacks with `perf record -g`: the sampling event the host has,
//! a recording of the server process for a set time, and its samples
//! folded (perf script, then inferno's perf collapser).

use crate::record::FoldedStacks;
use crate::util::Command;
use anyhow::{Context, Result};
use inferno::collapse::Collapse;
use std::path::Path;
use std::time::Duration;

/// Samples a second per CPU: enough for a frame of 1% to show in a few
/// seconds, few enough that `perf script` unwinds them in seconds.
pub const FREQUENCY_HZ: u32 = 199;

/// The call graph mode: DWARF unwinding from a copy of the user stack.
/// MariaDB's own code keeps frame pointers (its cmake adds
/// -fno-omit-frame-pointer), but Debian's glibc and libstdc++ do not, so a
/// frame-pointer walk loses the caller of a sampled library function
/// (`pthread_mutex_lock`, `memcpy`) and a packaged server's stacks
/// altogether. The copy is the largest perf takes (65528 bytes): with
/// 16 KiB, 13% of the samples of a points-covered-pk profile on 10.11.18
/// stopped short of the thread's start, under `dispatch_command` in the
/// range optimizer's deep recursion (`SEL_ARG`), and a share counted over
/// callers missed them. It costs four times the bytes per sample to
/// record and to unwind.
pub const CALL_GRAPH: &str = "dwarf,65528";

/// The event perf samples on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplingEvent {
    pub name: &'static str,
    pub hardware: bool,
}

impl SamplingEvent {
    /// `cycles` where the host counts them; `cpu-clock`, the software
    /// timer, where it does not (virtual machines without a PMU).
    pub fn available() -> SamplingEvent {
        let counts_cycles = Command::new("perf")
            .args(["stat", "-x", ",", "-e", "cycles", "--", "true"])
            .deadline(Duration::from_secs(30))
            .output()
            .map(|o| hardware_counted(&String::from_utf8_lossy(&o.stderr)))
            .unwrap_or(false);
        if counts_cycles {
            SamplingEvent {
                name: "cycles",
                hardware: true,
            }
        } else {
            SamplingEvent {
                name: "cpu-clock",
                hardware: false,
            }
        }
    }
}

/// Whether `perf stat -x ,` counted cycles: its CSV line starts with the
/// count, or with `<not supported>` / `<not counted>` where it did not.
fn hardware_counted(stat_csv: &str) -> bool {
    stat_csv
        .lines()
        .find(|l| l.contains(",cycles"))
        .and_then(|l| l.split(',').next())
        .is_some_and(|count| !count.is_empty() && count.chars().all(|c| c.is_ascii_digit()))
}

/// Records the on-CPU stacks of every thread of `pid` for `seconds` into
/// `data` (perf's own format), with what perf says (the samples it wrote,
/// the events it lost) in `log`. No build-id pass at the end: it would
/// read the whole recording again while the load runs on, and the
/// binaries are still where the recording names them when it is folded.
pub fn record(
    pid: u32,
    seconds: u64,
    event: &SamplingEvent,
    (data, log): (&Path, &Path),
) -> Result<()> {
    Command::new("perf")
        .args([
            "record",
            "--no-buildid",
            "-e",
            event.name,
            "-F",
            &FREQUENCY_HZ.to_string(),
            "--call-graph",
            CALL_GRAPH,
            "-p",
            &pid.to_string(),
            "-o",
        ])
        .arg(data.display().to_string())
        .args(["--", "sleep", &seconds.to_string()])
        .deadline(Duration::from_secs(seconds + 60))
        .run_logged("perf record", log)
        .context("perf record of the server failed")
}

/// The samples of `data`, folded: `perf script` resolves and unwinds them,
/// inferno folds its output (one root frame a process name, argument lists
/// taken off the function names). The fields leave out the period, so that
/// each sample counts 1 (with it, inferno weighs a `cpu-clock` sample by
/// its nanoseconds).
pub fn fold(data: &Path) -> Result<FoldedStacks> {
    let script = Command::new("perf")
        .args([
            "script",
            "--no-inline",
            "-F",
            "comm,pid,tid,time,event,ip,sym,dso",
            "-i",
        ])
        .arg(data.display().to_string())
        .deadline(Duration::from_secs(900))
        .read()
        .context("perf script could not read the recording")?;
    let mut folded = Vec::new();
    inferno::collapse::perf::Folder::default()
        .collapse(script.as_bytes(), &mut folded)
        .context("inferno could not fold perf script's output")?;
    let text = String::from_utf8_lossy(&folded);
    FoldedStacks::parse(&text).context("inferno's folded output")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counted_cycle_is_told_from_an_unsupported_one() {
        assert!(hardware_counted("1234567,,cycles,812345,100.00,,\n"));
        assert!(!hardware_counted("<not supported>,,cycles,0,100.00,,\n"));
        assert!(!hardware_counted("<not counted>,,cycles,0,0.00,,\n"));
        assert!(!hardware_counted("event syntax error: 'cycles'\n"));
    }
}
