//! `cargo xtask bisect MATRIX --good REF --bad REF`: answers with its
//! exit status.

use super::{ExitCode, Needs};
use crate::bisect::{self, BisectOptions};
use crate::dims::Metric;
use std::path::PathBuf;

/// Find the first commit (or, with --trees, the first tree) at which a
/// metric turns bad, building and running each candidate as a matrix cell.
#[derive(clap::Args)]
#[command(after_help = "\
MATRIX names one [[tree]] that is a git repository (git:<url>#<ref> or
path:<dir>; its own ref is ignored), with one variant (base unless
named; settings variants are allowed), and one workload. The endpoints
are measured first and must differ; then each midpoint is built (the
tree's build key, ccache) and run as a matrix cell runs, into
steps/<commit>/ of the results directory. A step that has its runs is
not run again: an interrupted bisection resumes with the same decisions.

A counter metric (pages_made_young_per_query, buf_pool_mutex_per_query,
...) decides by the side of a cut between the endpoints' ranges; a timing
(qps, tps, p95_ms) by exact Mann-Whitney tests against both endpoints'
interleaved runs. A commit that does not build or whose server does not
start is skipped, as `git bisect skip` does.

Exit status:
  0  found: the last line names the first bad commit
  1  the endpoints do not differ: nothing to bisect
  2  undecided: skipped commits or --max-steps leave a range
  3  error (bad arguments, a matrix the bisection cannot run)")]
pub struct BisectCommand {
    /// The matrix file: one tree, one variant, one workload.
    matrix: PathBuf,
    /// A commit, branch or tag where the metric is good.
    #[arg(long, value_name = "REF")]
    good: Option<String>,
    /// A later commit, branch or tag where it is bad.
    #[arg(long, value_name = "REF")]
    bad: Option<String>,
    /// Bisect these trees in this order (the first good, the last bad)
    /// instead of commits: releases, say.
    #[arg(long, value_name = "SPEC,SPEC,...", value_delimiter = ',')]
    trees: Option<Vec<crate::tree::TreeSpec>>,
    /// The metric that decides (default pages_made_young_per_query).
    #[arg(long, value_name = "NAME", value_parser = parse_metric)]
    metric: Option<Metric>,
    /// Midpoints to measure at most.
    #[arg(long, value_name = "N", default_value_t = 20)]
    max_steps: u32,
    /// Runs a candidate may get when its first runs leave it unknown.
    #[arg(long, value_name = "N", default_value_t = 10)]
    max_runs: u32,
    /// Results directory (default: results/bisect-<matrix name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Keep the builds the bisection makes (about 2.5 GiB each); by
    /// default each is removed once its step is decided.
    #[arg(long)]
    keep_builds: bool,
}

fn parse_metric(name: &str) -> Result<Metric, String> {
    Metric::parse(name)
        .ok_or_else(|| format!("unknown metric `{name}`; known: {}", Metric::known()))
}

impl BisectCommand {
    pub const NEEDS: Needs = Needs::Cache;

    /// The exit status is the answer; an error is 3 (after SIGINT or
    /// SIGTERM, 130 or 143).
    pub fn run(self) -> ExitCode {
        let opts = BisectOptions {
            matrix: self.matrix,
            good: self.good,
            bad: self.bad,
            trees: self.trees,
            metric: self.metric,
            max_steps: self.max_steps,
            max_runs: self.max_runs,
            out: self.out,
            keep_builds: self.keep_builds,
        };
        let result = Self::NEEDS.acquire().and_then(|_lock| bisect::run(&opts));
        result.unwrap_or_else(|e| {
            eprintln!("error: {e:#}");
            crate::children::interruption_in(&e).map_or(bisect::ERROR, |i| i.exit_code())
        })
    }
}
