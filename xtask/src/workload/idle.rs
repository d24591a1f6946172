//! Waiting until the server is idle: dirty pages flushed (below a bound)
//! and purge done (history list below a bound), with a time limit. Mark
//! sleeps a fixed time after his write tests (mark-setup.md 4.3); we poll
//! the two counters instead, so a measured run starts from the same state
//! whatever ran before it on the same server.

use crate::metrics::status_counter;
use crate::record::{IdleBounds, IdleWait};
use anyhow::{bail, Context, Result};
use mysql::prelude::Queryable;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

impl IdleBounds {
    /// Dirty pages at most 1% of the pages holding data (at least 10, so
    /// that a tiny data set does not demand exactly zero while the server
    /// writes its own small background changes); purge at most 100 undo
    /// logs behind.
    pub fn for_data_pages(pages_data: u64) -> IdleBounds {
        IdleBounds {
            dirty_pages: (pages_data / 100).max(10),
            history_length: 100,
        }
    }
}

/// One reading of the two counters; None when the server does not show it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct IdleSample {
    pub dirty_pages: Option<u64>,
    pub history_length: Option<u64>,
}

impl IdleSample {
    /// An unreadable counter cannot confirm idleness.
    pub fn is_idle(&self, bounds: &IdleBounds) -> bool {
        matches!(self.dirty_pages, Some(d) if d <= bounds.dirty_pages)
            && matches!(self.history_length, Some(h) if h <= bounds.history_length)
    }
}

/// Takes samples from `next` (elapsed seconds and a reading) until one is
/// idle or the elapsed time reaches `limit_seconds`.
pub fn wait_until_idle(
    bounds: IdleBounds,
    limit_seconds: f64,
    mut next: impl FnMut() -> Result<(f64, IdleSample)>,
) -> Result<IdleWait> {
    loop {
        let (seconds, sample) = next()?;
        let reached = sample.is_idle(&bounds);
        if reached || seconds >= limit_seconds {
            return Ok(IdleWait {
                seconds,
                reached,
                bounds,
                limit_seconds,
                dirty_pages: sample.dirty_pages,
                history_length: sample.history_length,
            });
        }
    }
}

/// Polls the server every half second until idle or `limit`.
pub fn wait_for_server(conn: &mut mysql::Conn, limit: Duration) -> Result<IdleWait> {
    let pages_data = status_counter(conn, "Innodb_buffer_pool_pages_data")?
        .context("the server shows no Innodb_buffer_pool_pages_data")?;
    poll_until(conn, IdleBounds::for_data_pages(pages_data), limit)
}

/// Polls the server every half second until `bounds` hold or `limit`.
fn poll_until(conn: &mut mysql::Conn, bounds: IdleBounds, limit: Duration) -> Result<IdleWait> {
    let start = Instant::now();
    let mut first = true;
    wait_until_idle(bounds, limit.as_secs_f64(), || {
        if !first {
            std::thread::sleep(Duration::from_millis(500));
        }
        first = false;
        let sample = sample(conn)?;
        Ok((start.elapsed().as_secs_f64(), sample))
    })
}

/// Reads dirty pages and the history list length.
pub fn sample(conn: &mut mysql::Conn) -> Result<IdleSample> {
    let history_length = match status_counter(conn, "Innodb_history_list_length")? {
        Some(h) => Some(h),
        // older servers: the InnoDB metrics counter (on by default)
        None => conn
            .query_first::<u64, _>(
                "SELECT `COUNT` FROM information_schema.INNODB_METRICS \
                 WHERE NAME = 'trx_rseg_history_len' AND STATUS = 'enabled'",
            )
            .unwrap_or(None),
    };
    Ok(IdleSample {
        dirty_pages: status_counter(conn, "Innodb_buffer_pool_pages_dirty")?,
        history_length,
    })
}

/// How long purge may take to catch up where a run waits for it (under
/// Valgrind one server thread runs at a time, purge's too).
pub const PURGE_LIMIT: Duration = Duration::from_secs(600);

/// Polls the server until purge has caught up (a history list of 0,
/// whatever the dirty pages) or `limit`: an error that says how much was
/// left.
pub fn catch_up_purge(conn: &mut mysql::Conn, limit: Duration) -> Result<()> {
    if sample(conn)?.history_length.is_none() {
        bail!("the server shows no history list length: purge cannot be caught up");
    }
    let bounds = IdleBounds {
        dirty_pages: u64::MAX,
        history_length: 0,
    };
    let waited = poll_until(conn, bounds, limit)?;
    if !waited.reached {
        bail!(
            "purge did not catch up in {} s: {} undo logs of history left",
            limit.as_secs(),
            waited
                .history_length
                .map_or_else(|| "an unknown number of".into(), |h| h.to_string())
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(dirty: Option<u64>, history: Option<u64>) -> IdleSample {
        IdleSample {
            dirty_pages: dirty,
            history_length: history,
        }
    }

    /// Feeds `samples` (elapsed seconds, reading) to the wait.
    fn wait(samples: &[(f64, IdleSample)], limit: f64) -> (IdleWait, usize) {
        let bounds = IdleBounds {
            dirty_pages: 10,
            history_length: 100,
        };
        let mut taken = 0;
        let w = wait_until_idle(bounds, limit, || {
            let next = samples[taken];
            taken += 1;
            Ok(next)
        })
        .unwrap();
        (w, taken)
    }

    #[test]
    fn stops_at_the_first_idle_sample() {
        let samples = [
            (0.0, s(Some(5000), Some(90_000))),
            (0.5, s(Some(11), Some(3))),
            (1.0, s(Some(10), Some(101))),
            (1.5, s(Some(10), Some(100))),
            (2.0, s(Some(0), Some(0))),
        ];
        let (w, taken) = wait(&samples, 60.0);
        assert_eq!(taken, 4);
        assert!(w.reached);
        assert_eq!(
            (w.seconds, w.dirty_pages, w.history_length),
            (1.5, Some(10), Some(100))
        );
    }

    #[test]
    fn gives_up_at_the_limit_with_the_last_values() {
        let samples = [
            (0.0, s(Some(500), Some(0))),
            (9.5, s(Some(400), Some(0))),
            (10.0, s(Some(300), Some(0))),
            (10.5, s(Some(0), Some(0))),
        ];
        let (w, taken) = wait(&samples, 10.0);
        assert_eq!(taken, 3);
        assert!(!w.reached);
        assert_eq!((w.seconds, w.dirty_pages), (10.0, Some(300)));
    }

    #[test]
    fn an_unreadable_counter_never_counts_as_idle() {
        let samples = [(0.0, s(Some(0), None)), (5.0, s(Some(0), None))];
        let (w, taken) = wait(&samples, 5.0);
        assert_eq!(taken, 2);
        assert!(!w.reached);
        assert_eq!(w.history_length, None);
    }

    #[test]
    fn bounds_scale_with_the_data() {
        assert_eq!(IdleBounds::for_data_pages(120_000).dirty_pages, 1200);
        assert_eq!(IdleBounds::for_data_pages(300).dirty_pages, 10);
    }
}
