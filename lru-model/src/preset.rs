//! The model's named presets: which policy and rules stand for a build
//! (a tree as it is, our port of the fix, a remedy), as a run records it,
//! a report replays it and the oracle compares a tree's code with it.

use std::fmt;
use std::str::FromStr;

use crate::decide::{FINE_CLOCK_TICK_MS, LAZY_CLOCK_TICK_MS};
use crate::{
    Boundary, Config, FreeBlocks, MoveStamp, OldSurplus, PolicyKind, ShortLru, YoungTouch,
};
use serde::{Deserialize, Serialize};

/// A model policy: a policy with every rule the model has for it (a short
/// LRU, the clock, the young touch, the boundary, the move's stamp, the old
/// sublist's surplus, where free blocks come from). Stored by its kebab-case name (`lazy-10.11-port`), the
/// text result files have always carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModelPolicy {
    /// 10.4 and before: promotion by the old sublist's position only.
    #[serde(rename = "classic")]
    Classic,
    /// 10.6 on, before the fix: promotion under buf_pool.mutex on access;
    /// the page cleaner frees blocks for reads.
    #[serde(rename = "eager")]
    Eager,
    /// 10.5: `Eager`, and a read that finds no free block frees blocks
    /// itself (`buf_flush_LRU(innodb_lru_flush_size)`,
    /// [`FreeBlocks::ReaderFlush`]).
    #[serde(rename = "eager-10.5")]
    Eager10_5,
    /// upstream's fix: a lock-free flag on access, moves in sweeps.
    #[serde(rename = "lazy")]
    Lazy,
    /// our 10.11 port of the fix: as `Lazy`, and every access of a short
    /// LRU flags the block (patches/10.11/fixed.md).
    #[serde(rename = "lazy-10.11-port")]
    LazyPort,
    /// our remedy candidate: `LazyPort` with a 100 ms access clock
    /// (patches/10.11/fixed-fine-clock.md).
    #[serde(rename = "lazy-10.11-port-fine-clock")]
    LazyPortFineClock,
    /// our first remedy candidate: `LazyPortFineClock`, and an access flags
    /// a block outside the old sublist at once
    /// (patches/10.11/fixed-fine-young.md).
    #[serde(rename = "lazy-10.11-port-fine-young")]
    LazyPortFineYoung,
    /// our remedy: `LazyPortFineClock`, and a lookup flags a block outside
    /// the old sublist at once (patches/10.11/fixed-lookup.md).
    #[serde(rename = "lazy-10.11-port-lookup")]
    LazyPortLookup,
    /// our remedy `fixed-lookup-boundary`: `LazyPortLookup` with the
    /// boundary rule and moves that keep the stamp
    /// (patches/10.11/fixed-lookup-boundary.md).
    /// Its other change, which accesses count as lookups, is the traced
    /// stream's to carry.
    #[serde(rename = "lazy-10.11-port-lookup-boundary")]
    LazyPortLookupBoundary,
    /// the probe `fixed-young-boundary`: `LazyPortLookupBoundary` with
    /// `LazyPortFineYoung`'s young rule (patches/10.11/fixed-young-boundary.md).
    #[serde(rename = "lazy-10.11-port-young-boundary")]
    LazyPortYoungBoundary,
    /// our remedy `fixed-looked-up`: `LazyPortLookupBoundary` where any
    /// access flags a young block that a lookup has reached since its read
    /// (patches/10.11/fixed-looked-up.md).
    #[serde(rename = "lazy-10.11-port-looked-up")]
    LazyPortLookedUp,
    /// our remedy `fixed-lookup-mark`: `LazyPortLookedUp` where a move to
    /// the head spends the lookup's mark (patches/10.11/fixed-lookup-mark.md).
    #[serde(rename = "lazy-10.11-port-lookup-mark")]
    LazyPortLookupMark,
    /// our leak remedy `old-surplus` on a tree whose accesses follow
    /// `Classic` (MySQL): the old sublist may outgrow its target by what
    /// one page-cleaner batch frees (patches/mysql-9.7/old-surplus.md).
    #[serde(rename = "classic-old-surplus")]
    ClassicOldSurplus,
    /// the leak remedy `old-surplus` on a tree whose accesses follow
    /// `Eager` (MariaDB 10.11, 11.8).
    #[serde(rename = "eager-old-surplus")]
    EagerOldSurplus,
    /// the leak remedy's second form `old-surplus-unaccessed` on a tree
    /// whose accesses follow `Classic`: the surplus only while the old
    /// sublist's first block has not been accessed since its read
    /// ([`OldSurplus::HoldUnaccessed`]).
    #[serde(rename = "classic-old-surplus-unaccessed")]
    ClassicOldSurplusUnaccessed,
    /// `old-surplus-unaccessed` on a tree whose accesses follow `Eager`.
    #[serde(rename = "eager-old-surplus-unaccessed")]
    EagerOldSurplusUnaccessed,
}

/// What the model runs for a policy: the policy, its short-LRU rule, its
/// access clock's tick in ms, which blocks wait for the age check, what
/// the old sublist's boundary does with a flagged block, what a sweep's
/// move does to its stamp, how far the old sublist may outgrow its target
/// and who frees blocks for a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelRules {
    /// when an access moves a block
    pub policy: PolicyKind,
    /// [`Config::short_lru`]
    pub short_lru: ShortLru,
    /// [`Config::clock_tick_ms`]
    pub clock_tick_ms: u32,
    /// [`Config::young_touch`]
    pub young_touch: YoungTouch,
    /// [`Config::boundary`]
    pub boundary: Boundary,
    /// [`Config::move_stamp`]
    pub move_stamp: MoveStamp,
    /// [`Config::old_surplus`]
    pub old_surplus: OldSurplus,
    /// [`Config::free_blocks`]
    pub free_blocks: FreeBlocks,
}

impl ModelRules {
    /// `settings` (the pool and the server's variables) under these rules.
    pub fn config(self, settings: Config) -> Config {
        Config {
            short_lru: self.short_lru,
            clock_tick_ms: self.clock_tick_ms,
            young_touch: self.young_touch,
            boundary: self.boundary,
            move_stamp: self.move_stamp,
            old_surplus: self.old_surplus,
            free_blocks: self.free_blocks,
            ..settings
        }
    }
}

impl ModelPolicy {
    /// The name records carry, e.g. `lazy-10.11-port`.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .expect("a unit variant serializes to its name")
    }
}

impl fmt::Display for ModelPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FromStr for ModelPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        serde_json::from_value(serde_json::Value::String(s.to_string()))
            .map_err(|_| format!("`{s}` is no model policy (the names records carry, e.g. `eager`, `lazy-10.11-port`)"))
    }
}

impl ModelPolicy {
    /// The leak remedy's policy, with its `rule` for the old sublist, on a
    /// tree whose accesses follow this one; None for a policy the remedy
    /// has not been written for.
    pub fn with_old_surplus(self, rule: OldSurplus) -> Option<ModelPolicy> {
        match (self, rule) {
            (_, OldSurplus::Upstream) => Some(self),
            (ModelPolicy::Classic, OldSurplus::Hold) => Some(ModelPolicy::ClassicOldSurplus),
            (ModelPolicy::Eager, OldSurplus::Hold) => Some(ModelPolicy::EagerOldSurplus),
            (ModelPolicy::Classic, OldSurplus::HoldUnaccessed) => {
                Some(ModelPolicy::ClassicOldSurplusUnaccessed)
            }
            (ModelPolicy::Eager, OldSurplus::HoldUnaccessed) => {
                Some(ModelPolicy::EagerOldSurplusUnaccessed)
            }
            _ => None,
        }
    }

    /// Every rule the model runs for this preset.
    pub fn model(self) -> ModelRules {
        use YoungTouch::{AgeChecked, LookedUp, Lookup, LookupMark, OldOnly};
        let (policy, short_lru, clock_tick_ms, young_touch) = match self {
            ModelPolicy::Classic
            | ModelPolicy::ClassicOldSurplus
            | ModelPolicy::ClassicOldSurplusUnaccessed => (
                PolicyKind::Classic,
                ShortLru::Upstream,
                LAZY_CLOCK_TICK_MS,
                AgeChecked,
            ),
            ModelPolicy::Eager
            | ModelPolicy::Eager10_5
            | ModelPolicy::EagerOldSurplus
            | ModelPolicy::EagerOldSurplusUnaccessed => (
                PolicyKind::Eager,
                ShortLru::Upstream,
                LAZY_CLOCK_TICK_MS,
                AgeChecked,
            ),
            ModelPolicy::Lazy => (
                PolicyKind::Lazy,
                ShortLru::Upstream,
                LAZY_CLOCK_TICK_MS,
                AgeChecked,
            ),
            ModelPolicy::LazyPort => (
                PolicyKind::Lazy,
                ShortLru::FlagEveryAccess,
                LAZY_CLOCK_TICK_MS,
                AgeChecked,
            ),
            ModelPolicy::LazyPortFineClock => (
                PolicyKind::Lazy,
                ShortLru::FlagEveryAccess,
                FINE_CLOCK_TICK_MS,
                AgeChecked,
            ),
            ModelPolicy::LazyPortFineYoung | ModelPolicy::LazyPortYoungBoundary => (
                PolicyKind::Lazy,
                ShortLru::FlagEveryAccess,
                FINE_CLOCK_TICK_MS,
                OldOnly,
            ),
            ModelPolicy::LazyPortLookup | ModelPolicy::LazyPortLookupBoundary => (
                PolicyKind::Lazy,
                ShortLru::FlagEveryAccess,
                FINE_CLOCK_TICK_MS,
                Lookup,
            ),
            ModelPolicy::LazyPortLookedUp => (
                PolicyKind::Lazy,
                ShortLru::FlagEveryAccess,
                FINE_CLOCK_TICK_MS,
                LookedUp,
            ),
            ModelPolicy::LazyPortLookupMark => (
                PolicyKind::Lazy,
                ShortLru::FlagEveryAccess,
                FINE_CLOCK_TICK_MS,
                LookupMark,
            ),
        };
        let (boundary, move_stamp) = match self {
            ModelPolicy::LazyPortLookupBoundary
            | ModelPolicy::LazyPortYoungBoundary
            | ModelPolicy::LazyPortLookedUp
            | ModelPolicy::LazyPortLookupMark => (Boundary::MoveFlagged, MoveStamp::Keep),
            _ => (Boundary::Upstream, MoveStamp::Restamp),
        };
        let old_surplus = match self {
            ModelPolicy::ClassicOldSurplus | ModelPolicy::EagerOldSurplus => OldSurplus::Hold,
            ModelPolicy::ClassicOldSurplusUnaccessed | ModelPolicy::EagerOldSurplusUnaccessed => {
                OldSurplus::HoldUnaccessed
            }
            _ => OldSurplus::Upstream,
        };
        let free_blocks = match self {
            ModelPolicy::Eager10_5 => FreeBlocks::READER_FLUSH,
            _ => FreeBlocks::Cleaner,
        };
        ModelRules {
            policy,
            short_lru,
            clock_tick_ms,
            young_touch,
            boundary,
            move_stamp,
            old_surplus,
            free_blocks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_ones_result_files_carry() {
        for (p, name) in [
            (ModelPolicy::Classic, "classic"),
            (ModelPolicy::Eager, "eager"),
            (ModelPolicy::Eager10_5, "eager-10.5"),
            (ModelPolicy::Lazy, "lazy"),
            (ModelPolicy::LazyPort, "lazy-10.11-port"),
            (ModelPolicy::LazyPortFineClock, "lazy-10.11-port-fine-clock"),
            (ModelPolicy::LazyPortFineYoung, "lazy-10.11-port-fine-young"),
            (ModelPolicy::LazyPortLookup, "lazy-10.11-port-lookup"),
            (
                ModelPolicy::LazyPortLookupBoundary,
                "lazy-10.11-port-lookup-boundary",
            ),
            (
                ModelPolicy::LazyPortYoungBoundary,
                "lazy-10.11-port-young-boundary",
            ),
            (ModelPolicy::LazyPortLookedUp, "lazy-10.11-port-looked-up"),
            (
                ModelPolicy::LazyPortLookupMark,
                "lazy-10.11-port-lookup-mark",
            ),
            (ModelPolicy::ClassicOldSurplus, "classic-old-surplus"),
            (ModelPolicy::EagerOldSurplus, "eager-old-surplus"),
            (
                ModelPolicy::ClassicOldSurplusUnaccessed,
                "classic-old-surplus-unaccessed",
            ),
            (
                ModelPolicy::EagerOldSurplusUnaccessed,
                "eager-old-surplus-unaccessed",
            ),
        ] {
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{name}\""));
            assert_eq!(p.name(), name);
            assert_eq!(name.parse::<ModelPolicy>(), Ok(p));
            let back: ModelPolicy = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, p);
        }
        assert!(serde_json::from_str::<ModelPolicy>("\"lru\"").is_err());
        assert!("lru".parse::<ModelPolicy>().unwrap_err().contains("`lru`"));
        let port = ModelPolicy::LazyPort.model();
        assert_eq!(
            (port.policy, port.short_lru, port.clock_tick_ms),
            (PolicyKind::Lazy, ShortLru::FlagEveryAccess, 1000)
        );
        assert_eq!(ModelPolicy::LazyPortFineClock.model().clock_tick_ms, 100);
        assert_eq!(ModelPolicy::Eager.model().free_blocks, FreeBlocks::Cleaner);
        let v10_5 = ModelPolicy::Eager10_5.model();
        assert_eq!(
            (v10_5.policy, v10_5.free_blocks),
            (PolicyKind::Eager, FreeBlocks::READER_FLUSH)
        );
        // the rules reach the pool's settings, which keep their own values
        let cfg = v10_5.config(Config {
            pool_pages: 7,
            ..Config::default()
        });
        assert_eq!(
            (cfg.pool_pages, cfg.free_blocks),
            (7, FreeBlocks::READER_FLUSH)
        );
        assert_eq!(
            ModelPolicy::LazyPortFineClock.model().young_touch,
            YoungTouch::AgeChecked
        );
        let remedy = ModelPolicy::LazyPortFineYoung.model();
        assert_eq!(
            (remedy.clock_tick_ms, remedy.young_touch),
            (100, YoungTouch::OldOnly)
        );
        let lookup = ModelPolicy::LazyPortLookup.model();
        assert_eq!(
            (lookup.clock_tick_ms, lookup.young_touch, lookup.boundary),
            (100, YoungTouch::Lookup, Boundary::Upstream)
        );
        let boundary = ModelPolicy::LazyPortLookupBoundary.model();
        assert_eq!(
            (boundary.young_touch, boundary.boundary, boundary.move_stamp),
            (YoungTouch::Lookup, Boundary::MoveFlagged, MoveStamp::Keep)
        );
        assert_eq!(lookup.move_stamp, MoveStamp::Restamp);
        for (p, young_touch) in [
            (ModelPolicy::LazyPortYoungBoundary, YoungTouch::OldOnly),
            (ModelPolicy::LazyPortLookedUp, YoungTouch::LookedUp),
            (ModelPolicy::LazyPortLookupMark, YoungTouch::LookupMark),
        ] {
            let r = p.model();
            assert_eq!(
                (r.young_touch, r.boundary, r.move_stamp, r.clock_tick_ms),
                (young_touch, Boundary::MoveFlagged, MoveStamp::Keep, 100),
                "{p:?}"
            );
        }
    }
}
