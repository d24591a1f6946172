//! A failed cell from an error chain: the step it carries, what went
//! wrong, and the server's error-log tail as a field of its own (never
//! folded into the message).

use crate::dims::{ErrorLogTail, Step};
use crate::record::Failure;
use std::fmt;

impl Failure {
    pub fn new(step: Step, message: impl Into<String>) -> Failure {
        Failure {
            step,
            message: message.into(),
            error_log_tail: None,
        }
    }

    /// From an error chain: the step it carries as an `AtStep` context
    /// (else `default`), the message of the chain, and the error-log tail
    /// a server attached as an `ErrorLogTail` (kept out of the message).
    pub fn from_error(e: &anyhow::Error, default: Step) -> Failure {
        // anyhow's downcast looks through every context layer
        let tail = e.downcast_ref::<ErrorLogTail>().map(|t| t.0.clone());
        let message = e
            .chain()
            .filter(|c| !c.is::<ErrorLogTail>())
            .map(|c| c.to_string())
            .filter(|text| !text.starts_with(ErrorLogTail::PREFIX))
            .collect::<Vec<_>>()
            .join(": ");
        Failure {
            step: Step::in_error(e).unwrap_or(default),
            message,
            error_log_tail: tail,
        }
    }

    /// A schema 1 result's `error` (which may carry `error log tail:` in
    /// its text) and `error_log_tail`. Schema 1 had no typed step, so the
    /// step is read from the words that tool wrote: the only place where
    /// text is parsed for a step, and only for files that old.
    pub fn from_v1(error: &str, tail: Option<String>) -> Failure {
        let (message, inline_tail) = match error.split_once("error log tail:\n") {
            Some((m, t)) => (
                m.trim_end().trim_end_matches(';').to_string(),
                Some(t.to_string()),
            ),
            None => (error.to_string(), None),
        };
        let step = if let Some(rest) = error.split("phase `").nth(1) {
            v1_phase_step(rest.split('`').next().unwrap_or("")).unwrap_or(Step::Unknown)
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

/// The step a schema 1 phase name stood for.
fn v1_phase_step(name: &str) -> Option<Step> {
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

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "failed in {}: {}", self.step, self.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dims::AtStep;
    use anyhow::Context;

    #[test]
    fn the_step_comes_from_its_context_and_the_tail_stays_apart() {
        let e = anyhow::Error::new(ErrorLogTail("[ERROR] unknown option".into()))
            .context("mariadbd exited during start-up");
        let f = Failure::from_error(&e, Step::Start);
        assert_eq!(f.step, Step::Start);
        assert_eq!(f.message, "mariadbd exited during start-up");
        assert_eq!(f.error_log_tail.as_deref(), Some("[ERROR] unknown option"));

        let e: anyhow::Error = Err::<(), _>(anyhow::anyhow!("sysbench run failed"))
            .context(AtStep(Step::Residency))
            .unwrap_err();
        let f = Failure::from_error(&e, Step::Measured);
        assert_eq!(
            (f.step, f.error_log_tail.as_deref()),
            (Step::Residency, None)
        );
        assert_eq!(
            f.to_string(),
            "failed in residency: residency failed: sysbench run failed"
        );
        // text that names a phase is not a step any more
        let e = anyhow::anyhow!("x").context("phase `warm-up`");
        assert_eq!(Failure::from_error(&e, Step::Measured).step, Step::Measured);
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
        assert_eq!(v1_phase_step("idle wait"), Some(Step::IdleWait));
        assert_eq!(v1_phase_step("post_write"), Some(Step::PostWrite));
        assert_eq!(v1_phase_step("lunch"), None);
    }
}
