//! Progress of a matrix run: which cell runs, how long the run has taken,
//! and how long the rest will take at the pace measured so far (server
//! start-up and data loading included, since they are part of the pace).

use crate::util::human_duration;
use std::time::Instant;

pub struct Progress {
    start: Instant,
    total: usize,
    /// cells finished or skipped
    done: usize,
    /// cells run by this invocation, and the wall time they took
    ran: usize,
    ran_seconds: f64,
    /// when the last cell ended (or the runs began)
    mark: Instant,
}

impl Progress {
    pub fn new(total: usize) -> Progress {
        let now = Instant::now();
        Progress {
            start: now,
            total,
            done: 0,
            ran: 0,
            ran_seconds: 0.0,
            mark: now,
        }
    }

    /// More cells than planned (`--until-decided`).
    pub fn add(&mut self, cells: usize) {
        self.total += cells;
    }

    /// A cell that already had its result.
    pub fn skipped(&mut self) {
        self.done += 1;
    }

    /// The time between cells that is not a cell (builds, waiting) must
    /// not count towards the pace: call before a server starts.
    pub fn restart_clock(&mut self) {
        self.mark = Instant::now();
    }

    /// A cell ended; its time is counted from the previous mark, so the
    /// first cell of a server carries the server's start and data load.
    pub fn finished(&mut self) {
        let now = Instant::now();
        self.ran_seconds += (now - self.mark).as_secs_f64();
        self.mark = now;
        self.ran += 1;
        self.done += 1;
    }

    /// `[k/n]` for the cell about to run.
    pub fn counter(&self) -> String {
        format!("[{}/{}]", (self.done + 1).min(self.total), self.total)
    }

    /// Elapsed and estimated time left, for the line after each cell.
    pub fn status(&self) -> String {
        let elapsed = human_duration(self.start.elapsed().as_secs_f64());
        match eta(
            self.ran,
            self.ran_seconds,
            self.total - self.done.min(self.total),
        ) {
            Some(left) if self.done < self.total => format!(
                "{}/{} cells, elapsed {elapsed}, about {} left",
                self.done,
                self.total,
                human_duration(left)
            ),
            _ if self.done >= self.total => format!("{} cells, elapsed {elapsed}", self.total),
            _ => format!("{}/{} cells, elapsed {elapsed}", self.done, self.total),
        }
    }
}

/// The time `remaining` cells take at the pace of `ran` cells in
/// `seconds`; unknown before the first cell ends.
pub fn eta(ran: usize, seconds: f64, remaining: usize) -> Option<f64> {
    (ran > 0).then(|| seconds / ran as f64 * remaining as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_follows_the_measured_pace() {
        assert_eq!(eta(0, 0.0, 10), None);
        assert_eq!(eta(4, 200.0, 6), Some(300.0));
        let mut p = Progress::new(3);
        assert_eq!(p.counter(), "[1/3]");
        p.skipped();
        assert_eq!(p.counter(), "[2/3]");
        assert!(
            p.status().starts_with("1/3 cells, elapsed"),
            "{}",
            p.status()
        );
        p.finished();
        assert!(p.status().contains("left"), "{}", p.status());
        p.finished();
        assert!(p.status().starts_with("3 cells, elapsed"), "{}", p.status());
    }
}
