//! A bisection's record (`bisect.json`): what was bisected, every step
//! with the figures that decided it, and the outcome. Rewritten after each
//! step, so an interrupted bisection leaves what it had decided; the step
//! results themselves are run results in each step's own directory.

use crate::dims::Metric;
use serde::{Deserialize, Serialize};

pub const BISECT_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BisectRecord {
    pub schema_version: u32,
    /// the matrix file's name: what it runs (workload, variant, settings)
    pub matrix: String,
    pub workload: String,
    pub variant: String,
    pub metric: Metric,
    /// counter: the runs of a commit fall on one side of a cut between
    /// the endpoints; statistical: exact Mann-Whitney tests against both
    pub rule: Rule,
    pub threshold_pct: f64,
    /// what is bisected, in order: the good endpoint first, the bad last
    pub candidates: Vec<Candidate>,
    pub steps: Vec<BisectStep>,
    pub outcome: Option<BisectOutcome>,
    pub host: String,
    pub tool_revision: String,
    pub wall_seconds: f64,
}

/// How a step is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// a counter with no noise to speak of (pages made young per query):
    /// one run a side would do
    Counter,
    /// throughput or latency: interleaved repetitions against both
    /// endpoints' builds, Pinpoint's SAME / DIFFERENT / UNKNOWN
    Statistical,
}

/// A commit (or, bisecting releases, a tree) that may be measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// the tree spec that builds it
    pub spec: String,
    /// its full commit id, when it is a commit of one history
    pub commit: Option<String>,
    /// the first line of its message, when it is a commit
    pub subject: Option<String>,
}

impl Candidate {
    /// Its name in steps, step directories and reports: a commit's first
    /// 12 hex digits, or its place in `--trees` (`index`).
    pub fn label(&self, index: usize) -> String {
        match &self.commit {
            Some(id) => id[..12.min(id.len())].to_string(),
            None => format!("tree{index}"),
        }
    }
}

/// What a step decided of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CandidateDecision {
    Good,
    Bad,
    /// did not build, its server did not start, or its runs left it
    /// between the endpoints after every run allowed: `git bisect skip`
    Skipped,
}

/// One measured candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BisectStep {
    /// its index in `candidates`
    pub candidate: usize,
    /// an endpoint measured first, or a midpoint
    pub endpoint: bool,
    /// the metric of each successful run, in run order
    pub values: Vec<f64>,
    pub median: Option<f64>,
    pub decision: CandidateDecision,
    /// the numbers and the rule that decided, in words
    pub why: String,
    /// whether its build came from the cache (None: it did not build)
    pub build_reused: Option<bool>,
    /// the step's results directory, relative to the bisection's
    pub results: String,
    pub wall_seconds: f64,
}

/// How a bisection ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum BisectOutcome {
    /// the first bad candidate, with the last good one before it
    Found { first_bad: usize, last_good: usize },
    /// the endpoints do not differ beyond the threshold and their spread
    NoDifference { why: String },
    /// skipped candidates or the step limit leave a range: the first bad
    /// one is after `last_good` and no later than `first_bad`
    Undecided {
        last_good: usize,
        first_bad: usize,
        why: String,
    },
}
