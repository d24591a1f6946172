//! InnoDB's buffer pool LRU as a deterministic model: the list with its old
//! sublist, eviction from the tail, and three promotion policies:
//!
//! * `classic`: 10.4 and earlier;
//! * `eager`: 10.5 up to 11.8.9, as MariaDB 10.11.18 implements it;
//! * `lazy`: the MDEV-33966 fix (access-time PROMOTE bit, sweep-time move).
//!
//! The decision rules that the C++ keeps in headers are pure functions in
//! [`decide`], which the ffi crate checks against the real headers; the
//! policies call exactly those functions. [`trace`] replays JSON Lines event
//! traces, [`server_trace`] a traced server's own page trace, [`stays`] what such
//! a server did to the pages it lost, [`sim`] generates the scenarios of issue 2. The crate does no I/O:
//! callers hand it lines and print what it returns.

#![deny(missing_docs)]

pub mod decide;
pub mod layout;
pub mod policy;
pub mod pool;
pub mod preset;
pub mod rng;
pub mod series;
pub mod server_trace;
pub mod sim;
pub mod stays;
pub mod trace;

pub use decide::YoungTouch;
pub use policy::{Classic, Eager, Lazy, Policy, PolicyKind};
pub use pool::{
    kept_stamp, Boundary, BufferPool, CleanerWakeup, Config, Counters, FreeBlocks, LruModel,
    ModelError, MoveStamp, OldSurplus, PageState, ShortLru, BOUNDARY_MOVES, LRU_FLUSH_SIZE,
};
pub use preset::{ModelPolicy, ModelRules};
pub use trace::{Event, Op};

/// A pool of the given policy behind the object-safe [`LruModel`] interface.
pub fn new_model(kind: PolicyKind, cfg: Config) -> Result<Box<dyn LruModel>, ModelError> {
    Ok(match kind {
        PolicyKind::Classic => Box::new(BufferPool::<Classic>::new(cfg)?),
        PolicyKind::Eager => Box::new(BufferPool::<Eager>::new(cfg)?),
        PolicyKind::Lazy => Box::new(BufferPool::<Lazy>::new(cfg)?),
    })
}
