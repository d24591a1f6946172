//! Figures published elsewhere for a cell of a matrix (an article's table,
//! a ticket's measurement), carried from the matrix file into its results
//! directory so that a report shows them beside what the runs measured.
//! They are data, as the runs are: the report renders them, no sentence
//! holds them.

use crate::dims::Metric;
use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

/// The metrics a report shows a published figure for: the scan
/// resistance table's.
pub const SHOWN: [Metric; 2] = [Metric::HotKeptPct, Metric::ScanYoungPerS];

/// One published figure: a value, or the range a source gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// who measured it, on what server, how many runs: printed with it
    pub source: String,
    /// the workload of the matrix it stands beside
    pub workload: String,
    /// the variant it stands beside; each tree's baseline when absent
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub metric: Metric,
    /// the figure, or the low end of the range the source gives
    pub value: f64,
    /// the high end of that range
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub up_to: Option<f64>,
}

impl Published {
    /// Refuses a figure the report could not place: an unknown workload or
    /// variant, a metric it does not show, a range that runs backwards.
    pub fn check(&self, variants: &[String], workloads: &[String]) -> Result<()> {
        let what = format!("[[published]] of `{}` ({})", self.workload, self.source);
        if !workloads.contains(&self.workload) {
            bail!(
                "{what}: `{}` is not a workload of this matrix (workloads: {})",
                self.workload,
                workloads.join(", ")
            );
        }
        if let Some(v) = self.variant.as_ref().filter(|v| !variants.contains(v)) {
            bail!(
                "{what}: `{v}` is not a variant of this matrix (variants: {})",
                variants.join(", ")
            );
        }
        if !SHOWN.contains(&self.metric) {
            bail!(
                "{what}: a report shows published figures of {} only, not `{}`",
                SHOWN.map(Metric::name).join(" and "),
                self.metric.name()
            );
        }
        if !self.value.is_finite() || self.up_to.is_some_and(|h| !h.is_finite() || h < self.value) {
            bail!(
                "{what}: value {} and up_to {:?} are not a figure or a range from low to high",
                self.value,
                self.up_to
            );
        }
        Ok(())
    }

    /// Whether it stands beside `variant`'s runs of `workload`
    /// (`baseline`: the tree's baseline, for a figure without a variant).
    pub fn is_for(&self, workload: &str, variant: &str, baseline: &str) -> bool {
        self.workload == workload && self.variant.as_deref().unwrap_or(baseline) == variant
    }

    /// The range, as `[low, high]` (the same number twice for a value).
    pub fn range(&self) -> [f64; 2] {
        [self.value, self.up_to.unwrap_or(self.value)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(workload: &str, value: f64, up_to: Option<f64>) -> Published {
        Published {
            source: "seed 001".into(),
            workload: workload.into(),
            variant: None,
            metric: Metric::HotKeptPct,
            value,
            up_to,
        }
    }

    #[test]
    fn a_figure_names_what_the_report_cannot_place() {
        let (variants, workloads) = (vec!["base".to_string()], vec!["hot".to_string()]);
        assert!(kept("hot", 41.0, None).check(&variants, &workloads).is_ok());
        assert!(kept("hot", 91.0, Some(93.0))
            .check(&variants, &workloads)
            .is_ok());
        let e = kept("cold", 41.0, None)
            .check(&variants, &workloads)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`cold` is not a workload") && e.contains("seed 001"),
            "{e}"
        );
        let e = kept("hot", 93.0, Some(91.0))
            .check(&variants, &workloads)
            .unwrap_err()
            .to_string();
        assert!(e.contains("from low to high"), "{e}");
        let wrong_variant = Published {
            variant: Some("fixed".into()),
            ..kept("hot", 41.0, None)
        };
        let e = wrong_variant
            .check(&variants, &workloads)
            .unwrap_err()
            .to_string();
        assert!(e.contains("`fixed` is not a variant"), "{e}");
        let qps = Published {
            metric: Metric::Qps,
            ..kept("hot", 41.0, None)
        };
        let e = qps.check(&variants, &workloads).unwrap_err().to_string();
        assert!(e.contains("hot_kept_pct and scan_young_per_s only"), "{e}");
    }

    #[test]
    fn a_figure_without_a_variant_stands_beside_the_baseline() {
        let p = kept("hot", 91.0, Some(93.0));
        assert!(p.is_for("hot", "base", "base"));
        assert!(!p.is_for("hot", "old-surplus", "base"));
        assert!(!p.is_for("cold", "base", "base"));
        assert_eq!(p.range(), [91.0, 93.0]);
        assert_eq!(kept("hot", 41.0, None).range(), [41.0, 41.0]);
    }
}
