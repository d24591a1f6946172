//! `cargo xtask matrix [FILE]`

use super::Needs;
use crate::matrix::{self as runner, RunOptions, Shard};
use crate::util::repo_root;
use anyhow::{bail, Result};
use std::path::PathBuf;

/// Build every (tree, variant) of a matrix, run its workloads with
/// interleaved repetitions, and write run results, summary.json and
/// report.md.
#[derive(clap::Args)]
#[command(after_help = "\
One command that builds or runs at a time per cache: a second matrix,
build, ffi check, patch check or test on the same cache is refused (not
queued), with the pid and command line of the one that runs; a second
matrix into the same results directory likewise. At start, run
directories and servers left by a tool that died are stopped and removed.
SIGINT and SIGTERM stop every child, record the current cell as
interrupted, remove the run directories (unless --keep) and exit with
130 or 143.")]
pub struct MatrixCommand {
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
    shard: Option<Shard>,
    /// Let the matrix set this string option although the tool refuses it
    /// in a matrix file (it may name a file, directory, library or peer):
    /// for a host you own; every report then carries a warning. Repeat
    /// for several.
    #[arg(long = "allow-setting", value_name = "NAME")]
    allow_setting: Vec<String>,
}

impl MatrixCommand {
    /// A dry run needs no lock; `main` asks `needs()`.
    pub fn needs(&self) -> Needs {
        if self.dry_run {
            Needs::Nothing
        } else {
            Needs::Cache
        }
    }

    pub fn run(self) -> Result<()> {
        let m = runner::load(&self.file)?;
        let out = self
            .out
            .unwrap_or_else(|| repo_root().join("results").join(&m.name));
        if self.dry_run {
            match self.shard {
                Some(s) => {
                    println!("shard {s} of matrix `{}`:", m.name);
                    print!("{}", runner::plan::describe(&m.shard(s)?));
                }
                None => print!("{}", runner::plan::describe(&m)),
            }
            // what a real run checks before it fetches or builds anything
            runner::run::check_out_dir(&out)?;
            // checked as it is; a real run would create it (0700)
            if crate::server::shm_root().exists() {
                crate::server::trusted_shm_root()?;
            }
            runner::preflight::check(&m, self.keep)?;
            println!(
                "\nchecks a run makes before fetching: passed (results directory {}, run \
                 directories, sysbench, compilers, /dev/shm space, the server user); the options \
                 each variant sets are asked of its built server, after the builds",
                out.display()
            );
            return Ok(());
        }
        let failed = runner::run(
            &m,
            &RunOptions {
                out,
                keep: self.keep,
                force: self.force,
                until_decided: self.until_decided,
                file: Some(self.file),
                shard: self.shard,
                allowed_settings: self.allow_setting,
            },
        )?;
        if failed > 0 {
            bail!("{failed} run(s) failed; their errors are in the report");
        }
        Ok(())
    }
}
