//! `cargo xtask docs [--check]`: the figures the README, the docs and the
//! NOTES quote, written again from the reports' data (`report::figures`).

use super::Needs;
use anyhow::{bail, Result};

/// Write every generated figure of the README, CONTRIBUTING, docs/, the
/// reports' NOTES.md and the patches' notes again from the reports'
/// summary.json; with --check, write nothing and fail on a stale one.
#[derive(clap::Args)]
pub struct DocsCommand {
    /// Only check: list every stale figure and exit non-zero if one is.
    #[arg(long)]
    check: bool,
    /// Only these documents (by default every one with a figure).
    files: Vec<std::path::PathBuf>,
}

impl DocsCommand {
    /// reads reports and writes the repository's own documents
    pub const NEEDS: Needs = Needs::Nothing;

    pub fn run(self) -> Result<()> {
        let root = crate::util::repo_root();
        let files = crate::report::figures::chosen(&root, &self.files)?;
        if self.check {
            let stale = crate::report::figures::stale_in(&root, &files)?;
            if stale.is_empty() {
                eprintln!("every generated figure is up to date");
                return Ok(());
            }
            for s in &stale {
                eprintln!("{s}");
            }
            bail!(
                "{} figure(s) stale: run `cargo xtask docs` to write them again",
                stale.len()
            );
        }
        let changed = crate::report::figures::write_in(&root, &files)?;
        for f in &changed {
            eprintln!("rewrote {}", f.display());
        }
        eprintln!("{} document(s) rewritten", changed.len());
        Ok(())
    }
}
