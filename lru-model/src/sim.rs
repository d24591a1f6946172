//! Generated workloads (issue 2, item 4): `in-memory`, `scan-loop` and
//! `scan-resistance`. Each runs the same [`BufferPool`] that replays traces,
//! with a seeded generator, so a result depends only on its parameters.

use serde::Serialize;

use crate::policy::{Classic, Eager, Lazy, Policy, PolicyKind};
use crate::pool::{BufferPool, Config, ModelError, ShortLru};
use crate::rng::SplitMix64;

/// Run a generic scenario function for a run-time policy.
macro_rules! dispatch {
    ($kind:expr, $f:ident ( $($arg:expr),* )) => {
        match $kind {
            PolicyKind::Classic => $f::<Classic>($($arg),*),
            PolicyKind::Eager => $f::<Eager>($($arg),*),
            PolicyKind::Lazy => $f::<Lazy>($($arg),*),
        }
    };
}

/// Scenarios start one second after the clock's origin: a 10.11 access at
/// `ut_time_ms() == 0` would store 0, "never accessed", which a server never sees.
const START_MS: u64 = 1000;

/// Read `page` unless it is resident, then access it: by a lookup (a
/// point read's search from the root) or as a scan passes over it; only
/// the lookup-touch rule tells the two apart. Returns whether it was read.
fn read_if_needed_and_access<P: Policy>(
    pool: &mut BufferPool<P>,
    page: u64,
    lookup: bool,
) -> Result<bool, ModelError> {
    let was_resident = pool.is_resident(page);
    if !was_resident {
        pool.read(page)?;
    }
    if lookup {
        pool.lookup(page)?;
    } else {
        pool.access(page)?;
    }
    Ok(!was_resident)
}

// ---------------------------------------------------------------------------
// in-memory

/// The MDEV-37992 shape: data smaller than the pool, an arming phase that
/// frees some pages, then uniform point reads.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct InMemoryParams {
    /// server settings
    pub cfg: Config,
    /// pages of data, all read in by the load phase
    pub data_pages: u32,
    /// pages created and freed after the load (purged undo pages, dropped index pages)
    pub armed_frees: u32,
    /// point reads in the measured phase
    pub accesses: u64,
    /// point reads per second of simulated time
    pub accesses_per_sec: u64,
    /// generator seed
    pub seed: u64,
}

impl Default for InMemoryParams {
    fn default() -> Self {
        InMemoryParams {
            cfg: Config::default(),
            data_pages: 4096,
            armed_frees: 16,
            accesses: 2_000_000,
            accesses_per_sec: 200_000,
            seed: 1,
        }
    }
}

/// What the measured phase of `in-memory` did, for one policy.
#[derive(Clone, Debug, Serialize)]
pub struct InMemoryResult {
    /// the policy
    pub policy: PolicyKind,
    /// point reads measured
    pub accesses: u64,
    /// pages made young during the measured phase
    pub made_young: u64,
    /// pages made not young during the measured phase
    pub not_made_young: u64,
    /// `buf_pool.mutex` acquisitions on the access path during the measured phase
    pub access_mutex_acquisitions: u64,
    /// made_young per access
    pub made_young_per_access: f64,
    /// access-path mutex acquisitions per access
    pub access_mutex_per_access: f64,
    /// evictions over the whole run
    pub evictions: u64,
    /// `buf_pool.freed_page_clock` at the end (0 for lazy, which has none)
    pub freed_page_clock: u32,
    /// blocks flagged PROMOTE, waiting for a sweep (lazy)
    pub promote_pending: u64,
    /// LRU length at the end
    pub lru_len: u32,
    /// old sublist length at the end
    pub old_len: u32,
}

/// The in-memory scenario, loaded and armed, ready for its point reads.
pub struct InMemory<P: Policy> {
    pool: BufferPool<P>,
    rng: SplitMix64,
    data_pages: u64,
    start_ms: u64,
    accesses_per_sec: u64,
    done: u64,
}

impl<P: Policy> InMemory<P> {
    /// Load the data (10 pages per ms, each read and accessed), then one
    /// second later create and free `armed_frees` pages, and wait one more second.
    pub fn prepare(p: &InMemoryParams) -> Result<Self, ModelError> {
        if p.data_pages == 0
            || u64::from(p.data_pages) + u64::from(p.armed_frees) > u64::from(p.cfg.pool_pages)
        {
            return Err(ModelError::BadConfig(format!(
                "in-memory needs 0 < data_pages + armed_frees ({} + {}) <= pool_pages ({})",
                p.data_pages, p.armed_frees, p.cfg.pool_pages
            )));
        }
        if p.accesses_per_sec == 0 {
            return Err(ModelError::BadConfig(
                "accesses_per_sec must be positive".into(),
            ));
        }
        let mut pool = BufferPool::<P>::new(p.cfg)?;
        let data_pages = u64::from(p.data_pages);
        for page in 0..data_pages {
            pool.set_time(START_MS + page / 10)?;
            pool.read(page)?;
            pool.access(page)?;
        }
        let arm_ms = START_MS + data_pages / 10 + 1000;
        pool.set_time(arm_ms)?;
        for page in data_pages..data_pages + u64::from(p.armed_frees) {
            pool.read(page)?;
            pool.access(page)?;
            pool.free(page)?;
        }
        Ok(InMemory {
            pool,
            rng: SplitMix64::new(p.seed),
            data_pages,
            start_ms: arm_ms + 1000,
            accesses_per_sec: p.accesses_per_sec,
            done: 0,
        })
    }

    /// `n` more uniform point reads.
    pub fn run(&mut self, n: u64) -> Result<(), ModelError> {
        for _ in 0..n {
            let t = self.start_ms + self.done * 1000 / self.accesses_per_sec;
            self.pool.set_time(t)?;
            let page = self.rng.below(self.data_pages);
            self.pool.lookup(page)?;
            self.done += 1;
        }
        Ok(())
    }

    /// The pool.
    pub fn pool(&self) -> &BufferPool<P> {
        &self.pool
    }
}

fn in_memory_generic<P: Policy>(p: &InMemoryParams) -> Result<InMemoryResult, ModelError> {
    let mut sim = InMemory::<P>::prepare(p)?;
    let before = sim.pool.counters();
    sim.run(p.accesses)?;
    let after = sim.pool.counters();
    let per = |x: u64| {
        if p.accesses == 0 {
            0.0
        } else {
            x as f64 / p.accesses as f64
        }
    };
    let made_young = after.made_young - before.made_young;
    let mutex = after.access_mutex_acquisitions - before.access_mutex_acquisitions;
    Ok(InMemoryResult {
        policy: P::KIND,
        accesses: p.accesses,
        made_young,
        not_made_young: after.not_made_young - before.not_made_young,
        access_mutex_acquisitions: mutex,
        made_young_per_access: per(made_young),
        access_mutex_per_access: per(mutex),
        evictions: after.evictions,
        freed_page_clock: sim.pool.freed_page_clock(),
        promote_pending: sim.pool.promote_pending(),
        lru_len: sim.pool.lru_len(),
        old_len: sim.pool.old_len(),
    })
}

/// Run `in-memory` for one policy.
pub fn in_memory(kind: PolicyKind, p: &InMemoryParams) -> Result<InMemoryResult, ModelError> {
    dispatch!(kind, in_memory_generic(p))
}

// ---------------------------------------------------------------------------
// scan-loop

/// Seed 001: a hot set read at a given rate, a table larger than the pool
/// scanned in a loop with an optional pause, and the page cleaner refilling
/// the free list up to `lru_scan_depth` once a second.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ScanLoopParams {
    /// server settings
    pub cfg: Config,
    /// pages of the hot set, read uniformly at random
    pub hot_pages: u32,
    /// pages of the scanned table
    pub table_pages: u32,
    /// pages of a filler table read once before the warm-up, so that the free
    /// list is drained before the scans start and the scanned table starts
    /// with no young pages (the seed's cold start); 0 leaves the pool empty
    pub fill_pages: u32,
    /// hot point reads per second
    pub hot_reads_per_sec: u64,
    /// scanned pages per second while a pass runs
    pub scan_pages_per_sec: u64,
    /// pause between two passes, in ms
    pub pause_ms: u64,
    /// seconds of hot reads alone before the scans start
    pub warmup_s: u64,
    /// seconds of scanning
    pub scan_s: u64,
    /// seconds between two samples
    pub sample_every_s: u64,
    /// the last seconds of the scan over which the kept share is averaged
    pub kept_window_s: u64,
    /// generator seed
    pub seed: u64,
}

impl Default for ScanLoopParams {
    fn default() -> Self {
        ScanLoopParams {
            // 256 MiB of 16 KiB pages, as in the seed
            cfg: Config {
                pool_pages: 16384,
                ..Config::default()
            },
            hot_pages: 4485,
            // 746 MB
            table_pages: 47_744,
            fill_pages: 16384,
            hot_reads_per_sec: 5000,
            scan_pages_per_sec: 48_000,
            pause_ms: 0,
            warmup_s: 60,
            scan_s: 150,
            sample_every_s: 10,
            kept_window_s: 110,
            seed: 1,
        }
    }
}

/// One sample of the scan-loop run.
#[derive(Clone, Debug, Serialize)]
pub struct ScanLoopSample {
    /// seconds since the scans started (negative: warm-up); samples fall half a
    /// second after a page-cleaner batch, between a refill and the next
    pub t_s: f64,
    /// share of the hot set resident
    pub hot_kept: f64,
    /// scanned pages resident in the young sublist
    pub scan_young: u64,
    /// pages made young so far
    pub made_young: u64,
}

/// What `scan-loop` did, for one policy.
#[derive(Clone, Debug, Serialize)]
pub struct ScanLoopResult {
    /// the policy
    pub policy: PolicyKind,
    /// `innodb_lru_scan_depth`
    pub lru_scan_depth: u32,
    /// the average hot share resident over the last `kept_window_s` of the scan
    pub kept: f64,
    /// the average number of scanned pages in the young sublist over the same window
    pub scan_young_avg: f64,
    /// scanned-page accesses that found the page in the young sublist
    pub scan_hits_young: u64,
    /// blocks per second made young by the old-sublist boundary moving toward
    /// the tail during the scan: the leak through free-list refills
    pub boundary_young_per_s: f64,
    /// scan passes completed
    pub passes: u64,
    /// hot reads that missed the pool during the scan
    pub hot_misses: u64,
    /// pages made young during the scan
    pub made_young: u64,
    /// `buf_pool.mutex` acquisitions on the access path during the scan
    pub access_mutex_acquisitions: u64,
    /// evictions during the scan
    pub evictions: u64,
    /// the samples
    pub samples: Vec<ScanLoopSample>,
}

const TABLE_BASE: u64 = 1 << 40;
const FILL_BASE: u64 = 2 << 40;

fn scan_loop_generic<P: Policy>(p: &ScanLoopParams) -> Result<ScanLoopResult, ModelError> {
    if p.hot_reads_per_sec == 0
        || p.scan_pages_per_sec == 0
        || p.sample_every_s == 0
        || p.hot_pages == 0
    {
        return Err(ModelError::BadConfig(
            "scan-loop needs positive hot_pages, rates and sample interval".into(),
        ));
    }
    let mut pool = BufferPool::<P>::new(p.cfg)?;
    let mut rng = SplitMix64::new(p.seed);
    let us = 1_000_000u64;
    // the filler table, read once at the scan's speed
    for i in 0..u64::from(p.fill_pages) {
        pool.set_time(START_MS + i * 1000 / p.scan_pages_per_sec)?;
        read_if_needed_and_access(&mut pool, FILL_BASE + i, false)?;
    }
    let t0 = START_MS * 1000 + u64::from(p.fill_pages) * us / p.scan_pages_per_sec;
    let scan_start = t0 + p.warmup_s * us;
    let end = scan_start + p.scan_s * us;
    let window_start = end.saturating_sub(p.kept_window_s * us).max(scan_start);
    let (mut hot_i, mut cleaner_next, mut sample_next) = (0u64, t0 + us, t0 + us / 2);
    // the scan: page `scan_pos` of the current pass is read at `scan_next`
    let (mut scan_next, mut scan_pass_start, mut scan_pos, mut passes) =
        (scan_start, scan_start, 0u64, 0u64);
    let table = u64::from(p.table_pages);
    let mut samples = Vec::new();
    let (mut scan_hits_young, mut hot_misses) = (0u64, 0u64);
    let mut at_scan_start = pool.counters();
    let mut scan_started = false;
    loop {
        let hot_next = t0 + hot_i * us / p.hot_reads_per_sec;
        let scan_due = if table == 0 { u64::MAX } else { scan_next };
        let t = hot_next.min(scan_due).min(cleaner_next).min(sample_next);
        if t > end {
            break;
        }
        pool.set_time(t / 1000)?;
        if t == cleaner_next {
            pool.cleaner_batch();
            cleaner_next += us;
        } else if t == sample_next {
            samples.push(sample(&pool, p, t, scan_start));
            sample_next += p.sample_every_s * us;
        } else if t == hot_next {
            if t >= scan_start && !scan_started {
                at_scan_start = pool.counters();
                scan_started = true;
            }
            let page = rng.below(u64::from(p.hot_pages));
            let missed = read_if_needed_and_access(&mut pool, page, true)?;
            if missed && t >= scan_start {
                hot_misses += 1;
            }
            hot_i += 1;
        } else {
            if !scan_started {
                at_scan_start = pool.counters();
                scan_started = true;
            }
            let page = TABLE_BASE + scan_pos;
            if pool.is_old(page) == Some(false) {
                scan_hits_young += 1;
            }
            read_if_needed_and_access(&mut pool, page, false)?;
            scan_pos += 1;
            if scan_pos == table {
                passes += 1;
                scan_pos = 0;
                scan_pass_start = scan_next + us / p.scan_pages_per_sec + p.pause_ms * 1000;
                scan_next = scan_pass_start;
            } else {
                scan_next = scan_pass_start + scan_pos * us / p.scan_pages_per_sec;
            }
        }
    }
    let window_s = (window_start - scan_start) as f64 / us as f64;
    let (kept, scan_young_avg) = window_averages(&samples, window_s);
    let c = pool.counters();
    Ok(ScanLoopResult {
        policy: P::KIND,
        lru_scan_depth: p.cfg.lru_scan_depth,
        kept,
        scan_young_avg,
        scan_hits_young,
        boundary_young_per_s: (c.boundary_made_young - at_scan_start.boundary_made_young) as f64
            / p.scan_s.max(1) as f64,
        passes,
        hot_misses,
        made_young: c.made_young - at_scan_start.made_young,
        access_mutex_acquisitions: c.access_mutex_acquisitions
            - at_scan_start.access_mutex_acquisitions,
        evictions: c.evictions - at_scan_start.evictions,
        samples,
    })
}

/// The hot share resident and the scanned pages in the young sublist,
/// averaged over the samples from `window_s` (0 or more) seconds after the
/// scan's start (0 and 0 when there are none).
fn window_averages(samples: &[ScanLoopSample], window_s: f64) -> (f64, f64) {
    let in_window: Vec<&ScanLoopSample> = samples.iter().filter(|s| s.t_s >= window_s).collect();
    if in_window.is_empty() {
        return (0.0, 0.0);
    }
    let n = in_window.len() as f64;
    (
        in_window.iter().map(|s| s.hot_kept).sum::<f64>() / n,
        in_window.iter().map(|s| s.scan_young as f64).sum::<f64>() / n,
    )
}

fn sample<P: Policy>(
    pool: &BufferPool<P>,
    p: &ScanLoopParams,
    t_us: u64,
    scan_start: u64,
) -> ScanLoopSample {
    let hot = (0..u64::from(p.hot_pages))
        .filter(|&pg| pool.is_resident(pg))
        .count();
    let scan_young = pool
        .lru_pages()
        .into_iter()
        .filter(|&pg| (TABLE_BASE..FILL_BASE).contains(&pg) && pool.is_old(pg) == Some(false))
        .count();
    ScanLoopSample {
        t_s: (t_us as f64 - scan_start as f64) / 1e6,
        hot_kept: hot as f64 / f64::from(p.hot_pages),
        scan_young: scan_young as u64,
        made_young: pool.counters().made_young,
    }
}

/// Run `scan-loop` for one policy.
pub fn scan_loop(kind: PolicyKind, p: &ScanLoopParams) -> Result<ScanLoopResult, ModelError> {
    dispatch!(kind, scan_loop_generic(p))
}

// ---------------------------------------------------------------------------
// scan-resistance

/// The upstream test innodb.buf_lru_scan_resistance (MDEV-33966): a 16 MiB
/// pool, `innodb_old_blocks_time=1000`, `innodb_lru_scan_depth=100`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ScanResistanceParams {
    /// server settings
    pub cfg: Config,
    /// pages of t0, the warm-up table (4000 rows of half a page)
    pub t0_pages: u32,
    /// pages of t1, read in one burst
    pub t1_pages: u32,
    /// pages of t2, the final scan
    pub t2_pages: u32,
    /// pages of t3, read twice, 3 s apart
    pub t3_pages: u32,
    /// rows per page: each is one access during a scan
    pub rows_per_page: u32,
    /// scanned pages per ms
    pub pages_per_ms: u64,
    /// the `--sleep` between the two scans of t3, in ms
    pub sleep_ms: u64,
}

impl Default for ScanResistanceParams {
    fn default() -> Self {
        ScanResistanceParams {
            cfg: Config {
                pool_pages: 1000,
                old_pct: 37,
                old_blocks_time_ms: 1000,
                lru_scan_depth: 100,
                short_lru: ShortLru::Upstream,
                ..Config::default()
            },
            t0_pages: 2000,
            t1_pages: 300,
            t2_pages: 2000,
            t3_pages: 30,
            rows_per_page: 2,
            pages_per_ms: 10,
            sleep_ms: 3000,
        }
    }
}

/// One expectation of the upstream test.
#[derive(Clone, Debug, Serialize)]
pub struct SimCheck {
    /// the expectation, as the test states it
    pub what: String,
    /// whether it holds
    pub ok: bool,
}

/// What `scan-resistance` did, for one policy.
#[derive(Clone, Debug, Serialize)]
pub struct ScanResistanceResult {
    /// the policy
    pub policy: PolicyKind,
    /// pages made young over the whole test
    pub made_young: u64,
    /// t1 pages resident after its burst
    pub t1_pages_after_burst: u64,
    /// t1 pages resident at the end
    pub t1_pages_final: u64,
    /// t3 pages resident after its second scan
    pub t3_pages_after_rescan: u64,
    /// t3 pages resident at the end
    pub t3_pages_final: u64,
    /// the test's four expectations
    pub checks: Vec<SimCheck>,
}

impl ScanResistanceResult {
    /// Whether all four expectations hold.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }
}

struct Clocked<P: Policy> {
    pool: BufferPool<P>,
    t_us: u64,
    next_cleaner_us: u64,
    per_page_us: u64,
}

impl<P: Policy> Clocked<P> {
    /// Move the clock, running the once-a-second page-cleaner batches that fall due.
    fn advance(&mut self, by_us: u64) -> Result<(), ModelError> {
        let target = self.t_us + by_us;
        while self.next_cleaner_us <= target {
            self.pool.set_time(self.next_cleaner_us / 1000)?;
            self.pool.cleaner_batch();
            self.next_cleaner_us += 1_000_000;
        }
        self.t_us = target;
        self.pool.set_time(target / 1000)
    }

    fn scan(&mut self, base: u64, pages: u32, rows_per_page: u32) -> Result<(), ModelError> {
        for page in base..base + u64::from(pages) {
            self.advance(self.per_page_us)?;
            if !self.pool.is_resident(page) {
                self.pool.read(page)?;
            }
            for _ in 0..rows_per_page {
                self.pool.access(page)?;
            }
        }
        Ok(())
    }

    fn resident(&self, base: u64, pages: u32) -> u64 {
        (base..base + u64::from(pages))
            .filter(|&pg| self.pool.is_resident(pg))
            .count() as u64
    }
}

fn scan_resistance_generic<P: Policy>(
    p: &ScanResistanceParams,
) -> Result<ScanResistanceResult, ModelError> {
    if p.pages_per_ms == 0 {
        return Err(ModelError::BadConfig(
            "pages_per_ms must be positive".into(),
        ));
    }
    let table = |i: u64| i << 32;
    let mut c = Clocked {
        pool: BufferPool::<P>::new(p.cfg)?,
        t_us: START_MS * 1000,
        next_cleaner_us: START_MS * 1000 + 1_000_000,
        per_page_us: 1000 / p.pages_per_ms,
    };
    let y0 = c.pool.counters().made_young;
    c.scan(table(0), p.t0_pages, p.rows_per_page)?;
    c.scan(table(1), p.t1_pages, p.rows_per_page)?;
    let t1_after = c.resident(table(1), p.t1_pages);
    c.scan(table(3), p.t3_pages, p.rows_per_page)?;
    c.advance(p.sleep_ms * 1000)?;
    c.scan(table(3), p.t3_pages, p.rows_per_page)?;
    let t3_after = c.resident(table(3), p.t3_pages);
    c.scan(table(2), p.t2_pages, p.rows_per_page)?;
    let made_young = c.pool.counters().made_young - y0;
    let t1_final = c.resident(table(1), p.t1_pages);
    let t3_final = c.resident(table(3), p.t3_pages);
    let checks = vec![
        SimCheck {
            what: format!("pages made young {made_young} < 200"),
            ok: made_young < 200,
        },
        SimCheck {
            what: format!("t1 pages after its burst {t1_after} > 0"),
            ok: t1_after > 0,
        },
        SimCheck {
            what: format!("t1 pages at the end {t1_final} < half of {t1_after}"),
            ok: 2 * t1_final < t1_after,
        },
        SimCheck {
            what: format!("t3 pages unchanged: {t3_after} -> {t3_final}"),
            ok: t3_final == t3_after,
        },
    ];
    Ok(ScanResistanceResult {
        policy: P::KIND,
        made_young,
        t1_pages_after_burst: t1_after,
        t1_pages_final: t1_final,
        t3_pages_after_rescan: t3_after,
        t3_pages_final: t3_final,
        checks,
    })
}

/// Run `scan-resistance` for one policy.
pub fn scan_resistance(
    kind: PolicyKind,
    p: &ScanResistanceParams,
) -> Result<ScanResistanceResult, ModelError> {
    dispatch!(kind, scan_resistance_generic(p))
}
