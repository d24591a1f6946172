//! The same events through the model and through the oracle, compared
//! after every event.

use std::fmt;

use lru_model::{BufferPool, Config, Event, ModelError, Policy};

use crate::snapshot::{Difference, Snapshot};
use crate::{entry_point, Error, Oracle};

/// Blocks shown on each side of the first differing one.
const RADIUS: usize = 4;

/// What a replay that agreed to its end went through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Agreement {
    /// events replayed and compared
    pub events: u64,
    /// reads
    pub reads: u64,
    /// pages created
    pub creates: u64,
    /// accesses and lookups
    pub accesses: u64,
    /// frees
    pub frees: u64,
    /// page-cleaner events of the trace
    pub cleaner_batches: u64,
    /// the page-cleaner batches the model ran: the trace's, those after a
    /// wait for a free block, and those of an early wake-up
    /// (`lru_model::CleanerWakeup::Early`)
    pub batches_run: u64,
    /// the model's evictions (by a read's own scan or by a batch)
    pub evictions: u64,
    /// the model's pages made young
    pub made_young: u64,
    /// the blocks compared, summed over the events
    pub blocks_compared: u64,
}

impl fmt::Display for Agreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} events agree ({} reads, {} creates, {} accesses, {} frees, {} batches; {} \
             batches run, {} evictions, {} made young)",
            self.events,
            self.reads,
            self.creates,
            self.accesses,
            self.frees,
            self.cleaner_batches,
            self.batches_run,
            self.evictions,
            self.made_young
        )
    }
}

/// Why a replay stopped.
#[derive(Debug)]
pub enum Stop {
    /// The model and the oracle differ after an event.
    Diverged(Box<Divergence>),
    /// The model refused an event (a trace that is not valid for it).
    Model {
        /// 0-based index of the event
        index: u64,
        /// the event
        event: Event,
        /// why
        error: ModelError,
    },
    /// The oracle refused an event or the pool.
    Oracle(Error),
}

/// The first event after which the model and the oracle differ.
#[derive(Debug)]
pub struct Divergence {
    /// 0-based index of the event
    pub index: u64,
    /// the event
    pub event: Event,
    /// the quantity that differs first
    pub difference: Difference,
    /// the model's state after the event
    pub model: Snapshot,
    /// the oracle's state after the event
    pub oracle: Snapshot,
    /// the model's state before it
    pub model_before: Snapshot,
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Diverged(d) => d.fmt(f),
            Stop::Model {
                index,
                event,
                error,
            } => write!(
                f,
                "event {index} ({event:?}): the model refused it: {error}"
            ),
            Stop::Oracle(e) => write!(f, "the oracle refused: {e}"),
        }
    }
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.difference;
        writeln!(
            f,
            "event {} ({:?}, through {}): the model and the tree's code differ in {}: model {}, \
             tree {}",
            self.index,
            self.event,
            entry_point(&self.event.op),
            d.what,
            d.left,
            d.right
        )?;
        if let Some(p) = d.position {
            for (name, s) in [
                ("model before the event", &self.model_before),
                ("model after", &self.model),
                ("tree after", &self.oracle),
            ] {
                if p < s.lru.len() || !s.lru.is_empty() {
                    let at = p.min(s.lru.len().saturating_sub(1));
                    writeln!(
                        f,
                        "{name} (LRU around block {at}):\n{}",
                        s.lru_around(at, RADIUS)
                    )?;
                }
            }
        }
        for (name, s) in [("model", &self.model), ("tree", &self.oracle)] {
            writeln!(
                f,
                "{name}: LRU {} old {} free {} clock {} made young {} not young {} waits {} read {}",
                s.lru.len(),
                s.old_len,
                s.free_len,
                s.freed_page_clock,
                s.made_young,
                s.not_made_young,
                s.lru_waits,
                s.pages_read
            )?;
        }
        Ok(())
    }
}

/// Replay `events` through the model of policy `P` (the tree's:
/// [`crate::TreeInfo::policy`]) and the oracle, both set up with `cfg`,
/// comparing after each.
pub fn compare<P: Policy>(
    cfg: Config,
    events: impl IntoIterator<Item = Event>,
) -> Result<Agreement, Stop> {
    let mut events = events.into_iter();
    compare_with::<P>(cfg, |_| events.next())
}

/// As [`compare`], with each event chosen by `next` from the model's state
/// after the one before (random traces pick resident pages so); `None`
/// ends the replay.
pub fn compare_with<P: Policy>(
    cfg: Config,
    mut next: impl FnMut(&BufferPool<P>) -> Option<Event>,
) -> Result<Agreement, Stop> {
    let mut model = BufferPool::<P>::new(cfg).map_err(|error| Stop::Model {
        index: 0,
        event: Event {
            t_ms: 0,
            op: lru_model::Op::Cleaner,
        },
        error,
    })?;
    let mut oracle = Oracle::new(&cfg).map_err(Stop::Oracle)?;
    let mut seen = Agreement::default();
    let mut before = Snapshot::of_model(&model);
    while let Some(event) = next(&model) {
        let index = seen.events;
        if let Err(error) = apply_model(&mut model, &event) {
            return Err(Stop::Model {
                index,
                event,
                error,
            });
        }
        oracle.apply(&event).map_err(Stop::Oracle)?;
        let (mine, theirs) = (Snapshot::of_model(&model), oracle.snapshot());
        if let Some(difference) = mine.first_difference(&theirs) {
            return Err(Stop::Diverged(Box::new(Divergence {
                index,
                event,
                difference,
                model: mine,
                oracle: theirs,
                model_before: before,
            })));
        }
        seen.events += 1;
        seen.blocks_compared += mine.lru.len() as u64;
        match event.op {
            lru_model::Op::Read(_) => seen.reads += 1,
            lru_model::Op::Create(_) => seen.creates += 1,
            lru_model::Op::Access(_) | lru_model::Op::Lookup(_) => seen.accesses += 1,
            lru_model::Op::Free(_) => seen.frees += 1,
            lru_model::Op::Cleaner => seen.cleaner_batches += 1,
        }
        before = mine;
    }
    seen.evictions = model.counters().evictions;
    seen.batches_run = model.counters().cleaner_batches;
    seen.made_young = model.counters().made_young;
    Ok(seen)
}

fn apply_model<P: Policy>(model: &mut BufferPool<P>, event: &Event) -> Result<(), ModelError> {
    lru_model::LruModel::apply(model, event)
}
