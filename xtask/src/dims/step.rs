//! The steps a cell goes through, where a failure is recorded. A step
//! travels in an error chain as an [`AtStep`] context, added where the
//! step runs (a workload phase, the bootstrap, the start), and is read
//! back by type: never parsed from an error's text.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a cell can fail, in the order a cell goes through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// fetching or importing the tree, or resolving the variant on it
    Tree,
    Build,
    /// mariadb-install-db
    Bootstrap,
    /// mariadbd start-up until it accepts connections
    Start,
    /// sysbench prepare (loading the tables; scan-loop's analyze too)
    Prepare,
    /// the arming phase that starts freed_page_clock
    Arm,
    /// waiting for the server to be idle before a measured run
    IdleWait,
    WarmUp,
    /// scan-loop: the sampled pass that reads residency
    Residency,
    Measured,
    Diagnostic,
    /// the profile pass: perf and gdb under load, after the diagnostic pass
    Profile,
    /// the post-write step that waits for dirty pages to be flushed
    PostWrite,
    Shutdown,
    /// a schema 1 result whose message names no step
    Unknown,
}

impl Step {
    /// Every step, in a cell's order.
    pub const ALL: [Step; 15] = [
        Step::Tree,
        Step::Build,
        Step::Bootstrap,
        Step::Start,
        Step::Prepare,
        Step::Arm,
        Step::IdleWait,
        Step::WarmUp,
        Step::Residency,
        Step::Measured,
        Step::Diagnostic,
        Step::Profile,
        Step::PostWrite,
        Step::Shutdown,
        Step::Unknown,
    ];

    /// The word reports print, and the name of the workload phase that
    /// runs the step (result files record phases by these names).
    pub fn word(self) -> &'static str {
        match self {
            Step::Tree => "tree",
            Step::Build => "build",
            Step::Bootstrap => "bootstrap",
            Step::Start => "start",
            Step::Prepare => "prepare",
            Step::Arm => "arm",
            Step::IdleWait => "idle wait",
            Step::WarmUp => "warm-up",
            Step::Residency => "residency",
            Step::Measured => "measured",
            Step::Diagnostic => "diagnostic",
            Step::Profile => "profile",
            Step::PostWrite => "post-write",
            Step::Shutdown => "shutdown",
            Step::Unknown => "unknown step",
        }
    }

    /// The step an error chain carries (the outermost [`AtStep`]), if any.
    pub fn in_error(e: &anyhow::Error) -> Option<Step> {
        // anyhow's downcast looks through every context layer
        e.downcast_ref::<AtStep>().map(|at| at.0)
    }

    /// Whether `INNODB_LAB_FAIL_STEP` names this step (of `workload`, or
    /// of every cell), for the tests that make a chosen step fail on a
    /// real server (see [`AtStep::injected`]).
    fn injected_here(self, workload: Option<&str>) -> bool {
        crate::environment::injected_failures()
            .iter()
            .any(|entry| match entry.rsplit_once(':') {
                Some((w, step)) => Some(w) == workload && step == self.word(),
                None => *entry == self.word(),
            })
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// The context a step adds to an error that happens in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtStep(pub Step);

impl fmt::Display for AtStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed", self.0)
    }
}

impl AtStep {
    /// The test seam's failure for `step`, when `INNODB_LAB_FAIL_STEP`
    /// names it; checked where each step starts.
    pub fn injected(step: Step, workload: Option<&str>) -> anyhow::Result<()> {
        if step.injected_here(workload) {
            anyhow::bail!(
                "{}={step}: this step was made to fail by a test",
                crate::environment::FAIL_STEP
            );
        }
        Ok(())
    }
}

/// The server's error-log tail, attached to an error as a typed cause so
/// that results keep it as a field of its own (`crate::record::Failure`).
#[derive(Debug, Clone)]
pub struct ErrorLogTail(pub String);

impl ErrorLogTail {
    /// How its Display starts (and how schema 1 results carried it).
    pub const PREFIX: &'static str = "error log tail:\n";
}

impl std::fmt::Display for ErrorLogTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", Self::PREFIX, self.0)
    }
}

impl std::error::Error for ErrorLogTail {}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn the_step_is_read_by_type_through_other_contexts() {
        let e = Err::<(), _>(anyhow::anyhow!("sysbench run failed"))
            .context(AtStep(Step::WarmUp))
            .context("cell points-covered-pk")
            .unwrap_err();
        assert_eq!(Step::in_error(&e), Some(Step::WarmUp));
        assert_eq!(
            format!("{e:#}"),
            "cell points-covered-pk: warm-up failed: sysbench run failed"
        );
        // words that name a step are not a step
        let e = anyhow::anyhow!("bootstrap failed").context("warm-up");
        assert_eq!(Step::in_error(&e), None);
    }

    #[test]
    fn every_step_has_its_own_word() {
        let mut words: Vec<&str> = Step::ALL.iter().map(|s| s.word()).collect();
        words.sort();
        words.dedup();
        assert_eq!(words.len(), Step::ALL.len());
        assert_eq!(serde_json::to_string(&Step::WarmUp).unwrap(), "\"warm-up\"");
        assert_eq!(
            serde_json::to_string(&Step::IdleWait).unwrap(),
            "\"idle-wait\""
        );
    }
}
