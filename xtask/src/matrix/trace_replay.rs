//! After a traced server stopped: its page trace replayed through the LRU
//! model for every cell whose measured run it recorded.

use crate::profile::page_trace;
use crate::record::{MyCnf, NotMeasured, RunResult};
use lru_model::server_trace::ServerTrace;
use std::path::Path;

/// Fill in each traced cell's replay; a replay that fails leaves the
/// cell's model figures absent and says why. The trace, which holds every
/// cell of the server, is read once, when the first traced cell needs it.
pub(super) fn replay_cells(path: &Path, cnf: &MyCnf, written: &mut [RunResult]) {
    let mut trace: Option<Result<ServerTrace, String>> = None;
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
        let read =
            trace.get_or_insert_with(|| page_trace::read(path).map_err(|e| format!("{e:#}")));
        let replayed = match read {
            Ok(t) => page_trace::replay(t, path, traced.records, cnf).map_err(|e| format!("{e:#}")),
            Err(e) => Err(e.clone()),
        };
        match replayed {
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
            Err(reason) => {
                eprintln!("warning: {}: {reason}", r.key);
                out.not_measured.push(NotMeasured {
                    metric: "page_trace".into(),
                    reason,
                });
            }
        }
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}%"))
}
