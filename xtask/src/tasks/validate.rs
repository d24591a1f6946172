//! `cargo xtask validate BASELINE CANDIDATE`: answers with its exit status.

use super::{ExitCode, Needs};

/// Compare the QPS of a candidate with a baseline on every common
/// (tree, workload, threads) and print the table.
#[derive(clap::Args)]
#[command(after_help = "\
Each side is a results directory (DIR), narrowed to one variant or tree
when it holds several: DIR:variant, DIR:tree or DIR:tree/variant. A matrix
file stands for its results directory (matrix/x.toml:gate means
results/<its name>:gate). With the same trees on both sides cells are
compared tree by tree; with one tree a side, across the two trees.

A regression is a drop of the median QPS beyond the threshold, beyond the
baseline's noise floor where it ran a control, and significant (exact
two-sided Mann-Whitney p < 0.05). Busy-host runs are left out.

Exit status:
  0  no regression
  1  a regression beyond the threshold
  2  undecided: not enough repetitions to tell (e.g. 3 runs against 3
     can never give p < 0.05)
  3  error (bad arguments, no results, nothing in common)")]
pub struct Validate {
    baseline: String,
    candidate: String,
    /// Percent a change must exceed to count (default: the baseline's
    /// matrix threshold, 5).
    #[arg(long, value_name = "PCT")]
    threshold: Option<f64>,
}

impl Validate {
    pub const NEEDS: Needs = Needs::Nothing;

    /// The exit status is the answer; an error is 3, never 1 (which says
    /// "a regression").
    pub fn run(self) -> ExitCode {
        crate::validate::run(&self.baseline, &self.candidate, self.threshold).unwrap_or_else(|e| {
            eprintln!("error: {e:#}");
            crate::validate::ERROR
        })
    }
}
