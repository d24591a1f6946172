//! `cargo xtask repro DIR --tree T --workload W --sides A,B [--threads N] [--out O]`

use super::Needs;
use crate::report::repro::ReproCell;
use anyhow::{bail, Result};
use std::path::PathBuf;

/// Write a reproduction of one cell of a report that needs no innodb-lab:
/// each side's my.cnf, our sysbench scripts and run.sh, which takes two
/// mariadbd binaries and prints each side's hit ratio beside the report's.
#[derive(clap::Args)]
pub struct ReproCommand {
    /// The results directory of the report (e.g. reports/hit-ratio-turnover).
    dir: PathBuf,
    /// The cell's tree label, as the report names it.
    #[arg(long)]
    tree: String,
    /// The cell's workload.
    #[arg(long)]
    workload: String,
    /// The two variants, the baseline first: `base,fixed`.
    #[arg(long, value_delimiter = ',', required = true)]
    sides: Vec<String>,
    /// The thread count, when the report ran the workload at several.
    #[arg(long)]
    threads: Option<u32>,
    /// Where to write it (default: DIR/repro-TREE-WORKLOAD).
    #[arg(long)]
    out: Option<PathBuf>,
}

impl ReproCommand {
    /// reads a report's runs and writes a directory of its own
    pub const NEEDS: Needs = Needs::Nothing;

    pub fn run(self) -> Result<()> {
        let [a, b] = self.sides.as_slice() else {
            bail!("--sides takes two variants, the baseline first: --sides base,fixed");
        };
        let cell = ReproCell {
            tree: self.tree.clone(),
            workload: self.workload.clone(),
            threads: self.threads,
            sides: [a.clone(), b.clone()],
        };
        let out = self.out.unwrap_or_else(|| {
            self.dir
                .join(format!("repro-{}-{}", self.tree, self.workload))
        });
        let written = crate::report::repro::write(&self.dir, &cell, &out)?;
        eprintln!(
            "wrote {} files into {}: run it with `{}/run.sh MARIADBD_OF_{a} MARIADBD_OF_{b} [REPETITIONS]`",
            written.len(),
            out.display(),
            out.display()
        );
        Ok(())
    }
}
