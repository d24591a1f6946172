//! `cargo xtask validate BASELINE CANDIDATE`: answers with its exit status.

use super::{ExitCode, Needs};
use crate::dims::Metric;

/// Compare the QPS (or another metric) of a candidate with a baseline on
/// every common (tree, workload, threads) and print the table.
#[derive(clap::Args)]
#[command(after_help = "\
Each side is a results directory (DIR), narrowed to one variant or tree
when it holds several: DIR:variant, DIR:tree or DIR:tree/variant. A matrix
file stands for its results directory (matrix/x.toml:gate means
results/<its name>:gate). With the same trees on both sides cells are
compared tree by tree; with one tree a side, across the two trees.

A regression is a drop of the median QPS (a rise, for a metric where lower
is better, such as instructions_per_query) beyond the threshold, beyond
the baseline's noise floor where it ran a control, and significant (exact
two-sided p < 0.05: signed-rank in pairs, else Mann-Whitney). No
regression needs every cell's 95% interval of the change on the good side
of the allowed change. Busy-host runs are left out, except for a metric
the host's load cannot move (an instruction count).

Exit status:
  0  no regression
  1  a regression beyond the threshold
  2  undecided: not enough repetitions to tell (e.g. 3 runs against 3
     can never give p < 0.05)
  3  error (bad arguments, no results, nothing in common)")]
pub struct ValidateCommand {
    baseline: String,
    candidate: String,
    /// Percent a change must exceed to count (default: the threshold of
    /// the baseline matrix's no-slower or no-costlier question on the
    /// metric, else its matrix threshold, 5).
    #[arg(long, value_name = "PCT")]
    threshold: Option<f64>,
    /// The metric compared (default qps): any metric name of a run result,
    /// such as instructions_per_query, where lower is better and a
    /// regression is a rise.
    #[arg(long, default_value = "qps", value_parser = parse_metric)]
    metric: Metric,
}

fn parse_metric(name: &str) -> Result<Metric, String> {
    Metric::parse(name)
        .ok_or_else(|| format!("unknown metric `{name}`: one of {}", Metric::known()))
}

impl ValidateCommand {
    pub const NEEDS: Needs = Needs::Nothing;

    /// The exit status is the answer; an error is 3, never 1 (which says
    /// "a regression").
    pub fn run(self) -> ExitCode {
        crate::validate::run(&self.baseline, &self.candidate, self.threshold, self.metric)
            .unwrap_or_else(|e| {
                eprintln!("error: {e:#}");
                crate::validate::ERROR
            })
    }
}
