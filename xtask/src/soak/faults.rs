//! The faults of a soak: when each comes (seeded, so that a failure can be
//! replayed), which process of the soak it hits and how, and the hit
//! itself.

use crate::procfs::{self, ProcStat};
use lru_model::rng::SplitMix64;
use rustix::process::{kill_process, Pid, Signal};
use std::fmt;
use std::time::Duration;

/// What a fault aims at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// a server the matrix started
    Server,
    /// a sysbench client of a cell
    Sysbench,
    /// the tool's own process (the matrix command)
    Tool,
}

impl Target {
    const ALL: [Target; 3] = [Target::Server, Target::Sysbench, Target::Tool];

    fn comm(self) -> Option<&'static str> {
        match self {
            Target::Server => Some("mariadbd"),
            Target::Sysbench => Some("sysbench"),
            Target::Tool => None,
        }
    }
}

/// How a fault hits its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// SIGKILL: no handler runs
    Kill,
    /// SIGSTOP, then SIGCONT after this long: a process that hangs and
    /// comes back
    Stop(Duration),
}

/// One planned fault: after how long (from the previous one) and what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub after: Duration,
    pub target: Target,
    pub action: Action,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let target = match self.target {
            Target::Server => "the server",
            Target::Sysbench => "sysbench",
            Target::Tool => "the tool",
        };
        match self.action {
            Action::Kill => write!(f, "SIGKILL {target}"),
            Action::Stop(d) => write!(f, "SIGSTOP {target} for {} s", d.as_secs()),
        }
    }
}

/// `count` faults drawn from `seed`: each `gap` seconds (uniform in the
/// range) after the one before, at a target and with an action drawn
/// alike. The same seed gives the same list on every host.
pub fn schedule(seed: u64, count: u32, gap: (u64, u64)) -> Vec<Fault> {
    let mut rng = SplitMix64::new(seed);
    (0..count)
        .map(|_| {
            let after = Duration::from_secs(gap.0 + rng.below(gap.1 - gap.0 + 1));
            let target = Target::ALL[rng.below(Target::ALL.len() as u64) as usize];
            let action = if rng.below(2) == 0 {
                Action::Kill
            } else {
                Action::Stop(Duration::from_secs(1 + rng.below(20)))
            };
            Fault {
                after,
                target,
                action,
            }
        })
        .collect()
}

/// The processes of `target` the soak may hit: the tool's pid, or every
/// server or sysbench started since the soak began (nothing else of
/// theirs runs on the host: the soak's matrix holds the cache lock).
pub fn targets(target: Target, tool: u32, soak_started: u64) -> Vec<u32> {
    match target.comm() {
        Some(comm) => started_since(comm, soak_started),
        None => vec![tool],
    }
}

/// The live processes named `comm` started at or after `soak_started`
/// (clock ticks after boot, as /proc counts a start).
pub fn started_since(comm: &str, soak_started: u64) -> Vec<u32> {
    procfs::pids()
        .unwrap_or_default()
        .into_iter()
        .filter(|&pid| {
            procfs::comm(pid) == comm
                && ProcStat::of(pid).is_some_and(|s| s.start_time >= soak_started && !s.is_zombie())
        })
        .filter_map(|pid| u32::try_from(pid).ok())
        .collect()
}

/// Hits `pid` as `action` says; a stopped process is continued after its
/// time, whatever happened meanwhile. An error is a process that could not
/// be signalled (gone already, or not ours to signal).
pub fn hit(pid: u32, action: Action) -> std::io::Result<()> {
    let pid = Pid::from_raw(pid as i32).ok_or(std::io::ErrorKind::InvalidInput)?;
    match action {
        Action::Kill => kill_process(pid, Signal::KILL)?,
        Action::Stop(d) => {
            kill_process(pid, Signal::STOP)?;
            std::thread::sleep(d);
            kill_process(pid, Signal::CONT)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_schedule_and_another_seed_another() {
        let a = schedule(7, 20, (20, 90));
        assert_eq!(a, schedule(7, 20, (20, 90)));
        assert_ne!(a, schedule(8, 20, (20, 90)));
        assert_eq!(a.len(), 20);
        for f in &a {
            assert!((20..=90).contains(&f.after.as_secs()), "{f:?}");
            if let Action::Stop(d) = f.action {
                assert!((1..=20).contains(&d.as_secs()), "{f:?}");
            }
        }
        // every target and both actions come up in 20 draws of this seed
        for t in Target::ALL {
            assert!(a.iter().any(|f| f.target == t), "{t:?} never drawn");
        }
        assert!(a.iter().any(|f| f.action == Action::Kill));
        assert!(a.iter().any(|f| matches!(f.action, Action::Stop(_))));
    }
}
