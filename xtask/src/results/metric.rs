//! The metrics a cell reports, by name: what questions, comparisons and
//! reports refer to. A metric a run did not measure is None, never 0.

use crate::record::RunResult;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    Qps,
    Tps,
    P95Ms,
    PagesMadeYoungPerQuery,
    PagesMadeNotYoungPerQuery,
    ReadRequestsPerQuery,
    CsPerQuery,
    CpuMsPerQuery,
    BufPoolMutexPerQuery,
    BufPoolMutexWaitUsPerQuery,
    /// scan-loop: share of the hot table resident, second half of the
    /// residency pass, in percent
    HotKeptPct,
    /// scan-loop: scanned pages in the young sublist, same window
    ScanYoungPages,
    /// scan-loop: hot lookups per second in the measured pass
    HotLookupsPerS,
}

impl Metric {
    pub const ALL: [Metric; 13] = [
        Metric::Qps,
        Metric::Tps,
        Metric::P95Ms,
        Metric::PagesMadeYoungPerQuery,
        Metric::PagesMadeNotYoungPerQuery,
        Metric::ReadRequestsPerQuery,
        Metric::CsPerQuery,
        Metric::CpuMsPerQuery,
        Metric::BufPoolMutexPerQuery,
        Metric::BufPoolMutexWaitUsPerQuery,
        Metric::HotKeptPct,
        Metric::ScanYoungPages,
        Metric::HotLookupsPerS,
    ];

    /// The name in matrix files and summary.json.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Qps => "qps",
            Metric::Tps => "tps",
            Metric::P95Ms => "p95_ms",
            Metric::PagesMadeYoungPerQuery => "pages_made_young_per_query",
            Metric::PagesMadeNotYoungPerQuery => "pages_made_not_young_per_query",
            Metric::ReadRequestsPerQuery => "read_requests_per_query",
            Metric::CsPerQuery => "cs_per_query",
            Metric::CpuMsPerQuery => "cpu_ms_per_query",
            Metric::BufPoolMutexPerQuery => "buf_pool_mutex_per_query",
            Metric::BufPoolMutexWaitUsPerQuery => "buf_pool_mutex_wait_us_per_query",
            Metric::HotKeptPct => "hot_kept_pct",
            Metric::ScanYoungPages => "scan_young_pages",
            Metric::HotLookupsPerS => "hot_lookups_per_s",
        }
    }

    /// What reports call it.
    pub fn words(self) -> &'static str {
        match self {
            Metric::Qps => "QPS",
            Metric::Tps => "TPS",
            Metric::P95Ms => "p95 latency (ms)",
            Metric::PagesMadeYoungPerQuery => "pages made young per query",
            Metric::PagesMadeNotYoungPerQuery => "pages made not young per query",
            Metric::ReadRequestsPerQuery => "buffer pool read requests per query",
            Metric::CsPerQuery => "context switches per query",
            Metric::CpuMsPerQuery => "server CPU ms per query",
            Metric::BufPoolMutexPerQuery => "buf_pool.mutex acquisitions per query",
            Metric::BufPoolMutexWaitUsPerQuery => "buf_pool.mutex wait µs per query",
            Metric::HotKeptPct => "hot set kept (%)",
            Metric::ScanYoungPages => "scanned pages in the young sublist",
            Metric::HotLookupsPerS => "hot lookups per second",
        }
    }

    /// Throughput: more is better (a drop is a regression). For the
    /// others less is better.
    pub fn higher_is_better(self) -> bool {
        matches!(
            self,
            Metric::Qps | Metric::Tps | Metric::HotKeptPct | Metric::HotLookupsPerS
        )
    }

    pub fn parse(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    pub fn known() -> String {
        Metric::ALL.map(Metric::name).join(", ")
    }

    /// The value of one run; buf_pool.mutex figures come from the
    /// diagnostic pass (instrument on), everything else from the measured
    /// interval.
    pub fn of(self, r: &RunResult) -> Option<f64> {
        let o = r.outcome.as_ref()?;
        if let Some(sl) = &o.scan_loop {
            match self {
                Metric::HotKeptPct => return sl.hot_kept().map(|k| k * 100.0),
                Metric::ScanYoungPages => return sl.scan_young_avg(),
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
        let m = o.measured.as_ref()?;
        Some(match self {
            Metric::Qps => m.sysbench.qps,
            Metric::Tps => m.sysbench.tps,
            Metric::P95Ms => m.sysbench.p95_ms,
            Metric::PagesMadeYoungPerQuery => m.pages_made_young_per_query,
            Metric::PagesMadeNotYoungPerQuery => m.pages_made_not_young_per_query,
            Metric::ReadRequestsPerQuery => m.read_requests_per_query,
            Metric::CsPerQuery => m.cs_per_query,
            Metric::CpuMsPerQuery => m.cpu_ms_per_query,
            Metric::BufPoolMutexPerQuery | Metric::BufPoolMutexWaitUsPerQuery => unreachable!(),
            // only a scan-loop cell measures them
            Metric::HotKeptPct | Metric::ScanYoungPages | Metric::HotLookupsPerS => return None,
        })
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.words())
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
