//! `cargo xtask mtr`: the command line of `crate::mtr`.

use super::Needs;
use crate::mtr::{self, report};
use crate::record::BuildType;
use crate::util::{human_duration, repo_root};
use crate::{build, tree, variant};
use anyhow::{bail, Result};
use std::path::PathBuf;
use std::time::Duration;

/// Run MariaDB's own tests (mysql-test-run) on one variant's build, with
/// our tests from mtr/suite/ copied in; `mtr report DIR` rewrites the
/// report of a results directory.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct MtrCommand {
    #[command(subcommand)]
    pub action: Option<MtrAction>,
    /// The tree (as for `cargo xtask build`).
    #[arg(long)]
    pub tree: Option<crate::tree::TreeSpec>,
    #[arg(long, default_value = "base")]
    pub variant: String,
    /// cmake build type: RelWithDebInfo, Release or Debug.
    #[arg(long, default_value = "RelWithDebInfo")]
    pub build_type: BuildType,
    /// Run this whole suite (e.g. innodb); TESTS narrow it.
    #[arg(long)]
    pub suite: Option<String>,
    /// Also run the tests that need --big-test.
    #[arg(long)]
    pub big_test: bool,
    /// Output directory (default: results/mtr-<tree version>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Stop mtr after this many minutes (it is killed 5 minutes later).
    #[arg(long, default_value_t = 120)]
    pub deadline_minutes: u64,
    /// Keep mtr's vardir on /dev/shm.
    #[arg(long)]
    pub keep: bool,
    /// Build the variant and make it whole for mtr, then stop (what may
    /// run outside a lock that covers the test run).
    #[arg(long)]
    pub build_only: bool,
    /// Our own tests to copy in: a directory with suite/<suite>/{t,r}/
    /// (default: the repository's mtr/).
    #[arg(long)]
    pub overlay: Option<PathBuf>,
    /// Every test that runs must pass: a skipped one is a problem too (for
    /// a set known to pass here, as the test command's set on fixed).
    #[arg(long)]
    pub all_pass: bool,
    /// With --all-pass: a test that may skip itself on a known race (e.g.
    /// innodb.innodb-index's "Extra checkpoint"); its skip is reported with
    /// its reason and does not fail the run (repeatable).
    #[arg(long = "may-skip", value_name = "TEST", requires = "all_pass")]
    pub may_skip: Vec<String>,
    /// Tests, e.g. innodb.flush innodb.purge.
    pub tests: Vec<String>,
}

#[derive(clap::Subcommand, Debug)]
pub enum MtrAction {
    /// Rewrite report.md and report.jira from the mtr result JSON files in
    /// a directory.
    Report { dir: PathBuf },
}

impl MtrCommand {
    /// `mtr report DIR` only reads and writes that directory; a run builds
    /// and starts servers.
    pub fn needs(&self) -> Needs {
        match self.action {
            Some(MtrAction::Report { .. }) => Needs::Nothing,
            None => Needs::Cache,
        }
    }

    pub fn run(self) -> Result<()> {
        run(self)
    }
}

fn run(args: MtrCommand) -> Result<()> {
    if let Some(MtrAction::Report { dir }) = args.action {
        let runs = report::read_runs(&dir)?;
        if runs.is_empty() {
            bail!("no mtr result JSON files in {}", dir.display());
        }
        for file in report::write(&dir, &runs)? {
            eprintln!("wrote {}", file.display());
        }
        return Ok(());
    }
    let Some(tree) = args.tree else {
        bail!("--tree is required (or: cargo xtask mtr report DIR)");
    };
    if args.build_only {
        let t = tree::resolve(&tree)?;
        t.mariadb_only("cargo xtask mtr")?;
        let v = variant::resolve(&Default::default(), &t, &args.variant)?;
        let b = build::build(&t, &v.label, &v.change, args.build_type)?;
        build::make_whole(&b)?;
        eprintln!(
            "build {} is ready for mtr: {}",
            b.key_hash,
            b.build.display()
        );
        return Ok(());
    }
    let opts = mtr::Options {
        tree,
        variant: args.variant,
        build_type: args.build_type,
        suite: args.suite,
        big_test: args.big_test,
        tests: args.tests,
        out: args.out,
        overlay: args.overlay.unwrap_or_else(|| repo_root().join("mtr")),
        deadline: Duration::from_secs(args.deadline_minutes * 60),
        keep: args.keep,
        all_pass: args.all_pass,
        may_skip: args.may_skip,
    };
    let (out, run) = mtr::run(&opts)?;
    eprintln!(
        "mtr {} {}: {} passed, {} failed, {} skipped, {} disabled ({} flaky) in {}",
        run.tree,
        run.label(),
        run.totals.passed,
        run.totals.failed,
        run.totals.skipped,
        run.totals.disabled,
        run.totals.flaky,
        human_duration(run.wall_seconds)
    );
    for (skip, allowed) in run.skips() {
        let how = if allowed {
            "allowed: it may skip itself"
        } else {
            "not allowed"
        };
        eprintln!("    skipped: {skip}, {how}");
    }
    eprintln!("wrote {}", out.display());
    if let Some(problem) = run.problem() {
        bail!("mtr on {} {}: {problem}", run.tree, run.label());
    }
    Ok(())
}
