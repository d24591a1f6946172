//! Progress of a matrix run: which cell runs, how long the run has taken,
//! and how long the rest will take at the pace measured so far (server
//! start-up and data loading included, since they are part of the pace;
//! the cost servers at their own pace, since one takes minutes where a
//! cell takes seconds).

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
    /// cost servers still to run, and those run so far with their time
    cost_left: usize,
    cost_ran: usize,
    cost_seconds: f64,
}

impl Progress {
    /// `total` cells and `cost_servers` cost servers planned.
    pub fn new(total: usize, cost_servers: usize) -> Progress {
        let now = Instant::now();
        Progress {
            start: now,
            total,
            done: 0,
            ran: 0,
            ran_seconds: 0.0,
            mark: now,
            cost_left: cost_servers,
            cost_ran: 0,
            cost_seconds: 0.0,
        }
    }

    /// A cost server ran for `seconds`.
    pub fn cost_finished(&mut self, seconds: f64) {
        self.cost_left = self.cost_left.saturating_sub(1);
        self.cost_ran += 1;
        self.cost_seconds += seconds;
    }

    /// A planned cost server will not run (its cells had their results,
    /// or its server failed).
    pub fn cost_skipped(&mut self) {
        self.cost_left = self.cost_left.saturating_sub(1);
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
        let cells = eta(
            self.ran,
            self.ran_seconds,
            self.total - self.done.min(self.total),
        );
        let costs = eta(self.cost_ran, self.cost_seconds, self.cost_left);
        // cost servers not yet timed are named, not guessed
        let untimed = match (self.cost_left, costs) {
            (0, _) | (_, Some(_)) => String::new(),
            (n, None) => format!(" and {n} cost server(s)"),
        };
        match cells {
            Some(left) if self.done < self.total || self.cost_left > 0 => format!(
                "{}/{} cells, elapsed {elapsed}, about {} left{untimed}",
                self.done,
                self.total,
                human_duration(left + costs.unwrap_or(0.0))
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
        let mut p = Progress::new(3, 0);
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

    #[test]
    fn cost_servers_count_at_their_own_pace() {
        let mut p = Progress::new(4, 3);
        p.finished();
        // no cost server timed yet: named, not guessed
        assert!(
            p.status().ends_with("left and 3 cost server(s)"),
            "{}",
            p.status()
        );
        p.cost_finished(100.0);
        p.cost_skipped();
        let status = p.status();
        assert!(!status.contains("cost server"), "{status}");
        // one cost server left at the 100 s the first took
        assert!(status.contains("about 1m40s left"), "{status}");
        p.finished();
        p.finished();
        p.finished();
        // the cells are done, a cost server is still to run
        assert!(
            p.status().contains("4/4 cells") && p.status().contains("left"),
            "{}",
            p.status()
        );
        p.cost_finished(90.0);
        assert!(p.status().starts_with("4 cells, elapsed"), "{}", p.status());
    }
}
