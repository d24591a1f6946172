//! The value of a metric in one result, and the busy-host flag: where
//! the records meet the metric table (`dims::Metric`). A metric a run did
//! not measure is None, never 0.

use crate::dims::Metric;
use crate::record::RunResult;

/// `count` per query of the measured interval; None when it ran none.
fn per_query(m: &crate::record::Measured, count: u64) -> Option<f64> {
    let queries = m.sysbench.queries;
    (queries > 0).then(|| count as f64 / queries as f64)
}

impl Metric {
    /// The value of one run; buf_pool.mutex figures come from the
    /// diagnostic pass (instrument on), everything else from the measured
    /// interval.
    pub fn of(self, r: &RunResult) -> Option<f64> {
        let o = r.outcome.as_ref()?;
        if let Some(sl) = &o.scan_loop {
            match self {
                Metric::HotKeptPct => return sl.hot_kept().map(|k| k * 100.0),
                Metric::ScanYoungPages => return sl.scan_young_avg(),
                Metric::ScanYoungPerS => return sl.scan_young_per_s(),
                Metric::HotLookupsPerS => return Some(sl.hot_lookups_per_s),
                _ => {}
            }
        }
        if matches!(
            self,
            Metric::BufPoolMutexPerQuery | Metric::BufPoolMutexWaitUsPerQuery
        ) {
            let d = &o.diagnostic.as_ref()?.measured;
            return match self {
                Metric::BufPoolMutexPerQuery => d.buf_pool_mutex_per_query,
                _ => d.buf_pool_mutex_wait_us_per_query,
            };
        }
        if self == Metric::InstructionsPerQuery {
            return o.cost.as_ref().map(|c| c.instructions_per_query);
        }
        let m = o.measured.as_ref()?;
        Some(match self {
            Metric::Qps => m.sysbench.qps,
            Metric::Tps => m.sysbench.tps,
            Metric::P95Ms => m.sysbench.p95_ms,
            Metric::PagesMadeYoungPerQuery => m.pages_made_young_per_query,
            Metric::PagesMadeNotYoungPerQuery => m.pages_made_not_young_per_query,
            Metric::ReadRequestsPerQuery => m.read_requests_per_query,
            Metric::HitRatioPct => {
                if m.read_requests == 0 {
                    return None;
                }
                (1.0 - m.reads as f64 / m.read_requests as f64) * 100.0
            }
            Metric::PagesReadPerQuery => per_query(m, m.reads)?,
            Metric::ReadAheadPerQuery => per_query(m, m.read_ahead?)?,
            Metric::ReadAheadEvictedPerQuery => per_query(m, m.read_ahead_evicted?)?,
            Metric::PoolTurnoverS => {
                if m.reads == 0 || m.sysbench.seconds <= 0.0 {
                    return None;
                }
                m.pool_pages? as f64 / (m.reads as f64 / m.sysbench.seconds)
            }
            Metric::PagesFlushedPerQuery => per_query(m, m.pages_flushed?)?,
            Metric::CsPerQuery => m.cs_per_query,
            Metric::CpuMsPerQuery => m.cpu_ms_per_query,
            // both are read around the measured interval with the host's
            // CPU; sysbench's from its /proc stat after it exited
            Metric::ServerAndClientCpuMsPerQuery => {
                let o = m.other_cpu?;
                let queries = m.sysbench.queries;
                if queries == 0 {
                    return None;
                }
                (o.server_cpu_seconds + o.sysbench_cpu_seconds) * 1000.0 / queries as f64
            }
            Metric::BufPoolMutexPerQuery
            | Metric::BufPoolMutexWaitUsPerQuery
            | Metric::InstructionsPerQuery => unreachable!(),
            // only a scan-loop cell measures them
            Metric::HotKeptPct
            | Metric::ScanYoungPages
            | Metric::ScanYoungPerS
            | Metric::HotLookupsPerS => return None,
        })
    }
}

/// CPU used by everything other than the server and sysbench during the
/// measured interval, in cores; None when it was not measured.
pub fn other_cores_busy(r: &RunResult) -> Option<f64> {
    r.measured()?.other_cpu.map(|o| o.cores_busy)
}

/// A run whose host was busier than `bound` cores besides the server and
/// sysbench: flagged in every report and left out of comparisons.
pub fn busy(r: &RunResult, bound: f64) -> bool {
    other_cores_busy(r).is_some_and(|c| c > bound)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in Metric::ALL {
            assert_eq!(Metric::parse(m.name()), Some(m));
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.name())
            );
        }
        assert_eq!(Metric::parse("QPS"), None);
    }
}
