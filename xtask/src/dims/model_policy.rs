//! Which of the LRU model's policies stands for a variant's build, as the
//! runner records it in a scan-loop outcome and the report replays it.

use lru_model::{PolicyKind, ShortLru};
use serde::{Deserialize, Serialize};

/// A model policy, with the rule it applies to an LRU too short for an
/// old sublist. Stored by its kebab-case name (`lazy-10.11-port`), the
/// text result files have always carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ModelPolicy {
    /// 10.4 and before: promotion by the old sublist's position only.
    #[serde(rename = "classic")]
    Classic,
    /// 10.5 on, before the fix: promotion under buf_pool.mutex on access.
    #[serde(rename = "eager")]
    Eager,
    /// upstream's fix: a lock-free flag on access, moves in sweeps.
    #[serde(rename = "lazy")]
    Lazy,
    /// our 10.11 port of the fix: as `Lazy`, and every access of a short
    /// LRU flags the block (patches/10.11/fixed.md).
    #[serde(rename = "lazy-10.11-port")]
    LazyPort,
}

impl ModelPolicy {
    /// The model's policy and short-LRU rule.
    pub fn model(self) -> (PolicyKind, ShortLru) {
        match self {
            ModelPolicy::Classic => (PolicyKind::Classic, ShortLru::Upstream),
            ModelPolicy::Eager => (PolicyKind::Eager, ShortLru::Upstream),
            ModelPolicy::Lazy => (PolicyKind::Lazy, ShortLru::Upstream),
            ModelPolicy::LazyPort => (PolicyKind::Lazy, ShortLru::FlagEveryAccess),
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
            (ModelPolicy::Lazy, "lazy"),
            (ModelPolicy::LazyPort, "lazy-10.11-port"),
        ] {
            assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{name}\""));
            let back: ModelPolicy = serde_json::from_str(&format!("\"{name}\"")).unwrap();
            assert_eq!(back, p);
        }
        assert!(serde_json::from_str::<ModelPolicy>("\"lru\"").is_err());
        assert_eq!(
            ModelPolicy::LazyPort.model(),
            (PolicyKind::Lazy, ShortLru::FlagEveryAccess)
        );
    }
}
