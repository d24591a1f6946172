//! The metrics: one table that says, for each, its name in matrix files
//! and summary.json, its words in reports, which way is better, and where
//! it appears (the medians of summary.json, a column of the results table,
//! a chart). Adding a metric is one variant and one row here, plus the
//! line that reads it from a record (`results::metric`).

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
    /// 1 - Innodb_buffer_pool_reads / Innodb_buffer_pool_read_requests, in
    /// percent: the share of page requests the pool served
    HitRatioPct,
    /// pages read into the pool per query (Innodb_buffer_pool_reads)
    PagesReadPerQuery,
    /// pages written by any flush batch (Innodb_buffer_pool_pages_flushed)
    PagesFlushedPerQuery,
    /// pages read ahead per query (Innodb_buffer_pool_read_ahead)
    ReadAheadPerQuery,
    /// pages read ahead and evicted unused, per query
    /// (Innodb_buffer_pool_read_ahead_evicted)
    ReadAheadEvictedPerQuery,
    /// seconds the pool takes to turn over: its pages over the pages read
    /// into it per second (Innodb_buffer_pool_pages_total /
    /// (Innodb_buffer_pool_reads / s)), the time a page read now has before
    /// as many newer reads would have pushed it out of a FIFO pool
    PoolTurnoverS,
    CsPerQuery,
    CpuMsPerQuery,
    /// CPU of the server and of sysbench (the client) per query, as Mark
    /// Callaghan's tables count it
    ServerAndClientCpuMsPerQuery,
    /// instructions of every server thread per query, counted by the cost
    /// pass (callgrind `Ir`): the work a query costs, which a noisy host
    /// barely moves
    InstructionsPerQuery,
    BufPoolMutexPerQuery,
    BufPoolMutexWaitUsPerQuery,
    /// scan-loop: share of the hot table resident, second half of the
    /// residency pass, in percent
    HotKeptPct,
    /// scan-loop: scanned pages in the young sublist, same window
    ScanYoungPages,
    /// scan-loop: the rate at which scanned pages enter the young sublist
    /// during the residency pass, pages a second
    ScanYoungPerS,
    /// scan-loop: hot lookups per second in the measured pass
    HotLookupsPerS,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct MetricInfo {
    pub metric: Metric,
    /// the name in matrix files and summary.json
    pub name: &'static str,
    /// what reports call it
    pub words: &'static str,
    /// throughput and kept shares: a drop is a regression
    pub higher_is_better: bool,
    /// a median of summary.json's rows
    pub in_medians: bool,
    /// a column of the report's results table: its header and decimals
    pub column: Option<(&'static str, usize)>,
    /// a bar chart of its medians per workload and variant
    pub chart: Option<ChartSpec>,
    /// a column of the relative table (variant / baseline per workload,
    /// Mark Callaghan's form): its header
    pub relative: Option<&'static str>,
    /// its column appears only in a report where some cell read pages into
    /// the pool: in-memory runs read none, and a column of 100.00 and 0
    /// would stand in every report (one sentence says the data fit instead)
    pub only_when_pages_read: bool,
    /// a time or a speed (throughput, latency) that moves between runs of
    /// one build: told apart by repeated runs and a test, never by one run
    /// (the counters have next to no noise)
    pub timing: bool,
    /// measured by a pass that few matrices ask for (the cost pass): its
    /// column appears only in a report where some cell has it
    pub only_when_measured: bool,
    /// counted by a pass the host's load cannot move (instructions under
    /// callgrind, which runs the server's threads one at a time): a run
    /// flagged busy for its timing still counts for it
    pub host_independent: bool,
    /// counted by the cost pass only: a matrix that asks about it, or a
    /// bisection that decides by it, runs cost passes
    pub cost_pass: bool,
}

/// A metric's bar chart.
#[derive(Debug, Clone, Copy)]
pub struct ChartSpec {
    pub file: &'static str,
    /// the title, without the interval a QPS chart adds
    pub title: &'static str,
    pub y_label: &'static str,
    /// with the interval of the median (QPS)
    pub interval: bool,
}

const fn row(metric: Metric, name: &'static str, words: &'static str) -> MetricInfo {
    MetricInfo {
        metric,
        name,
        words,
        higher_is_better: false,
        in_medians: false,
        column: None,
        chart: None,
        relative: None,
        only_when_pages_read: false,
        timing: false,
        only_when_measured: false,
        host_independent: false,
        cost_pass: false,
    }
}

impl MetricInfo {
    const fn higher_is_better(mut self) -> Self {
        self.higher_is_better = true;
        self
    }
    const fn median(mut self) -> Self {
        self.in_medians = true;
        self
    }
    const fn column(mut self, header: &'static str, decimals: usize) -> Self {
        self.column = Some((header, decimals));
        self
    }
    const fn chart(mut self, chart: ChartSpec) -> Self {
        self.chart = Some(chart);
        self
    }
    const fn relative(mut self, header: &'static str) -> Self {
        self.relative = Some(header);
        self
    }
    const fn only_when_pages_read(mut self) -> Self {
        self.only_when_pages_read = true;
        self
    }
    const fn timing(mut self) -> Self {
        self.timing = true;
        self
    }
    const fn only_when_measured(mut self) -> Self {
        self.only_when_measured = true;
        self
    }
    const fn host_independent(mut self) -> Self {
        self.host_independent = true;
        self
    }
    const fn cost_pass(mut self) -> Self {
        self.cost_pass = true;
        self
    }
}

/// Every metric, in the order summary.json's medians and the results
/// table's columns list them.
pub const METRICS: [MetricInfo; 22] = [
    row(Metric::Qps, "qps", "QPS")
        .higher_is_better()
        .timing()
        .median()
        .relative("QPS")
        .chart(ChartSpec {
            file: "qps.svg",
            title: "QPS per workload and variant",
            y_label: "queries per second",
            interval: true,
        }),
    row(Metric::Tps, "tps", "TPS").higher_is_better().timing(),
    row(Metric::P95Ms, "p95_ms", "p95 latency (ms)")
        .timing()
        .median()
        .column("p95 (ms)", 2),
    row(
        Metric::PagesMadeYoungPerQuery,
        "pages_made_young_per_query",
        "pages made young per query",
    )
    .median()
    .column("pages made young / query", 4)
    .chart(ChartSpec {
        file: "pages-made-young.svg",
        title: "Pages made young per query (median)",
        y_label: "pages made young / query",
        interval: false,
    }),
    row(
        Metric::PagesMadeNotYoungPerQuery,
        "pages_made_not_young_per_query",
        "pages made not young per query",
    )
    .median()
    .column("made not young / query", 3),
    row(
        Metric::ReadRequestsPerQuery,
        "read_requests_per_query",
        "buffer pool read requests per query",
    )
    .median(),
    row(
        Metric::HitRatioPct,
        "hit_ratio_pct",
        "buffer pool hit ratio (%)",
    )
    .higher_is_better()
    .median()
    .column("hit ratio (%)", 2)
    .only_when_pages_read(),
    row(
        Metric::PagesReadPerQuery,
        "pages_read_per_query",
        "pages read into the pool per query",
    )
    .median()
    .column("pages read / query", 3)
    .only_when_pages_read(),
    row(
        Metric::PagesFlushedPerQuery,
        "pages_flushed_per_query",
        "pages written per query",
    )
    .median()
    .column("pages written / query", 2),
    row(
        Metric::ReadAheadPerQuery,
        "read_ahead_per_query",
        "pages read ahead per query",
    )
    .median()
    .only_when_pages_read(),
    row(
        Metric::ReadAheadEvictedPerQuery,
        "read_ahead_evicted_per_query",
        "pages read ahead and evicted unused per query",
    )
    .median()
    .only_when_pages_read(),
    row(
        Metric::PoolTurnoverS,
        "pool_turnover_s",
        "pool turnover (s): its pages over pages read a second",
    )
    .higher_is_better()
    .median()
    .column("turnover (s)", 2)
    .only_when_pages_read(),
    row(
        Metric::CsPerQuery,
        "cs_per_query",
        "context switches per query",
    )
    .median()
    .column("cs / query", 2)
    .relative("server context switches / query"),
    row(
        Metric::CpuMsPerQuery,
        "cpu_ms_per_query",
        "server CPU ms per query",
    )
    .timing()
    .median()
    .column("CPU ms / query", 3)
    .relative("server CPU / query"),
    row(
        Metric::ServerAndClientCpuMsPerQuery,
        "server_and_client_cpu_ms_per_query",
        "server and sysbench CPU ms per query",
    )
    .timing()
    .median()
    .relative("server + sysbench CPU / query"),
    row(
        Metric::InstructionsPerQuery,
        "instructions_per_query",
        "instructions per query (cost pass)",
    )
    .median()
    .column("instructions / query", 0)
    .only_when_measured()
    .host_independent()
    .cost_pass(),
    row(
        Metric::BufPoolMutexPerQuery,
        "buf_pool_mutex_per_query",
        "buf_pool.mutex acquisitions per query",
    )
    .median()
    .column("buf_pool.mutex / query", 2)
    .chart(ChartSpec {
        file: "buf-pool-mutex.svg",
        title: "buf_pool.mutex acquisitions per query (diagnostic pass, median)",
        y_label: "acquisitions / query",
        interval: false,
    }),
    row(
        Metric::BufPoolMutexWaitUsPerQuery,
        "buf_pool_mutex_wait_us_per_query",
        "buf_pool.mutex wait µs per query",
    )
    .timing()
    .median()
    .column("mutex wait µs / query", 2),
    row(Metric::HotKeptPct, "hot_kept_pct", "hot set kept (%)").higher_is_better(),
    row(
        Metric::ScanYoungPages,
        "scan_young_pages",
        "scanned pages in the young sublist",
    ),
    row(
        Metric::ScanYoungPerS,
        "scan_young_per_s",
        "scanned pages entering the young sublist per second",
    )
    .timing(),
    row(
        Metric::HotLookupsPerS,
        "hot_lookups_per_s",
        "hot lookups per second",
    )
    .higher_is_better()
    .timing(),
];

impl Metric {
    /// Every metric, in the table's order.
    pub const ALL: [Metric; METRICS.len()] = {
        let mut all = [Metric::Qps; METRICS.len()];
        let mut i = 0;
        while i < METRICS.len() {
            all[i] = METRICS[i].metric;
            i += 1;
        }
        all
    };

    /// Its row of the table.
    pub fn info(self) -> &'static MetricInfo {
        METRICS
            .iter()
            .find(|i| i.metric == self)
            .expect("every metric has a row (checked by a test)")
    }

    /// The name in matrix files and summary.json.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// What reports call it.
    pub fn words(self) -> &'static str {
        self.info().words
    }

    /// Throughput: more is better (a drop is a regression). For the
    /// others less is better.
    pub fn higher_is_better(self) -> bool {
        self.info().higher_is_better
    }

    /// A time or a speed: it moves between runs of one build.
    pub fn is_timing(self) -> bool {
        self.info().timing
    }

    pub fn parse(name: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == name)
    }

    pub fn known() -> String {
        Metric::ALL.map(Metric::name).join(", ")
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.words())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_has_one_row_and_its_name_round_trips() {
        for m in Metric::ALL {
            assert_eq!(METRICS.iter().filter(|i| i.metric == m).count(), 1, "{m:?}");
            assert_eq!(Metric::parse(m.name()), Some(m));
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.name())
            );
        }
        let mut names: Vec<&str> = METRICS.iter().map(|i| i.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), METRICS.len());
        assert_eq!(Metric::parse("QPS"), None);
    }
}
