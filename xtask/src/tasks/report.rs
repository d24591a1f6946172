//! `cargo xtask report DIR` and `cargo xtask report merge OUT DIR...`

use super::Needs;
use anyhow::{bail, Result};
use std::path::PathBuf;

/// Rewrite report.md, report.jira, summary.json and the SVG charts from
/// the run results in a directory.
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ReportCommand {
    #[command(subcommand)]
    command: Option<Merge>,
    /// The results directory whose reports to rewrite.
    dir: Option<PathBuf>,
}

#[derive(clap::Subcommand)]
enum Merge {
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

impl ReportCommand {
    /// reads results and writes reports in their own directory only
    pub const NEEDS: Needs = Needs::Nothing;

    pub fn run(self) -> Result<()> {
        match (self.command, self.dir) {
            (
                Some(Merge::Merge {
                    out,
                    dirs,
                    allow_mixed,
                }),
                _,
            ) => {
                let merged = crate::results::merge::merge(&out, &dirs, allow_mixed)?;
                for (host, shards) in &merged.hosts {
                    eprintln!("{host}: shard(s) {}", shards.join(", "));
                }
                crate::report::write(&out)?;
                eprintln!(
                    "merged {} runs into {}; report.md rewritten",
                    merged.runs,
                    out.display()
                );
                Ok(())
            }
            (None, Some(dir)) => crate::report::write(&dir),
            (None, None) => {
                bail!("report: name a results directory, or `report merge OUT DIR...`")
            }
        }
    }
}
