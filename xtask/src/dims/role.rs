//! What a variant label stands for in a comparison: the one owner of the
//! rule "a tree's baseline is `base`, or `fixed` where no `base` ran" (a
//! tree that carries the MDEV-33966 fix labels its base `fixed`), and of
//! what a question's `variant = "base"` names.

use super::{CONTROL_SUFFIX, REBUILT_CONTROL};

/// The tree as it is.
pub const BASE: &str = "base";
/// The fix: our port of MDEV-33966, or base on a tree that carries it.
pub const FIXED: &str = "fixed";

/// What a variant is to the comparisons of its tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// what every other variant of the tree is compared against
    Baseline,
    /// the baseline's build run a second time (`base-again`): the noise
    /// between two runs of one binary
    SameBuildControl,
    /// the baseline rebuilt with its code moved (`base-rebuilt`): the
    /// noise between two builds of the same code
    RebuildControl,
    /// anything else: a patch, settings, another tree's build
    Treatment,
}

/// The baseline among the variants that ran on one tree (for one workload
/// and thread count): `base`, else `fixed`; None when neither ran.
pub fn baseline_among<'a>(ran: impl IntoIterator<Item = &'a str>) -> Option<&'static str> {
    let ran: Vec<&str> = ran.into_iter().collect();
    [BASE, FIXED].into_iter().find(|b| ran.contains(b))
}

/// The role of `variant` on a tree whose baseline is `baseline`.
pub fn role_of(variant: &str, baseline: Option<&str>) -> Role {
    match baseline {
        Some(b) if variant == b => Role::Baseline,
        Some(b) if variant.strip_suffix(CONTROL_SUFFIX) == Some(b) => Role::SameBuildControl,
        Some(_) if variant == REBUILT_CONTROL => Role::RebuildControl,
        _ => Role::Treatment,
    }
}

/// Whether a question that asks about `asked` concerns `variant` of a tree
/// whose baseline is `baseline`: its own name, or `base` for the baseline.
pub fn asks_about(asked: &str, variant: &str, baseline: Option<&str>) -> bool {
    variant == asked || (asked == BASE && baseline == Some(variant))
}

/// The variants in their order with the baseline first.
pub fn baseline_first(variants: &mut [String]) {
    if let Some(b) = baseline_among(variants.iter().map(String::as_str)) {
        variants.sort_by_key(|v| v != b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_is_the_baseline_and_fixed_only_where_no_base_ran() {
        assert_eq!(baseline_among(["gate", "base", "fixed"]), Some("base"));
        assert_eq!(baseline_among(["fixed", "gate"]), Some("fixed"));
        assert_eq!(baseline_among(["gate", "clock"]), None);
        assert_eq!(role_of("fixed", Some("base")), Role::Treatment);
        assert_eq!(role_of("fixed", Some("fixed")), Role::Baseline);
        assert_eq!(role_of("base-again", Some("base")), Role::SameBuildControl);
        assert_eq!(
            role_of("fixed-again", Some("fixed")),
            Role::SameBuildControl
        );
        assert_eq!(role_of("base-rebuilt", Some("base")), Role::RebuildControl);
        assert_eq!(role_of("base-rebuilt", None), Role::Treatment);
    }

    #[test]
    fn a_question_on_base_asks_about_the_baseline_only() {
        // where base ran, fixed is a treatment: a question on base does not
        // concern it
        assert!(asks_about("base", "base", Some("base")));
        assert!(!asks_about("base", "fixed", Some("base")));
        // on a tree with the fix, base runs as fixed, the baseline
        assert!(asks_about("base", "fixed", Some("fixed")));
        assert!(asks_about("fixed", "fixed", Some("base")));
        assert!(!asks_about("gate", "fixed", Some("fixed")));
    }

    #[test]
    fn the_baseline_goes_first_and_the_rest_keep_their_order() {
        let mut v: Vec<String> = ["gate", "fixed", "base", "clock"]
            .map(String::from)
            .to_vec();
        baseline_first(&mut v);
        assert_eq!(v, ["base", "gate", "fixed", "clock"]);
        let mut v: Vec<String> = ["gate", "fixed"].map(String::from).to_vec();
        baseline_first(&mut v);
        assert_eq!(v, ["fixed", "gate"]);
    }
}
