//! Seeded random traces for the differential replay: reads and creations
//! of pages not in the pool (each followed by the reader's access, but for
//! a read-ahead's pages, which no reader has asked for yet), accesses and lookups of
//! resident pages, frees, and page-cleaner batches, over a set of pages
//! about twice the pool, so that reads evict; the clock moves by steps
//! short and long against `innodb_old_blocks_time`.

use lru_model::rng::SplitMix64;
use lru_model::{BufferPool, Event, Op, Policy};

/// The tablespace of a random trace's pages (a trace's page is
/// `(space << 32) | page number`).
pub const SPACE: u64 = 1 << 32;

/// How a random trace is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// pages that can be read: page numbers 1 to this, in [`SPACE`]
    pub pages: u64,
    /// in a thousand events: frees
    pub frees_per_mille: u64,
    /// in a thousand events: page-cleaner batches
    pub cleaners_per_mille: u64,
    /// of a thousand pages not in the pool: those created rather than read
    pub creates_per_mille: u64,
    /// of a thousand pages not in the pool: those read ahead, which no
    /// access follows (drawn from the same roll as creations, after them)
    pub read_ahead_per_mille: u64,
    /// the longest step of the clock, in ms
    pub max_step_ms: u64,
}

/// A random trace, drawn event by event from the model's state.
pub struct RandomTrace {
    rng: SplitMix64,
    shape: Shape,
    t_ms: u64,
    /// the page just read, whose reader accesses it next
    pending_access: Option<u64>,
    left: u64,
}

impl RandomTrace {
    /// `events` events drawn with `seed`.
    pub fn new(seed: u64, shape: Shape, events: u64) -> RandomTrace {
        RandomTrace {
            rng: SplitMix64::new(seed),
            shape,
            t_ms: 1,
            pending_access: None,
            left: events,
        }
    }

    /// The next event for a pool in `pool`'s state, or `None` at the end.
    pub fn next_for<P: Policy>(&mut self, pool: &BufferPool<P>) -> Option<Event> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        // mostly short steps, sometimes one past innodb_old_blocks_time
        let step = match self.rng.below(10) {
            0 => self.rng.below(self.shape.max_step_ms + 1),
            1..=4 => self.rng.below(50),
            _ => 0,
        };
        self.t_ms += step;
        let op = if let Some(page) = self.pending_access.take() {
            Op::Access(page)
        } else {
            self.draw(pool)
        };
        Some(Event {
            t_ms: self.t_ms,
            op,
        })
    }

    fn draw<P: Policy>(&mut self, pool: &BufferPool<P>) -> Op {
        let roll = self.rng.below(1000);
        if roll < self.shape.cleaners_per_mille {
            return Op::Cleaner;
        }
        let page = SPACE + 1 + self.rng.below(self.shape.pages);
        if !pool.is_resident(page) {
            let kind = self.rng.below(1000);
            let creates = self.shape.creates_per_mille;
            if kind < creates {
                self.pending_access = Some(page);
                return Op::Create(page);
            }
            if kind >= creates + self.shape.read_ahead_per_mille {
                self.pending_access = Some(page);
            }
            return Op::Read(page);
        }
        if roll < self.shape.cleaners_per_mille + self.shape.frees_per_mille {
            Op::Free(page)
        } else if self.rng.below(4) == 0 {
            Op::Lookup(page)
        } else {
            Op::Access(page)
        }
    }
}
