//! What the decision suites share: the seeded generator, the case count
//! and the tally of C++ against model outcomes.

#![allow(dead_code)]

const DEFAULT_SEED: u64 = 0x1bdb_5eed_0003;
const DEFAULT_CASES: u64 = 200_000;

pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub fn cases() -> u64 {
    env_u64("FFI_CASES", DEFAULT_CASES)
}

/// The workspace's generator (the LRU model's SplitMix64), seeded from
/// `FFI_SEED` and the case's salt, so a failing case can be run again.
pub struct Rng(lru_model::rng::SplitMix64);

impl Rng {
    pub fn new(salt: u64) -> Rng {
        let seed = env_u64("FFI_SEED", DEFAULT_SEED) ^ salt.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        Rng(lru_model::rng::SplitMix64::new(seed))
    }
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn u32(&mut self) -> u32 {
        self.next() as u32
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    /// a small signed offset, for hitting `<` / `>=` boundaries exactly
    pub fn jitter(&mut self) -> i64 {
        self.below(7) as i64 - 3
    }
}

/// `buf_pool.curr_size()`: 0, small, the default 128 MiB pool, up to 2^40.
pub fn curr_size(r: &mut Rng) -> u64 {
    match r.below(6) {
        0 => 0,
        1 => r.below(512),
        2 => 8192,
        3 => r.below(1 << 20),
        4 => r.below(1 << 32),
        _ => r.below(1 << 40),
    }
}

/// LRU_old_ratio: the server's range [51, 1024], sometimes beyond (wraps in ulint).
pub fn old_ratio(r: &mut Rng) -> u32 {
    match r.below(10) {
        0 => 378,
        1 => [51, 1024, 0, 1025, 4096][r.below(5) as usize],
        _ => 51 + r.below(1024 - 51 + 1) as u32,
    }
}

/// `buf_LRU_old_threshold` (innodb_old_blocks_time, ms): 0, 1, the
/// default, near the top of its 32 bits, anything up to 100 s.
pub fn threshold(r: &mut Rng) -> u32 {
    match r.below(6) {
        0 => 0,
        1 => 1,
        2 => 1000,
        3 => u32::MAX - r.below(3) as u32,
        _ => r.below(100_000) as u32,
    }
}

/// Which branch of buf_page_peek_if_too_old() the C++ took (the same three
/// in both engines): no eviction yet, an old block under a threshold, or
/// the young rule; with the decision and the statistics it counted.
pub fn too_old_class(no_eviction: bool, old_under_threshold: bool, real: (bool, u64)) -> String {
    let branch = if no_eviction {
        "no eviction yet"
    } else if old_under_threshold {
        "old block, threshold"
    } else {
        "new block or threshold 0"
    };
    format!("{branch}: too_old={} not_made_young+={}", real.0, real.1)
}

/// Collects disagreements and the outcome mix (to show every branch was hit).
pub struct Tally {
    name: String,
    cases: u64,
    mismatches: u64,
    examples: Vec<String>,
    outcomes: std::collections::BTreeMap<String, u64>,
}

impl Tally {
    pub fn new(name: impl Into<String>) -> Tally {
        Tally {
            name: name.into(),
            cases: 0,
            mismatches: 0,
            examples: Vec::new(),
            outcomes: Default::default(),
        }
    }
    /// `class` names the branch the C++ took, to show the inputs reach all of them.
    pub fn check<T: PartialEq + std::fmt::Debug>(
        &mut self,
        input: impl std::fmt::Debug,
        real: T,
        model: T,
        class: &str,
    ) {
        self.cases += 1;
        *self.outcomes.entry(class.to_string()).or_default() += 1;
        if real != model {
            self.mismatches += 1;
            if self.examples.len() < 5 {
                self.examples
                    .push(format!("{input:?}: C++ {real:?}, model {model:?}"));
            }
        }
    }
    pub fn finish(self, tree: &ffi::TreeInfo, needed_outcomes: usize) {
        println!(
            "{}: {}: {} cases checked (seed {:#x}), {} mismatches; C++ outcomes {:?}",
            tree.version,
            self.name,
            self.cases,
            env_u64("FFI_SEED", DEFAULT_SEED),
            self.mismatches,
            self.outcomes
        );
        assert!(
            self.mismatches == 0,
            "{}: {} differs between the C++ and lru_model::decide in {} of {} cases, e.g.:\n  {}",
            tree.version,
            self.name,
            self.mismatches,
            self.cases,
            self.examples.join("\n  ")
        );
        assert!(
            self.outcomes.len() >= needed_outcomes,
            "{}: {}: the inputs reached only {:?}; the generator misses a branch",
            tree.version,
            self.name,
            self.outcomes
        );
    }
}
