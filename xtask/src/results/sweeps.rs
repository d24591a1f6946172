//! What `Innodb_buffer_pool_pages_made_young` counts in a run, and whether
//! the sweeps that make it count anything ran at all.
//!
//! Before the fix (10.5 on) and in gate and clock, a block is made young
//! by the access itself, under buf_pool.mutex: the counter counts
//! promotions. In the fix an access only flags the block; the LRU
//! eviction, LRU flush and flush-list sweeps move flagged blocks under the
//! mutex they already hold, and the counter counts those moves. An
//! in-memory read-only interval reads no page and writes none, so no
//! sweep runs and the counter is 0 whatever the accesses did: that 0 is
//! not gate's 0, and a report says "no sweep ran" instead.

use crate::dims::{ModelPolicy, Series, LAYOUT_SHIFT_PATCH, LEAK_REMEDY_PATCHES};
use crate::record::{Measured, RunResult, Tree};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The LRU model's policy for a build: the tree as it is (or moved by the
/// layout shift of the build-noise control) follows its series' rule, our
/// fixed patch the lazy policy with its rule for a short LRU, a tree that
/// carries upstream's fix upstream's; other changes (gate, clock, a
/// cherry-pick) follow rules the model does not have.
pub fn model_policy(
    tree: &Tree,
    patch_file: Option<&Path>,
    cherry_pick: bool,
) -> Option<ModelPolicy> {
    if tree.has_upstream_fix {
        return Some(ModelPolicy::Lazy);
    }
    let patch_file = patch_file.filter(|f| f.file_name().is_none_or(|n| n != LAYOUT_SHIFT_PATCH));
    let own = if tree.series == Series::V10_5 {
        // 10.5's readers free blocks themselves
        ModelPolicy::Eager10_5
    } else if tree.series.has_eager_promotion() {
        ModelPolicy::Eager
    } else {
        ModelPolicy::Classic
    };
    match patch_file {
        None if cherry_pick => None,
        None => Some(own),
        // the leak remedy changes the old sublist's rule; the accesses
        // follow the tree's own
        Some(f) => {
            let name = f.file_name()?;
            if let Some(&(_, rule)) = LEAK_REMEDY_PATCHES.iter().find(|(file, _)| name == *file) {
                return own.with_old_surplus(rule);
            }
            PORT_POLICIES
                .iter()
                .find(|(file, _)| name == *file)
                .map(|&(_, policy)| policy)
        }
    }
}

/// Our lazy-promotion ports and remedies, by patch file name (the same
/// name in each series' folder), and the model policy of each.
const PORT_POLICIES: &[(&str, ModelPolicy)] = &[
    ("fixed.patch", ModelPolicy::LazyPort),
    ("fixed-fine-clock.patch", ModelPolicy::LazyPortFineClock),
    ("fixed-fine-young.patch", ModelPolicy::LazyPortFineYoung),
    ("fixed-lookup.patch", ModelPolicy::LazyPortLookup),
    (
        "fixed-lookup-boundary.patch",
        ModelPolicy::LazyPortLookupBoundary,
    ),
    (
        "fixed-young-boundary.patch",
        ModelPolicy::LazyPortYoungBoundary,
    ),
    ("fixed-looked-up.patch", ModelPolicy::LazyPortLookedUp),
    ("fixed-lookup-mark.patch", ModelPolicy::LazyPortLookupMark),
];

/// What pages made young counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum YoungCounts {
    /// accesses that moved a block to the head (or, in gate, would have)
    Promotions,
    /// old blocks a sweep moved because an access had flagged them
    SweepMoves,
}

/// Whether any sweep that moves flagged blocks ran in the measured
/// interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sweeps {
    /// no page read, no page written, nothing evicted by an LRU batch
    NoneRan,
    /// a page was read (an eviction may have made room) or written
    MayHaveRun,
    /// the server did not count its flushes (or the run predates the
    /// counters): nothing can be said
    NotCounted,
}

impl Sweeps {
    pub fn words(self) -> &'static str {
        match self {
            Sweeps::NoneRan => "no sweep ran",
            Sweeps::MayHaveRun => "sweeps ran",
            Sweeps::NotCounted => "sweeps not counted",
        }
    }
}

/// What a run's pages made young counts, from its tree and build; None
/// when the run has no build record.
pub fn young_counts(r: &RunResult) -> Option<YoungCounts> {
    let (tree, build) = (r.tree_info.as_ref()?, r.build.as_ref()?);
    let policy = model_policy(
        tree,
        build.patch.as_ref().map(|p| p.file.as_path()),
        build.cherry_pick.is_some(),
    );
    // every lazy policy (upstream's, our ports and remedies) moves flagged
    // blocks in sweeps; the others promote at the access
    let lazy = policy.is_some_and(|p| p.model().policy == lru_model::PolicyKind::Lazy);
    Some(if lazy {
        YoungCounts::SweepMoves
    } else {
        YoungCounts::Promotions
    })
}

/// Whether a sweep ran in one measured interval. A page read needs a free
/// block, which an eviction sweep may have made; an LRU batch that only
/// evicts counts in `_LRU_freed`; every write counts in `_pages_flushed`.
pub fn sweeps(m: &Measured) -> Sweeps {
    let counted = [m.pages_flushed, m.lru_flushed];
    if counted.iter().any(Option::is_none) {
        return Sweeps::NotCounted;
    }
    let work = m.reads + counted.iter().flatten().sum::<u64>() + m.lru_freed.unwrap_or(0);
    if work == 0 {
        Sweeps::NoneRan
    } else {
        Sweeps::MayHaveRun
    }
}

/// One verdict for several runs of a cell: none ran only if none ran in
/// any of them; not counted if any run could not tell.
pub fn sweeps_of<'a>(runs: impl IntoIterator<Item = &'a Measured>) -> Option<Sweeps> {
    runs.into_iter().map(sweeps).reduce(|a, b| match (a, b) {
        (Sweeps::NotCounted, _) | (_, Sweeps::NotCounted) => Sweeps::NotCounted,
        (Sweeps::MayHaveRun, _) | (_, Sweeps::MayHaveRun) => Sweeps::MayHaveRun,
        _ => Sweeps::NoneRan,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(series: &str) -> Tree {
        Tree {
            spec: format!("test:{series}"),
            id: "0".into(),
            src: "/nowhere".into(),
            version: String::new(),
            series: series.parse().unwrap(),
            has_upstream_fix: false,
            package: None,
        }
    }

    #[test]
    fn the_leak_remedy_keeps_each_trees_access_rule() {
        let patch = Path::new("patches/mysql-9.7/old-surplus.patch");
        assert_eq!(
            model_policy(&tree("mysql-9.7"), Some(patch), false),
            Some(ModelPolicy::ClassicOldSurplus)
        );
        let patch = Path::new("patches/10.11/old-surplus.patch");
        assert_eq!(
            model_policy(&tree("10.11"), Some(patch), false),
            Some(ModelPolicy::EagerOldSurplus)
        );
        assert_eq!(
            model_policy(&tree("mysql-9.7"), None, false),
            Some(ModelPolicy::Classic)
        );
        let patch = Path::new("patches/11.8/old-surplus-unaccessed.patch");
        assert_eq!(
            model_policy(&tree("11.8"), Some(patch), false),
            Some(ModelPolicy::EagerOldSurplusUnaccessed)
        );
        let patch = Path::new("patches/mysql-9.7/old-surplus-unaccessed.patch");
        assert_eq!(
            model_policy(&tree("mysql-9.7"), Some(patch), false),
            Some(ModelPolicy::ClassicOldSurplusUnaccessed)
        );
    }

    #[test]
    fn each_series_as_it_is_has_its_own_free_block_rule() {
        for (series, policy) in [
            ("10.4", ModelPolicy::Classic),
            ("10.5", ModelPolicy::Eager10_5),
            ("10.11", ModelPolicy::Eager),
            ("11.8", ModelPolicy::Eager),
        ] {
            assert_eq!(
                model_policy(&tree(series), None, false),
                Some(policy),
                "{series}"
            );
        }
        // the leak remedy has no 10.5 form
        let patch = Path::new("patches/10.5/old-surplus.patch");
        assert_eq!(model_policy(&tree("10.5"), Some(patch), false), None);
    }

    fn measured(
        reads: u64,
        flushed: Option<u64>,
        lru_flushed: Option<u64>,
        lru_freed: Option<u64>,
    ) -> Measured {
        Measured {
            reads,
            pages_flushed: flushed,
            lru_flushed,
            lru_freed,
            ..Measured::default()
        }
    }

    #[test]
    fn no_sweep_ran_only_when_nothing_was_read_written_or_evicted() {
        assert_eq!(
            sweeps(&measured(0, Some(0), Some(0), Some(0))),
            Sweeps::NoneRan
        );
        // 10.5 has no _LRU_freed: the other counters still tell
        assert_eq!(
            sweeps(&measured(0, Some(0), Some(0), None)),
            Sweeps::NoneRan
        );
        assert_eq!(
            sweeps(&measured(1, Some(0), Some(0), Some(0))),
            Sweeps::MayHaveRun
        );
        assert_eq!(
            sweeps(&measured(0, Some(7), Some(0), Some(0))),
            Sweeps::MayHaveRun
        );
        assert_eq!(
            sweeps(&measured(0, Some(0), Some(0), Some(3))),
            Sweeps::MayHaveRun
        );
        // runs made before the counters were read cannot tell
        assert_eq!(sweeps(&measured(0, None, None, None)), Sweeps::NotCounted);
    }

    #[test]
    fn a_cell_says_none_ran_only_if_every_run_says_so() {
        let none = measured(0, Some(0), Some(0), Some(0));
        let some = measured(5, Some(0), Some(0), Some(0));
        let old = measured(0, None, None, None);
        assert_eq!(sweeps_of([&none, &none]), Some(Sweeps::NoneRan));
        assert_eq!(sweeps_of([&none, &some]), Some(Sweeps::MayHaveRun));
        assert_eq!(sweeps_of([&some, &old]), Some(Sweeps::NotCounted));
        assert_eq!(sweeps_of([]), None);
    }
}
