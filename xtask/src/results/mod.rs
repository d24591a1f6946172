//! Results: the layer between running and reporting. A cell's key, where
//! its result lives, how results are written and read (both schemas), and
//! what a failure records. The runner writes through it; reports and
//! `validate` read through it; neither knows about the other.

pub mod failure;
pub mod key;
pub mod manifest;
pub mod merge;
pub mod metric;
pub mod profiles;
pub mod published;
pub mod question;
pub mod store;
pub mod sweeps;

pub use manifest::Manifest;
pub use published::Published;
pub use question::Question;
pub use store::read_results;
