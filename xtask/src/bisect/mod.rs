//! `cargo xtask bisect`: the first commit (or release) at which a metric
//! turns bad, decided by the mechanism's counters or, where asked, by
//! throughput.
//!
//! Each candidate is measured as a matrix of its own (one tree at the
//! candidate's commit, the matrix file's workload and variant) run by the
//! matrix runner into `steps/<label>/` of the bisection's directory: its
//! build is made by the build stage with the tree's build key and ccache,
//! its results are ordinary run results, and a step that already has its
//! runs is not run again, so an interrupted bisection resumes where it
//! stopped with the same decisions. The endpoints are measured first and
//! must differ (`decide::endpoints`); a candidate that does not build or
//! whose server does not start is skipped, as `git bisect skip` does.
//! Builds the bisection made are removed once their step is decided
//! (`--keep-builds` keeps them): a build is about 2.5 GiB.

mod decide;

use crate::dims::Metric;
use crate::host::Host;
use crate::matrix::{self, Matrix, RunOptions, TreeEntry};
use crate::record::{
    BisectOutcome, BisectRecord, BisectStep, Candidate, CandidateDecision, Rule, RunResult,
    BISECT_SCHEMA_VERSION,
};
use crate::util::{cache_root, write_json};
use anyhow::{bail, Context, Result};
use decide::{CandidateAnswer, Endpoints};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The exit status of `bisect`: the answer, as `git bisect run` scripts
/// and CI read it.
pub const FOUND: i32 = 0;
pub const NO_DIFFERENCE: i32 = 1;
pub const UNDECIDED: i32 = 2;
pub const ERROR: i32 = 3;

/// The bisection's own record, beside `steps/`.
pub const RECORD_FILE: &str = "bisect.json";

/// What to bisect, as the command line says it.
#[derive(Debug, Clone)]
pub struct BisectOptions {
    /// one workload, one tree (a git repository, unless `trees`), one
    /// variant
    pub matrix: PathBuf,
    pub good: Option<String>,
    pub bad: Option<String>,
    /// bisect this ordered list of tree specs instead of commits
    pub trees: Option<Vec<crate::tree::TreeSpec>>,
    pub metric: Option<Metric>,
    /// midpoints at most (the endpoints not counted)
    pub max_steps: u32,
    /// runs a candidate may get when its first runs leave it unknown
    pub max_runs: u32,
    pub out: Option<PathBuf>,
    pub keep_builds: bool,
}

/// The metric a bisection decides by when none is named: the counter the
/// regression of MDEV-37992 shows in, with no noise to speak of.
pub const DEFAULT_METRIC: Metric = Metric::PagesMadeYoungPerQuery;

/// What a bisection runs, read once from the matrix file and the options.
#[derive(Debug)]
struct Bisection {
    base: Matrix,
    variant: String,
    metric: Metric,
    rule: Rule,
    candidates: Vec<Candidate>,
    out: PathBuf,
}

/// The runs of one candidate in one step.
#[derive(Debug, Default)]
struct Runs {
    values: Vec<f64>,
    build_reused: Option<bool>,
    /// the failure of its first failed run, when no run succeeded
    failure: Option<String>,
    /// the cache directories its build and tree took, when this step made
    /// them (removed once no step needs them)
    made: Vec<PathBuf>,
}

/// Runs the bisection; returns its exit status (an error is `ERROR`).
pub fn run(opts: &BisectOptions) -> Result<i32> {
    let started = Instant::now();
    let plan = plan(opts)?;
    fs::create_dir_all(&plan.out)
        .with_context(|| format!("cannot create {}", plan.out.display()))?;
    let mut record = new_record(&plan);
    check_resumed(&plan.out, &record)?;
    eprintln!(
        "==> bisect {} candidates by {} ({} rule), {} runs a step",
        plan.candidates.len(),
        plan.metric.name(),
        rule_name(plan.rule),
        plan.base.repetitions
    );
    let (ends, made_later) = endpoints_step(&plan, opts, &mut record)?;
    if let Endpoints::Same { why } = &ends {
        record.outcome = Some(BisectOutcome::NoDifference { why: why.clone() });
        finish(&plan, &mut record, started, &made_later, opts.keep_builds)?;
        eprintln!("the endpoints do not differ: {why}");
        return Ok(NO_DIFFERENCE);
    }
    let outcome = midpoint_steps(&plan, opts, &ends, &mut record, started)?;
    record.outcome = Some(outcome.clone());
    finish(&plan, &mut record, started, &made_later, opts.keep_builds)?;
    Ok(announce(&plan, &outcome))
}

/// The record of a bisection not yet stepped.
fn new_record(plan: &Bisection) -> BisectRecord {
    BisectRecord {
        schema_version: BISECT_SCHEMA_VERSION,
        matrix: plan.base.name.clone(),
        workload: plan.base.workloads[0].name.clone(),
        variant: plan.variant.clone(),
        metric: plan.metric,
        rule: plan.rule,
        threshold_pct: plan.base.threshold_pct,
        candidates: plan.candidates.clone(),
        steps: Vec::new(),
        outcome: None,
        host: Host::detect().hostname,
        tool_revision: crate::provenance::tool_revision(),
        wall_seconds: 0.0,
    }
}

/// Measures the endpoints (they must differ) and records their steps;
/// returns how they compare and the builds that stay until the end
/// (statistical steps run the endpoints again beside each candidate). An
/// endpoint that cannot be measured is an error, not "no difference".
fn endpoints_step(
    plan: &Bisection,
    opts: &BisectOptions,
    record: &mut BisectRecord,
) -> Result<(Endpoints, Vec<PathBuf>)> {
    let last = plan.candidates.len() - 1;
    let step_start = Instant::now();
    let (good_runs, bad_runs, ends) = measure_endpoints(plan, opts.max_runs)?;
    let ends_why = match &ends {
        Endpoints::Differ { why, .. } | Endpoints::Same { why } => why.clone(),
    };
    for (index, runs, decision) in [
        (0, &good_runs, CandidateDecision::Good),
        (last, &bad_runs, CandidateDecision::Bad),
    ] {
        let step = step_of(
            index,
            true,
            runs,
            decision,
            ends_why.clone(),
            "steps/endpoints",
        );
        record.steps.push(BisectStep {
            wall_seconds: step_start.elapsed().as_secs_f64() / 2.0,
            ..step
        });
    }
    print_step(record, record.steps.len() - 2);
    print_step(record, record.steps.len() - 1);
    let mut made_later: Vec<PathBuf> = Vec::new();
    for runs in [&good_runs, &bad_runs] {
        made_later.extend(runs.made.iter().cloned());
    }
    if plan.rule == Rule::Counter {
        remove_made(&made_later, opts.keep_builds);
        made_later.clear();
    }
    for (which, runs) in [("good", &good_runs), ("bad", &bad_runs)] {
        if runs.values.is_empty() {
            remove_made(&made_later, opts.keep_builds);
            bail!(
                "the {which} endpoint could not be measured (results in {}): {}",
                plan.out.join("steps/endpoints").display(),
                runs.failure
                    .as_deref()
                    .unwrap_or("no run measured the metric")
            );
        }
    }
    Ok((ends, made_later))
}

/// The endpoints' runs and how they compare. A timing gets more runs while
/// its test cannot tell them apart, up to `max_runs`: 3 runs a side can
/// never give p < 0.05.
fn measure_endpoints(plan: &Bisection, max_runs: u32) -> Result<(Runs, Runs, Endpoints)> {
    let last = plan.candidates.len() - 1;
    let reps = plan.base.repetitions;
    let mut ends_reps = reps;
    loop {
        let mut ends_runs = measure(plan, "endpoints", &[0, last], ends_reps)?;
        let bad_runs = ends_runs.pop().unwrap_or_default();
        let good_runs = ends_runs.pop().unwrap_or_default();
        let ends = decide::endpoints(
            plan.rule,
            &good_runs.values,
            &bad_runs.values,
            plan.base.threshold_pct,
        );
        let more = plan.rule == Rule::Statistical
            && matches!(ends, Endpoints::Same { .. })
            && !good_runs.values.is_empty()
            && !bad_runs.values.is_empty()
            && ends_reps < max_runs;
        if !more {
            return Ok((good_runs, bad_runs, ends));
        }
        ends_reps = (ends_reps + reps.max(1)).min(max_runs);
        eprintln!("    endpoints: not told apart yet; {ends_reps} runs a side");
    }
}

/// Halves the range between the last good and the first bad candidate
/// until they are neighbours (skipped candidates aside) or the steps run
/// out, writing the record after each step.
fn midpoint_steps(
    plan: &Bisection,
    opts: &BisectOptions,
    ends: &Endpoints,
    record: &mut BisectRecord,
    started: Instant,
) -> Result<BisectOutcome> {
    let (mut good, mut bad) = (0usize, plan.candidates.len() - 1);
    let mut skipped: BTreeSet<usize> = BTreeSet::new();
    let mut midpoints = 0u32;
    loop {
        let Some(mid) = next_candidate(good, bad, &skipped) else {
            return Ok(end_of_range(plan, good, bad, &skipped));
        };
        if midpoints >= opts.max_steps {
            return Ok(BisectOutcome::Undecided {
                last_good: good,
                first_bad: bad,
                why: format!("--max-steps {} reached", opts.max_steps),
            });
        }
        midpoints += 1;
        let step_start = Instant::now();
        let label = plan.candidates[mid].label(mid);
        let (decision, why, runs) = decide_candidate(plan, ends, mid, &label, opts.max_runs)?;
        record.steps.push(BisectStep {
            wall_seconds: step_start.elapsed().as_secs_f64(),
            ..step_of(mid, false, &runs, decision, why, &format!("steps/{label}"))
        });
        print_step(record, record.steps.len() - 1);
        remove_made(&runs.made, opts.keep_builds);
        match decision {
            CandidateDecision::Good => good = mid,
            CandidateDecision::Bad => bad = mid,
            CandidateDecision::Skipped => {
                skipped.insert(mid);
            }
        }
        record.wall_seconds = started.elapsed().as_secs_f64();
        write_json(&plan.out.join(RECORD_FILE), record)?;
    }
}

/// The outcome when no candidate is left between `good` and `bad`: found,
/// unless some between them were skipped.
fn end_of_range(
    plan: &Bisection,
    good: usize,
    bad: usize,
    skipped: &BTreeSet<usize>,
) -> BisectOutcome {
    let between: Vec<String> = skipped
        .iter()
        .filter(|s| (good + 1..bad).contains(*s))
        .map(|s| plan.candidates[*s].label(*s))
        .collect();
    if between.is_empty() {
        BisectOutcome::Found {
            first_bad: bad,
            last_good: good,
        }
    } else {
        BisectOutcome::Undecided {
            last_good: good,
            first_bad: bad,
            why: format!(
                "every candidate between them was skipped ({})",
                between.join(", ")
            ),
        }
    }
}

/// Says the outcome as `git bisect` does; returns the exit status.
fn announce(plan: &Bisection, outcome: &BisectOutcome) -> i32 {
    match outcome {
        BisectOutcome::Found { first_bad, .. } => {
            let c = &plan.candidates[*first_bad];
            let line = format!(
                "first bad {}: {} {}",
                if c.commit.is_some() { "commit" } else { "tree" },
                c.commit.as_deref().unwrap_or(&c.spec),
                c.subject.as_deref().unwrap_or("")
            );
            eprintln!("{}", line.trim_end());
            FOUND
        }
        BisectOutcome::Undecided {
            last_good,
            first_bad,
            why,
        } => {
            eprintln!(
                "undecided: the first bad one is after {} and no later than {} ({why})",
                plan.candidates[*last_good].label(*last_good),
                plan.candidates[*first_bad].label(*first_bad)
            );
            UNDECIDED
        }
        BisectOutcome::NoDifference { .. } => NO_DIFFERENCE,
    }
}

/// Reads the matrix file and the options into what the bisection runs,
/// refusing what it cannot bisect before anything is fetched or built.
fn plan(opts: &BisectOptions) -> Result<Bisection> {
    let base = matrix::load(&opts.matrix)?;
    let file = opts.matrix.display();
    if base.workloads.len() != 1 {
        bail!(
            "{file}: a bisection runs one workload; this matrix has {}",
            base.workloads.len()
        );
    }
    if base.trees.len() != 1 {
        bail!(
            "{file}: a bisection takes one [[tree]] (the repository, or with --trees the variant \
             to run); this matrix has {}",
            base.trees.len()
        );
    }
    let entry = &base.trees[0];
    let variant = match entry.variants.as_slice() {
        [] => "base".to_string(),
        [one] => one.clone(),
        more => bail!(
            "{file}: a bisection runs one variant; the tree lists {}",
            more.join(", ")
        ),
    };
    if base.control.is_some() {
        bail!("{file}: a bisection runs no control (remove `control`)");
    }
    let candidates = match (&opts.trees, &opts.good, &opts.bad) {
        (Some(trees), None, None) => {
            if trees.len() < 2 {
                bail!("--trees needs at least two trees, the good one first and the bad one last");
            }
            trees
                .iter()
                .map(|spec| Candidate {
                    spec: spec.to_string(),
                    commit: None,
                    subject: None,
                })
                .collect()
        }
        (None, Some(good), Some(bad)) => {
            let h = crate::tree::history(&entry.spec, good, bad)?;
            std::iter::once(h.good)
                .chain(h.after_good)
                .map(|c| Candidate {
                    spec: c.spec,
                    commit: Some(c.id),
                    subject: Some(c.subject),
                })
                .collect()
        }
        (Some(_), _, _) => bail!("--trees bisects a list of trees: leave out --good and --bad"),
        _ => bail!("name the endpoints: --good REF --bad REF (or --trees SPEC,SPEC,...)"),
    };
    let metric = opts.metric.unwrap_or(DEFAULT_METRIC);
    let rule = if metric.is_timing() {
        Rule::Statistical
    } else {
        Rule::Counter
    };
    let out = opts.out.clone().unwrap_or_else(|| {
        let name = if base.name.starts_with("bisect") {
            base.name.clone()
        } else {
            format!("bisect-{}", base.name)
        };
        crate::util::repo_root().join("results").join(name)
    });
    matrix::run::check_out_dir_of(&out, &[RECORD_FILE, "steps"], "a bisection")?;
    Ok(Bisection {
        base,
        variant,
        metric,
        rule,
        candidates,
        out,
    })
}

/// A directory that holds another bisection is refused: its steps would
/// stand for candidates they were not made for.
fn check_resumed(out: &Path, now: &BisectRecord) -> Result<()> {
    let Some(before) = crate::util::read_json_if_present::<BisectRecord>(&out.join(RECORD_FILE))?
    else {
        return Ok(());
    };
    let same = before.candidates == now.candidates
        && before.metric == now.metric
        && before.workload == now.workload
        && before.variant == now.variant
        && before.matrix == now.matrix;
    if !same {
        bail!(
            "{} holds another bisection (matrix `{}`, {} on {} of `{}`, {} candidates): name \
             another --out",
            out.display(),
            before.matrix,
            before.metric.name(),
            before.workload,
            before.variant,
            before.candidates.len()
        );
    }
    eprintln!("resuming the bisection in {}", out.display());
    Ok(())
}

/// The candidate to measure next between `good` and `bad`: the middle
/// one, or the nearest one to it not skipped (lower first).
fn next_candidate(good: usize, bad: usize, skipped: &BTreeSet<usize>) -> Option<usize> {
    if bad <= good + 1 {
        return None;
    }
    let mid = (good + bad) / 2;
    (0..bad - good)
        .flat_map(|d| [mid.checked_sub(d), Some(mid + d)])
        .flatten()
        .find(|c| *c > good && *c < bad && !skipped.contains(c))
}

/// Measures candidate `mid` and decides it, with more runs (up to
/// `max_runs`) while the runs leave it unknown.
fn decide_candidate(
    plan: &Bisection,
    ends: &Endpoints,
    mid: usize,
    label: &str,
    max_runs: u32,
) -> Result<(CandidateDecision, String, Runs)> {
    let last = plan.candidates.len() - 1;
    let mut reps = plan.base.repetitions;
    loop {
        let (good, runs, bad) = match plan.rule {
            Rule::Counter => {
                let mut r = measure(plan, label, &[mid], reps)?;
                (None, r.pop().unwrap_or_default(), None)
            }
            Rule::Statistical => {
                let mut r = measure(plan, label, &[0, mid, last], reps)?;
                let bad = r.pop().unwrap_or_default();
                let runs = r.pop().unwrap_or_default();
                (r.pop(), runs, Some(bad))
            }
        };
        if runs.values.is_empty() {
            let why = runs
                .failure
                .clone()
                .unwrap_or_else(|| "no successful run".into());
            return Ok((CandidateDecision::Skipped, format!("skipped: {why}"), runs));
        }
        let (good_values, bad_values) = match (&good, &bad) {
            (Some(g), Some(b)) => (g.values.as_slice(), b.values.as_slice()),
            _ => (&[][..], &[][..]),
        };
        match decide::candidate(
            plan.rule,
            ends,
            good_values,
            bad_values,
            &runs.values,
            plan.base.threshold_pct,
        ) {
            CandidateAnswer::Decided(d, why) => return Ok((d, why, runs)),
            CandidateAnswer::Unknown(why) if reps >= max_runs => {
                return Ok((
                    CandidateDecision::Skipped,
                    format!("skipped after {reps} runs: {why}"),
                    runs,
                ))
            }
            CandidateAnswer::Unknown(why) => {
                reps = (reps + plan.base.repetitions.max(1)).min(max_runs);
                eprintln!("    {label}: {why}; {reps} runs");
            }
        }
    }
}

/// Runs candidates `which` (interleaved, `reps` repetitions) as one
/// matrix in `steps/<step>/`, or reads the runs a step already made;
/// returns each candidate's runs in the order of `which`.
fn measure(plan: &Bisection, step: &str, which: &[usize], reps: u32) -> Result<Vec<Runs>> {
    let dir = plan.out.join("steps").join(step);
    let labels: Vec<String> = which.iter().map(|&i| plan.candidates[i].label(i)).collect();
    let mut m = plan.base.clone();
    m.name = format!("bisect-{step}");
    m.description = format!("a step of bisection `{}`", plan.base.name);
    m.repetitions = reps;
    if plan.metric.info().cost_pass {
        m.cost_passes = reps;
    }
    m.questions.clear();
    m.trees = which
        .iter()
        .zip(&labels)
        .map(|(&i, label)| {
            let spec = &plan.candidates[i].spec;
            Ok(TreeEntry {
                // a candidate's spec is kept as the bisection's record
                // writes it (a string), from --trees or the history
                spec: spec
                    .parse()
                    .with_context(|| format!("candidate {i}: spec `{spec}`"))?,
                name: Some(label.clone()),
                variants: vec![plan.variant.clone()],
            })
        })
        .collect::<Result<_>>()?;
    let done = |results: &[RunResult]| {
        labels.iter().all(|l| {
            results
                .iter()
                .filter(|r| &r.key.tree == l && r.ok() && r.key.repetition <= reps)
                .count()
                >= reps as usize
        })
    };
    let before = crate::results::read_results(&dir).unwrap_or_default();
    let mut made = Vec::new();
    if !done(&before) {
        let cache_before = cache_entries();
        let opts = RunOptions {
            file: plan.base.source.clone(),
            ..RunOptions::new(dir.clone())
        };
        matrix::run(&m, &opts)?;
        made = cache_entries().difference(&cache_before).cloned().collect();
    }
    let results = crate::results::read_results(&dir)?;
    Ok(labels
        .iter()
        .map(|l| runs_of(plan, &results, l, &made))
        .collect())
}

/// The runs of the candidate labelled `label` among a step's results.
fn runs_of(plan: &Bisection, results: &[RunResult], label: &str, made: &[PathBuf]) -> Runs {
    let mine: Vec<&RunResult> = results.iter().filter(|r| r.key.tree == label).collect();
    let counted = |r: &&&RunResult| {
        r.ok()
            && !(plan.rule == Rule::Statistical
                && crate::results::metric::busy(r, plan.base.busy_cpu_bound))
    };
    let values: Vec<f64> = mine
        .iter()
        .filter(counted)
        .filter_map(|r| plan.metric.of(r))
        .collect();
    let build = mine.iter().find_map(|r| r.build.as_ref());
    // a build is the step's to remove only when the step made it (new in
    // the cache since the step began, and not reused by its runs)
    let made: Vec<PathBuf> = made
        .iter()
        .filter(|d| {
            build.is_some_and(|b| !b.reused && b.build.starts_with(d))
                || mine
                    .iter()
                    .any(|r| r.tree_info.as_ref().is_some_and(|t| t.src.starts_with(d)))
        })
        .cloned()
        .collect();
    Runs {
        failure: if values.is_empty() {
            mine.iter()
                .find_map(|r| r.failure.as_ref())
                .map(|f| f.to_string())
        } else {
            None
        },
        values,
        build_reused: build.map(|b| b.reused),
        made,
    }
}

/// The cache's directories whose entries a step may make: builds, and the
/// work trees of git remotes.
const CACHE_DIRS: [&str; 2] = ["builds", "trees"];

/// The build and git work-tree directories of the cache, to tell which
/// ones a step made.
fn cache_entries() -> BTreeSet<PathBuf> {
    let root = cache_root();
    CACHE_DIRS
        .iter()
        .filter_map(|d| fs::read_dir(root.join(d)).ok())
        .flat_map(|entries| entries.flatten().map(|e| e.path()))
        .collect()
}

/// Removes what a step made in the cache, unless `--keep-builds`.
fn remove_made(dirs: &[PathBuf], keep: bool) {
    if keep {
        return;
    }
    let root = cache_root();
    for d in dirs {
        // only ever a direct entry of the cache's builds or trees
        let inside = CACHE_DIRS
            .iter()
            .any(|sub| d.parent() == Some(root.join(sub).as_path()));
        if inside && fs::remove_dir_all(d).is_ok() {
            eprintln!("    removed {} (made for this bisection)", d.display());
        }
    }
}

fn step_of(
    candidate: usize,
    endpoint: bool,
    runs: &Runs,
    decision: CandidateDecision,
    why: String,
    results: &str,
) -> BisectStep {
    BisectStep {
        candidate,
        endpoint,
        median: crate::stats::spread(&runs.values).map(|s| s.median),
        values: runs.values.clone(),
        decision,
        why,
        build_reused: runs.build_reused,
        results: results.to_string(),
        wall_seconds: 0.0,
    }
}

fn rule_name(rule: Rule) -> &'static str {
    match rule {
        Rule::Counter => "counter",
        Rule::Statistical => "statistical",
    }
}

/// One line per step, as the bisection goes.
fn print_step(record: &BisectRecord, i: usize) {
    let s = &record.steps[i];
    let c = &record.candidates[s.candidate];
    let decision = match (s.endpoint, s.decision) {
        (true, CandidateDecision::Good) => "good endpoint",
        (true, _) => "bad endpoint",
        (false, CandidateDecision::Good) => "good",
        (false, CandidateDecision::Bad) => "bad",
        (false, CandidateDecision::Skipped) => "skipped",
    };
    eprintln!(
        "step {}: {} {} -> {decision} ({}; build {})",
        i + 1,
        c.label(s.candidate),
        c.subject.as_deref().unwrap_or(&c.spec),
        s.why,
        match s.build_reused {
            Some(true) => "reused",
            Some(false) => "made",
            None => "none",
        }
    );
}

/// Writes the record and its reports, and removes the endpoints' builds
/// when the bisection made them.
fn finish(
    plan: &Bisection,
    record: &mut BisectRecord,
    started: Instant,
    made: &[PathBuf],
    keep: bool,
) -> Result<()> {
    remove_made(made, keep);
    record.wall_seconds = started.elapsed().as_secs_f64();
    write_json(&plan.out.join(RECORD_FILE), record)?;
    for (name, text) in crate::report::bisect::render(record) {
        crate::util::write_atomic(&plan.out.join(&name), text.as_bytes())?;
    }
    eprintln!(
        "wrote {} and {} ({} steps, {} in all)",
        plan.out.join(RECORD_FILE).display(),
        plan.out.join("report.md").display(),
        record.steps.len(),
        crate::util::human_duration(record.wall_seconds)
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(matrix: PathBuf) -> BisectOptions {
        BisectOptions {
            matrix,
            good: Some("a".into()),
            bad: Some("b".into()),
            trees: None,
            metric: None,
            max_steps: 20,
            max_runs: 10,
            out: None,
            keep_builds: false,
        }
    }

    /// What a bisection cannot run is refused before anything is fetched,
    /// naming the file or the option.
    #[test]
    fn a_matrix_or_options_it_cannot_bisect_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("m.toml");
        let write = |trees: &str, workloads: &str| {
            let mut text = "name = \"b\"\n".to_string();
            for (i, t) in trees.split(';').enumerate() {
                text += &format!("[[tree]]\nspec = \"path:/x{i}\"\nvariants = [{t}]\n");
            }
            for w in workloads.split(',') {
                text += &format!("[[workload]]\nname = \"{w}\"\n");
            }
            fs::write(&file, text).unwrap();
        };
        let refused = |o: &BisectOptions| format!("{:#}", plan(o).unwrap_err());
        write("\"base\"", "points-covered-pk,update-index");
        assert!(refused(&opts(file.clone())).contains("one workload; this matrix has 2"));
        write("\"base\";\"base\"", "points-covered-pk");
        assert!(refused(&opts(file.clone())).contains("one [[tree]]"));
        write("\"base\", \"gate\"", "points-covered-pk");
        assert!(refused(&opts(file.clone())).contains("one variant; the tree lists base, gate"));
        write("\"base\"", "points-covered-pk");
        let mut o = opts(file.clone());
        o.bad = None;
        assert!(refused(&o).contains("--good REF --bad REF"));
        o.trees = Some(vec!["path:/x".parse().unwrap()]);
        o.good = None;
        assert!(refused(&o).contains("at least two trees"));
    }

    #[test]
    fn the_next_candidate_is_the_middle_one_not_skipped() {
        let none = BTreeSet::new();
        assert_eq!(next_candidate(0, 4, &none), Some(2));
        assert_eq!(next_candidate(0, 3, &none), Some(1));
        assert_eq!(next_candidate(2, 3, &none), None);
        let skipped: BTreeSet<usize> = [2].into();
        assert_eq!(next_candidate(0, 4, &skipped), Some(1));
        let skipped: BTreeSet<usize> = [1, 2, 3].into();
        assert_eq!(next_candidate(0, 4, &skipped), None);
    }
}
