//! A failed cell: the step it failed in, what went wrong, and the server's
//! error-log tail as a field of its own (never folded into the message).

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
    /// sysbench prepare (loading the tables)
    Prepare,
    /// the arming phase that starts freed_page_clock
    Arm,
    /// waiting for the server to be idle before a measured run
    IdleWait,
    WarmUp,
    Measured,
    Diagnostic,
    /// the post-write step that waits for dirty pages to be flushed
    PostWrite,
    Shutdown,
    /// a schema 1 result whose message names no step
    Unknown,
}

impl Step {
    /// Every step, for parsing and documentation.
    pub const ALL: [Step; 13] = [
        Step::Tree,
        Step::Build,
        Step::Bootstrap,
        Step::Start,
        Step::Prepare,
        Step::Arm,
        Step::IdleWait,
        Step::WarmUp,
        Step::Measured,
        Step::Diagnostic,
        Step::PostWrite,
        Step::Shutdown,
        Step::Unknown,
    ];

    /// The word reports print.
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
            Step::Measured => "measured",
            Step::Diagnostic => "diagnostic",
            Step::PostWrite => "post-write",
            Step::Shutdown => "shutdown",
            Step::Unknown => "unknown step",
        }
    }

    /// The step a workload phase name stands for (`phase `warm-up``
    /// contexts, `Phase::name`).
    pub fn of_phase(name: &str) -> Option<Step> {
        let norm = name.replace(['_', ' '], "-").to_ascii_lowercase();
        Step::ALL
            .into_iter()
            .find(|s| s.word().replace(' ', "-") == norm)
            .or(match norm.as_str() {
                "warmup" => Some(Step::WarmUp),
                "idle" => Some(Step::IdleWait),
                "post-write-flush" | "flush" => Some(Step::PostWrite),
                _ => None,
            })
    }

    /// The step named by an error chain: the `phase `<name>``
    /// context a workload adds, else `default`.
    pub fn from_error(e: &anyhow::Error, default: Step) -> Step {
        e.chain()
            .filter_map(|c| {
                let text = c.to_string();
                let rest = text.split("phase `").nth(1)?;
                Step::of_phase(rest.split('`').next()?)
            })
            .next()
            .unwrap_or(default)
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// Why a cell has no result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub step: Step,
    pub message: String,
    /// the server's error log tail, when a server was involved
    pub error_log_tail: Option<String>,
}

impl Failure {
    pub fn new(step: Step, message: impl Into<String>) -> Failure {
        Failure {
            step,
            message: message.into(),
            error_log_tail: None,
        }
    }

    /// From an error chain: the step it names (else `default`), the
    /// message of the chain, and the error-log tail a server attached as
    /// `server::ErrorLogTail` (kept out of the message).
    pub fn from_error(e: &anyhow::Error, default: Step) -> Failure {
        // anyhow's downcast looks through every context layer
        let tail = e
            .downcast_ref::<crate::server::ErrorLogTail>()
            .map(|t| t.0.clone());
        let message = e
            .chain()
            .map(|c| c.to_string())
            .filter(|text| !text.starts_with(crate::server::ErrorLogTail::PREFIX))
            .collect::<Vec<_>>()
            .join(": ");
        Failure {
            step: Step::from_error(e, default),
            message,
            error_log_tail: tail,
        }
    }

    /// A schema 1 result's `error` (which may carry `error log tail:` in
    /// its text) and `error_log_tail`.
    pub fn from_v1(error: &str, tail: Option<String>) -> Failure {
        let (message, inline_tail) = match error.split_once("error log tail:\n") {
            Some((m, t)) => (
                m.trim_end().trim_end_matches(';').to_string(),
                Some(t.to_string()),
            ),
            None => (error.to_string(), None),
        };
        let step = if let Some(rest) = error.split("phase `").nth(1) {
            Step::of_phase(rest.split('`').next().unwrap_or("")).unwrap_or(Step::Unknown)
        } else if error.contains("bootstrap failed") {
            Step::Bootstrap
        } else if error.contains("during start-up") || error.contains("did not accept connections")
        {
            Step::Start
        } else if error.contains("not built") || error.contains("build") {
            Step::Build
        } else {
            Step::Unknown
        };
        Failure {
            step,
            message,
            error_log_tail: tail.or(inline_tail),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed in {}: {}", self.step, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::ErrorLogTail;
    use anyhow::Context;

    #[test]
    fn the_step_comes_from_the_phase_and_the_tail_stays_apart() {
        let e = anyhow::Error::new(ErrorLogTail("[ERROR] unknown option".into()))
            .context("mariadbd exited during start-up");
        let f = Failure::from_error(&e, Step::Start);
        assert_eq!(f.step, Step::Start);
        assert_eq!(f.message, "mariadbd exited during start-up");
        assert_eq!(f.error_log_tail.as_deref(), Some("[ERROR] unknown option"));

        let e: anyhow::Error = Err::<(), _>(anyhow::anyhow!("sysbench run failed"))
            .context("phase `warm-up`")
            .unwrap_err();
        let f = Failure::from_error(&e, Step::Measured);
        assert_eq!((f.step, f.error_log_tail.as_deref()), (Step::WarmUp, None));
        assert_eq!(
            f.to_string(),
            "failed in warm-up: phase `warm-up`: sysbench run failed"
        );
        assert_eq!(Step::of_phase("idle wait"), Some(Step::IdleWait));
        assert_eq!(Step::of_phase("post_write"), Some(Step::PostWrite));
        assert_eq!(Step::of_phase("lunch"), None);
    }

    #[test]
    fn every_phase_the_workload_names_is_a_step() {
        // the names workload.rs gives its phases (`phase(&mut phases, "...")`)
        let source = include_str!("../workload.rs");
        let names: Vec<&str> = source
            .split("phase(&mut phases, \"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .collect();
        assert!(names.len() >= 5, "{names:?}");
        for n in names {
            assert!(Step::of_phase(n).is_some(), "phase `{n}` has no step");
        }
    }

    #[test]
    fn schema_1_errors_are_split_back_into_message_and_tail() {
        let f = Failure::from_v1("bootstrap failed; error log tail:\n2026 [ERROR] boom", None);
        assert_eq!(f.step, Step::Bootstrap);
        assert_eq!(f.message, "bootstrap failed");
        assert_eq!(f.error_log_tail.as_deref(), Some("2026 [ERROR] boom"));
        let f = Failure::from_v1("phase `measured`: sysbench died", Some("tail".into()));
        assert_eq!(
            (f.step, f.error_log_tail.as_deref()),
            (Step::Measured, Some("tail"))
        );
        assert_eq!(serde_json::to_string(&Step::WarmUp).unwrap(), "\"warm-up\"");
    }
}
