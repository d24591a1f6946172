//! `cargo xtask`: the command line. Each subcommand hands over to one
//! stage module; nothing here does work of its own.

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use xtask::{build, lock, matrix, report, tree, util, validate, variant};

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Validate InnoDB buffer pool patches on real MariaDB builds"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// `report DIR`, or `report merge OUT DIR...`.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
struct ReportArgs {
    #[command(subcommand)]
    command: Option<ReportCommand>,
    /// The results directory whose reports to rewrite.
    dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum ReportCommand {
    /// Join the results directories of a matrix's shards (run with
    /// `matrix --shard K/N`, on one host each) into OUT and write its
    /// report. Refused when they come from different matrix files (by the
    /// sha256 in matrix.json) or tool revisions, unless --allow-mixed, or
    /// when a cell is in two of them. Runs keep their host; reports never
    /// compare runs of different hosts, and say which host ran what.
    Merge {
        out: PathBuf,
        #[arg(required = true, num_args = 2..)]
        dirs: Vec<PathBuf>,
        #[arg(long)]
        allow_mixed: bool,
    },
}

#[derive(Subcommand)]
enum Command {
    /// Build every (tree, variant) of a matrix, run its workloads with
    /// interleaved repetitions, and write run results, summary.json and
    /// report.md.
    #[command(after_help = "\
One command that builds or runs at a time per cache: a second matrix,
build, ffi check, patch check or test on the same cache is refused (not
queued), with the pid and command line of the one that runs; a second
matrix into the same results directory likewise. At start, run
directories and servers left by a tool that died are stopped and removed.
SIGINT and SIGTERM stop every child, record the current cell as
interrupted, remove the run directories (unless --keep) and exit with
130 or 143.")]
    Matrix {
        /// The matrix file.
        #[arg(default_value = "matrix/smoke.toml")]
        file: PathBuf,
        /// Output directory (default: results/<matrix name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Keep each run's datadir on /dev/shm.
        #[arg(long)]
        keep: bool,
        /// Re-run cells that already have a matching successful result.
        #[arg(long)]
        force: bool,
        /// List every build, server, cell and question the matrix would
        /// make, without fetching or building anything.
        #[arg(long)]
        dry_run: bool,
        /// After the planned repetitions, repeat the cells whose comparison
        /// (or no-slower question) is still undecided, up to N repetitions.
        #[arg(long, value_name = "N")]
        until_decided: Option<u32>,
        /// Run one part of the matrix, for one host of several: whole
        /// comparison groups (a workload at a thread count, every variant),
        /// the i-th group in run order to shard i mod N + 1. Join the
        /// shards' results with `report merge`.
        #[arg(long, value_name = "K/N")]
        shard: Option<matrix::Shard>,
    },
    /// Fetch a tree and print what it is.
    Tree { spec: String },
    /// Build one variant of a tree (or reuse the build with the same key),
    /// resolved as a matrix resolves it (gate, clock and fixed through
    /// patches/patches.toml; base on a tree with the fix is `fixed`).
    Build {
        #[arg(long)]
        tree: String,
        #[arg(long, default_value = "base")]
        variant: String,
        /// cmake build type: RelWithDebInfo, Release or Debug.
        #[arg(long, default_value = "RelWithDebInfo")]
        build_type: xtask::record::BuildType,
    },
    /// Run MariaDB's own tests (mysql-test-run) on one variant's build, with
    /// our tests from mtr/suite/ copied in; `mtr report DIR` rewrites the
    /// report of a results directory.
    Mtr(xtask::mtr::MtrArgs),
    /// Rewrite report.md, report.jira, summary.json and the SVG charts from
    /// the run results in a directory.
    Report(ReportArgs),
    /// Compare the QPS of a candidate with a baseline on every common
    /// (tree, workload, threads) and print the table.
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
    Validate {
        baseline: String,
        candidate: String,
        /// Percent a change must exceed to count (default: the baseline's
        /// matrix threshold, 5).
        #[arg(long, value_name = "PCT")]
        threshold: Option<f64>,
    },
    /// The LRU model: replay a trace, simulate a scenario, benchmark.
    Model {
        #[command(subcommand)]
        command: xtask::model::ModelCommand,
    },
    /// Check the model's layouts and decisions against a tree's real headers.
    Ffi {
        #[command(subcommand)]
        command: xtask::ffi::FfiCommand,
    },
    /// Patches: check every patch of patches/patches.toml on every tree.
    Patch {
        #[command(subcommand)]
        command: xtask::patch_check::PatchCommand,
    },
    /// Run the test suite: unit and end-to-end tests, then the ffi check of
    /// both Debian trees, printing how long each stage took.
    Test,
}

fn main() {
    // first: a signal during a build or a bootstrap is handled too
    xtask::children::install_signal_handler();
    let cli = Cli::parse();
    if let Command::Validate {
        baseline,
        candidate,
        threshold,
    } = &cli.command
    {
        // validate answers with its exit status; an error is 3, not 1
        let code = validate::run(baseline, candidate, *threshold).unwrap_or_else(|e| {
            eprintln!("error: {e:#}");
            validate::ERROR
        });
        std::process::exit(code);
    }
    if let Err(e) = run(cli) {
        eprintln!("error: {e:#}");
        // 130 after SIGINT, 143 after SIGTERM
        let code = xtask::children::interruption_in(&e).map_or(1, |i| i.exit_code());
        std::process::exit(code);
    }
    if let Some(i) = xtask::children::interrupted() {
        eprintln!("error: {i}");
        std::process::exit(i.exit_code());
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Matrix {
            file,
            out,
            keep,
            force,
            dry_run,
            until_decided,
            shard,
        } => {
            let m = matrix::load(&file)?;
            if dry_run {
                match shard {
                    Some(s) => {
                        println!("shard {s} of matrix `{}`:", m.name);
                        print!("{}", matrix::plan::describe(&m.shard(s)?));
                    }
                    None => print!("{}", matrix::plan::describe(&m)),
                }
                return Ok(());
            }
            let _lock = lock::cache("the tool's cache (builds and servers)")?;
            let out = out.unwrap_or_else(|| util::repo_root().join("results").join(&m.name));
            let failed = matrix::run(
                &m,
                &matrix::RunOptions {
                    out,
                    keep,
                    force,
                    until_decided,
                    file: Some(file),
                    shard,
                },
            )?;
            if failed > 0 {
                bail!("{failed} run(s) failed; their errors are in the report");
            }
            Ok(())
        }
        Command::Tree { spec } => {
            println!("{}", serde_json::to_string_pretty(&tree::resolve(&spec)?)?);
            Ok(())
        }
        Command::Build {
            tree,
            variant,
            build_type,
        } => {
            let _lock = lock::cache("the tool's cache (builds and servers)")?;
            let t = tree::resolve(&tree)?;
            let v = variant::resolve(&Default::default(), &t, &variant)?;
            let b = build::build(&t, &v.label, &v.change, build_type)?;
            println!("{}", serde_json::to_string_pretty(&b)?);
            Ok(())
        }
        Command::Report(ReportArgs {
            command:
                Some(ReportCommand::Merge {
                    out,
                    dirs,
                    allow_mixed,
                }),
            ..
        }) => {
            let merged = xtask::results::merge::merge(&out, &dirs, allow_mixed)?;
            for (host, shards) in &merged.hosts {
                eprintln!("{host}: shard(s) {}", shards.join(", "));
            }
            report::write(&out)?;
            eprintln!(
                "merged {} runs into {}; report.md rewritten",
                merged.runs,
                out.display()
            );
            Ok(())
        }
        Command::Report(ReportArgs { dir: Some(dir), .. }) => report::write(&dir),
        Command::Report(_) => {
            bail!("report: name a results directory, or `report merge OUT DIR...`")
        }
        Command::Validate { .. } => unreachable!("handled in main"),
        Command::Model { command } => xtask::model::run(command),
        Command::Ffi { command } => {
            let _lock = lock::cache("the tool's cache (builds and servers)")?;
            xtask::ffi::run(command)
        }
        Command::Patch { command } => {
            let _lock = lock::cache("the tool's cache (builds and servers)")?;
            xtask::patch_check::run(command)
        }
        Command::Mtr(args) => {
            let _lock = lock::cache("the tool's cache (builds and servers)")?;
            xtask::mtr::run_cli(args)
        }
        Command::Test => {
            let _lock = lock::cache("the tool's cache (builds and servers)")?;
            xtask::testing::run_all()
        }
    }
}
