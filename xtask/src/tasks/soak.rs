//! `cargo xtask soak MATRIX`: the matrix under seeded random faults.

use super::Needs;
use crate::soak::{self, SoakOptions};
use std::path::PathBuf;

/// Run a matrix while seeded faults SIGKILL or SIGSTOP its servers, its
/// sysbench clients and the tool itself, running the matrix command again
/// after each stop until it completes; then check that every planned cell
/// has one successful result, that summary.json has the plan's cells and
/// questions, that every file parses, and that nothing is left running
/// or on /dev/shm.
#[derive(clap::Args)]
#[command(after_help = "\
The faults come from --seed alone: the same seed gives the same faults at
the same times after each other (what they hit depends on where the run
is then). A failure prints the command that replays it. The soak holds no
lock itself: the matrix command it runs takes the cache's.

Exit status: 0 when the soak held, 1 when it found a problem or could not
run.")]
pub struct SoakCommand {
    /// The matrix file (a small one: every fault can cost a cell again)
    matrix: PathBuf,
    /// The seed of the fault schedule
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many faults to land
    #[arg(long, default_value_t = 6)]
    faults: u32,
    /// Shortest and longest time between two faults, in seconds
    #[arg(long, value_name = "MIN,MAX", default_value = "20,90", value_parser = parse_gap)]
    gap: (u64, u64),
    /// Results directory (default: results/soak-<matrix name>)
    #[arg(long)]
    out: Option<PathBuf>,
    /// Runs of the matrix command at most, the first included
    #[arg(long, default_value_t = 30)]
    max_runs: u32,
}

fn parse_gap(text: &str) -> Result<(u64, u64), String> {
    let (lo, hi) = text
        .split_once(',')
        .ok_or_else(|| format!("`{text}`: give MIN,MAX in seconds"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .map_err(|e| format!("`{s}` in `{text}`: {e}"))
    };
    let (lo, hi) = (number(lo)?, number(hi)?);
    if lo == 0 || lo > hi {
        return Err(format!("`{text}`: MIN must be at least 1 and at most MAX"));
    }
    Ok((lo, hi))
}

impl SoakCommand {
    pub const NEEDS: Needs = Needs::Nothing;

    pub fn run(self) -> anyhow::Result<()> {
        let out = match self.out {
            Some(o) => o,
            None => {
                let m = crate::matrix::load(&self.matrix)?;
                crate::util::repo_root()
                    .join("results")
                    .join(format!("soak-{}", m.name))
            }
        };
        soak::run(&SoakOptions {
            matrix: self.matrix,
            seed: self.seed,
            faults: self.faults,
            gap: self.gap,
            out,
            max_runs: self.max_runs,
        })
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_gap_is_two_seconds_in_order() {
        assert_eq!(super::parse_gap("20,90"), Ok((20, 90)));
        assert!(super::parse_gap("90,20")
            .unwrap_err()
            .contains("at most MAX"));
        assert!(super::parse_gap("0,5").is_err());
        assert!(super::parse_gap("20").unwrap_err().contains("MIN,MAX"));
        assert!(super::parse_gap("a,5").unwrap_err().contains("`a`"));
    }
}
