//! What a matrix run cost, as numbers (`timings.json` beside its results):
//! each stage's seconds as the run printed them, the whole run's, and its
//! floor: the compiles it could not avoid (the make of every build it made;
//! one it reused cost nothing) plus the experiment's own phases (each
//! server's arming, each cell's warm-up, measured run and diagnostic
//! pass, scan-loop's residency pass too, as long as they ran).
//! docs/testing.md quotes the ratio of the two for the default matrix on
//! an empty cache (a copy of the file under `reports/default-matrix/`).

use crate::dims::Step;
use crate::host::Host;
use crate::record::{Phase, RunResult};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The file a run writes into its output directory.
pub const TIMINGS_FILE: &str = "timings.json";

#[derive(Debug, Serialize, Deserialize)]
pub struct MatrixTimings {
    pub matrix: String,
    pub tool_revision: String,
    pub host: Host,
    pub finished_unix: u64,
    /// from the first tree fetched to the report written
    pub total_seconds: f64,
    pub stages: Vec<StageSeconds>,
    pub floor: Floor,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct StageSeconds {
    pub label: String,
    pub seconds: f64,
}

/// The part of a run no tool could save: compiling what had to be
/// compiled, and running the phases the experiment asks for.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    /// the builds the run made (not reused), each counted once
    pub builds_made: usize,
    /// their make (cmake's checks and the checkout are overhead: a tool
    /// could share them)
    pub make_seconds: f64,
    /// arming, warm-up, residency pass, measured run and diagnostic pass
    pub experiment_seconds: f64,
    pub seconds: f64,
}

impl Floor {
    /// The floor of the runs `runs` record (those of one invocation: an
    /// earlier one's records are the caller's to leave out). The arming belongs to a server,
    /// whose every cell's record carries it: counted once per server (per
    /// tree, variant and repetition; per workload too with `fresh_server`).
    pub fn of(runs: &[RunResult], fresh_server: bool) -> Floor {
        let seconds_of = |phases: &[Phase], steps: &[Step]| -> f64 {
            phases
                .iter()
                .filter(|p| steps.iter().any(|s| s.word() == p.name))
                .map(|p| p.seconds)
                .sum()
        };
        let mut builds = BTreeSet::new();
        let mut servers = BTreeSet::new();
        let (mut make_seconds, mut experiment_seconds) = (0.0, 0.0);
        for r in runs {
            if let Some(b) = r.build.as_ref().filter(|b| !b.reused) {
                if builds.insert(b.key_hash.clone()) {
                    make_seconds += b.make_seconds;
                }
            }
            let k = &r.key;
            let workload = fresh_server.then(|| k.workload.clone());
            if servers.insert((k.tree.clone(), k.variant.clone(), k.repetition, workload)) {
                experiment_seconds += seconds_of(&r.data_phases, &[Step::Arm]);
            }
            if let Some(o) = &r.outcome {
                let cell = [
                    Step::WarmUp,
                    Step::Residency,
                    Step::Measured,
                    Step::Diagnostic,
                ];
                experiment_seconds += seconds_of(&o.phases, &cell);
            }
        }
        Floor {
            builds_made: builds.len(),
            make_seconds,
            experiment_seconds,
            seconds: make_seconds + experiment_seconds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(name: &str, seconds: f64) -> Phase {
        Phase {
            name: name.into(),
            seconds,
        }
    }

    /// The copies docs/testing.md quotes read as this writer writes, and
    /// each floor is its parts.
    #[test]
    fn the_committed_copies_read_as_the_writer_writes_them() {
        let dir = crate::util::repo_root().join("reports/default-matrix");
        let mut read = 0;
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            let t: MatrixTimings =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let f = &t.floor;
            assert!((f.seconds - (f.make_seconds + f.experiment_seconds)).abs() < 1e-6);
            assert!(f.builds_made > 0 && f.seconds > 0.0, "{}", p.display());
            let total = t.stages.iter().find(|s| s.label == "matrix total");
            assert!(
                total.is_some_and(|s| (s.seconds - t.total_seconds).abs() < 1.0),
                "{}",
                p.display()
            );
            read += 1;
        }
        assert!(read >= 1, "no copy under {}", dir.display());
    }

    #[test]
    fn the_floor_counts_each_build_made_once_and_each_servers_arming_once() {
        let dir = crate::util::repo_root().join("reports/smoke-10.11.18");
        let runs = crate::results::read_results(&dir).unwrap();
        assert!(runs.len() >= 2, "{}", dir.display());
        let mut runs: Vec<RunResult> = runs.into_iter().take(2).collect();
        for (i, r) in runs.iter_mut().enumerate() {
            r.key.repetition = 1;
            r.key.variant = "base".into();
            r.data_phases = vec![phase("prepare", 30.0), phase("arm", 10.0)];
            let b = r.build.as_mut().expect("a built variant's run");
            b.key_hash = "one".into();
            b.make_seconds = 600.0;
            b.reused = false;
            let o = r.outcome.as_mut().expect("a run that ran");
            o.phases = vec![
                phase("idle wait", 3.0),
                phase("warm-up", 5.0 + i as f64),
                phase("measured", 20.0),
                phase("diagnostic", 10.0),
            ];
        }
        // two cells of one server and one build: one make, one arming
        let f = Floor::of(&runs, false);
        assert_eq!(f.builds_made, 1);
        assert_eq!(f.make_seconds, 600.0);
        assert_eq!(
            f.experiment_seconds,
            10.0 + (5.0 + 20.0 + 10.0) + (6.0 + 20.0 + 10.0)
        );
        assert_eq!(f.seconds, f.make_seconds + f.experiment_seconds);
        // a server per workload arms once per workload
        runs[1].key.workload = format!("{}-other", runs[0].key.workload);
        assert_eq!(
            Floor::of(&runs, true).experiment_seconds,
            f.experiment_seconds + 10.0
        );
        // a reused build cost nothing
        for r in &mut runs {
            r.build.as_mut().unwrap().reused = true;
        }
        assert_eq!(Floor::of(&runs, false).make_seconds, 0.0);
    }
}
