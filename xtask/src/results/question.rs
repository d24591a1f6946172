//! Questions a matrix asks of its results, as data: each gets one verdict
//! (pass, fail or undecided) in every report.
//!
//! ```toml
//! [[question]]
//! name = "gate removes promotion"
//! kind = "below"                          # every run of `variant` below `value`
//! metric = "pages_made_young_per_query"
//! variant = "gate"
//! value = 0.001
//! baseline_above = 1                      # ...while every run of `against` is above 1
//!
//! [[question]]
//! name = "the workaround keeps its throughput"
//! kind = "no-slower"                      # change against `against` not below threshold_pct
//! variant = "workaround"
//! against = "base"
//! metric = "qps"
//! threshold_pct = -5
//! ```
//!
//! ```toml
//! [[question]]
//! name = "fixed keeps the hot set as base does"
//! kind = "not-below"                      # 95% interval of `variant` - `against` above -margin
//! metric = "hot_kept_pct"
//! variant = "fixed"
//! against = "base"
//! margin = 5
//! ```
//!
//! `base` names each tree's baseline, which is called `fixed` on a tree
//! that carries the MDEV-33966 fix.

use crate::dims::Metric;
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// every counted run of `variant` has `metric` below `value`
    Below,
    /// every counted run of `variant` has `metric` above `value`
    Above,
    /// `metric` of `variant` changes against `against` by no less than
    /// `threshold_pct` (negative: the drop allowed), significantly; for a
    /// cost such as `instructions_per_query` the same rule bounds the rise
    /// (`no-costlier` is its other name)
    #[serde(alias = "no-costlier")]
    NoSlower,
    /// `variant` is not below `against` by more than `margin` (in the
    /// metric's unit: points for a share such as the hot set kept), shown
    /// by a 95% interval of the difference (`decide::verdict::not_below`)
    NotBelow,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    pub name: String,
    pub kind: Kind,
    /// by its name in matrix files; an unknown name is refused where the
    /// file is read (with its line, and the known names)
    #[serde(default = "qps")]
    pub metric: Metric,
    pub variant: String,
    /// the variant compared with (no-slower) or whose runs `baseline_above`
    /// and `baseline_below` bound; `base` when absent
    pub against: Option<String>,
    /// the bound of below and above
    pub value: Option<f64>,
    pub baseline_above: Option<f64>,
    pub baseline_below: Option<f64>,
    /// no-slower: the change allowed, in percent (e.g. -5); the matrix's
    /// threshold (negated) when absent
    pub threshold_pct: Option<f64>,
    /// not-below: how far below `against` the median may be (0 when absent)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    /// the workloads asked about; every workload when empty
    #[serde(default)]
    pub workloads: Vec<String>,
    /// the trees asked about; every tree with the variant when empty
    #[serde(default)]
    pub trees: Vec<String>,
    /// compare with `against` of this tree instead of the same tree (a
    /// release candidate against the release before it)
    pub against_tree: Option<String>,
}

fn qps() -> Metric {
    Metric::Qps
}

impl Question {
    pub fn metric(&self) -> Metric {
        self.metric
    }

    pub fn against(&self) -> &str {
        self.against.as_deref().unwrap_or("base")
    }

    /// Refuses a question that cannot be answered, naming it.
    pub fn check(&self, variants: &[String], workloads: &[String], trees: &[String]) -> Result<()> {
        let me = format!("[[question]] `{}`", self.name);
        for v in [self.variant.as_str(), self.against()] {
            if !variants.iter().any(|x| x == v) {
                bail!(
                    "{me}: variant `{v}` is not in the matrix (variants: {})",
                    variants.join(", ")
                );
            }
        }
        for t in self.trees.iter().chain(&self.against_tree) {
            if !trees.contains(t) {
                bail!(
                    "{me}: tree `{t}` is not in the matrix (trees: {})",
                    trees.join(", ")
                );
            }
        }
        for w in &self.workloads {
            if !workloads.contains(w) {
                bail!(
                    "{me}: workload `{w}` is not in the matrix (workloads: {})",
                    workloads.join(", ")
                );
            }
        }
        match self.kind {
            Kind::Below | Kind::Above => {
                if self.value.is_none() {
                    bail!("{me}: kind `{}` needs `value`", self.kind_word());
                }
                if self.threshold_pct.is_some() || self.margin.is_some() {
                    bail!("{me}: threshold_pct and margin belong to kinds `no-slower` and `not-below`");
                }
            }
            Kind::NotBelow => {
                if self.value.is_some()
                    || self.baseline_above.is_some()
                    || self.baseline_below.is_some()
                    || self.threshold_pct.is_some()
                {
                    bail!("{me}: kind `not-below` takes margin, not value, baseline_* or threshold_pct");
                }
                if self.margin.is_some_and(|m| m.is_nan() || m < 0.0) {
                    bail!("{me}: margin must be 0 or more");
                }
                if self.variant == self.against() && self.against_tree.is_none() {
                    bail!("{me}: a variant is compared with another one (against = \"...\")");
                }
            }
            Kind::NoSlower => {
                if self.value.is_some()
                    || self.baseline_above.is_some()
                    || self.baseline_below.is_some()
                    || self.margin.is_some()
                {
                    bail!("{me}: kind `no-slower` takes threshold_pct, not value, baseline_* or margin");
                }
                if self.variant == self.against() && self.against_tree.is_none() {
                    bail!("{me}: a variant is compared with another one (against = \"...\")");
                }
            }
        }
        Ok(())
    }

    pub fn kind_word(&self) -> &'static str {
        match self.kind {
            Kind::Below => "below",
            Kind::Above => "above",
            Kind::NoSlower => "no-slower",
            Kind::NotBelow => "not-below",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct QuestionTables {
        question: Vec<Question>,
    }

    #[test]
    fn questions_parse_and_bad_ones_are_named() {
        let f: QuestionTables = toml::from_str(
            "[[question]]\nname = \"gate removes promotion\"\nkind = \"below\"\nmetric = \"pages_made_young_per_query\"\n\
             variant = \"gate\"\nvalue = 0.001\nbaseline_above = 1\n\
             [[question]]\nname = \"w\"\nkind = \"no-slower\"\nvariant = \"workaround\"\nthreshold_pct = -5\n",
        )
        .unwrap();
        let variants = ["base", "gate", "workaround"].map(String::from).to_vec();
        let workloads = vec!["points-covered-pk".to_string()];
        let trees = vec!["10.11.18".to_string()];
        for q in &f.question {
            q.check(&variants, &workloads, &trees).unwrap();
        }
        assert_eq!(f.question[1].metric(), Metric::Qps);
        assert_eq!(f.question[1].against(), "base");
        // an unknown metric is refused where the file is read, at its line
        let err = toml::from_str::<QuestionTables>(
            "[[question]]\nname = \"q\"\nkind = \"below\"\nmetric = \"young\"\nvariant = \"gate\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("line 4")
                && err.contains("young")
                && err.contains("pages_made_young_per_query"),
            "{err}"
        );
        let mut q = f.question[1].clone();
        q.variant = "fixed".into();
        let err = q
            .check(&variants, &workloads, &trees)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("variant `fixed` is not in the matrix"),
            "{err}"
        );
        let err = toml::from_str::<QuestionTables>(
            "[[question]]\nname = \"x\"\nkind = \"faster\"\nvariant = \"gate\"\n",
        )
        .err()
        .unwrap()
        .to_string();
        assert!(err.contains("faster"), "{err}");
    }
}
