//! After a traced server stopped: its page trace replayed through the LRU
//! model for every cell whose measured run it recorded.

use crate::profile::page_trace;
use crate::record::{MyCnf, NotMeasured, RunResult};
use std::path::Path;

/// Fill in each traced cell's replay; a replay that fails leaves the
/// cell's model figures absent and says why.
pub(super) fn replay_cells(trace: &Path, cnf: &MyCnf, written: &mut [RunResult]) {
    for r in written.iter_mut() {
        let Some(out) = r.outcome.as_mut() else {
            continue;
        };
        let Some(traced) = out.page_trace.as_mut() else {
            continue;
        };
        eprintln!(
            "==> replay the page trace of {} through the LRU model",
            r.key
        );
        match page_trace::replay(trace, traced.records, cnf) {
            Ok(replayed) => {
                for m in &replayed.replays {
                    eprintln!(
                        "    {}: server {} model {} ({} requests)",
                        m.policy,
                        pct(m.server_hit_ratio_pct),
                        pct(m.model_hit_ratio_pct),
                        m.requests
                    );
                }
                traced.replayed = Some(replayed);
            }
            Err(e) => {
                eprintln!("warning: {}: {e:#}", r.key);
                out.not_measured.push(NotMeasured {
                    metric: "page_trace".into(),
                    reason: format!("{e:#}"),
                });
            }
        }
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}%"))
}
